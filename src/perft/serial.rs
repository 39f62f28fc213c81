//! The serial counters: one thread, no table.
//!
//! * [`perft()`]: bulk counting at the last ply and the leaf-parent shortcut
//!   above it (`perft(pos, 0) = 1`; depth 1 is a popcount sum, no move is
//!   played).
//! * [`perft_plain`]: bulk counting at the last ply only, the loop other
//!   perft programs run; a second, independent count of the same tree.
//! * [`perft_full`]: every leaf reached by playing its move.
//!
//! The parallel driver (`count`) runs these below its serial cut-off, and the
//! counter chooser (`choose`) times the first two against each other.

use crate::chess::cpu::{Cpu, CpuFn, CpuPath};
use crate::chess::movegen::{self, Black, Side, White};
use crate::chess::moves::Move;
use crate::chess::piece::Color;
use crate::chess::position::Position;
use crate::perft::children::for_each_child;
use crate::perft::leaf::Scratch;

/// Serial perft with bulk counting at the last ply. At the leaf parents,
/// moves that cannot change the opponent's reply count are counted without
/// being made (see the module `perft::leaf`). Runs on [`CpuPath::selected`].
pub fn perft(pos: &Position, depth: u32) -> u64 {
    perft_on(CpuPath::selected(), pos, depth)
}

/// Serial perft with bulk counting at the last ply only: every move above it
/// is made and its child counted. The loop other bulk-counting perft
/// programs run (`benches/versus.rs` times it against cozy-chess), and an
/// independent second count of the same tree for the tests. Runs on
/// [`CpuPath::selected`].
pub fn perft_plain(pos: &Position, depth: u32) -> u64 {
    perft_plain_on(CpuPath::selected(), pos, depth)
}

/// [`perft()`] on the CPU path `cpu` (one this CPU lacks runs portable).
pub fn perft_on(cpu: CpuPath, pos: &Position, depth: u32) -> u64 {
    cpu.run(Serial::<true> { pos, depth })
}

/// [`perft_plain`] on the CPU path `cpu` (one this CPU lacks runs portable).
pub fn perft_plain_on(cpu: CpuPath, pos: &Position, depth: u32) -> u64 {
    cpu.run(Serial::<false> { pos, depth })
}

/// Positions with at most this many men are counted on the path's
/// [`Cpu::Sparse`] twin (the BMI2 path's `cpu::Sparse`).
pub(super) const SPARSE_MEN: u32 = 14;

/// A serial count, run on a CPU path.
struct Serial<'a, const SHORTCUT: bool> {
    pos: &'a Position,
    depth: u32,
}

impl<const SHORTCUT: bool> CpuFn for Serial<'_, SHORTCUT> {
    type Output = u64;
    fn call<C: Cpu>(self, cpu: C) -> u64 {
        if SHORTCUT && self.pos.occupied().len() <= SPARSE_MEN {
            return match self.pos.side_to_move() {
                Color::White => {
                    perft_side::<C::Sparse, White, true>(cpu.into(), self.pos, self.depth)
                }
                Color::Black => {
                    perft_side::<C::Sparse, Black, true>(cpu.into(), self.pos, self.depth)
                }
            };
        }
        match self.pos.side_to_move() {
            Color::White => perft_side::<C, White, SHORTCUT>(cpu, self.pos, self.depth),
            Color::Black => perft_side::<C, Black, SHORTCUT>(cpu, self.pos, self.depth),
        }
    }
}

/// Perft for side `S` to move; `SHORTCUT`: leaf parents through
/// [`crate::perft::leaf::perft2`]. Out of line, compiled for path `C`.
#[inline(always)]
pub(super) fn perft_side<C: Cpu, S: Side, const SHORTCUT: bool>(
    cpu: C,
    pos: &Position,
    depth: u32,
) -> u64 {
    cpu.outlined(
        #[inline(always)]
        || perft_side_inline::<C, S, SHORTCUT>(cpu, pos, depth),
    )
}

#[inline(always)]
fn perft_side_inline<C: Cpu, S: Side, const SHORTCUT: bool>(
    cpu: C,
    pos: &Position,
    depth: u32,
) -> u64 {
    let mut nodes = 0;
    match depth {
        0 => return 1,
        1 => return movegen::count::<C, S>(cpu, pos),
        2 if SHORTCUT => return crate::perft::leaf::perft2::<C, S>(cpu, pos),
        // The children are leaf parents: one scratch for all of them.
        3 if SHORTCUT => {
            let mut scratch = Scratch::new();
            for_each_child::<C, S, false>(cpu, pos, |child| {
                nodes += crate::perft::leaf::perft2_with::<C, S::Other>(cpu, child, &mut scratch);
            })
        }
        // The leaf parents: count each child's moves without recursing.
        2 => return crate::perft::replies::perft2_plain::<C, S>(cpu, pos),
        _ => for_each_child::<C, S, false>(cpu, pos, |child| {
            nodes += perft_side::<C, S::Other, SHORTCUT>(cpu, child, depth - 1);
        }),
    }
    nodes
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

/// Serial divide: the perft count below each legal move (empty at depth 0).
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&mv| (mv, perft(&pos.play_unchecked(mv), depth - 1)))
        .collect()
}
