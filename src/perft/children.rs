//! Making every child of a position: the perft makes (exact board, rights
//! and en passant, the key only when asked, no clocks) delivered to a
//! closure. The counting recursion ([`super::count`]), the plain leaf
//! parents ([`super::replies`]) and the statistics all walk children this
//! way; it lives below them so none of them imports another for it.

use std::marker::PhantomData;

use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::{self, MoveSink, Side};
use crate::chess::moves::{PROMOTION_PIECES, PieceMoves};
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::chess::square::Square;

/// Calls `f` with every child position of `pos` (side `S` to move), made by
/// the perft makes: exact board, rights and en passant, the key only when
/// `KEYS`, no clocks.
#[inline(always)]
pub(crate) fn for_each_child<C: Cpu, S: Side, const KEYS: bool>(
    cpu: C,
    pos: &Position,
    f: impl FnMut(&Position),
) {
    movegen::generate_into::<C, S, _>(
        cpu,
        pos,
        &mut Children::<C, S, KEYS, _> {
            cpu,
            pos,
            f,
            side: PhantomData,
        },
    );
}

/// The [`MoveSink`] of the perft recursion: makes each child and hands it on.
struct Children<'a, C, S, const KEYS: bool, F> {
    cpu: C,
    pos: &'a Position,
    f: F,
    side: PhantomData<S>,
}

impl<C: Cpu, S: Side, const KEYS: bool, F: FnMut(&Position)> MoveSink
    for Children<'_, C, S, KEYS, F>
{
    #[inline(always)]
    fn piece_moves(&mut self, piece: Piece, from: Square, to: Bitboard) -> bool {
        for to in to {
            (self.f)(
                &self
                    .pos
                    .make_normal::<C, S, KEYS>(self.cpu, piece, from, to),
            );
        }
        false
    }

    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, delta: i32, promotion: bool) -> bool {
        for to in to {
            let from = Square::from_index((to.index() as i32 - delta) as usize);
            if promotion {
                for piece in PROMOTION_PIECES {
                    (self.f)(&self.pos.make_promotion::<S, KEYS>(from, to, piece));
                }
            } else {
                (self.f)(
                    &self
                        .pos
                        .make_normal::<C, S, KEYS>(self.cpu, Piece::Pawn, from, to),
                );
            }
        }
        false
    }

    /// En passant and castling are rare: the general make.
    #[inline(always)]
    fn special(&mut self, moves: PieceMoves) -> bool {
        for mv in moves {
            (self.f)(&self.pos.play_piece(moves.piece, mv));
        }
        false
    }
}
