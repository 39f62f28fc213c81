//! [`Position`]: a compact, `Copy` chess position played by copy-make.
//!
//! Castling rights are stored as the set of rooks that may still castle
//! (`castle_rooks`). That one bitboard is exact for standard chess and Chess960
//! alike: a right belongs to the rook on its square, on its side of its king.
//! It is updated without branches: any move from or to a square clears that
//! square, and a king move clears its whole back rank.
//!
//! The en-passant square is kept only when an en-passant capture is legal in
//! the position, so equal positions have equal keys and compare equal.

use crate::chess::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
};
use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::{Compiled, Cpu};
use crate::chess::moves::{Move, MoveKind};
use crate::chess::piece::{Color, Piece};
use crate::chess::side::Side;
use crate::chess::square::{Rank, Square};
use crate::chess::zobrist::Zobrist;

/// A chess position.
#[derive(Clone, Copy)]
pub struct Position {
    pub(crate) pieces: [Bitboard; 6],
    pub(crate) colors: [Bitboard; 2],
    pub(crate) castle_rooks: Bitboard,
    pub(crate) hash: u64,
    pub(crate) keys: &'static Zobrist,
    pub(crate) ep: Option<Square>,
    pub(crate) side: Color,
    pub(crate) chess960: bool,
    pub(crate) halfmove: u16,
    pub(crate) fullmove: u16,
}

impl PartialEq for Position {
    /// Positions are equal when the board, side, castling rights, en-passant
    /// square, clocks and notation mode are equal (the key set is not compared).
    fn eq(&self, other: &Position) -> bool {
        self.pieces == other.pieces
            && self.colors == other.colors
            && self.castle_rooks == other.castle_rooks
            && self.ep == other.ep
            && self.side == other.side
            && self.chess960 == other.chess960
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
    }
}

impl Eq for Position {}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

/// Castling wing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CastleSide {
    /// Towards the h-file (king to g, rook to f).
    King,
    /// Towards the a-file (king to c, rook to d).
    Queen,
}

impl Position {
    /// An empty board, white to move, for building positions piece by piece
    /// (crate-internal: callers validate afterwards).
    pub(crate) fn empty(keys: &'static Zobrist) -> Position {
        Position {
            pieces: [Bitboard::EMPTY; 6],
            colors: [Bitboard::EMPTY; 2],
            castle_rooks: Bitboard::EMPTY,
            hash: 0,
            keys,
            ep: None,
            side: Color::White,
            chess960: false,
            halfmove: 0,
            fullmove: 1,
        }
    }

    // ----- accessors -----

    /// All pieces of kind `piece`, both colours.
    #[inline(always)]
    pub fn pieces(&self, piece: Piece) -> Bitboard {
        self.pieces[piece.index()]
    }

    /// All pieces of `color`.
    #[inline(always)]
    pub fn colors(&self, color: Color) -> Bitboard {
        self.colors[color.index()]
    }

    /// Pieces of kind `piece` and colour `color`.
    #[inline(always)]
    pub fn colored(&self, color: Color, piece: Piece) -> Bitboard {
        self.pieces[piece.index()] & self.colors[color.index()]
    }

    /// All occupied squares.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Pieces of the side to move.
    #[inline(always)]
    pub fn us(&self) -> Bitboard {
        self.colors(self.side)
    }

    /// Pieces of the side not to move.
    #[inline(always)]
    pub fn them(&self) -> Bitboard {
        self.colors(!self.side)
    }

    /// The king square of `color`. A position always has exactly one king per side.
    #[inline(always)]
    pub fn king(&self, color: Color) -> Square {
        self.colored(color, Piece::King).lsb()
    }

    /// Rooks and queens.
    #[inline(always)]
    pub fn orthogonal_sliders(&self) -> Bitboard {
        self.pieces(Piece::Rook) | self.pieces(Piece::Queen)
    }

    /// Bishops and queens.
    #[inline(always)]
    pub fn diagonal_sliders(&self) -> Bitboard {
        self.pieces(Piece::Bishop) | self.pieces(Piece::Queen)
    }

    /// The en-passant target square, present only when an en-passant capture is legal.
    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    /// The rooks that still have castling rights (both colours).
    #[inline(always)]
    pub fn castle_rooks(&self) -> Bitboard {
        self.castle_rooks
    }

    /// The castling rook of `color` on `side`, if that right exists.
    pub fn castle_rook(&self, color: Color, side: CastleSide) -> Option<Square> {
        let king = self.king(color);
        let rooks = self.castle_rooks
            & self.colors(color)
            & Rank::First.relative(color == Color::White).bitboard();
        rooks.into_iter().find(|&r| match side {
            CastleSide::King => r.file() > king.file(),
            CastleSide::Queen => r.file() < king.file(),
        })
    }

    /// Halfmove clock (plies since the last capture or pawn move).
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }

    /// Fullmove number.
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove
    }

    /// True if castling moves are written the Chess960 way (king takes rook) and
    /// FEN castling uses Shredder letters.
    pub fn is_chess960(&self) -> bool {
        self.chess960
    }

    /// Switches Chess960 notation on or off (the rules are the same; this only
    /// changes how castling moves and castling rights are written).
    pub fn set_chess960(&mut self, chess960: bool) {
        self.chess960 = chess960;
    }

    /// The incrementally updated 64-bit Zobrist key.
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The key set this position's key is computed with.
    pub fn zobrist(&self) -> &'static Zobrist {
        self.keys
    }

    /// The same position with its key recomputed under another key set.
    pub fn with_zobrist(mut self, keys: &'static Zobrist) -> Position {
        self.keys = keys;
        self.hash = self.compute_hash();
        self
    }

    /// The piece on `sq`, if any.
    pub fn piece_on(&self, sq: Square) -> Option<(Color, Piece)> {
        let color = if self.colors[0].contains(sq) {
            Color::White
        } else if self.colors[1].contains(sq) {
            Color::Black
        } else {
            return None;
        };
        let piece = Piece::ALL
            .into_iter()
            .find(|p| self.pieces[p.index()].contains(sq))?;
        Some((color, piece))
    }

    /// The kind of piece on `sq` (caller knows the square is occupied).
    #[inline(always)]
    fn kind_on(&self, sq: Square) -> Piece {
        let bb = sq.bitboard();
        let mut i = 0;
        while i < 5 {
            if (self.pieces[i] & bb).nonempty() {
                break;
            }
            i += 1;
        }
        Piece::ALL[i]
    }

    /// All pieces of either colour that attack `sq` given occupancy `occ`.
    #[inline]
    pub fn attackers_to(&self, sq: Square, occ: Bitboard) -> Bitboard {
        (rook_attacks(sq, occ) & self.orthogonal_sliders())
            | (bishop_attacks(sq, occ) & self.diagonal_sliders())
            | (knight_attacks(sq) & self.pieces(Piece::Knight))
            | (king_attacks(sq) & self.pieces(Piece::King))
            | (pawn_attacks(Color::White, sq) & self.colored(Color::Black, Piece::Pawn))
            | (pawn_attacks(Color::Black, sq) & self.colored(Color::White, Piece::Pawn))
    }

    /// True if a piece of `by` attacks `sq` given occupancy `occ`.
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color, occ: Bitboard) -> bool {
        let them = self.colors(by);
        ((rook_attacks(sq, occ) & self.orthogonal_sliders() & them)
            | (bishop_attacks(sq, occ) & self.diagonal_sliders() & them)
            | (knight_attacks(sq) & self.pieces(Piece::Knight) & them)
            | (king_attacks(sq) & self.pieces(Piece::King) & them)
            | (pawn_attacks(!by, sq) & self.pieces(Piece::Pawn) & them))
            .nonempty()
    }

    /// Pieces giving check to the side to move.
    pub fn checkers(&self) -> Bitboard {
        let king = self.king(self.side);
        self.attackers_to(king, self.occupied()) & self.them()
    }

    /// True if the side to move is in check.
    pub fn in_check(&self) -> bool {
        self.checkers().nonempty()
    }

    // ----- hashing -----

    /// The Zobrist key computed from scratch (the incremental key must equal it).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for color in Color::ALL {
            for piece in Piece::ALL {
                for sq in self.colored(color, piece) {
                    h ^= self.keys.piece(color, piece, sq);
                }
            }
        }
        for sq in self.castle_rooks {
            h ^= self.keys.castling(sq);
        }
        if let Some(ep) = self.ep {
            h ^= self.keys.ep(ep.file());
        }
        if self.side == Color::Black {
            h ^= self.keys.black_to_move();
        }
        h
    }

    /// Puts or removes a piece, keeping bitboards and key in step. Every board
    /// change of `play` goes through here or through `move_piece`, so the key
    /// cannot be forgotten.
    #[inline(always)]
    pub(crate) fn toggle(&mut self, color: Color, piece: Piece, sq: Square) {
        let bb = sq.bitboard();
        self.pieces[piece.index()] ^= bb;
        self.colors[color.index()] ^= bb;
        self.hash ^= self.keys.piece(color, piece, sq);
    }

    #[inline(always)]
    fn move_piece(&mut self, color: Color, piece: Piece, from: Square, to: Square) {
        let bb = from.bitboard() | to.bitboard();
        self.pieces[piece.index()] ^= bb;
        self.colors[color.index()] ^= bb;
        self.hash ^= self.keys.piece(color, piece, from) ^ self.keys.piece(color, piece, to);
    }

    #[inline(always)]
    fn set_castle_rooks(&mut self, rooks: Bitboard) {
        for sq in self.castle_rooks ^ rooks {
            self.hash ^= self.keys.castling(sq);
        }
        self.castle_rooks = rooks;
    }

    #[inline(always)]
    pub(crate) fn set_ep(&mut self, ep: Option<Square>) {
        if let Some(old) = self.ep {
            self.hash ^= self.keys.ep(old.file());
        }
        if let Some(new) = ep {
            self.hash ^= self.keys.ep(new.file());
        }
        self.ep = ep;
    }

    // ----- playing moves -----

    /// Plays `mv` if it is legal; returns the new position, or `None` for an
    /// illegal (or malformed) move. `self` is not changed.
    pub fn play(&self, mv: Move) -> Option<Position> {
        if self.is_legal(mv) {
            Some(self.play_unchecked(mv))
        } else {
            None
        }
    }

    /// Plays `mv`, trusting that it is legal (as produced by the move
    /// generator). Safe: an illegal move gives a garbled position, never UB.
    #[inline]
    pub fn play_unchecked(&self, mv: Move) -> Position {
        let piece = self.kind_on(mv.from());
        self.play_piece(piece, mv)
    }

    /// Plays `mv` made by `piece` (the generator knows the piece, which saves
    /// looking it up).
    #[inline]
    pub(crate) fn play_piece(&self, piece: Piece, mv: Move) -> Position {
        let mut pos = *self;
        let us = self.side;
        let them = !us;
        let from = mv.from();
        let to = mv.to();
        pos.set_ep(None);
        pos.halfmove = pos.halfmove.saturating_add(1);

        match mv.kind() {
            MoveKind::Normal => {
                if self.colors(them).contains(to) {
                    pos.toggle(them, self.kind_on(to), to);
                    pos.halfmove = 0;
                }
                pos.move_piece(us, piece, from, to);
                if piece == Piece::Pawn {
                    pos.halfmove = 0;
                    if from.index() ^ to.index() == 16 {
                        let ep = Square::from_index((from.index() + to.index()) / 2);
                        if pos.ep_capture_possible_after_push(ep, to) {
                            pos.set_ep(Some(ep));
                        }
                    }
                }
            }
            MoveKind::Promotion => {
                if self.colors(them).contains(to) {
                    pos.toggle(them, self.kind_on(to), to);
                }
                pos.toggle(us, Piece::Pawn, from);
                pos.toggle(us, mv.promotion().unwrap_or(Piece::Queen), to);
                pos.halfmove = 0;
            }
            MoveKind::EnPassant => {
                let captured = Square::new(to.file(), from.rank());
                pos.toggle(them, Piece::Pawn, captured);
                pos.move_piece(us, Piece::Pawn, from, to);
                pos.halfmove = 0;
            }
            MoveKind::Castling => {
                // Remove both pieces before placing them: in Chess960 the king may
                // land on the rook's square or the other way round.
                pos.toggle(us, Piece::King, from);
                pos.toggle(us, Piece::Rook, to);
                pos.toggle(us, Piece::King, mv.castling_king_target());
                pos.toggle(us, Piece::Rook, mv.castling_rook_target());
            }
        }

        let mut rooks = pos.castle_rooks & !(from.bitboard() | to.bitboard());
        if piece == Piece::King {
            rooks &= !Rank::First.relative(us == Color::White).bitboard();
        }
        pos.set_castle_rooks(rooks);

        pos.side = them;
        pos.hash ^= self.keys.black_to_move();
        if us == Color::Black {
            pos.fullmove = pos.fullmove.saturating_add(1);
        }
        pos
    }

    /// Copy-make for perft, for side `S` to move: board, side, castling rights
    /// and en-passant square are exact; the key is kept only when `KEYS` (the
    /// hashed perft needs it, the plain one does not); clocks are not kept.
    /// `piece` moves from `from` to `to` with a normal move or capture.
    #[inline(always)]
    pub(crate) fn make_normal<C: Cpu, S: Side, const KEYS: bool>(
        &self,
        cpu: C,
        piece: Piece,
        from: Square,
        to: Square,
    ) -> Position {
        let mut p = *self;
        let us = S::COLOR.index();
        let them = 1 - us;
        let from_bb = from.bitboard();
        let to_bb = to.bitboard();
        let moved = from_bb | to_bb;
        if KEYS {
            if self.colors[them] & to_bb != Bitboard::EMPTY {
                p.hash ^= self.keys.piece(!S::COLOR, self.kind_on(to), to);
            }
            p.hash ^= self.keys.piece(S::COLOR, piece, from) ^ self.keys.piece(S::COLOR, piece, to);
        }
        // A capture: clear the target in every piece set (no branch, no lookup).
        for bb in &mut p.pieces {
            *bb &= !to_bb;
        }
        p.pieces[piece.index()] ^= moved;
        p.colors[them] &= !to_bb;
        p.colors[us] ^= moved;
        let mut rooks = p.castle_rooks & !moved;
        if piece == Piece::King {
            rooks &= !S::RANK_1;
        }
        p.finish_make::<S, KEYS>(rooks);
        if piece == Piece::Pawn && from.index() ^ to.index() == 16 {
            let ep = Square::from_index((from.index() + to.index()) / 2);
            // Usually no enemy pawn is next to the pushed one: test that inline.
            let capturers =
                pawn_attacks(S::COLOR, ep) & p.colored(<S::Other as Side>::COLOR, Piece::Pawn);
            if capturers.nonempty() && p.ep_capture_possible_after_push_on(cpu, ep, to) {
                p.ep = Some(ep);
                if KEYS {
                    p.hash ^= self.keys.ep(ep.file());
                }
            }
        }
        p
    }

    /// [`make_normal`](Self::make_normal) for a promotion to `promotion`.
    #[inline(always)]
    pub(crate) fn make_promotion<S: Side, const KEYS: bool>(
        &self,
        from: Square,
        to: Square,
        promotion: Piece,
    ) -> Position {
        let mut p = *self;
        let us = S::COLOR.index();
        let them = 1 - us;
        let from_bb = from.bitboard();
        let to_bb = to.bitboard();
        if KEYS {
            if self.colors[them] & to_bb != Bitboard::EMPTY {
                p.hash ^= self.keys.piece(!S::COLOR, self.kind_on(to), to);
            }
            p.hash ^= self.keys.piece(S::COLOR, Piece::Pawn, from)
                ^ self.keys.piece(S::COLOR, promotion, to);
        }
        // The promoted piece is set by a mask per set, not by a store at a
        // run-time index: such a store, read back by the wide copy of the
        // returned position, defeats store-to-load forwarding (measured: 13 %
        // of a pawn ending's time went to that stall).
        for (i, bb) in p.pieces.iter_mut().enumerate() {
            let promoted = Bitboard(to_bb.0 & u64::from(i == promotion.index()).wrapping_neg());
            *bb = (*bb & !to_bb) | promoted;
        }
        p.pieces[Piece::Pawn.index()] ^= from_bb;
        p.colors[them] &= !to_bb;
        p.colors[us] ^= from_bb | to_bb;
        let rooks = p.castle_rooks & !to_bb;
        p.finish_make::<S, KEYS>(rooks);
        p
    }

    /// Common tail of the perft makes: castling rights, en passant cleared,
    /// side flipped, and their keys.
    #[inline(always)]
    fn finish_make<S: Side, const KEYS: bool>(&mut self, rooks: Bitboard) {
        if KEYS {
            for sq in self.castle_rooks ^ rooks {
                self.hash ^= self.keys.castling(sq);
            }
            if let Some(ep) = self.ep {
                self.hash ^= self.keys.ep(ep.file());
            }
            self.hash ^= self.keys.black_to_move();
        }
        self.castle_rooks = rooks;
        self.ep = None;
        self.side = <S::Other as Side>::COLOR;
    }

    /// After a double push to `pushed` (the side to move in `self` is the
    /// opponent, who might capture): is an en-passant capture on `ep` legal?
    /// Exact test: for each capturing pawn, make the capture on a scratch
    /// occupancy and look for any attack on the capturer's king.
    pub(crate) fn ep_capture_possible_after_push(&self, ep: Square, pushed: Square) -> bool {
        self.ep_capture_possible_after_push_on(Compiled, ep, pushed)
    }

    /// [`ep_capture_possible_after_push`](Self::ep_capture_possible_after_push)
    /// with the slider lookups of CPU path `C` (the perft makes: the
    /// build's own lookups are magics in a default build, a second table
    /// in the cache beside the path's PEXT one).
    #[inline(always)]
    pub(crate) fn ep_capture_possible_after_push_on<C: Cpu>(
        &self,
        cpu: C,
        ep: Square,
        pushed: Square,
    ) -> bool {
        // The side that would capture is the one *not* to move in `self` until
        // `play_piece` flips sides, so read it from the pushed pawn's colour.
        let pusher = if self.colors[0].contains(pushed) {
            Color::White
        } else {
            Color::Black
        };
        let capturer_side = !pusher;
        let capturers = pawn_attacks(pusher, ep) & self.colored(capturer_side, Piece::Pawn);
        if capturers.is_empty() {
            return false;
        }
        // A loop, not `Iterator::any`: the `any` call was not inlined, so
        // the test ran outside the CPU path's `#[target_feature]` code, with
        // PEXT as a function call (2.5 % of CPW 3's samples).
        for c in capturers {
            if self.ep_capture_is_legal_on(cpu, capturer_side, c, ep, pushed) {
                return true;
            }
        }
        false
    }

    /// Is the en-passant capture `c` x `ep` (removing the pawn on `captured`)
    /// by `side` legal? Applies the capture to a scratch occupancy and tests the
    /// king against every enemy piece; this covers the pinned capturer, the
    /// rank pin through both pawns
    /// (`8/8/8/KPp4r/8/8/8/7k w - c6`: b5xc6 exposes a5 to h5) and the capture
    /// that removes a checking pawn.
    #[inline]
    pub(crate) fn ep_capture_is_legal(
        &self,
        side: Color,
        c: Square,
        ep: Square,
        captured: Square,
    ) -> bool {
        self.ep_capture_is_legal_on(Compiled, side, c, ep, captured)
    }

    /// [`ep_capture_is_legal`](Self::ep_capture_is_legal) with the slider
    /// lookups of CPU path `C`.
    #[inline(always)]
    pub(crate) fn ep_capture_is_legal_on<C: Cpu>(
        &self,
        cpu: C,
        side: Color,
        c: Square,
        ep: Square,
        captured: Square,
    ) -> bool {
        let king = self.king(side);
        let occ = (self.occupied() ^ c.bitboard() ^ captured.bitboard()) | ep.bitboard();
        let them = self.colors(!side) & !captured.bitboard();
        let attackers = (cpu.rook_attacks(king, occ) & self.orthogonal_sliders())
            | (cpu.bishop_attacks(king, occ) & self.diagonal_sliders())
            | (knight_attacks(king) & self.pieces(Piece::Knight))
            | (pawn_attacks(side, king) & self.pieces(Piece::Pawn));
        (attackers & them).is_empty()
    }

    /// The colour-flipped twin: board mirrored top to bottom, colours swapped,
    /// side to move swapped. Perft counts are equal for both.
    pub fn flipped(&self) -> Position {
        let mut pos = *self;
        for p in 0..6 {
            pos.pieces[p] = self.pieces[p].flip_ranks();
        }
        pos.colors = [self.colors[1].flip_ranks(), self.colors[0].flip_ranks()];
        pos.castle_rooks = self.castle_rooks.flip_ranks();
        pos.ep = self.ep.map(Square::flip_rank);
        pos.side = !self.side;
        pos.hash = pos.compute_hash();
        pos
    }

    /// `(must_be_empty, king_path)` for castling with the king on `king` and
    /// the rook on `rook` (same rank): the squares that must be empty apart
    /// from king and rook, and the squares the king crosses or lands on.
    #[inline(always)]
    pub(crate) fn castling_path(king: Square, rook: Square) -> (Bitboard, Bitboard) {
        CASTLING_PATHS[king.index()][rook.index() & 7]
    }
}

/// Bits of files `a..=b` (either order) on rank 1.
const fn file_span(a: usize, b: usize) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    ((1u64 << (hi + 1)) - 1) & !((1u64 << lo) - 1)
}

/// `CASTLING_PATHS[king][rook_file]`: castling geometry for every king
/// square and rook file on the king's rank (the king goes to the g- or
/// c-file, the rook to the f- or d-file, whatever their start files).
static CASTLING_PATHS: [[(Bitboard, Bitboard); 8]; 64] = {
    let mut table = [[(Bitboard::EMPTY, Bitboard::EMPTY); 8]; 64];
    let mut king = 0;
    while king < 64 {
        let (kf, shift) = (king % 8, king / 8 * 8);
        let mut rf = 0;
        while rf < 8 {
            if rf != kf {
                let (kdest, rdest) = if rf > kf { (6, 5) } else { (2, 3) };
                let (king_bit, rook_bit) = (1u64 << kf, 1u64 << rf);
                let king_path = (file_span(kf, kdest) & !king_bit) | 1u64 << kdest;
                let must_be_empty =
                    (king_path | file_span(kf, rf) | file_span(rf, rdest)) & !(king_bit | rook_bit);
                table[king][rf] = (
                    Bitboard(must_be_empty << shift),
                    Bitboard(king_path << shift),
                );
            }
            rf += 1;
        }
        king += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn castle_rook_finds_each_wing() {
        let pos = Position::startpos();
        assert_eq!(
            pos.castle_rook(Color::White, CastleSide::King),
            Some(Square::H1)
        );
        assert_eq!(
            pos.castle_rook(Color::Black, CastleSide::Queen),
            Some(Square::A8)
        );
    }

    #[test]
    fn flipped_twice_is_identity() {
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .unwrap();
        assert_eq!(pos.flipped().flipped(), pos);
        assert_eq!(pos.flipped().flipped().hash(), pos.hash());
    }
}
