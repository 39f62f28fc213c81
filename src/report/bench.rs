//! The `perft bench` report.

use serde::Serialize;

use super::{Header, StatsReport, TableStats, Warning, thousands};
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
    /// The perft table: its set-up (made before the run's first position,
    /// so outside `seconds`) and its counters over all positions (`null`
    /// without a table).
    pub table: Option<TableStats>,
    /// With `--ceiling`, for a run without a table: the same positions
    /// counted by `threads` independent single-thread counters at once
    /// (`null` otherwise).
    pub ceiling: Option<BenchCeiling>,
}

/// What the machine allows at a thread count, and how close a run came.
/// `threads` single-thread counters, sharing nothing, count the bench's
/// positions side by side: their added speeds are the ceiling. Its gap to
/// linear scaling is the machine's (a lower all-core clock, shared caches
/// and memory bandwidth); the run's gap to the ceiling is the program's
/// (splitting, stealing, waiting for the last root moves).
#[derive(Clone, Debug, Serialize)]
pub struct BenchCeiling {
    /// Independent counters run at once (the run's thread count).
    pub counters: usize,
    /// Their speeds added up, millions of leaves per second.
    pub mnps: f64,
    /// One counter alone, millions of leaves per second (the reference of
    /// every speedup below).
    pub one_mnps: f64,
    /// `mnps / one_mnps`: the most a run at this thread count can reach.
    pub speedup: f64,
    /// `speedup / counters`: the machine's own efficiency.
    pub efficiency: f64,
    /// The median counter's time over one counter alone's: how much slower
    /// each core counts when all of them do.
    pub slowdown: f64,
    /// The run's Mnps over `one_mnps`.
    pub run_speedup: f64,
    /// `run_speedup / counters`: the run's efficiency against linear
    /// scaling.
    pub run_efficiency: f64,
    /// The run's Mnps over the ceiling's: its efficiency against what the
    /// machine allows (1.0: nothing lost to the program).
    pub of_ceiling: f64,
}

/// Result of `perft bench`.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// The bench file.
    pub file: String,
    /// The built-in depth set run: `standard` or `deep` (`null` with
    /// `--file`). Each set has its own signature.
    pub depth_set: Option<&'static str>,
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
            match (&run.table, run.hash.as_deref()) {
                (Some(t), Some(h)) => format!(
                    ", hash {h} (set up in {:.3} s before the first position, not in the times below)",
                    t.setup.setup_seconds
                ),
                (None, Some(h)) => format!(", hash {h}"),
                _ => String::new(),
            },
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
            "{:<12} {:>5} {:>15} {:>9.3} {:>8.1}\n",
            "total",
            "",
            thousands(run.nodes),
            run.seconds,
            run.mnps
        ));
        if let Some(c) = &run.ceiling {
            s.push_str(&format!(
                "ceiling      {} at once: {:.1} Mnps ({:.2}x one alone, each {:.2}x slower); this run {:.0} % of linear, {:.0} % of the ceiling\n",
                super::plural(c.counters as u128, "single-thread counter"),
                c.mnps,
                c.speedup,
                c.slowdown,
                c.run_efficiency * 100.0,
                c.of_ceiling * 100.0
            ));
        }
        s.push('\n');
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
            let ceiling = self.runs.iter().any(|r| r.ceiling.is_some());
            s.push_str(&format!(
                "{:>7}  {:<width$} {:>9} {:>8} {:>10} {:>8}{}\n",
                "threads",
                "hash",
                "Mnps",
                "speedup",
                "efficiency",
                "hit rate",
                if ceiling {
                    format!(
                        " {:>13} {:>16} {:>11}",
                        "ceiling Mnps", "ceiling vs linear", "of ceiling"
                    )
                } else {
                    String::new()
                }
            ));
            for r in &self.runs {
                let hit_rate = if r.probes == 0 {
                    "-".to_string()
                } else {
                    format!("{:.1}%", r.hit_rate * 100.0)
                };
                let ceiling = r
                    .ceiling
                    .as_ref()
                    .map(|c| {
                        format!(
                            " {:>13.1} {:>16.0}% {:>10.0}%",
                            c.mnps,
                            c.efficiency * 100.0,
                            c.of_ceiling * 100.0
                        )
                    })
                    .unwrap_or_default();
                s.push_str(&format!(
                    "{:>7}  {:<width$} {:>9.1} {:>7.2}x {:>9.0}% {:>8}{ceiling}\n",
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
        s.push_str(&format!(
            "signature {} nodes{}\n",
            thousands(self.signature),
            self.depth_set
                .map(|d| format!(" ({d} depth set)"))
                .unwrap_or_default()
        ));
        s
    }

    /// The whole text report.
    pub fn to_text(&self) -> String {
        let mut s: String = self.runs.iter().map(BenchReport::run_text).collect();
        s.push_str(&self.summary_text());
        s
    }
}
