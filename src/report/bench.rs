//! The `perft bench` report.

use serde::Serialize;

use super::{Header, StatsReport, Warning, thousands};
use crate::chess::cpu::CpuPath;

/// One position of a bench run.
#[derive(Clone, Debug, Serialize)]
pub struct BenchPosition {
    /// Name (`id` in bench.epd).
    pub id: String,
    /// FEN.
    pub fen: String,
    /// Depth run (plies).
    pub depth: u32,
    /// Leaf nodes.
    pub nodes: u128,
    /// Exact decimal string of `nodes`.
    pub nodes_str: String,
    /// The published count this must equal.
    pub expected: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Millions of bulk-counted leaves per second (with `--stats`: leaves
    /// counted and classified).
    pub mnps: f64,
    /// The leaf breakdown (only with `--stats`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<StatsReport>,
}

/// One engine setting of a bench (one row of the scaling table).
#[derive(Clone, Debug, Serialize)]
pub struct BenchRun {
    /// Worker threads.
    pub threads: usize,
    /// Perft table setting (`null`: this build has no perft table option).
    pub hash: Option<String>,
    /// CPU path the run used (`portable`, `popcnt`, `bmi2`).
    pub cpu_path: CpuPath,
    /// `shortcut` (leaf-parent shortcut, the default) or `plain` (`--plain`).
    pub counter: &'static str,
    /// Per position.
    pub positions: Vec<BenchPosition>,
    /// Total leaf nodes (the signature).
    pub nodes: u128,
    /// Exact decimal string of `nodes`.
    pub nodes_str: String,
    /// Wall-clock seconds, all positions.
    pub seconds: f64,
    /// Millions of leaves per second over all positions.
    pub mnps: f64,
    /// `mnps` relative to the first run.
    pub speedup: f64,
    /// `speedup / threads * threads of the first run`.
    pub efficiency: f64,
    /// Perft table probes, all positions (0 without a table).
    pub probes: u64,
    /// Probes that found the count.
    pub hits: u64,
    /// `hits / probes` (0 without a table).
    pub hit_rate: f64,
    /// True with `--stats`: every leaf counted and classified.
    pub leaf_stats: bool,
}

/// Result of `perft bench`.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// The bench file.
    pub file: String,
    /// `--max-depth` (`null` = the documented depths).
    pub max_depth: Option<u32>,
    /// Total leaf nodes of one run: the same for every commit, thread count
    /// and hash setting, or the generator changed.
    pub signature: u128,
    /// Exact decimal string of `signature`.
    pub signature_str: String,
    /// One run per engine setting.
    pub runs: Vec<BenchRun>,
    /// False when interrupted (Ctrl-C).
    pub complete: bool,
    /// Warnings (also printed on stderr).
    pub warnings: Vec<Warning>,
}

impl BenchReport {
    /// The table of one run.
    pub fn run_text(run: &BenchRun) -> String {
        let mut s = format!(
            "threads {}{}{}; cpu path {}; {} counter\n{:<12} {:>5} {:>15} {:>9} {:>8}\n",
            run.threads,
            run.hash
                .as_deref()
                .map(|h| format!(", hash {h}"))
                .unwrap_or_default(),
            if run.leaf_stats {
                ", --stats (leaves counted and classified)"
            } else {
                ""
            },
            run.cpu_path,
            run.counter,
            "position",
            "depth",
            "nodes",
            "seconds",
            "Mnps"
        );
        for p in &run.positions {
            s.push_str(&format!(
                "{:<12} {:>5} {:>15} {:>9.3} {:>8.1}\n",
                p.id,
                p.depth,
                thousands(p.nodes),
                p.seconds,
                p.mnps
            ));
        }
        s.push_str(&format!(
            "{:<12} {:>5} {:>15} {:>9.3} {:>8.1}\n\n",
            "total",
            "",
            thousands(run.nodes),
            run.seconds,
            run.mnps
        ));
        s
    }

    /// The closing text: the scaling table (several runs) and the signature.
    pub fn summary_text(&self) -> String {
        let mut s = String::new();
        if self.runs.len() > 1 {
            let width = self
                .runs
                .iter()
                .map(|r| r.hash.as_deref().unwrap_or("-").len())
                .max()
                .unwrap_or(4)
                .max(4);
            s.push_str(&format!(
                "{:>7}  {:<width$} {:>9} {:>8} {:>10} {:>8}\n",
                "threads", "hash", "Mnps", "speedup", "efficiency", "hit rate"
            ));
            for r in &self.runs {
                let hit_rate = if r.probes == 0 {
                    "-".to_string()
                } else {
                    format!("{:.1}%", r.hit_rate * 100.0)
                };
                s.push_str(&format!(
                    "{:>7}  {:<width$} {:>9.1} {:>7.2}x {:>9.0}% {:>8}\n",
                    r.threads,
                    r.hash.as_deref().unwrap_or("-"),
                    r.mnps,
                    r.speedup,
                    r.efficiency * 100.0,
                    hit_rate
                ));
            }
            s.push('\n');
        }
        if !self.complete {
            s.push_str("PARTIAL: interrupted; the signature below is incomplete\n");
        }
        s.push_str(&format!("signature {} nodes\n", thousands(self.signature)));
        s
    }

    /// The whole text report.
    pub fn to_text(&self) -> String {
        let mut s: String = self.runs.iter().map(BenchReport::run_text).collect();
        s.push_str(&self.summary_text());
        s
    }
}
