//! How one move of a leaf parent is counted without a make ([`Children`]):
//! as the passed position's count when it avoids the footprint, as that plus
//! a mobility delta when it avoids the king zone (a quiet move, a capture,
//! a promotion).

use std::marker::PhantomData;

use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::Side;
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::chess::square::Square;

use super::shortcut::Shortcut;
use super::sink::Unmade;

/// The leaf parent's moves: counted as `base` when outside the footprint,
/// as `base` plus a mobility delta when outside its king zone, made and
/// counted otherwise.
pub(super) struct Children<'a, C, S> {
    pub(super) cpu: C,
    pub(super) pos: &'a Position,
    /// `None` or, off the `Sparse` paths, an unusable shortcut
    /// (`mobility.complete` unset, `pieces` `None`) when `S` is in check
    /// (see `perft2_inline`): the helpers below test those fields, not only
    /// the `Option`, before counting a move unmade.
    pub(super) shortcut: Option<&'a Shortcut>,
    pub(super) nodes: &'a mut u64,
    pub(super) side: PhantomData<S>,
}

impl<C: Cpu, S: Side> Children<'_, C, S> {
    /// `O`'s king square, the same in every child (`S` moves).
    #[inline(always)]
    pub(super) fn o_king(&self) -> Square {
        self.pos.king(<S::Other as Side>::COLOR)
    }

    /// The targets of `piece` from `from` counted without a make.
    #[inline(always)]
    pub(super) fn untouched(&self, piece: Piece, from: Square, to: Bitboard) -> Unmade {
        match self.shortcut {
            Some(s) => {
                let king = s.footprint.king.of(piece);
                if king.contains(from) || !s.mobility.complete {
                    return Unmade::NONE;
                }
                let them = self.pos.colors(<S::Other as Side>::COLOR);
                let outside = to & !king;
                let quiet = outside & !them;
                let captures = outside & them & !s.mobility.castle_rooks;
                let zone = s.footprint.base.of(piece);
                if zone.contains(from) {
                    Unmade {
                        base: Bitboard::EMPTY,
                        quiet,
                        captures,
                    }
                } else {
                    Unmade {
                        base: quiet & !zone,
                        quiet: quiet & zone,
                        captures,
                    }
                }
            }
            None => Unmade::NONE,
        }
    }

    /// The pawn targets (each reached from `target - delta`) counted
    /// without a make (never promotions).
    #[inline(always)]
    pub(super) fn untouched_pawns(&self, to: Bitboard, delta: i32, promotion: bool) -> Unmade {
        match self.shortcut {
            Some(s) if !promotion && s.mobility.complete => {
                // Origins outside a zone, shifted onto their targets.
                let outside = |zone: Bitboard| {
                    let origins = if delta > 0 {
                        Bitboard(!zone.0 << delta)
                    } else {
                        Bitboard(!zone.0 >> -delta)
                    };
                    origins & !zone
                };
                let them = self.pos.colors(<S::Other as Side>::COLOR);
                let ep = if delta == 2 * S::UP {
                    s.footprint.ep
                } else {
                    Bitboard::EMPTY
                };
                let away = to & outside(s.footprint.king.of(Piece::Pawn) | ep);
                let quiet = away & !them;
                let base = quiet & outside(s.footprint.base.of(Piece::Pawn) | ep);
                Unmade {
                    base,
                    quiet: quiet & !base,
                    captures: away & them & !s.mobility.castle_rooks,
                }
            }
            _ => Unmade::NONE,
        }
    }

    /// The reply count after the promotion of the pawn on `from` to
    /// `piece` on `to`, counted without a make when the move stays outside
    /// the king zones of a pawn (which leaves `from`) and of `piece` (which
    /// arrives on `to`, and may see through `from`): `base` plus the
    /// mobility delta of the pawn leaving `from` and a piece of `S` standing
    /// on `to` (the new piece's kind does not matter to `O`'s mobility).
    /// When `S` has no slider of the promoted kind, whose lines into `O`'s
    /// king area were not looked up, the new piece's own lines are: it
    /// must attack no square of the area (with `O`'s king and castling
    /// rooks off the board, as the zones are built) and pin no piece of
    /// `O`. `None`: the move must be made.
    #[inline(always)]
    pub(super) fn promotion_unmade(&self, from: Square, to: Square, piece: Piece) -> Option<u64> {
        let s = self.shortcut?;
        let moved = from.bitboard() | to.bitboard();
        let zone = s.footprint.king.of(Piece::Pawn) | s.footprint.king.of(piece);
        if !s.mobility.complete || (zone & moved).nonempty() {
            return None;
        }
        if !s.footprint.complete[piece.index()] {
            let (cpu, pos) = (self.cpu, self.pos);
            let o = <S::Other as Side>::COLOR;
            let reach = |occ: Bitboard| match piece {
                Piece::Bishop => cpu.bishop_attacks(to, occ),
                Piece::Rook => cpu.rook_attacks(to, occ),
                _ => cpu.bishop_attacks(to, occ) | cpu.rook_attacks(to, occ),
            };
            let occ = (pos.occupied() ^ from.bitboard()) | to.bitboard();
            let king = pos.king(o);
            let off = king.bitboard() | s.mobility.castle_rooks;
            if (reach(occ & !off) & s.footprint.area).nonempty() {
                return None;
            }
            // A pin: O's king seen through one piece of O.
            let first = reach(occ) & pos.colors(o);
            if reach(occ ^ first).contains(king) {
                return None;
            }
        }
        let delta = if self.pos.colors(<S::Other as Side>::COLOR).contains(to) {
            if s.mobility.castle_rooks.contains(to) {
                return None;
            }
            s.mobility
                .capture_delta::<C, S>(self.cpu, from.bitboard(), to.bitboard())
        } else {
            s.mobility.delta::<C, S>(self.cpu, moved)
        };
        Some((s.base as i64 + delta) as u64)
    }
}
