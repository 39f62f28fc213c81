//! The fast generator against the slow reference generator
//! (src/chess/reference.rs): move sets, the position after each move, keys,
//! and perft 1-3 (shortcut and plain counters), on every CPU path this
//! machine supports, over seeded random positions in four families: random
//! play from the suite positions, standard and Chess960; random legal
//! placements with castling rights and en-passant squares where the board
//! allows them; and Chess960 starting positions plus random play.

use perft::chess::cpu::CpuPath;
use perft::chess::reference::{self, RefBoard};
use perft::perft::{perft_on, perft_plain_on};
use perft::{Move, Position};
use proptest::prelude::*;

use crate::common::{Rng, repo_path};

/// The FENs of `positions/<name>.epd`.
fn suite_fens(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repo_path(&format!("positions/{name}.epd"))).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split(';').next().unwrap().trim().to_string())
        .collect()
}

fn parse(fen: &str, chess960: bool) -> Position {
    if chess960 {
        Position::from_fen_960(fen)
    } else {
        Position::from_fen(fen)
    }
    .unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Plays up to `plies` random moves chosen from the reference generator's
/// list (so the walk does not depend on the code under test).
fn random_play(mut pos: Position, plies: usize, rng: &mut Rng) -> Position {
    for _ in 0..plies {
        let moves = reference::legal_moves(&pos);
        if moves.is_empty() {
            break;
        }
        pos = pos.play(moves[rng.below(moves.len())]).expect("legal");
    }
    pos
}

/// Chess960 start number `n` (0..960) by the Scharnagl numbering.
fn chess960_start(n: usize) -> String {
    let mut rank = [' '; 8];
    let mut n = n;
    let put_free = |rank: &mut [char; 8], mut k: usize, piece: char| {
        for sq in rank.iter_mut() {
            if *sq == ' ' {
                if k == 0 {
                    *sq = piece;
                    return;
                }
                k -= 1;
            }
        }
    };
    rank[(n % 4) * 2 + 1] = 'B';
    n /= 4;
    rank[(n % 4) * 2] = 'B';
    n /= 4;
    put_free(&mut rank, n % 6, 'Q');
    n /= 6;
    let knights = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ][n];
    put_free(&mut rank, knights.1, 'N');
    put_free(&mut rank, knights.0, 'N');
    for piece in ['R', 'K', 'R'] {
        put_free(&mut rank, 0, piece);
    }
    let white: String = rank.iter().collect();
    let black = white.to_lowercase();
    let files: String = rank
        .iter()
        .zip('A'..='H')
        .filter(|(p, _)| **p == 'R')
        .map(|(_, f)| f)
        .collect();
    format!(
        "{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w {files}{} - 0 1",
        files.to_lowercase()
    )
}

/// A random legal placement: both kings, up to 12 other pieces, castling
/// rights where a king and rook stand on their standard squares, and an
/// en-passant square where a pawn stands as if it had just pushed two.
fn random_placement(rng: &mut Rng) -> Option<Position> {
    let mut board = [None::<char>; 64];
    let free = |board: &[Option<char>; 64], rng: &mut Rng| loop {
        let sq = rng.below(64);
        if board[sq].is_none() {
            return sq;
        }
    };
    let white = rng.below(2) == 0;
    if rng.below(2) == 0 {
        // Castling-ready: kings on e1/e8, each rook on its corner or not.
        board[4] = Some('K');
        board[60] = Some('k');
        for (sq, rook) in [(0, 'R'), (7, 'R'), (56, 'r'), (63, 'r')] {
            if rng.below(3) != 0 {
                board[sq] = Some(rook);
            }
        }
    } else {
        for king in ['K', 'k'] {
            let sq = free(&board, rng);
            board[sq] = Some(king);
        }
    }
    if rng.below(2) == 0 {
        // A pawn that may just have pushed two, and one of ours beside it.
        let (pushed, ours, rank4) = if white { ('p', 'P', 4) } else { ('P', 'p', 3) };
        let file = rng.below(8);
        let beside = if file == 0 || (file < 7 && rng.below(2) == 0) {
            file + 1
        } else {
            file - 1
        };
        for (f, piece) in [(file, pushed), (beside, ours)] {
            if board[rank4 * 8 + f].is_none() {
                board[rank4 * 8 + f] = Some(piece);
            }
        }
    }
    for _ in 0..rng.below(13) {
        let piece = b"PNBRQpnbrq"[rng.below(10)] as char;
        let sq = free(&board, rng);
        if piece.eq_ignore_ascii_case(&'p') && !(8..56).contains(&sq) {
            continue;
        }
        board[sq] = Some(piece);
    }
    let mut rows = Vec::new();
    for rank in (0..8).rev() {
        let mut row = String::new();
        let mut empty = 0;
        for file in 0..8 {
            match board[rank * 8 + file] {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        row.push_str(&empty.to_string());
                        empty = 0;
                    }
                    row.push(p);
                }
            }
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        rows.push(row);
    }
    let mut castling = String::new();
    for (king, rook, flag) in [(4, 7, 'K'), (4, 0, 'Q'), (60, 63, 'k'), (60, 56, 'q')] {
        let (k, r) = if flag.is_uppercase() {
            ('K', 'R')
        } else {
            ('k', 'r')
        };
        if board[king] == Some(k) && board[rook] == Some(r) {
            castling.push(flag);
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }
    // En passant: the mover's opponent pawn on its fourth rank with the two
    // squares behind it empty.
    let (pawn, rank4, behind): (char, i32, i32) = if white { ('p', 4, 1) } else { ('P', 3, -1) };
    let ep = (0..8)
        .filter(|&f| {
            let sq = (rank4 * 8 + f) as usize;
            let passed = (rank4 + behind) * 8 + f;
            let start = (rank4 + 2 * behind) * 8 + f;
            board[sq] == Some(pawn)
                && board[passed as usize].is_none()
                && board[start as usize].is_none()
        })
        .map(|f| format!("{}{}", (b'a' + f as u8) as char, rank4 + behind + 1))
        .next()
        .unwrap_or_else(|| "-".to_string());
    let fen = format!(
        "{} {} {castling} {ep} 0 1",
        rows.join("/"),
        if white { 'w' } else { 'b' }
    );
    Position::from_fen(&fen).ok()
}

/// A random position of family `seed % 4`.
fn random_position(seed: u64) -> Position {
    let mut rng = Rng(seed | 1);
    match seed % 4 {
        0 => {
            let fens: Vec<String> = ["standard", "perftsuite", "tricky"]
                .iter()
                .flat_map(|n| suite_fens(n))
                .collect();
            let start = parse(&fens[rng.below(fens.len())], false);
            let plies = rng.below(40);
            random_play(start, plies, &mut rng)
        }
        1 => {
            let fens: Vec<String> = ["chess960", "tricky960"]
                .iter()
                .flat_map(|n| suite_fens(n))
                .collect();
            let start = parse(&fens[rng.below(fens.len())], true);
            let plies = rng.below(30);
            random_play(start, plies, &mut rng)
        }
        2 => loop {
            if let Some(pos) = random_placement(&mut rng) {
                let plies = rng.below(4);
                break random_play(pos, plies, &mut rng);
            }
        },
        _ => {
            let start = parse(&chess960_start(rng.below(960)), true);
            let plies = rng.below(40);
            random_play(start, plies, &mut rng)
        }
    }
}

fn fast_moves(pos: &Position) -> Vec<Move> {
    let mut moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
    moves.sort_by_key(|mv| mv.to_bits());
    moves
}

/// Every CPU path this machine can run (the others would run portable
/// code under their name, so they are left out, not faked).
fn paths() -> Vec<CpuPath> {
    CpuPath::supported()
}

/// The move list and popcount generated on `cpu`, sorted like `fast_moves`.
fn moves_on(cpu: CpuPath, pos: &Position) -> (Vec<Move>, u64) {
    let (list, n) = pos.legal_moves_on(cpu);
    let mut moves: Vec<Move> = list.iter().copied().collect();
    moves.sort_by_key(|mv| mv.to_bits());
    (moves, n)
}

/// The move sets agree at `pos` and at each child, on every CPU path; after
/// each move the position matches the reference board and its key the
/// recomputed one.
fn check_node_and_children(pos: &Position) -> Result<(), TestCaseError> {
    let fen = pos.to_fen();
    let moves = fast_moves(pos);
    prop_assert_eq!(&moves, &reference::legal_moves(pos), "move sets of {}", fen);
    for cpu in paths() {
        let (on_path, n) = moves_on(cpu, pos);
        prop_assert_eq!(&on_path, &moves, "move sets of {} on the {} path", fen, cpu);
        prop_assert_eq!(
            n,
            moves.len() as u64,
            "bulk count of {} on the {} path",
            fen,
            cpu
        );
    }
    prop_assert_eq!(
        pos.count_moves(),
        moves.len() as u64,
        "bulk count of {}",
        fen
    );
    let board = RefBoard::from_position(pos);
    prop_assert!(board.matches(pos), "{}", fen);
    for &mv in &moves {
        let child = pos.play_unchecked(mv);
        prop_assert!(board.make(mv).matches(&child), "{} after {:?}", fen, mv);
        prop_assert_eq!(
            child.hash(),
            child.compute_hash(),
            "key after {:?} in {}",
            mv,
            fen
        );
        let expected = reference::legal_moves(&child);
        prop_assert_eq!(
            fast_moves(&child),
            expected.clone(),
            "move sets after {:?} in {}",
            mv,
            fen
        );
        for cpu in paths() {
            prop_assert_eq!(
                moves_on(cpu, &child).0,
                expected.clone(),
                "move sets after {:?} in {} on the {} path",
                mv,
                fen,
                cpu
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn move_sets_equal_the_reference_generator(seed in any::<u64>()) {
        check_node_and_children(&random_position(seed))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn perft_1_to_3_equals_the_reference_generator(seed in any::<u64>()) {
        let pos = random_position(seed);
        for depth in 1..=3 {
            let expected = reference::perft(&pos, depth);
            for cpu in paths() {
                prop_assert_eq!(perft_on(cpu, &pos, depth), expected, "{} depth {} on the {} path", pos.to_fen(), depth, cpu);
                prop_assert_eq!(perft_plain_on(cpu, &pos, depth), expected, "{} depth {} (plain) on the {} path", pos.to_fen(), depth, cpu);
            }
        }
    }
}

#[test]
fn this_machine_runs_every_path_the_properties_claim() {
    // The properties above run on `CpuPath::supported()`. Portable always
    // exists; on an x86-64 CI machine POPCNT does too, so a detection bug
    // that dropped paths would show here rather than shrink the tests.
    let supported = paths();
    assert!(supported.contains(&CpuPath::Portable));
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("popcnt") {
        assert!(supported.contains(&CpuPath::Popcnt), "{supported:?}");
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("bmi2") {
        assert!(supported.contains(&CpuPath::Bmi2), "{supported:?}");
    }
}

#[test]
fn every_family_yields_positions() {
    // Each family is reached and gives distinct positions (a generator that
    // fell back to one position would make the properties above vacuous).
    for family in 0..4u64 {
        let fens: std::collections::HashSet<String> = (0..20)
            .map(|i| random_position(i * 4 + family).to_fen())
            .collect();
        assert!(fens.len() > 10, "family {family}: {fens:?}");
    }
    // The Scharnagl numbering: 518 is the standard start.
    assert_eq!(
        chess960_start(518),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w AHah - 0 1"
    );
}

#[test]
fn placements_include_castling_and_en_passant() {
    let mut rng = Rng(7);
    let positions: Vec<Position> = (0..400)
        .filter_map(|_| random_placement(&mut rng))
        .collect();
    assert!(positions.iter().any(|p| !p.castle_rooks().is_empty()));
    let mut rng = Rng(7);
    let eps = (0..400)
        .filter_map(|_| random_placement(&mut rng))
        .filter(|p| p.ep_square().is_some())
        .count();
    assert!(eps > 0, "no placement kept an en-passant square");
}
