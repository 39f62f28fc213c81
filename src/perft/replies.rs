//! Leaf parents that hand their children's king safety and pins down.
//!
//! A leaf parent `P` (side `S` to move) makes each move and counts the
//! replies of side `O` in the child. Most of that count's cost is not in
//! `O`'s pieces but in two things every child recomputes (measured: without
//! them the plain loop ran 1.95x as fast over the deep CPW set):
//! * the pin and check scan from `O`'s king ([`NodeInfo::new`]);
//! * the king's legal targets: which squares next to `O`'s king (and on its
//!   free castling paths) `S` attacks.
//!
//! Both depend on few squares, and [`Replies::new`] finds them in `P`, once:
//! * the *watched* squares: `O`'s king's candidate targets and the king
//!   paths of its free castlings, and `S`'s attacks on them (with `O`'s
//!   king taken off, as the king-move test does);
//! * the origins that can change those attacks other than by the moved
//!   piece's own new ones: `S`'s pawns and king attacking a watched square,
//!   and a single piece between a watched square and an `S` slider behind
//!   it; and the targets that can: the squares between a watched square
//!   and the slider attacking it, the king's ring and the watched squares
//!   (plus the castling squares, both ways). A piece leaving the ring
//!   changes no attack but its own: the rays through its square are the
//!   blockers'. Measured against fixing those origins too (AMD Zen 5, 3
//!   rounds): `--plain` on the endings set 1.002x, endings-56 1.025x (a
//!   pawn next to `O`'s king promotes in 14 % of the children); the default
//!   build 1.007x on the endings set, 1.002x on the speed set;
//! * `S`'s sliders and knights attacking a watched square that do nothing
//!   else in that list (up to four, the *movers*), each with the watched
//!   squares it attacks: when one moves, the child's attacks on the watched
//!   squares are the others' plus its new ones. In queen endings `S`'s queen
//!   often attacks squares next to `O`'s king, and its children would
//!   otherwise build `S`'s whole attack map. Measured with `--plain`
//!   against leaving them to the child: 1.02x over eleven endings, 1.04-1.06x
//!   on those with queens; the speed set 0.96-1.04x per position;
//! * `O`'s pins, and the origins and targets that can change them or
//!   discover a check: `S`'s pinners, its pieces alone (or beside one of
//!   `O`'s) between `O`'s king and an `S` slider, the pin lines, and per
//!   slider kind the squares where it would pin; and the squares from which
//!   each kind of piece checks.
//!
//! A move outside the first set keeps the watched squares' attacks as in
//! `P`, plus what the moved piece attacks from its target; one outside the
//! second keeps `O`'s pins and gives at most a check by the moved piece.
//! Its child is counted with both parts of the [`KnownReplies`] given
//! ([`movegen::count_given`]), with one part given and the other found by
//! the child, or in full (and so is every en-passant capture and
//! castling). A promotion is tested as a piece of the promoted kind moved
//! from the pawn's square, except that its pins are the child's to find
//! when the pawn stood where a slider would pin (the new piece sees through
//! the square it left). The child is made either way: this is
//! the plain loop's copy-make and bulk count, with less to recompute per
//! child. The tests check every handed-down part against the child's own,
//! move by move.

use std::marker::PhantomData;

use crate::chess::attacks::{
    between, bishop_rays, king_attacks, knight_attacks, pawn_attacks, ring_lines, rook_rays,
};
use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::{self, EDGE_FILES, KnownReplies, MoveSink, NodeInfo, Side, attacks_by};
use crate::chess::moves::{PROMOTION_PIECES, PieceMoves};
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::chess::square::Square;
use crate::perft::children::for_each_child;
use crate::perft::leaf::count_leaves;

/// At most this many of `S`'s pieces attacking watched squares are
/// [`Replies::movers`]; more are left to the child.
const MAX_MOVERS: usize = 4;

/// What a leaf parent knows of its children's replies (see the module
/// documentation).
struct Replies {
    /// Origins of the moves that may change `S`'s attacks on the watched
    /// squares other than by the moved piece's own new attacks (the child
    /// then finds its king moves itself): the castling squares and the
    /// king paths, `S`'s pieces that attack a watched square and are not
    /// [`Replies::movers`], and the single pieces between a watched square
    /// and an `S` slider behind them.
    king_part_from: Bitboard,
    /// `S`'s pieces that attack a watched square and do nothing else that
    /// [`Replies::king_part_from`] stands for, with the watched squares each
    /// attacks (the first `movers_len` entries): moving one of them away
    /// leaves the others' attacks as they were, so the child's attacks are
    /// theirs plus the moved piece's new ones.
    movers: [(Bitboard, Bitboard); MAX_MOVERS],
    movers_len: usize,
    /// `S`'s attacks on the watched squares from its pawns, its king and the
    /// attackers left out of [`Replies::movers`] for want of room. (An
    /// attacker that is also in [`Replies::king_part_from`] keeps its
    /// entry in `movers` with the square emptied, so that its attacks count
    /// for every move.)
    stayers: Bitboard,
    /// The squares of the movers.
    mover_squares: Bitboard,
    /// Targets of such moves: the watched squares and the ring, and the
    /// squares between a watched square and the `S` slider attacking it.
    king_part_to: Bitboard,
    /// Origins of the moves that may change `O`'s pins or discover a check
    /// (the child then finds its checks and pins itself): pinners, our
    /// pieces alone or with one of `O`'s between `O`'s king and our slider,
    /// and our pawns about to promote where a slider would pin.
    pin_from: Bitboard,
    /// Targets of such moves: pinned pieces and the squares between them
    /// and the king or pinner.
    pin_to: Bitboard,
    /// Targets where a bishop (rook) would pin: on a diagonal (rank, file)
    /// from `O`'s king, beyond one of `O`'s pieces and up to the next piece.
    /// Left empty, like the checks below, for a kind of slider `S` neither
    /// has nor can promote to (no move reads them then).
    pin_to_diagonal: Bitboard,
    pin_to_orthogonal: Bitboard,
    /// `O`'s king.
    king: Square,
    /// Squares from which a bishop (rook) checks `O`'s king, as long as the
    /// moved piece was not in the way.
    diagonal_checks: Bitboard,
    orthogonal_checks: Bitboard,
    /// Our pieces first on a ray from `O`'s king (of a kind whose checks
    /// are looked up): moving one away opens the ray.
    first_ours: Bitboard,
    /// Squares watched for `S`'s attacks: `O`'s king's candidate targets and
    /// the king paths of its free castlings.
    watched: Bitboard,
    /// `S`'s attacks on the watched squares in `P` (without `O`'s king).
    attacked: Bitboard,
    /// Squares on a diagonal, and on a rank or file, with a watched square:
    /// a bishop (rook) landing elsewhere attacks none.
    diagonal_lines: Bitboard,
    orthogonal_lines: Bitboard,
    /// The occupancy of `P` without `O`'s king.
    occ_k: Bitboard,
    /// `O`'s king's candidate targets (next to it, not its own pieces).
    zone: Bitboard,
    /// Squares from which a pawn checks `O`'s king.
    pawn_checks: Bitboard,
    /// Squares from which a knight checks `O`'s king.
    knight_checks: Bitboard,
    /// `O`'s castling rooks whose path is free, with their king paths.
    castlings: [(Bitboard, Bitboard); 2],
    /// The child's replies after a move that adds no attack on a watched
    /// square and gives no check.
    quiet: KnownReplies,
}

impl Replies {
    /// The replies of side `S::Other` after `S`'s moves in `pos`; `None` when
    /// `O` may castle with a rook off the a- and h-files (Chess960: the rook
    /// may shield its king's path, which this does not follow).
    #[inline(always)]
    fn new<C: Cpu, S: Side>(cpu: C, pos: &Position) -> Option<Replies> {
        let o_color = <S::Other as Side>::COLOR;
        let ours = pos.colors(S::COLOR);
        let theirs = pos.colors(o_color);
        let king = pos.king(o_color);
        let occ = pos.occupied();
        let occ_k = occ ^ king.bitboard();
        let ring = king_attacks(king);
        let zone = ring & !theirs;

        let mut watched = zone;
        let mut fixed = ring;
        let mut castling_squares = Bitboard::EMPTY;
        let mut castlings = [(Bitboard::EMPTY, Bitboard::EMPTY); 2];
        let rooks = pos.castle_rooks() & theirs;
        if (rooks & !EDGE_FILES).nonempty() {
            return None;
        }
        for (i, rook) in rooks.enumerate() {
            let (must_be_empty, king_path) = Position::castling_path(king, rook);
            fixed |= must_be_empty | rook.bitboard();
            castling_squares |= must_be_empty;
            if (must_be_empty & occ_k).is_empty() {
                watched |= king_path;
                castlings[i & 1] = (rook.bitboard(), king_path);
            }
        }
        // A piece of ours leaving a square of the ring changes no attack on
        // a watched square but its own (the rays through it are the
        // blockers' below); one leaving a castling square may free a
        // castling. So the fixed origins are `fixed` less the ring, plus the
        // castling squares on it; the fixed targets are all of `fixed`.
        // (The same origins built without the ring in `fixed` ran the
        // default build's unchanged `Sparse` code 0.88-0.95x on five
        // endings, AMD Zen 5: code placement.)
        fixed |= watched;
        let (mut king_part_from, mut king_part_to) = (fixed & !ring | castling_squares, fixed);

        // S's attacks on the watched squares, piece by piece.
        let mut attacked = Bitboard::EMPTY;
        let mut movers = [(Bitboard::EMPTY, Bitboard::EMPTY); MAX_MOVERS];
        let mut movers_len = 0;
        let mut stayers = Bitboard::EMPTY;
        let mut attacker = |s: Square, hit: Bitboard| {
            attacked |= hit;
            if movers_len < MAX_MOVERS {
                movers[movers_len] = (s.bitboard(), hit);
                movers_len += 1;
            } else {
                king_part_from |= s.bitboard();
                stayers |= hit;
            }
        };
        let mut slider = |s: Square, a: Bitboard, through: Bitboard, blockers: &mut Bitboard| {
            let hit = a & watched;
            if hit.nonempty() {
                attacker(s, hit);
                for w in hit {
                    king_part_to |= between(s, w);
                }
            }
            for w in through & watched & !a {
                *blockers |= between(s, w) & occ_k;
            }
        };
        // A slider off every line through a watched square attacks none,
        // through a piece or not.
        let mut blockers = Bitboard::EMPTY;
        let (our_diagonal, our_orthogonal) = (
            pos.diagonal_sliders() & ours,
            pos.orthogonal_sliders() & ours,
        );
        for s in our_diagonal {
            if (bishop_rays(s) & watched).nonempty() {
                let a = cpu.bishop_attacks(s, occ_k);
                slider(s, a, cpu.bishop_attacks(s, occ_k & !a), &mut blockers);
            }
        }
        for s in our_orthogonal {
            if (rook_rays(s) & watched).nonempty() {
                let a = cpu.rook_attacks(s, occ_k);
                slider(s, a, cpu.rook_attacks(s, occ_k & !a), &mut blockers);
            }
        }
        for n in pos.pieces(Piece::Knight) & ours {
            let hit = knight_attacks(n) & watched;
            if hit.nonempty() {
                attacker(n, hit);
            }
        }
        // Pawns and the king are never movers: as movers, each measured no
        // faster with `--plain` over the endings set (the set-up costs
        // what their children save).
        let pawns = pos.pieces(Piece::Pawn) & ours;
        let our_king = pos.king(S::COLOR);
        let hit = king_attacks(our_king) & watched;
        let leaper_hits = (S::up_west(pawns) | S::up_east(pawns)) & watched | hit;
        attacked |= leaper_hits;
        stayers |= leaper_hits;
        king_part_from |=
            pawns & (<S::Other as Side>::up_west(watched) | <S::Other as Side>::up_east(watched));
        if hit.nonempty() {
            king_part_from |= our_king.bitboard();
        }
        debug_assert_eq!(attacked, attacks_by::<C, S>(cpu, pos, occ_k) & watched);
        // A piece that also opens a line to a watched square when it moves,
        // or stands on a square the king part depends on, is not a mover.
        king_part_from |= blockers;
        let mut mover_squares = Bitboard::EMPTY;
        for (square, _) in &mut movers[..movers_len] {
            if (*square & king_part_from).nonempty() {
                // Already marked: the store changes nothing, but without it
                // the compiler lays the leaf parent's code out otherwise:
                // the speed set's bins 17-24 and 25-32 ran 2.4-2.7 % slower
                // (AMD Zen 5, interleaved with the peers).
                king_part_from |= *square;
                *square = Bitboard::EMPTY;
            }
            mover_squares |= *square;
        }

        // The lines of the whole ring (a superset of the zone's: a lookup
        // that finds no watched square is only wasted), from a table, and
        // those of the castling paths' squares.
        let (mut diagonal_lines, mut orthogonal_lines) = ring_lines(king);
        for w in watched & !ring {
            diagonal_lines |= bishop_rays(w);
            orthogonal_lines |= rook_rays(w);
        }

        // O's pins, our pieces that would discover a check or a pin, and
        // where a slider of ours would pin.
        let mut pinned = Bitboard::EMPTY;
        let (mut pin_from, mut pin_to) = (Bitboard::EMPTY, Bitboard::EMPTY);
        let snipers = rook_rays(king) & our_orthogonal | bishop_rays(king) & our_diagonal;
        for sniper in snipers {
            let blockers = between(king, sniper) & occ;
            debug_assert!(blockers.nonempty(), "the side not to move is in check");
            if !blockers.has_many() {
                if (blockers & theirs).nonempty() {
                    pinned |= blockers;
                    pin_from |= sniper.bitboard();
                    pin_to |= between(king, sniper);
                } else {
                    pin_from |= blockers;
                }
            } else if blockers.len() == 2 {
                // Moving one of ours away leaves one piece between.
                pin_from |= blockers & ours;
            }
        }
        // The squares a slider of ours would check or pin from, needed only
        // for the moves of a slider of that kind, or a promotion: without
        // either (pawn and knight endings), not looked up.
        let promoting_pawns = pawns & S::RANK_7;
        let promoting = promoting_pawns.nonempty();
        let (rook_first, pin_to_orthogonal) = if promoting || our_orthogonal.nonempty() {
            let first = cpu.rook_attacks(king, occ);
            (
                first,
                cpu.rook_attacks(king, occ & !(first & theirs)) & !first,
            )
        } else {
            (Bitboard::EMPTY, Bitboard::EMPTY)
        };
        let (bishop_first, pin_to_diagonal) = if promoting || our_diagonal.nonempty() {
            let first = cpu.bishop_attacks(king, occ);
            (
                first,
                cpu.bishop_attacks(king, occ & !(first & theirs)) & !first,
            )
        } else {
            (Bitboard::EMPTY, Bitboard::EMPTY)
        };
        // A promoted slider also sees through the square its pawn left: a
        // pawn about to promote where a slider would pin may make a pin.
        pin_from |= promoting_pawns & (pin_to_diagonal | pin_to_orthogonal);
        let info = NodeInfo {
            checkers: Bitboard::EMPTY,
            check_mask: Bitboard::FULL,
            pinned,
        };
        debug_assert_eq!(info.pinned, NodeInfo::new::<S::Other>(pos).pinned);
        let mut replies = Replies {
            king_part_from,
            movers,
            movers_len,
            stayers,
            mover_squares,
            king_part_to,
            pin_from,
            pin_to,
            pin_to_diagonal,
            pin_to_orthogonal,
            king,
            diagonal_checks: bishop_first,
            orthogonal_checks: rook_first,
            first_ours: (bishop_first | rook_first) & ours,
            pawn_checks: pawn_attacks(o_color, king),
            watched,
            attacked,
            diagonal_lines,
            orthogonal_lines,
            occ_k,
            zone,
            knight_checks: knight_attacks(king),
            castlings,
            quiet: KnownReplies {
                info,
                king_to: Bitboard::EMPTY,
                castling_rooks: Bitboard::EMPTY,
            },
        };
        replies.quiet.king_to = zone & !attacked;
        replies.quiet.castling_rooks = replies.castling_rooks(attacked);
        Some(replies)
    }

    /// The castling rooks whose king path `attacked` spares.
    #[inline(always)]
    fn castling_rooks(&self, attacked: Bitboard) -> Bitboard {
        let mut rooks = Bitboard::EMPTY;
        for (rook, king_path) in self.castlings {
            if (king_path & attacked).is_empty() {
                rooks |= rook;
            }
        }
        rooks
    }

    /// The watched squares `piece` attacks from `to` after moving there
    /// from `from`.
    #[inline(always)]
    fn new_attacks<C: Cpu, S: Side>(
        &self,
        cpu: C,
        piece: Piece,
        from: Square,
        to: Square,
    ) -> Bitboard {
        let occ = (self.occ_k & !from.bitboard()) | to.bitboard();
        let diagonal = || {
            if self.diagonal_lines.contains(to) {
                cpu.bishop_attacks(to, occ)
            } else {
                Bitboard::EMPTY
            }
        };
        let orthogonal = || {
            if self.orthogonal_lines.contains(to) {
                cpu.rook_attacks(to, occ)
            } else {
                Bitboard::EMPTY
            }
        };
        self.watched
            & match piece {
                Piece::Pawn => pawn_attacks(S::COLOR, to),
                Piece::Knight => knight_attacks(to),
                Piece::Bishop => diagonal(),
                Piece::Rook => orthogonal(),
                Piece::Queen => diagonal() | orthogonal(),
                Piece::King => king_attacks(to),
            }
    }

    /// The targets of `piece` from `from` whose children keep the watched
    /// squares' attacks but for the moved piece's own.
    #[inline(always)]
    fn king_kept(&self, from: Square) -> Bitboard {
        if self.king_part_from.contains(from) {
            Bitboard::EMPTY
        } else {
            !self.king_part_to
        }
    }

    /// The child's replies after `piece` moves from `from` to `to`: with
    /// `KING` (the target in [`Replies::king_kept`]) its king targets and
    /// castling rooks, with `PINS` (in [`Replies::pins_kept`]) its checks
    /// and pins; the other parts are the child's to find.
    #[inline(always)]
    fn after<C: Cpu, S: Side, const KING: bool, const PINS: bool>(
        &self,
        cpu: C,
        piece: Piece,
        from: Square,
        to: Square,
    ) -> KnownReplies {
        let mut known = self.quiet;
        if KING {
            self.king_after::<C, S>(cpu, piece, from, to, &mut known);
        }
        if PINS {
            self.info_after(cpu, piece, from, to, &mut known);
        }
        known
    }

    /// The child's king targets and castling rooks after `piece` moves from
    /// `from` to `to` (in [`Replies::king_kept`]), into `known`.
    #[inline(always)]
    fn king_after<C: Cpu, S: Side>(
        &self,
        cpu: C,
        piece: Piece,
        from: Square,
        to: Square,
        known: &mut KnownReplies,
    ) {
        let added = self.new_attacks::<C, S>(cpu, piece, from, to);
        // Pawns and the king are never movers: for them (a constant at
        // their call sites) the test goes.
        if !matches!(piece, Piece::Pawn | Piece::King) && self.mover_squares.contains(from) {
            let from = from.bitboard();
            let mut attacked = added | self.stayers;
            for &(square, hit) in &self.movers[..self.movers_len] {
                if square != from {
                    attacked |= hit;
                }
            }
            known.king_to = self.zone & !attacked;
            known.castling_rooks = self.castling_rooks(attacked);
        } else if added.nonempty() {
            // A branch, not a select: computing the targets whether or not
            // the moved piece attacks a watched square made `--plain` 0.92x
            // as fast over the speed set and 0.95x over the endings set (AMD
            // Zen 5), presumably because each child's count then waits for
            // the piece's lookups, where a predicted branch lets it start.
            let attacked = self.attacked | added;
            known.king_to = self.zone & !attacked;
            known.castling_rooks = self.castling_rooks(attacked);
        }
    }

    /// The child's checkers and check mask after `piece` moves from `from`
    /// to `to` (a move that discovers no check and changes no pin), into
    /// `known`: the moved piece's check, if it gives one.
    #[inline(always)]
    fn info_after<C: Cpu>(
        &self,
        cpu: C,
        piece: Piece,
        from: Square,
        to: Square,
        known: &mut KnownReplies,
    ) {
        // The checks of P hold unless the moved piece left a ray of the king.
        let opened = self.first_ours.contains(from);
        let occ = (self.occ_k & !from.bitboard()) | to.bitboard();
        let diagonal = || {
            if opened {
                cpu.bishop_attacks(to, occ).contains(self.king)
            } else {
                self.diagonal_checks.contains(to)
            }
        };
        let orthogonal = || {
            if opened {
                cpu.rook_attacks(to, occ).contains(self.king)
            } else {
                self.orthogonal_checks.contains(to)
            }
        };
        let check = match piece {
            Piece::Pawn => self.pawn_checks.contains(to),
            Piece::Knight => self.knight_checks.contains(to),
            Piece::Bishop => diagonal(),
            Piece::Rook => orthogonal(),
            Piece::Queen => diagonal() || orthogonal(),
            Piece::King => false,
        };
        if check {
            known.info.checkers = to.bitboard();
            known.info.check_mask = between(self.king, to) | to.bitboard();
            known.castling_rooks = Bitboard::EMPTY;
        }
    }

    /// The targets of `piece` from `from` whose children keep `O`'s pins
    /// and get no discovered check.
    #[inline(always)]
    fn pins_kept(&self, piece: Piece, from: Square) -> Bitboard {
        if self.pin_from.contains(from) {
            return Bitboard::EMPTY;
        }
        !(self.pin_to
            | match piece {
                Piece::Bishop => self.pin_to_diagonal,
                Piece::Rook => self.pin_to_orthogonal,
                Piece::Queen => self.pin_to_diagonal | self.pin_to_orthogonal,
                _ => Bitboard::EMPTY,
            })
    }
}

/// Perft 2 of `pos` (side `S` to move) the plain way: every move made and
/// its child's replies bulk-counted, with the [`Replies`] handed down where
/// they hold.
#[inline(always)]
pub(crate) fn perft2_plain<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    let Some(replies) = Replies::new::<C, S>(cpu, pos) else {
        let mut nodes = 0;
        for_each_child::<C, S, false>(cpu, pos, |child| {
            nodes += count_leaves::<C, S::Other>(cpu, child);
        });
        return nodes;
    };
    let mut sink = Children::<C, S> {
        cpu,
        pos,
        replies: &replies,
        nodes: 0,
        side: PhantomData,
    };
    movegen::generate_into::<C, S, _>(cpu, pos, &mut sink);
    sink.nodes
}

/// The bulk count of a child with its replies given, inlined at each call
/// site (unlike [`count_leaves`]): the given replies then stay in
/// registers. Measured against the out-of-line call, with the other two
/// given counts below inlined as well, `--plain` ran 1.09-1.12x as fast
/// per bin of the speed set (docs/performance.md);
/// inlining the count with nothing given too was slower (0.95-1.01x).
#[inline(always)]
fn count_known<C: Cpu, S: Side>(cpu: C, pos: &Position, known: &KnownReplies) -> u64 {
    debug_assert_king_known::<C, S>(cpu, pos, known);
    debug_assert_info_known::<C, S>(cpu, pos, known);
    movegen::count_given::<C, S>(cpu, pos, known)
}

/// The bulk count of a child whose king moves are given (its checks and
/// pins found in it), inlined like [`count_known`].
#[inline(always)]
fn count_king_known<C: Cpu, S: Side>(cpu: C, pos: &Position, known: &KnownReplies) -> u64 {
    debug_assert_king_known::<C, S>(cpu, pos, known);
    movegen::count_with_king::<C, S>(cpu, pos, known.king_to, known.castling_rooks)
}

/// The bulk count of a child whose checks and pins are given (its king
/// moves found in it), inlined like [`count_known`].
#[inline(always)]
fn count_info_known<C: Cpu, S: Side>(cpu: C, pos: &Position, known: &KnownReplies) -> u64 {
    debug_assert_info_known::<C, S>(cpu, pos, known);
    movegen::count_with_info::<C, S>(cpu, pos, &known.info)
}

/// With debug assertions: the king targets handed down are the child's
/// own, and so are its castling rooks when it is not in check.
#[inline(always)]
fn debug_assert_king_known<C: Cpu, S: Side>(cpu: C, pos: &Position, known: &KnownReplies) {
    if cfg!(debug_assertions) {
        let own = KnownReplies::of::<C, S>(cpu, pos);
        assert_eq!(known.king_to, own.king_to, "king targets in {pos:?}");
        if own.info.checkers.is_empty() {
            assert_eq!(
                known.castling_rooks, own.castling_rooks,
                "castlings in {pos:?}"
            );
        }
    }
}

/// With debug assertions: the checks and pins handed down are the child's
/// own.
#[inline(always)]
fn debug_assert_info_known<C: Cpu, S: Side>(cpu: C, pos: &Position, known: &KnownReplies) {
    if cfg!(debug_assertions) {
        let own = KnownReplies::of::<C, S>(cpu, pos).info;
        assert_eq!(known.info.checkers, own.checkers, "checkers in {pos:?}");
        assert_eq!(known.info.pinned, own.pinned, "pins in {pos:?}");
        if own.checkers.nonempty() {
            assert_eq!(
                known.info.check_mask, own.check_mask,
                "check mask in {pos:?}"
            );
        }
    }
}

impl Replies {
    /// The leaves below the children of `piece` on `from` moving to each of
    /// `to` in `pos` (side `S` to move; normal moves, no promotion): each
    /// child made and counted with as much of its replies given as holds
    /// for it.
    #[inline(always)]
    fn count_moves<C: Cpu, S: Side>(
        &self,
        cpu: C,
        pos: &Position,
        piece: Piece,
        from: Square,
        to: Bitboard,
    ) -> u64 {
        let king_ok = self.king_kept(from);
        let pins_ok = self.pins_kept(piece, from);
        let make = |to| pos.make_normal::<C, S, false>(cpu, piece, from, to);
        let mut nodes = 0;
        for to in to & king_ok & pins_ok {
            let known = self.after::<C, S, true, true>(cpu, piece, from, to);
            nodes += count_known::<C, S::Other>(cpu, &make(to), &known);
        }
        for to in to & king_ok & !pins_ok {
            let known = self.after::<C, S, true, false>(cpu, piece, from, to);
            nodes += count_king_known::<C, S::Other>(cpu, &make(to), &known);
        }
        for to in to & !king_ok & pins_ok {
            let known = self.after::<C, S, false, true>(cpu, piece, from, to);
            nodes += count_info_known::<C, S::Other>(cpu, &make(to), &known);
        }
        for to in to & !king_ok & !pins_ok {
            nodes += count_leaves::<C, S::Other>(cpu, &make(to));
        }
        nodes
    }

    /// [`Replies::count_moves`] for one pawn move: `new` is the kind on
    /// `to` after it (the pawn, or the promoted kind). A promotion's piece
    /// attacks and checks as a piece of its kind moved there from `from`
    /// (the pawn's square is vacated either way), so the same tests hold;
    /// the pins it may make through that square are in `pin_from`.
    #[inline(always)]
    fn count_pawn_move<C: Cpu, S: Side>(
        &self,
        cpu: C,
        pos: &Position,
        from: Square,
        to: Square,
        new: Piece,
    ) -> u64 {
        let child = if new == Piece::Pawn {
            pos.make_normal::<C, S, false>(cpu, Piece::Pawn, from, to)
        } else {
            pos.make_promotion::<S, false>(from, to, new)
        };
        let king_ok = self.king_kept(from).contains(to);
        let pins_ok = self.pins_kept(new, from).contains(to);
        match (king_ok, pins_ok) {
            (true, true) => {
                let known = self.after::<C, S, true, true>(cpu, new, from, to);
                count_known::<C, S::Other>(cpu, &child, &known)
            }
            (true, false) => {
                let known = self.after::<C, S, true, false>(cpu, new, from, to);
                count_king_known::<C, S::Other>(cpu, &child, &known)
            }
            (false, true) => {
                let known = self.after::<C, S, false, true>(cpu, new, from, to);
                count_info_known::<C, S::Other>(cpu, &child, &known)
            }
            (false, false) => count_leaves::<C, S::Other>(cpu, &child),
        }
    }
}

/// The [`MoveSink`] of [`perft2_plain`].
struct Children<'a, C, S> {
    cpu: C,
    pos: &'a Position,
    replies: &'a Replies,
    nodes: u64,
    side: PhantomData<S>,
}

impl<C: Cpu, S: Side> MoveSink for Children<'_, C, S> {
    #[inline(always)]
    fn piece_moves(&mut self, piece: Piece, from: Square, to: Bitboard) -> bool {
        self.nodes += self
            .replies
            .count_moves::<C, S>(self.cpu, self.pos, piece, from, to);
        false
    }

    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, delta: i32, promotion: bool) -> bool {
        for to in to {
            let from = Square::from_index((to.index() as i32 - delta) as usize);
            if promotion {
                for piece in PROMOTION_PIECES {
                    self.nodes += self
                        .replies
                        .count_pawn_move::<C, S>(self.cpu, self.pos, from, to, piece);
                }
            } else {
                self.nodes +=
                    self.replies
                        .count_pawn_move::<C, S>(self.cpu, self.pos, from, to, Piece::Pawn);
            }
        }
        false
    }

    /// En passant and castling: the general make, counted in full.
    #[inline(always)]
    fn special(&mut self, moves: PieceMoves) -> bool {
        for mv in moves {
            let child = self.pos.play_piece(moves.piece, mv);
            self.nodes += count_leaves::<C, S::Other>(self.cpu, &child);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::cpu::{Compiled, Sparse};
    use crate::chess::movegen::{Black, White};
    use crate::chess::moves::MoveKind;
    use crate::chess::piece::Color;
    use crate::perft::leaf::tests::positions;

    /// Checks every move of `pos` (side `S` to move) but castling and en
    /// passant: the parts of the replies handed down to its child are the
    /// child's own (a promotion tested as the promoted kind moved from the
    /// pawn's square, as the plain loop does). Tallies the moves given both
    /// parts, the king part only, the checks and pins only, and neither;
    /// and the promotions given a part.
    fn check<C: Cpu, S: Side>(
        cpu: C,
        pos: &Position,
        tally: &mut [u64; 4],
        promotions_given: &mut u64,
    ) {
        let Some(replies) = Replies::new::<C, S>(cpu, pos) else {
            return;
        };
        for mv in pos.legal_moves().iter().copied() {
            if matches!(mv.kind(), MoveKind::Castling | MoveKind::EnPassant) {
                continue;
            }
            let piece = mv
                .promotion()
                .unwrap_or_else(|| pos.piece_on(mv.from()).unwrap().1);
            let (from, to) = (mv.from(), mv.to());
            let king_ok = replies.king_kept(from).contains(to);
            let pins_ok = replies.pins_kept(piece, from).contains(to);
            let known = replies.after::<C, S, true, true>(cpu, piece, from, to);
            let child = pos.play_unchecked(mv);
            let own = KnownReplies::of::<C, S::Other>(cpu, &child);
            let what = format!("{} after {}", pos.to_fen(), mv.to_uci(pos.is_chess960()));
            if king_ok {
                assert_eq!(known.king_to, own.king_to, "king targets: {what}");
                if own.info.checkers.is_empty() {
                    assert_eq!(
                        known.castling_rooks, own.castling_rooks,
                        "castlings: {what}"
                    );
                }
            }
            if pins_ok {
                assert_eq!(known.info.checkers, own.info.checkers, "checkers: {what}");
                assert_eq!(known.info.pinned, own.info.pinned, "pins: {what}");
                if own.info.checkers.nonempty() {
                    assert_eq!(known.info.check_mask, own.info.check_mask, "mask: {what}");
                }
            }
            tally[usize::from(!king_ok) * 2 + usize::from(!pins_ok)] += 1;
            if mv.promotion().is_some() && (king_ok || pins_ok) {
                *promotions_given += 1;
            }
        }
    }

    /// What the leaf parents hand down is what each child would find
    /// itself, move by move, over the suites' positions and random play
    /// from them (Chess960 castling, pins, checks and en passant included);
    /// and every way of handing down occurs. On the default path and on the
    /// `Sparse` one (the same code, compiled apart).
    #[test]
    fn the_replies_handed_down_are_the_childs_own() {
        fn all<C: Cpu>(cpu: C) {
            let (mut tally, mut promotions) = ([0; 4], 0);
            for pos in positions() {
                match pos.side_to_move() {
                    Color::White => check::<C, White>(cpu, &pos, &mut tally, &mut promotions),
                    Color::Black => check::<C, Black>(cpu, &pos, &mut tally, &mut promotions),
                }
            }
            assert!(tally.iter().all(|&n| n > 100), "{tally:?}");
            assert!(promotions > 20, "promotions given a part: {promotions}");
        }
        all(Compiled);
        all(Sparse(Compiled));
    }

    /// A pawn standing beyond a piece of `O`'s on a line from `O`'s king
    /// (c7, beyond the bishop on c5) promotes to a slider that pins that
    /// piece through the square the pawn left: the child must find its pins
    /// itself. Checked part by part, and by the plain count one ply above
    /// against Stockfish's.
    #[test]
    fn a_promoted_slider_pins_through_the_square_its_pawn_left() {
        let pos = Position::from_fen("K7/P1P5/8/1pbP4/2k5/8/8/8 w - - 0 1").unwrap();
        let (mut tally, mut promotions) = ([0; 4], 0);
        check::<Compiled, White>(Compiled, &pos, &mut tally, &mut promotions);
        check::<Sparse<Compiled>, White>(Sparse(Compiled), &pos, &mut tally, &mut promotions);
        let replies = Replies::new::<Compiled, White>(Compiled, &pos).unwrap();
        for new in [Piece::Queen, Piece::Rook] {
            assert!(!replies.pins_kept(new, Square::C7).contains(Square::C8));
        }
        let above = Position::from_fen("K7/P1P5/8/1p1P4/2k5/8/8/6b1 b - - 0 1").unwrap();
        assert_eq!(crate::perft::perft_plain(&above, 3), 1387);
    }
}
