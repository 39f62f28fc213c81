//! Moves: the packed 16-bit [`Move`], per-piece target sets ([`PieceMoves`])
//! and a fixed-capacity [`MoveList`].

use std::fmt;

use crate::chess::bitboard::Bitboard;
use crate::chess::piece::Piece;
use crate::chess::square::{File, Square};

/// What kind of move a [`Move`] is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum MoveKind {
    /// A quiet move or an ordinary capture.
    Normal = 0,
    /// A pawn reaching the last rank; the promotion piece is in the move.
    Promotion = 1,
    /// An en-passant capture; `to` is the square the capturing pawn lands on.
    EnPassant = 2,
    /// Castling, encoded as "king takes own rook": `from` is the king's square,
    /// `to` the castling rook's square (exact for Chess960 and standard chess).
    Castling = 3,
}

/// A move packed into 16 bits.
///
/// ```text
/// bit  15 14 | 13 12 | 11 .. 6 | 5 .. 0
///      kind  | promo |  from   |  to
/// kind:  0 normal, 1 promotion, 2 en passant, 3 castling (to = rook square)
/// promo: 0 knight, 1 bishop, 2 rook, 3 queen (meaningful for promotions only)
/// ```
///
/// `Move::NONE` is `0` (a1 to a1), which no legal move can be.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

impl Move {
    /// The null value: no move.
    pub const NONE: Move = Move(0);

    const TO_MASK: u16 = 0x3F;
    const FROM_SHIFT: u16 = 6;
    const PROMO_SHIFT: u16 = 12;
    const KIND_SHIFT: u16 = 14;

    /// Packs a move. `promotion` is used only for [`MoveKind::Promotion`] and must
    /// then be a knight, bishop, rook or queen (anything else packs as a knight).
    #[inline(always)]
    pub const fn new(from: Square, to: Square, kind: MoveKind, promotion: Piece) -> Move {
        let promo = match promotion {
            Piece::Bishop => 1,
            Piece::Rook => 2,
            Piece::Queen => 3,
            _ => 0,
        };
        Move(
            to.index() as u16
                | (from.index() as u16) << Self::FROM_SHIFT
                | promo << Self::PROMO_SHIFT
                | (kind as u16) << Self::KIND_SHIFT,
        )
    }

    /// An ordinary move or capture.
    #[inline(always)]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move::new(from, to, MoveKind::Normal, Piece::Knight)
    }

    /// The raw 16-bit value.
    pub const fn to_bits(self) -> u16 {
        self.0
    }

    /// Rebuilds a move from [`Move::to_bits`]. Every `u16` decodes to some move;
    /// whether it is legal in a position is a separate question
    /// ([`Position::is_legal`](crate::Position::is_legal)).
    pub const fn from_bits(bits: u16) -> Move {
        Move(bits)
    }

    /// Origin square (the king's square for castling).
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::from_index((self.0 >> Self::FROM_SHIFT) as usize)
    }

    /// Target square (the castling rook's square for castling).
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::from_index((self.0 & Self::TO_MASK) as usize)
    }

    /// The kind of move.
    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> Self::KIND_SHIFT {
            0 => MoveKind::Normal,
            1 => MoveKind::Promotion,
            2 => MoveKind::EnPassant,
            _ => MoveKind::Castling,
        }
    }

    /// The promotion piece, for promotions.
    #[inline(always)]
    pub const fn promotion(self) -> Option<Piece> {
        if self.0 >> Self::KIND_SHIFT != MoveKind::Promotion as u16 {
            return None;
        }
        Some(match (self.0 >> Self::PROMO_SHIFT) & 3 {
            0 => Piece::Knight,
            1 => Piece::Bishop,
            2 => Piece::Rook,
            _ => Piece::Queen,
        })
    }

    /// True for `Move::NONE`.
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    /// The UCI text of the move. Castling is written as the king's move to its
    /// destination (`e1g1`) in standard chess and as king-takes-rook (`e1h1`)
    /// in Chess960, as Stockfish does.
    pub fn to_uci(self, chess960: bool) -> Uci {
        Uci { mv: self, chess960 }
    }

    /// For castling, the king's destination square (g- or c-file).
    pub const fn castling_king_target(self) -> Square {
        let (from, to) = (self.from(), self.to());
        let file = if (to.index() & 7) > (from.index() & 7) {
            File::G
        } else {
            File::C
        };
        Square::new(file, from.rank())
    }

    /// For castling, the rook's destination square (f- or d-file).
    pub const fn castling_rook_target(self) -> Square {
        let (from, to) = (self.from(), self.to());
        let file = if (to.index() & 7) > (from.index() & 7) {
            File::F
        } else {
            File::D
        };
        Square::new(file, from.rank())
    }
}

/// Displays a move in UCI notation; made by [`Move::to_uci`].
#[derive(Clone, Copy)]
pub struct Uci {
    mv: Move,
    chess960: bool,
}

impl fmt::Display for Uci {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mv = self.mv;
        if mv.is_none() {
            return f.write_str("0000");
        }
        let to = if mv.kind() == MoveKind::Castling && !self.chess960 {
            mv.castling_king_target()
        } else {
            mv.to()
        };
        write!(f, "{}{}", mv.from(), to)?;
        if let Some(p) = mv.promotion() {
            write!(f, "{}", p.to_char())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({}, {:?})", self.to_uci(true), self.kind())
    }
}

/// Promotion pieces in the order moves are listed.
pub const PROMOTION_PIECES: [Piece; 4] = [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight];

/// All legal moves of one piece from one square, as the generator delivers
/// them: the piece, its origin and the set of target squares.
///
/// * `Promotion`: every target is four moves (queen, rook, bishop, knight).
/// * `EnPassant`: the target is the en-passant square.
/// * `Castling`: targets are the squares of the castling rooks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PieceMoves {
    /// The moving piece.
    pub piece: Piece,
    /// Its square.
    pub from: Square,
    /// Target squares.
    pub to: Bitboard,
    /// Kind shared by all of these moves.
    pub kind: MoveKind,
}

impl PieceMoves {
    /// Number of moves (a promotion target counts four).
    #[inline(always)]
    pub fn len(&self) -> usize {
        let n = self.to.len() as usize;
        if self.kind == MoveKind::Promotion {
            n * 4
        } else {
            n
        }
    }

    /// True if there is no target.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.to.is_empty()
    }

    /// True if `mv` is one of these moves (exactly: a non-promotion with
    /// stray promotion bits is a different 16-bit value and does not match).
    pub fn contains(&self, mv: Move) -> bool {
        mv.from() == self.from
            && mv.kind() == self.kind
            && self.to.contains(mv.to())
            && (self.kind == MoveKind::Promotion
                || mv == Move::new(mv.from(), mv.to(), mv.kind(), Piece::Knight))
    }
}

impl IntoIterator for PieceMoves {
    type Item = Move;
    type IntoIter = PieceMovesIter;

    fn into_iter(self) -> PieceMovesIter {
        PieceMovesIter {
            moves: self,
            promo: 0,
        }
    }
}

/// Iterator over the moves of a [`PieceMoves`].
pub struct PieceMovesIter {
    moves: PieceMoves,
    promo: usize,
}

impl Iterator for PieceMovesIter {
    type Item = Move;

    #[inline]
    fn next(&mut self) -> Option<Move> {
        let to = self.moves.to.first()?;
        let from = self.moves.from;
        if self.moves.kind == MoveKind::Promotion {
            let mv = Move::new(from, to, MoveKind::Promotion, PROMOTION_PIECES[self.promo]);
            self.promo += 1;
            if self.promo == 4 {
                self.promo = 0;
                self.moves.to = self.moves.to.without(to);
            }
            Some(mv)
        } else {
            self.moves.to = self.moves.to.without(to);
            Some(Move::new(from, to, self.moves.kind, Piece::Knight))
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.moves.len() - self.promo;
        (n, Some(n))
    }
}

/// The largest number of legal moves any chess position has is 218; 256 is
/// the capacity.
pub const MAX_MOVES: usize = 256;

/// A fixed-capacity list of moves (no allocation).
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl MoveList {
    /// An empty list.
    pub const fn new() -> MoveList {
        MoveList {
            moves: [Move::NONE; MAX_MOVES],
            len: 0,
        }
    }

    /// Appends a move. A full list ignores further moves (the generator can never
    /// produce more than 218 legal moves, so this cannot happen for legal lists).
    #[inline]
    pub fn push(&mut self, mv: Move) {
        if let Some(slot) = self.moves.get_mut(self.len) {
            *slot = mv;
            self.len += 1;
        }
    }

    /// Number of moves.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves as a slice.
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// The moves as a mutable slice (for ordering).
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    /// True if `mv` is in the list.
    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_packing_round_trips() {
        let mv = Move::new(Square::E7, Square::F8, MoveKind::Promotion, Piece::Rook);
        assert_eq!(mv.from(), Square::E7);
        assert_eq!(mv.to(), Square::F8);
        assert_eq!(mv.kind(), MoveKind::Promotion);
        assert_eq!(mv.promotion(), Some(Piece::Rook));
        assert_eq!(mv.to_uci(false).to_string(), "e7f8r");
        assert_eq!(Move::from_bits(mv.to_bits()), mv);
        assert!(Move::NONE.is_none());
        assert!(!mv.is_none());
    }

    #[test]
    fn castling_prints_king_target_in_standard_and_rook_in_chess960() {
        let mv = Move::new(Square::E1, Square::H1, MoveKind::Castling, Piece::Knight);
        assert_eq!(mv.to_uci(false).to_string(), "e1g1");
        assert_eq!(mv.to_uci(true).to_string(), "e1h1");
        let long = Move::new(Square::E8, Square::A8, MoveKind::Castling, Piece::Knight);
        assert_eq!(long.to_uci(false).to_string(), "e8c8");
        assert_eq!(long.castling_rook_target(), Square::D8);
    }

    #[test]
    fn promotion_piece_moves_expand_to_four_moves_each() {
        let pm = PieceMoves {
            piece: Piece::Pawn,
            from: Square::B7,
            to: Square::A8.bitboard() | Square::B8.bitboard(),
            kind: MoveKind::Promotion,
        };
        assert_eq!(pm.len(), 8);
        let moves: Vec<Move> = pm.into_iter().collect();
        assert_eq!(moves.len(), 8);
        assert!(moves.iter().all(|m| pm.contains(*m)));
    }
}
