//! Legal move generation, pin- and check-aware.
//!
//! Per node the generator computes, for the side to move:
//! * `checkers`: enemy pieces giving check (0, 1 or 2);
//! * `check_mask`: the squares a non-king move must land on (everything when
//!   not in check; the checker and the squares between it and the king in
//!   single check). In double check only the king moves;
//! * `pin_hv`, `pin_diag`: the union of the rays (king exclusive, pinner
//!   inclusive) of orthogonal and diagonal pins. A pinned piece moves only
//!   along its own ray: rays through the king meet only at the king, so
//!   "target in the union" equals "target on its own ray" for every piece
//!   that can stand on a ray of that orientation;
//! * king moves are tested against enemy attacks computed with our king
//!   removed from the occupancy, so the king cannot step back along a
//!   checking ray.
//!
//! King captures are never generated: targets always exclude our own pieces,
//! and the enemy king can never be attacked in a legal position.
//!
//! Moves are delivered to a visitor as [`PieceMoves`] (piece, origin, target
//! set), so a perft leaf counts moves with popcounts ([`Position::count_moves`])
//! without playing or listing them.
//!
//! Side-dependent directions are resolved at compile time through the
//! [`Side`] trait ([`White`], [`Black`]).

use crate::attacks::{
    between, bishop_attacks, bishop_rays, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
    rook_rays,
};
use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind, MoveList, PieceMoves};
use crate::piece::{Color, Piece};
use crate::position::Position;
use crate::square::{Rank, Square};

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
}

/// White to move.
#[derive(Clone, Copy, Debug)]
pub struct White;
/// Black to move.
#[derive(Clone, Copy, Debug)]
pub struct Black;

const NOT_A: u64 = !0x0101_0101_0101_0101;
const NOT_H: u64 = !0x8080_8080_8080_8080;

impl Side for White {
    const COLOR: Color = Color::White;
    type Other = Black;
    const RANK_1: Bitboard = Rank::First.bitboard();
    const RANK_3: Bitboard = Rank::Third.bitboard();
    const RANK_7: Bitboard = Rank::Seventh.bitboard();
    const RANK_8: Bitboard = Rank::Eighth.bitboard();
    const UP: i32 = 8;
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

/// Checkers, check mask and pin masks of one node.
#[derive(Clone, Copy, Debug)]
pub struct NodeInfo {
    /// Enemy pieces giving check.
    pub checkers: Bitboard,
    /// Squares a non-king move must land on.
    pub check_mask: Bitboard,
    /// Union of orthogonal pin rays (pinner included).
    pub pin_hv: Bitboard,
    /// Union of diagonal pin rays (pinner included).
    pub pin_diag: Bitboard,
}

impl NodeInfo {
    /// Computes checkers and pins for side `S` in one scan per slider
    /// orientation: an enemy slider on a line from our king with nothing in
    /// between checks; with exactly one of our pieces in between, pins it.
    #[inline(always)]
    pub fn new<S: Side>(pos: &Position) -> NodeInfo {
        let us = pos.colors(S::COLOR);
        let them = pos.colors(<S::Other as Side>::COLOR);
        let occ = us | them;
        let king = pos.king(S::COLOR);

        let mut checkers = (knight_attacks(king) & pos.pieces(Piece::Knight)
            | pawn_attacks(S::COLOR, king) & pos.pieces(Piece::Pawn))
            & them;
        let mut pin_hv = Bitboard::EMPTY;
        let mut pin_diag = Bitboard::EMPTY;

        for sniper in rook_rays(king) & pos.orthogonal_sliders() & them {
            let blockers = between(king, sniper) & occ;
            if blockers.is_empty() {
                checkers |= sniper.bitboard();
            } else if !blockers.has_many() && (blockers & us).nonempty() {
                pin_hv |= between(king, sniper) | sniper.bitboard();
            }
        }
        for sniper in bishop_rays(king) & pos.diagonal_sliders() & them {
            let blockers = between(king, sniper) & occ;
            if blockers.is_empty() {
                checkers |= sniper.bitboard();
            } else if !blockers.has_many() && (blockers & us).nonempty() {
                pin_diag |= between(king, sniper) | sniper.bitboard();
            }
        }
        let check_mask = match checkers.first() {
            None => Bitboard::FULL,
            Some(c) => between(king, c) | c.bitboard(),
        };
        NodeInfo {
            checkers,
            check_mask,
            pin_hv,
            pin_diag,
        }
    }
}

/// Squares attacked by side `S::Other`, computed with `occ` (our king removed).
#[inline(always)]
fn enemy_attacks<S: Side>(pos: &Position, occ: Bitboard) -> Bitboard {
    let them = pos.colors(<S::Other as Side>::COLOR);
    let pawns = pos.pieces(Piece::Pawn) & them;
    let mut attacked = <S::Other as Side>::up_west(pawns) | <S::Other as Side>::up_east(pawns);
    for sq in pos.pieces(Piece::Knight) & them {
        attacked |= knight_attacks(sq);
    }
    for sq in pos.diagonal_sliders() & them {
        attacked |= bishop_attacks(sq, occ);
    }
    for sq in pos.orthogonal_sliders() & them {
        attacked |= rook_attacks(sq, occ);
    }
    attacked | king_attacks(pos.king(<S::Other as Side>::COLOR))
}

/// Generates all legal moves of side `S`, calling `visit` once per piece (and
/// once per special-move group). `visit` returns `true` to stop early; the
/// function then returns `true`.
#[inline(always)]
pub fn generate<S: Side, F: FnMut(PieceMoves) -> bool>(pos: &Position, visit: &mut F) -> bool {
    let info = NodeInfo::new::<S>(pos);
    generate_with::<S, F>(pos, &info, visit)
}

/// [`generate`] with precomputed [`NodeInfo`].
#[inline(always)]
pub fn generate_with<S: Side, F: FnMut(PieceMoves) -> bool>(
    pos: &Position,
    info: &NodeInfo,
    visit: &mut F,
) -> bool {
    let us = pos.colors(S::COLOR);
    let them = pos.colors(<S::Other as Side>::COLOR);
    let occ = us | them;
    let king = pos.king(S::COLOR);

    // King moves.
    let to = king_targets::<S>(pos, occ, us);
    if to.nonempty()
        && visit(PieceMoves {
            piece: Piece::King,
            from: king,
            to,
            kind: MoveKind::Normal,
        })
    {
        return true;
    }
    if info.checkers.has_many() {
        return false;
    }

    if info.checkers.is_empty() && (pos.castle_rooks() & us).nonempty() {
        let rooks = castling_targets::<S>(pos, occ);
        if rooks.nonempty()
            && visit(PieceMoves {
                piece: Piece::King,
                from: king,
                to: rooks,
                kind: MoveKind::Castling,
            })
        {
            return true;
        }
    }

    let targets = !us & info.check_mask;
    let pinned = info.pin_hv | info.pin_diag;

    // Knights: a pinned knight never moves.
    for from in pos.pieces(Piece::Knight) & us & !pinned {
        let to = knight_attacks(from) & targets;
        if to.nonempty()
            && visit(PieceMoves {
                piece: Piece::Knight,
                from,
                to,
                kind: MoveKind::Normal,
            })
        {
            return true;
        }
    }

    // Diagonal sliders: an orthogonally pinned one never moves.
    for from in pos.diagonal_sliders() & us & !info.pin_hv {
        let mut to = bishop_attacks(from, occ) & targets;
        if info.pin_diag.contains(from) {
            to &= info.pin_diag;
        }
        let piece = if pos.pieces(Piece::Queen).contains(from) {
            Piece::Queen
        } else {
            Piece::Bishop
        };
        if to.nonempty()
            && visit(PieceMoves {
                piece,
                from,
                to,
                kind: MoveKind::Normal,
            })
        {
            return true;
        }
    }

    // Orthogonal sliders: a diagonally pinned one never moves.
    for from in pos.orthogonal_sliders() & us & !info.pin_diag {
        let mut to = rook_attacks(from, occ) & targets;
        if info.pin_hv.contains(from) {
            to &= info.pin_hv;
        }
        let piece = if pos.pieces(Piece::Queen).contains(from) {
            Piece::Queen
        } else {
            Piece::Rook
        };
        if to.nonempty()
            && visit(PieceMoves {
                piece,
                from,
                to,
                kind: MoveKind::Normal,
            })
        {
            return true;
        }
    }

    // Pawns, one pawn at a time.
    let pawns = pos.pieces(Piece::Pawn) & us;
    let empty = !occ;
    for from in pawns {
        let bb = from.bitboard();
        let mut to = Bitboard::EMPTY;
        if !info.pin_diag.contains(from) {
            let single = S::up(bb) & empty;
            let double = S::up(single & S::RANK_3) & empty;
            let mut pushes = (single | double) & info.check_mask;
            if info.pin_hv.contains(from) {
                pushes &= info.pin_hv;
            }
            to |= pushes;
        }
        if !info.pin_hv.contains(from) {
            let mut captures = pawn_attacks(S::COLOR, from) & them & info.check_mask;
            if info.pin_diag.contains(from) {
                captures &= info.pin_diag;
            }
            to |= captures;
        }
        if to.nonempty() {
            let kind = if (bb & S::RANK_7).nonempty() {
                MoveKind::Promotion
            } else {
                MoveKind::Normal
            };
            if visit(PieceMoves {
                piece: Piece::Pawn,
                from,
                to,
                kind,
            }) {
                return true;
            }
        }
    }

    // En passant: rare, so each capture gets the exact scratch-board test.
    if let Some(ep) = pos.ep_square() {
        let captured = Square::from_index((ep.index() as i32 - S::UP) as usize);
        for from in pawn_attacks(<S::Other as Side>::COLOR, ep) & pawns {
            if pos.ep_capture_is_legal(S::COLOR, from, ep, captured)
                && visit(PieceMoves {
                    piece: Piece::Pawn,
                    from,
                    to: ep.bitboard(),
                    kind: MoveKind::EnPassant,
                })
            {
                return true;
            }
        }
    }
    false
}

/// Counts the legal moves of side `S` (a promotion counts four) without
/// listing them: popcounts of target sets, pawns set-wise.
#[inline(always)]
pub fn count<S: Side>(pos: &Position) -> u64 {
    let info = NodeInfo::new::<S>(pos);
    if info.checkers.is_empty() {
        count_with::<S, false>(pos, &info)
    } else {
        count_with::<S, true>(pos, &info)
    }
}

/// Number of moves landing on `targets` for pawns: a target on the last rank
/// is four promotions.
#[inline(always)]
fn pawn_target_count<S: Side>(targets: Bitboard) -> u64 {
    u64::from(targets.len() + 3 * (targets & S::RANK_8).len())
}

/// Legal king moves of side `S` (not castling). Each candidate square is
/// tested on its own, with our king removed from the occupancy; a king has
/// few candidates, so this is cheaper than the full enemy attack map.
#[inline(always)]
fn king_targets<S: Side>(pos: &Position, occ: Bitboard, us: Bitboard) -> Bitboard {
    let king = pos.king(S::COLOR);
    let occ = occ ^ king.bitboard();
    let candidates = king_attacks(king) & !us;
    if candidates.len() > KING_LAZY_MAX {
        return candidates & !enemy_attacks::<S>(pos, occ);
    }
    let mut legal = Bitboard::EMPTY;
    for to in candidates {
        if !attacked_by_them::<S>(pos, to, occ) {
            legal |= to.bitboard();
        }
    }
    legal
}

/// Up to this many king candidate squares are tested one by one; more, and
/// the full enemy attack map is cheaper (measured: see README).
const KING_LAZY_MAX: u32 = 2;

/// True if a piece of `S::Other` attacks `sq` given `occ`.
#[inline(always)]
fn attacked_by_them<S: Side>(pos: &Position, sq: Square, occ: Bitboard) -> bool {
    let them = pos.colors(<S::Other as Side>::COLOR);
    ((knight_attacks(sq) & pos.pieces(Piece::Knight))
        | (pawn_attacks(S::COLOR, sq) & pos.pieces(Piece::Pawn))
        | (king_attacks(sq) & pos.pieces(Piece::King))
        | (bishop_attacks(sq, occ) & pos.diagonal_sliders())
        | (rook_attacks(sq, occ) & pos.orthogonal_sliders()))
        & them
        != Bitboard::EMPTY
}

#[inline(always)]
fn count_with<S: Side, const CHECK: bool>(pos: &Position, info: &NodeInfo) -> u64 {
    let us = pos.colors(S::COLOR);
    let them = pos.colors(<S::Other as Side>::COLOR);
    let occ = us | them;
    let mut n = u64::from(king_targets::<S>(pos, occ, us).len());
    if CHECK && info.checkers.has_many() {
        return n;
    }
    if !CHECK && (pos.castle_rooks() & us).nonempty() {
        n += u64::from(castling_targets::<S>(pos, occ).len());
    }
    let mask = if CHECK {
        info.check_mask
    } else {
        Bitboard::FULL
    };
    let targets = !us & mask;
    let pinned = info.pin_hv | info.pin_diag;

    for from in pos.pieces(Piece::Knight) & us & !pinned {
        n += u64::from((knight_attacks(from) & targets).len());
    }
    let diag = pos.diagonal_sliders() & us;
    for from in diag & !pinned {
        n += u64::from((bishop_attacks(from, occ) & targets).len());
    }
    for from in diag & info.pin_diag {
        n += u64::from((bishop_attacks(from, occ) & targets & info.pin_diag).len());
    }
    let orth = pos.orthogonal_sliders() & us;
    for from in orth & !pinned {
        n += u64::from((rook_attacks(from, occ) & targets).len());
    }
    for from in orth & info.pin_hv {
        n += u64::from((rook_attacks(from, occ) & targets & info.pin_hv).len());
    }

    // Pawns, set-wise. A diagonally pinned pawn never pushes and an
    // orthogonally pinned one never captures; each keeps to its pin ray.
    let pawns = pos.pieces(Piece::Pawn) & us;
    let empty = !occ;
    let free = pawns & !pinned;
    let single = (S::up(free) | (S::up(pawns & info.pin_hv) & info.pin_hv)) & empty;
    let double = S::up(single & S::RANK_3) & empty;
    n += pawn_target_count::<S>(single & mask) + u64::from((double & mask).len());
    let diag_pinned = pawns & info.pin_diag;
    let west = (S::up_west(free) | (S::up_west(diag_pinned) & info.pin_diag)) & them;
    let east = (S::up_east(free) | (S::up_east(diag_pinned) & info.pin_diag)) & them;
    n += pawn_target_count::<S>(west & mask) + pawn_target_count::<S>(east & mask);

    if let Some(ep) = pos.ep_square() {
        let captured = Square::from_index((ep.index() as i32 - S::UP) as usize);
        for from in pawn_attacks(<S::Other as Side>::COLOR, ep) & pawns {
            n += u64::from(pos.ep_capture_is_legal(S::COLOR, from, ep, captured));
        }
    }
    n
}

/// Castling moves of side `S` (not in check), as the set of castling rooks:
/// path empty, and no square the king crosses or lands on attacked once king
/// and rook have left their squares (in Chess960 the rook may shield the
/// king's target from an enemy rook on the back rank).
#[inline(always)]
fn castling_targets<S: Side>(pos: &Position, occ: Bitboard) -> Bitboard {
    let king = pos.king(S::COLOR);
    let mut rooks = Bitboard::EMPTY;
    for rook in pos.castle_rooks() & pos.colors(S::COLOR) {
        let (must_be_empty, king_path) = Position::castling_path(king, rook);
        if (must_be_empty & occ).nonempty() {
            continue;
        }
        let occ_without = occ ^ king.bitboard() ^ rook.bitboard();
        if king_path
            .into_iter()
            .all(|sq| !pos.is_attacked(sq, <S::Other as Side>::COLOR, occ_without))
        {
            rooks |= rook.bitboard();
        }
    }
    rooks
}

impl Position {
    /// Calls `visit` with the legal moves of each piece; `visit` returns `true`
    /// to stop. Returns `true` if stopped early.
    pub fn generate_moves<F: FnMut(PieceMoves) -> bool>(&self, mut visit: F) -> bool {
        match self.side_to_move() {
            Color::White => generate::<White, F>(self, &mut visit),
            Color::Black => generate::<Black, F>(self, &mut visit),
        }
    }

    /// Number of legal moves (a promotion counts four), by popcount.
    pub fn count_moves(&self) -> u64 {
        match self.side_to_move() {
            Color::White => count::<White>(self),
            Color::Black => count::<Black>(self),
        }
    }

    /// All legal moves.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_moves(|pm| {
            for mv in pm {
                list.push(mv);
            }
            false
        });
        list
    }

    /// True if `mv` is legal here (uses the same generator).
    pub fn is_legal(&self, mv: Move) -> bool {
        if mv.is_none() || !self.us().contains(mv.from()) {
            return false;
        }
        let from = mv.from();
        self.generate_moves(|pm| pm.from == from && pm.contains(mv))
    }

    /// True if the side to move has at least one legal move.
    pub fn has_legal_moves(&self) -> bool {
        self.generate_moves(|_| true)
    }

    /// Parses a UCI move (`e2e4`, `e7e8q`, castling as `e1g1` or king-takes-rook
    /// `e1h1`) and returns it if it is legal here.
    pub fn parse_uci(&self, text: &str) -> Option<Move> {
        let bytes = text.as_bytes();
        if !(4..=5).contains(&bytes.len()) || !text.is_ascii() {
            return None;
        }
        let from = Square::parse(&text[0..2])?;
        let to = Square::parse(&text[2..4])?;
        let promo = match bytes.get(4) {
            None => None,
            Some(&c) => Some(Piece::from_char(c as char).filter(|p| {
                matches!(
                    p,
                    Piece::Knight | Piece::Bishop | Piece::Rook | Piece::Queen
                )
            })?),
        };
        self.legal_moves().iter().copied().find(|mv| {
            mv.from() == from
                && mv.promotion() == promo
                && (mv.to() == to
                    || (mv.kind() == MoveKind::Castling
                        && !self.is_chess960()
                        && mv.castling_king_target() == to))
        })
    }
}
