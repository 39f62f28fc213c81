//! Integration tests: one binary, one module per area.

mod common;

mod cli;
mod compare;
mod engines;
mod fen_corpus;
mod hashing;
mod layers;
mod movegen;
mod parallel;
mod protocols;
mod reference;
mod reports;
mod resume;
mod schemas;
mod search;
mod stats;
mod stockfish;
mod suites;
mod terminal;
mod trust;
mod tryout;
mod tt;
mod units;
mod versus;
