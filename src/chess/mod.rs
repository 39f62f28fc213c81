//! Chess rules, the bottom layer: squares, bitboards, pieces, attack tables,
//! Zobrist keys, the position (copy-make), FEN/EPD text, moves, and the legal
//! move generator with bulk counting.
//!
//! Uses nothing else of the crate; every other layer is built on it. Within
//! the layer the files depend downwards only: `square` <- `bitboard` <-
//! `piece`, `side`, `attacks`, `zobrist`, `moves` <- `position` <- `movegen`,
//! `fen`.

pub mod attacks;
pub mod bitboard;
pub mod cpu;
pub mod fen;
pub mod movegen;
pub mod moves;
pub mod oddity;
pub mod piece;
pub mod position;
pub mod reference;
pub mod side;
pub mod square;
pub mod zobrist;
