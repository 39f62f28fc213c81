//! Integration tests: one binary, one module per area.

mod common;

mod cli;
mod fen_corpus;
mod hashing;
mod movegen;
mod parallel;
mod search;
mod stockfish;
mod suites;
mod tt;
