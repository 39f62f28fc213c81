//! What a search reports: each completed iteration ([`IterationInfo`]), the
//! counters ([`SearchStats`]) and the outcome ([`SearchResult`]).

use std::time::Duration;

use crate::chess::moves::Move;
use crate::search::score::Score;
use crate::search::tt::TtStats;

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

/// The outcome of [`search`](fn@super::search).
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
    /// ([`search_resumable`](super::search_resumable)), `None` if it started afresh.
    pub resumed: Option<u32>,
    pub(super) chess960: bool,
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

/// Nodes per second.
pub(super) fn nps(nodes: u64, time: Duration) -> u64 {
    let micros = time.as_micros().max(1);
    (u128::from(nodes) * 1_000_000 / micros) as u64
}
