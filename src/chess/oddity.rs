//! Game-impossible but countable positions: [`Position::oddities`].
//!
//! Some published suites contain positions no game can reach, for example
//! a king in check from three pieces. They are still well-defined trees, and
//! perft counts them (Stockfish does too), so they are accepted; these
//! checks let the CLI warn that such a count says nothing about real games.

use std::fmt;

use crate::chess::attacks::{between, line};
use crate::chess::piece::{Color, Piece};
use crate::chess::position::Position;
use crate::chess::square::{Rank, Square};

/// One reason a position cannot arise in a game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Oddity {
    /// Three or more pieces give check (one move gives at most two checks).
    /// Witness: `4k3/8/8/8/1b6/8/2n1r3/4K3 w - - 0 1` (e1 attacked by b4,
    /// c2 and e2).
    ManyCheckers {
        /// The number of checkers.
        count: u32,
    },
    /// Two checkers on one line through the king (on opposite sides of it):
    /// neither can have moved or been uncovered last.
    /// Witness: `4k3/8/8/8/8/8/8/r3K2r w - - 0 1`.
    AlignedCheckers {
        /// The king in check.
        king: Square,
        /// The two checkers.
        checkers: [Square; 2],
    },
    /// The en-passant square says the last move was a double pawn push, but
    /// the side to move is in check from a piece that push can neither have
    /// moved nor uncovered.
    /// Witness: `k3r3/8/8/2pP4/8/8/8/4K3 w - c6 0 1` (c7-c5 cannot have
    /// given the check from e8).
    CheckContradictsEnPassant {
        /// The claimed en-passant square.
        ep: Square,
        /// A checker the double push cannot explain.
        checker: Square,
    },
}

impl Oddity {
    /// A stable machine-readable name.
    pub fn kind(&self) -> &'static str {
        match self {
            Oddity::ManyCheckers { .. } => "three_or_more_checkers",
            Oddity::AlignedCheckers { .. } => "aligned_checkers",
            Oddity::CheckContradictsEnPassant { .. } => "check_contradicts_en_passant",
        }
    }
}

impl fmt::Display for Oddity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Oddity::ManyCheckers { count } => write!(
                f,
                "{count} pieces give check: no game reaches this position (counted all the same)"
            ),
            Oddity::AlignedCheckers { king, checkers } => write!(
                f,
                "{} and {} give check along one line through the king on {king}: no game reaches this position (counted all the same)",
                checkers[0], checkers[1]
            ),
            Oddity::CheckContradictsEnPassant { ep, checker } => write!(
                f,
                "en-passant square {ep} says the last move was a double pawn push, but the check from {checker} cannot follow from it: no game reaches this position (counted all the same)"
            ),
        }
    }
}

impl Position {
    /// Why this position cannot arise in a game, if it cannot (see [`Oddity`]).
    /// Uses the en-passant square the position keeps (only when a capture
    /// is legal); [`oddities_with_ep`](Self::oddities_with_ep) takes the one
    /// a FEN claims.
    pub fn oddities(&self) -> Vec<Oddity> {
        self.oddities_with_ep(self.ep_square())
    }

    /// [`oddities`](Self::oddities), with `claimed_ep` as the en-passant
    /// square (a FEN's field, which the position drops when no capture on
    /// it is legal, but which still says what the last move was).
    pub fn oddities_with_ep(&self, claimed_ep: Option<Square>) -> Vec<Oddity> {
        let mut out = Vec::new();
        let checkers = self.checkers();
        let king = self.king(self.side_to_move());
        if checkers.len() >= 3 {
            out.push(Oddity::ManyCheckers {
                count: checkers.len(),
            });
        }
        if checkers.len() == 2 {
            let a = checkers.lsb();
            let b = checkers.msb();
            // Aligned through the king: the king lies between the two.
            if line(a, b).contains(king) && between(a, b).contains(king) {
                out.push(Oddity::AlignedCheckers {
                    king,
                    checkers: [a, b],
                });
            }
        }
        if let Some(ep) = claimed_ep {
            let white = self.side_to_move() == Color::White;
            // For white to move, black pushed from rank 7 over `ep` (rank 6) to rank 5.
            let (pushed, start) = if white {
                (ep.offset(0, -1), ep.offset(0, 1))
            } else {
                (ep.offset(0, 1), ep.offset(0, -1))
            };
            let pusher = !self.side_to_move();
            if ep.rank() == Rank::Sixth.relative(white)
                && let (Some(pushed), Some(start)) = (pushed, start)
                && self.colored(pusher, Piece::Pawn).contains(pushed)
            {
                for checker in checkers {
                    // The pushed pawn itself, or a slider uncovered by the
                    // pawn leaving its start square.
                    let explained = checker == pushed || between(checker, king).contains(start);
                    if !explained {
                        out.push(Oddity::CheckContradictsEnPassant { ep, checker });
                        break;
                    }
                }
            }
        }
        out
    }
}

/// The en-passant square a FEN's fourth field claims, if it names one
/// (the text is not otherwise checked here).
pub fn claimed_ep(fen: &str) -> Option<Square> {
    fen.split_whitespace().nth(3).and_then(Square::parse)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn odd(fen: &str) -> Vec<&'static str> {
        let pos = Position::from_fen(fen).unwrap();
        pos.oddities_with_ep(claimed_ep(fen))
            .iter()
            .map(|o| o.kind())
            .collect()
    }

    #[test]
    fn game_positions_have_no_oddities() {
        assert!(odd(crate::chess::fen::STARTPOS).is_empty());
        assert!(odd(crate::chess::fen::KIWIPETE).is_empty());
        // Double check by a knight and an uncovered rook: possible.
        assert!(odd("4k3/8/5N2/8/8/8/8/4R1K1 b - - 0 1").is_empty());
        // Check by the pushed pawn (c2-c4), with its en-passant square.
        assert!(odd("8/8/8/1k6/2P5/8/8/7K b - c3 0 1").is_empty());
        // Check uncovered by the push: b2-b4 opens the a1-h8 diagonal.
        assert!(odd("8/6k1/8/8/1Pp5/8/8/B6K b - b3 0 1").is_empty());
    }

    #[test]
    fn three_checkers_are_named() {
        assert_eq!(
            odd("4k3/8/8/8/1b6/8/2n1r3/4K3 w - - 0 1"),
            ["three_or_more_checkers"]
        );
    }

    #[test]
    fn two_checkers_on_one_line_through_the_king_are_named() {
        assert_eq!(odd("4k3/8/8/8/8/8/8/r3K2r w - - 0 1"), ["aligned_checkers"]);
        // Two checkers, not aligned through the king: possible.
        assert!(odd("4k3/8/8/8/8/8/3n4/r3K3 w - - 0 1").is_empty());
    }

    #[test]
    fn check_contradicting_the_en_passant_square_is_named() {
        // Black just pushed c7-c5 (ep c6), yet the black rook on e8 checks
        // the white king on e1: the push can neither have moved nor
        // uncovered it.
        assert_eq!(
            odd("k3r3/8/8/2pP4/8/8/8/4K3 w - c6 0 1"),
            ["check_contradicts_en_passant"]
        );
    }
}
