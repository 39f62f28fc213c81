//! The entry points of a leaf parent's count ([`perft2`], [`perft2_with`]):
//! the choice of a leapers' copy on a `Sparse` path, else the generator over
//! the leaf parent's moves with the [`Shortcut`] set up once (footprint,
//! mobility and the passed position's count), or without it in check.

use std::marker::PhantomData;

use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::{self, NodeInfo, Side};
use crate::chess::position::Position;
use crate::chess::square::Square;

use super::children::Children;
use super::footprint::{Footprint, Zone};
use super::leapers;
use super::mobility::{MAX_SLIDERS, Mobility};

/// Perft 2 below `pos` (side `S` to move), out of line.
#[inline(always)]
pub(crate) fn perft2<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    perft2_with::<C, S>(cpu, pos, &mut Scratch::new())
}

/// Room for the footprint and mobility of one leaf parent, reused by the
/// caller across leaf parents: making a fresh one per leaf parent copied its
/// 568 bytes from a constant (a `memcpy` call) every time, though
/// [`Shortcut::fill`] writes every field it reads. Its contents between
/// calls mean nothing.
pub(crate) struct Scratch(Shortcut);

impl Scratch {
    #[inline(always)]
    pub(crate) fn new() -> Scratch {
        Scratch(Shortcut::EMPTY)
    }
}

/// [`perft2`] with the caller's [`Scratch`] (a node two plies above the
/// leaves keeps one for all its children).
#[inline(always)]
pub(crate) fn perft2_with<C: Cpu, S: Side>(cpu: C, pos: &Position, scratch: &mut Scratch) -> u64 {
    // The side to move has no slider (kings and pawns only, or the other
    // side has a slider) and no pawn about to promote, or one slider and no
    // knight (and no such pawn unless it is a queen); the other side no
    // castling right: every child counted from a few sets, unmade but for
    // promotions ([`leapers`]), in a function of its own. On the `Sparse`
    // paths only, so that the richer positions' code stays as it was;
    // tested here, not in `perft2_inline`, whose code a test there changed
    // (1-3 % more instructions in the other endings).
    if C::CHECK_TIER {
        match leapers::copy::<S>(pos) {
            Some(leapers::Which::Pawns) => {
                return cpu.outlined(
                    #[inline(always)]
                    || leapers::perft2::<C, S, false, false>(cpu, pos),
                );
            }
            Some(leapers::Which::Leapers) => {
                return cpu.outlined(
                    #[inline(always)]
                    || leapers::perft2::<C, S, true, false>(cpu, pos),
                );
            }
            Some(leapers::Which::Slider) => {
                return cpu.outlined(
                    #[inline(always)]
                    || leapers::perft2::<C, S, true, true>(cpu, pos),
                );
            }
            None => {}
        }
    }
    cpu.outlined(
        #[inline(always)]
        || perft2_inline::<C, S>(cpu, pos, &mut scratch.0),
    )
}

#[inline(always)]
fn perft2_inline<C: Cpu, S: Side>(cpu: C, pos: &Position, shortcut: &mut Shortcut) -> u64 {
    let info = NodeInfo::new::<S>(pos);
    let mut nodes = 0;
    // In check every move is made (see the module notes). One call site for
    // both cases: the generator and the children's code inlined once, not
    // a second time for the in-check case. Off the `Sparse` paths the
    // shortcut is always there, marked unusable in check (`mobility.complete`
    // unset, no `pieces`, which every way of counting a move unmade tests
    // anyway), so that no move tests an `Option`: instructions -0.7 % and
    // -1.1 % in the speed set's two rich bins. On the `Sparse` paths the
    // same change ran 1.7 % and 2.9 % more (the compiler's choices differ
    // there), so they keep `None` in check.
    let shortcut = if info.checkers.nonempty() {
        if C::CHECK_TIER {
            None
        } else {
            shortcut.mobility.complete = false;
            shortcut.pieces = None;
            Some(&*shortcut)
        }
    } else {
        shortcut.fill::<C, S>(cpu, pos);
        Some(&*shortcut)
    };
    movegen::generate_with_info::<C, S, _>(
        cpu,
        pos,
        &info,
        &mut Children::<C, S> {
            cpu,
            pos,
            shortcut,
            nodes: &mut nodes,
            side: PhantomData,
        },
    );
    nodes
}

/// The reply count of the other side in `pos` (side `S` to move, not in
/// check) with the turn passed: no en-passant square, everything else as is.
#[inline(always)]
fn passed_count<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    let mut passed = *pos;
    passed.side = <S::Other as Side>::COLOR;
    passed.ep = None;
    movegen::count::<C, S::Other>(cpu, &passed)
}

/// What a leaf parent not in check counts its quiet moves with.
pub(super) struct Shortcut {
    pub(super) footprint: Footprint,
    pub(super) mobility: Mobility,
    /// `O`'s reply count in `P` with the turn passed.
    pub(super) base: u64,
    /// The part of `base` that is not king moves or castlings, when
    /// [`Children::tier`](super::children::Children::tier) may be used (`O` has
    /// no castling right and every slider fits in [`Mobility`]); `None`
    /// otherwise.
    pub(super) pieces: Option<u64>,
}

impl Shortcut {
    /// Sets up the shortcut of `pos` (side `S` to move, not in check): its
    /// footprint, mobility and passed-position count.
    #[inline(always)]
    pub(super) fn fill<C: Cpu, S: Side>(&mut self, cpu: C, pos: &Position) {
        let pinned = Footprint::fill::<C, S>(cpu, pos, self);
        self.pieces = None;
        self.base = if self.mobility.complete {
            let king = movegen::king_move_count::<C, S::Other>(cpu, pos);
            let mut free = self.mobility.passed_count(king);
            if pinned.nonempty() {
                free += movegen::pinned_move_count::<C, S::Other>(cpu, pos, pinned);
            }
            if self.mobility.castle_rooks.is_empty() {
                self.pieces = Some(free - u64::from(king));
            }
            free
        } else {
            passed_count::<C, S>(cpu, pos)
        };
        debug_assert_eq!(
            self.base,
            passed_count::<C, S>(cpu, pos),
            "{}",
            pos.to_fen()
        );
    }

    /// The starting value [`Shortcut::fill`] writes into.
    pub(super) const EMPTY: Shortcut = Shortcut {
        footprint: Footprint {
            base: Zone([Bitboard::EMPTY; 6]),
            king: Zone([Bitboard::EMPTY; 6]),
            ep: Bitboard::EMPTY,
            checks: Zone([Bitboard::EMPTY; 6]),
            pins: Zone([Bitboard::EMPTY; 6]),
            xray: Bitboard::EMPTY,
            pin_lines: Bitboard::EMPTY,
            complete: [false; 6],
            lines: Bitboard::EMPTY,
            area: Bitboard::EMPTY,
        },
        mobility: Mobility {
            sliders: [(Square::from_index(0), false, Bitboard::EMPTY); MAX_SLIDERS],
            len: 0,
            complete: true,
            slider_touch: Bitboard::EMPTY,
            pawns: Bitboard::EMPTY,
            pawn_touch: Bitboard::EMPTY,
            pawn_count: 0,
            knights: Bitboard::EMPTY,
            castle_rooks: Bitboard::EMPTY,
            occ: Bitboard::EMPTY,
            own: Bitboard::EMPTY,
            enemy: Bitboard::EMPTY,
        },
        base: 0,
        pieces: None,
    };
}
