//! `O`'s mobility in a leaf parent: its unpinned sliders' attack sets and
//! its unpinned pawns, from which a quiet move or a capture outside the king
//! zone gets its change in `O`'s reply count (one lookup per touched slider,
//! or on a `Sparse` path per slider once any is touched; a few shifts for
//! the pawns), the passed position's count, and the
//! evasions of a check the king tier counts; the pawn counts the leapers'
//! copies share, and `S`'s pieces of one kind after a move.

use crate::chess::attacks::knight_attacks;
use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::Side;
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::chess::square::Square;

/// Room for `O`'s unpinned sliders, a queen counted twice (diagonal and
/// orthogonal): 9 queens, 2 rooks and 2 bishops make 22.
pub(super) const MAX_SLIDERS: usize = 24;

/// How `O`'s reply count changes under a quiet move of `S` outside the king
/// zone of the [`Footprint`](super::footprint::Footprint). Such a move leaves
/// `O` out of check, its pins, king moves, castling and knight moves as they
/// are (no en-passant square either): only the moves of `O`'s unpinned sliders
/// whose attack sets hold the move's origin or target, and of `O`'s unpinned
/// pawns, change, and both are recounted here from the changed occupancy.
pub(super) struct Mobility {
    /// `O`'s unpinned sliders (a pinned one moves on its pin line only, and
    /// that line is in the king zone): square, orthogonal, attack set.
    pub(super) sliders: [(Square, bool, Bitboard); MAX_SLIDERS],
    pub(super) len: usize,
    /// False if some did not fit (a position with more sliders than a game
    /// can have): then no delta is used.
    pub(super) complete: bool,
    /// The union of their attack sets: a move elsewhere changes none.
    pub(super) slider_touch: Bitboard,
    /// `O`'s unpinned pawns.
    pub(super) pawns: Bitboard,
    /// The squares their moves depend on (pushes, both squares of a double
    /// push, captures).
    pub(super) pawn_touch: Bitboard,
    /// Their move count in `P`.
    pub(super) pawn_count: u32,
    /// `O`'s unpinned knights.
    pub(super) knights: Bitboard,
    /// `O`'s castling rooks (capturing one changes `O`'s castling).
    pub(super) castle_rooks: Bitboard,
    /// Occupancy of `P`, `O`'s pieces and `S`'s pieces.
    pub(super) occ: Bitboard,
    pub(super) own: Bitboard,
    pub(super) enemy: Bitboard,
}

impl Mobility {
    #[inline(always)]
    pub(super) fn push(&mut self, sq: Square, orthogonal: bool, attacks: Bitboard) {
        if self.len < MAX_SLIDERS {
            self.sliders[self.len] = (sq, orthogonal, attacks);
            self.len += 1;
            self.slider_touch |= attacks;
        } else {
            self.complete = false;
        }
    }

    /// `O`'s reply count after `S` moves a piece from one square of `moved`
    /// to the other (an empty square), minus the count in `P`. A slider
    /// that sees the target but not the origin could keep its set less the
    /// squares beyond the target, without a lookup: no faster (0.99x on
    /// endings with queens on both sides, AMD Zen 5), the extra test costs
    /// what the lookup did.
    ///
    /// On a `Sparse` path (`Cpu::CHECK_TIER`) a move that touches any
    /// slider's set looks every slider up again, without testing its own
    /// set: which of them a move touches varies from move to move, and the
    /// test's mispredictions cost more than the lookups it saved. Measured
    /// on the endings with queens on both sides (AMD Zen 5): 1.02x, the
    /// other endings of up to 14 men even. Without the first test too
    /// (every slider looked up for every move) the same endings ran 1.05x
    /// but the speed set's positions of up to 16 men 0.96-0.98x, since
    /// where few moves touch a slider the test predicts well; on the
    /// richer paths, with more sliders each, dropping only the per-slider
    /// test cost 0.97x.
    ///
    /// With queens on both sides this delta is about a sixth of the time
    /// (a build without its sliders' part, counts wrong, ran four such
    /// endings 1.21x as fast), yet no cheaper form of it was found (AMD
    /// Zen 5, `--shortcut`, the same four endings): the lookups replaced by
    /// a cheap stand-in 1.02x, so they are not the cost; the sliders in
    /// four fixed slots with no loop 0.99x; the loop out of line 1.00x;
    /// `P`'s slider count kept instead of recounted per move 1.01x; the
    /// touch test skipped where the touched set is wide 0.99-1.00x; the
    /// sliders found once per moving piece with its origin emptied, a
    /// target outside them costing no lookup, 0.93x; per-square tables set
    /// up once per leaf parent (a piece landing cuts the rays through its
    /// square, one leaving lengthens the ray it ended), two reads per move,
    /// 0.975x: 5 % fewer instructions, but the set-up's per-ray loops
    /// mispredicted 18 % more than the loop they replaced.
    #[inline(always)]
    pub(super) fn delta<C: Cpu, S: Side>(&self, cpu: C, moved: Bitboard) -> i64 {
        let occ = self.occ ^ moved;
        let mut delta = 0i64;
        if (self.slider_touch & moved).nonempty() {
            for &(sq, orthogonal, attacks) in &self.sliders[..self.len] {
                if C::CHECK_TIER || (attacks & moved).nonempty() {
                    let now = if orthogonal {
                        cpu.rook_attacks(sq, occ)
                    } else {
                        cpu.bishop_attacks(sq, occ)
                    };
                    delta +=
                        i64::from((now & !self.own).len()) - i64::from((attacks & !self.own).len());
                }
            }
        }
        if (self.pawn_touch & moved).nonempty() {
            delta += i64::from(pawn_count::<S::Other>(self.pawns, occ, self.enemy ^ moved))
                - i64::from(self.pawn_count);
        }
        delta
    }
}

impl Mobility {
    /// The moves of `O`'s unpinned pieces in `pos` with the turn passed, when
    /// every slider fits: its king moves and castlings (`king_moves`) given,
    /// the rest from what
    /// [`Footprint::fill`](super::footprint::Footprint::fill) already looked up
    /// (slider attack sets, the pawns' count). A queen's two attack sets are
    /// disjoint, so their counts add. With the pinned pieces' moves added
    /// (counted along their pin lines), saves the generator's pin scan and
    /// slider lookups of `shortcut::passed_count` once per leaf parent.
    #[inline(always)]
    pub(super) fn passed_count(&self, king_moves: u32) -> u64 {
        let mut n = king_moves + self.pawn_count;
        for &(_, _, attacks) in &self.sliders[..self.len] {
            n += (attacks & !self.own).len();
        }
        for sq in self.knights {
            n += (knight_attacks(sq) & !self.own).len();
        }
        u64::from(n)
    }

    /// The moves of `O`'s unpinned pieces other than its king onto
    /// `answers` (a checker's square and the squares between it and `O`'s
    /// king) after `S` moves a piece from `from` to `to` (taking what
    /// stands there), when `O`'s pins are those of `P`. No en-passant
    /// capture exists (not after a double push). Every slider is looked up
    /// again, though one whose attack set holds neither square keeps it:
    /// testing that per slider mispredicted more than its lookups cost
    /// (1.03x without the test on the endings with queens on both sides,
    /// AMD Zen 5). Only the `Sparse` paths count checks here.
    #[inline(always)]
    pub(super) fn evasions<C: Cpu, S: Side>(
        &self,
        cpu: C,
        from: Bitboard,
        to: Bitboard,
        answers: Bitboard,
    ) -> u32 {
        let occ = (self.occ ^ from) | to;
        let mut n = 0;
        for &(sq, orthogonal, _) in &self.sliders[..self.len] {
            if to.contains(sq) {
                continue;
            }
            let attacks = if orthogonal {
                cpu.rook_attacks(sq, occ)
            } else {
                cpu.bishop_attacks(sq, occ)
            };
            n += (attacks & answers).len();
        }
        for sq in self.knights & !to {
            n += (knight_attacks(sq) & answers).len();
        }
        n + pawn_evasions::<S::Other>(self.pawns & !to, occ, answers)
    }

    /// `O`'s reply count after `S` captures on `to` (an unpinned piece of
    /// `O` that is not a castling rook) from `from`, minus the count in
    /// `P`: the victim's moves go, `O`'s sliders that saw `from` or `to`
    /// are looked up again (the victim's square is now a target, `from` is
    /// empty), each unpinned knight of `O` that attacks `to` gains it, and
    /// the pawns are recounted.
    #[inline(always)]
    pub(super) fn capture_delta<C: Cpu, S: Side>(
        &self,
        cpu: C,
        from: Bitboard,
        to: Bitboard,
    ) -> i64 {
        let occ = self.occ ^ from;
        let own = self.own ^ to;
        let moved = from | to;
        let mut delta = 0i64;
        for &(sq, orthogonal, attacks) in &self.sliders[..self.len] {
            let before = i64::from((attacks & !self.own).len());
            if to.contains(sq) {
                delta -= before;
            } else if (attacks & moved).nonempty() {
                let now = if orthogonal {
                    cpu.rook_attacks(sq, occ)
                } else {
                    cpu.bishop_attacks(sq, occ)
                };
                delta += i64::from((now & !own).len()) - before;
            }
        }
        let victim = to.lsb();
        let knight_reach = knight_attacks(victim);
        if (self.knights & to).nonempty() {
            delta -= i64::from((knight_reach & !self.own).len());
        }
        delta += i64::from((knight_reach & self.knights).len());
        if ((self.pawn_touch | self.pawns) & moved).nonempty() {
            delta += i64::from(pawn_count::<S::Other>(
                self.pawns & !to,
                occ,
                self.enemy ^ moved,
            )) - i64::from(self.pawn_count);
        }
        delta
    }
}

/// The moves of the pawns `pawns` of side `T` (not in check), given the
/// occupancy and `T`'s opponents: the generator's bulk pawn count.
#[inline(always)]
pub(super) fn pawn_count<T: Side>(pawns: Bitboard, occ: Bitboard, enemy: Bitboard) -> u32 {
    let empty = !occ;
    let single = T::up(pawns) & empty;
    let double = T::up(single & T::RANK_3) & empty;
    let west = T::up_west(pawns) & enemy;
    let east = T::up_east(pawns) & enemy;
    let last = T::RANK_8;
    let promotions = (single & last).len() + (west & last).len() + (east & last).len();
    single.len() + double.len() + west.len() + east.len() + 3 * promotions
}

/// The moves of the pawns `pawns` of side `T` onto `answers` (the square of
/// a piece that checks `T`'s king, the only occupied one, and the squares
/// between the two), given the occupancy: pushes that block, captures of
/// the checker (a promotion counts four).
#[inline(always)]
pub(super) fn pawn_evasions<T: Side>(pawns: Bitboard, occ: Bitboard, answers: Bitboard) -> u32 {
    let empty = !occ;
    let single = T::up(pawns) & empty;
    let double = T::up(single & T::RANK_3) & empty & answers;
    let single = single & answers;
    let captures = answers & occ;
    let west = T::up_west(pawns) & captures;
    let east = T::up_east(pawns) & captures;
    let last = T::RANK_8;
    let promotions = (single & last).len() + (west & last).len() + (east & last).len();
    single.len() + double.len() + west.len() + east.len() + 3 * promotions
}

/// `S`'s pieces of kind `k` after `S` moves a `piece` from `from` to `to`,
/// where it stands as a `new` (`piece`, or the promoted kind). `to` holds
/// none of `S`'s pieces, so adding it is an xor.
#[inline(always)]
pub(super) fn moved_kind<S: Side>(
    pos: &Position,
    k: Piece,
    piece: Piece,
    new: Piece,
    from: Bitboard,
    to: Bitboard,
) -> Bitboard {
    let mut bb = pos.pieces(k) & pos.colors(S::COLOR);
    if k == piece {
        bb ^= from;
    }
    if k == new {
        bb ^= to;
    }
    bb
}
