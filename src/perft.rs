//! Perft: counting the leaves of the legal move tree.
//!
//! `perft(pos, 0) = 1`; at depth 1 the leaves are counted by popcount
//! (bulk counting) without playing a move.

use crate::movegen::{self, Black, Side, White};
use crate::moves::Move;
use crate::piece::Color;
use crate::position::Position;

/// Serial perft with bulk counting at the last ply.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match pos.side_to_move() {
        Color::White => perft_side::<White>(pos, depth),
        Color::Black => perft_side::<Black>(pos, depth),
    }
}

fn perft_side<S: Side>(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => movegen::count::<S>(pos),
        _ => {
            let mut nodes = 0;
            movegen::generate::<S, _>(pos, &mut |pm| {
                for mv in pm {
                    let child = pos.play_piece(pm.piece, mv);
                    nodes += perft_side::<S::Other>(&child, depth - 1);
                }
                false
            });
            nodes
        }
    }
}

/// Perft without bulk counting: every leaf is reached by playing its move.
/// Slow; a cross-check of the bulk counter and of `play`.
pub fn perft_full(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.legal_moves()
        .iter()
        .map(|&mv| perft_full(&pos.play_unchecked(mv), depth - 1))
        .sum()
}

/// Divide: the perft count below each legal move at `depth` (which must be at
/// least 1; depth 0 has no moves to divide by and yields an empty list).
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&mv| (mv, perft(&pos.play_unchecked(mv), depth - 1)))
        .collect()
}
