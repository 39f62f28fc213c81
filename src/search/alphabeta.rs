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
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            aspiration: DEFAULT_ASPIRATION,
            on_fail: OnFail::Rollback,
            pvs: true,
            exact_depth_cutoffs: false,
            threads: 1,
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
pub fn search(
    pos: &Position,
    history: &[u64],
    limits: &Limits,
    mut tt: Option<&mut Tt>,
    options: &SearchOptions,
    mut on_iteration: impl FnMut(&IterationInfo),
) -> Result<SearchResult, TtError> {
    let start = Instant::now();
    let tt_before = tt.as_ref().map(|t| t.stats()).unwrap_or_default();
    if let Some(tt) = tt.as_deref_mut() {
        tt.new_search()?;
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
    let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);

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
                    let mut s = Searcher::new(Some(&mut htt), options, history);
                    s.stop_flag = Some(done);
                    s.helper = Some(id);
                    // Under read-committed isolation a helper's work reaches
                    // the others only when it commits: it stops (commits)
                    // and jumps ahead whenever the main thread catches up.
                    if committed_only {
                        s.main_depth = Some(main_depth);
                    }
                    s.shared_nodes = Some(helper_nodes);
                    let first = 1 + (id as u32 & 1);
                    let r = s.deepen(pos, first, MAX_DEPTH, options, &mut |s, _| {
                        if s.done_depth >= max_depth {
                            // The main thread stops and takes this iteration.
                            let mut slot = finished.lock().unwrap_or_else(|e| e.into_inner());
                            if slot.as_ref().is_none_or(|f| f.0 < s.done_depth) {
                                *slot = Some((s.done_depth, s.done_score, s.done_pv.clone()));
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
        let mut s = Searcher::new(tt, options, history);
        s.nodes_limit = limits.nodes.unwrap_or(u64::MAX);
        s.deadline = limits.movetime.map(|t| start + t);
        s.stop_flag = limits.stop.clone();
        s.done_flag = Some(Arc::clone(&main_done));
        s.main_depth = Some(Arc::clone(&main_depth));
        let helper_count = Arc::clone(&helper_nodes);
        let mut report_main = |s: &Searcher<'_>, fails: u32| {
            let time = start.elapsed();
            let nodes = s.stats.nodes + helper_count.load(Ordering::Relaxed);
            on_iteration(&IterationInfo {
                depth: s.done_depth,
                score: Score::from_internal(s.done_score),
                nodes,
                time,
                nps: nps(nodes, time),
                pv: s
                    .done_pv
                    .iter()
                    .map(|m| m.to_uci(chess960).to_string())
                    .collect(),
                aspiration_fails: fails,
            });
        };
        let r = s.deepen(pos, 1, max_depth, options, &mut report_main);
        done.store(true, Ordering::Relaxed);
        let from_helper = finished.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some((depth, score, pv)) = from_helper
            && depth > s.done_depth
        {
            // A helper reached the target depth first: the main thread
            // adopts its iteration (reported as its own) and is not
            // counted as stopped by a limit.
            s.done_depth = depth;
            s.done_score = score;
            s.done_pv = pv;
            s.stopped = false;
            report_main(&s, 0);
        }
        if s.done_depth > 0 {
            result.best_move = s.done_pv.first().copied().or(result.best_move);
            result.score = Some(Score::from_internal(s.done_score));
            result.depth = s.done_depth;
            result.pv = s.done_pv.clone();
        } else if s.pv_len[0] > 0 {
            // Cut short in the first iteration: the best root move so far.
            result.best_move = Some(s.pv[0][0]);
        }
        result.stopped = s.stopped;
        result.stats = s.stats;
        if let Some(tt) = s.tt.as_deref() {
            result.tt = stats_since(tt.stats(), tt_before);
        }
        let mut outcome = r;
        for j in joins {
            let (stats, tt_stats, r) = j.join().expect("a search helper thread panicked");
            result.stats.add(&stats);
            result.tt = result.tt + tt_stats;
            outcome = outcome.and(r);
        }
        outcome
    });
    outcome?;
    result.time = start.elapsed();
    Ok(result)
}

impl SearchStats {
    fn add(&mut self, o: &SearchStats) {
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

fn stats_since(now: TtStats, before: TtStats) -> TtStats {
    TtStats {
        transactions: now.transactions - before.transactions,
        commits: now.commits - before.commits,
        rollbacks: now.rollbacks - before.rollbacks,
        discarded: now.discarded - before.discarded,
        probes: now.probes - before.probes,
        hits: now.hits - before.hits,
        stores: now.stores - before.stores,
        sweeps: now.sweeps - before.sweeps,
        swept_cleared: now.swept_cleared - before.swept_cleared,
        swept_retagged: now.swept_retagged - before.swept_retagged,
        entry_accesses: now.entry_accesses - before.entry_accesses,
    }
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
    /// The last completed iteration: depth (0 = none), score, PV.
    done_depth: u32,
    done_score: i32,
    done_pv: Vec<Move>,
    txn: Option<Txn>,
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
    /// A second stop flag: for the main thread, raised when a helper has
    /// completed the deepest iteration.
    done_flag: Option<Arc<AtomicBool>>,
    stopped: bool,
    /// Keys of the game history and of the main-search path down to the
    /// parent of the current node.
    keys: Vec<u64>,
    killers: Vec<[Move; 2]>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: Vec<usize>,
    /// Best move of the previous iteration, searched first at the root.
    root_hint: Move,
    stats: SearchStats,
}

impl<'a> Searcher<'a> {
    fn new(tt: Option<&'a mut Tt>, options: &SearchOptions, history: &[u64]) -> Searcher<'a> {
        Searcher {
            tt,
            shared_nodes: None,
            done_depth: 0,
            done_score: 0,
            done_pv: Vec::new(),
            txn: None,
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
            stopped: false,
            keys: history.to_vec(),
            killers: vec![[Move::NONE; 2]; MAX_PLY + 1],
            pv: vec![[Move::NONE; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: vec![0; MAX_PLY + 1],
            root_hint: Move::NONE,
            stats: SearchStats::default(),
        }
    }

    /// Iterative deepening from `first` to `max` plies, one transaction per
    /// aspiration window; `report` is called after each completed iteration
    /// (with the fails of its windows). Stops at a limit or the stop flag.
    fn deepen(
        &mut self,
        pos: &Position,
        first: u32,
        max: u32,
        options: &SearchOptions,
        report: &mut dyn FnMut(&Self, u32),
    ) -> Result<(), TtError> {
        let mut prev_score: i32 = 0;
        let mut depth = first;
        let mut completed = 0;
        while depth <= max {
            if let Some(main) = &self.main_depth
                && self.helper.is_none()
            {
                main.store(depth, Ordering::Relaxed);
            }
            self.depth_now = depth;
            let width = options.aspiration;
            let use_window = width > 0 && completed > 0 && prev_score.abs() < MATE - MAX_PLY as i32;
            let (mut alpha, mut beta) = if use_window {
                (
                    prev_score.saturating_sub(width).max(-INFINITY),
                    prev_score.saturating_add(width).min(INFINITY),
                )
            } else {
                (-INFINITY, INFINITY)
            };
            let mut delta = width;
            let mut fails = 0;
            let score = loop {
                self.begin()?;
                let score = self.negamax(pos, depth as i32, alpha, beta, 0);
                if self.stopped {
                    // Abandoned, not failed: every entry stored is a sound
                    // bound (nodes cut short store nothing), so keep them.
                    self.end(true)?;
                    if !self.jump {
                        return Ok(());
                    }
                    break None;
                }
                if score <= alpha || score >= beta {
                    fails += 1;
                    self.stats.aspiration_fails += 1;
                    self.end(options.on_fail == OnFail::Commit)?;
                    // Past 2 * INFINITY any widening reaches infinity.
                    delta = delta.saturating_mul(2).min(2 * INFINITY);
                    if score <= alpha {
                        alpha = widen(score.saturating_sub(delta), -INFINITY);
                    } else {
                        beta = widen(score.saturating_add(delta), INFINITY);
                    }
                    if self.pv_len[0] > 0 {
                        // A fail high has a move that beats the old best.
                        self.root_hint = self.pv[0][0];
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
                    .map_or(depth, |m| m.load(Ordering::Relaxed));
                depth = depth.max(main) + 1;
                continue;
            };
            prev_score = score;
            completed += 1;
            self.done_pv.clear();
            self.done_pv
                .extend_from_slice(&self.pv[0][..self.pv_len[0]]);
            if let Some(&first) = self.done_pv.first() {
                self.root_hint = first;
            }
            self.done_depth = depth;
            self.done_score = score;
            report(self, fails);
            depth += 1;
        }
        Ok(())
    }

    fn begin(&mut self) -> Result<(), TtError> {
        if let Some(tt) = self.tt.as_deref_mut() {
            self.txn = Some(tt.begin()?);
        }
        Ok(())
    }

    /// Ends the open transaction: commit, or roll back.
    fn end(&mut self, commit: bool) -> Result<(), TtError> {
        if let (Some(tt), Some(txn)) = (self.tt.as_deref_mut(), self.txn.take()) {
            if commit {
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
        } else if self.stats.nodes.is_multiple_of(CHECK_EVERY)
            && self.helper.is_some()
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

    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.pv_len[ply] = 0;
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply, true);
        }
        if self.enter_node() {
            return 0;
        }
        if ply > 0 && self.is_draw(pos) {
            return 0;
        }
        if ply >= MAX_PLY {
            return evaluate(pos);
        }

        let key = pos.hash();
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
                let pv_node = beta - alpha > 1;
                if ply > 0 && depth_ok {
                    let score = score_from_tt(hit.score, ply);
                    let cut = match hit.bound {
                        Bound::Exact => !(self.pvs && pv_node),
                        Bound::Lower => score >= beta,
                        Bound::Upper => score <= alpha,
                    };
                    if cut {
                        self.stats.tt_cutoffs += 1;
                        return score;
                    }
                }
            }
        }
        if ply == 0 && tt_move.is_none() {
            tt_move = self.root_hint;
        }

        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.in_check() {
                -MATE + ply as i32
            } else {
                0
            };
        }
        let mut order = [0i32; crate::chess::moves::MAX_MOVES];
        self.score_moves(pos, &moves, &mut order, tt_move, ply);

        let alpha_orig = alpha;
        let mut best = -INFINITY;
        let mut best_move = Move::NONE;
        self.keys.push(key);
        for i in 0..moves.len() {
            let mv = pick(&mut moves, &mut order, i);
            let child = pos.play_unchecked(mv);
            let score = if i == 0 || !self.pvs {
                -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1)
            } else {
                let s = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1);
                if s > alpha && s < beta && !self.stopped {
                    -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1)
                } else {
                    s
                }
            };
            if self.stopped {
                self.keys.pop();
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = mv;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        if is_quiet(pos, mv) {
                            let k = &mut self.killers[ply];
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

        if let (Some(tt), Some(txn)) = (self.tt.as_deref_mut(), self.txn) {
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
        mut alpha: i32,
        beta: i32,
        ply: usize,
        horizon: bool,
    ) -> i32 {
        self.pv_len[ply] = 0;
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
        let in_check = pos.in_check();
        let mut best;
        let mut moves;
        if in_check {
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
        let mut order = [0i32; crate::chess::moves::MAX_MOVES];
        self.score_moves(pos, &moves, &mut order, Move::NONE, ply);
        for i in 0..moves.len() {
            let mv = pick(&mut moves, &mut order, i);
            let child = pos.play_unchecked(mv);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, false);
            if self.stopped {
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
        let child_len = if ply < MAX_PLY {
            self.pv_len[ply + 1]
        } else {
            0
        };
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let row = &mut head[ply];
        row[0] = mv;
        if child_len > 0 {
            row[1..=child_len].copy_from_slice(&tail[0][..child_len]);
        }
        self.pv_len[ply] = child_len + 1;
    }

    fn score_moves(
        &self,
        pos: &Position,
        moves: &MoveList,
        order: &mut [i32; crate::chess::moves::MAX_MOVES],
        tt_move: Move,
        ply: usize,
    ) {
        let killers = self.killers[ply];
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
}
