//! What the caller sets: when to stop ([`Limits`]), how to search
//! ([`SearchOptions`]) and what becomes of a failed aspiration window's TT
//! entries ([`OnFail`]).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::DEFAULT_ASPIRATION;

/// When to stop. Every limit given applies; with none, the search runs to
/// [`MAX_DEPTH`](super::MAX_DEPTH) (or until `stop` is set).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Node budget (main search plus quiescence nodes).
    pub nodes: Option<u64>,
    /// Wall-clock budget.
    pub movetime: Option<Duration>,
    /// Set it from another thread to stop (UCI `stop`).
    pub stop: Option<Arc<AtomicBool>>,
}

impl Limits {
    /// Search to `depth` plies.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Search about `nodes` nodes.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// Search for `time`.
    pub fn movetime(time: Duration) -> Limits {
        Limits {
            movetime: Some(time),
            ..Limits::default()
        }
    }
}

/// What to do with the TT entries of an aspiration window that failed.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnFail {
    /// Roll the transaction back: its entries read as empty. Entries it
    /// overwrote are not restored.
    Rollback,
    /// Commit it anyway: a failed window's entries are still valid bounds.
    Commit,
}

/// How to search.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Aspiration half-width in centipawns around the previous iteration's
    /// score; 0 = full window. After a fail the window widens on the failing
    /// side by the width, doubling each time.
    pub aspiration: i32,
    /// TT policy after a failed window.
    pub on_fail: OnFail,
    /// Principal variation search (null-window searches after the first
    /// move). Off = pure alpha-beta.
    pub pvs: bool,
    /// Cut off on a TT entry only when its depth equals the node's depth
    /// (normally: at least the node's depth). With `pvs` off this makes the
    /// root score independent of the TT (see the module docs).
    pub exact_depth_cutoffs: bool,
    /// Search threads (lazy SMP): the main thread plus `threads - 1`
    /// helpers searching the same root over the same TT (each with its own
    /// handle and transactions), odd helpers one ply ahead. Helpers need a
    /// TT; without one the search is single-threaded.
    pub threads: usize,
    /// Restartable nodes: an aborted [`search_resumable`](super::search_resumable) leaves its state
    /// for the next search of the same root, which continues it. Off: every
    /// search starts afresh (as [`search`](fn@super::search) always does).
    pub restart: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            aspiration: DEFAULT_ASPIRATION,
            on_fail: OnFail::Rollback,
            pvs: true,
            exact_depth_cutoffs: false,
            threads: 1,
            restart: true,
        }
    }
}

impl SearchOptions {
    /// The reference mode: pure alpha-beta, TT cut-offs only at equal depth,
    /// with the given aspiration width and policy.
    pub fn reference(aspiration: i32, on_fail: OnFail) -> SearchOptions {
        SearchOptions {
            aspiration,
            on_fail,
            pvs: false,
            exact_depth_cutoffs: true,
            threads: 1,
            restart: true,
        }
    }
}
