//! Perft 2 for a leaf parent whose side to move has no slider, or one.
//!
//! When the side to move `S` has only its king, knights and pawns (and no
//! pawn one step from promotion), and the other side `O` has no castling
//! right, a move of `S` changes `O`'s replies in few ways, and all of them
//! can be read from a handful of sets:
//!
//! * `S` has no slider to pin a piece of `O` or to uncover a check, so
//!   every piece of `O` moves freely, and only the piece that moved can
//!   give check (a knight or a pawn: a king move never checks);
//! * not in check, every pseudo-legal move of `O`'s knights, sliders and
//!   pawns is legal: their targets on the child's occupancy, plus an
//!   en-passant capture by each of `O`'s pawns next to a pawn of `S` that
//!   just moved two squares (no slider of `S` can stand behind them);
//! * in check from the leaper on `to`, `O`'s pieces can only take it
//!   (there is no square between a leaper and the king it checks),
//!   normally or, after a double push, en passant;
//! * `O`'s king goes to the squares next to it that hold none of `O`'s
//!   pieces and that `S`'s pawns, knights and king do not attack after the
//!   move (no slider: the attacks do not depend on the occupancy).
//!
//! So each child's count is a few shifts, table reads and popcounts, and
//! one lookup per slider of `O` (two for a queen), with no make and none of
//! the shortcut's per-leaf-parent set-up ([`Leapers::replies`]). `S` may be
//! in check: the generator gives its evasions, and each is counted the same
//! way. En-passant captures of `S` (rare) are made and counted in full; `S`
//! cannot castle without a rook. `O`'s castling (its path against `S`'s
//! attacks) is left to the shortcut: endings rarely have it.
//!
//! Where it is taken ([`copy`]): kings and pawns only, with the knight and
//! slider code compiled out, and where `O` has a slider (queen and rook
//! endings in which `S` has none). Not in the knight endings without a
//! slider, where the shortcut counts many of `S`'s moves as the passed
//! position's count with no work per move: there the general copy ran
//! 0.91-1.02 of the shortcut's instructions, no gain overall.
//!
//! **One slider** ([`Which::Slider`]). When `S` has exactly one slider and no
//! knight, or a queen as that slider and knights beside it (same conditions
//! otherwise), the slider where it stands after the move is the only piece of
//! `S` whose attacks depend on the occupancy, so one lookup (two for a queen),
//! with `O`'s king off the board, gives the squares it denies `O`'s king and
//! whether it checks (moved or uncovered); and it pins at most one piece of
//! `O`, the one that stands alone between it and the king on a line of its
//! kind. Each child is then counted as a board of its own
//! ([`Leapers::count_slider`]):
//! in a double check the king's moves only; in a single check the king's
//! moves and the moves of `O`'s unpinned pieces onto the checker or between
//! it and the king; otherwise every piece of `O`, a pinned one along its pin
//! line. A double push that gives `O` an en-passant capture is made (with
//! a slider on the board the capture may be illegal: a horizontal pin).
//! This replaces the shortcut's set-up and king tier in the rook and queen
//! endings, where most of `S`'s moves touch `O`'s king zone. Measured
//! (instructions against the shortcut, `scripts/lab/icount_set.py`): the speed
//! set's first bin 0.961 and second 0.986 (queen endings 0.83-0.92,
//! minor-piece endings with a promoted queen 0.91-0.97); CPW 3 at depth 7
//! 0.80 of the time (0.218 s against 0.271 s). A knight of `S` adds only
//! its squares around `O`'s king and its check, a leaper's. Taken with a
//! knight beside a bishop or a rook, the copy ran 1.03-1.04 of the
//! instructions in the minor-piece endings (the shortcut counts a knight's
//! moves away from `O`'s king as the passed position's count), so those
//! are left to the shortcut; beside a queen, whose moves mostly reach
//! `O`'s king zone, it is taken: with queens on both sides and the queen
//! and knight to move at the leaf parents, endings-66 at depth 7 ran 1.25x
//! as fast (AMD Zen 5, `--shortcut`, 3 rounds; at depth 6, where the other
//! side moves there, 1.00), endings-65 at depth 6 0.90 of the
//! instructions and 0.57 of the simulated mispredicts; the rest of the
//! endings set and the speed set ran the same instructions (within 0.1 %)
//! and times (0.99-1.02 per class). A copy for two sliders of `S`, a queen
//! among them (every slider looked up per child, checks and pins from the
//! sliders on `O`'s king's lines), is not used: with queens on both sides
//! it ran 0.987x the shortcut's speed (KQRvKQR 0.91-1.10x, the others
//! 0.97-1.02x): it cut the simulated mispredicts by about 40 % but ran
//! 0.89-1.05 of the instructions, since each child recounts every move
//! of `O` where the shortcut adds a delta to the passed count. With such a
//! delta (`O`'s slider sets found once per leaf parent, only those a move
//! touches looked up again, when no piece of `O` is pinned) it ran 0.972x.
//!
//! **Promotions.** Where `S`'s one slider is a queen, the one-slider copy
//! also takes leaf parents with a pawn of `S` one step from promotion: each
//! promotion is made and bulk-counted (its child has a second slider or a
//! knight), the other moves are counted as above. With a queen most of
//! `S`'s moves reach `O`'s king zone, where the shortcut makes or tiers
//! them anyway: a queen and a pawn on the seventh against three pieces
//! (endings-37, -38) ran 0.88 and 0.93 of the time, a queen ending whose
//! pawn is blocked by its own king (endings-17) 0.80; pawn and minor-piece
//! endings, which meet the rule rarely, 1.00-1.04 (partly code placement:
//! 0.5 % more instructions on endings-22). With a rook or a bishop the
//! shortcut, which counts most promotions unmade and most of the slider's
//! moves as the passed position's count, stays faster: taken there, rook
//! endings with a pawn about to promote ran 1.07-1.16 of its time
//! (endings-09, -53, -54, -55), a bishop's 1.09 (endings-28). (AMD Zen 5,
//! interleaved rounds, the default build against the one before.)
//!
//! Used on the `Sparse` paths only (`Cpu::CHECK_TIER`, roots with at most 14
//! men), so that the richer positions' code stays as it was.

use std::marker::PhantomData;

use super::count_leaves;
use super::mobility::{pawn_count, pawn_evasions};
use crate::chess::attacks::{
    between, bishop_rays, king_attacks, knight_attacks, pawn_attacks, rook_rays,
};
use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::{self, MoveSink, NodeInfo, Side};
use crate::chess::moves::{PROMOTION_PIECES, PieceMoves};
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::chess::square::Square;

/// The copies of [`perft2`] ([`copy`] says which one counts a leaf parent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Which {
    /// Kings and pawns only: the knight and slider code compiled out.
    Pawns,
    /// `S` has no slider, `O` has one.
    Leapers,
    /// `S` has exactly one slider (a bishop, rook or queen) and no knight
    /// unless the slider is a queen: the slider alone can pin a piece of
    /// `O` or uncover a check.
    Slider,
}

/// Which copy of [`perft2`] counts `pos` (side `S` to move), if one does:
/// [`Which::Pawns`] for kings and pawns only, [`Which::Leapers`] where `S`
/// has no slider and `O` has one, [`Which::Slider`] where `S` has exactly
/// one slider and no knight unless that slider is a queen; in all, `O` has
/// no castling right, and `S` has no pawn one step from promotion unless
/// its slider is a queen.
/// `None`: the leaf-parent shortcut.
///
/// Measured (`scripts/lab/icount_set.py`, instructions against the shortcut):
/// the speed set's pawn endings of 13 men 0.68-0.71 with the
/// kings-and-pawns copy (0.75-0.79 with the general one); its queen and
/// rook endings with one side's slider 0.91-0.92 (speed-13, -14, -23;
/// speed-27 0.98); its knight endings without a slider 0.91-1.02 (so not
/// taken). Leaf parents without a slider with a pawn one step from
/// promotion are left to the shortcut, which counts most promotions
/// unmade: taken here, the pawn endings that promote within a few plies ran
/// up to 1.9 % more. The one-slider copy with a queen makes its promotions
/// (see the module docs).
#[inline(always)]
pub(crate) fn copy<S: Side>(pos: &Position) -> Option<Which> {
    let us = pos.colors(S::COLOR);
    let them = pos.colors(<S::Other as Side>::COLOR);
    let sliders = pos.diagonal_sliders() | pos.orthogonal_sliders();
    if (pos.castle_rooks() & them).nonempty() {
        None
    } else if (S::up(pos.pieces(Piece::Pawn) & us) & S::RANK_8).nonempty() {
        // A pawn one step from promotion: only a lone queen (no other
        // slider; knights may stand beside it) keeps the one-slider copy,
        // which makes the promotions.
        let queen = pos.diagonal_sliders() & pos.orthogonal_sliders() & us;
        if queen.nonempty() && sliders & us == queen && !queen.has_many() {
            Some(Which::Slider)
        } else {
            None
        }
    } else if (sliders & us).nonempty() {
        if (sliders & us).has_many()
            || ((pos.pieces(Piece::Knight) & us).nonempty()
                && (pos.pieces(Piece::Queen) & us).is_empty())
        {
            None
        } else {
            Some(Which::Slider)
        }
    } else if sliders.nonempty() {
        Some(Which::Leapers)
    } else if pos.pieces(Piece::Knight).is_empty() {
        Some(Which::Pawns)
    } else {
        None
    }
}

/// Perft 2 below `pos` (side `S` to move), where [`copy`] gives
/// [`Which::Pawns`] (neither `PIECES` nor `SLIDER`: the board holds kings
/// and pawns only, and the code for knights and sliders is left out),
/// [`Which::Leapers`] (`PIECES`) or [`Which::Slider`] (both).
#[inline(always)]
pub(crate) fn perft2<C: Cpu, S: Side, const PIECES: bool, const SLIDER: bool>(
    cpu: C,
    pos: &Position,
) -> u64 {
    debug_assert_eq!(
        copy::<S>(pos),
        Some(match (PIECES, SLIDER) {
            (false, _) => Which::Pawns,
            (true, false) => Which::Leapers,
            (true, true) => Which::Slider,
        })
    );
    let mut sink = Leapers::<C, S, PIECES, SLIDER>::new(cpu, pos);
    movegen::generate_with_info::<C, S, _>(cpu, pos, &NodeInfo::new::<S>(pos), &mut sink);
    sink.nodes
}

/// The squares the knights `knights` attack.
#[inline(always)]
fn knight_reach(knights: Bitboard) -> Bitboard {
    let mut reach = Bitboard::EMPTY;
    for sq in knights {
        reach |= knight_attacks(sq);
    }
    reach
}

/// The children's counts of such a leaf parent.
struct Leapers<'a, C, S, const PIECES: bool, const SLIDER: bool> {
    cpu: C,
    pos: &'a Position,
    occ: Bitboard,
    s_pawns: Bitboard,
    s_knights: Bitboard,
    /// The squares `S`'s knights attack.
    s_knight_reach: Bitboard,
    s_king: Square,
    o_all: Bitboard,
    o_pawns: Bitboard,
    o_knights: Bitboard,
    o_diagonal: Bitboard,
    o_orthogonal: Bitboard,
    o_king: Square,
    /// With `SLIDER`: `S`'s slider's square, and whether it moves along
    /// diagonals and along ranks and files.
    s_slider: Square,
    s_diagonal: bool,
    s_orthogonal: bool,
    nodes: u64,
    side: PhantomData<S>,
}

impl<'a, C: Cpu, S: Side, const PIECES: bool, const SLIDER: bool>
    Leapers<'a, C, S, PIECES, SLIDER>
{
    #[inline(always)]
    fn new(cpu: C, pos: &'a Position) -> Self {
        let o = <S::Other as Side>::COLOR;
        let us = pos.colors(S::COLOR);
        let them = pos.colors(o);
        let s_knights = pos.pieces(Piece::Knight) & us;
        let s_knight_reach = knight_reach(s_knights);
        let (s_diagonal, s_orthogonal) =
            (pos.diagonal_sliders() & us, pos.orthogonal_sliders() & us);
        Leapers {
            cpu,
            pos,
            occ: us | them,
            s_pawns: pos.pieces(Piece::Pawn) & us,
            s_knights,
            s_knight_reach,
            s_king: pos.king(S::COLOR),
            o_all: them,
            o_pawns: pos.pieces(Piece::Pawn) & them,
            o_knights: pos.pieces(Piece::Knight) & them,
            o_diagonal: pos.diagonal_sliders() & them,
            o_orthogonal: pos.orthogonal_sliders() & them,
            o_king: pos.king(o),
            s_slider: if SLIDER {
                (s_diagonal | s_orthogonal).lsb()
            } else {
                Square::from_index(0)
            },
            s_diagonal: s_diagonal.nonempty(),
            s_orthogonal: s_orthogonal.nonempty(),
            nodes: 0,
            side: PhantomData,
        }
    }

    /// `O`'s replies after `S` moves its `piece` (a king, knight or pawn,
    /// or with `SLIDER` its slider; not a promotion or an en-passant
    /// capture) from `from` to `to`, taking what of `O`'s stands there;
    /// `double` for a double push.
    #[inline(always)]
    fn replies(&self, piece: Piece, from: Square, to: Square, double: bool) -> u64 {
        // With a slider of S on the board, an en-passant capture of O may
        // be illegal (the two pawns leave a rank the slider shares with
        // O's king): a double push that gives O one is made (rare).
        if SLIDER && double {
            let crossed = Square::from_index((to.index() as i32 - S::UP) as usize);
            if (pawn_attacks(S::COLOR, crossed) & self.o_pawns).nonempty() {
                let child = self
                    .pos
                    .make_normal::<C, S, false>(self.cpu, piece, from, to);
                return count_leaves::<C, S::Other>(self.cpu, &child);
            }
        }
        let replies = if SLIDER {
            self.count_slider(piece, from, to)
        } else {
            self.count(piece, from, to, double)
        };
        debug_assert_eq!(
            u64::from(replies),
            movegen::count::<C, S::Other>(
                self.cpu,
                &self
                    .pos
                    .make_normal::<C, S, false>(self.cpu, piece, from, to)
            ),
            "{} {piece:?} {from:?} {to:?}",
            self.pos.to_fen()
        );
        u64::from(replies)
    }

    /// [`Leapers::replies`], without its debug comparison.
    #[inline(always)]
    fn count(&self, piece: Piece, from: Square, to: Square, double: bool) -> u32 {
        let (from_bb, to_bb) = (from.bitboard(), to.bitboard());
        let moved = from_bb | to_bb;
        let occ = (self.occ ^ from_bb) | to_bb;
        let own = self.o_all & !to_bb;
        let (mut s_pawns, mut s_king, mut knight_reach) =
            (self.s_pawns, self.s_king, self.s_knight_reach);
        match piece {
            Piece::Pawn => s_pawns ^= moved,
            Piece::King => s_king = to,
            _ if !PIECES => unreachable!("a knight without PIECES"),
            _ => knight_reach = self::knight_reach(self.s_knights ^ moved),
        }
        let king = self.o_king;
        let attacked =
            S::up_west(s_pawns) | S::up_east(s_pawns) | knight_reach | king_attacks(s_king);
        let king_moves = (king_attacks(king) & !own & !attacked).len();
        let (o_pawns, o_knights) = (self.o_pawns & !to_bb, self.o_knights & !to_bb);
        let (o_diagonal, o_orthogonal) = (self.o_diagonal & !to_bb, self.o_orthogonal & !to_bb);
        // After a double push, O's pawns that attack the square it crossed
        // take it en passant (found as the generator finds them).
        let ep = if double {
            let crossed = Square::from_index((to.index() as i32 - S::UP) as usize);
            pawn_attacks(S::COLOR, crossed) & o_pawns
        } else {
            Bitboard::EMPTY
        };
        // Only the piece that moved can check.
        let checks = match piece {
            Piece::Pawn => pawn_attacks(<S::Other as Side>::COLOR, king),
            Piece::Knight if PIECES => knight_attacks(king),
            _ => Bitboard::EMPTY,
        };
        let (cpu, others) = (self.cpu, king_moves + ep.len());
        if checks.contains(to) {
            // Take the checker. A pawn of O that takes on O's last rank
            // promotes (a knight of S can stand there).
            let pawns = (pawn_attacks(S::COLOR, to) & o_pawns).len();
            if !PIECES {
                return others + pawns;
            }
            let pawns = if (to_bb & <S::Other as Side>::RANK_8).nonempty() {
                4 * pawns
            } else {
                pawns
            };
            others
                + pawns
                + (knight_attacks(to) & o_knights).len()
                + (cpu.bishop_attacks(to, occ) & o_diagonal).len()
                + (cpu.rook_attacks(to, occ) & o_orthogonal).len()
        } else {
            let mut n = others + pawn_count::<S::Other>(o_pawns, occ, occ & !own);
            if !PIECES {
                return n;
            }
            for sq in o_knights {
                n += (knight_attacks(sq) & !own).len();
            }
            for sq in o_diagonal {
                n += (cpu.bishop_attacks(sq, occ) & !own).len();
            }
            for sq in o_orthogonal {
                n += (cpu.rook_attacks(sq, occ) & !own).len();
            }
            n
        }
    }

    /// [`Leapers::count`] where `S` has one slider (`SLIDER`; knights only
    /// beside a queen, each a leaper's attacks and check), for any move but a
    /// double push that gives `O` an en-passant capture. The slider, where it
    /// stands after the move, is the only piece of `S` that sees along lines:
    /// it checks `O`'s king if its attacks reach it, and pins the one piece of
    /// `O` that stands alone between them on a line of its kind. `O`'s king
    /// goes where nothing of `S` attacks (the slider's attacks with the king
    /// off the board); in a double check nothing else moves; in a single check
    /// `O`'s unpinned pieces move onto the checker or between it and the king;
    /// otherwise each piece of `O` moves as on a board of its own, a pinned
    /// one along its pin line.
    #[inline(always)]
    fn count_slider(&self, piece: Piece, from: Square, to: Square) -> u32 {
        let (from_bb, to_bb) = (from.bitboard(), to.bitboard());
        let moved = from_bb | to_bb;
        let occ = (self.occ ^ from_bb) | to_bb;
        let own = self.o_all & !to_bb;
        let (mut s_pawns, mut s_king, mut slider) = (self.s_pawns, self.s_king, self.s_slider);
        let mut knight_reach = self.s_knight_reach;
        match piece {
            Piece::Pawn => s_pawns ^= moved,
            Piece::King => s_king = to,
            Piece::Knight => knight_reach = self::knight_reach(self.s_knights ^ moved),
            _ => slider = to,
        }
        let (cpu, king) = (self.cpu, self.o_king);
        let (diagonal, orthogonal) = (self.s_diagonal, self.s_orthogonal);
        let slider_bb = slider.bitboard();
        // The slider's attacks with O's king off the board: the squares it
        // denies the king, and, if they hold the king's square, a check.
        let no_king = occ ^ king.bitboard();
        let mut reach = Bitboard::EMPTY;
        if diagonal {
            reach |= cpu.bishop_attacks(slider, no_king);
        }
        if orthogonal {
            reach |= cpu.rook_attacks(slider, no_king);
        }
        let attacked =
            S::up_west(s_pawns) | S::up_east(s_pawns) | king_attacks(s_king) | knight_reach | reach;
        let king_moves = (king_attacks(king) & !own & !attacked).len();
        let leaper_check = match piece {
            Piece::Pawn => pawn_attacks(<S::Other as Side>::COLOR, king) & to_bb,
            Piece::Knight => knight_attacks(king) & to_bb,
            _ => Bitboard::EMPTY,
        };
        let checkers = if reach.contains(king) {
            leaper_check | slider_bb
        } else {
            leaper_check
        };
        // The piece of O the slider pins, and its line (the squares between
        // the king and the slider, and the slider's).
        let rays = match (diagonal, orthogonal) {
            (true, true) => bishop_rays(king) | rook_rays(king),
            (true, false) => bishop_rays(king),
            _ => rook_rays(king),
        };
        let line = between(king, slider);
        let blockers = line & occ;
        let (pinned, pin_line) =
            if rays.contains(slider) && !blockers.has_many() && (blockers & own).nonempty() {
                (blockers, line | slider_bb)
            } else {
                (Bitboard::EMPTY, Bitboard::EMPTY)
            };
        let (o_pawns, o_knights) = (self.o_pawns & !to_bb, self.o_knights & !to_bb);
        let (o_diagonal, o_orthogonal) = (self.o_diagonal & !to_bb, self.o_orthogonal & !to_bb);
        if checkers.nonempty() {
            if checkers.has_many() {
                return king_moves;
            }
            // Onto the checker or between it and the king; a pinned piece
            // cannot (its line and the check's meet only at the king).
            let answers = between(king, checkers.lsb()) | checkers;
            let mut n = king_moves;
            for sq in o_knights & !pinned {
                n += (knight_attacks(sq) & answers).len();
            }
            for sq in o_diagonal & !pinned {
                n += (cpu.bishop_attacks(sq, occ) & answers).len();
            }
            for sq in o_orthogonal & !pinned {
                n += (cpu.rook_attacks(sq, occ) & answers).len();
            }
            n + pawn_evasions::<S::Other>(o_pawns & !pinned, occ, answers)
        } else {
            let enemy = occ & !own;
            let mut n = king_moves + pawn_count::<S::Other>(o_pawns & !pinned, occ, enemy);
            for sq in o_knights & !pinned {
                n += (knight_attacks(sq) & !own).len();
            }
            // A pinned slider moves along its pin line, the others anywhere
            // they reach.
            let along = |sq: Square| {
                if pinned.contains(sq) {
                    pin_line
                } else {
                    Bitboard::FULL
                }
            };
            for sq in o_diagonal {
                n += (cpu.bishop_attacks(sq, occ) & !own & along(sq)).len();
            }
            for sq in o_orthogonal {
                n += (cpu.rook_attacks(sq, occ) & !own & along(sq)).len();
            }
            let pawn = pinned & o_pawns;
            if pawn.nonempty() {
                let single = <S::Other as Side>::up(pawn) & !occ;
                let double = <S::Other as Side>::up(single & <S::Other as Side>::RANK_3) & !occ;
                let captures =
                    (<S::Other as Side>::up_west(pawn) | <S::Other as Side>::up_east(pawn)) & enemy;
                let to = (single | double | captures) & pin_line;
                n += to.len() + 3 * (to & <S::Other as Side>::RANK_8).len();
            }
            n
        }
    }
}

impl<C: Cpu, S: Side, const PIECES: bool, const SLIDER: bool> MoveSink
    for Leapers<'_, C, S, PIECES, SLIDER>
{
    #[inline(always)]
    fn piece_moves(&mut self, piece: Piece, from: Square, to: Bitboard) -> bool {
        debug_assert!(SLIDER || matches!(piece, Piece::King | Piece::Knight));
        for to in to {
            self.nodes += self.replies(piece, from, to, false);
        }
        false
    }

    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, delta: i32, promotion: bool) -> bool {
        // Only the one-slider copy is handed promotions ([`copy`]): each
        // child is made and bulk-counted (it has a second slider or a knight).
        debug_assert!(SLIDER || !promotion);
        if SLIDER && promotion {
            // Out of line, so that the copy's hot code stays as compact as
            // without promotions.
            let (cpu, pos) = (self.cpu, self.pos);
            self.nodes += cpu.outlined(
                #[inline(always)]
                || {
                    let mut nodes = 0;
                    for to in to {
                        let from = Square::from_index((to.index() as i32 - delta) as usize);
                        for kind in PROMOTION_PIECES {
                            let child = pos.make_promotion::<S, false>(from, to, kind);
                            nodes += count_leaves::<C, S::Other>(cpu, &child);
                        }
                    }
                    nodes
                },
            );
            return false;
        }
        for to in to {
            let from = Square::from_index((to.index() as i32 - delta) as usize);
            self.nodes += self.replies(Piece::Pawn, from, to, delta == 2 * S::UP);
        }
        false
    }

    /// En passant (castling needs a rook): made.
    #[inline(always)]
    fn special(&mut self, moves: PieceMoves) -> bool {
        for mv in moves {
            self.nodes +=
                count_leaves::<C, S::Other>(self.cpu, &self.pos.play_piece(moves.piece, mv));
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::cpu::{Compiled, Sparse};
    use crate::chess::movegen::{Black, White};
    use crate::chess::moves::{Move, MoveKind};
    use crate::chess::piece::Color;
    use crate::perft::leaf::tests::positions;

    /// Moves, each with its counted replies.
    type Counted = Vec<(Move, u64)>;

    /// Each move of `pos` that [`Leapers::replies`] counts (all but en
    /// passant and castling), with that count, by the copy `PIECES`,
    /// `SLIDER`.
    fn counted<S: Side, const PIECES: bool, const SLIDER: bool>(pos: &Position) -> Counted {
        let cpu = Sparse(Compiled);
        let sink = Leapers::<Sparse<Compiled>, S, PIECES, SLIDER>::new(cpu, pos);
        let mut out = Vec::new();
        for mv in pos.legal_moves().iter().copied() {
            if mv.kind() != MoveKind::Normal {
                continue;
            }
            let (from, to) = (mv.from(), mv.to());
            let piece = pos.piece_on(from).unwrap().1;
            let double = piece == Piece::Pawn && from.index().abs_diff(to.index()) == 16;
            out.push((mv, sink.replies(piece, from, to, double)));
        }
        out
    }

    /// [`copy`] of `pos`, and [`counted`] by the general copy and, where
    /// `copy` takes the kings-and-pawns one, by that one (else empty).
    fn copies<S: Side>(pos: &Position) -> (Option<Which>, Counted, Counted) {
        let copy = copy::<S>(pos);
        let pawns_only = if copy == Some(Which::Pawns) {
            counted::<S, false, false>(pos)
        } else {
            Vec::new()
        };
        (copy, counted::<S, true, false>(pos), pawns_only)
    }

    /// Where the general copy's reasoning holds, which is wider than where
    /// [`copy`] takes it: `S` has no slider and no pawn one step from
    /// promotion, `O` no castling right.
    fn general(pos: &Position) -> bool {
        ((pos.diagonal_sliders() | pos.orthogonal_sliders()) & pos.us()).is_empty()
            && no_castling(pos)
            && !on_seventh(pos)
    }

    /// The other side has no castling right (every copy asks for it).
    fn no_castling(pos: &Position) -> bool {
        (pos.castle_rooks() & pos.them()).is_empty()
    }

    /// A pawn of the side to move one step from promotion.
    fn on_seventh(pos: &Position) -> bool {
        let pawns = pos.pieces(Piece::Pawn) & pos.us();
        match pos.side_to_move() {
            Color::White => (White::up(pawns) & White::RANK_8).nonempty(),
            Color::Black => (Black::up(pawns) & Black::RANK_8).nonempty(),
        }
    }

    /// Every child such a leaf parent counts unmade has the reply count the
    /// general copy gives (on every position where its reasoning holds) and
    /// the kings-and-pawns copy gives (where [`copy`] takes it), and every
    /// case is met: a check by a pawn and by a knight, a double push the
    /// other side can take en passant, a leaf parent in check, the other
    /// side with a slider and with a knight, both copies taken.
    #[test]
    fn every_unmade_child_has_the_counted_replies() {
        let mut seen = [0usize; 10];
        for pos in positions().into_iter().filter(general) {
            let them = pos.them();
            let (copy, general, pawns_only) = match pos.side_to_move() {
                Color::White => copies::<White>(&pos),
                Color::Black => copies::<Black>(&pos),
            };
            seen[0] += 1;
            seen[1] += usize::from(pos.in_check());
            seen[2] += usize::from(
                ((pos.diagonal_sliders() | pos.orthogonal_sliders()) & them).nonempty(),
            );
            seen[3] += usize::from((pos.pieces(Piece::Knight) & them).nonempty());
            seen[8] += usize::from(copy == Some(Which::Leapers));
            seen[9] += usize::from(copy == Some(Which::Pawns));
            let kings_and_pawns = copy == Some(Which::Pawns);
            for (i, (mv, replies)) in general.into_iter().enumerate() {
                let child = pos.play_unchecked(mv);
                let count = child.count_moves();
                assert_eq!(count, replies, "{} {}", pos.to_fen(), mv.to_uci(false));
                if kings_and_pawns {
                    assert_eq!(
                        count,
                        pawns_only[i].1,
                        "{} {} (kings and pawns)",
                        pos.to_fen(),
                        mv.to_uci(false)
                    );
                }
                seen[4] += 1;
                let piece = child.piece_on(mv.to()).unwrap().1;
                seen[5] += usize::from(child.in_check() && piece == Piece::Pawn);
                seen[6] += usize::from(child.in_check() && piece == Piece::Knight);
                seen[7] += usize::from(child.ep_square().is_some());
            }
        }
        // Each case must be met, or this test proves nothing.
        assert!(seen[0] >= 100 && seen[4] >= 1000, "{seen:?}");
        assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    }

    /// Where [`copy`] takes the one-slider copy: `S` has exactly one
    /// slider, no knight unless the slider is a queen, and no pawn one step
    /// from promotion unless the slider is a queen, `O` no castling right.
    fn one_slider(pos: &Position) -> bool {
        let us = pos.us();
        let sliders = (pos.diagonal_sliders() | pos.orthogonal_sliders()) & us;
        let queen = (sliders & pos.pieces(Piece::Queen)).nonempty();
        sliders.len() == 1
            && (queen || (pos.pieces(Piece::Knight) & us).is_empty())
            && no_castling(pos)
            && (queen || !on_seventh(pos))
    }

    /// Every child of a leaf parent whose side to move has one slider has
    /// the reply count the one-slider copy gives, and every case is met:
    /// a bishop, a rook and a queen as the slider; its check, moved or
    /// uncovered, and a double check; a piece of the other side pinned
    /// (a pawn among them) before or after the move; a leaf parent in
    /// check; a double push the other side could take en passant (made);
    /// the other side with a slider and with a knight; a queen's side's
    /// promotions, by a push and by a capture, in and out of check (made);
    /// a queen's side with a knight, the knight's check alone and with the
    /// queen's uncovered.
    /// The copy's whole count is each child's own count summed.
    #[test]
    fn every_child_of_a_one_slider_leaf_parent_has_the_counted_replies() {
        let mut seen = [0usize; 20];
        // A pawn's capture that checks and uncovers the rook's check, for
        // each side (the double check, which random play rarely reaches).
        // Then promotions: a queen and a pawn against three pieces, for
        // each side; a promotion that takes the checker, one that blocks.
        let double_checks = [
            "4k3/5n2/4P3/8/8/8/8/4RK2 w - - 0 1",
            "4rk2/8/8/8/8/4p3/5N2/4K3 b - - 0 1",
            "8/5P2/2Q4b/8/3k4/2n3K1/2r5/8 w - - 0 1",
            "8/2q5/6K1/8/B7/4kN2/6p1/5R2 b - - 0 1",
            "2r4K/1P6/8/8/8/4k3/8/Q7 w - - 0 1",
            "r6K/4P3/8/8/8/4k3/8/Q7 w - - 0 1",
            // A knight in front of its queen, for each side: a knight's
            // check that uncovers the queen's (double), and one that does not.
            "4k3/8/8/8/4N3/8/8/4Q1K1 w - - 0 1",
            "4q1k1/8/8/4n3/8/8/8/4K3 b - - 0 1",
        ]
        .map(|fen| Position::from_fen(fen).unwrap());
        for pos in positions()
            .into_iter()
            .chain(double_checks)
            .filter(one_slider)
        {
            let (us, them) = (pos.us(), pos.them());
            let (copy, counted) = match pos.side_to_move() {
                Color::White => (copy::<White>(&pos), counted::<White, true, true>(&pos)),
                Color::Black => (copy::<Black>(&pos), counted::<Black, true, true>(&pos)),
            };
            assert_eq!(copy, Some(Which::Slider), "{}", pos.to_fen());
            let cpu = Sparse(Compiled);
            let whole = match pos.side_to_move() {
                Color::White => perft2::<Sparse<Compiled>, White, true, true>(cpu, &pos),
                Color::Black => perft2::<Sparse<Compiled>, Black, true, true>(cpu, &pos),
            };
            let moves = pos.legal_moves();
            let children: u64 = moves
                .iter()
                .map(|&mv| pos.play_unchecked(mv).count_moves())
                .sum();
            assert_eq!(whole, children, "{}", pos.to_fen());
            let promotions = moves.iter().filter(|mv| mv.kind() == MoveKind::Promotion);
            seen[14] += usize::from(
                promotions
                    .clone()
                    .any(|mv| mv.from().file() == mv.to().file()),
            );
            seen[15] += usize::from(
                promotions
                    .clone()
                    .any(|mv| mv.from().file() != mv.to().file()),
            );
            seen[16] += usize::from(pos.in_check() && promotions.count() > 0);
            seen[0] += 1;
            seen[1] += usize::from(pos.in_check());
            seen[2] += usize::from(
                ((pos.diagonal_sliders() | pos.orthogonal_sliders()) & them).nonempty(),
            );
            seen[3] += usize::from((pos.pieces(Piece::Knight) & them).nonempty());
            let slider = (pos.diagonal_sliders() | pos.orthogonal_sliders()) & us;
            seen[4] += usize::from((slider & pos.pieces(Piece::Bishop)).nonempty());
            seen[5] += usize::from((slider & pos.pieces(Piece::Rook)).nonempty());
            seen[6] += usize::from((slider & pos.pieces(Piece::Queen)).nonempty());
            let knights = pos.pieces(Piece::Knight) & us;
            seen[17] += usize::from(knights.nonempty());
            for (mv, replies) in counted {
                let child = pos.play_unchecked(mv);
                assert_eq!(
                    child.count_moves(),
                    replies,
                    "{} {}",
                    pos.to_fen(),
                    mv.to_uci(false)
                );
                seen[7] += 1;
                let checkers = child.checkers();
                let moved_slider = slider.contains(mv.from());
                seen[8] += usize::from(checkers.has_many());
                seen[9] +=
                    usize::from(!checkers.has_many() && moved_slider && checkers.contains(mv.to()));
                seen[10] += usize::from(
                    !checkers.has_many() && !moved_slider && (checkers & slider).nonempty(),
                );
                let pinned = match child.side_to_move() {
                    Color::White => NodeInfo::new::<White>(&child).pinned,
                    Color::Black => NodeInfo::new::<Black>(&child).pinned,
                };
                seen[11] += usize::from(pinned.nonempty());
                seen[12] += usize::from((pinned & child.pieces(Piece::Pawn)).nonempty());
                seen[13] += usize::from(child.ep_square().is_some());
                let knight_check = knights.contains(mv.from()) && checkers.contains(mv.to());
                seen[18] += usize::from(knight_check && !checkers.has_many());
                seen[19] += usize::from(knight_check && checkers.has_many());
            }
        }
        // Each case must be met, or this test proves nothing.
        assert!(seen[0] >= 100 && seen[7] >= 1000, "{seen:?}");
        assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
    }
}
