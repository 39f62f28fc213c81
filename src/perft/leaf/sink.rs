//! The leaf parent's moves as the generator delivers them: each group of
//! targets split into those counted without a make ([`Unmade`]) and the
//! rest, made and bulk-counted by the out-of-line counter
//! ([`count_leaves`]).

use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::{self, MoveSink, Side};
use crate::chess::moves::{PROMOTION_PIECES, PieceMoves};
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::chess::square::Square;

use super::children::Children;
use super::tier::Fellows;

impl<C: Cpu, S: Side> Children<'_, C, S> {
    /// Adds the reply counts of the moves in `unmade` (each target reached
    /// from `from(target)`).
    #[inline(always)]
    pub(super) fn add_unmade(&mut self, unmade: Unmade, from: impl Fn(Square) -> Square) {
        if let Some(s) = self.shortcut {
            let moves = unmade.base.len() + unmade.quiet.len() + unmade.captures.len();
            let mut n = s.base as i64 * i64::from(moves);
            for to in unmade.quiet {
                n += s
                    .mobility
                    .delta::<C, S>(self.cpu, from(to).bitboard() | to.bitboard());
            }
            for to in unmade.captures {
                n += s
                    .mobility
                    .capture_delta::<C, S>(self.cpu, from(to).bitboard(), to.bitboard());
            }
            *self.nodes += n as u64;
        }
    }
}

/// A leaf parent's targets counted without a make: quiet moves outside the
/// footprint (`base` replies), quiet moves and captures outside its king
/// zone (`base` plus a delta).
#[derive(Clone, Copy)]
pub(super) struct Unmade {
    pub(super) base: Bitboard,
    pub(super) quiet: Bitboard,
    pub(super) captures: Bitboard,
}

impl Unmade {
    pub(super) const NONE: Unmade = Unmade {
        base: Bitboard::EMPTY,
        quiet: Bitboard::EMPTY,
        captures: Bitboard::EMPTY,
    };

    /// All of them.
    #[inline(always)]
    pub(super) fn all(&self) -> Bitboard {
        self.base | self.quiet | self.captures
    }
}

impl<C: Cpu, S: Side> MoveSink for Children<'_, C, S> {
    #[inline(always)]
    fn piece_moves(&mut self, piece: Piece, from: Square, to: Bitboard) -> bool {
        let unmade = self.untouched(piece, from, to);
        self.add_unmade(unmade, |_| from);
        let mut fellows = Fellows::UNSET;
        for to in to & !unmade.all() {
            let fellows = if C::CHECK_TIER {
                Some(&mut fellows)
            } else {
                None
            };
            if let Some(replies) = self.tier_with(piece, piece, from, to, fellows) {
                *self.nodes += replies;
                continue;
            }
            let child = self
                .pos
                .make_normal::<C, S, false>(self.cpu, piece, from, to);
            *self.nodes += count_leaves_at::<C, S::Other>(self.cpu, &child, self.o_king());
        }
        false
    }

    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, delta: i32, promotion: bool) -> bool {
        let origin = |to: Square| Square::from_index((to.index() as i32 - delta) as usize);
        let unmade = self.untouched_pawns(to, delta, promotion);
        self.add_unmade(unmade, origin);
        for to in to & !unmade.all() {
            let from = origin(to);
            if promotion {
                for piece in PROMOTION_PIECES {
                    if let Some(replies) = self.promotion_unmade(from, to, piece) {
                        *self.nodes += replies;
                        continue;
                    }
                    // On a path that counts checks (the promoted piece
                    // often checks): the king tier.
                    if C::CHECK_TIER
                        && let Some(replies) = self.tier(Piece::Pawn, piece, from, to)
                    {
                        *self.nodes += replies;
                        continue;
                    }
                    let child = self.pos.make_promotion::<S, false>(from, to, piece);
                    *self.nodes += count_leaves_at::<C, S::Other>(self.cpu, &child, self.o_king());
                }
            } else {
                if delta != 2 * S::UP
                    && let Some(replies) = self.tier(Piece::Pawn, Piece::Pawn, from, to)
                {
                    *self.nodes += replies;
                    continue;
                }
                let child = self
                    .pos
                    .make_normal::<C, S, false>(self.cpu, Piece::Pawn, from, to);
                *self.nodes += count_leaves_at::<C, S::Other>(self.cpu, &child, self.o_king());
            }
        }
        false
    }

    /// En passant and castling: always made.
    #[inline(always)]
    fn special(&mut self, moves: PieceMoves) -> bool {
        for mv in moves {
            *self.nodes +=
                count_leaves::<C, S::Other>(self.cpu, &self.pos.play_piece(moves.piece, mv));
        }
        false
    }
}

/// [`count_leaves`] with the side to move's king square given.
#[inline(always)]
pub(crate) fn count_leaves_at<C: Cpu, S: Side>(cpu: C, pos: &Position, king: Square) -> u64 {
    cpu.outlined(
        #[inline(always)]
        || movegen::count_at::<C, S>(cpu, pos, king),
    )
}

/// The bulk counter as one out-of-line function: the child loops call it
/// from a dozen places (one per move group), and inlining it into each made
/// the hot code several times larger than the instruction cache (measured).
#[inline(always)]
pub(crate) fn count_leaves<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    cpu.outlined(
        #[inline(always)]
        || movegen::count::<C, S>(cpu, pos),
    )
}
