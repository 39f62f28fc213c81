//! Static evaluation: material plus piece-square tables, from the side to
//! move's point of view (positive = good for the side to move).
//!
//! Deliberately minimal: the search mode exists to exercise the TT, not to
//! play well. The values are Tomasz Michniewski's "Simplified Evaluation
//! Function" as published on the Chess Programming Wiki
//! (chessprogramming.org/Simplified_Evaluation_Function): piece values
//! 100/320/330/500/900 and one table per piece, with a middlegame and an
//! endgame king table. The endgame test is the one given there: no queens,
//! or every side that has a queen has at most one minor piece besides.

use crate::chess::piece::{Color, Piece};
use crate::chess::position::Position;
use crate::chess::square::Square;

/// Centipawn value of each piece kind, pawn first (the king is not counted).
pub const PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 900, 0];

/// A table is written as the board is drawn: rank 8 first, a-file left, from
/// White's side. [`pst_index`] maps a square to it.
type Table = [i32; 64];

#[rustfmt::skip]
const PAWN: Table = [
     0,  0,  0,  0,  0,  0,  0,  0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
     5,  5, 10, 25, 25, 10,  5,  5,
     0,  0,  0, 20, 20,  0,  0,  0,
     5, -5,-10,  0,  0,-10, -5,  5,
     5, 10, 10,-20,-20, 10, 10,  5,
     0,  0,  0,  0,  0,  0,  0,  0,
];

#[rustfmt::skip]
const KNIGHT: Table = [
    -50,-40,-30,-30,-30,-30,-40,-50,
    -40,-20,  0,  0,  0,  0,-20,-40,
    -30,  0, 10, 15, 15, 10,  0,-30,
    -30,  5, 15, 20, 20, 15,  5,-30,
    -30,  0, 15, 20, 20, 15,  0,-30,
    -30,  5, 10, 15, 15, 10,  5,-30,
    -40,-20,  0,  5,  5,  0,-20,-40,
    -50,-40,-30,-30,-30,-30,-40,-50,
];

#[rustfmt::skip]
const BISHOP: Table = [
    -20,-10,-10,-10,-10,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5, 10, 10,  5,  0,-10,
    -10,  5,  5, 10, 10,  5,  5,-10,
    -10,  0, 10, 10, 10, 10,  0,-10,
    -10, 10, 10, 10, 10, 10, 10,-10,
    -10,  5,  0,  0,  0,  0,  5,-10,
    -20,-10,-10,-10,-10,-10,-10,-20,
];

#[rustfmt::skip]
const ROOK: Table = [
     0,  0,  0,  0,  0,  0,  0,  0,
     5, 10, 10, 10, 10, 10, 10,  5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
     0,  0,  0,  5,  5,  0,  0,  0,
];

#[rustfmt::skip]
const QUEEN: Table = [
    -20,-10,-10, -5, -5,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5,  5,  5,  5,  0,-10,
     -5,  0,  5,  5,  5,  5,  0, -5,
      0,  0,  5,  5,  5,  5,  0, -5,
    -10,  5,  5,  5,  5,  5,  0,-10,
    -10,  0,  5,  0,  0,  0,  0,-10,
    -20,-10,-10, -5, -5,-10,-10,-20,
];

#[rustfmt::skip]
const KING_MIDDLEGAME: Table = [
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -20,-30,-30,-40,-40,-30,-30,-20,
    -10,-20,-20,-20,-20,-20,-20,-10,
     20, 20,  0,  0,  0,  0, 20, 20,
     20, 30, 10,  0,  0, 10, 30, 20,
];

#[rustfmt::skip]
const KING_ENDGAME: Table = [
    -50,-40,-30,-20,-20,-30,-40,-50,
    -30,-20,-10,  0,  0,-10,-20,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-30,  0,  0,  0,  0,-30,-30,
    -50,-30,-30,-30,-30,-30,-30,-50,
];

/// Index into a table for a piece of `color` on `sq`: White reads the table
/// as drawn (rank 8 in row 0), Black reads it mirrored top to bottom.
#[inline(always)]
pub fn pst_index(color: Color, sq: Square) -> usize {
    let (rank, file) = (sq.index() / 8, sq.index() % 8);
    match color {
        Color::White => (7 - rank) * 8 + file,
        Color::Black => rank * 8 + file,
    }
}

/// True in the endgame, as the Simplified Evaluation Function defines it.
pub fn is_endgame(pos: &Position) -> bool {
    Color::ALL.into_iter().all(|c| {
        let queens = pos.colored(c, Piece::Queen).len();
        let rooks = pos.colored(c, Piece::Rook).len();
        let minors = (pos.colored(c, Piece::Knight) | pos.colored(c, Piece::Bishop)).len();
        queens == 0 || (rooks == 0 && minors <= 1)
    })
}

/// The evaluation in centipawns for the side to move.
pub fn evaluate(pos: &Position) -> i32 {
    let king_table = if is_endgame(pos) {
        &KING_ENDGAME
    } else {
        &KING_MIDDLEGAME
    };
    let tables: [&Table; 6] = [&PAWN, &KNIGHT, &BISHOP, &ROOK, &QUEEN, king_table];
    let mut score = [0i32; 2];
    for color in Color::ALL {
        for piece in Piece::ALL {
            let table = tables[piece.index()];
            for sq in pos.colored(color, piece) {
                score[color.index()] += PIECE_VALUES[piece.index()] + table[pst_index(color, sq)];
            }
        }
    }
    let us = pos.side_to_move();
    score[us.index()] - score[(!us).index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_level_and_colour_symmetric() {
        let pos = Position::startpos();
        assert_eq!(evaluate(&pos), 0);
        // A colour-flipped twin has the same value for its side to move.
        let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(evaluate(&pos), evaluate(&pos.flipped()));
    }

    #[test]
    fn extra_queen_is_worth_about_a_queen() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
        assert!(evaluate(&pos) > 800);
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 b - - 0 1").unwrap();
        assert!(evaluate(&pos) < -800);
    }
}
