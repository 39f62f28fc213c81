//! One thread's searcher ([`Searcher`]) and its iterative-deepening driver:
//! one TT transaction per search of the root inside an aspiration window,
//! committed when the score lands inside it and otherwise rolled back or
//! committed by [`OnFail`], the window widened until it holds; node, time
//! and stop limits, read every [`CHECK_EVERY`] nodes.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

use crate::chess::moves::Move;
use crate::chess::position::Position;
use crate::search::score::{INFINITY, MATE, MAX_PLY};
use crate::search::tt::{Tt, TtError};

use super::state::{Frame, Iteration, PvCounts};
use super::{CHECK_EVERY, MAX_DEPTH, OnFail, SearchOptions, SearchState, SearchStats};

pub(super) struct Searcher<'a> {
    pub(super) tt: Option<&'a mut Tt>,
    /// Helpers add their node counts here every [`CHECK_EVERY`] nodes.
    pub(super) shared_nodes: Option<Arc<AtomicU64>>,
    /// The software stack and everything else a resumed search continues
    /// from (the open transaction, killers, last completed iteration).
    pub(super) st: SearchState,
    /// Keep an aborted iteration's state (and leave its transaction open).
    pub(super) keep: bool,
    /// Frames still to be followed back in by a resuming search.
    pub(super) resume_left: usize,
    /// The node count of this call's first node: the clock and the stop
    /// flags are not read there, so that every call makes progress.
    pub(super) first_node: u64,
    pub(super) exact_depth: bool,
    pub(super) pvs: bool,
    pub(super) nodes_limit: u64,
    pub(super) deadline: Option<Instant>,
    pub(super) stop_flag: Option<Arc<AtomicBool>>,
    /// The depth the main thread is searching (shared with the helpers).
    pub(super) main_depth: Option<Arc<AtomicU32>>,
    /// A helper's number (`None`: the main thread).
    pub(super) helper: Option<usize>,
    /// The iteration being searched.
    pub(super) depth_now: u32,
    /// A helper's iteration was stopped because the main thread caught up.
    pub(super) jump: bool,
    /// The deepest iteration a helper is asked for: at it, a helper that the
    /// main thread catches up with keeps going instead of jumping past it.
    pub(super) jump_cap: u32,
    /// A helper under read-committed isolation: it searches full windows
    /// (no aspiration, so no window can fail) in auto-commit transactions,
    /// whose entries the other threads see as soon as they are stored.
    pub(super) auto_commit: bool,
    /// A second stop flag: for the main thread, raised when a helper has
    /// completed the deepest iteration.
    pub(super) done_flag: Option<Arc<AtomicBool>>,
    pub(super) stopped: bool,
    /// Keys of the game history and of the main-search path down to the
    /// parent of the current node.
    pub(super) keys: Vec<u64>,
    /// Counters since the chain of resumed searches began.
    pub(super) stats: SearchStats,
}

impl<'a> Searcher<'a> {
    pub(super) fn new(
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
    pub(super) fn deepen(
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
    pub(super) fn begin(&mut self) -> Result<(), TtError> {
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
    pub(super) fn end(&mut self, commit: bool) -> Result<(), TtError> {
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
    pub(super) fn enter_node(&mut self) -> bool {
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
}

/// A widened bound: beyond the mate range it jumps to infinity.
fn widen(bound: i32, infinity: i32) -> i32 {
    if bound.abs() >= MATE - MAX_PLY as i32 {
        infinity
    } else {
        bound
    }
}
