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

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::chess::moves::{Move, MoveKind, MoveList};
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::search::eval::{PIECE_VALUES, evaluate};
use crate::search::score::{INFINITY, MATE, MAX_PLY, Score, score_from_tt, score_to_tt};
use crate::search::tt::{Bound, Isolation, Tt, TtData, TtError, TtStats, Txn};

/// Largest depth an iteration may have.
pub const MAX_DEPTH: u32 = 100;
/// Default aspiration half-width in centipawns (chosen by measurement: see
/// README "perft search").
pub const DEFAULT_ASPIRATION: i32 = 50;

/// How often (in nodes) the clock and the stop flag are read.
const CHECK_EVERY: u64 = 1024;

/// Which search of its current move a node was in when it was aborted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    /// The full-window search (the first move, or any move without PVS).
    #[default]
    Full,
    /// The null-window search of a later move (PVS).
    Null,
    /// The full-window re-search after the null window failed high.
    Research,
}

/// One ply of the software stack: the triangular PV row of the ply and, for
/// the plies on the path of an aborted search, the node's saved state.
#[derive(Clone)]
struct Frame {
    /// PV row of this ply (the triangular PV table lives on the stack).
    pv: [Move; MAX_PLY + 1],
    /// Length of `pv`.
    pv_len: usize,
    /// The node was a quiescence node.
    quiesce: bool,
    /// Remaining depth (main search).
    depth: i32,
    /// Window: alpha as improved so far, alpha on entry, beta.
    alpha: i32,
    alpha_orig: i32,
    beta: i32,
    /// Best score and move so far.
    best: i32,
    best_move: Move,
    /// Position key (pushed on the repetition stack again on resume).
    key: u64,
    /// The move list in its current (partly selection-sorted) order, and the
    /// ordering scores beside it.
    moves: MoveList,
    order: [i32; crate::chess::moves::MAX_MOVES],
    /// Index of the move being searched.
    next: usize,
    /// Which search of that move was running.
    phase: Phase,
    /// At the root: the node count when the current move began.
    nodes_before: u64,
}

impl Default for Frame {
    fn default() -> Frame {
        Frame {
            pv: [Move::NONE; MAX_PLY + 1],
            pv_len: 0,
            quiesce: false,
            depth: 0,
            alpha: 0,
            alpha_orig: 0,
            beta: 0,
            best: 0,
            best_move: Move::NONE,
            key: 0,
            moves: MoveList::new(),
            order: [0; crate::chess::moves::MAX_MOVES],
            next: 0,
            phase: Phase::Full,
            nodes_before: 0,
        }
    }
}

/// The node counts a completed PV node kept for the next iteration.
#[derive(Clone, Debug, Default)]
struct PvCounts {
    key: u64,
    /// Moves with the nodes they took, most nodes first.
    counts: Vec<(Move, u64)>,
}

/// The iterative-deepening loop's state of an aborted iteration.
#[derive(Clone, Copy, Debug, Default)]
struct Iteration {
    depth: u32,
    alpha: i32,
    beta: i32,
    delta: i32,
    fails: u32,
    prev_score: i32,
    completed: u32,
}

/// What a resumed search must share with the aborted one.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Fingerprint {
    key: u64,
    history: Vec<u64>,
    aspiration: i32,
    on_fail: OnFail,
    pvs: bool,
    exact_depth: bool,
    threads: usize,
    tt: bool,
}

impl Fingerprint {
    fn of(pos: &Position, history: &[u64], options: &SearchOptions, tt: bool) -> Fingerprint {
        Fingerprint {
            key: pos.hash(),
            history: history.to_vec(),
            aspiration: options.aspiration,
            on_fail: options.on_fail,
            pvs: options.pvs,
            exact_depth: options.exact_depth_cutoffs,
            threads: options.threads.max(1),
            tt,
        }
    }
}

/// The software stack of restartable nodes: what an aborted search leaves
/// for the next search of the same root (see the module docs and
/// [`search_resumable`]). Create one per game (or per position) and pass it
/// to every search; a search of another root, with other options, or with
/// [`SearchOptions::restart`] off discards it.
///
/// While it holds an aborted search, the search's TT transaction is still
/// open on the TT handle it ran with: call [`SearchState::discard`] with that
/// TT before using the TT for anything else than resuming (a search of
/// another root through this state does it by itself).
///
/// ```
/// use perft::search::{self, Limits, SearchOptions, SearchState};
/// use perft::search::tt::Tt;
/// use perft::Position;
///
/// let pos = Position::from_fen("6rk/7p/R2N3P/3r4/1P5K/P7/8/8 w - - 0 1")?;
/// let (mut tt, mut state) = (Tt::new(1 << 20)?, SearchState::new());
/// let options = SearchOptions { threads: 1, ..SearchOptions::default() };
/// // `go nodes 200` until depth 5 is done: each call continues the last.
/// let limits = Limits { depth: Some(5), nodes: Some(200), ..Limits::default() };
/// let mut nodes = 0;
/// let last = loop {
///     let r = search::search_resumable(
///         &pos, &[], &limits, Some(&mut tt), &options, &mut state, |_| {},
///     )?;
///     nodes += r.stats.nodes;
///     if !r.stopped {
///         break r;
///     }
///     assert!(state.is_resumable());
/// };
/// // The same nodes as one uninterrupted search on a fresh table.
/// let mut fresh = Tt::new(1 << 20)?;
/// let whole = search::search(&pos, &[], &Limits::depth(5), Some(&mut fresh), &options, |_| {})?;
/// assert_eq!((nodes, last.best_move_uci()), (whole.stats.nodes, whole.best_move_uci()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Default)]
pub struct SearchState {
    /// One frame per ply (allocated by the first search).
    frames: Vec<Frame>,
    /// Frames `0..path` hold the nodes of an aborted search.
    path: usize,
    /// The aborted iteration; `None`: nothing to resume.
    iteration: Option<Iteration>,
    /// Root and options of the aborted search.
    fingerprint: Option<Fingerprint>,
    /// The open transaction of the aborted iteration.
    txn: Option<Txn>,
    killers: Vec<[Move; 2]>,
    /// Best move of the previous iteration, searched first at the root.
    root_hint: Move,
    /// Per ply: the last PV node completed there inside its window (its key,
    /// and the nodes each of its moves took, most first). The node of the
    /// same position in the next iteration orders its moves by them, like
    /// the root.
    pv_counts: Vec<PvCounts>,
    /// Nodes per move (by index in the node's list) of the PV nodes on the
    /// current path: `MAX_MOVES` slots per ply.
    counts_now: Vec<u64>,
    /// Counters since the chain of resumed searches began.
    stats: SearchStats,
    /// The last completed iteration: depth (0 = none), score, PV.
    done_depth: u32,
    done_score: i32,
    done_pv: Vec<Move>,
}

impl std::fmt::Debug for SearchState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchState")
            .field("path", &self.path)
            .field("iteration", &self.iteration)
            .field("txn", &self.txn)
            .field("done_depth", &self.done_depth)
            .finish_non_exhaustive()
    }
}

impl SearchState {
    /// An empty state: the next search starts afresh.
    pub fn new() -> SearchState {
        SearchState::default()
    }

    /// The depth of the aborted iteration a search of `pos` with these
    /// arguments would resume, or `None` if it would start afresh (nothing
    /// aborted, another root or history, other options, a depth limit below
    /// that iteration, [`SearchOptions::restart`] off, or not the TT handle
    /// whose transaction the aborted search left open).
    pub fn resumes(
        &self,
        pos: &Position,
        history: &[u64],
        limits: &Limits,
        tt: Option<&Tt>,
        options: &SearchOptions,
    ) -> Option<u32> {
        let it = self.iteration?;
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let same_txn = match tt {
            Some(tt) => tt.active().is_some() && tt.active() == self.txn,
            None => self.txn.is_none(),
        };
        (options.restart
            && it.depth <= max_depth
            && same_txn
            && self.fingerprint.as_ref()
                == Some(&Fingerprint::of(pos, history, options, tt.is_some())))
        .then_some(it.depth)
    }

    /// Whether an aborted search is held.
    pub fn is_resumable(&self) -> bool {
        self.iteration.is_some()
    }

    /// The nodes of the aborted search that a resumed one continues (the
    /// frames on the path from the root to where it stopped); 0 if none.
    pub fn path_len(&self) -> usize {
        if self.iteration.is_some() {
            self.path
        } else {
            0
        }
    }

    /// Forgets the aborted search. Its open transaction, if `tt` holds it, is
    /// committed (an abandoned search's entries are sound bounds: nodes cut
    /// short store nothing).
    pub fn discard(&mut self, tt: Option<&mut Tt>) -> Result<(), TtError> {
        if let (Some(tt), Some(txn)) = (tt, self.txn.take())
            && tt.active() == Some(txn)
        {
            tt.commit(txn)?;
        }
        *self = SearchState {
            frames: std::mem::take(&mut self.frames),
            ..SearchState::default()
        };
        Ok(())
    }
}

/// When to stop. Every limit given applies; with none, the search runs to
/// [`MAX_DEPTH`] (or until `stop` is set).
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
    /// Restartable nodes: an aborted [`search_resumable`] leaves its state
    /// for the next search of the same root, which continues it. Off: every
    /// search starts afresh (as [`search`] always does).
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

/// One completed iteration, passed to the `on_iteration` callback.
#[derive(Clone, Debug, serde::Serialize)]
pub struct IterationInfo {
    /// Depth in plies.
    pub depth: u32,
    /// Root score.
    pub score: Score,
    /// Nodes searched so far in this search (all iterations).
    pub nodes: u64,
    /// Time since the search started.
    #[serde(rename = "time_ms", serialize_with = "millis")]
    pub time: Duration,
    /// Nodes per second so far.
    pub nps: u64,
    /// Principal variation, UCI moves.
    pub pv: Vec<String>,
    /// Aspiration windows that failed in this iteration.
    pub aspiration_fails: u32,
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

impl IterationInfo {
    /// The UCI `info` line (without a newline):
    /// `info depth D score cp X|mate N nodes N nps N time MS pv ...`.
    pub fn to_uci(&self) -> String {
        let mut line = format!(
            "info depth {} score {} nodes {} nps {} time {}",
            self.depth,
            self.score,
            self.nodes,
            self.nps,
            self.time.as_millis()
        );
        if !self.pv.is_empty() {
            line.push_str(" pv ");
            line.push_str(&self.pv.join(" "));
        }
        line
    }
}

/// Counters of one search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SearchStats {
    /// All nodes (main search and quiescence).
    pub nodes: u64,
    /// Quiescence nodes.
    pub qnodes: u64,
    /// Cut-offs on a TT score.
    pub tt_cutoffs: u64,
    /// TT entries ignored because their move was illegal here (collisions).
    pub tt_collisions: u64,
    /// Aspiration windows that failed (low or high).
    pub aspiration_fails: u64,
}

/// The outcome of [`search`].
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The move to play; `None` only when the root has no legal move.
    pub best_move: Option<Move>,
    /// Score of the last completed iteration (`Mate(0)` or `Cp(0)` when the
    /// root is checkmate or stalemate; `None` if no iteration completed).
    pub score: Option<Score>,
    /// Deepest completed iteration (0 if none).
    pub depth: u32,
    /// Principal variation of the last completed iteration.
    pub pv: Vec<Move>,
    /// Search counters.
    pub stats: SearchStats,
    /// Wall-clock time.
    pub time: Duration,
    /// TT counters accumulated during this search (zero without a TT).
    pub tt: TtStats,
    /// True if a node, time or stop limit ended the search (the last
    /// iteration was abandoned; its partial result is not used for `score`).
    pub stopped: bool,
    /// The depth of the aborted iteration this search resumed
    /// ([`search_resumable`]), `None` if it started afresh.
    pub resumed: Option<u32>,
    chess960: bool,
}

impl SearchResult {
    /// The best move in UCI notation, `(none)` if there is none (as Stockfish
    /// writes it).
    pub fn best_move_uci(&self) -> String {
        self.best_move.map_or_else(
            || "(none)".to_string(),
            |m| m.to_uci(self.chess960).to_string(),
        )
    }
}

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

/// [`search`] with restartable nodes: `state` keeps every node's state when
/// a limit aborts the search, and a later call with the same `state`, root
/// (`pos` and `history`), options and TT handle continues that search where
/// it stopped instead of starting over ([`SearchResult::resumed`] says so).
/// With one thread, a search aborted and resumed any number of times does
/// exactly what the uninterrupted one does: same nodes, same result. With
/// helpers, the main thread resumes and the helpers start over at its depth.
///
/// A completed search, [`SearchOptions::restart`] off, or a call for another
/// root or options starts afresh (committing the transaction an aborted
/// search left open on `tt`). Limits are per call: `nodes` counts this
/// call's nodes.
pub fn search_resumable(
    pos: &Position,
    history: &[u64],
    limits: &Limits,
    mut tt: Option<&mut Tt>,
    options: &SearchOptions,
    state: &mut SearchState,
    mut on_iteration: impl FnMut(&IterationInfo),
) -> Result<SearchResult, TtError> {
    let start = Instant::now();
    let tt_before = tt.as_ref().map(|t| t.stats()).unwrap_or_default();
    let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    let resumed = state.resumes(pos, history, limits, tt.as_deref(), options);
    if resumed.is_none() {
        state.discard(tt.as_deref_mut())?;
        if let Some(tt) = tt.as_deref_mut() {
            tt.new_search()?;
        }
    }
    let helpers = match tt.as_deref() {
        Some(tt) => (1..options.threads.max(1)).map(|_| tt.share()).collect(),
        None => Vec::new(),
    };
    let done = Arc::new(AtomicBool::new(false));
    let helper_nodes = Arc::new(AtomicU64::new(0));
    // A helper that completes the deepest iteration first posts it here and
    // raises `main_done`; the main thread then stops and reports it (a mutex
    // taken once per search at most, never on the TT's path).
    let finished: Mutex<Option<(u32, i32, Vec<Move>)>> = Mutex::new(None);
    let main_done = Arc::new(AtomicBool::new(false));
    let main_depth = Arc::new(AtomicU32::new(0));
    let chess960 = pos.is_chess960();
    let mut result = SearchResult {
        best_move: None,
        score: None,
        depth: 0,
        pv: Vec::new(),
        stats: SearchStats::default(),
        time: Duration::ZERO,
        tt: TtStats::default(),
        stopped: false,
        resumed,
        chess960,
    };
    let root_moves = pos.legal_moves();
    if root_moves.is_empty() {
        result.score = Some(if pos.in_check() {
            Score::Mate(0)
        } else {
            Score::Cp(0)
        });
        result.time = start.elapsed();
        return Ok(result);
    }
    // Something legal to play even if the first iteration is cut short.
    result.best_move = Some(root_moves.as_slice()[0]);
    let restart = options.restart;
    let fingerprint = Fingerprint::of(pos, history, options, tt.is_some());
    let helper_first = resumed.unwrap_or(1);

    let outcome = std::thread::scope(|scope| {
        let joins: Vec<_> = helpers
            .into_iter()
            .enumerate()
            .map(|(i, mut htt)| {
                let (done, helper_nodes) = (Arc::clone(&done), Arc::clone(&helper_nodes));
                let (finished, main_done) = (&finished, Arc::clone(&main_done));
                let main_depth = Arc::clone(&main_depth);
                scope.spawn(move || {
                    let id = i + 1;
                    let committed_only = htt.isolation() == Isolation::ReadCommitted;
                    let mut s = Searcher::new(Some(&mut htt), options, history, SearchState::new());
                    s.stop_flag = Some(done);
                    s.helper = Some(id);
                    // Under read-committed isolation a helper searches full
                    // windows in auto-commit transactions (its entries are
                    // final when written, and the others see them at once),
                    // and jumps ahead whenever the main thread catches up.
                    if committed_only {
                        s.main_depth = Some(main_depth);
                        s.auto_commit = true;
                    }
                    s.shared_nodes = Some(helper_nodes);
                    s.jump_cap = max_depth;
                    let first = (helper_first + (id as u32 & 1)).min(max_depth);
                    let r = s.deepen(pos, first, MAX_DEPTH, options, false, &mut |s, _| {
                        let done = (s.st.done_depth, s.st.done_score);
                        if done.0 >= max_depth {
                            // The main thread stops and takes this iteration.
                            let mut slot = finished.lock().unwrap_or_else(|e| e.into_inner());
                            if slot.as_ref().is_none_or(|f| f.0 < done.0) {
                                *slot = Some((done.0, done.1, s.st.done_pv.clone()));
                            }
                            drop(slot);
                            main_done.store(true, Ordering::Relaxed);
                        }
                    });
                    if let Some(n) = &s.shared_nodes {
                        n.fetch_add(s.stats.nodes % CHECK_EVERY, Ordering::Relaxed);
                    }
                    let stats = s.stats;
                    drop(s);
                    (stats, htt.stats(), r)
                })
            })
            .collect();
        let mut s = Searcher::new(tt, options, history, std::mem::take(state));
        let base = s.stats;
        s.keep = restart;
        s.nodes_limit = limits
            .nodes
            .map_or(u64::MAX, |n| base.nodes.saturating_add(n));
        s.deadline = limits.movetime.map(|t| start + t);
        s.stop_flag = limits.stop.clone();
        s.done_flag = Some(Arc::clone(&main_done));
        s.main_depth = Some(Arc::clone(&main_depth));
        let helper_count = Arc::clone(&helper_nodes);
        let mut report_main = |s: &Searcher<'_>, fails: u32| {
            let time = start.elapsed();
            let nodes = s.stats.nodes - base.nodes + helper_count.load(Ordering::Relaxed);
            on_iteration(&IterationInfo {
                depth: s.st.done_depth,
                score: Score::from_internal(s.st.done_score),
                nodes,
                time,
                nps: nps(nodes, time),
                pv: s
                    .st
                    .done_pv
                    .iter()
                    .map(|m| m.to_uci(chess960).to_string())
                    .collect(),
                aspiration_fails: fails,
            });
        };
        let mut r = s.deepen(
            pos,
            1,
            max_depth,
            options,
            resumed.is_some(),
            &mut report_main,
        );
        done.store(true, Ordering::Relaxed);
        let from_helper = finished.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some((depth, score, pv)) = from_helper
            && depth > s.st.done_depth
        {
            // A helper reached the target depth first: the main thread
            // adopts its iteration (reported as its own) and is not
            // counted as stopped by a limit; its own aborted iteration is
            // not worth resuming.
            s.st.done_depth = depth;
            s.st.done_score = score;
            s.st.done_pv = pv;
            s.stopped = false;
            if s.st.iteration.is_some() {
                let txn = s.st.txn.take();
                s.st.iteration = None;
                s.st.path = 0;
                if let (Some(tt), Some(txn)) = (s.tt.as_deref_mut(), txn) {
                    r = r.and(tt.commit(txn));
                }
            }
            report_main(&s, 0);
        }
        if s.st.done_depth > 0 {
            result.best_move = s.st.done_pv.first().copied().or(result.best_move);
            result.score = Some(Score::from_internal(s.st.done_score));
            result.depth = s.st.done_depth;
            result.pv = s.st.done_pv.clone();
        } else if s.st.frames[0].pv_len > 0 {
            // Cut short in the first iteration: the best root move so far.
            result.best_move = Some(s.st.frames[0].pv[0]);
        }
        result.stopped = s.stopped;
        result.stats = s.stats - base;
        if let Some(tt) = s.tt.as_deref() {
            result.tt = tt.stats() - tt_before;
        }
        if s.st.iteration.is_some() {
            s.st.fingerprint = Some(fingerprint);
        }
        s.st.stats = s.stats;
        *state = std::mem::take(&mut s.st);
        drop(s);
        let mut outcome = r;
        for j in joins {
            let (stats, tt_stats, r) = j.join().expect("a search helper thread panicked");
            result.stats += stats;
            result.tt = result.tt + tt_stats;
            outcome = outcome.and(r);
        }
        outcome
    });
    outcome?;
    result.time = start.elapsed();
    Ok(result)
}

/// The counters added since an earlier reading.
impl std::ops::Sub for SearchStats {
    type Output = SearchStats;
    fn sub(self, before: SearchStats) -> SearchStats {
        SearchStats {
            nodes: self.nodes - before.nodes,
            qnodes: self.qnodes - before.qnodes,
            tt_cutoffs: self.tt_cutoffs - before.tt_cutoffs,
            tt_collisions: self.tt_collisions - before.tt_collisions,
            aspiration_fails: self.aspiration_fails - before.aspiration_fails,
        }
    }
}

/// The counters of several threads, added up.
impl std::ops::AddAssign for SearchStats {
    fn add_assign(&mut self, o: SearchStats) {
        self.nodes += o.nodes;
        self.qnodes += o.qnodes;
        self.tt_cutoffs += o.tt_cutoffs;
        self.tt_collisions += o.tt_collisions;
        self.aspiration_fails += o.aspiration_fails;
    }
}

/// A widened bound: beyond the mate range it jumps to infinity.
fn widen(bound: i32, infinity: i32) -> i32 {
    if bound.abs() >= MATE - MAX_PLY as i32 {
        infinity
    } else {
        bound
    }
}

/// Nodes per second.
fn nps(nodes: u64, time: Duration) -> u64 {
    let micros = time.as_micros().max(1);
    (u128::from(nodes) * 1_000_000 / micros) as u64
}

// Move ordering bands.
const ORDER_TT: i32 = 1 << 24;
const ORDER_CAPTURE: i32 = 1 << 20;
const ORDER_KILLER: i32 = 1 << 19;
const ORDER_UNDERPROMOTION: i32 = -1;

struct Searcher<'a> {
    tt: Option<&'a mut Tt>,
    /// Helpers add their node counts here every [`CHECK_EVERY`] nodes.
    shared_nodes: Option<Arc<AtomicU64>>,
    /// The software stack and everything else a resumed search continues
    /// from (the open transaction, killers, last completed iteration).
    st: SearchState,
    /// Keep an aborted iteration's state (and leave its transaction open).
    keep: bool,
    /// Frames still to be followed back in by a resuming search.
    resume_left: usize,
    /// The node count of this call's first node: the clock and the stop
    /// flags are not read there, so that every call makes progress.
    first_node: u64,
    exact_depth: bool,
    pvs: bool,
    nodes_limit: u64,
    deadline: Option<Instant>,
    stop_flag: Option<Arc<AtomicBool>>,
    /// The depth the main thread is searching (shared with the helpers).
    main_depth: Option<Arc<AtomicU32>>,
    /// A helper's number (`None`: the main thread).
    helper: Option<usize>,
    /// The iteration being searched.
    depth_now: u32,
    /// A helper's iteration was stopped because the main thread caught up.
    jump: bool,
    /// The deepest iteration a helper is asked for: at it, a helper that the
    /// main thread catches up with keeps going instead of jumping past it.
    jump_cap: u32,
    /// A helper under read-committed isolation: it searches full windows
    /// (no aspiration, so no window can fail) in auto-commit transactions,
    /// whose entries the other threads see as soon as they are stored.
    auto_commit: bool,
    /// A second stop flag: for the main thread, raised when a helper has
    /// completed the deepest iteration.
    done_flag: Option<Arc<AtomicBool>>,
    stopped: bool,
    /// Keys of the game history and of the main-search path down to the
    /// parent of the current node.
    keys: Vec<u64>,
    /// Counters since the chain of resumed searches began.
    stats: SearchStats,
}

impl<'a> Searcher<'a> {
    fn new(
        tt: Option<&'a mut Tt>,
        options: &SearchOptions,
        history: &[u64],
        mut st: SearchState,
    ) -> Searcher<'a> {
        if st.frames.len() < MAX_PLY + 1 {
            st.frames.resize_with(MAX_PLY + 1, Frame::default);
        }
        if st.killers.len() < MAX_PLY + 1 {
            st.killers = vec![[Move::NONE; 2]; MAX_PLY + 1];
        }
        if st.counts_now.len() < (MAX_PLY + 1) * crate::chess::moves::MAX_MOVES {
            st.counts_now = vec![0; (MAX_PLY + 1) * crate::chess::moves::MAX_MOVES];
        }
        if st.pv_counts.len() < MAX_PLY + 1 {
            st.pv_counts.resize_with(MAX_PLY + 1, PvCounts::default);
        }
        Searcher {
            tt,
            shared_nodes: None,
            stats: st.stats,
            first_node: st.stats.nodes + 1,
            st,
            keep: false,
            resume_left: 0,
            exact_depth: options.exact_depth_cutoffs,
            pvs: options.pvs,
            nodes_limit: u64::MAX,
            deadline: None,
            stop_flag: None,
            done_flag: None,
            main_depth: None,
            helper: None,
            depth_now: 0,
            jump: false,
            jump_cap: MAX_DEPTH,
            auto_commit: false,
            stopped: false,
            keys: history.to_vec(),
        }
    }

    /// Iterative deepening from `first` to `max` plies, one transaction per
    /// aspiration window; `report` is called after each completed iteration
    /// (with the fails of its windows). Stops at a limit or the stop flag.
    ///
    /// `resume`: continue the aborted iteration held in `self.st` (its
    /// transaction is still open) instead of starting at `first`.
    fn deepen(
        &mut self,
        pos: &Position,
        first: u32,
        max: u32,
        options: &SearchOptions,
        resume: bool,
        report: &mut dyn FnMut(&Self, u32),
    ) -> Result<(), TtError> {
        let mut it = match self.st.iteration.take() {
            Some(it) if resume => it,
            _ => Iteration {
                depth: first,
                ..Iteration::default()
            },
        };
        let mut resuming = resume;
        while it.depth <= max {
            if let Some(main) = &self.main_depth
                && self.helper.is_none()
            {
                main.store(it.depth, Ordering::Relaxed);
            }
            self.depth_now = it.depth;
            // An auto-commit helper searches full windows: they cannot fail.
            let width = if self.auto_commit {
                0
            } else {
                options.aspiration
            };
            if !resuming {
                let use_window =
                    width > 0 && it.completed > 0 && it.prev_score.abs() < MATE - MAX_PLY as i32;
                (it.alpha, it.beta) = if use_window {
                    (
                        it.prev_score.saturating_sub(width).max(-INFINITY),
                        it.prev_score.saturating_add(width).min(INFINITY),
                    )
                } else {
                    (-INFINITY, INFINITY)
                };
                it.delta = width;
                it.fails = 0;
            }
            let score = loop {
                if resuming {
                    // The aborted window's transaction is still open: follow
                    // the frames back in.
                    resuming = false;
                    self.resume_left = self.st.path;
                    self.st.path = 0;
                } else {
                    self.begin()?;
                }
                let score = self.negamax(pos, it.depth as i32, it.alpha, it.beta, 0);
                if self.stopped {
                    if self.keep && !self.jump {
                        // Restartable: the frames stay, the transaction stays
                        // open, and the next search continues this window.
                        self.st.iteration = Some(it);
                        return Ok(());
                    }
                    // Abandoned, not failed: every entry stored is a sound
                    // bound (nodes cut short store nothing), so keep them.
                    self.st.path = 0;
                    self.end(true)?;
                    if !self.jump {
                        return Ok(());
                    }
                    break None;
                }
                if score <= it.alpha || score >= it.beta {
                    it.fails += 1;
                    self.stats.aspiration_fails += 1;
                    self.end(options.on_fail == OnFail::Commit)?;
                    // Past 2 * INFINITY any widening reaches infinity.
                    it.delta = it.delta.saturating_mul(2).min(2 * INFINITY);
                    if score <= it.alpha {
                        it.alpha = widen(score.saturating_sub(it.delta), -INFINITY);
                    } else {
                        it.beta = widen(score.saturating_add(it.delta), INFINITY);
                    }
                    if self.st.frames[0].pv_len > 0 {
                        // A fail high has a move that beats the old best.
                        self.st.root_hint = self.st.frames[0].pv[0];
                    }
                    continue;
                }
                self.end(true)?;
                break Some(score);
            };
            let Some(score) = score else {
                // A helper caught up by the main thread: commit what it has
                // (done above) and go on one ply deeper than the main thread.
                self.jump = false;
                self.stopped = false;
                let main = self
                    .main_depth
                    .as_ref()
                    .map_or(it.depth, |m| m.load(Ordering::Relaxed));
                // (A helper jumps only below its cap.)
                it.depth = (it.depth.max(main) + 1).min(self.jump_cap);
                continue;
            };
            it.prev_score = score;
            it.completed += 1;
            let root = &self.st.frames[0];
            self.st.done_pv.clear();
            self.st.done_pv.extend_from_slice(&root.pv[..root.pv_len]);
            if let Some(&first) = self.st.done_pv.first() {
                self.st.root_hint = first;
            }
            self.st.done_depth = it.depth;
            self.st.done_score = score;
            report(self, it.fails);
            it.depth += 1;
        }
        Ok(())
    }
    fn begin(&mut self) -> Result<(), TtError> {
        if let Some(tt) = self.tt.as_deref_mut() {
            self.st.txn = Some(if self.auto_commit {
                tt.begin_auto_commit()?
            } else {
                tt.begin()?
            });
        }
        Ok(())
    }

    /// Ends the open transaction: commit, or roll back.
    fn end(&mut self, commit: bool) -> Result<(), TtError> {
        if let (Some(tt), Some(txn)) = (self.tt.as_deref_mut(), self.st.txn.take()) {
            // An auto-commit transaction is never rolled back (a full window
            // does not fail; its entries are already visible anyway).
            if commit || self.auto_commit {
                tt.commit(txn)?;
            } else {
                tt.rollback(txn)?;
            }
        }
        Ok(())
    }

    /// Counts a node; true if a limit says stop.
    #[inline]
    fn enter_node(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.stats.nodes >= self.nodes_limit {
            self.stopped = true;
            return true;
        }
        self.stats.nodes += 1;
        if self.stats.nodes.is_multiple_of(CHECK_EVERY)
            && self.stats.nodes > self.first_node
            && (self
                .shared_nodes
                .as_ref()
                .is_some_and(|n| n.fetch_add(CHECK_EVERY, Ordering::Relaxed) == u64::MAX)
                || self.deadline.is_some_and(|d| Instant::now() >= d)
                || self
                    .stop_flag
                    .as_ref()
                    .is_some_and(|f| f.load(Ordering::Relaxed))
                || self
                    .done_flag
                    .as_ref()
                    .is_some_and(|f| f.load(Ordering::Relaxed)))
        {
            self.stopped = true;
            // Not searched after all: uncounted, so that a resumed search
            // enters it afresh and counts it once.
            self.stats.nodes -= 1;
        } else if self.stats.nodes.is_multiple_of(CHECK_EVERY)
            && self.helper.is_some()
            && self.depth_now < self.jump_cap
            && self
                .main_depth
                .as_ref()
                .is_some_and(|m| m.load(Ordering::Relaxed) >= self.depth_now)
        {
            // The main thread caught up with this helper: jump ahead.
            self.jump = true;
            self.stopped = true;
        }
        self.stopped
    }

    /// A repetition of an earlier position (since the last irreversible
    /// move), or the fifty-move rule. A position repeated once counts as a
    /// draw. Checkmate takes precedence over the fifty-move rule.
    fn is_draw(&self, pos: &Position) -> bool {
        let clock = usize::from(pos.halfmove_clock());
        if clock >= 100 {
            return !pos.in_check() || pos.has_legal_moves();
        }
        let key = pos.hash();
        let n = self.keys.len();
        (4..=clock.min(n))
            .step_by(2)
            .any(|back| self.keys[n - back] == key)
    }

    fn negamax(&mut self, pos: &Position, depth: i32, alpha_in: i32, beta: i32, ply: usize) -> i32 {
        if depth <= 0 {
            return self.quiesce(pos, alpha_in, beta, ply, true);
        }
        // Initialised below, on the resume path or after the early returns
        // of the normal one (so a node cut off early pays nothing for them).
        let mut moves;
        let mut order: [i32; crate::chess::moves::MAX_MOVES];
        let (mut alpha, alpha_orig, mut best, mut best_move, key, first);
        let mut resume_phase = None;
        let mut nodes_before = 0;
        // A PV node: its window is wider than a null window.
        let pv_node = beta - alpha_in > 1;
        if self.resume_left > 0 {
            // A resumed search: this node continues where it was aborted.
            self.resume_left -= 1;
            let f = &self.st.frames[ply];
            debug_assert!(!f.quiesce && f.depth == depth && f.beta == beta);
            debug_assert_eq!(f.alpha_orig, alpha_in);
            moves = f.moves.clone();
            order = f.order;
            (alpha, alpha_orig, best, best_move, key) =
                (f.alpha, f.alpha_orig, f.best, f.best_move, f.key);
            first = f.next;
            resume_phase = Some(f.phase);
            nodes_before = f.nodes_before;
        } else {
            self.st.frames[ply].pv_len = 0;
            if self.enter_node() {
                return 0;
            }
            if ply > 0 && self.is_draw(pos) {
                return 0;
            }
            if ply >= MAX_PLY {
                return evaluate(pos);
            }

            key = pos.hash();
            let mut tt_move = Move::NONE;
            if let Some(tt) = self.tt.as_deref()
                && let Some(hit) = tt.probe(key)
            {
                if !hit.mv.is_none() && !pos.is_legal(hit.mv) {
                    // Another position's entry: a key collision. Ignore it.
                    self.stats.tt_collisions += 1;
                } else {
                    tt_move = hit.mv;
                    let depth_ok = if self.exact_depth {
                        i32::from(hit.depth) == depth
                    } else {
                        i32::from(hit.depth) >= depth
                    };
                    // In PVS, exact scores do not cut at PV nodes, so the PV
                    // stays whole; bounds cut only outside the window anyway.
                    if ply > 0 && depth_ok {
                        let score = score_from_tt(hit.score, ply);
                        let cut = match hit.bound {
                            Bound::Exact => !(self.pvs && pv_node),
                            Bound::Lower => score >= beta,
                            Bound::Upper => score <= alpha_in,
                        };
                        if cut {
                            self.stats.tt_cutoffs += 1;
                            return score;
                        }
                    }
                }
            }
            if ply == 0 && tt_move.is_none() {
                tt_move = self.st.root_hint;
            }

            moves = pos.legal_moves();
            if moves.is_empty() {
                return if pos.in_check() {
                    -MATE + ply as i32
                } else {
                    0
                };
            }
            order = [0; crate::chess::moves::MAX_MOVES];
            self.score_moves(pos, &moves, &mut order, tt_move, ply, Some(key));
            (alpha, alpha_orig, best, best_move) = (alpha_in, alpha_in, -INFINITY, Move::NONE);
            first = 0;
        }

        self.keys.push(key);
        for i in first..moves.len() {
            let (mv, mut phase) = match resume_phase.take() {
                Some(phase) => (moves.as_slice()[i], phase),
                None => {
                    nodes_before = self.stats.nodes;
                    let phase = if i == 0 || !self.pvs {
                        Phase::Full
                    } else {
                        Phase::Null
                    };
                    (pick(&mut moves, &mut order, i), phase)
                }
            };
            let child = pos.play_unchecked(mv);
            let score = loop {
                let s = if phase == Phase::Null {
                    -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1)
                } else {
                    -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1)
                };
                if self.stopped {
                    break None;
                }
                if phase == Phase::Null && s > alpha && s < beta {
                    phase = Phase::Research;
                    continue;
                }
                break Some(s);
            };
            let Some(score) = score else {
                self.keys.pop();
                if self.keep {
                    // Aborted: leave this node's state on the stack.
                    let f = &mut self.st.frames[ply];
                    f.quiesce = false;
                    f.depth = depth;
                    (f.alpha, f.alpha_orig, f.beta) = (alpha, alpha_orig, beta);
                    (f.best, f.best_move, f.key) = (best, best_move, key);
                    f.moves.clone_from(&moves);
                    f.order = order;
                    (f.next, f.phase, f.nodes_before) = (i, phase, nodes_before);
                    if self.st.path == 0 {
                        self.st.path = ply + 1;
                    }
                }
                return 0;
            };
            if pv_node {
                self.st.counts_now[ply * crate::chess::moves::MAX_MOVES + i] =
                    self.stats.nodes - nodes_before;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = mv;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        if is_quiet(pos, mv) {
                            let k = &mut self.st.killers[ply];
                            if k[0] != mv {
                                k[1] = k[0];
                                k[0] = mv;
                            }
                        }
                        break;
                    }
                }
            }
        }
        self.keys.pop();
        if pv_node && best > alpha_orig && best < beta {
            // A PV node (the root among them) completed inside its window
            // searched every move: their node counts order the next
            // iteration's node of this position, most nodes first.
            let at = ply * crate::chess::moves::MAX_MOVES;
            let counts = &self.st.counts_now[at..at + moves.len()];
            let kept = &mut self.st.pv_counts[ply];
            kept.key = key;
            kept.counts.clear();
            kept.counts
                .extend(moves.iter().copied().zip(counts.iter().copied()));
            kept.counts.sort_by_key(|c| std::cmp::Reverse(c.1));
        }

        if let (Some(tt), Some(txn)) = (self.tt.as_deref_mut(), self.st.txn) {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > alpha_orig {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let data = TtData {
                mv: best_move,
                score: score_to_tt(best, ply),
                depth: depth.clamp(0, i32::from(u8::MAX)) as u8,
                bound,
            };
            let stored = tt.store(txn, key, data);
            debug_assert!(stored.is_ok(), "the search's own transaction is active");
        }
        best
    }

    /// Captures (and queen promotions) only, standing pat on the static
    /// evaluation, except in check: then every evasion is searched and no
    /// legal move means checkmate.
    ///
    /// `horizon`: this is the depth-0 node of the main search (not a
    /// quiescence child), where draws are checked as in the main search.
    fn quiesce(
        &mut self,
        pos: &Position,
        alpha_in: i32,
        beta: i32,
        ply: usize,
        horizon: bool,
    ) -> i32 {
        // Initialised below (see negamax).
        let mut moves;
        let mut order: [i32; crate::chess::moves::MAX_MOVES];
        let (mut alpha, mut best, first);
        let mut resumed = false;
        if self.resume_left > 0 {
            // A resumed search: this node continues where it was aborted.
            self.resume_left -= 1;
            let f = &self.st.frames[ply];
            debug_assert!(f.quiesce && f.beta == beta);
            moves = f.moves.clone();
            order = f.order;
            (alpha, best, first) = (f.alpha, f.best, f.next);
            resumed = true;
        } else {
            self.st.frames[ply].pv_len = 0;
            if self.enter_node() {
                return 0;
            }
            self.stats.qnodes += 1;
            // At the horizon draws count as in the main search, so that a move
            // into a repetition or onto the 100th half-move is a draw even in a
            // depth-1 search. Not deeper: only check evasions could repeat there,
            // and stopping at the horizon keeps every repetition within `depth`
            // plies of the root (see the reference mode in the module docs).
            // The horizon is never the root.
            debug_assert!(ply > 0 || !horizon);
            if horizon && self.is_draw(pos) {
                return 0;
            }
            if ply >= MAX_PLY {
                return evaluate(pos);
            }
            alpha = alpha_in;
            if pos.in_check() {
                moves = pos.legal_moves();
                if moves.is_empty() {
                    return -MATE + ply as i32;
                }
                best = -INFINITY;
            } else {
                let stand_pat = evaluate(pos);
                if stand_pat >= beta {
                    return stand_pat;
                }
                alpha = alpha.max(stand_pat);
                best = stand_pat;
                moves = captures(pos);
            }
            order = [0; crate::chess::moves::MAX_MOVES];
            self.score_moves(pos, &moves, &mut order, Move::NONE, ply, None);
            first = 0;
        }
        for i in first..moves.len() {
            let mv = if resumed {
                resumed = false;
                moves.as_slice()[i]
            } else {
                pick(&mut moves, &mut order, i)
            };
            let child = pos.play_unchecked(mv);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, false);
            if self.stopped {
                if self.keep {
                    // Aborted: leave this node's state on the stack.
                    let f = &mut self.st.frames[ply];
                    f.quiesce = true;
                    (f.alpha, f.beta, f.best, f.next) = (alpha, beta, best, i);
                    f.moves.clone_from(&moves);
                    f.order = order;
                    if self.st.path == 0 {
                        self.st.path = ply + 1;
                    }
                }
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.st.frames.split_at_mut(ply + 1);
        let child_len = if ply < MAX_PLY { tail[0].pv_len } else { 0 };
        let row = &mut head[ply];
        row.pv[0] = mv;
        if child_len > 0 {
            row.pv[1..=child_len].copy_from_slice(&tail[0].pv[..child_len]);
        }
        row.pv_len = child_len + 1;
    }

    fn score_moves(
        &self,
        pos: &Position,
        moves: &MoveList,
        order: &mut [i32; crate::chess::moves::MAX_MOVES],
        tt_move: Move,
        ply: usize,
        key: Option<u64>,
    ) {
        let killers = self.st.killers[ply];
        for (slot, &mv) in order.iter_mut().zip(moves.iter()) {
            *slot = if mv == tt_move {
                ORDER_TT
            } else if let Some(victim) = captured(pos, mv) {
                let attacker = pos.piece_on(mv.from()).map_or(0, |(_, p)| p.index() as i32);
                let promo = mv.promotion().map_or(0, |p| PIECE_VALUES[p.index()]);
                ORDER_CAPTURE + (PIECE_VALUES[victim.index()] + promo) * 8 - attacker
            } else if mv.promotion() == Some(Piece::Queen) {
                ORDER_CAPTURE + PIECE_VALUES[Piece::Queen.index()] * 8
            } else if mv.kind() == MoveKind::Promotion {
                ORDER_UNDERPROMOTION
            } else if mv == killers[0] {
                ORDER_KILLER + 1
            } else if mv == killers[1] {
                ORDER_KILLER
            } else {
                0
            };
        }
        let kept = &self.st.pv_counts[ply];
        if key == Some(kept.key) && !kept.counts.is_empty() {
            // A PV node completed in an earlier iteration (the root after a
            // completed iteration, or a node of the PV below it): the best
            // move first, then the moves that took the most nodes (the
            // hardest to refute).
            for (slot, &mv) in order.iter_mut().zip(moves.iter()) {
                if mv != tt_move
                    && let Some(rank) = kept.counts.iter().position(|&(m, _)| m == mv)
                {
                    *slot = ORDER_TT - 1 - rank as i32;
                }
            }
        }
    }
}

/// Swaps the best-ordered remaining move into place `i` and returns it.
#[inline]
fn pick(moves: &mut MoveList, order: &mut [i32; crate::chess::moves::MAX_MOVES], i: usize) -> Move {
    let list = moves.as_mut_slice();
    let mut best = i;
    for j in i + 1..list.len() {
        if order[j] > order[best] {
            best = j;
        }
    }
    list.swap(i, best);
    order.swap(i, best);
    list[i]
}

/// The piece `mv` captures, if any (en passant captures a pawn).
#[inline]
fn captured(pos: &Position, mv: Move) -> Option<Piece> {
    match mv.kind() {
        MoveKind::EnPassant => Some(Piece::Pawn),
        MoveKind::Castling => None,
        _ => pos
            .piece_on(mv.to())
            .filter(|&(c, _)| c != pos.side_to_move())
            .map(|(_, p)| p),
    }
}

/// Neither a capture nor a promotion.
#[inline]
fn is_quiet(pos: &Position, mv: Move) -> bool {
    mv.kind() != MoveKind::Promotion && captured(pos, mv).is_none()
}

/// The quiescence moves: captures, en passant, queen promotions.
fn captures(pos: &Position) -> MoveList {
    let them = pos.them();
    let mut list = MoveList::new();
    pos.generate_moves(|pm| {
        match pm.kind {
            MoveKind::Normal => {
                for to in pm.to & them {
                    list.push(Move::normal(pm.from, to));
                }
            }
            MoveKind::EnPassant => {
                for to in pm.to {
                    list.push(Move::new(pm.from, to, MoveKind::EnPassant, Piece::Knight));
                }
            }
            MoveKind::Promotion => {
                for to in pm.to {
                    list.push(Move::new(pm.from, to, MoveKind::Promotion, Piece::Queen));
                }
            }
            MoveKind::Castling => {}
        }
        false
    });
    list
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn quiescence_moves_are_the_captures_and_queen_promotions() {
        // White: Qd1 can take d7? no; pawn b7 can promote on b8 or take a8/c8.
        let pos = Position::from_fen("r1n1k3/1P1p4/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
        let caps = captures(&pos);
        let text: Vec<String> = caps.iter().map(|m| m.to_uci(false).to_string()).collect();
        for want in ["b7a8q", "b7b8q", "b7c8q", "d1d7"] {
            assert!(
                text.contains(&want.to_string()),
                "{want} missing from {text:?}"
            );
        }
        assert_eq!(caps.len(), 4, "{text:?}");
        // Every one is legal and is a capture or a promotion.
        for &mv in caps.iter() {
            assert!(pos.is_legal(mv));
            assert!(!is_quiet(&pos, mv));
        }
    }

    #[test]
    fn completed_pv_nodes_keep_their_move_counts() {
        // After a search, the root and the PV node one ply below it kept
        // every legal move with the nodes it took, most first: the node of
        // the same position in the next iteration orders by them.
        let pos = Position::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .unwrap();
        let mut tt = Tt::new(4 << 20).unwrap();
        let mut state = SearchState::new();
        let r = search_resumable(
            &pos,
            &[],
            &Limits::depth(5),
            Some(&mut tt),
            &SearchOptions::default(),
            &mut state,
            |_| {},
        )
        .unwrap();
        assert_eq!(r.depth, 5);
        let mut node = pos;
        for (ply, &mv) in r.pv.iter().take(2).enumerate() {
            let kept = &state.pv_counts[ply];
            assert_eq!(kept.key, node.hash(), "ply {ply}: not the PV's position");
            let mut moves: Vec<Move> = kept.counts.iter().map(|c| c.0).collect();
            let mut legal: Vec<Move> = node.legal_moves().iter().copied().collect();
            moves.sort_by_key(|m| m.to_uci(false).to_string());
            legal.sort_by_key(|m| m.to_uci(false).to_string());
            assert_eq!(moves, legal, "ply {ply}: not every legal move kept");
            assert!(kept.counts.windows(2).all(|w| w[0].1 >= w[1].1));
            assert!(
                kept.counts.iter().all(|c| c.1 > 0),
                "ply {ply}: {:?}",
                kept.counts
            );
            node = node.play_unchecked(mv);
        }
    }
}
