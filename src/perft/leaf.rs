//! Perft 2 (leaf parents): moves that cannot change the opponent's reply
//! count are counted without being made.
//!
//! A leaf parent `P` has side `S` to move; perft 2 is the sum, over the legal
//! moves of `S`, of the number of legal replies of the other side `O`. That
//! number depends on a limited part of the board, its *footprint*:
//!
//! * the squares `O`'s sliders attack (their rays end at the first piece,
//!   and a piece of `S` there is a target);
//! * the squares in front of `O`'s pawns (pushes) and diagonally in front
//!   (captures);
//! * the squares around `O`'s king, its own square and, when `O` could castle
//!   but for attacks, the squares its king crosses; whether `S` attacks them
//!   depends on the lines from them to the first piece (and, for a piece
//!   of `S` standing on such a line, on where it stands), on the knights,
//!   pawns and king of `S` that reach them, and on the pieces that pin
//!   `O`'s pieces (the lines from `O`'s king up to the second piece);
//! * the squares a castling path of `O` needs empty.
//!
//! `O`'s knights do not appear: their targets depend only on where `O`'s own
//! pieces stand. A quiet move of `S` (not a capture, promotion, castling or
//! en-passant capture, and no double push `O` could take en passant) whose
//! origin and target both lie outside the footprint, widened by the squares
//! from which a piece of that kind would attack `O`'s king area, leaves `O`
//! with exactly the replies it would have if `S` passed. So [`perft2`]
//! counts `O`'s replies in `P` with the turn passed ("base") once, adds
//! `base` for each such move, and makes and counts the others.
//!
//! When `S` is in check, every legal move deals with the check and touches
//! the footprint, and the passed position would leave `S`'s king en prise:
//! those leaf parents are counted the plain way.

use std::marker::PhantomData;

use crate::chess::attacks::{king_attacks, knight_attacks, pawn_attacks};
use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::{self, MoveSink, NodeInfo, Side};
use crate::chess::moves::{PROMOTION_PIECES, PieceMoves};
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::chess::side::{NOT_A, NOT_H};
use crate::chess::square::Square;

/// Where a quiet move of `S` must not start or end for `O`'s reply count to
/// stay the passed position's.
struct Footprint {
    /// For every kind of piece.
    all: Bitboard,
    /// Also for knights: squares a knight attacks `O`'s king area from.
    knight: Bitboard,
    /// Also for pawns: squares a pawn of `S` attacks `O`'s king area from,
    /// and squares next to `O`'s pawns (a double push there may be taken en
    /// passant).
    pawn: Bitboard,
}

impl Footprint {
    /// The footprint of `O`'s reply count in `pos` (side `S` to move, not
    /// in check).
    #[inline(always)]
    fn new<C: Cpu, S: Side>(cpu: C, pos: &Position) -> Footprint {
        let o = <S::Other as Side>::COLOR;
        let own = pos.colors(o);
        let occ = pos.occupied();
        let mut all = Bitboard::EMPTY;
        // O's sliders.
        for sq in pos.diagonal_sliders() & own {
            all |= cpu.bishop_attacks(sq, occ);
        }
        for sq in pos.orthogonal_sliders() & own {
            all |= cpu.rook_attacks(sq, occ);
        }
        // O's pawns: pushes (both squares of a double push) and captures.
        let pawns = pos.pieces(Piece::Pawn) & own;
        let push = <S::Other as Side>::up(pawns);
        all |= push | <S::Other as Side>::up(push & <S::Other as Side>::RANK_3);
        all |= <S::Other as Side>::up_west(pawns) | <S::Other as Side>::up_east(pawns);
        // O's king: the squares whose attack status matters.
        let king = pos.king(o);
        let mut area = (king_attacks(king) & !own) | king.bitboard();
        let mut beyond_rooks = Bitboard::EMPTY;
        for rook in pos.castle_rooks() & own {
            let (must_be_empty, king_path) = Position::castling_path(king, rook);
            all |= must_be_empty;
            if (must_be_empty & occ & !king.bitboard() & !rook.bitboard()).is_empty() {
                area |= king_path;
                beyond_rooks |= rook.bitboard();
            }
        }
        // Lines into the area, with O's king (and a castling rook that moves
        // out of the way) taken off the board. They include the squares next
        // to each area square, so the king of S needs no zone of its own.
        let lines_occ = occ & !king.bitboard() & !beyond_rooks;
        let mut knight = Bitboard::EMPTY;
        let mut pawn = Bitboard::EMPTY;
        for sq in area {
            all |= cpu.bishop_attacks(sq, lines_occ) | cpu.rook_attacks(sq, lines_occ);
            knight |= knight_attacks(sq);
            pawn |= pawn_attacks(o, sq);
        }
        // Pins of O's pieces: the lines from O's king through its own first
        // piece up to the next one.
        let first = (cpu.bishop_attacks(king, occ) | cpu.rook_attacks(king, occ)) & own;
        all |= cpu.bishop_attacks(king, occ ^ first) | cpu.rook_attacks(king, occ ^ first);
        // Double pushes next to O's pawns may create an en-passant capture.
        let ep = Bitboard((pawns.0 & NOT_A) >> 1) | Bitboard((pawns.0 & NOT_H) << 1);
        Footprint {
            all,
            knight: all | knight,
            pawn: all | pawn | ep,
        }
    }

    /// The footprint for a move of `piece`.
    #[inline(always)]
    fn of(&self, piece: Piece) -> Bitboard {
        match piece {
            Piece::Knight => self.knight,
            Piece::Pawn => self.pawn,
            _ => self.all,
        }
    }
}

/// Perft 2 below `pos` (side `S` to move), out of line.
#[inline(always)]
pub(crate) fn perft2<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    cpu.outlined(
        #[inline(always)]
        || perft2_inline::<C, S>(cpu, pos),
    )
}

#[inline(always)]
fn perft2_inline<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    let info = NodeInfo::new::<S>(pos);
    // In check: every move made (see the module notes).
    let footprint = info
        .checkers
        .is_empty()
        .then(|| Footprint::new::<C, S>(cpu, pos));
    let base = if footprint.is_some() {
        passed_count::<C, S>(cpu, pos)
    } else {
        0
    };
    let mut nodes = 0;
    movegen::generate_with_info::<C, S, _>(
        cpu,
        pos,
        &info,
        &mut Children::<C, S> {
            cpu,
            pos,
            footprint: footprint.as_ref(),
            base,
            nodes: &mut nodes,
            side: PhantomData,
        },
    );
    nodes
}

/// The reply count of the other side in `pos` (side `S` to move, not in
/// check) with the turn passed: no en-passant square, everything else as is.
#[inline(always)]
fn passed_count<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    let mut passed = *pos;
    passed.side = <S::Other as Side>::COLOR;
    passed.ep = None;
    movegen::count::<C, S::Other>(cpu, &passed)
}

/// The leaf parent's moves: counted from `base` when outside the
/// footprint, made and counted otherwise.
struct Children<'a, C, S> {
    cpu: C,
    pos: &'a Position,
    footprint: Option<&'a Footprint>,
    base: u64,
    nodes: &'a mut u64,
    side: PhantomData<S>,
}

impl<C: Cpu, S: Side> Children<'_, C, S> {
    /// Targets of `piece` from `from` (non-captures) whose replies are `base`.
    #[inline(always)]
    fn untouched(&self, piece: Piece, from: Square, to: Bitboard) -> Bitboard {
        match self.footprint {
            Some(f) => {
                let zone = f.of(piece);
                if zone.contains(from) {
                    Bitboard::EMPTY
                } else {
                    to & !zone & !self.pos.colors(<S::Other as Side>::COLOR)
                }
            }
            None => Bitboard::EMPTY,
        }
    }

    /// Pawn targets (each reached from `target - delta`) whose replies are
    /// `base`: not captures or promotions, origin and target outside the
    /// footprint.
    #[inline(always)]
    fn untouched_pawns(&self, to: Bitboard, delta: i32, promotion: bool) -> Bitboard {
        match self.footprint {
            Some(f) if !promotion => {
                let zone = f.of(Piece::Pawn);
                // Origins outside the zone, shifted onto their targets.
                let origins = if delta > 0 {
                    Bitboard(!zone.0 << delta)
                } else {
                    Bitboard(!zone.0 >> -delta)
                };
                to & !zone & origins & !self.pos.colors(<S::Other as Side>::COLOR)
            }
            _ => Bitboard::EMPTY,
        }
    }
}

impl<C: Cpu, S: Side> MoveSink for Children<'_, C, S> {
    #[inline(always)]
    fn piece_moves(&mut self, piece: Piece, from: Square, to: Bitboard) -> bool {
        let untouched = self.untouched(piece, from, to);
        *self.nodes += self.base * u64::from(untouched.len());
        for to in to & !untouched {
            let child = self.pos.make_normal::<S, false>(piece, from, to);
            *self.nodes += count_leaves::<C, S::Other>(self.cpu, &child);
        }
        false
    }

    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, delta: i32, promotion: bool) -> bool {
        let untouched = self.untouched_pawns(to, delta, promotion);
        *self.nodes += self.base * u64::from(untouched.len());
        for to in to & !untouched {
            let from = Square::from_index((to.index() as i32 - delta) as usize);
            if promotion {
                for piece in PROMOTION_PIECES {
                    let child = self.pos.make_promotion::<S, false>(from, to, piece);
                    *self.nodes += count_leaves::<C, S::Other>(self.cpu, &child);
                }
            } else {
                let child = self.pos.make_normal::<S, false>(Piece::Pawn, from, to);
                *self.nodes += count_leaves::<C, S::Other>(self.cpu, &child);
            }
        }
        false
    }

    /// En passant and castling: always made.
    #[inline(always)]
    fn special(&mut self, moves: PieceMoves) -> bool {
        for mv in moves {
            *self.nodes +=
                count_leaves::<C, S::Other>(self.cpu, &self.pos.play_piece(moves.piece, mv));
        }
        false
    }
}

/// The bulk counter as one out-of-line function: the child loops call it
/// from a dozen places (one per move group), and inlining it into each made
/// the hot code several times larger than the instruction cache (measured).
#[inline(always)]
pub(crate) fn count_leaves<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    cpu.outlined(
        #[inline(always)]
        || movegen::count::<C, S>(cpu, pos),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::cpu::{Compiled, CpuFn, CpuPath};
    use crate::chess::movegen::{Black, White};
    use crate::chess::moves::{Move, MoveKind};
    use crate::chess::piece::Color;

    /// The moves of `pos` (side `S`, not in check) that [`perft2`] counts
    /// as `base` without making them, and `base`.
    fn shortcut<S: Side>(pos: &Position) -> (u64, Vec<Move>) {
        let footprint = Footprint::new::<Compiled, S>(Compiled, pos);
        let base = passed_count::<Compiled, S>(Compiled, pos);
        let mut nodes = 0;
        let sink = Children::<Compiled, S> {
            cpu: Compiled,
            pos,
            footprint: Some(&footprint),
            base,
            nodes: &mut nodes,
            side: PhantomData,
        };
        let mut moves = Vec::new();
        for mv in pos.legal_moves().iter().copied() {
            let to = mv.to().bitboard();
            let piece = pos.piece_on(mv.from()).unwrap().1;
            let untouched = match mv.kind() {
                MoveKind::Castling | MoveKind::EnPassant => Bitboard::EMPTY,
                _ if piece == Piece::Pawn => sink.untouched_pawns(
                    to,
                    mv.to().index() as i32 - mv.from().index() as i32,
                    mv.kind() == MoveKind::Promotion,
                ),
                _ => sink.untouched(piece, mv.from(), to),
            };
            if untouched.nonempty() {
                moves.push(mv);
            }
        }
        (base, moves)
    }

    /// Positions: every line of the suites, then seeded random play from each.
    fn positions() -> Vec<Position> {
        let mut out = Vec::new();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/positions/");
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for file in [
            "standard.epd",
            "tricky.epd",
            "tricky960.epd",
            "perftsuite.epd",
            "chess960.epd",
        ] {
            let text = std::fs::read_to_string(format!("{dir}{file}")).unwrap();
            let chess960 = file.contains("960");
            for line in text
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            {
                let fen = line.split(';').next().unwrap().trim();
                let mut pos =
                    Position::from_fen_with(fen, chess960, crate::Zobrist::DEFAULT).unwrap();
                for _ in 0..24 {
                    out.push(pos);
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    pos = pos.play_unchecked(
                        moves
                            .iter()
                            .copied()
                            .nth((seed % moves.len() as u64) as usize)
                            .unwrap(),
                    );
                }
            }
        }
        out
    }

    /// The claim the shortcut rests on, move by move: a move outside the
    /// footprint leaves the opponent exactly `base` replies.
    #[test]
    fn a_move_outside_the_footprint_leaves_the_passed_reply_count() {
        let (mut shortcuts, mut moves) = (0, 0);
        for pos in positions() {
            if pos.in_check() {
                continue;
            }
            let (base, untouched) = match pos.side_to_move() {
                Color::White => shortcut::<White>(&pos),
                Color::Black => shortcut::<Black>(&pos),
            };
            for mv in &untouched {
                let child = pos.play_unchecked(*mv);
                assert_eq!(
                    child.count_moves(),
                    base,
                    "{} {}",
                    pos.to_fen(),
                    mv.to_uci(true)
                );
            }
            shortcuts += untouched.len();
            moves += pos.legal_moves().len();
        }
        // The shortcut must actually be taken, or this test proves nothing.
        assert!(shortcuts * 10 > moves, "{shortcuts} of {moves}");
    }

    /// Perft 2 with the shortcut on one CPU path.
    struct Perft2<'a>(&'a Position);

    impl CpuFn for Perft2<'_> {
        type Output = u64;
        fn call<C: Cpu>(self, cpu: C) -> u64 {
            match self.0.side_to_move() {
                Color::White => perft2::<C, White>(cpu, self.0),
                Color::Black => perft2::<C, Black>(cpu, self.0),
            }
        }
    }

    /// And perft 2 with the shortcut equals the sum over made children, on
    /// every CPU path this machine supports.
    #[test]
    fn perft2_equals_the_sum_over_made_children() {
        let paths = CpuPath::supported();
        for pos in positions() {
            let made: u64 = pos
                .legal_moves()
                .iter()
                .map(|&mv| pos.play_unchecked(mv).count_moves())
                .sum();
            for &path in &paths {
                assert_eq!(path.run(Perft2(&pos)), made, "{path} {}", pos.to_fen());
            }
        }
    }
}
