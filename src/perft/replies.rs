//! Leaf parents that hand their children's king safety and pins down.
//!
//! A leaf parent `P` (side `S` to move) makes each move and counts the
//! replies of side `O` in the child. Most of that count's cost is not in
//! `O`'s pieces but in two things every child recomputes (measured: without
//! them the plain loop ran 1.95x as fast over issue 10's deep set):
//! * the pin and check scan from `O`'s king ([`NodeInfo::new`]);
//! * the king's legal targets: which squares next to `O`'s king (and on its
//!   free castling paths) `S` attacks.
//!
//! Both depend on few squares, and [`Replies::new`] finds them in `P`, once:
//! * the *watched* squares: `O`'s king's targets and free castling paths;
//! * every square a slider's ray reaches from a watched square (with `O`'s
//!   king taken off, as the king-move test does): only a piece leaving or
//!   entering one of these can change which watched squares a slider
//!   attacks, and a pawn or king attacks only squares it sees this way;
//! * `S`'s knights that attack a watched square;
//! * from `O`'s king, each ray up to its second piece: only a piece leaving
//!   or entering one of these can give a slider check, discover one, or make
//!   or break a pin; and the knight checks.
//!
//! A move whose origin and target are both outside that set (its
//! [`Replies::seen`]) leaves `O`'s pins as they were in `P`, gives no check
//! but a knight's, and changes the attacks on the watched squares only by
//! what a knight adds from its target. Its child is counted with the
//! [`KnownReplies`] given ([`movegen::count_given`]); every other move (and
//! every promotion, en-passant capture and castling) is counted in full.
//! The child is made either way: this is the plain loop's copy-make and bulk
//! count, with less to recompute per child.

use std::marker::PhantomData;

use crate::chess::attacks::{king_attacks, knight_attacks};
use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::{self, EDGE_FILES, KnownReplies, MoveSink, NodeInfo, Side, attacks_by};
use crate::chess::moves::{PROMOTION_PIECES, PieceMoves};
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::chess::square::Square;
use crate::perft::leaf::count_leaves;

/// What a leaf parent knows of its children's replies (see the module
/// documentation).
pub(crate) struct Replies {
    /// Origins and targets of the moves that may change `S`'s attacks on
    /// the watched squares: the child finds its king moves itself.
    king_seen: Bitboard,
    /// Origins and targets of the moves that may change `O`'s checks and
    /// pins: the child finds them itself.
    pin_seen: Bitboard,
    /// Squares watched for `S`'s attacks: `O`'s king's candidate targets and
    /// the king paths of its free castlings.
    watched: Bitboard,
    /// `S`'s attacks on the watched squares in `P` (without `O`'s king).
    attacked: Bitboard,
    /// `O`'s king's candidate targets (next to it, not its own pieces).
    zone: Bitboard,
    /// Squares from which a knight checks `O`'s king.
    knight_checks: Bitboard,
    /// `O`'s castling rooks whose path is free, with their king paths.
    castlings: [(Bitboard, Bitboard); 2],
    /// The child's replies after a move that is not a knight's.
    quiet: KnownReplies,
}

impl Replies {
    /// The replies of side `S::Other` after `S`'s moves in `pos`; `None` when
    /// `O` may castle with a rook off the a- and h-files (Chess960: the rook
    /// may shield its king's path, which this does not follow).
    #[inline(always)]
    pub(crate) fn new<C: Cpu, S: Side>(cpu: C, pos: &Position) -> Option<Replies> {
        let o_color = <S::Other as Side>::COLOR;
        let ours = pos.colors(S::COLOR);
        let theirs = pos.colors(o_color);
        let king = pos.king(o_color);
        let occ = pos.occupied();
        let occ_k = occ ^ king.bitboard();
        let ring = king_attacks(king);
        let zone = ring & !theirs;

        let mut seen = ring;
        let mut pin_seen = ring;
        let mut watched = zone;
        let mut castlings = [(Bitboard::EMPTY, Bitboard::EMPTY); 2];
        let rooks = pos.castle_rooks() & theirs;
        if (rooks & !EDGE_FILES).nonempty() {
            return None;
        }
        for (i, rook) in rooks.enumerate() {
            let (must_be_empty, king_path) = Position::castling_path(king, rook);
            seen |= must_be_empty | rook.bitboard();
            if (must_be_empty & occ_k).is_empty() {
                watched |= king_path;
                castlings[i & 1] = (rook.bitboard(), king_path);
            }
        }

        let attacked = attacks_by::<C, S>(cpu, pos, occ_k) & watched;
        let mut knight_reach = Bitboard::EMPTY;
        for w in watched {
            seen |= cpu.bishop_attacks(w, occ_k) | cpu.rook_attacks(w, occ_k);
            knight_reach |= knight_attacks(w);
        }
        seen |= watched | knight_reach & pos.pieces(Piece::Knight) & ours;
        // Each ray from O's king up to its second piece.
        let rook_first = cpu.rook_attacks(king, occ);
        let bishop_first = cpu.bishop_attacks(king, occ);
        pin_seen |= rook_first
            | cpu.rook_attacks(king, occ & !rook_first)
            | bishop_first
            | cpu.bishop_attacks(king, occ & !bishop_first);

        let info = NodeInfo::new::<S::Other>(pos);
        debug_assert!(info.checkers.is_empty(), "the side not to move is in check");
        let mut replies = Replies {
            king_seen: seen,
            pin_seen,
            watched,
            attacked,
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

    /// The child's replies after a knight lands on `to` (origin and target
    /// outside [`Replies::seen`]).
    #[inline(always)]
    fn after_knight(&self, to: Square) -> KnownReplies {
        let attacked = self.attacked | knight_attacks(to) & self.watched;
        let mut known = self.quiet;
        known.king_to = self.zone & !attacked;
        if self.knight_checks.contains(to) {
            known.info.checkers = to.bitboard();
            known.info.check_mask = to.bitboard();
            known.castling_rooks = Bitboard::EMPTY;
        } else {
            known.castling_rooks = self.castling_rooks(attacked);
        }
        known
    }
}

/// Perft 2 of `pos` (side `S` to move) the plain way: every move made and
/// its child's replies bulk-counted, with the [`Replies`] handed down where
/// they hold.
#[inline(always)]
pub(crate) fn perft2_plain<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    let Some(replies) = Replies::new::<C, S>(cpu, pos) else {
        let mut nodes = 0;
        crate::perft::count::for_each_child::<C, S, false>(cpu, pos, |child| {
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

/// The bulk count of a child with its replies given, out of line like
/// [`count_leaves`].
#[inline(always)]
fn count_known<C: Cpu, S: Side>(cpu: C, pos: &Position, known: &KnownReplies) -> u64 {
    cpu.outlined(
        #[inline(always)]
        || movegen::count_given::<C, S>(cpu, pos, known),
    )
}

/// The bulk count of a child whose king moves are given (its checks and
/// pins found in it), out of line.
#[inline(always)]
fn count_king_known<C: Cpu, S: Side>(cpu: C, pos: &Position, known: &KnownReplies) -> u64 {
    cpu.outlined(
        #[inline(always)]
        || movegen::count_with_king::<C, S>(cpu, pos, known.king_to, known.castling_rooks),
    )
}

/// The bulk count of a child whose checks and pins are given (its king
/// moves found in it), out of line.
#[inline(always)]
fn count_info_known<C: Cpu, S: Side>(cpu: C, pos: &Position, known: &KnownReplies) -> u64 {
    cpu.outlined(
        #[inline(always)]
        || movegen::count_with_info::<C, S>(cpu, pos, &known.info),
    )
}

/// The [`MoveSink`] of [`perft2_plain`].
struct Children<'a, C, S> {
    cpu: C,
    pos: &'a Position,
    replies: &'a Replies,
    nodes: u64,
    side: PhantomData<S>,
}

impl<C: Cpu, S: Side> Children<'_, C, S> {
    /// Counts the children of `piece` on `from` moving to each of `to`,
    /// each with as much of its replies given as holds for it.
    #[inline(always)]
    fn moves(&mut self, piece: Piece, from: Square, to: Bitboard) {
        let replies = self.replies;
        let king_ok = if replies.king_seen.contains(from) {
            Bitboard::EMPTY
        } else {
            !replies.king_seen
        };
        let pins_ok = if replies.pin_seen.contains(from) {
            Bitboard::EMPTY
        } else {
            !replies.pin_seen
        };
        let (cpu, pos) = (self.cpu, self.pos);
        let make = |to| pos.make_normal::<C, S, false>(cpu, piece, from, to);
        let known = |to| {
            if piece == Piece::Knight {
                replies.after_knight(to)
            } else {
                replies.quiet
            }
        };
        for to in to & king_ok & pins_ok {
            self.nodes += count_known::<C, S::Other>(cpu, &make(to), &known(to));
        }
        for to in to & king_ok & !pins_ok {
            let k = known(to);
            self.nodes += count_king_known::<C, S::Other>(cpu, &make(to), &k);
        }
        for to in to & !king_ok & pins_ok {
            self.nodes += count_info_known::<C, S::Other>(cpu, &make(to), &known(to));
        }
        for to in to & !king_ok & !pins_ok {
            self.nodes += count_leaves::<C, S::Other>(cpu, &make(to));
        }
    }
}

impl<C: Cpu, S: Side> MoveSink for Children<'_, C, S> {
    #[inline(always)]
    fn piece_moves(&mut self, piece: Piece, from: Square, to: Bitboard) -> bool {
        self.moves(piece, from, to);
        false
    }

    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, delta: i32, promotion: bool) -> bool {
        for to in to {
            let from = Square::from_index((to.index() as i32 - delta) as usize);
            if promotion {
                for piece in PROMOTION_PIECES {
                    let child = self.pos.make_promotion::<S, false>(from, to, piece);
                    self.nodes += count_leaves::<C, S::Other>(self.cpu, &child);
                }
            } else {
                let child = self
                    .pos
                    .make_normal::<C, S, false>(self.cpu, Piece::Pawn, from, to);
                let moved = from.bitboard() | to.bitboard();
                let replies = self.replies;
                let king_ok = (moved & replies.king_seen).is_empty();
                let pins_ok = (moved & replies.pin_seen).is_empty();
                self.nodes += if king_ok && pins_ok {
                    count_known::<C, S::Other>(self.cpu, &child, &replies.quiet)
                } else if king_ok {
                    count_king_known::<C, S::Other>(self.cpu, &child, &replies.quiet)
                } else if pins_ok {
                    count_info_known::<C, S::Other>(self.cpu, &child, &replies.quiet)
                } else {
                    count_leaves::<C, S::Other>(self.cpu, &child)
                };
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
