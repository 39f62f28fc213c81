//! FEN parsing: the invalid corpus (one expected error kind per line), valid
//! round trips, and random input that must never panic.

use std::time::{Duration, Instant};

use perft::{FenError, InvalidFen, Position, PositionError};
use proptest::prelude::*;

use crate::common::{load, repo_path, run_perft, stderr};

fn variant(e: &InvalidFen) -> &'static str {
    match e {
        InvalidFen::Syntax(s) => match s {
            FenError::Empty => "Empty",
            FenError::FieldCount { .. } => "FieldCount",
            FenError::BoardChar { .. } => "BoardChar",
            FenError::RankSquares { .. } => "RankSquares",
            FenError::RankCount { .. } => "RankCount",
            FenError::Side { .. } => "Side",
            FenError::Castling { .. } => "Castling",
            FenError::EnPassant { .. } => "EnPassant",
            FenError::Halfmove { .. } => "Halfmove",
            FenError::Fullmove { .. } => "Fullmove",
        },
        InvalidFen::Illegal(p) => match p {
            PositionError::KingCount { .. } => "KingCount",
            PositionError::KingsAdjacent { .. } => "KingsAdjacent",
            PositionError::OpponentInCheck { .. } => "OpponentInCheck",
            PositionError::PawnOnBackRank { .. } => "PawnOnBackRank",
            PositionError::PieceCount { .. } => "PieceCount",
            PositionError::CastlingKing { .. } => "CastlingKing",
            PositionError::CastlingRook { .. } => "CastlingRook",
            PositionError::EnPassant { .. } => "EnPassantSquare",
        },
    }
}

fn corpus() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repo_path("tests/data/invalid_fens.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (kind, fen) = l.split_once('\t').expect("kind<TAB>fen");
            let fen = match fen {
                "<empty>" => String::new(),
                "<spaces>" => "   ".to_string(),
                "<long>" => "x".repeat(100_000),
                "<nul>" => "\0".to_string(),
                "<longboard>" => format!("{} w - - 0 1", "8/".repeat(50_000)),
                other => other.to_string(),
            };
            (kind.to_string(), fen)
        })
        .collect()
}

#[test]
fn every_invalid_fen_gives_its_error_kind() {
    let corpus = corpus();
    assert!(
        corpus.len() >= 50,
        "corpus has only {} entries",
        corpus.len()
    );
    for (kind, fen) in &corpus {
        match Position::from_fen(fen) {
            Ok(p) => panic!("accepted invalid FEN ({kind}): {fen:.80} -> {}", p.to_fen()),
            Err(e) => {
                assert_eq!(variant(&e), kind, "{fen:.80}: {e}");
                let msg = e.to_string();
                assert!(!msg.is_empty() && msg.len() < 400, "message: {msg}");
            }
        }
    }
}

#[test]
fn every_invalid_fen_exits_2_with_one_error_line_from_the_cli() {
    // A NUL byte cannot be passed in argv; the suite-file test below covers it.
    for (kind, fen) in corpus().into_iter().filter(|(_, f)| !f.contains('\0')) {
        let start = Instant::now();
        let out = run_perft(&["count", "1", &fen]);
        assert!(start.elapsed() < Duration::from_secs(10), "slow on {kind}");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{kind}: {fen:.80}: {err}");
        assert!(out.stdout.is_empty(), "{kind}: stdout not empty");
        assert!(err.starts_with("error: "), "{kind}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{kind}: {err}");
        assert!(!err.contains("panicked"), "{kind}: {err}");
    }
}

#[test]
fn suite_positions_round_trip_through_fen() {
    for name in ["standard", "perftsuite", "tricky", "tricky960", "chess960"] {
        for r in load(name) {
            let fen = r.position.to_fen();
            let again = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert_eq!(again, r.position, "{name}:{}", r.line);
            assert_eq!(again.hash(), r.position.hash());
            assert_eq!(again.to_fen(), fen);
        }
    }
}

#[test]
fn canonical_fens_are_written_back_unchanged() {
    for r in load("standard")
        .iter()
        .chain(load("chess960").iter().take(100))
    {
        assert_eq!(r.position.to_fen(), r.fen_text, "line {}", r.line);
    }
}

#[test]
fn x_fen_and_shredder_fen_give_the_same_position() {
    // tricky960.epd gives X-FEN originals in comments; one of them here.
    let xfen = Position::from_fen_960("rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1").unwrap();
    let shredder = Position::from_fen("rk2r3/8/8/8/8/8/8/RK2R3 w EAea - 0 1").unwrap();
    assert_eq!(xfen, shredder);
    assert_eq!(xfen.to_fen(), "rk2r3/8/8/8/8/8/8/RK2R3 w EAea - 0 1");
}

const BASE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn arbitrary_strings_never_panic(s in "\\PC{0,120}") {
        let _ = Position::from_fen(&s);
        let _ = Position::from_fen_960(&s);
    }

    #[test]
    fn fen_like_strings_never_panic(s in "[pnbrqkPNBRQK1-9/ ]{0,60} [wb-] [KQkqA-Ha-h-]{0,5} [a-h1-8-]{0,2} [0-9-]{0,3} [0-9]{0,6}") {
        let _ = Position::from_fen(&s);
    }

    #[test]
    fn mutated_fens_never_panic(pos in 0usize..BASE.len(), c in any::<char>()) {
        let mut s: Vec<char> = BASE.chars().collect();
        let i = pos.min(s.len() - 1);
        s[i] = c;
        let s: String = s.into_iter().collect();
        if let Ok(p) = Position::from_fen(&s) {
            // Whatever is accepted must be usable.
            let _ = perft::perft::perft(&p, 2);
        }
    }
}

#[test]
fn a_nul_byte_in_a_suite_file_is_an_input_error() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("perft-nul-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nul.epd");
    std::fs::write(
        &path,
        "8/8/8/8/8/8/8/K6k w - - ;D1 3\n8/8/8/8/8/8/8/K6\0 w - - ;D1 3\n",
    )
    .unwrap();
    let out = run_perft(&["suite", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nul.epd:2:"), "{}", stderr(&out));
}
