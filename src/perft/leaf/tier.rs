//! The king tier: a move inside `O`'s king zone counted without a make when
//! `O`'s pins stay as they are and `O` cannot castle, from `O`'s king
//! squares against `S`'s attacks after the move plus the rest of `O`'s
//! moves (the passed count and the mobility delta, or on a `Sparse` path
//! the evasions of a check).

use crate::chess::attacks::{between, bishop_rays, king_attacks, knight_attacks, rook_rays};
use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::{self, Side};
use crate::chess::piece::Piece;
use crate::chess::square::Square;

use super::children::Children;
use super::mobility::moved_kind;
use super::shortcut::Shortcut;

impl<C: Cpu, S: Side> Children<'_, C, S> {
    /// The reply count after a move of `piece` from `from` to `to` that must
    /// otherwise be made (it is in the king zone), counted without a make when
    /// it leaves `O`'s pins as they are (no pinner moved or taken, no pin line
    /// entered or left, no new pin) and `O` has no castling right: `O`'s king
    /// moves are counted against `S`'s attacks after the move. Without a check,
    /// the rest is the passed position's count of `O`'s other pieces plus the
    /// mobility delta. A check is counted only on a path that sets
    /// `Cpu::CHECK_TIER` (and made on the others): with a single check, the
    /// rest is the moves of `O`'s unpinned pieces onto the checker or between
    /// it and the king
    /// ([`Mobility::evasions`](super::mobility::Mobility::evasions); a pinned
    /// piece cannot answer a check, its pin line and the check's meet only at
    /// the king); with a double check, nothing else. Not for double pushes,
    /// castling or en passant. `None`: make it.
    ///
    /// `new` is the kind that stands on `to` after the move: `piece`, or
    /// for a promotion the promoted kind (tried here only on a
    /// `Cpu::CHECK_TIER` path: a promoted piece next to `O`'s king often
    /// checks).
    #[inline(always)]
    pub(super) fn tier(&self, piece: Piece, new: Piece, from: Square, to: Square) -> Option<u64> {
        self.tier_with(piece, new, from, to, None)
    }

    /// [`Children::tier`] for one of a piece's targets, with the piece's
    /// [`Fellows`] (found at its first target that needs them and kept for
    /// the others).
    #[inline(always)]
    pub(super) fn tier_with(
        &self,
        piece: Piece,
        new: Piece,
        from: Square,
        to: Square,
        fellows: Option<&mut Fellows>,
    ) -> Option<u64> {
        let s = self.shortcut?;
        let pieces = s.pieces?;
        let fp = &s.footprint;
        let (from_bb, to_bb) = (from.bitboard(), to.bitboard());
        let moved = from_bb | to_bb;
        // A move to a square that checks O's king: counted here only on a
        // path that counts checks (`Cpu::CHECK_TIER`, see `check_replies`).
        // A slider arriving where it pins a piece of O: made.
        if (moved & fp.pin_lines).nonempty()
            || (!C::CHECK_TIER && fp.checks.of(new).contains(to))
            || fp.pins.of(new).contains(to)
        {
            return None;
        }
        let pos = self.pos;
        let cpu = self.cpu;
        let o = <S::Other as Side>::COLOR;
        let them = pos.colors(o);
        let capture = them.contains(to);
        let occ = (pos.occupied() ^ from_bb) | to_bb;
        let them = them & !to_bb;
        let kind = |k: Piece| moved_kind::<S>(pos, k, piece, new, from_bb, to_bb);
        let (bishops, rooks, queens) = (kind(Piece::Bishop), kind(Piece::Rook), kind(Piece::Queen));
        let (diagonal, orthogonal) = (bishops | queens, rooks | queens);
        let king = pos.king(o);
        // The moved piece's own check on `to` (a slider's is found on the
        // lines too when the loop below runs).
        let direct_check = if C::CHECK_TIER && fp.checks.of(new).contains(to) {
            to_bb
        } else {
            Bitboard::EMPTY
        };
        // A move that does not start on the king's lines uncovers nothing
        // there, and what its piece does there arriving is in the
        // footprint: a check from `to` (`checks`) or a new pin (`pins`,
        // given up above). Landing between the king and another slider of
        // `S` changes nothing either: that slider saw the king through two
        // pieces or more, or through one of `S`'s own (a pin's line is
        // given up above). So the loop runs only for a move from the lines.
        // The lines are those of the slider kinds `S` has: a promotion to
        // another kind is looked at on all of them. Running it also for a
        // move onto the lines, as a test of both squares, mispredicted that
        // test (a quarter to a third of the leaf parent's mispredicts with
        // queens, rooks or minor pieces): this form has 6-10 % fewer
        // simulated mispredicts and 1-3.5 % fewer instructions on the
        // endings with queen against pieces, rooks and minor pieces, and
        // queens on both sides (cachegrind, `--shortcut`), the speed set
        // even. Running it for every move was slower: 0.965x on endings-66,
        // AMD Zen 5.
        if fp.lines.contains(from) || (piece != new && !fp.complete[new.index()]) {
            // A slider's check, from the moved piece or uncovered. Pins:
            // the sliders seen through one piece of O must be the same. Per
            // slider of S on the king's lines, from the pieces between them:
            // none is a check, one of O's is that xray (no chain of two
            // lookups: the checks and xrays by two lookups per slider kind
            // from the king, the second through O's first pieces, cost
            // 3-5 % more instructions on the endings set's two bins of men
            // for 0.3-3 % fewer simulated mispredicts).
            let snipers = (rook_rays(king) & orthogonal) | (bishop_rays(king) & diagonal);
            let mut checkers = Bitboard::EMPTY;
            let mut xray = Bitboard::EMPTY;
            for sniper in snipers {
                let b = (between(king, sniper) & occ).0;
                let one = u64::from((b & b.wrapping_sub(1) == 0) & (b & them.0 != 0));
                checkers.0 |= sniper.bitboard().0 & u64::from(b == 0).wrapping_neg();
                xray.0 |= sniper.bitboard().0 & one.wrapping_neg();
            }
            if C::CHECK_TIER {
                if xray != fp.xray {
                    return None;
                }
                let checkers = checkers | direct_check;
                if checkers.nonempty() {
                    return Some(self.check_replies(s, piece, new, from, to, checkers, fellows));
                }
            } else if checkers.nonempty() || xray != fp.xray {
                return None;
            }
        } else if C::CHECK_TIER && direct_check.nonempty() {
            return Some(self.check_replies(s, piece, new, from, to, direct_check, fellows));
        }
        // O's king: its squares against S's attacks after the move
        // (`attacks_after`: on a `Sparse` path from the moving piece's
        // `Fellows`). Keeping P's attack set of each slider the move leaves
        // alone was slower: the test per slider, with a branch or without,
        // cost more than the lookups it saved. So was cutting, per target,
        // the fellows' rays beyond it instead of a lookup: 0.92x over twelve
        // endings with queens or pawns about to promote (AMD Zen 5); the
        // `Fellows` test one set per target and fall back to the lookups.
        let occ = occ ^ king.bitboard();
        let attacked = self.attacks_after(piece, new, from, to, occ, fellows);
        let king_moves = (king_attacks(king) & !them & !attacked).len();
        // A pinned piece cannot be taken here: by its pinner the move
        // checks, by another piece it blocks the pin (the xray differs).
        let delta = if capture {
            s.mobility.capture_delta::<C, S>(cpu, from_bb, to_bb)
        } else {
            s.mobility.delta::<C, S>(cpu, moved)
        };
        let replies = (pieces as i64 + delta) as u64 + u64::from(king_moves);
        debug_assert_eq!(
            replies,
            self.made_count(piece, new, from, to),
            "{} {piece:?} {new:?} {from:?} {to:?}",
            pos.to_fen()
        );
        Some(replies)
    }

    /// [`Children::tier`]'s count for a move that checks `O`'s king
    /// (`checkers`, in the child), `O`'s pins unchanged: `O`'s king moves
    /// against `S`'s attacks after the move and, for a single check, the
    /// moves of `O`'s unpinned pieces onto the checker or between it and
    /// the king ([`Mobility::evasions`](super::mobility::Mobility::evasions)).
    // The move's parts as `tier` has them: one call site pair, inlined.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn check_replies(
        &self,
        s: &Shortcut,
        piece: Piece,
        new: Piece,
        from: Square,
        to: Square,
        checkers: Bitboard,
        fellows: Option<&mut Fellows>,
    ) -> u64 {
        let (pos, cpu) = (self.pos, self.cpu);
        let (from_bb, to_bb) = (from.bitboard(), to.bitboard());
        let o = <S::Other as Side>::COLOR;
        let king = pos.king(o);
        let them = pos.colors(o) & !to_bb;
        let occ = ((pos.occupied() ^ from_bb) | to_bb) ^ king.bitboard();
        let attacked = self.attacks_after(piece, new, from, to, occ, fellows);
        let mut replies = (king_attacks(king) & !them & !attacked).len();
        if !checkers.has_many() {
            let answers = between(king, checkers.lsb()) | checkers;
            replies += s.mobility.evasions::<C, S>(cpu, from_bb, to_bb, answers);
        }
        debug_assert_eq!(
            u64::from(replies),
            self.made_count(piece, new, from, to),
            "{} {piece:?} {new:?} {from:?} {to:?}",
            pos.to_fen()
        );
        u64::from(replies)
    }

    /// `S`'s attacks after `piece` moves from `from` to `to` (standing
    /// there as `new`), on the occupancy `occ` (the child's, without `O`'s
    /// king): from the piece's [`Fellows`] and its own new attacks when
    /// given and `to` blocks none of their attacks on `O`'s king's ring,
    /// else piece by piece.
    #[inline(always)]
    fn attacks_after(
        &self,
        piece: Piece,
        new: Piece,
        from: Square,
        to: Square,
        occ: Bitboard,
        fellows: Option<&mut Fellows>,
    ) -> Bitboard {
        let (pos, cpu) = (self.pos, self.cpu);
        if let Some(f) = fellows {
            if !f.ready {
                *f = self.fellows(piece, from);
            }
            if !f.block.contains(to) {
                let own = match new {
                    Piece::Knight => knight_attacks(to),
                    Piece::Bishop => cpu.bishop_attacks(to, occ),
                    Piece::Rook => cpu.rook_attacks(to, occ),
                    Piece::Queen => cpu.bishop_attacks(to, occ) | cpu.rook_attacks(to, occ),
                    Piece::King => king_attacks(to),
                    Piece::Pawn => S::up_west(to.bitboard()) | S::up_east(to.bitboard()),
                };
                return f.attacked | own;
            }
        }
        let (from_bb, to_bb) = (from.bitboard(), to.bitboard());
        let kind = |k: Piece| moved_kind::<S>(pos, k, piece, new, from_bb, to_bb);
        let pawns = kind(Piece::Pawn);
        let queens = kind(Piece::Queen);
        let mut attacked = S::up_west(pawns) | S::up_east(pawns);
        let s_king = if piece == Piece::King {
            to
        } else {
            pos.king(S::COLOR)
        };
        attacked |= king_attacks(s_king);
        for sq in kind(Piece::Knight) {
            attacked |= knight_attacks(sq);
        }
        for sq in kind(Piece::Bishop) | queens {
            attacked |= cpu.bishop_attacks(sq, occ);
        }
        for sq in kind(Piece::Rook) | queens {
            attacked |= cpu.rook_attacks(sq, occ);
        }
        attacked
    }

    /// The [`Fellows`] of `piece` on `from` (not a pawn).
    #[inline(always)]
    fn fellows(&self, piece: Piece, from: Square) -> Fellows {
        let (pos, cpu) = (self.pos, self.cpu);
        let from_bb = from.bitboard();
        let king = pos.king(<S::Other as Side>::COLOR);
        let ours = pos.colors(S::COLOR) & !from_bb;
        let occ = pos.occupied() ^ from_bb ^ king.bitboard();
        let pawns = pos.pieces(Piece::Pawn) & ours;
        let mut attacked = S::up_west(pawns) | S::up_east(pawns);
        if piece != Piece::King {
            attacked |= king_attacks(pos.king(S::COLOR));
        }
        for sq in pos.pieces(Piece::Knight) & ours {
            attacked |= knight_attacks(sq);
        }
        let ring = king_attacks(king);
        let queens = pos.pieces(Piece::Queen) & ours;
        let mut block = Bitboard::EMPTY;
        for sq in (pos.pieces(Piece::Bishop) & ours) | queens {
            let a = cpu.bishop_attacks(sq, occ);
            attacked |= a;
            for r in a & ring {
                block |= between(sq, r);
            }
        }
        for sq in (pos.pieces(Piece::Rook) & ours) | queens {
            let a = cpu.rook_attacks(sq, occ);
            attacked |= a;
            for r in a & ring {
                block |= between(sq, r);
            }
        }
        Fellows {
            ready: true,
            attacked,
            block,
        }
    }

    /// `O`'s reply count after the move, made and counted: what the debug
    /// builds hold the tier's unmade counts to.
    fn made_count(&self, piece: Piece, new: Piece, from: Square, to: Square) -> u64 {
        let (pos, cpu) = (self.pos, self.cpu);
        let child = if piece == new {
            pos.make_normal::<C, S, false>(cpu, piece, from, to)
        } else {
            pos.make_promotion::<S, false>(from, to, new)
        };
        movegen::count::<C, S::Other>(cpu, &child)
    }
}

/// `S`'s attacks with one piece taken off its origin (`O`'s king off the
/// board too), and the empty squares where that piece, arriving, would cut
/// one of them on `O`'s king's ring: for any other target, `S`'s attacks
/// after the move are these plus the piece's own from its target, so each
/// target of a queen in the king tier needs its own two lookups, not every
/// slider's. Found once per piece of `S` (not a pawn, whose targets each
/// have an origin of their own), at its first target that gets this far.
///
/// On the `Sparse` paths only. Measured against a lookup per slider per
/// target (`--shortcut`, AMD Zen 5, 3 rounds): the twelve endings with
/// queens on both sides 1.073x and 1.054x in two runs (1.01-1.15x each),
/// the other endings 0.99-1.05x per class, the speed set's positions of up
/// to 14 men 0.99x (light ones, where a piece has a target or two here,
/// pay the set-up: 0.98-1.00x). On every path it ran the speed set's
/// positions of 17-32 men 0.93-0.95x: there checks are made, not counted
/// here, and `S` has more sliders to set up per piece.
#[derive(Clone, Copy)]
pub(super) struct Fellows {
    ready: bool,
    attacked: Bitboard,
    block: Bitboard,
}

impl Fellows {
    /// Not found yet.
    pub(super) const UNSET: Fellows = Fellows {
        ready: false,
        attacked: Bitboard::EMPTY,
        block: Bitboard::EMPTY,
    };
}
