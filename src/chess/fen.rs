//! FEN and EPD: parsing and writing.
//!
//! Accepted: 6-field FEN, 4-field EPD position (clocks default to `0 1`),
//! castling as `KQkq`, X-FEN (`KQkq` meaning the outermost rook, file letters
//! for an inner one) and Shredder-FEN (`HAha`: the castling rooks' files).
//! Shredder letters switch Chess960 notation on.
//!
//! Two error types keep syntax and legality apart: [`FenError`] says which field
//! is malformed and quotes it; [`PositionError`] says which rule a well-formed
//! position breaks. [`InvalidFen`] is either. Parsing never panics.

use std::fmt::Write as _;

use thiserror::Error;

use crate::chess::attacks::king_attacks;
use crate::chess::bitboard::Bitboard;
use crate::chess::piece::{Color, Piece};
use crate::chess::position::Position;
use crate::chess::square::{File, Rank, Square};
use crate::chess::zobrist::Zobrist;

/// The standard start position.
pub const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// "Kiwipete", position 2 of the Chess Programming Wiki perft page (by Peter McKenzie).
pub const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// Names accepted in place of a FEN.
pub const POSITION_NAMES: [&str; 6] = ["startpos", "kiwipete", "cpw3", "cpw4", "cpw5", "cpw6"];

/// The FEN of a named position (Chess Programming Wiki "Perft Results" 1-6).
pub fn named_position(name: &str) -> Option<&'static str> {
    Some(match name {
        "startpos" | "start" => STARTPOS,
        "kiwipete" | "cpw2" => KIWIPETE,
        "cpw3" => "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "cpw4" => "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "cpw5" => "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "cpw6" => "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        _ => return None,
    })
}

impl Position {
    /// The standard start position.
    pub fn startpos() -> Position {
        Position::from_fen(STARTPOS).expect("start position FEN is valid")
    }
}

/// Quotes at most 80 characters of user text in an error message.
/// Longest quotation of user text in an error message, in characters.
pub const QUOTE_CHARS: usize = 80;

/// `text` for an error message: its first [`QUOTE_CHARS`] characters, and
/// when it is longer `...` and its full length, so a hostile argument of
/// megabytes is never echoed back whole.
pub fn quote(text: &str) -> String {
    let mut s: String = text.chars().take(QUOTE_CHARS).collect();
    if text.chars().nth(QUOTE_CHARS).is_some() {
        s.push_str(&format!("... ({} characters)", text.chars().count()));
    }
    s
}

/// Why a clock field is not a valid number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberProblem {
    /// Not made of decimal digits.
    NotANumber,
    /// Starts with a minus sign.
    Negative,
    /// Larger than the field allows.
    TooLarge,
}

impl std::fmt::Display for NumberProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NumberProblem::NotANumber => "is not a decimal number",
            NumberProblem::Negative => "is negative",
            NumberProblem::TooLarge => "is larger than 65535",
        })
    }
}

/// A FEN that is not well formed. Every variant names the field and quotes the text.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FenError {
    /// Nothing but whitespace.
    #[error("empty FEN")]
    Empty,
    /// Not 4 (EPD) or 6 (FEN) fields.
    #[error(
        "FEN has {count} fields, expected 6 (board side castling en-passant halfmove fullmove) or 4: '{text}'"
    )]
    FieldCount {
        /// Fields found.
        count: usize,
        /// The whole input.
        text: String,
    },
    /// A character that is no piece letter, digit 1-8 or `/`.
    #[error("board field: invalid character '{ch}' in rank {rank}: '{text}'")]
    BoardChar {
        /// The offending character.
        ch: char,
        /// Rank number (8 = first rank written).
        rank: u8,
        /// The board field.
        text: String,
    },
    /// A rank that does not describe exactly 8 squares.
    #[error("board field: rank {rank} has {squares} squares, expected 8: '{text}'")]
    RankSquares {
        /// Rank number (8 = first rank written).
        rank: u8,
        /// Squares described.
        squares: usize,
        /// The board field.
        text: String,
    },
    /// Not 8 ranks.
    #[error("board field: {count} ranks, expected 8: '{text}'")]
    RankCount {
        /// Ranks found.
        count: usize,
        /// The board field.
        text: String,
    },
    /// Side to move other than `w` or `b`.
    #[error("side-to-move field: expected 'w' or 'b', found '{text}'")]
    Side {
        /// The field.
        text: String,
    },
    /// Malformed castling field.
    #[error("castling field: {reason}: '{text}'")]
    Castling {
        /// What is wrong.
        reason: &'static str,
        /// The field.
        text: String,
    },
    /// Malformed en-passant field.
    #[error("en-passant field: expected '-' or a square on rank 3 or 6, found '{text}'")]
    EnPassant {
        /// The field.
        text: String,
    },
    /// Halfmove clock not a number in range.
    #[error("halfmove-clock field: '{text}' {problem}")]
    Halfmove {
        /// The field.
        text: String,
        /// What is wrong.
        problem: NumberProblem,
    },
    /// Fullmove number not a number in range.
    #[error("fullmove-number field: '{text}' {problem}")]
    Fullmove {
        /// The field.
        text: String,
        /// What is wrong.
        problem: NumberProblem,
    },
}

/// A well-formed FEN describing a position that the rules do not allow.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PositionError {
    /// Not exactly one king of a colour.
    #[error("{color} has {count} kings, expected exactly 1")]
    KingCount {
        /// The colour.
        color: Color,
        /// Kings found.
        count: u32,
    },
    /// The kings touch.
    #[error("the kings are on adjacent squares {white} and {black}")]
    KingsAdjacent {
        /// White king.
        white: Square,
        /// Black king.
        black: Square,
    },
    /// The side that just moved left its king in check.
    #[error("{color} is not to move but is in check (from {checkers})")]
    OpponentInCheck {
        /// Colour of the side not to move.
        color: Color,
        /// The checking squares, space separated.
        checkers: String,
    },
    /// A pawn on rank 1 or 8.
    #[error("{color} pawn on {square}: pawns cannot stand on the first or last rank")]
    PawnOnBackRank {
        /// Pawn colour.
        color: Color,
        /// Its square.
        square: Square,
    },
    /// More pieces than a game can have.
    #[error("{color} has {detail}")]
    PieceCount {
        /// The colour.
        color: Color,
        /// What is impossible.
        detail: String,
    },
    /// A castling right whose king is not where castling needs it.
    #[error("castling right '{right}': {detail}")]
    CastlingKing {
        /// The castling letter.
        right: char,
        /// What is wrong.
        detail: String,
    },
    /// A castling right whose rook is not where castling needs it.
    #[error("castling right '{right}': {detail}")]
    CastlingRook {
        /// The castling letter.
        right: char,
        /// What is wrong.
        detail: String,
    },
    /// An en-passant square no double push can have produced.
    #[error("en-passant square {square}: {detail}")]
    EnPassant {
        /// The square.
        square: Square,
        /// What is wrong.
        detail: String,
    },
}

/// Either kind of FEN problem.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum InvalidFen {
    /// Malformed text.
    #[error("invalid FEN: {0}")]
    Syntax(#[from] FenError),
    /// Illegal position.
    #[error("illegal position: {0}")]
    Illegal(#[from] PositionError),
}

fn parse_clock(text: &str) -> Result<u16, NumberProblem> {
    if let Some(rest) = text.strip_prefix('-') {
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
            return Err(NumberProblem::Negative);
        }
        return Err(NumberProblem::NotANumber);
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NumberProblem::NotANumber);
    }
    text.parse::<u16>().map_err(|_| NumberProblem::TooLarge)
}

/// One castling letter before it is resolved against the board.
#[derive(Clone, Copy)]
enum CastleSpec {
    Outer(bool),
    File(File),
}

impl Position {
    /// Parses a FEN (6 fields) or an EPD position (4 fields, clocks `0 1`) with
    /// standard castling notation unless the castling field uses Shredder file
    /// letters (which switch Chess960 on).
    pub fn from_fen(fen: &str) -> Result<Position, InvalidFen> {
        Position::from_fen_with(fen, false, Zobrist::DEFAULT)
    }

    /// Parses a FEN in Chess960 mode: `KQkq` are X-FEN (outermost rook) and
    /// castling moves are written king-takes-rook.
    pub fn from_fen_960(fen: &str) -> Result<Position, InvalidFen> {
        Position::from_fen_with(fen, true, Zobrist::DEFAULT)
    }

    /// Parses a FEN with the given notation mode and key set.
    pub fn from_fen_with(
        fen: &str,
        chess960: bool,
        keys: &'static Zobrist,
    ) -> Result<Position, InvalidFen> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        match fields.len() {
            0 => Err(FenError::Empty.into()),
            4 => Position::from_fields(&fields, None, chess960, keys),
            6 => Position::from_fields(&fields[..4], Some((fields[4], fields[5])), chess960, keys),
            count => Err(FenError::FieldCount {
                count,
                text: quote(fen.trim()),
            }
            .into()),
        }
    }

    /// Builds a position from the 4 position fields and optional clocks.
    pub(crate) fn from_fields(
        fields: &[&str],
        clocks: Option<(&str, &str)>,
        chess960: bool,
        keys: &'static Zobrist,
    ) -> Result<Position, InvalidFen> {
        let [board, side, castling, ep] = fields else {
            return Err(FenError::FieldCount {
                count: fields.len(),
                text: quote(&fields.join(" ")),
            }
            .into());
        };
        let mut pos = Position::empty(keys);
        parse_board(&mut pos, board)?;
        pos.side = match *side {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(FenError::Side { text: quote(other) }.into());
            }
        };
        let specs = parse_castling_field(castling)?;
        let ep_square = if *ep == "-" {
            None
        } else {
            let sq = Square::parse(ep)
                .filter(|s| matches!(s.rank(), Rank::Third | Rank::Sixth))
                .ok_or_else(|| FenError::EnPassant { text: quote(ep) })?;
            Some(sq)
        };
        if let Some((half, full)) = clocks {
            pos.halfmove = parse_clock(half).map_err(|problem| FenError::Halfmove {
                text: quote(half),
                problem,
            })?;
            pos.fullmove = parse_clock(full).map_err(|problem| FenError::Fullmove {
                text: quote(full),
                problem,
            })?;
        }

        // ----- legality -----
        validate_material(&pos)?;
        let uses_files = specs
            .iter()
            .any(|(_, _, s)| matches!(s, CastleSpec::File(_)));
        pos.chess960 = chess960 || uses_files;
        resolve_castling(&mut pos, &specs)?;
        if let Some(sq) = ep_square {
            validate_ep(&pos, sq)?;
            let pushed = Square::new(sq.file(), Rank::Fifth.relative(pos.side == Color::White));
            // Keep the square only if a capture is legal (the key ignores it otherwise).
            let capturers = crate::chess::attacks::pawn_attacks(!pos.side, sq)
                & pos.colored(pos.side, Piece::Pawn);
            if capturers
                .into_iter()
                .any(|c| pos.ep_capture_is_legal(pos.side, c, sq, pushed))
            {
                pos.ep = Some(sq);
            }
        }
        pos.hash = pos.compute_hash();
        Ok(pos)
    }

    /// Writes the position as a 6-field FEN. Castling uses `KQkq` in standard
    /// mode and Shredder letters in Chess960 mode.
    pub fn to_fen(&self) -> String {
        let mut s = String::with_capacity(90);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let sq = Square::new(File::from_index(file), Rank::from_index(rank));
                match self.piece_on(sq) {
                    Some((color, piece)) => {
                        if empty > 0 {
                            let _ = write!(s, "{empty}");
                            empty = 0;
                        }
                        s.push(piece.fen_char(color));
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                let _ = write!(s, "{empty}");
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s.push(' ');
        s.push(self.side.to_char());
        s.push(' ');
        s.push_str(&self.castling_string());
        s.push(' ');
        match self.ep {
            Some(sq) => {
                let _ = write!(s, "{sq}");
            }
            None => s.push('-'),
        }
        let _ = write!(s, " {} {}", self.halfmove, self.fullmove);
        s
    }

    /// The castling field: `KQkq` style in standard mode, Shredder letters in Chess960.
    pub fn castling_string(&self) -> String {
        let mut s = String::new();
        for color in Color::ALL {
            for side in [
                crate::chess::position::CastleSide::King,
                crate::chess::position::CastleSide::Queen,
            ] {
                if let Some(rook) = self.castle_rook(color, side) {
                    let c = if self.chess960 {
                        rook.file().to_char()
                    } else if side == crate::chess::position::CastleSide::King {
                        'k'
                    } else {
                        'q'
                    };
                    s.push(if color == Color::White {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    });
                }
            }
        }
        if s.is_empty() {
            s.push('-');
        }
        s
    }
}

fn parse_board(pos: &mut Position, board: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount {
            count: ranks.len(),
            text: quote(board),
        });
    }
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank_no = 8 - i as u8;
        let mut file = 0usize;
        for ch in rank_text.chars() {
            if let Some(d) = ch.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += d as usize;
            } else if let Some(piece) = Piece::from_char(ch).filter(|_| ch.is_ascii()) {
                if file < 8 {
                    let color = if ch.is_ascii_uppercase() {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let sq = Square::new(File::from_index(file), Rank::from_index(7 - i));
                    pos.pieces[piece.index()] |= sq.bitboard();
                    pos.colors[color.index()] |= sq.bitboard();
                }
                file += 1;
            } else {
                return Err(FenError::BoardChar {
                    ch,
                    rank: rank_no,
                    text: quote(board),
                });
            }
            if file > 8 {
                break;
            }
        }
        if file != 8 {
            // Count the squares described, without overflow on huge inputs.
            let squares = rank_text
                .chars()
                .map(|c| c.to_digit(10).map_or(1, |d| d as usize))
                .fold(0usize, |a, b| a.saturating_add(b));
            return Err(FenError::RankSquares {
                rank: rank_no,
                squares,
                text: quote(board),
            });
        }
    }
    Ok(())
}

fn parse_castling_field(field: &str) -> Result<Vec<(char, Color, CastleSpec)>, FenError> {
    let err = |reason| FenError::Castling {
        reason,
        text: quote(field),
    };
    if field == "-" {
        return Ok(Vec::new());
    }
    let mut specs = Vec::new();
    for ch in field.chars() {
        let color = if ch.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let spec = match ch.to_ascii_lowercase() {
            'k' if ch.is_ascii() => CastleSpec::Outer(true),
            'q' if ch.is_ascii() => CastleSpec::Outer(false),
            c @ 'a'..='h' if ch.is_ascii() => {
                CastleSpec::File(File::from_index(c as usize - 'a' as usize))
            }
            _ => return Err(err("expected '-' or letters from KQkq / A-H a-h")),
        };
        if specs.iter().any(|&(c, _, _)| c == ch) {
            return Err(err("a castling letter appears twice"));
        }
        specs.push((ch, color, spec));
        if specs.iter().filter(|(_, c, _)| *c == color).count() > 2 {
            return Err(err("more than two castling rights for one colour"));
        }
    }
    Ok(specs)
}

fn validate_material(pos: &Position) -> Result<(), PositionError> {
    for color in Color::ALL {
        let kings = pos.colored(color, Piece::King).len();
        if kings != 1 {
            return Err(PositionError::KingCount {
                color,
                count: kings,
            });
        }
    }
    let (wk, bk) = (pos.king(Color::White), pos.king(Color::Black));
    if king_attacks(wk).contains(bk) {
        return Err(PositionError::KingsAdjacent {
            white: wk,
            black: bk,
        });
    }
    let back_ranks = Rank::First.bitboard() | Rank::Eighth.bitboard();
    if let Some(sq) = (pos.pieces(Piece::Pawn) & back_ranks).first() {
        let color = if pos.colors(Color::White).contains(sq) {
            Color::White
        } else {
            Color::Black
        };
        return Err(PositionError::PawnOnBackRank { color, square: sq });
    }
    for color in Color::ALL {
        let count = |p| pos.colored(color, p).len();
        let total = pos.colors(color).len();
        let pawns = count(Piece::Pawn);
        if total > 16 {
            return Err(PositionError::PieceCount {
                color,
                detail: format!("{total} pieces, at most 16 are possible"),
            });
        }
        if pawns > 8 {
            return Err(PositionError::PieceCount {
                color,
                detail: format!("{pawns} pawns, at most 8 are possible"),
            });
        }
        let promoted = count(Piece::Knight).saturating_sub(2)
            + count(Piece::Bishop).saturating_sub(2)
            + count(Piece::Rook).saturating_sub(2)
            + count(Piece::Queen).saturating_sub(1);
        if promoted > 8 - pawns {
            return Err(PositionError::PieceCount {
                color,
                detail: format!(
                    "{promoted} pieces beyond the initial set but {pawns} pawns: at most {} promotions are possible",
                    8 - pawns
                ),
            });
        }
    }
    let them = !pos.side;
    let checkers = pos.attackers_to(pos.king(them), pos.occupied()) & pos.colors(pos.side);
    if checkers.nonempty() {
        let list: Vec<String> = checkers.map(|s| s.to_string()).collect();
        return Err(PositionError::OpponentInCheck {
            color: them,
            checkers: list.join(" "),
        });
    }
    Ok(())
}

fn resolve_castling(
    pos: &mut Position,
    specs: &[(char, Color, CastleSpec)],
) -> Result<(), PositionError> {
    let mut rooks = Bitboard::EMPTY;
    for &(ch, color, spec) in specs {
        let back = Rank::First.relative(color == Color::White);
        let king = pos.king(color);
        if king.rank() != back {
            return Err(PositionError::CastlingKing {
                right: ch,
                detail: format!("the {color} king is on {king}, not on its back rank"),
            });
        }
        let own_rooks = pos.colored(color, Piece::Rook) & back.bitboard();
        let rook = match spec {
            CastleSpec::Outer(kingside) if !pos.chess960 => {
                if king.file() != File::E {
                    return Err(PositionError::CastlingKing {
                        right: ch,
                        detail: format!(
                            "the {color} king is on {king}, not on the e-file (for X-FEN use Chess960 mode)"
                        ),
                    });
                }
                let sq = Square::new(if kingside { File::H } else { File::A }, back);
                if !own_rooks.contains(sq) {
                    return Err(PositionError::CastlingRook {
                        right: ch,
                        detail: format!("no {color} rook on {sq}"),
                    });
                }
                sq
            }
            CastleSpec::Outer(kingside) => {
                let side_rooks = own_rooks
                    .filter(|r| (r.file() > king.file()) == kingside)
                    .collect::<Bitboard>();
                let found = if kingside {
                    side_rooks.into_iter().last()
                } else {
                    side_rooks.first()
                };
                found.ok_or_else(|| PositionError::CastlingRook {
                    right: ch,
                    detail: format!(
                        "no {color} rook on the {} side of the king on {back:?} rank",
                        if kingside { "h" } else { "a" }
                    ),
                })?
            }
            CastleSpec::File(file) => {
                let sq = Square::new(file, back);
                if !own_rooks.contains(sq) {
                    return Err(PositionError::CastlingRook {
                        right: ch,
                        detail: format!("no {color} rook on {sq}"),
                    });
                }
                if sq.file() == king.file() {
                    return Err(PositionError::CastlingRook {
                        right: ch,
                        detail: "the rook file is the king's file".to_string(),
                    });
                }
                sq
            }
        };
        let kingside = rook.file() > king.file();
        if (rooks & pos.colors(color))
            .into_iter()
            .any(|r| (r.file() > king.file()) == kingside)
        {
            return Err(PositionError::CastlingRook {
                right: ch,
                detail: format!("two {color} castling rights on the same side of the king"),
            });
        }
        rooks |= rook.bitboard();
    }
    pos.castle_rooks = rooks;
    Ok(())
}

fn validate_ep(pos: &Position, sq: Square) -> Result<(), PositionError> {
    let white = pos.side == Color::White;
    let err = |detail: &str| PositionError::EnPassant {
        square: sq,
        detail: detail.to_string(),
    };
    if sq.rank() != Rank::Sixth.relative(white) {
        return Err(err(if white {
            "with white to move it must be on rank 6"
        } else {
            "with black to move it must be on rank 3"
        }));
    }
    if pos.occupied().contains(sq) {
        return Err(err("the square is occupied"));
    }
    let origin = Square::new(sq.file(), Rank::Seventh.relative(white));
    if pos.occupied().contains(origin) {
        return Err(err("the square the pawn came from is occupied"));
    }
    let pushed = Square::new(sq.file(), Rank::Fifth.relative(white));
    if !pos.colored(!pos.side, Piece::Pawn).contains(pushed) {
        return Err(err(
            "no pawn of the side that just moved stands in front of it",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_round_trips() {
        let pos = Position::from_fen(STARTPOS).unwrap();
        assert_eq!(pos.to_fen(), STARTPOS);
        assert_eq!(pos.hash(), pos.compute_hash());
    }

    #[test]
    fn four_field_epd_defaults_clocks() {
        let pos = Position::from_fen("8/8/8/8/8/8/8/K6k w - -").unwrap();
        assert_eq!(pos.halfmove_clock(), 0);
        assert_eq!(pos.fullmove_number(), 1);
    }

    #[test]
    fn shredder_castling_switches_chess960_on() {
        let pos =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w AHah - 0 1").unwrap();
        assert!(pos.is_chess960());
        assert_eq!(pos.castle_rooks().len(), 4);
        assert_eq!(pos.castling_string(), "HAha");
    }

    #[test]
    fn ep_square_without_possible_capture_is_dropped() {
        let pos = Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
            .unwrap();
        assert_eq!(pos.ep_square(), None);
        let with_capture =
            Position::from_fen("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
                .unwrap();
        assert_eq!(with_capture.ep_square(), Some(Square::E3));
    }
}
