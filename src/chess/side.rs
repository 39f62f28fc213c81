//! Compile-time side to move: `White` and `Black` marker types whose
//! constants and shifts let the generator and the makes be compiled once
//! per colour, with no colour tests at run time.

use crate::chess::bitboard::Bitboard;
use crate::chess::piece::Color;
use crate::chess::square::Rank;

/// Compile-time side to move.
pub trait Side: Copy + 'static {
    /// The colour.
    const COLOR: Color;
    /// The other side.
    type Other: Side;
    /// Our back rank.
    const RANK_1: Bitboard;
    /// The rank our pawns land on after a single push from the start rank.
    const RANK_3: Bitboard;
    /// The rank our pawns promote from (7th relative).
    const RANK_7: Bitboard;
    /// The rank our pawns promote on (8th relative).
    const RANK_8: Bitboard;
    /// Squares shifted one rank forward.
    fn up(bb: Bitboard) -> Bitboard;
    /// Squares shifted one rank forward and one file towards the a-file.
    fn up_west(bb: Bitboard) -> Bitboard;
    /// Squares shifted one rank forward and one file towards the h-file.
    fn up_east(bb: Bitboard) -> Bitboard;
    /// Square index offset of one step forward.
    const UP: i32;
    /// Square index offset of a capture towards the a-file.
    const UP_WEST: i32;
    /// Square index offset of a capture towards the h-file.
    const UP_EAST: i32;
}

/// White to move.
#[derive(Clone, Copy, Debug)]
pub struct White;
/// Black to move.
#[derive(Clone, Copy, Debug)]
pub struct Black;

/// Every square but the a-file.
pub(crate) const NOT_A: u64 = !0x0101_0101_0101_0101;
/// Every square but the h-file.
pub(crate) const NOT_H: u64 = !0x8080_8080_8080_8080;

impl Side for White {
    const COLOR: Color = Color::White;
    type Other = Black;
    const RANK_1: Bitboard = Rank::First.bitboard();
    const RANK_3: Bitboard = Rank::Third.bitboard();
    const RANK_7: Bitboard = Rank::Seventh.bitboard();
    const RANK_8: Bitboard = Rank::Eighth.bitboard();
    const UP: i32 = 8;
    const UP_WEST: i32 = 7;
    const UP_EAST: i32 = 9;
    #[inline(always)]
    fn up(bb: Bitboard) -> Bitboard {
        Bitboard(bb.0 << 8)
    }
    #[inline(always)]
    fn up_west(bb: Bitboard) -> Bitboard {
        Bitboard((bb.0 & NOT_A) << 7)
    }
    #[inline(always)]
    fn up_east(bb: Bitboard) -> Bitboard {
        Bitboard((bb.0 & NOT_H) << 9)
    }
}

impl Side for Black {
    const COLOR: Color = Color::Black;
    type Other = White;
    const RANK_1: Bitboard = Rank::Eighth.bitboard();
    const RANK_3: Bitboard = Rank::Sixth.bitboard();
    const RANK_7: Bitboard = Rank::Second.bitboard();
    const RANK_8: Bitboard = Rank::First.bitboard();
    const UP: i32 = -8;
    const UP_WEST: i32 = -9;
    const UP_EAST: i32 = -7;
    #[inline(always)]
    fn up(bb: Bitboard) -> Bitboard {
        Bitboard(bb.0 >> 8)
    }
    #[inline(always)]
    fn up_west(bb: Bitboard) -> Bitboard {
        Bitboard((bb.0 & NOT_A) >> 9)
    }
    #[inline(always)]
    fn up_east(bb: Bitboard) -> Bitboard {
        Bitboard((bb.0 & NOT_H) >> 7)
    }
}
