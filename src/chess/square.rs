//! Squares, files and ranks.
//!
//! Squares are numbered from `A1 = 0` to `H8 = 63`, file-major inside a rank
//! (`index = rank * 8 + file`), so a bitboard's bit `i` is square `i`.

use std::fmt;

macro_rules! squares {
    ($($sq:ident),* $(,)?) => {
        /// One of the 64 squares of the board: a `u8` below 64 (`A1 = 0`,
        /// `H8 = 63`). A newtype rather than an enum so that converting an
        /// index to a square is a mask, not a table load (measured on the
        /// perft hot path); every constructor keeps the value below 64.
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct Square(u8);

        #[allow(missing_docs)]
        impl Square {
            squares!(@consts 0u8; $($sq),*);
        }

        impl Square {
            /// All squares, in index order (`A1`, `B1`, ..., `H8`).
            pub const ALL: [Square; 64] = [$(Square::$sq),*];
            const NAMES: [&'static str; 64] = [$(stringify!($sq)),*];
        }
    };
    (@consts $n:expr; $first:ident $(, $rest:ident)*) => {
        pub const $first: Square = Square($n);
        squares!(@consts $n + 1; $($rest),*);
    };
    (@consts $n:expr;) => {};
}

squares!(
    A1, B1, C1, D1, E1, F1, G1, H1, //
    A2, B2, C2, D2, E2, F2, G2, H2, //
    A3, B3, C3, D3, E3, F3, G3, H3, //
    A4, B4, C4, D4, E4, F4, G4, H4, //
    A5, B5, C5, D5, E5, F5, G5, H5, //
    A6, B6, C6, D6, E6, F6, G6, H6, //
    A7, B7, C7, D7, E7, F7, G7, H7, //
    A8, B8, C8, D8, E8, F8, G8, H8,
);

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Square::NAMES[self.index()])
    }
}

impl Square {
    /// Number of squares.
    pub const NUM: usize = 64;

    /// The square with index `index & 63`. Masking keeps the constructor total
    /// (no panic, no invalid value) and lets the compiler drop the bounds check.
    #[inline(always)]
    pub const fn from_index(index: usize) -> Square {
        Square((index & 63) as u8)
    }

    /// The square with index `index`, or `None` if `index >= 64`.
    #[inline]
    pub const fn try_from_index(index: usize) -> Option<Square> {
        if index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square on `file` and `rank`.
    #[inline(always)]
    pub const fn new(file: File, rank: Rank) -> Square {
        Square::from_index(rank as usize * 8 + file as usize)
    }

    /// Index `0..64`.
    #[inline(always)]
    pub const fn index(self) -> usize {
        // The value is always below 64; saying so lets the compiler drop the
        // bounds checks of every square-indexed table.
        (self.0 & 63) as usize
    }

    /// The file of the square.
    #[inline(always)]
    pub const fn file(self) -> File {
        File::ALL[self.0 as usize & 7]
    }

    /// The rank of the square.
    #[inline(always)]
    pub const fn rank(self) -> Rank {
        Rank::ALL[(self.0 as usize >> 3) & 7]
    }

    /// The square moved by `df` files and `dr` ranks, or `None` off the board.
    #[inline]
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f < 0 || f > 7 || r < 0 || r > 7 {
            None
        } else {
            Some(Square::from_index((r * 8 + f) as usize))
        }
    }

    /// The same square seen from the other side (rank mirrored: `E2` <-> `E7`).
    #[inline(always)]
    pub const fn flip_rank(self) -> Square {
        Square::from_index(self.0 as usize ^ 56)
    }

    /// The square on the same file and on `rank`.
    #[inline(always)]
    pub const fn with_rank(self, rank: Rank) -> Square {
        Square::new(self.file(), rank)
    }

    /// Parses `"e4"`-style algebraic notation (lowercase file letter).
    pub fn parse(text: &str) -> Option<Square> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            return None;
        }
        let file = File::from_char(bytes[0] as char)?;
        let rank = Rank::from_char(bytes[1] as char)?;
        Some(Square::new(file, rank))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().to_char(), self.rank().to_char())
    }
}

/// A file (column) `A` to `H`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum File {
    A,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
}

impl File {
    /// Number of files.
    pub const NUM: usize = 8;
    /// All files from `A` to `H`.
    pub const ALL: [File; 8] = [
        File::A,
        File::B,
        File::C,
        File::D,
        File::E,
        File::F,
        File::G,
        File::H,
    ];

    /// The file with index `index & 7`.
    #[inline(always)]
    pub const fn from_index(index: usize) -> File {
        File::ALL[index & 7]
    }

    /// Parses a lowercase file letter `a`..`h`.
    pub fn from_char(c: char) -> Option<File> {
        match c {
            'a'..='h' => Some(File::ALL[c as usize - 'a' as usize]),
            _ => None,
        }
    }

    /// Lowercase file letter.
    pub const fn to_char(self) -> char {
        (b'a' + self as u8) as char
    }
}

/// A rank (row) `First` (white's back rank) to `Eighth`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum Rank {
    First,
    Second,
    Third,
    Fourth,
    Fifth,
    Sixth,
    Seventh,
    Eighth,
}

impl Rank {
    /// Number of ranks.
    pub const NUM: usize = 8;
    /// All ranks from first to eighth.
    pub const ALL: [Rank; 8] = [
        Rank::First,
        Rank::Second,
        Rank::Third,
        Rank::Fourth,
        Rank::Fifth,
        Rank::Sixth,
        Rank::Seventh,
        Rank::Eighth,
    ];

    /// The rank with index `index & 7`.
    #[inline(always)]
    pub const fn from_index(index: usize) -> Rank {
        Rank::ALL[index & 7]
    }

    /// Parses a rank digit `1`..`8`.
    pub fn from_char(c: char) -> Option<Rank> {
        match c {
            '1'..='8' => Some(Rank::ALL[c as usize - '1' as usize]),
            _ => None,
        }
    }

    /// Rank digit.
    pub const fn to_char(self) -> char {
        (b'1' + self as u8) as char
    }

    /// This rank as seen by `white` (`true`) or black: black's `First` is rank 8.
    #[inline(always)]
    pub const fn relative(self, white: bool) -> Rank {
        if white {
            self
        } else {
            Rank::from_index(7 - self as usize)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_parse_and_display_round_trip() {
        for sq in Square::ALL {
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        assert_eq!(Square::parse("i1"), None);
        assert_eq!(Square::parse("a9"), None);
        assert_eq!(Square::parse("a"), None);
        assert_eq!(Square::parse("é1"), None);
    }

    #[test]
    fn offsets_stay_on_board() {
        assert_eq!(Square::A1.offset(-1, 0), None);
        assert_eq!(Square::H8.offset(0, 1), None);
        assert_eq!(Square::E4.offset(1, 2), Some(Square::F6));
        assert_eq!(Square::E2.flip_rank(), Square::E7);
    }
}
