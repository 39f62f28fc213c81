//! perft: chess move-generator validation and benchmarking.
//!
//! The library holds everything; the `perft` binary is a thin layer over it.

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod attacks;
pub mod bisect;
pub mod bitboard;
pub mod cli;
pub mod engine;
pub mod error;
pub mod eval;
pub mod fen;
pub mod hash;
mod leaf;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod piece;
pub mod position;
pub mod report;
pub mod search;
pub mod square;
pub mod suite;
pub mod tt;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use error::Error;
pub use fen::{FenError, InvalidFen, PositionError};
pub use moves::{Move, MoveKind, MoveList, PieceMoves};
pub use piece::{Color, Piece};
pub use position::{CastleSide, Position};
pub use square::{File, Rank, Square};
pub use zobrist::Zobrist;
