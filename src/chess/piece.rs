//! Colours and piece kinds.

use std::fmt;
use std::ops::Not;

/// Side: white or black.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum Color {
    White,
    Black,
}

impl Color {
    /// Number of colours.
    pub const NUM: usize = 2;
    /// Both colours, white first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// Index 0 (white) or 1 (black).
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `'w'` or `'b'`.
    pub const fn to_char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "white",
            Color::Black => "black",
        })
    }
}

/// A piece kind, without colour.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
#[allow(missing_docs)]
pub enum Piece {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
}

impl Piece {
    /// Number of piece kinds.
    pub const NUM: usize = 6;
    /// All kinds, pawn first.
    pub const ALL: [Piece; 6] = [
        Piece::Pawn,
        Piece::Knight,
        Piece::Bishop,
        Piece::Rook,
        Piece::Queen,
        Piece::King,
    ];

    /// Index `0..6`.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Lowercase letter (`p n b r q k`).
    pub const fn to_char(self) -> char {
        match self {
            Piece::Pawn => 'p',
            Piece::Knight => 'n',
            Piece::Bishop => 'b',
            Piece::Rook => 'r',
            Piece::Queen => 'q',
            Piece::King => 'k',
        }
    }

    /// The kind named by a letter of either case.
    pub fn from_char(c: char) -> Option<Piece> {
        Some(match c.to_ascii_lowercase() {
            'p' => Piece::Pawn,
            'n' => Piece::Knight,
            'b' => Piece::Bishop,
            'r' => Piece::Rook,
            'q' => Piece::Queen,
            'k' => Piece::King,
            _ => return None,
        })
    }

    /// The FEN letter of this kind in `color` (uppercase for white).
    pub const fn fen_char(self, color: Color) -> char {
        let c = self.to_char();
        match color {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }
}
