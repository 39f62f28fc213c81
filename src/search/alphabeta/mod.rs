//! A minimal alpha-beta search over the transactional TT ([`crate::search::tt`]).
//!
//! Iterative deepening; each search of the root inside an aspiration window is
//! one TT transaction, committed when the score lands inside the window and,
//! when it does not, rolled back or committed by [`OnFail`]. Inside: negamax
//! alpha-beta (principal variation search unless [`SearchOptions::pvs`] is
//! off), capture quiescence that does not stand pat in check, move ordering TT
//! move, MVV-LVA captures, two killers per ply, then quiet moves; checkmate,
//! stalemate, repetition and fifty-move draws; mate scores stored relative to
//! the node; a TT move is trusted only if `is_legal` accepts it (otherwise the
//! entry is a key collision and is ignored); a triangular PV table. Limits:
//! depth, nodes, movetime, and a stop flag.
//!
//! With [`SearchOptions::threads`] above 1, lazy SMP: helper threads (odd
//! ones one ply ahead) search the same root over the same shared TT, each
//! through its own handle ([`Tt::share`]) with its own transactions; the
//! main thread reports and decides, adopting a helper's iteration if the
//! helper completes the target depth first.
//!
//! # Restartable nodes
//!
//! [`search_resumable`] keeps the state of every node of the search in a
//! [`SearchState`] that outlives the call (H.G. Muller's restartable nodes):
//! when a node, time or stop limit aborts the search, every node on the path
//! to the aborted one leaves its frame there (move list in its current
//! order, index of the move being searched and whether that move was in its
//! null-window or its re-search, window, best move and score so far, node
//! counts of its moves at a PV node), beside the triangular PV table, the killers,
//! the aspiration window of the interrupted iteration, and its TT
//! transaction, which stays open. The next search of the same root (same
//! key and history, same options) follows the frames back in: each node
//! continues where it stopped, the interrupted iteration finishes, and
//! iterative deepening goes on. With one thread the chunks together are
//! exactly the uninterrupted search: the same nodes, TT stores and result.
//! A completed PV node begins its next iteration like a root: the root,
//! and every node of the previous iteration's PV that completed inside its
//! window, orders its moves (after the best one) by the nodes each took
//! then (kept per ply with the node's key).
//!
//! # Calling it (for example from a UCI `go depth N`)
//!
//! ```
//! use perft::search::{self, Limits, SearchOptions};
//! use perft::search::tt::Tt;
//! use perft::Position;
//!
//! let pos = Position::from_fen("6rk/7p/R2N3P/3r4/1P5K/P7/8/8 w - - 0 1")?;
//! let mut tt = Tt::new(16 << 20)?;
//! let history: &[u64] = &[]; // keys of the game positions before `pos`
//! let result = search::search(
//!     &pos,
//!     history,
//!     &Limits::depth(3),
//!     Some(&mut tt), // or None: no TT
//!     &SearchOptions::default(),
//!     |info| println!("{}", info.to_uci()),
//! )?;
//! assert_eq!(result.best_move_uci(), "d6f7"); // Nf7#
//! println!("bestmove {}", result.best_move_uci());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Reference mode
//!
//! [`SearchOptions::reference`] turns PVS off (pure alpha-beta) and lets a TT
//! entry cut off only at **exactly** the same remaining depth. The score of a
//! node then depends only on the position and the depth (as long as no
//! repetition below the root depends on the path to it), so the root score at
//! a fixed depth is the same with the TT off, on with rollback, on with commit,
//! and under any aspiration window. The test suite checks that.
//!
//! # Where each part lives
//!
//! * `threads`: [`search_resumable`], the main thread and its lazy-SMP
//!   helpers;
//! * `deepen`: one thread's searcher, iterative deepening, aspiration
//!   windows as TT transactions, limits;
//! * `negamax`: alpha-beta, quiescence, draws, the PV table;
//! * `ordering`: move ordering;
//! * `state`: restartable nodes ([`SearchState`]);
//! * `options`, `result`: what the caller passes in and gets back.

mod deepen;
mod negamax;
mod options;
mod ordering;
mod result;
mod state;
mod threads;

use crate::chess::position::Position;
use crate::search::tt::{Tt, TtError};

pub use options::{Limits, OnFail, SearchOptions};
pub use result::{IterationInfo, SearchResult, SearchStats};
pub use state::SearchState;
pub use threads::search_resumable;

/// Largest depth an iteration may have.
pub const MAX_DEPTH: u32 = 100;
/// Default aspiration half-width in centipawns (chosen by measurement: see
/// docs/search.md, "Measurements").
pub const DEFAULT_ASPIRATION: i32 = 50;

/// How often (in nodes) the clock and the stop flag are read.
const CHECK_EVERY: u64 = 1024;

/// Searches `pos` and returns the best move.
///
/// * `history`: Zobrist keys ([`Position::hash`]) of the game positions before
///   `pos`, oldest first, for repetition draws (may be empty).
/// * `tt`: the table, or `None` to search without one. The search calls
///   [`Tt::new_search`] once and runs one transaction per aspiration window
///   (per thread: helpers get their own handles, [`Tt::share`]).
/// * `on_iteration`: called after each iteration the main thread completes.
///
/// With [`SearchOptions::threads`] above 1 (and a TT), helper threads search
/// the same root until the main thread is done; the main thread decides the
/// best move. The node limit counts the main thread's nodes; the reported
/// node counts are those of all threads.
///
/// Errors only if the TT refuses an operation, which happens when the caller
/// left a transaction of its own open on it.
///
/// Every call starts afresh; an aborted search's state is dropped (its TT
/// transaction committed). [`search_resumable`] keeps it.
pub fn search(
    pos: &Position,
    history: &[u64],
    limits: &Limits,
    mut tt: Option<&mut Tt>,
    options: &SearchOptions,
    on_iteration: impl FnMut(&IterationInfo),
) -> Result<SearchResult, TtError> {
    let mut state = SearchState::new();
    let result = search_resumable(
        pos,
        history,
        limits,
        tt.as_deref_mut(),
        options,
        &mut state,
        on_iteration,
    )?;
    state.discard(tt)?;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use crate::search::score::{MATE, Score};

    #[test]
    fn mate_scores_convert_to_moves() {
        assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_internal(MATE - 5), Score::Mate(3));
        assert_eq!(Score::from_internal(-MATE), Score::Mate(0));
        assert_eq!(Score::from_internal(-(MATE - 2)), Score::Mate(-1));
        assert_eq!(Score::from_internal(-(MATE - 4)), Score::Mate(-2));
        assert_eq!(Score::from_internal(37), Score::Cp(37));
    }
}
