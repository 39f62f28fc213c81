//! An entry and its cluster (see "Layout" in the module docs): what is
//! stored ([`TtData`], [`Bound`]), the 64-bit data word it is packed into
//! (move, score, depth, bound, status slot), and the 64-byte cluster of
//! four entries, each a check word (`key ^ data`) and a data word.

use std::sync::atomic::AtomicU64;

use crate::chess::moves::Move;

use super::{CLUSTER_BYTES, CLUSTER_ENTRIES, ENTRY_BYTES};

/// What a stored score says about the true value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true value is at least the score (a fail high).
    Lower,
    /// The true value is at most the score (a fail low).
    Upper,
}

impl Bound {
    pub(super) const fn to_bits(self) -> u8 {
        match self {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        }
    }

    pub(super) const fn from_bits(bits: u8) -> Option<Bound> {
        match bits {
            1 => Some(Bound::Exact),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Upper),
            _ => None,
        }
    }
}

/// What the TT stores for a position, and what [`Tt::probe`](super::Tt::probe) returns (a copy).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TtData {
    /// Best (or refuting) move, [`Move::NONE`] if unknown. May be illegal in
    /// the probing position after a key collision: check it with
    /// [`Position::is_legal`](crate::Position::is_legal).
    pub mv: Move,
    /// Score relative to the node ([`score_to_tt`](crate::search::score::score_to_tt)).
    pub score: i16,
    /// Remaining depth in plies the score was searched to.
    pub depth: u8,
    /// What kind of bound `score` is.
    pub bound: Bound,
}

// The data word.
pub(super) const EMPTY: u8 = 0;

#[inline(always)]
pub(super) fn pack(key_mv: u16, data: &TtData, slot: u16) -> u64 {
    u64::from(key_mv)
        | u64::from(data.score as u16) << 16
        | u64::from(data.depth) << 32
        | u64::from(data.bound.to_bits()) << 40
        | u64::from(slot) << 48
}

#[inline(always)]
pub(super) fn bound_bits(d: u64) -> u8 {
    (d >> 40) as u8
}

#[inline(always)]
pub(super) fn slot_of(d: u64) -> usize {
    (d >> 48) as usize
}

#[inline(always)]
pub(super) fn depth_of(d: u64) -> u8 {
    (d >> 32) as u8
}

#[inline(always)]
pub(super) fn unpack(d: u64) -> Option<TtData> {
    Some(TtData {
        mv: Move::from_bits(d as u16),
        score: (d >> 16) as u16 as i16,
        depth: depth_of(d),
        bound: Bound::from_bits(bound_bits(d))?,
    })
}

/// Four entries, each two atomic words: `[check, data]` at `2i`, `2i + 1`.
#[derive(Default)]
#[repr(C, align(64))]
pub(super) struct Cluster {
    pub(super) words: [AtomicU64; 2 * CLUSTER_ENTRIES],
}

const _: () = assert!(std::mem::size_of::<Cluster>() == CLUSTER_BYTES);
const _: () = assert!(std::mem::align_of::<Cluster>() == CLUSTER_BYTES);
const _: () = assert!(CLUSTER_BYTES / CLUSTER_ENTRIES == ENTRY_BYTES);
