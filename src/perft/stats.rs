//! Perft statistics: the published breakdown of the leaves (captures, en
//! passant, castles, promotions, checks, discovered checks, double checks,
//! checkmates), as in the Chess Programming Wiki's "Perft Results" tables.
//!
//! Every figure counts *leaf moves*: the moves of the last ply, each leaf
//! once (a promotion is four leaves, one per piece). With `M` the leaf
//! move, `P` the position it is played in and `C` the position it reaches:
//!
//! * `captures`: `M` removes an enemy piece (en passant included, and a
//!   capturing promotion counts here too);
//! * `en_passant`: `M` is an en-passant capture;
//! * `castles`: `M` is castling (standard or Chess960);
//! * `promotions`: `M` is a promotion (four per promoting pawn move);
//! * `checks`: the side to move in `C` is in check (checkmates included);
//! * `checkmates`: a check in `C` with no legal reply;
//! * `discovered_checks`: a check that is not a checkmate, given by one
//!   piece that is not the moved piece (for castling the moved piece is the
//!   rook; for en passant, the pawn on its target square);
//! * `double_checks`: a check by two pieces that is not a checkmate.
//!
//! Checkmates are left out of the last two because the published tables
//! leave them out: Kiwipete at depth 5 has 2,645 double checks, 8 of them
//! checkmates, and the table gives 2,637; the start position's rows match
//! a published split of the non-mating checks (direct, discovered, direct
//! and discovered, double discovered), where a double discovered check
//! counts as a double check only. See `docs/stats.md`.
//!
//! # How it stays fast
//!
//! Bulk counting stops at the leaf parents; so does the classification: the
//! leaf moves are classified from the target sets the generator hands out,
//! without making them. Per leaf parent `P` (side `S` to move, enemy king on
//! `k`) it computes once:
//!
//! * the *check squares* of each piece kind: the squares from which a piece
//!   of that kind attacks `k` (a knight's are `knight_attacks(k)`, a rook's
//!   `rook_attacks(k, occupied)`, ...). A normal move of that piece gives a
//!   direct check exactly when it lands on one. Vacating the origin never
//!   opens a line for the moved piece itself: a slider that moves away from
//!   `k` along a line already attacked `k` along it, which no legal `P` has;
//! * the *discovery candidates*: our pieces that are the only piece between
//!   one of our sliders and `k`. A candidate that leaves the line through
//!   `k` and itself gives a discovered check.
//!
//! So captures are `popcount(targets & enemy)`, checks
//! `popcount(targets & check squares)` plus the candidates' moves off their
//! line. The rare moves whose effect on the lines is irregular are made and
//! their child examined exactly: promotions (the pawn leaving its square can
//! open a line for the new piece: `b7b8q` checks a king on `b6`), en passant
//! (the captured pawn leaves a line too) and castling (the rook may check,
//! and in Chess960 the king may uncover one). Checkmates: only checking
//! moves are made, and the child is asked for one legal reply.

use std::ops::{Add, AddAssign};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::chess::attacks::{
    between, bishop_attacks, bishop_rays, knight_attacks, line, pawn_attacks, rook_attacks,
    rook_rays,
};
use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Compiled;
use crate::chess::movegen::{self, Black, MoveSink, Side, White};
use crate::chess::moves::{Move, MoveKind, PROMOTION_PIECES, PieceMoves};
use crate::chess::piece::{Color, Piece};
use crate::chess::position::Position;
use crate::chess::square::Square;
use crate::perft::children::for_each_child;
use crate::perft::count::{Control, Perft};

/// The breakdown of the leaves of a perft (see the module notes for the
/// exact definitions). `nodes` is the perft count itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LeafStats {
    /// Leaves (the perft count).
    pub nodes: u64,
    /// Leaf moves that capture (en passant included).
    pub captures: u64,
    /// Leaf moves that capture en passant.
    pub en_passant: u64,
    /// Leaf moves that castle.
    pub castles: u64,
    /// Leaf moves that promote (four per promoting pawn move).
    pub promotions: u64,
    /// Leaves whose side to move is in check (checkmates included).
    pub checks: u64,
    /// Checks, not checkmates, by one piece that is not the moved piece.
    pub discovered_checks: u64,
    /// Checks, not checkmates, by two pieces.
    pub double_checks: u64,
    /// Checks with no legal reply.
    pub checkmates: u64,
}

/// One figure of a [`LeafStats`] besides `nodes`, in the published column
/// order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StatField {
    /// [`LeafStats::captures`].
    Captures,
    /// [`LeafStats::en_passant`].
    EnPassant,
    /// [`LeafStats::castles`].
    Castles,
    /// [`LeafStats::promotions`].
    Promotions,
    /// [`LeafStats::checks`].
    Checks,
    /// [`LeafStats::discovered_checks`].
    DiscoveredChecks,
    /// [`LeafStats::double_checks`].
    DoubleChecks,
    /// [`LeafStats::checkmates`].
    Checkmates,
}

impl StatField {
    /// Every figure, in the published column order.
    pub const ALL: [StatField; 8] = [
        StatField::Captures,
        StatField::EnPassant,
        StatField::Castles,
        StatField::Promotions,
        StatField::Checks,
        StatField::DiscoveredChecks,
        StatField::DoubleChecks,
        StatField::Checkmates,
    ];

    /// The field name (as in [`LeafStats`] and the JSON reports).
    pub const fn name(self) -> &'static str {
        match self {
            StatField::Captures => "captures",
            StatField::EnPassant => "en_passant",
            StatField::Castles => "castles",
            StatField::Promotions => "promotions",
            StatField::Checks => "checks",
            StatField::DiscoveredChecks => "discovered_checks",
            StatField::DoubleChecks => "double_checks",
            StatField::Checkmates => "checkmates",
        }
    }

    /// The column heading of the published tables.
    pub const fn heading(self) -> &'static str {
        match self {
            StatField::Captures => "Captures",
            StatField::EnPassant => "E.p.",
            StatField::Castles => "Castles",
            StatField::Promotions => "Promotions",
            StatField::Checks => "Checks",
            StatField::DiscoveredChecks => "Discovery Checks",
            StatField::DoubleChecks => "Double Checks",
            StatField::Checkmates => "Checkmates",
        }
    }

    /// This figure of `stats`.
    pub const fn of(self, stats: &LeafStats) -> u64 {
        match self {
            StatField::Captures => stats.captures,
            StatField::EnPassant => stats.en_passant,
            StatField::Castles => stats.castles,
            StatField::Promotions => stats.promotions,
            StatField::Checks => stats.checks,
            StatField::DiscoveredChecks => stats.discovered_checks,
            StatField::DoubleChecks => stats.double_checks,
            StatField::Checkmates => stats.checkmates,
        }
    }
}

impl AddAssign for LeafStats {
    #[inline(always)]
    fn add_assign(&mut self, o: LeafStats) {
        self.nodes += o.nodes;
        self.captures += o.captures;
        self.en_passant += o.en_passant;
        self.castles += o.castles;
        self.promotions += o.promotions;
        self.checks += o.checks;
        self.discovered_checks += o.discovered_checks;
        self.double_checks += o.double_checks;
        self.checkmates += o.checkmates;
    }
}

impl Add for LeafStats {
    type Output = LeafStats;
    fn add(mut self, o: LeafStats) -> LeafStats {
        self += o;
        self
    }
}

impl std::iter::Sum for LeafStats {
    fn sum<I: Iterator<Item = LeafStats>>(iter: I) -> LeafStats {
        iter.fold(LeafStats::default(), Add::add)
    }
}

/// Serial perft with the leaf breakdown. Depth 0 is the position itself:
/// one node, reached by no move, so every other figure is 0.
///
/// ```
/// use perft::{KIWIPETE, Position, perft_stats};
///
/// // Chess Programming Wiki, "Perft Results", Kiwipete depth 3.
/// let s = perft_stats(&Position::from_fen(KIWIPETE)?, 3);
/// assert_eq!((s.nodes, s.captures, s.en_passant), (97_862, 17_102, 45));
/// assert_eq!((s.castles, s.checks, s.checkmates), (3_162, 993, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn perft_stats(pos: &Position, depth: u32) -> LeafStats {
    let mut acc = LeafStats::default();
    match pos.side_to_move() {
        Color::White => stats_side::<White>(pos, depth, &mut acc),
        Color::Black => stats_side::<Black>(pos, depth, &mut acc),
    }
    acc
}

/// The breakdown of the single leaf reached by `mv` (legal in `pos`): the
/// root move's own figures in a depth-1 divide. Made and examined exactly.
pub fn move_stats(pos: &Position, mv: Move) -> LeafStats {
    let mut acc = LeafStats::default();
    let piece = pos.piece_on(mv.from()).map_or(Piece::Pawn, |(_, p)| p);
    match pos.side_to_move() {
        Color::White => classify_made::<White>(pos, piece, mv, &mut acc),
        Color::Black => classify_made::<Black>(pos, piece, mv, &mut acc),
    }
    acc
}

/// Adds the breakdown below `pos` (side `S` to move) at `depth` to `acc`.
fn stats_side<S: Side>(pos: &Position, depth: u32, acc: &mut LeafStats) {
    match depth {
        0 => acc.nodes += 1,
        1 => classify_leaves::<S>(pos, acc),
        _ => for_each_child::<Compiled, S, false>(Compiled, pos, |child| {
            stats_side::<S::Other>(child, depth - 1, acc);
        }),
    }
}

/// Classifies the legal moves of the leaf parent `pos` (side `S` to move).
#[inline(never)]
fn classify_leaves<S: Side>(pos: &Position, acc: &mut LeafStats) {
    let mut sink = Classifier::<S>::new(pos, acc);
    movegen::generate_into::<Compiled, S, _>(Compiled, pos, &mut sink);
}

/// True if side `S` has a legal move in `pos`.
#[inline(always)]
fn has_move<S: Side>(pos: &Position) -> bool {
    movegen::generate_into::<Compiled, S, _>(Compiled, pos, &mut AnyMove)
}

/// A sink that stops at the first legal move.
struct AnyMove;

impl MoveSink for AnyMove {
    #[inline(always)]
    fn piece_moves(&mut self, _: Piece, _: Square, to: Bitboard) -> bool {
        to.nonempty()
    }
    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, _: i32, _: bool) -> bool {
        to.nonempty()
    }
    #[inline(always)]
    fn special(&mut self, moves: PieceMoves) -> bool {
        moves.to.nonempty()
    }
}

/// Pieces of side `S` attacking `sq` in `pos` (exact, every piece kind).
#[inline(always)]
fn attackers_by<S: Side>(pos: &Position, sq: Square) -> Bitboard {
    pos.attackers_to(sq, pos.occupied()) & pos.colors(S::COLOR)
}

/// Classifies the leaf move `mv` of `piece` by making it (side `S` moves).
#[inline(never)]
fn classify_made<S: Side>(pos: &Position, piece: Piece, mv: Move, acc: &mut LeafStats) {
    let child = pos.play_piece(piece, mv);
    let enemy_king = pos.king(<S::Other as Side>::COLOR);
    acc.nodes += 1;
    let moved = match mv.kind() {
        MoveKind::Normal => {
            acc.captures += u64::from(pos.colors(<S::Other as Side>::COLOR).contains(mv.to()));
            mv.to()
        }
        MoveKind::Promotion => {
            acc.captures += u64::from(pos.colors(<S::Other as Side>::COLOR).contains(mv.to()));
            acc.promotions += 1;
            mv.to()
        }
        MoveKind::EnPassant => {
            acc.captures += 1;
            acc.en_passant += 1;
            mv.to()
        }
        MoveKind::Castling => {
            acc.castles += 1;
            mv.castling_rook_target()
        }
    };
    let checkers = attackers_by::<S>(&child, enemy_king);
    if checkers.nonempty() {
        acc.checks += 1;
        if !has_move::<S::Other>(&child) {
            acc.checkmates += 1;
        } else if checkers.has_many() {
            acc.double_checks += 1;
        } else if !checkers.contains(moved) {
            acc.discovered_checks += 1;
        }
    }
}

// `Classifier::check_squares` is indexed by `Piece::index` in this order.
const _: () = assert!(
    Piece::Pawn.index() == 0
        && Piece::Knight.index() == 1
        && Piece::Bishop.index() == 2
        && Piece::Rook.index() == 3
        && Piece::Queen.index() == 4
        && Piece::King.index() == 5
);

/// The [`MoveSink`] that classifies the moves of a leaf parent from their
/// target sets (see the module notes).
struct Classifier<'a, S: Side> {
    pos: &'a Position,
    acc: &'a mut LeafStats,
    them: Bitboard,
    enemy_king: Square,
    /// Check squares per piece kind ([`Piece::index`]; the king's is empty).
    check_squares: [Bitboard; 6],
    /// Our pieces that alone block one of our sliders' lines to the enemy king.
    candidates: Bitboard,
    side: std::marker::PhantomData<S>,
}

impl<'a, S: Side> Classifier<'a, S> {
    #[inline(always)]
    fn new(pos: &'a Position, acc: &'a mut LeafStats) -> Self {
        let us = pos.colors(S::COLOR);
        let them = pos.colors(<S::Other as Side>::COLOR);
        let occ = us | them;
        let k = pos.king(<S::Other as Side>::COLOR);
        let diagonal = bishop_attacks(k, occ);
        let orthogonal = rook_attacks(k, occ);
        let check_squares = [
            pawn_attacks(<S::Other as Side>::COLOR, k),
            knight_attacks(k),
            diagonal,
            orthogonal,
            diagonal | orthogonal,
            Bitboard::EMPTY,
        ];
        // Our first piece on each line from the enemy king, if one of our
        // sliders of the right kind stands right behind it.
        let mut candidates = Bitboard::EMPTY;
        let snipers = (rook_rays(k) & pos.orthogonal_sliders()
            | bishop_rays(k) & pos.diagonal_sliders())
            & us;
        for sniper in snipers {
            let blockers = between(k, sniper) & occ;
            if !blockers.has_many() {
                candidates |= blockers & us;
            }
        }
        Classifier {
            pos,
            acc,
            them,
            enemy_king: k,
            check_squares,
            candidates,
            side: std::marker::PhantomData,
        }
    }

    /// Records the checking moves among a group's targets: `direct` ones
    /// land on a check square, `uncovered` ones leave a discovery line;
    /// `make` builds the child of a target for the checkmate test.
    #[inline(always)]
    fn record_checks(
        &mut self,
        direct: Bitboard,
        uncovered: Bitboard,
        make: impl Fn(Square) -> Position,
    ) {
        let checking = direct | uncovered;
        if checking.is_empty() {
            return;
        }
        self.acc.checks += u64::from(checking.len());
        for to in checking {
            if !has_move::<S::Other>(&make(to)) {
                self.acc.checkmates += 1;
            } else if uncovered.contains(to) {
                // One line uncovered: a double check if the moved piece
                // checks too, else a discovered one.
                if direct.contains(to) {
                    self.acc.double_checks += 1;
                } else {
                    self.acc.discovered_checks += 1;
                }
            }
        }
    }
}

impl<S: Side> MoveSink for Classifier<'_, S> {
    #[inline(always)]
    fn piece_moves(&mut self, piece: Piece, from: Square, to: Bitboard) -> bool {
        self.acc.nodes += u64::from(to.len());
        self.acc.captures += u64::from((to & self.them).len());
        let direct = to & self.check_squares[piece.index()];
        let uncovered = if self.candidates.contains(from) {
            to & !line(self.enemy_king, from)
        } else {
            Bitboard::EMPTY
        };
        let pos = self.pos;
        self.record_checks(direct, uncovered, |to| {
            pos.make_normal::<Compiled, S, false>(Compiled, piece, from, to)
        });
        false
    }

    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, delta: i32, promotion: bool) -> bool {
        if promotion {
            // Rare: each made and examined exactly.
            for t in to {
                let from = Square::from_index((t.index() as i32 - delta) as usize);
                for piece in PROMOTION_PIECES {
                    let mv = Move::new(from, t, MoveKind::Promotion, piece);
                    classify_made::<S>(self.pos, Piece::Pawn, mv, self.acc);
                }
            }
            return false;
        }
        self.acc.nodes += u64::from(to.len());
        self.acc.captures += u64::from((to & self.them).len());
        let direct = to & self.check_squares[Piece::Pawn.index()];
        // Targets whose origin is a discovery candidate (shifted onto them).
        let from_candidates = if delta > 0 {
            Bitboard(self.candidates.0 << delta)
        } else {
            Bitboard(self.candidates.0 >> -delta)
        } & to;
        let mut uncovered = Bitboard::EMPTY;
        for t in from_candidates {
            let from = Square::from_index((t.index() as i32 - delta) as usize);
            if !line(self.enemy_king, from).contains(t) {
                uncovered |= t.bitboard();
            }
        }
        let pos = self.pos;
        self.record_checks(direct, uncovered, |t| {
            let from = Square::from_index((t.index() as i32 - delta) as usize);
            pos.make_normal::<Compiled, S, false>(Compiled, Piece::Pawn, from, t)
        });
        false
    }

    /// En passant and castling: made and examined exactly.
    #[inline(always)]
    fn special(&mut self, moves: PieceMoves) -> bool {
        for mv in moves {
            classify_made::<S>(self.pos, moves.piece, mv, self.acc);
        }
        false
    }
}

/// Result of [`Perft::divide_stats`].
#[derive(Clone, Debug)]
pub struct StatsOutcome {
    /// `(move, breakdown of the leaves below it)` for every root move that
    /// finished, in generation order. At depth 1 a root move's breakdown is
    /// its own (one leaf).
    pub moves: Vec<(Move, LeafStats)>,
    /// Number of legal root moves.
    pub root_moves: usize,
    /// Sum of `moves` (the whole breakdown when `complete`).
    pub total: LeafStats,
    /// False when the run was stopped before every root move finished.
    pub complete: bool,
}

/// The parallel recursion: subtrees with at least `split_depth` plies left
/// are split into tasks; below, [`stats_side`] runs serially.
fn parallel_stats<S: Side>(
    pos: &Position,
    depth: u32,
    split_depth: u32,
    stop: &AtomicBool,
) -> Option<LeafStats> {
    if depth < split_depth.max(2) {
        let mut acc = LeafStats::default();
        stats_side::<S>(pos, depth, &mut acc);
        return Some(acc);
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut children = Vec::with_capacity(64);
    for_each_child::<Compiled, S, false>(Compiled, pos, |child| children.push(*child));
    children
        .par_iter()
        .map(|child| parallel_stats::<S::Other>(child, depth - 1, split_depth, stop))
        .try_reduce(LeafStats::default, |a, b| Some(a + b))
}

impl Perft {
    /// Perft with the leaf breakdown, on the driver's threads (not
    /// interruptible). The perft table is not used: it stores counts only.
    pub fn count_stats(&self, pos: &Position, depth: u32) -> LeafStats {
        if depth == 0 {
            return perft_stats(pos, 0);
        }
        self.divide_stats(pos, depth, Control::default()).total
    }

    /// Per-root-move breakdowns, like [`Perft::divide`]: root moves run in
    /// parallel, each reported to `control.on_root_move` (with its node
    /// count) as it finishes; `control.stop` ends the run early. The perft
    /// table is not used.
    pub fn divide_stats(&self, pos: &Position, depth: u32, control: Control<'_>) -> StatsOutcome {
        let never = AtomicBool::new(false);
        let stop = control.stop.unwrap_or(&never);
        let moves: Vec<Move> = if depth == 0 {
            Vec::new()
        } else {
            pos.legal_moves().iter().copied().collect()
        };
        let split_depth = self.config().split_depth;
        let one = |mv: Move| {
            let stats = if depth == 1 {
                move_stats(pos, mv)
            } else {
                let child = pos.play_unchecked(mv);
                match child.side_to_move() {
                    Color::White => parallel_stats::<White>(&child, depth - 1, split_depth, stop),
                    Color::Black => parallel_stats::<Black>(&child, depth - 1, split_depth, stop),
                }?
            };
            if let Some(cb) = control.on_root_move {
                cb(mv, u128::from(stats.nodes));
            }
            Some((mv, stats))
        };
        let results: Vec<Option<(Move, LeafStats)>> =
            self.install(|| moves.par_iter().map(|&mv| one(mv)).collect());
        let complete = results.iter().all(Option::is_some) && !stop.load(Ordering::Relaxed);
        let moves_done: Vec<(Move, LeafStats)> = results.into_iter().flatten().collect();
        StatsOutcome {
            total: moves_done.iter().map(|&(_, s)| s).sum(),
            moves: moves_done,
            root_moves: moves.len(),
            complete,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kiwipete_depth_three_is_the_published_row() {
        // Chess Programming Wiki, "Perft Results", position 2, depth 3.
        let pos = Position::from_fen(crate::chess::fen::KIWIPETE).unwrap();
        let s = perft_stats(&pos, 3);
        assert_eq!(
            s,
            LeafStats {
                nodes: 97_862,
                captures: 17_102,
                en_passant: 45,
                castles: 3_162,
                promotions: 0,
                checks: 993,
                discovered_checks: 0,
                double_checks: 0,
                checkmates: 1,
            }
        );
    }

    #[test]
    fn a_promotion_uncovering_its_own_line_checks() {
        // b7b8q/b7b8r: the new piece sees the king on b6 through b7, which
        // the pawn just left (the case the check squares cannot see).
        let pos = Position::from_fen("8/1P6/1k6/8/8/8/8/K7 w - - 0 1").unwrap();
        let s = perft_stats(&pos, 1);
        assert_eq!(s.promotions, 4);
        assert_eq!(s.checks, 2, "{s:?}");
        assert_eq!(s.discovered_checks, 0);
    }
}
