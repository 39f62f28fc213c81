//! Seeded random positions for differential testing of move generators
//! (`perft fuzz`), biased towards the cases generators get wrong.
//!
//! Each position comes from one [`Motif`]:
//!
//! * [`Motif::Playout`]: a few random plies from a published suite position
//!   (standard, tricky, Chess960 ones), the move choice weighted towards
//!   en passant, castling, promotions, double pushes and captures;
//! * [`Motif::EnPassantPin`]: a pawn just pushed two squares beside an
//!   enemy pawn, often with the capturing side's king and an enemy rook or
//!   queen on that rank (the capture that removes both pawns from the rank
//!   is illegal: `3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1` after d7d5);
//! * [`Motif::Castling`]: kings and rooks on their castling squares with
//!   rights, and random pieces that may attack the king's path; with
//!   Chess960, king and rooks on random files (odd ones too) with
//!   Shredder-FEN rights;
//! * [`Motif::Promotion`]: pawns on the seventh rank, pieces to capture on
//!   the eighth (under-promotions count separately);
//! * [`Motif::Checks`]: kings and random sliders, knights and pawns, kept
//!   when the side to move is in check (double checks sought) or has a
//!   pinned piece.
//!
//! Every position is checked by the FEN parser (legal, the side not to move
//! not in check) and has at least one legal move. The same seed gives the
//! same positions on every machine (xorshift64*).

use crate::chess::moves::{Move, MoveKind};
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::validate::suite::parse_suite;

/// Which hard case a position was built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Motif {
    /// Random plies from a suite position.
    Playout,
    /// En passant, often with a horizontal pin.
    EnPassantPin,
    /// Castling rights with attacked or blocked paths.
    Castling,
    /// Promotions and under-promotions.
    Promotion,
    /// Checks (double checks sought) and pins.
    Checks,
}

impl Motif {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Motif::Playout => "playout",
            Motif::EnPassantPin => "en_passant_pin",
            Motif::Castling => "castling",
            Motif::Promotion => "promotion",
            Motif::Checks => "checks",
        }
    }
}

/// A seeded source of random positions.
pub struct RandomPositions {
    state: u64,
    chess960: bool,
    standard: Vec<Position>,
    chess960_seeds: Vec<Position>,
}

const STANDARD_SUITES: [&str; 3] = [
    include_str!("../../positions/standard.epd"),
    include_str!("../../positions/tricky.epd"),
    include_str!("../../positions/perftsuite.epd"),
];
const CHESS960_SUITES: [&str; 2] = [
    include_str!("../../positions/tricky960.epd"),
    include_str!("../../positions/chess960.epd"),
];

/// An empty board: `board[rank][file]`, rank 0 = rank 1.
type Board = [[char; 8]; 8];

impl RandomPositions {
    /// Positions from `seed`; with `chess960`, Chess960 castling setups and
    /// Chess960 suite positions are mixed in.
    pub fn new(seed: u64, chess960: bool) -> RandomPositions {
        let load = |texts: &[&str], c960: bool| -> Vec<Position> {
            texts
                .iter()
                .flat_map(|t| parse_suite(t, "built-in", c960).unwrap_or_default())
                .map(|r| r.position)
                .collect()
        };
        RandomPositions {
            // Zero is a fixed point of xorshift.
            state: seed ^ 0x9E37_79B9_7F4A_7C15 | 1,
            chess960,
            standard: load(&STANDARD_SUITES, false),
            chess960_seeds: if chess960 {
                load(&CHESS960_SUITES, true)
            } else {
                Vec::new()
            },
        }
    }

    fn next_u64(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// The next position and the motif it was built for.
    pub fn next_position(&mut self) -> (Position, Motif) {
        loop {
            let motif = match self.below(10) {
                0..=2 => Motif::Playout,
                3..=4 => Motif::EnPassantPin,
                5..=6 => Motif::Castling,
                7 => Motif::Promotion,
                _ => Motif::Checks,
            };
            let pos = match motif {
                Motif::Playout => self.playout(),
                Motif::EnPassantPin => self.en_passant(),
                Motif::Castling => self.castling(),
                Motif::Promotion => self.promotion(),
                Motif::Checks => self.checks(),
            };
            if let Some(pos) = pos.filter(|p| !p.legal_moves().is_empty()) {
                // Half the positions with colours flipped (the twin has the
                // same counts, but the engine sees Black's side of the code).
                let pos = if self.chance(50) { pos.flipped() } else { pos };
                return (pos, motif);
            }
        }
    }

    /// A random empty square (`rank`, `file`) within `ranks`.
    fn empty_square(&mut self, board: &Board, ranks: std::ops::Range<usize>) -> (usize, usize) {
        loop {
            let r = ranks.start + self.below(ranks.len());
            let f = self.below(8);
            if board[r][f] == '.' {
                return (r, f);
            }
        }
    }

    /// Puts `n` random pieces of both colours on empty squares (pawns only
    /// on ranks 2-7).
    fn scatter(&mut self, board: &mut Board, n: usize) {
        for _ in 0..n {
            let piece = b"pnbrqPNBRQ"[self.below(10)] as char;
            let ranks = if piece.eq_ignore_ascii_case(&'p') {
                1..7
            } else {
                0..8
            };
            let (r, f) = self.empty_square(board, ranks);
            board[r][f] = piece;
        }
    }

    fn fen(board: &Board, side: char, castling: &str, ep: &str) -> String {
        let mut rows = Vec::new();
        for rank in (0..8).rev() {
            let mut row = String::new();
            let mut empty = 0;
            for &c in &board[rank] {
                if c == '.' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        row.push_str(&empty.to_string());
                        empty = 0;
                    }
                    row.push(c);
                }
            }
            if empty > 0 {
                row.push_str(&empty.to_string());
            }
            rows.push(row);
        }
        format!("{} {side} {castling} {ep} 0 1", rows.join("/"))
    }

    fn parse(&self, fen: &str, chess960: bool) -> Option<Position> {
        if chess960 {
            Position::from_fen_960(fen).ok()
        } else {
            Position::from_fen(fen).ok()
        }
    }

    fn playout(&mut self) -> Option<Position> {
        let use960 = self.chess960 && self.chance(40);
        let n = if use960 {
            self.chess960_seeds.len()
        } else {
            self.standard.len()
        };
        if n == 0 {
            return None;
        }
        let i = self.below(n);
        let mut pos = if use960 {
            self.chess960_seeds[i]
        } else {
            self.standard[i]
        };
        let plies = self.below(9);
        for _ in 0..plies {
            let moves: Vec<Move> = pos.legal_moves().iter().copied().collect();
            if moves.is_empty() {
                break;
            }
            let weight = |mv: &Move| -> usize {
                match mv.kind() {
                    MoveKind::EnPassant | MoveKind::Castling => 12,
                    MoveKind::Promotion => 8,
                    MoveKind::Normal => {
                        let double_push = pos
                            .piece_on(mv.from())
                            .is_some_and(|(_, p)| p == Piece::Pawn)
                            && (mv.from().index() as i32 - mv.to().index() as i32).abs() == 16;
                        if double_push {
                            4
                        } else if pos.them().contains(mv.to()) {
                            2
                        } else {
                            1
                        }
                    }
                }
            };
            let total: usize = moves.iter().map(weight).sum();
            let mut pick = self.below(total);
            let mut chosen = moves[0];
            for mv in &moves {
                let w = weight(mv);
                if pick < w {
                    chosen = *mv;
                    break;
                }
                pick -= w;
            }
            pos = pos.play_unchecked(chosen);
        }
        Some(pos)
    }

    /// White to move, a black pawn just pushed two squares beside a white
    /// pawn on rank 5; often the white king and a black rook or queen on
    /// rank 5 too.
    fn en_passant(&mut self) -> Option<Position> {
        let mut board: Board = [['.'; 8]; 8];
        let wp = self.below(8);
        let bp = if wp == 0 {
            1
        } else if wp == 7 || self.chance(50) {
            wp - 1
        } else {
            wp + 1
        };
        board[4][wp] = 'P';
        board[4][bp] = 'p';
        if self.chance(70) {
            // King on one side of the pawns, the slider on the other.
            let (lo, hi) = (wp.min(bp), wp.max(bp));
            let left: Vec<usize> = (0..lo).collect();
            let right: Vec<usize> = (hi + 1..8).collect();
            let (king_side, slider_side) = if self.chance(50) {
                (left, right)
            } else {
                (right, left)
            };
            if king_side.is_empty() || slider_side.is_empty() {
                return None;
            }
            board[4][king_side[self.below(king_side.len())]] = 'K';
            board[4][slider_side[self.below(slider_side.len())]] =
                if self.chance(70) { 'r' } else { 'q' };
        } else {
            let (r, f) = self.empty_square(&board, 0..8);
            board[r][f] = 'K';
        }
        let (r, f) = self.empty_square(&board, 0..8);
        board[r][f] = 'k';
        // The double push came from rank 7 over rank 6: both empty.
        if board[6][bp] != '.' || board[5][bp] != '.' {
            return None;
        }
        let n = self.below(4);
        self.scatter(&mut board, n);
        board[6][bp] = '.';
        board[5][bp] = '.';
        let ep = format!("{}6", (b'a' + bp as u8) as char);
        self.parse(&Self::fen(&board, 'w', "-", &ep), false)
    }

    /// Kings and rooks on castling squares with rights; random pieces that
    /// may attack or block the path.
    fn castling(&mut self) -> Option<Position> {
        let mut board: Board = [['.'; 8]; 8];
        let c960 = self.chess960 && self.chance(50);
        let (king, left, right) = if c960 {
            let k = 1 + self.below(6);
            (k, self.below(k), k + 1 + self.below(7 - k))
        } else {
            (4, 0, 7)
        };
        let mut rights = String::new();
        for (rank, upper) in [(0usize, true), (7, false)] {
            let case = |c: char| if upper { c.to_ascii_uppercase() } else { c };
            board[rank][king] = case('k');
            for file in [right, left] {
                if self.chance(80) {
                    board[rank][file] = case('r');
                    rights.push(if c960 {
                        case((b'a' + file as u8) as char)
                    } else if file > king {
                        case('k')
                    } else {
                        case('q')
                    });
                }
            }
        }
        if rights.is_empty() {
            return None;
        }
        let n = 1 + self.below(5);
        self.scatter(&mut board, n);
        let side = if self.chance(50) { 'w' } else { 'b' };
        self.parse(&Self::fen(&board, side, &rights, "-"), c960)
    }

    /// Pawns on the seventh rank with pieces to capture on the eighth.
    fn promotion(&mut self) -> Option<Position> {
        let mut board: Board = [['.'; 8]; 8];
        for _ in 0..1 + self.below(3) {
            let f = self.below(8);
            board[6][f] = 'P';
            if self.chance(60) {
                let g = if f == 0 { 1 } else { f - 1 };
                board[7][g] = b"nbrq"[self.below(4)] as char;
            }
        }
        let (r, f) = self.empty_square(&board, 0..8);
        board[r][f] = 'K';
        let (r, f) = self.empty_square(&board, 0..8);
        board[r][f] = 'k';
        let n = self.below(4);
        self.scatter(&mut board, n);
        self.parse(&Self::fen(&board, 'w', "-", "-"), false)
    }

    /// Kings and random pieces, kept when the side to move is in check or
    /// has a piece pinned; double checks are looked for first.
    fn checks(&mut self) -> Option<Position> {
        let want_double = self.chance(50);
        for _ in 0..200 {
            let mut board: Board = [['.'; 8]; 8];
            let (r, f) = self.empty_square(&board, 0..8);
            board[r][f] = 'K';
            let (r, f) = self.empty_square(&board, 0..8);
            board[r][f] = 'k';
            let n = 3 + self.below(5);
            self.scatter(&mut board, n);
            let Some(pos) = self.parse(&Self::fen(&board, 'w', "-", "-"), false) else {
                continue;
            };
            let checkers = pos.checkers().len();
            if (want_double && checkers >= 2) || (!want_double && checkers >= 1) {
                return Some(pos);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_positions() {
        let mut a = RandomPositions::new(7, true);
        let mut b = RandomPositions::new(7, true);
        for _ in 0..200 {
            assert_eq!(a.next_position().0.to_fen(), b.next_position().0.to_fen());
        }
    }

    #[test]
    fn every_motif_occurs_and_the_hard_cases_are_there() {
        let mut g = RandomPositions::new(1, true);
        let (mut ep, mut castle960, mut underpromo, mut double_check) = (0, 0, 0, 0);
        let mut motifs = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            let (pos, motif) = g.next_position();
            motifs.insert(motif.name());
            let moves = pos.legal_moves();
            ep += usize::from(moves.iter().any(|m| m.kind() == MoveKind::EnPassant));
            underpromo += usize::from(
                moves
                    .iter()
                    .any(|m| m.promotion().is_some_and(|p| p != Piece::Queen)),
            );
            castle960 += usize::from(
                pos.is_chess960() && moves.iter().any(|m| m.kind() == MoveKind::Castling),
            );
            double_check += usize::from(pos.checkers().len() >= 2);
        }
        assert_eq!(motifs.len(), 5, "{motifs:?}");
        for (name, n) in [
            ("en passant", ep),
            ("Chess960 castling", castle960),
            ("under-promotion", underpromo),
            ("double check", double_check),
        ] {
            assert!(n >= 20, "{name}: {n} of 2000");
        }
    }
}
