//! The entry point of a search ([`search_resumable`]): the main thread's
//! iterative deepening and, with more than one thread, the lazy-SMP helpers
//! beside it, each searching the same root through its own handle on the
//! shared TT. The main thread reports and decides; it adopts a helper's
//! iteration when the helper completes the target depth first.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::chess::moves::Move;
use crate::chess::position::Position;
use crate::search::score::Score;
use crate::search::tt::{Isolation, Tt, TtError, TtStats};

use super::deepen::Searcher;
use super::result::nps;
use super::state::Fingerprint;
use super::{
    CHECK_EVERY, IterationInfo, Limits, MAX_DEPTH, SearchOptions, SearchResult, SearchState,
    SearchStats,
};

/// [`search`](fn@super::search) with restartable nodes: `state` keeps every node's state when
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
