//! The shortcut's claim checked move by move: every move counted unmade has
//! the made child's reply count, and perft 2 equals the sum over the made
//! children, on every CPU path.

use std::marker::PhantomData;

use super::children::Children;
use super::shortcut::{Shortcut, perft2};
use super::sink::Unmade;
use crate::chess::cpu::{Compiled, Cpu, CpuFn, CpuPath, Sparse};
use crate::chess::movegen::{Black, Side, White};
use crate::chess::moves::{Move, MoveKind};
use crate::chess::piece::{Color, Piece};
use crate::chess::position::Position;
use crate::perft::replies::perft2_plain;

/// The moves of `pos` (side `S`, not in check) that [`perft2`] counts
/// without making them, each with the reply count it counts for it
/// (`base`, or `base` plus the mobility delta), and which way it was
/// counted (an index into [`WAYS`]).
fn shortcut<S: Side>(pos: &Position) -> Vec<(Move, u64, usize)> {
    let mut shortcut = Shortcut::EMPTY;
    shortcut.fill::<Sparse<Compiled>, S>(Sparse(Compiled), pos);
    let mut nodes = 0;
    let sink = Children::<Sparse<Compiled>, S> {
        cpu: Sparse(Compiled),
        pos,
        shortcut: Some(&shortcut),
        nodes: &mut nodes,
        side: PhantomData,
    };
    let mut moves = Vec::new();
    for mv in pos.legal_moves().iter().copied() {
        let to = mv.to().bitboard();
        let piece = pos.piece_on(mv.from()).unwrap().1;
        if mv.kind() == MoveKind::Promotion {
            let piece = mv.promotion().unwrap();
            if let Some(replies) = sink.promotion_unmade(mv.from(), mv.to(), piece) {
                moves.push((mv, replies, 3));
            } else if let Some(replies) = sink.tier(Piece::Pawn, piece, mv.from(), mv.to()) {
                moves.push((mv, replies, 5));
            }
            continue;
        }
        let unmade = match mv.kind() {
            MoveKind::Castling | MoveKind::EnPassant => Unmade::NONE,
            _ if piece == Piece::Pawn => sink.untouched_pawns(
                to,
                mv.to().index() as i32 - mv.from().index() as i32,
                mv.kind() == MoveKind::Promotion,
            ),
            _ => sink.untouched(piece, mv.from(), to),
        };
        let from = mv.from().bitboard();
        let delta = if unmade.base.nonempty() {
            Some(0)
        } else if unmade.quiet.nonempty() {
            Some(
                shortcut
                    .mobility
                    .delta::<Sparse<Compiled>, S>(Sparse(Compiled), from | to),
            )
        } else if unmade.captures.nonempty() {
            Some(
                shortcut
                    .mobility
                    .capture_delta::<Sparse<Compiled>, S>(Sparse(Compiled), from, to),
            )
        } else {
            None
        };
        if let Some(delta) = delta {
            let kind = if unmade.base.nonempty() {
                0
            } else if unmade.quiet.nonempty() {
                1
            } else {
                2
            };
            moves.push((mv, (shortcut.base as i64 + delta) as u64, kind));
        } else if mv.kind() == MoveKind::Normal
            && (piece != Piece::Pawn || mv.from().index().abs_diff(mv.to().index()) != 16)
            && let Some(replies) = sink.tier(piece, piece, mv.from(), mv.to())
        {
            moves.push((mv, replies, 4));
        }
    }
    moves
}

/// Positions: every line of the suites, then seeded random play from each.
pub(crate) fn positions() -> Vec<Position> {
    let mut out = Vec::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/positions/");
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for file in [
        "standard.epd",
        "tricky.epd",
        "tricky960.epd",
        "perftsuite.epd",
        "chess960.epd",
        "speed.epd",
        "endings.epd",
    ] {
        let text = std::fs::read_to_string(format!("{dir}{file}")).unwrap();
        let chess960 = file.contains("960");
        for line in text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let fen = line.split(';').next().unwrap().trim();
            let mut pos = Position::from_fen_with(fen, chess960, crate::Zobrist::DEFAULT).unwrap();
            for _ in 0..24 {
                out.push(pos);
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos = pos.play_unchecked(
                    moves
                        .iter()
                        .copied()
                        .nth((seed % moves.len() as u64) as usize)
                        .unwrap(),
                );
            }
        }
    }
    // From CPW position 3 to a leaf parent whose side to move has no
    // slider and can take a piece next to the other king (`c5xb4`):
    // a king zone without the king's neighbours once missed that the
    // capture gives the king a target.
    let mut pos = Position::from_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1").unwrap();
    for mv in ["a5a4", "h5b5", "a4b5", "c7c5", "b5a5"] {
        pos = pos.play_unchecked(pos.parse_uci(mv).unwrap());
        out.push(pos);
    }
    out
}

/// The ways a move is counted without a make.
const WAYS: [&str; 6] = [
    "base",
    "quiet delta",
    "capture delta",
    "promotion",
    "king tier",
    "promotion, king tier",
];

/// The claims the shortcut rests on, move by move: a move outside the
/// footprint leaves the opponent exactly `base` replies, and a quiet
/// move or capture outside its king zone `base` plus its delta.
#[test]
fn a_move_outside_the_footprint_or_its_king_zone_leaves_the_counted_replies() {
    let (mut ways, mut moves) = ([0; 6], 0);
    for pos in positions() {
        if pos.in_check() {
            continue;
        }
        let counted = match pos.side_to_move() {
            Color::White => shortcut::<White>(&pos),
            Color::Black => shortcut::<Black>(&pos),
        };
        for &(mv, replies, way) in &counted {
            let child = pos.play_unchecked(mv);
            assert_eq!(
                child.count_moves(),
                replies,
                "{} {} ({})",
                pos.to_fen(),
                mv.to_uci(true),
                WAYS[way]
            );
            ways[way] += 1;
        }
        moves += pos.legal_moves().len();
    }
    // Each way must actually be taken, or this test proves nothing.
    assert!(ways[0] * 10 > moves, "{ways:?} of {moves}");
    assert!(ways[1] * 10 > moves, "{ways:?} of {moves}");
    assert!(ways[2] * 50 > moves, "{ways:?} of {moves}");
    assert!(ways[3] > 0, "{ways:?} of {moves}");
    assert!(ways[4] * 20 > moves, "{ways:?} of {moves}");
    assert!(ways[5] > 0, "{ways:?} of {moves}");
}

/// Perft 2 on one CPU path: with the shortcut, or (`.1`) the plain
/// loop's, with replies handed down (`perft::replies`).
struct Perft2<'a>(&'a Position, bool);

impl CpuFn for Perft2<'_> {
    type Output = u64;
    fn call<C: Cpu>(self, cpu: C) -> u64 {
        // The shortcut on the path and on its `Sparse` twin (checks
        // counted in the king tier) must agree.
        let both = |a: u64, b: u64| {
            assert_eq!(a, b, "sparse, {}", self.0.to_fen());
            a
        };
        match (self.0.side_to_move(), self.1) {
            (Color::White, false) => both(
                perft2::<C, White>(cpu, self.0),
                perft2::<Sparse<C>, White>(Sparse(cpu), self.0),
            ),
            (Color::Black, false) => both(
                perft2::<C, Black>(cpu, self.0),
                perft2::<Sparse<C>, Black>(Sparse(cpu), self.0),
            ),
            (Color::White, true) => perft2_plain::<C, White>(cpu, self.0),
            (Color::Black, true) => perft2_plain::<C, Black>(cpu, self.0),
        }
    }
}

/// And perft 2 with the shortcut, and the plain loop's, equal the sum
/// over made children, on every CPU path this machine supports.
#[test]
fn perft2_equals_the_sum_over_made_children() {
    let paths = CpuPath::supported();
    for pos in positions() {
        let made: u64 = pos
            .legal_moves()
            .iter()
            .map(|&mv| pos.play_unchecked(mv).count_moves())
            .sum();
        for &path in &paths {
            assert_eq!(
                path.run(Perft2(&pos, false)),
                made,
                "{path} {}",
                pos.to_fen()
            );
            let plain = path.run(Perft2(&pos, true));
            assert_eq!(plain, made, "plain, {path} {}", pos.to_fen());
        }
    }
}
