//! Legal move generation, pin- and check-aware.
//!
//! Per node the generator computes, for the side to move:
//! * `checkers`: enemy pieces giving check (0, 1 or 2);
//! * `check_mask`: the squares a non-king move must land on (everything when
//!   not in check; the checker and the squares between it and the king in
//!   single check). In double check only the king moves;
//! * `pinned`: our pieces pinned to our king. A pinned piece moves only
//!   along `line(king, piece)`. Pins are rare, so pinned pieces take a slow
//!   path of their own and the common path runs with no pin masking at all.
//!   (Measured against two union masks of pin rays, orthogonal and
//!   diagonal, applied with one AND per piece: 6 % fewer instructions and
//!   about 5 % faster; see docs/performance.md, "Design alternatives
//!   measured");
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
//! [`Side`] trait ([`White`], [`Black`]), the slider lookups and CPU features
//! through the [`Cpu`] token (one compiled copy per path; see
//! [`crate::chess::cpu`]).

use crate::chess::attacks::{
    between, bishop_rays, king_attacks, knight_attacks, line, pawn_attacks, rook_rays,
};
use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::{Compiled, Cpu, CpuFn, CpuPath};
use crate::chess::moves::{Move, MoveKind, MoveList, PieceMoves};
use crate::chess::piece::{Color, Piece};
use crate::chess::position::Position;
pub use crate::chess::side::{Black, Side, White};
use crate::chess::square::Square;

/// Checkers, check mask and pinned pieces of one node.
#[derive(Clone, Copy, Debug)]
pub struct NodeInfo {
    /// Enemy pieces giving check.
    pub checkers: Bitboard,
    /// Squares a non-king move must land on.
    pub check_mask: Bitboard,
    /// Our pieces pinned to our king.
    pub pinned: Bitboard,
}

impl NodeInfo {
    /// Computes checkers and pins for side `S` in one scan per slider
    /// orientation: an enemy slider on a line from our king with nothing in
    /// between checks; with exactly one of our pieces in between, pins it.
    #[inline(always)]
    pub fn new<S: Side>(pos: &Position) -> NodeInfo {
        NodeInfo::new_at::<S>(pos, pos.king(S::COLOR))
    }

    /// [`NodeInfo::new`] with `S`'s king square given (`king` must be it).
    #[inline(always)]
    pub(crate) fn new_at<S: Side>(pos: &Position, king: Square) -> NodeInfo {
        debug_assert_eq!(king, pos.king(S::COLOR));
        let us = pos.colors(S::COLOR);
        let them = pos.colors(<S::Other as Side>::COLOR);
        let occ = us | them;

        let mut checkers = (knight_attacks(king) & pos.pieces(Piece::Knight)
            | pawn_attacks(S::COLOR, king) & pos.pieces(Piece::Pawn))
            & them;
        let mut pinned = Bitboard::EMPTY;
        // One loop over both kinds (a square lies on one kind of ray from
        // the king only), branch-free per sniper: no blocker checks, one
        // blocker of ours is pinned, as masks (which case holds depends on
        // the board and was often mispredicted).
        let snipers = (rook_rays(king) & pos.orthogonal_sliders()
            | bishop_rays(king) & pos.diagonal_sliders())
            & them;
        for sniper in snipers {
            let b = (between(king, sniper) & occ).0;
            checkers.0 |= sniper.bitboard().0 & u64::from(b == 0).wrapping_neg();
            pinned.0 |= b & us.0 & u64::from(b & b.wrapping_sub(1) == 0).wrapping_neg();
        }
        let check_mask = match checkers.first() {
            None => Bitboard::FULL,
            Some(c) => between(king, c) | c.bitboard(),
        };
        NodeInfo {
            checkers,
            check_mask,
            pinned,
        }
    }
}

/// Squares attacked by side `S::Other`, computed with `occ` (our king removed).
#[inline(always)]
fn enemy_attacks<C: Cpu, S: Side>(cpu: C, pos: &Position, occ: Bitboard) -> Bitboard {
    let them = pos.colors(<S::Other as Side>::COLOR);
    let pawns = pos.pieces(Piece::Pawn) & them;
    let mut attacked = <S::Other as Side>::up_west(pawns) | <S::Other as Side>::up_east(pawns);
    for sq in pos.pieces(Piece::Knight) & them {
        attacked |= knight_attacks(sq);
    }
    for sq in pos.diagonal_sliders() & them {
        attacked |= cpu.bishop_attacks(sq, occ);
    }
    for sq in pos.orthogonal_sliders() & them {
        attacked |= cpu.rook_attacks(sq, occ);
    }
    attacked | king_attacks(pos.king(<S::Other as Side>::COLOR))
}

/// Receives the legal moves of a node, grouped the way the generator finds
/// them. Each method returns `true` to stop the generation.
///
/// The same generator feeds a counter (sums of popcounts: bulk counting), the
/// perft recursion (plays each move) and [`PieceMoves`] visitors (lists).
pub trait MoveSink {
    /// True for a sink that only adds up move counts: the generator then
    /// hands it the pawn moves as one branch-free count through
    /// [`MoveSink::add`] instead of seven target sets. (Slider counts merged
    /// the same way, queens looked up with bishops and rooks, measured 2 %
    /// more instructions, and `--plain` 0.971x as fast over twelve endings
    /// on AMD: dropped.)
    const BULK: bool = false;
    /// Adds `n` moves (called only when [`MoveSink::BULK`]).
    #[inline(always)]
    fn add(&mut self, _n: u64) {}
    /// `piece` on `from` moves to each square of `to` (normal moves and
    /// captures; `to` may be empty).
    fn piece_moves(&mut self, piece: Piece, from: Square, to: Bitboard) -> bool;
    /// Pawn moves given set-wise: each square `t` of `to` is reached from the
    /// square `t - delta`. With `promotion`, each target is four moves.
    fn pawn_moves(&mut self, to: Bitboard, delta: i32, promotion: bool) -> bool;
    /// En-passant captures and castling (rare; `kind` says which).
    fn special(&mut self, moves: PieceMoves) -> bool;
}

/// Generates the legal moves of side `S` into `sink`; `true` if the sink
/// stopped early.
#[inline(always)]
pub fn generate_into<C: Cpu, S: Side, K: MoveSink>(cpu: C, pos: &Position, sink: &mut K) -> bool {
    generate_with_info::<C, S, K>(cpu, pos, &NodeInfo::new::<S>(pos), sink)
}

/// [`generate_into`] for a caller that already has the node's [`NodeInfo`]
/// (the leaf-parent counter needs the checkers first).
#[inline(always)]
pub(crate) fn generate_with_info<C: Cpu, S: Side, K: MoveSink>(
    cpu: C,
    pos: &Position,
    info: &NodeInfo,
    sink: &mut K,
) -> bool {
    generate_at::<C, S, K>(cpu, pos, info, pos.king(S::COLOR), sink)
}

/// [`generate_with_info`] with side `S`'s king square given (`king` must be
/// it).
#[inline(always)]
fn generate_at<C: Cpu, S: Side, K: MoveSink>(
    cpu: C,
    pos: &Position,
    info: &NodeInfo,
    king: Square,
    sink: &mut K,
) -> bool {
    if info.checkers.is_empty() {
        generate_with::<C, S, false, K>(cpu, pos, info, king, sink)
    } else {
        generate_with::<C, S, true, K>(cpu, pos, info, king, sink)
    }
}

/// Stops the generation when a sink call returns `true`.
macro_rules! emit {
    ($call:expr) => {
        if $call {
            return true;
        }
    };
}

/// The generator proper, specialised on whether the side to move is in check.
#[inline(always)]
fn generate_with<C: Cpu, S: Side, const CHECK: bool, K: MoveSink>(
    cpu: C,
    pos: &Position,
    info: &NodeInfo,
    king: Square,
    sink: &mut K,
) -> bool {
    let (king_to, castling_rooks) =
        king_moves::<C, S, CHECK>(cpu, pos, pos.occupied(), pos.colors(S::COLOR), king);
    generate_given::<C, S, CHECK, K>(cpu, pos, info, king, king_to, castling_rooks, sink)
}

/// [`generate_with`] once the king's legal targets and castling rooks are
/// known (computed here, or handed down by a leaf parent: see
/// [`count_given`]).
#[inline(always)]
fn generate_given<C: Cpu, S: Side, const CHECK: bool, K: MoveSink>(
    cpu: C,
    pos: &Position,
    info: &NodeInfo,
    king: Square,
    king_to: Bitboard,
    castling_rooks: Bitboard,
    sink: &mut K,
) -> bool {
    let us = pos.colors(S::COLOR);
    let them = pos.colors(<S::Other as Side>::COLOR);
    let occ = us | them;

    emit!(sink.piece_moves(Piece::King, king, king_to));
    if CHECK && info.checkers.has_many() {
        return false;
    }
    if !CHECK && castling_rooks.nonempty() {
        emit!(sink.special(PieceMoves {
            piece: Piece::King,
            from: king,
            to: castling_rooks,
            kind: MoveKind::Castling,
        }));
    }

    let mask = if CHECK {
        info.check_mask
    } else {
        Bitboard::FULL
    };
    let targets = !us & mask;
    let pinned = info.pinned;

    // Free pieces: no pin masking. A pinned knight never moves.
    for from in pos.pieces(Piece::Knight) & us & !pinned {
        emit!(sink.piece_moves(Piece::Knight, from, knight_attacks(from) & targets));
    }
    let bishops = pos.pieces(Piece::Bishop) & us;
    for from in bishops & !pinned {
        emit!(sink.piece_moves(Piece::Bishop, from, cpu.bishop_attacks(from, occ) & targets));
    }
    let rooks = pos.pieces(Piece::Rook) & us;
    for from in rooks & !pinned {
        emit!(sink.piece_moves(Piece::Rook, from, cpu.rook_attacks(from, occ) & targets));
    }
    let queens = pos.pieces(Piece::Queen) & us;
    for from in queens & !pinned {
        let to = (cpu.bishop_attacks(from, occ) | cpu.rook_attacks(from, occ)) & targets;
        emit!(sink.piece_moves(Piece::Queen, from, to));
    }
    let pawns = pos.pieces(Piece::Pawn) & us;
    let empty = !occ;
    let free = pawns & !pinned;
    let single = S::up(free) & empty;
    let double = S::up(single & S::RANK_3) & empty & mask;
    let single = single & mask;
    let west = S::up_west(free) & them & mask;
    let east = S::up_east(free) & them & mask;
    let last = S::RANK_8;
    if K::BULK {
        // A promotion is four moves: three more for each target on the last rank.
        let promotions = (single & last).len() + (west & last).len() + (east & last).len();
        let n = single.len() + double.len() + west.len() + east.len() + 3 * promotions;
        sink.add(n.into());
    } else {
        emit!(sink.pawn_moves(single & !last, S::UP, false));
        emit!(sink.pawn_moves(double, 2 * S::UP, false));
        emit!(sink.pawn_moves(west & !last, S::UP_WEST, false));
        emit!(sink.pawn_moves(east & !last, S::UP_EAST, false));
        if ((single | west | east) & last).nonempty() {
            emit!(sink.pawn_moves(single & last, S::UP, true));
            emit!(sink.pawn_moves(west & last, S::UP_WEST, true));
            emit!(sink.pawn_moves(east & last, S::UP_EAST, true));
        }
    }
    if pinned.nonempty() {
        emit!(cpu.outlined(
            #[inline(always)]
            || pinned_moves::<C, S, K>(cpu, pos, pinned, occ, mask, sink)
        ));
    }

    // En passant: rare, so each capture gets the exact scratch-board test.
    if let Some(ep) = pos.ep_square() {
        let captured = Square::from_index((ep.index() as i32 - S::UP) as usize);
        for from in pawn_attacks(<S::Other as Side>::COLOR, ep) & pawns {
            if pos.ep_capture_is_legal_on(cpu, S::COLOR, from, ep, captured) {
                emit!(sink.special(PieceMoves {
                    piece: Piece::Pawn,
                    from,
                    to: ep.bitboard(),
                    kind: MoveKind::EnPassant,
                }));
            }
        }
    }
    false
}

/// Moves of pinned pieces, along the line through king and piece only.
/// Pins are rare: out of line (through [`Cpu::outlined`]), so the common
/// path stays small.
#[inline(always)]
fn pinned_moves<C: Cpu, S: Side, K: MoveSink>(
    cpu: C,
    pos: &Position,
    pinned: Bitboard,
    occ: Bitboard,
    mask: Bitboard,
    sink: &mut K,
) -> bool {
    let us = pos.colors(S::COLOR);
    let them = pos.colors(<S::Other as Side>::COLOR);
    let king = pos.king(S::COLOR);
    let targets = !us & mask;
    let empty = !occ;
    let (bishops, rooks, queens) = (
        pos.pieces(Piece::Bishop) & us,
        pos.pieces(Piece::Rook) & us,
        pos.pieces(Piece::Queen) & us,
    );
    let pawns = pos.pieces(Piece::Pawn) & us;
    // Pinned sliders move along the pin line only (a bishop pinned on a
    // rank or file, or a rook pinned on a diagonal, finds no target there).
    for from in (bishops | rooks | queens) & pinned {
        let (piece, attacks) = if bishops.contains(from) {
            (Piece::Bishop, cpu.bishop_attacks(from, occ))
        } else if rooks.contains(from) {
            (Piece::Rook, cpu.rook_attacks(from, occ))
        } else {
            (
                Piece::Queen,
                cpu.bishop_attacks(from, occ) | cpu.rook_attacks(from, occ),
            )
        };
        emit!(sink.piece_moves(piece, from, attacks & targets & line(king, from)));
    }
    // Pinned pawns, one by one: pushes and captures along the pin line only.
    for from in pawns & pinned {
        let bb = from.bitboard();
        let single = S::up(bb) & empty;
        let double = S::up(single & S::RANK_3) & empty;
        let captures = pawn_attacks(S::COLOR, from) & them;
        let to = (single | double | captures) & mask & line(king, from);
        let promotion = (bb & S::RANK_7).nonempty();
        for t in to {
            let delta = t.index() as i32 - from.index() as i32;
            emit!(sink.pawn_moves(t.bitboard(), delta, promotion));
        }
    }
    false
}

/// The moves of side `S`'s pieces `pinned` (pinned to its king; `S` not
/// in check, no en passant): the pinned part of [`count`], for a caller
/// that counts the other pieces' moves itself.
#[inline(always)]
pub(crate) fn pinned_move_count<C: Cpu, S: Side>(cpu: C, pos: &Position, pinned: Bitboard) -> u64 {
    let mut counter = Counter(0);
    pinned_moves::<C, S, Counter>(
        cpu,
        pos,
        pinned,
        pos.occupied(),
        Bitboard::FULL,
        &mut counter,
    );
    counter.0
}

/// A sink that adds up move counts: bulk counting.
struct Counter(u64);

impl MoveSink for Counter {
    const BULK: bool = true;
    #[inline(always)]
    fn add(&mut self, n: u64) {
        self.0 += n;
    }
    #[inline(always)]
    fn piece_moves(&mut self, _: Piece, _: Square, to: Bitboard) -> bool {
        self.0 += u64::from(to.len());
        false
    }
    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, _: i32, promotion: bool) -> bool {
        self.0 += u64::from(to.len()) * if promotion { 4 } else { 1 };
        false
    }
    #[inline(always)]
    fn special(&mut self, moves: PieceMoves) -> bool {
        self.0 += moves.len() as u64;
        false
    }
}

/// A sink that hands [`PieceMoves`] to a closure (pawn moves one by one).
struct Visitor<F>(F);

impl<F: FnMut(PieceMoves) -> bool> MoveSink for Visitor<F> {
    #[inline(always)]
    fn piece_moves(&mut self, piece: Piece, from: Square, to: Bitboard) -> bool {
        to.nonempty()
            && (self.0)(PieceMoves {
                piece,
                from,
                to,
                kind: MoveKind::Normal,
            })
    }
    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, delta: i32, promotion: bool) -> bool {
        let kind = if promotion {
            MoveKind::Promotion
        } else {
            MoveKind::Normal
        };
        to.into_iter().any(|t| {
            (self.0)(PieceMoves {
                piece: Piece::Pawn,
                from: Square::from_index((t.index() as i32 - delta) as usize),
                to: t.bitboard(),
                kind,
            })
        })
    }
    #[inline(always)]
    fn special(&mut self, moves: PieceMoves) -> bool {
        (self.0)(moves)
    }
}

/// Generates all legal moves of side `S` as [`PieceMoves`] groups (one per
/// piece, one per pawn move, one per special-move group). `visit` returns
/// `true` to stop early; the function then returns `true`.
#[inline(always)]
pub fn generate<C: Cpu, S: Side, F: FnMut(PieceMoves) -> bool>(
    cpu: C,
    pos: &Position,
    visit: F,
) -> bool {
    generate_into::<C, S, _>(cpu, pos, &mut Visitor(visit))
}

/// Counts the legal moves of side `S` (a promotion counts four) without
/// listing them: popcounts of target sets, pawns set-wise.
#[inline(always)]
pub fn count<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    count_at::<C, S>(cpu, pos, pos.king(S::COLOR))
}

/// [`count`] with side `S`'s king square given (`king` must be it): a leaf
/// parent knows the square of its children's king, so the count does not
/// wait for it to be read back from the freshly made child.
#[inline(always)]
pub(crate) fn count_at<C: Cpu, S: Side>(cpu: C, pos: &Position, king: Square) -> u64 {
    let mut counter = Counter(0);
    generate_at::<C, S, _>(
        cpu,
        pos,
        &NodeInfo::new_at::<S>(pos, king),
        king,
        &mut counter,
    );
    counter.0
}

/// What a node's count needs before its pieces are looked at: its checkers,
/// check mask and pinned pieces, its king's legal targets and the rooks it
/// may castle with. A leaf parent works these out for most of its children
/// from its own position (see `perft::replies`), so the child's count skips
/// the pin scan and the king-safety tests.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KnownReplies {
    /// Checkers, check mask and pins of the node.
    pub info: NodeInfo,
    /// The king's legal targets (captures included).
    pub king_to: Bitboard,
    /// The rooks the king may castle with (empty in check).
    pub castling_rooks: Bitboard,
}

impl KnownReplies {
    /// What [`count`] finds in `pos` (side `S` to move) itself: for the
    /// debug assertions of the callers that hand [`KnownReplies`] down.
    pub(crate) fn of<C: Cpu, S: Side>(cpu: C, pos: &Position) -> KnownReplies {
        let info = NodeInfo::new::<S>(pos);
        let (occ, us) = (pos.occupied(), pos.colors(S::COLOR));
        let (king_to, castling_rooks) = if info.checkers.is_empty() {
            king_moves::<C, S, false>(cpu, pos, occ, us, pos.king(S::COLOR))
        } else {
            king_moves::<C, S, true>(cpu, pos, occ, us, pos.king(S::COLOR))
        };
        KnownReplies {
            info,
            king_to,
            castling_rooks,
        }
    }
}

/// [`count`] of a node whose [`KnownReplies`] are given: exactly the same
/// number when `known` is what [`NodeInfo::new`] and the king-move
/// generation would find in `pos`.
#[inline(always)]
pub(crate) fn count_given<C: Cpu, S: Side>(cpu: C, pos: &Position, known: &KnownReplies) -> u64 {
    let mut counter = Counter(0);
    if known.info.checkers.is_empty() {
        generate_given::<C, S, false, _>(
            cpu,
            pos,
            &known.info,
            pos.king(S::COLOR),
            known.king_to,
            known.castling_rooks,
            &mut counter,
        );
    } else {
        generate_given::<C, S, true, _>(
            cpu,
            pos,
            &known.info,
            pos.king(S::COLOR),
            known.king_to,
            Bitboard::EMPTY,
            &mut counter,
        );
    }
    counter.0
}

/// [`count`] of a node whose king targets and castling rooks are known
/// (valid in check too: the castling rooks are dropped then), its checks
/// and pins found here.
#[inline(always)]
pub(crate) fn count_with_king<C: Cpu, S: Side>(
    cpu: C,
    pos: &Position,
    king_to: Bitboard,
    castling_rooks: Bitboard,
) -> u64 {
    let known = KnownReplies {
        info: NodeInfo::new::<S>(pos),
        king_to,
        castling_rooks,
    };
    count_given::<C, S>(cpu, pos, &known)
}

/// [`count`] of a node whose checks and pins are known, its king moves
/// found here.
#[inline(always)]
pub(crate) fn count_with_info<C: Cpu, S: Side>(cpu: C, pos: &Position, info: &NodeInfo) -> u64 {
    let mut counter = Counter(0);
    generate_with_info::<C, S, _>(cpu, pos, info, &mut counter);
    counter.0
}

/// Squares attacked by side `S` given the occupancy `occ`, whoever is to
/// move in `pos`.
#[inline(always)]
pub(crate) fn attacks_by<C: Cpu, S: Side>(cpu: C, pos: &Position, occ: Bitboard) -> Bitboard {
    enemy_attacks::<C, S::Other>(cpu, pos, occ)
}

/// The number of king moves and castlings of side `S` (not in check) in
/// `pos`, whoever is to move there: the part of [`count`] the leaf parent's
/// passed-position count cannot take from its footprint.
#[inline(always)]
pub(crate) fn king_move_count<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u32 {
    let us = pos.colors(S::COLOR);
    let (to, castling_rooks) =
        king_moves::<C, S, false>(cpu, pos, pos.occupied(), us, pos.king(S::COLOR));
    to.len() + castling_rooks.len()
}

/// King moves and castling of side `S`: the legal king targets, and the
/// rooks it may castle with (never in check: `CHECK` skips castling).
///
/// Up to [`KING_LAZY_MAX`] squares are tested one by one; more, and one
/// enemy attack map serves them all. Every test removes our king from the
/// occupancy (the king cannot step back along a checking ray). Castling
/// rights are common but a castling path free of pieces is not, so the
/// common case tests only the king's targets, and a free path goes to
/// [`king_and_castling`], which tests the path squares with them.
#[inline(always)]
fn king_moves<C: Cpu, S: Side, const CHECK: bool>(
    cpu: C,
    pos: &Position,
    occ: Bitboard,
    us: Bitboard,
    king: Square,
) -> (Bitboard, Bitboard) {
    let occ = occ ^ king.bitboard();
    let candidates = king_attacks(king) & !us;
    let castle_rooks = pos.castle_rooks() & us;
    if !CHECK && castle_rooks.nonempty() {
        // At most two rights per colour (the FEN parser and `play` keep it
        // so): test the lowest and the highest rook without a loop.
        let (a, b) = (castle_rooks.lsb(), castle_rooks.msb());
        let free = |rook| (Position::castling_path(king, rook).0 & occ).is_empty();
        if free(a) | free(b) {
            return cpu.outlined(
                #[inline(always)]
                || king_and_castling::<C, S>(cpu, pos, king, candidates, castle_rooks, occ),
            );
        }
    }
    let legal = if candidates.len() > KING_LAZY_MAX {
        candidates & !enemy_attacks::<C, S>(cpu, pos, occ)
    } else {
        let mut legal = Bitboard::EMPTY;
        for sq in candidates {
            if !attacked_by_them::<C, S>(cpu, pos, sq, occ) {
                legal |= sq.bitboard();
            }
        }
        legal
    };
    (legal, Bitboard::EMPTY)
}

/// [`king_moves`] when one of the castling `rooks` has a path free of
/// pieces (the others are dropped here): the
/// king's targets and the squares the king crosses or lands on are tested
/// together (one by one up to [`KING_LAZY_MAX`], else with one attack map).
/// A Chess960 rook that is not on the a- or h-file may shield the king's
/// path, so those squares are also tested with the rook removed; a rook in
/// the corner has nothing beyond it on the rank. Out of line (through
/// [`Cpu::outlined`]).
#[inline(always)]
fn king_and_castling<C: Cpu, S: Side>(
    cpu: C,
    pos: &Position,
    king: Square,
    candidates: Bitboard,
    mut rooks: Bitboard,
    occ: Bitboard,
) -> (Bitboard, Bitboard) {
    let mut paths = Bitboard::EMPTY;
    for rook in rooks {
        let (must_be_empty, king_path) = Position::castling_path(king, rook);
        if (must_be_empty & occ).is_empty() {
            paths |= king_path;
        } else {
            rooks ^= rook.bitboard();
        }
    }
    let safe = if (candidates | paths).len() > KING_LAZY_MAX {
        (candidates | paths) & !enemy_attacks::<C, S>(cpu, pos, occ)
    } else {
        let mut safe = Bitboard::EMPTY;
        for sq in candidates | paths {
            if !attacked_by_them::<C, S>(cpu, pos, sq, occ) {
                safe |= sq.bitboard();
            }
        }
        safe
    };
    for rook in rooks {
        let (_, king_path) = Position::castling_path(king, rook);
        let shielding = (rook.bitboard() & EDGE_FILES).is_empty();
        let ok = (king_path & !safe).is_empty()
            && (!shielding
                || king_path
                    .into_iter()
                    .all(|sq| !attacked_by_them::<C, S>(cpu, pos, sq, occ ^ rook.bitboard())));
        if !ok {
            rooks ^= rook.bitboard();
        }
    }
    (candidates & safe, rooks)
}

/// The a- and h-files: a castling rook there has nothing beyond it on the
/// rank that it could shield the king's path from.
pub(crate) const EDGE_FILES: Bitboard = Bitboard(0x8181_8181_8181_8181);

/// Up to this many squares (king targets, plus castling paths when free)
/// are tested one by one; more, and the full enemy attack map is cheaper
/// (measured: see docs/performance.md, "Design alternatives measured").
const KING_LAZY_MAX: u32 = 2;

/// True if a piece of `S::Other` attacks `sq` given `occ`.
#[inline(always)]
fn attacked_by_them<C: Cpu, S: Side>(cpu: C, pos: &Position, sq: Square, occ: Bitboard) -> bool {
    let them = pos.colors(<S::Other as Side>::COLOR);
    ((knight_attacks(sq) & pos.pieces(Piece::Knight))
        | (pawn_attacks(S::COLOR, sq) & pos.pieces(Piece::Pawn))
        | (king_attacks(sq) & pos.pieces(Piece::King))
        | (cpu.bishop_attacks(sq, occ) & pos.diagonal_sliders())
        | (cpu.rook_attacks(sq, occ) & pos.orthogonal_sliders()))
        & them
        != Bitboard::EMPTY
}

impl Position {
    /// Calls `visit` with the legal moves of each piece; `visit` returns `true`
    /// to stop. Returns `true` if stopped early.
    pub fn generate_moves<F: FnMut(PieceMoves) -> bool>(&self, visit: F) -> bool {
        match self.side_to_move() {
            Color::White => generate::<Compiled, White, F>(Compiled, self, visit),
            Color::Black => generate::<Compiled, Black, F>(Compiled, self, visit),
        }
    }

    /// Number of legal moves (a promotion counts four), by popcount.
    pub fn count_moves(&self) -> u64 {
        match self.side_to_move() {
            Color::White => count::<Compiled, White>(Compiled, self),
            Color::Black => count::<Compiled, Black>(Compiled, self),
        }
    }

    /// All legal moves, generated on the CPU path `cpu` (a path this CPU
    /// lacks runs portable), with the move count by popcount on the same
    /// path. The same list and count as [`legal_moves`](Self::legal_moves)
    /// and [`count_moves`](Self::count_moves): for the tests that hold every
    /// compiled path to the reference generator.
    pub fn legal_moves_on(&self, cpu: CpuPath) -> (MoveList, u64) {
        struct Generate<'a>(&'a Position);
        impl CpuFn for Generate<'_> {
            type Output = (MoveList, u64);
            fn call<C: Cpu>(self, cpu: C) -> (MoveList, u64) {
                let pos = self.0;
                cpu.outlined(|| {
                    let mut list = MoveList::new();
                    let visit = |pm: PieceMoves| {
                        for mv in pm {
                            list.push(mv);
                        }
                        false
                    };
                    let n = match pos.side_to_move() {
                        Color::White => {
                            generate::<C, White, _>(cpu, pos, visit);
                            count::<C, White>(cpu, pos)
                        }
                        Color::Black => {
                            generate::<C, Black, _>(cpu, pos, visit);
                            count::<C, Black>(cpu, pos)
                        }
                    };
                    (list, n)
                })
            }
        }
        cpu.run(Generate(self))
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
