//! Move ordering: the TT move, then MVV-LVA captures and queen promotions,
//! the two killers, quiet moves, underpromotions last; at a PV node
//! completed in an earlier iteration, the moves by the nodes they took.

use crate::chess::moves::{Move, MoveKind, MoveList};
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::search::eval::PIECE_VALUES;

use super::deepen::Searcher;

// Move ordering bands.
const ORDER_TT: i32 = 1 << 24;
const ORDER_CAPTURE: i32 = 1 << 20;
const ORDER_KILLER: i32 = 1 << 19;
const ORDER_UNDERPROMOTION: i32 = -1;

impl<'a> Searcher<'a> {
    pub(super) fn score_moves(
        &self,
        pos: &Position,
        moves: &MoveList,
        order: &mut [i32; crate::chess::moves::MAX_MOVES],
        tt_move: Move,
        ply: usize,
        key: Option<u64>,
    ) {
        let killers = self.st.killers[ply];
        for (slot, &mv) in order.iter_mut().zip(moves.iter()) {
            *slot = if mv == tt_move {
                ORDER_TT
            } else if let Some(victim) = captured(pos, mv) {
                let attacker = pos.piece_on(mv.from()).map_or(0, |(_, p)| p.index() as i32);
                let promo = mv.promotion().map_or(0, |p| PIECE_VALUES[p.index()]);
                ORDER_CAPTURE + (PIECE_VALUES[victim.index()] + promo) * 8 - attacker
            } else if mv.promotion() == Some(Piece::Queen) {
                ORDER_CAPTURE + PIECE_VALUES[Piece::Queen.index()] * 8
            } else if mv.kind() == MoveKind::Promotion {
                ORDER_UNDERPROMOTION
            } else if mv == killers[0] {
                ORDER_KILLER + 1
            } else if mv == killers[1] {
                ORDER_KILLER
            } else {
                0
            };
        }
        let kept = &self.st.pv_counts[ply];
        if key == Some(kept.key) && !kept.counts.is_empty() {
            // A PV node completed in an earlier iteration (the root after a
            // completed iteration, or a node of the PV below it): the best
            // move first, then the moves that took the most nodes (the
            // hardest to refute).
            for (slot, &mv) in order.iter_mut().zip(moves.iter()) {
                if mv != tt_move
                    && let Some(rank) = kept.counts.iter().position(|&(m, _)| m == mv)
                {
                    *slot = ORDER_TT - 1 - rank as i32;
                }
            }
        }
    }
}

/// Swaps the best-ordered remaining move into place `i` and returns it.
#[inline]
pub(super) fn pick(
    moves: &mut MoveList,
    order: &mut [i32; crate::chess::moves::MAX_MOVES],
    i: usize,
) -> Move {
    let list = moves.as_mut_slice();
    let mut best = i;
    for j in i + 1..list.len() {
        if order[j] > order[best] {
            best = j;
        }
    }
    list.swap(i, best);
    order.swap(i, best);
    list[i]
}

/// The piece `mv` captures, if any (en passant captures a pawn).
#[inline]
pub(super) fn captured(pos: &Position, mv: Move) -> Option<Piece> {
    match mv.kind() {
        MoveKind::EnPassant => Some(Piece::Pawn),
        MoveKind::Castling => None,
        _ => pos
            .piece_on(mv.to())
            .filter(|&(c, _)| c != pos.side_to_move())
            .map(|(_, p)| p),
    }
}

/// Neither a capture nor a promotion.
#[inline]
pub(super) fn is_quiet(pos: &Position, mv: Move) -> bool {
    mv.kind() != MoveKind::Promotion && captured(pos, mv).is_none()
}

/// The quiescence moves: captures, en passant, queen promotions.
pub(super) fn captures(pos: &Position) -> MoveList {
    let them = pos.them();
    let mut list = MoveList::new();
    pos.generate_moves(|pm| {
        match pm.kind {
            MoveKind::Normal => {
                for to in pm.to & them {
                    list.push(Move::normal(pm.from, to));
                }
            }
            MoveKind::EnPassant => {
                for to in pm.to {
                    list.push(Move::new(pm.from, to, MoveKind::EnPassant, Piece::Knight));
                }
            }
            MoveKind::Promotion => {
                for to in pm.to {
                    list.push(Move::new(pm.from, to, MoveKind::Promotion, Piece::Queen));
                }
            }
            MoveKind::Castling => {}
        }
        false
    });
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiescence_moves_are_the_captures_and_queen_promotions() {
        // White: Qd1 can take d7? no; pawn b7 can promote on b8 or take a8/c8.
        let pos = Position::from_fen("r1n1k3/1P1p4/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
        let caps = captures(&pos);
        let text: Vec<String> = caps.iter().map(|m| m.to_uci(false).to_string()).collect();
        for want in ["b7a8q", "b7b8q", "b7c8q", "d1d7"] {
            assert!(
                text.contains(&want.to_string()),
                "{want} missing from {text:?}"
            );
        }
        assert_eq!(caps.len(), 4, "{text:?}");
        // Every one is legal and is a capture or a promotion.
        for &mv in caps.iter() {
            assert!(pos.is_legal(mv));
            assert!(!is_quiet(&pos, mv));
        }
    }
}
