//! Restartable nodes: what an aborted search leaves for the next call of
//! the same root ([`SearchState`]): the software stack of frames (one per
//! ply, with the triangular PV row), the interrupted iteration and its
//! window, the killers, the move counts of completed PV nodes, the open TT
//! transaction, and a fingerprint of the root and options that a resuming
//! search must match.

use crate::chess::moves::{Move, MoveList};
use crate::chess::position::Position;
use crate::search::score::MAX_PLY;
use crate::search::tt::{Tt, TtError, Txn};

use super::{Limits, MAX_DEPTH, OnFail, SearchOptions, SearchStats};

/// Which search of its current move a node was in when it was aborted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Phase {
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
pub(super) struct Frame {
    /// PV row of this ply (the triangular PV table lives on the stack).
    pub(super) pv: [Move; MAX_PLY + 1],
    /// Length of `pv`.
    pub(super) pv_len: usize,
    /// The node was a quiescence node.
    pub(super) quiesce: bool,
    /// Remaining depth (main search).
    pub(super) depth: i32,
    /// Window: alpha as improved so far, alpha on entry, beta.
    pub(super) alpha: i32,
    pub(super) alpha_orig: i32,
    pub(super) beta: i32,
    /// Best score and move so far.
    pub(super) best: i32,
    pub(super) best_move: Move,
    /// Position key (pushed on the repetition stack again on resume).
    pub(super) key: u64,
    /// The move list in its current (partly selection-sorted) order, and the
    /// ordering scores beside it.
    pub(super) moves: MoveList,
    pub(super) order: [i32; crate::chess::moves::MAX_MOVES],
    /// Index of the move being searched.
    pub(super) next: usize,
    /// Which search of that move was running.
    pub(super) phase: Phase,
    /// At the root: the node count when the current move began.
    pub(super) nodes_before: u64,
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
pub(super) struct PvCounts {
    pub(super) key: u64,
    /// Moves with the nodes they took, most nodes first.
    pub(super) counts: Vec<(Move, u64)>,
}

/// The iterative-deepening loop's state of an aborted iteration.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Iteration {
    pub(super) depth: u32,
    pub(super) alpha: i32,
    pub(super) beta: i32,
    pub(super) delta: i32,
    pub(super) fails: u32,
    pub(super) prev_score: i32,
    pub(super) completed: u32,
}

/// What a resumed search must share with the aborted one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Fingerprint {
    pub(super) key: u64,
    pub(super) history: Vec<u64>,
    pub(super) aspiration: i32,
    pub(super) on_fail: OnFail,
    pub(super) pvs: bool,
    pub(super) exact_depth: bool,
    pub(super) threads: usize,
    pub(super) tt: bool,
}

impl Fingerprint {
    pub(super) fn of(
        pos: &Position,
        history: &[u64],
        options: &SearchOptions,
        tt: bool,
    ) -> Fingerprint {
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

/// The software stack of restartable nodes: what an aborted search leaves for
/// the next search of the same root (see the module docs and
/// [`search_resumable`](super::search_resumable)). Create one per game (or per
/// position) and pass it to every search; a search of another root, with other
/// options, or with [`SearchOptions::restart`] off discards it.
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
    pub(super) frames: Vec<Frame>,
    /// Frames `0..path` hold the nodes of an aborted search.
    pub(super) path: usize,
    /// The aborted iteration; `None`: nothing to resume.
    pub(super) iteration: Option<Iteration>,
    /// Root and options of the aborted search.
    pub(super) fingerprint: Option<Fingerprint>,
    /// The open transaction of the aborted iteration.
    pub(super) txn: Option<Txn>,
    pub(super) killers: Vec<[Move; 2]>,
    /// Best move of the previous iteration, searched first at the root.
    pub(super) root_hint: Move,
    /// Per ply: the last PV node completed there inside its window (its key,
    /// and the nodes each of its moves took, most first). The node of the
    /// same position in the next iteration orders its moves by them, like
    /// the root.
    pub(super) pv_counts: Vec<PvCounts>,
    /// Nodes per move (by index in the node's list) of the PV nodes on the
    /// current path: `MAX_MOVES` slots per ply.
    pub(super) counts_now: Vec<u64>,
    /// Counters since the chain of resumed searches began.
    pub(super) stats: SearchStats,
    /// The last completed iteration: depth (0 = none), score, PV.
    pub(super) done_depth: u32,
    pub(super) done_score: i32,
    pub(super) done_pv: Vec<Move>,
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

#[cfg(test)]
mod tests {
    use crate::chess::moves::Move;
    use crate::chess::position::Position;
    use crate::search::alphabeta::{Limits, SearchOptions, SearchState, search_resumable};
    use crate::search::tt::Tt;

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
