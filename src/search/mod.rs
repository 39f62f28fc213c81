//! The search mode: a minimal alpha-beta searcher over a transactional
//! transposition table.
//!
//! Owns the score types and mate constants ([`score`]), the evaluation
//! ([`eval`]), the transactional TT ([`tt`]) and the iterative-deepening
//! alpha-beta search with aspiration windows ([`search()`]). Uses the
//! `chess` layer only. Inside the layer, `score` depends on nothing, `tt` on
//! `score`, and the searcher on all three.

mod alphabeta;
pub mod eval;
pub mod score;
pub mod tt;

pub use alphabeta::{
    DEFAULT_ASPIRATION, IterationInfo, Limits, MAX_DEPTH, OnFail, SearchOptions, SearchResult,
    SearchState, SearchStats, search, search_resumable,
};
pub use score::{INFINITY, MATE, MAX_PLY, Score};
