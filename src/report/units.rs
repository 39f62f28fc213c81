//! Report of `perft merge`: a job's total and divide, the units that keep
//! it from being summed, and the comparison with a second run.

use serde::Serialize;

use super::{DivideEntry, Header, thousands};
use crate::perft::units::{Difference, MergeOutcome, UnitProblem};

/// A unit that is not complete.
#[derive(Clone, Debug, Serialize)]
pub struct UnitStatusEntry {
    /// The job directory.
    pub dir: String,
    /// Unit index.
    pub unit: usize,
    /// What is wrong.
    pub problem: UnitProblem,
    /// The problem as text.
    pub message: String,
}

/// The second run of a `--verify`.
#[derive(Clone, Debug, Serialize)]
pub struct VerifyReport {
    /// Its directory.
    pub dir: String,
    /// Its total.
    pub nodes: u128,
    /// Exact decimal string of `nodes`.
    pub nodes_str: String,
    /// Zobrist seeds its records were counted with.
    pub zobrist_seeds: Vec<u64>,
    /// Records compared.
    pub records: usize,
    /// Records counted with the same seed (and a table) in both runs.
    pub same_seed_records: usize,
    /// Every record whose counts differ.
    pub differences: Vec<Difference>,
}

/// Result of `perft merge`.
#[derive(Clone, Debug, Serialize)]
pub struct MergeReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// The job directory.
    pub dir: String,
    /// The job id.
    pub job_id: String,
    /// The root position.
    pub fen: String,
    /// Total depth.
    pub depth: u32,
    /// Split ply.
    pub split_ply: u32,
    /// Units in the job.
    pub units: usize,
    /// Unique positions (records) in the job.
    pub records: u64,
    /// True when every unit is complete and the total is exact.
    pub complete: bool,
    /// The perft (`null` unless `complete`).
    pub nodes: Option<u128>,
    /// Exact decimal string of `nodes`.
    pub nodes_str: Option<String>,
    /// Per root move, sorted by move (empty unless `complete`).
    pub moves: Vec<DivideEntry>,
    /// Zobrist seeds the records were counted with.
    pub zobrist_seeds: Vec<u64>,
    /// Sum of the records' count times, seconds.
    pub record_seconds: f64,
    /// Units that are missing, partial or corrupt (in either run).
    pub incomplete: Vec<UnitStatusEntry>,
    /// The comparison with `--verify DIR2`.
    pub verify: Option<VerifyReport>,
}

impl MergeReport {
    /// Fills the totals from a merged job.
    pub fn set_outcome(&mut self, o: &MergeOutcome) {
        self.complete = true;
        self.nodes = Some(o.total);
        self.nodes_str = Some(o.total.to_string());
        self.moves = o
            .divide
            .iter()
            .map(|(mv, n)| DivideEntry {
                mv: mv.clone(),
                nodes: *n,
                nodes_str: n.to_string(),
                stats: None,
            })
            .collect();
        self.moves.sort_by(|a, b| a.mv.cmp(&b.mv));
        self.zobrist_seeds = o.zobrist_seeds.iter().copied().collect();
        self.record_seconds = o.record_seconds;
    }

    /// Text rendering: the divide in Stockfish's format, the total, then the
    /// comparison; or the list of incomplete units.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        if !self.incomplete.is_empty() {
            s.push_str(&format!(
                "{} unit(s) not complete; nothing was summed:\n",
                self.incomplete.len()
            ));
            for u in &self.incomplete {
                s.push_str(&format!("  {}/unit-{:05}: {}\n", u.dir, u.unit, u.message));
            }
            return s;
        }
        for m in &self.moves {
            s.push_str(&format!("{}: {}\n", m.mv, m.nodes));
        }
        if let Some(n) = self.nodes {
            s.push_str(&format!("\nNodes searched: {n}\n"));
            s.push_str(&format!(
                "\nperft {} = {} from {} units, {} positions at ply {} (job {}, seeds {:?}, {:.1} s of counting)\n",
                self.depth,
                thousands(n),
                self.units,
                thousands(u128::from(self.records)),
                self.split_ply,
                self.job_id,
                self.zobrist_seeds,
                self.record_seconds
            ));
        }
        if let Some(v) = &self.verify {
            if v.differences.is_empty() && Some(v.nodes) == self.nodes {
                s.push_str(&format!(
                    "verify: {} agrees on all {} records (total {}, seeds {:?})\n",
                    v.dir,
                    v.records,
                    thousands(v.nodes),
                    v.zobrist_seeds
                ));
            } else {
                s.push_str(&format!(
                    "verify: {} DIFFERS on {} of {} records (total {}):\n",
                    v.dir,
                    v.differences.len(),
                    v.records,
                    thousands(v.nodes)
                ));
                for d in &v.differences {
                    s.push_str(&format!(
                        "  unit {} record {}: {} depth {}: {} vs {}\n",
                        d.unit, d.index, d.fen, d.depth, d.count, d.other_count
                    ));
                }
            }
        }
        s
    }
}
