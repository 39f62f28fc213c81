//! `Bitboard`: a set of squares in one `u64`, bit `i` = square `i` (`A1 = 0`).

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use crate::chess::square::{File, Rank, Square};

/// A set of squares. Bit `i` is square `i` (`A1 = 0`, `H8 = 63`).
///
/// ```
/// use perft::{Bitboard, Square};
/// let bb = Bitboard::from_square(Square::E4) | Square::D5.bitboard();
/// assert_eq!(bb.len(), 2);
/// assert!(bb.contains(Square::D5));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 64 squares.
    pub const FULL: Bitboard = Bitboard(!0);

    /// The set holding only `sq`.
    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        sq.bitboard()
    }

    /// Number of squares in the set.
    #[inline(always)]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// True for the empty set.
    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if the set is not empty.
    #[inline(always)]
    pub const fn nonempty(self) -> bool {
        self.0 != 0
    }

    /// True if the set holds two or more squares.
    #[inline(always)]
    pub const fn has_many(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// True if `sq` is in the set.
    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1u64 << sq.index()) != 0
    }

    /// The lowest square, if any.
    #[inline(always)]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index(self.0.trailing_zeros() as usize))
        }
    }

    /// The lowest square of a set known to be non-empty (an empty set yields `H8`
    /// after masking; callers check emptiness first).
    #[inline(always)]
    pub const fn lsb(self) -> Square {
        Square::from_index(self.0.trailing_zeros() as usize)
    }

    /// The highest square of a set known to be non-empty (an empty set yields
    /// a meaningless square; callers check emptiness first).
    #[inline(always)]
    pub const fn msb(self) -> Square {
        Square::from_index(63 ^ (self.0.leading_zeros() as usize & 63))
    }

    /// The set with `sq` added.
    #[inline(always)]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | sq.bitboard().0)
    }

    /// The set with `sq` removed.
    #[inline(always)]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !sq.bitboard().0)
    }

    /// Set union usable in `const` context.
    #[inline(always)]
    pub const fn union(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 | other.0)
    }

    /// Shift every square one rank up (towards rank 8); rank 8 falls off.
    #[inline(always)]
    pub const fn north(self) -> Bitboard {
        Bitboard(self.0 << 8)
    }

    /// Shift every square one rank down (towards rank 1); rank 1 falls off.
    #[inline(always)]
    pub const fn south(self) -> Bitboard {
        Bitboard(self.0 >> 8)
    }

    /// The set mirrored top to bottom (rank 1 <-> rank 8).
    #[inline(always)]
    pub const fn flip_ranks(self) -> Bitboard {
        Bitboard(self.0.swap_bytes())
    }

    /// Iterates over all subsets of `self` (carry-rippler), the empty set first.
    pub fn subsets(self) -> impl Iterator<Item = Bitboard> {
        let mask = self.0;
        let mut subset = 0u64;
        let mut done = false;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let current = subset;
            subset = subset.wrapping_sub(mask) & mask;
            done = subset == 0;
            Some(Bitboard(current))
        })
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = self.lsb();
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

macro_rules! bit_op {
    ($trait:ident, $fn:ident, $assign:ident, $afn:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $fn(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign for Bitboard {
            #[inline(always)]
            fn $afn(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter()
            .fold(Bitboard::EMPTY, |bb, sq| bb | sq.bitboard())
    }
}

/// Draws the set as a board, rank 8 at the top, `X` for a member, `.` otherwise.
impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard({:#018x})", self.0)?;
        for rank in (0..8).rev() {
            for file in 0..8 {
                let c = if self.0 >> (rank * 8 + file) & 1 != 0 {
                    'X'
                } else {
                    '.'
                };
                write!(f, "{c}")?;
                if file < 7 {
                    write!(f, " ")?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Builds a bitboard from a drawn board: 8 rows of 8 cells, rank 8 first,
/// `X` for a member and `.` for an empty square; whitespace is ignored.
///
/// ```
/// use perft::{bitboard, Square};
/// let bb = bitboard! {
///     . . . . . . . .
///     . . . . . . . .
///     . . . . . . . .
///     . . . . . . . .
///     . . . . X . . .
///     . . . . . . . .
///     . . . . . . . .
///     . . . . . . . .
/// };
/// assert_eq!(bb, Square::E4.bitboard());
/// ```
#[macro_export]
macro_rules! bitboard {
    ($($cell:tt)*) => {
        $crate::chess::bitboard::parse_grid(stringify!($($cell)*))
    };
}

/// Parses the grid text of [`bitboard!`]; panics on a malformed grid (test helper).
pub fn parse_grid(text: &str) -> Bitboard {
    let cells: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    assert_eq!(cells.len(), 64, "a bitboard grid needs 64 cells");
    let mut bb = 0u64;
    for (i, c) in cells.iter().enumerate() {
        let rank = 7 - i / 8;
        let file = i % 8;
        match c {
            'X' => bb |= 1 << (rank * 8 + file),
            '.' => {}
            other => panic!("bad bitboard grid cell {other:?}"),
        }
    }
    Bitboard(bb)
}

/// The bitboards of squares, files and ranks (here rather than in
/// `square.rs`, so that `square` depends on nothing).
impl Square {
    /// The one-square bitboard.
    #[inline(always)]
    pub const fn bitboard(self) -> Bitboard {
        Bitboard(1u64 << self.index())
    }
}

impl File {
    /// The squares of this file.
    #[inline(always)]
    pub const fn bitboard(self) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << self as u8)
    }
}

impl Rank {
    /// The squares of this rank.
    #[inline(always)]
    pub const fn bitboard(self) -> Bitboard {
        Bitboard(0xFF << (8 * self as u8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_enumerates_every_subset_once() {
        let mask = Square::A1.bitboard() | Square::C3.bitboard() | Square::H8.bitboard();
        let subsets: Vec<Bitboard> = mask.subsets().collect();
        assert_eq!(subsets.len(), 8);
        let mut seen: Vec<u64> = subsets.iter().map(|b| b.0).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 8);
        assert!(subsets.iter().all(|s| (*s & !mask).is_empty()));
    }

    #[test]
    fn iteration_yields_squares_in_order() {
        let bb: Bitboard = [Square::H8, Square::A1, Square::E4].into_iter().collect();
        let squares: Vec<Square> = bb.collect();
        assert_eq!(squares, vec![Square::A1, Square::E4, Square::H8]);
    }
}
