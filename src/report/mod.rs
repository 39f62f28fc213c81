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

use crate::chess::cpu::CpuPath;
use crate::chess::oddity::Oddity;
use crate::perft::{LeafStats, StatField};

mod bench;
mod compare;
mod fuzz;
mod suite;
mod table;
mod units;
mod versus;

pub mod style;

pub use bench::{BenchCeiling, BenchPosition, BenchReport, BenchRun};
pub use compare::CompareReport;
pub use fuzz::{FuzzFailure, FuzzReport};
pub use suite::{PositionStatus, SuitePosition, SuiteReport, SuiteSummary};
pub use table::{TableSetupReport, TableStats};
pub use units::{MergeReport, UnitStatusEntry, VerifyReport};
pub use versus::{
    GeoMean, LoadReport, PositionResult, ProgramResult, Ratio, VersusReport, VersusWarning, plot,
};

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
    /// CPU path the counting runs on (`portable`, `popcnt` or `bmi2`),
    /// chosen at start-up: `PERFT_CPU`, else the fastest this CPU offers.
    pub cpu_path: CpuPath,
    /// The paths this CPU supports (slowest first).
    pub cpu_paths_supported: Vec<CpuPath>,
    /// Slider lookup of that path: `pext` or `magic`.
    pub slider_lookup: &'static str,
    /// Relevant CPU features enabled for the whole build at compile time
    /// (`RUSTFLAGS="-C target-cpu=..."`; the CPU paths add theirs).
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
            cpu_path: CpuPath::selected(),
            cpu_paths_supported: CpuPath::supported(),
            slider_lookup: CpuPath::selected().slider_lookup(),
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
            "{}{git} [cpu path: {} ({} sliders); build features: {}; profile: {}]",
            self.version,
            self.cpu_path,
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

/// Fields that hold counts (nodes, table counters) or 64-bit values a
/// JavaScript reader would round (`zobrist_seed`, `seed`).
pub const COUNT_FIELDS: [&str; 18] = [
    "nodes",
    "expected",
    "got",
    "ours",
    "engine",
    "total",
    "probes",
    "hits",
    "stores",
    "replacements",
    "rejected",
    "busy_probes",
    "busy_stores",
    "lock_waits",
    "signature",
    "zobrist_seed",
    "seed",
    "hash_bytes",
];

/// Adds the `X_str` twin (the exact decimal string) of every integer field
/// named in [`COUNT_FIELDS`], at any depth, where the report has none yet:
/// every count in every report gets its twin, whichever struct holds it.
pub fn add_str_twins(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            let missing: Vec<(String, String)> = map
                .iter()
                .filter(|(k, v)| {
                    COUNT_FIELDS.contains(&k.as_str())
                        && (v.is_u64() || v.is_i64())
                        && !map.contains_key(&format!("{k}_str"))
                })
                .map(|(k, v)| (format!("{k}_str"), v.to_string()))
                .collect();
            for v in map.values_mut() {
                add_str_twins(v);
            }
            for (k, v) in missing {
                map.insert(k, serde_json::Value::String(v));
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(add_str_twins),
        _ => {}
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

/// `x` with one decimal and its integer part grouped: `1,260.5`.
pub fn thousands_f1(x: f64) -> String {
    let tenths = (x.max(0.0) * 10.0).round() as u128;
    format!("{}.{}", thousands(tenths / 10), tenths % 10)
}

/// `n` and `noun`, with `s` unless `n` is 1, thousands grouped: `1 thread`,
/// `2 threads`, `1,024 positions`.
pub fn plural(n: u128, noun: &str) -> String {
    format!("{} {noun}{}", thousands(n), if n == 1 { "" } else { "s" })
}

/// A long duration in the largest fitting unit: `3.2 days`, `41 years`.
pub fn long_duration(seconds: f64) -> String {
    const DAY: f64 = 86_400.0;
    const YEAR: f64 = 365.25 * DAY;
    if seconds >= YEAR {
        format!("{:.1e} years", seconds / YEAR).replace("e0 ", " ")
    } else if seconds >= DAY {
        format!("{:.1} days", seconds / DAY)
    } else if seconds >= 3600.0 {
        format!("{:.1} hours", seconds / 3600.0)
    } else {
        format!("{seconds:.0} s")
    }
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
    /// A bench run too short for its speed to be meaningful.
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
    /// The estimated run time exceeds a day.
    LongRun {
        /// Depth asked.
        depth: u32,
        /// Estimated leaves.
        nodes: f64,
        /// Estimated seconds (without the perft table's savings).
        seconds: f64,
    },
    /// The run was stopped before it finished; counts are lower bounds.
    Partial {
        /// Root moves finished.
        done: usize,
        /// Root moves in total.
        total: usize,
        /// What stopped the run.
        by: StoppedBy,
    },
    /// `--verify-table` on a run that used no perft table: nothing can
    /// collide, so nothing was run twice.
    NothingToVerify,
    /// `--verify-table`'s second run was stopped: the count stands
    /// unverified.
    VerifyStopped {
        /// What stopped it.
        by: StoppedBy,
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
                "the shortest run took only {seconds:.3} s: too short to time reliably; \
                 `--depth-set deep` times positions about 30 times longer"
            ),
            Warning::ThreadsAboveCpus { threads, cpus } => write!(
                f,
                "{} on {}: threads will share cores and speeds will not scale",
                plural(*threads as u128, "thread"),
                plural(*cpus as u128, "logical CPU")
            ),
            Warning::BusyMachine { busy_cpus, cpus } => write!(
                f,
                "other work kept {busy_cpus:.1} of {cpus} logical CPUs busy just before the run: speeds are low and may not scale"
            ),
            Warning::LongRun {
                depth,
                nodes,
                seconds,
            } => write!(
                f,
                "depth {depth} is at least about {nodes:.1e} leaves here: {} or more at this machine's speed \
                 (a perft table may shorten it); Ctrl-C stops with a partial result",
                long_duration(*seconds)
            ),
            Warning::Partial { done, total, by } => write!(
                f,
                "{}: {done} of {total} root moves finished; the counts are partial (lower bounds)",
                by.text()
            ),
            Warning::NothingToVerify => write!(
                f,
                "--verify-table: this run used no perft table (every leaf counted), so there is nothing to verify"
            ),
            Warning::VerifyStopped { by } => write!(
                f,
                "--verify-table: the second run was {}: the count is complete but unverified",
                by.text()
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
            Warning::LongRun { .. } => "long_run",
            Warning::Partial { .. } => "partial",
            Warning::NothingToVerify => "nothing_to_verify",
            Warning::VerifyStopped { .. } => "verify_stopped",
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
    /// Huge pages for the table: `madvise(MADV_HUGEPAGE) accepted`, `...
    /// refused: <reason>`, `not available` (`null` without a table).
    pub huge_pages: Option<String>,
    /// Bytes of the process's memory in transparent huge pages when the
    /// report was made (`AnonHugePages`, Linux; `null` elsewhere or
    /// without a table).
    pub huge_page_bytes: Option<u64>,
    /// CPU path the count ran on.
    pub cpu_path: CpuPath,
    /// Counter that ran: `shortcut` (leaf parents count unaffected moves
    /// without making them) or `plain` (every move above the last ply made:
    /// `--plain`, or measured faster on this position).
    pub counter: &'static str,
    /// The timing of both counters on samples of the tree that chose the
    /// counter (`null` when none was made: `--plain`, `--shortcut`, or a
    /// count too shallow or short to be worth it).
    pub counter_choice: Option<CounterChoiceReport>,
}

/// How the counter of a run was chosen: both timed on the same samples.
#[derive(Clone, Debug, Serialize)]
pub struct CounterChoiceReport {
    /// Samples (subtrees 3 plies deep at random nodes) counted by both.
    pub samples: usize,
    /// The shortcut's time over the plain loop's on the samples of the
    /// steps kept (a disturbed step left out): above 1.04, in the median
    /// step too, the plain loop runs.
    pub shortcut_over_plain: f64,
    /// Wall-clock seconds of the measurement, part of the count's seconds.
    pub seconds: f64,
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
            huge_pages: perft.table().map(|t| t.huge_pages().to_string()),
            huge_page_bytes: perft
                .table()
                .and(crate::perft::memory::anon_huge_page_bytes()),
            cpu_path: c.cpu,
            counter: if c.plain { "plain" } else { "shortcut" },
            counter_choice: None,
        }
    }

    /// These settings, with the counter a run used and how it was chosen.
    pub fn ran(
        mut self,
        plain: bool,
        choice: Option<crate::perft::choose::CounterChoice>,
    ) -> EngineInfo {
        self.counter = if plain { "plain" } else { "shortcut" };
        self.counter_choice = choice.map(|c| CounterChoiceReport {
            samples: c.samples,
            shortcut_over_plain: c.shortcut_over_plain,
            seconds: c.seconds,
        });
        self
    }

    /// What the speed figure means, for text output.
    pub fn speed_note(&self) -> String {
        let threads = plural(self.threads as u128, "thread");
        let measured = self
            .counter_choice
            .as_ref()
            .map(|c| {
                format!(
                    " (timed {:.2}x the plain loop's time on {} samples)",
                    c.shortcut_over_plain, c.samples
                )
            })
            .unwrap_or_default();
        let how = format!(
            "{} counter{measured}, {} path",
            if self.counter == "plain" {
                "plain"
            } else {
                "leaf-parent shortcut"
            },
            self.cpu_path
        );
        match &self.hash_sync {
            None => format!("bulk-counted leaves per second, {threads}, no hash table; {how}"),
            Some(sync) => format!(
                "effective: leaves per second with a {} {sync} perft table, hits skip whole subtrees; {threads}; {how}",
                crate::perft::hash::human_bytes(self.hash_bytes)
            ),
        }
    }
}

/// The leaf breakdown of a run (`--stats`). JSON: the eight figures under
/// the names of [`crate::perft::LeafStats`] (`captures`, `en_passant`,
/// `castles`, `promotions`, `checks`, `discovered_checks`, `double_checks`,
/// `checkmates`), each with its exact decimal `_str` twin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatsReport(pub LeafStats);

impl Serialize for StatsReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(2 * StatField::ALL.len()))?;
        for field in StatField::ALL {
            let n = field.of(&self.0);
            m.serialize_entry(field.name(), &n)?;
            m.serialize_entry(&format!("{}_str", field.name()), &n.to_string())?;
        }
        m.end()
    }
}

impl StatsReport {
    /// A text table in the published tables' columns (Nodes, Captures,
    /// E.p., Castles, Promotions, Checks, Discovery Checks, Double Checks,
    /// Checkmates), one row per `(label, stats)`, under `first` as the
    /// heading of the label column. Numbers are right-aligned with
    /// thousands separators.
    pub fn table(first: &str, rows: &[(String, LeafStats)]) -> String {
        let mut headings = vec![first.to_string(), "Nodes".to_string()];
        headings.extend(StatField::ALL.iter().map(|f| f.heading().to_string()));
        let cells: Vec<Vec<String>> = rows
            .iter()
            .map(|(label, st)| {
                let mut row = vec![label.clone(), thousands(st.nodes.into())];
                row.extend(StatField::ALL.iter().map(|f| thousands(f.of(st).into())));
                row
            })
            .collect();
        let widths: Vec<usize> = (0..headings.len())
            .map(|i| {
                cells
                    .iter()
                    .map(|r| r[i].len())
                    .chain([headings[i].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |row: &[String]| {
            let mut out = String::new();
            for (i, cell) in row.iter().enumerate() {
                if i == 0 {
                    out.push_str(&format!("{cell:<w$}", w = widths[0]));
                } else {
                    out.push_str(&format!("  {cell:>w$}", w = widths[i]));
                }
            }
            out.push('\n');
            out
        };
        let mut out = line(&headings);
        for row in &cells {
            out.push_str(&line(row));
        }
        out
    }
}

/// What ended a run before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StoppedBy {
    /// Ctrl-C (exit 130).
    Interrupt,
    /// `--max-time` elapsed (exit 124).
    MaxTime,
}

impl StoppedBy {
    /// How the text reports say it.
    pub fn text(self) -> &'static str {
        match self {
            StoppedBy::Interrupt => "interrupted",
            StoppedBy::MaxTime => "stopped by --max-time",
        }
    }
}

/// `--verify-table`: the same count again with independent Zobrist keys and
/// a fresh table. A false table hit in either run would have to produce the
/// very same wrong count in the other to go unnoticed.
#[derive(Clone, Debug, Serialize)]
pub struct TableCheck {
    /// Zobrist seed of the second run.
    pub zobrist_seed: u64,
    /// `zobrist_seed` as a decimal string.
    pub zobrist_seed_str: String,
    /// The second run's total.
    pub nodes: u128,
    /// `nodes` as an exact decimal string.
    pub nodes_str: String,
    /// Wall-clock seconds of the second run.
    pub seconds: f64,
    /// True when both runs agree on every root move.
    pub agrees: bool,
    /// Root moves (UCI) whose counts differ between the runs.
    pub differing_moves: Vec<String>,
}

impl TableCheck {
    /// Text rendering: one line.
    pub fn to_text(&self, first_seed: u64, first_nodes: u128) -> String {
        if self.agrees {
            format!(
                "verified  a second run with Zobrist seed {} and a fresh table gave the same count ({:.3} s)\n",
                self.zobrist_seed, self.seconds
            )
        } else {
            format!(
                "TABLE COLLISION: Zobrist seed {first_seed} gave {}, seed {} gave {} (moves {}); \
                 neither count can be trusted: count again with --no-hash\n",
                thousands(first_nodes),
                self.zobrist_seed,
                thousands(self.nodes),
                self.differing_moves.join(" ")
            )
        }
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
    /// False when stopped early: `nodes` covers only `root_moves_done` root moves.
    pub complete: bool,
    /// What stopped the run early (`null` when complete).
    pub stopped_by: Option<StoppedBy>,
    /// With `--verify-table`: the second run with other keys (`null` otherwise).
    pub table_check: Option<TableCheck>,
    /// Legal moves at the root.
    pub root_moves: usize,
    /// Root moves whose subtree was counted in full.
    pub root_moves_done: usize,
    /// Worker threads.
    pub threads: usize,
    /// Wall-clock seconds of the count itself (the table's set-up, before
    /// it, is `table.setup_seconds`).
    pub seconds: f64,
    /// Wall-clock seconds of the whole command: reading the position, the
    /// table's set-up, the long-run estimate of deep counts, the count and
    /// `--verify-table`'s second run.
    pub wall_seconds: f64,
    /// Leaves per second over `seconds`. Without a table: bulk-counted
    /// leaves (the last ply is counted, not played). With a table: effective
    /// (hits skip subtrees).
    pub nps: f64,
    /// Driver settings (threads, table, split depth, key seed).
    pub engine: EngineInfo,
    /// The table's set-up and counters (`null` without a table).
    pub table: Option<TableStats>,
    /// True if the perft table was used (never with `--stats`: it stores
    /// node counts only, so every leaf is counted and classified).
    pub table_used: bool,
    /// The leaf breakdown (only with `--stats`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<StatsReport>,
    /// Warnings (also printed on stderr).
    pub warnings: Vec<Warning>,
}

/// The `time` line of a count: the count's own time, then what the whole
/// command took when that is more (the table's set-up, an estimate, a
/// verification).
fn time_line(seconds: f64, wall_seconds: f64, table: Option<&TableStats>) -> String {
    let mut s = format!("time      {seconds:.3} s counting");
    if let Some(t) = table {
        s.push_str(&format!(" + {:.3} s table set-up", t.setup.setup_seconds));
    }
    s.push_str(&format!("; {wall_seconds:.3} s for the whole command\n"));
    s
}

impl CountReport {
    /// Text rendering.
    pub fn to_text(&self) -> String {
        let partial = if self.complete {
            String::new()
        } else {
            format!(
                "  (PARTIAL: {} after {} of {} root moves)",
                self.stopped_by.unwrap_or(StoppedBy::Interrupt).text(),
                self.root_moves_done,
                self.root_moves
            )
        };
        let note = if self.stats.is_some() {
            format!(
                "leaves counted and classified per second, {} thread{}",
                self.engine.threads,
                if self.engine.threads == 1 { "" } else { "s" }
            )
        } else {
            self.engine.speed_note()
        };
        let mut s = format!(
            "position  {}\ndepth     {}\nnodes     {}{partial}\n{}speed     {} Mnps over the counting time ({note})\n",
            self.fen,
            self.depth,
            thousands(self.nodes),
            time_line(self.seconds, self.wall_seconds, self.table.as_ref()),
            thousands_f1(self.nps / 1e6),
        );
        if let Some(t) = &self.table {
            s.push_str(&t.setup.to_text());
            s.push_str(&t.counters_text(self.engine.min_hash_depth));
            if let Some(b) = self.engine.huge_page_bytes {
                s.push_str(&format!(
                    "memory    {} of this process in huge pages\n",
                    crate::perft::hash::human_bytes(u128::from(b))
                ));
            }
        }
        if let Some(check) = &self.table_check {
            s.push_str(&check.to_text(self.engine.zobrist_seed, self.nodes));
        }
        if let Some(st) = &self.stats {
            s.push_str("table     off: --stats counts and classifies every leaf\n\n");
            s.push_str(&StatsReport::table(
                "Depth",
                &[(self.depth.to_string(), st.0)],
            ));
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
    /// The breakdown of the leaves below this move (only with `--stats`;
    /// at depth 1, the move's own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<StatsReport>,
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
    /// False when stopped early: `moves` lacks the unfinished root moves.
    pub complete: bool,
    /// What stopped the run early (`null` when complete).
    pub stopped_by: Option<StoppedBy>,
    /// With `--verify-table`: the second run with other keys (`null` otherwise).
    pub table_check: Option<TableCheck>,
    /// Legal moves at the root.
    pub root_moves: usize,
    /// Worker threads.
    pub threads: usize,
    /// Wall-clock seconds of the count itself (the table's set-up, before
    /// it, is `table.setup_seconds`).
    pub seconds: f64,
    /// Wall-clock seconds of the whole command (as in `perft count`).
    pub wall_seconds: f64,
    /// True if the perft table was used (never with `--stats`).
    pub table_used: bool,
    /// The table's set-up and counters (`null` without a table).
    pub table: Option<TableStats>,
    /// The breakdown of all leaves (only with `--stats`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<StatsReport>,
    /// Driver settings (threads, table, CPU path, counter).
    pub engine: EngineInfo,
    /// Warnings (also printed on stderr).
    pub warnings: Vec<Warning>,
}

impl DivideReport {
    /// Stockfish's `go perft` format: `move: count` lines, a blank line,
    /// `Nodes searched: N`. A partial divide ends with a line saying so
    /// instead, so no tool takes its total for a perft count. With
    /// `--stats` the move lines are a table in the published columns, with
    /// a total row.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        if let Some(total) = &self.stats {
            let mut rows: Vec<(String, LeafStats)> = self
                .moves
                .iter()
                .map(|e| (e.mv.clone(), e.stats.map(|st| st.0).unwrap_or_default()))
                .collect();
            rows.push(("total".to_string(), total.0));
            s.push_str(&StatsReport::table("Move", &rows));
        } else {
            for e in &self.moves {
                s.push_str(&format!("{}: {}\n", e.mv, e.nodes));
            }
        }
        if let Some(check) = self.table_check.as_ref().filter(|c| !c.agrees) {
            // No `Nodes searched` line: no tool may take this total.
            s.push('\n');
            s.push_str(&check.to_text(self.engine.zobrist_seed, self.nodes));
        } else if self.complete {
            s.push_str(&format!("\nNodes searched: {}\n", self.nodes));
        } else {
            s.push_str(&format!(
                "\nPARTIAL: {} after {} of {} root moves ({} nodes counted)\n",
                self.stopped_by.unwrap_or(StoppedBy::Interrupt).text(),
                self.moves.len(),
                self.root_moves,
                thousands(self.nodes)
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
