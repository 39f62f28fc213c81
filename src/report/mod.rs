//! Report types: one `Serialize` struct per command result, rendered as text
//! or as JSON from the same value.
//!
//! JSON conventions (schema version [`SCHEMA_VERSION`]):
//! * every top-level object has `schema_version`, `kind`, `build` and `machine`;
//! * node counts are JSON integers, exact for any value (the encoder writes all
//!   digits), but many JSON readers (JavaScript, `jq` before 1.7) lose precision
//!   above 2^53 = 9,007,199,254,740,992, so each count also has a `*_str` twin
//!   holding the exact decimal string;
//! * times are in seconds (`f64`), speeds in nodes per second.

use serde::Serialize;

use crate::chess::oddity::Oddity;

mod bench;
mod compare;
mod suite;

pub mod style;

pub use bench::{BenchPosition, BenchReport, BenchRun};
pub use compare::CompareReport;
pub use suite::{PositionStatus, SuitePosition, SuiteReport, SuiteSummary};

/// Version of the JSON schema; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// What the binary was built with.
#[derive(Clone, Debug, Serialize)]
pub struct BuildInfo {
    /// Crate version.
    pub version: &'static str,
    /// Git commit (short hash), empty when built outside a repository.
    pub git: &'static str,
    /// Cargo profile (`release`, `debug`).
    pub profile: &'static str,
    /// Slider lookup compiled in: `pext` or `magic`.
    pub slider_lookup: &'static str,
    /// Relevant CPU features enabled at compile time.
    pub target_features: Vec<&'static str>,
    /// True when debug assertions are on (timings are not representative).
    pub debug_assertions: bool,
}

impl BuildInfo {
    /// Information about this build.
    pub fn current() -> BuildInfo {
        let enabled: Vec<&'static str> = env!("PERFT_TARGET_FEATURES").split(',').collect();
        let target_features = ["popcnt", "bmi1", "bmi2", "lzcnt", "avx2", "avx512f"]
            .into_iter()
            .filter(|f| enabled.contains(f))
            .collect();
        BuildInfo {
            version: env!("CARGO_PKG_VERSION"),
            git: env!("PERFT_GIT_HASH"),
            profile: env!("PERFT_PROFILE"),
            slider_lookup: crate::chess::attacks::SLIDER_LOOKUP,
            target_features,
            debug_assertions: cfg!(debug_assertions),
        }
    }

    /// One-line summary for `--version`.
    pub fn summary(&self) -> String {
        let git = if self.git.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.git)
        };
        format!(
            "{}{git} [{} sliders; features: {}; profile: {}]",
            self.version,
            self.slider_lookup,
            if self.target_features.is_empty() {
                "baseline".to_string()
            } else {
                self.target_features.join(",")
            },
            self.profile
        )
    }
}

/// The machine the report was made on.
#[derive(Clone, Debug, Serialize)]
pub struct MachineInfo {
    /// CPU model name (from `/proc/cpuinfo` on Linux), or "unknown".
    pub cpu: String,
    /// Logical CPUs available to this process.
    pub logical_cpus: usize,
    /// Operating system.
    pub os: &'static str,
    /// CPU architecture.
    pub arch: &'static str,
}

impl MachineInfo {
    /// Information about this machine.
    pub fn current() -> MachineInfo {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".to_string());
        MachineInfo {
            cpu,
            logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            os: std::env::consts::OS,
            arch: std::env::consts::ARCH,
        }
    }
}

/// Common header of every JSON report.
#[derive(Clone, Debug, Serialize)]
pub struct Header {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Report kind: `count`, `divide`, `suite`, ...
    pub kind: &'static str,
    /// Build information.
    pub build: BuildInfo,
    /// Machine information.
    pub machine: MachineInfo,
}

impl Header {
    /// A header for a report of `kind`.
    pub fn new(kind: &'static str) -> Header {
        Header {
            schema_version: SCHEMA_VERSION,
            kind,
            build: BuildInfo::current(),
            machine: MachineInfo::current(),
        }
    }
}

/// Formats an integer with thousands separators: `1234567` -> `1,234,567`.
pub fn thousands(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Nodes per second, 0 when no time was measured.
pub fn nps(nodes: u128, seconds: f64) -> f64 {
    if seconds > 0.0 {
        nodes as f64 / seconds
    } else {
        0.0
    }
}

/// Something the user should know that does not stop the run. Printed on
/// stderr as `warning: ...` (unless `--quiet`) and listed in JSON reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Warning {
    /// Timings from a build with debug assertions mean little.
    DebugBuild,
    /// A timed run too short for its speed to be meaningful.
    ShortRun {
        /// Wall-clock seconds of the run.
        seconds: f64,
    },
    /// More worker threads than logical CPUs: speeds will not scale.
    ThreadsAboveCpus {
        /// Threads requested.
        threads: usize,
        /// Logical CPUs available.
        cpus: usize,
    },
    /// Other work was running: timings are unreliable.
    BusyMachine {
        /// CPUs kept busy by other work just before the run (0.0 to `cpus`).
        busy_cpus: f64,
        /// Logical CPUs available.
        cpus: usize,
    },
    /// The run was stopped before it finished; counts are lower bounds.
    Partial {
        /// Root moves finished.
        done: usize,
        /// Root moves in total.
        total: usize,
    },
    /// A game-impossible position (counted all the same); its JSON `kind`
    /// is the oddity's own name ([`Oddity::kind`]).
    Oddity {
        /// What is impossible about it.
        oddity: Oddity,
        /// Where the position is, for suite positions (`FILE:LINE`).
        place: Option<String>,
    },
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::DebugBuild => write!(
                f,
                "this binary has debug assertions on: speeds are not representative (build with --release)"
            ),
            Warning::ShortRun { seconds } => write!(
                f,
                "the run took only {seconds:.3} s: too short to time reliably; use a deeper depth"
            ),
            Warning::ThreadsAboveCpus { threads, cpus } => write!(
                f,
                "{threads} threads on {cpus} logical CPUs: threads will share cores and speeds will not scale"
            ),
            Warning::BusyMachine { busy_cpus, cpus } => write!(
                f,
                "other work kept {busy_cpus:.1} of {cpus} logical CPUs busy just before the run: speeds are low and may not scale"
            ),
            Warning::Partial { done, total } => write!(
                f,
                "interrupted: {done} of {total} root moves finished; the counts are partial (lower bounds)"
            ),
            Warning::Oddity { oddity, place } => match place {
                Some(place) => write!(f, "{place}: {oddity}"),
                None => write!(f, "{oddity}"),
            },
        }
    }
}

impl Warning {
    /// A stable machine-readable name.
    pub fn kind(&self) -> &'static str {
        match self {
            Warning::DebugBuild => "debug_build",
            Warning::ShortRun { .. } => "short_run",
            Warning::ThreadsAboveCpus { .. } => "threads_above_cpus",
            Warning::BusyMachine { .. } => "busy_machine",
            Warning::Partial { .. } => "partial",
            Warning::Oddity { oddity, .. } => oddity.kind(),
        }
    }
}

/// JSON: `{"kind": "...", "message": "..."}`.
impl Serialize for Warning {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("kind", self.kind())?;
        m.serialize_entry("message", &self.to_string())?;
        m.end()
    }
}

/// The perft driver settings of a run.
#[derive(Clone, Debug, Serialize)]
pub struct EngineInfo {
    /// Worker threads.
    pub threads: usize,
    /// Perft table bytes (0 = no table).
    pub hash_bytes: u128,
    /// Table synchronisation (`null` without a table).
    pub hash_sync: Option<String>,
    /// Split depth of the parallel driver.
    pub split_depth: u32,
    /// Smallest hashed depth.
    pub min_hash_depth: u32,
    /// Zobrist seed of the table keys.
    pub zobrist_seed: u64,
}

impl EngineInfo {
    /// The settings of `perft`.
    pub fn of(perft: &crate::perft::Perft) -> EngineInfo {
        let c = perft.config();
        let bytes = perft.table().map_or(0, |t| t.bytes());
        EngineInfo {
            threads: c.threads,
            hash_bytes: bytes,
            hash_sync: perft.table().map(|t| t.sync().to_string()),
            split_depth: c.split_depth,
            min_hash_depth: c.min_hash_depth,
            zobrist_seed: c.zobrist_seed,
        }
    }

    /// What the speed figure means, for text output.
    pub fn speed_note(&self) -> String {
        let threads = if self.threads == 1 {
            "1 thread".to_string()
        } else {
            format!("{} threads", self.threads)
        };
        match &self.hash_sync {
            None => format!("bulk-counted leaves per second, {threads}, no hash table"),
            Some(sync) => format!(
                "effective: leaves per second with a {} {sync} perft table, hits skip whole subtrees; {threads}",
                crate::perft::hash::human_bytes(self.hash_bytes)
            ),
        }
    }
}

/// Perft table counters of a run.
#[derive(Clone, Debug, Serialize)]
pub struct TableStats {
    /// Probes.
    pub probes: u64,
    /// Probes that found their count.
    pub hits: u64,
    /// `hits / probes`.
    pub hit_rate: f64,
    /// Counts stored in empty entries or over the same position.
    pub stores: u64,
    /// Counts stored over another position's smaller count.
    pub replacements: u64,
    /// Counts not stored (every entry of the bucket held a larger count).
    pub rejected: u64,
}

impl TableStats {
    /// From the driver's counters.
    pub fn from(stats: &crate::perft::PerftStats) -> TableStats {
        TableStats {
            probes: stats.probes,
            hits: stats.hits,
            hit_rate: stats.hit_rate(),
            stores: stats.stores,
            replacements: stats.replacements,
            rejected: stats.rejected,
        }
    }

    /// One text line.
    pub fn to_text(&self) -> String {
        format!(
            "table     {} probes, {} hits ({:.1} %), {} stores, {} replacements, {} rejected\n",
            thousands(self.probes.into()),
            thousands(self.hits.into()),
            100.0 * self.hit_rate,
            thousands(self.stores.into()),
            thousands(self.replacements.into()),
            thousands(self.rejected.into())
        )
    }
}

/// Result of `perft count`.
#[derive(Clone, Debug, Serialize)]
pub struct CountReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// The counted position (after `--moves`).
    pub fen: String,
    /// Depth in plies.
    pub depth: u32,
    /// Leaf nodes (a lower bound when `complete` is false).
    pub nodes: u128,
    /// Leaf nodes as an exact decimal string.
    pub nodes_str: String,
    /// False when interrupted: `nodes` covers only `root_moves_done` root moves.
    pub complete: bool,
    /// Legal moves at the root.
    pub root_moves: usize,
    /// Root moves whose subtree was counted in full.
    pub root_moves_done: usize,
    /// Worker threads.
    pub threads: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Leaves per second. Without a table: bulk-counted leaves (the last ply
    /// is counted, not played). With a table: effective (hits skip subtrees).
    pub nps: f64,
    /// Driver settings (threads, table, split depth, key seed).
    pub engine: EngineInfo,
    /// Table counters (`null` without a table).
    pub table: Option<TableStats>,
    /// Warnings (also printed on stderr).
    pub warnings: Vec<Warning>,
}

impl CountReport {
    /// Text rendering.
    pub fn to_text(&self) -> String {
        let partial = if self.complete {
            String::new()
        } else {
            format!(
                "  (PARTIAL: interrupted after {} of {} root moves)",
                self.root_moves_done, self.root_moves
            )
        };
        let mut s = format!(
            "position  {}\ndepth     {}\nnodes     {}{partial}\ntime      {:.3} s\nspeed     {:.1} Mnps ({})\n",
            self.fen,
            self.depth,
            thousands(self.nodes),
            self.seconds,
            self.nps / 1e6,
            self.engine.speed_note()
        );
        if let Some(t) = &self.table {
            s.push_str(&t.to_text());
        }
        s
    }
}

/// One move of a divide.
#[derive(Clone, Debug, Serialize)]
pub struct DivideEntry {
    /// UCI move.
    #[serde(rename = "move")]
    pub mv: String,
    /// Leaf nodes below it.
    pub nodes: u128,
    /// Exact decimal string of `nodes`.
    pub nodes_str: String,
}

/// Result of `perft divide`.
#[derive(Clone, Debug, Serialize)]
pub struct DivideReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// The divided position.
    pub fen: String,
    /// Depth in plies.
    pub depth: u32,
    /// Per-move counts, sorted by move text (only finished moves when partial).
    pub moves: Vec<DivideEntry>,
    /// Sum of all moves.
    pub nodes: u128,
    /// Exact decimal string of `nodes`.
    pub nodes_str: String,
    /// False when interrupted: `moves` lacks the unfinished root moves.
    pub complete: bool,
    /// Legal moves at the root.
    pub root_moves: usize,
    /// Worker threads.
    pub threads: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Warnings (also printed on stderr).
    pub warnings: Vec<Warning>,
}

impl DivideReport {
    /// Stockfish's `go perft` format: `move: count` lines, a blank line,
    /// `Nodes searched: N`. A partial divide ends with a line saying so
    /// instead, so no tool takes its total for a perft count.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for e in &self.moves {
            s.push_str(&format!("{}: {}\n", e.mv, e.nodes));
        }
        if self.complete {
            s.push_str(&format!("\nNodes searched: {}\n", self.nodes));
        } else {
            s.push_str(&format!(
                "\nPARTIAL: interrupted after {} of {} root moves ({} nodes counted)\n",
                self.moves.len(),
                self.root_moves,
                self.nodes
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(119_060_324), "119,060,324");
        assert_eq!(
            thousands(u128::from(u64::MAX)),
            "18,446,744,073,709,551,615"
        );
    }
}
