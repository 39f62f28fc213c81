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

use crate::bisect::Level;
use crate::cli::output::Style;
use crate::suite::PositionOutcome;

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
            slider_lookup: crate::attacks::SLIDER_LOOKUP,
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
    /// Leaves per second (bulk-counted: the last ply is counted, not played).
    pub nps: f64,
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
        format!(
            "position  {}\ndepth     {}\nnodes     {}{partial}\ntime      {:.3} s\nspeed     {:.1} Mnps (bulk-counted leaves per second, {} thread{})\n",
            self.fen,
            self.depth,
            thousands(self.nodes),
            self.seconds,
            self.nps / 1e6,
            self.threads,
            if self.threads == 1 { "" } else { "s" }
        )
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

/// Status of one suite position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PositionStatus {
    /// Every checked count matched.
    Pass,
    /// A count differed.
    Fail,
    /// Nothing within the limits.
    Skipped,
    /// `--timeout` elapsed before every depth was checked.
    Timeout,
    /// Ctrl-C before every depth was checked.
    Interrupted,
}

/// One position of a suite run.
#[derive(Clone, Debug, Serialize)]
pub struct SuitePosition {
    /// What was checked.
    #[serde(flatten)]
    pub outcome: PositionOutcome,
    /// The verdict.
    pub status: PositionStatus,
    /// For a failure: the `perft compare` command that bisects it against
    /// Stockfish, to find the first wrong position.
    pub bisect: Option<String>,
}

impl SuitePosition {
    /// The position's line of text output (two lines for a failure).
    pub fn to_text(&self, style: Style) -> String {
        let o = &self.outcome;
        let place = format!("{}:{}", o.file, o.line);
        let id =
            o.id.as_deref()
                .map(|i| format!("  [{i}]"))
                .unwrap_or_default();
        let time: f64 = o.checks.iter().map(|c| c.seconds).sum();
        let skipped = if o.skipped.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = o.skipped.iter().map(|d| format!("D{d}")).collect();
            format!("  (skipped {})", list.join(" "))
        };
        let depths = match (o.checks.first(), o.checks.last()) {
            (Some(a), Some(b)) if a.depth != b.depth => format!("D{}-{}", a.depth, b.depth),
            (Some(a), _) => format!("D{}", a.depth),
            _ => String::new(),
        };
        match self.status {
            PositionStatus::Fail => {
                let bad = o.checks.iter().find(|c| !c.pass).expect("a failed check");
                format!(
                    "{}  {place}  D{}  expected {}  got {}  {time:.2} s{id}\n      {}\n      bisect: {}\n",
                    style.bad("FAIL"),
                    bad.depth,
                    thousands(bad.expected.into()),
                    thousands(bad.got.into()),
                    o.fen,
                    self.bisect.as_deref().unwrap_or("")
                )
            }
            PositionStatus::Pass => format!(
                "{}    {place}  {depths}  {}  {time:.2} s{id}{skipped}\n",
                style.good("ok"),
                thousands(o.checks.last().map_or(0, |c| c.got.into()))
            ),
            PositionStatus::Skipped => {
                format!("skip  {place}  nothing within the limits{id}{skipped}\n")
            }
            PositionStatus::Timeout | PositionStatus::Interrupted => {
                let word = if self.status == PositionStatus::Timeout {
                    "TIME"
                } else {
                    "INTR"
                };
                let done = if depths.is_empty() {
                    String::new()
                } else {
                    format!("  ({depths} ok, {time:.2} s)")
                };
                let why = if self.status == PositionStatus::Timeout {
                    "not finished within --timeout"
                } else {
                    "interrupted"
                };
                format!(
                    "{}  {place}  D{} {why}{done}{id}\n",
                    style.note(word),
                    o.stopped_at_depth.unwrap_or(0)
                )
            }
        }
    }
}

/// Totals of a suite run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SuiteSummary {
    /// Positions with at least one count checked.
    pub positions_checked: usize,
    /// Positions where a count differed.
    pub positions_failed: usize,
    /// Positions stopped by `--timeout`.
    pub positions_timed_out: usize,
    /// Positions selected but not run (after `--fail-fast` or Ctrl-C).
    pub positions_not_run: usize,
    /// Depth counts checked.
    pub counts_checked: usize,
    /// Depth counts that differed.
    pub counts_failed: usize,
    /// Depth counts skipped because of the limits.
    pub counts_skipped: usize,
    /// Sum of all computed counts (leaf nodes).
    pub nodes: u128,
    /// Exact decimal string of `nodes`.
    pub nodes_str: String,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Result of `perft suite`.
#[derive(Clone, Debug, Serialize)]
pub struct SuiteReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// Files run.
    pub files: Vec<String>,
    /// `--filter` values (a position runs if any matches); empty = all.
    pub filters: Vec<String>,
    /// Depth limit (`null` = none).
    pub max_depth: Option<u32>,
    /// Node limit (`null` = none).
    pub max_nodes: Option<u64>,
    /// Per-position time limit in seconds (`null` = none).
    pub timeout: Option<f64>,
    /// `--fail-fast`.
    pub fail_fast: bool,
    /// Worker threads.
    pub threads: usize,
    /// False when interrupted (Ctrl-C).
    pub complete: bool,
    /// One entry per position run, in file order.
    pub positions: Vec<SuitePosition>,
    /// Totals.
    pub summary: SuiteSummary,
    /// Warnings (also printed on stderr).
    pub warnings: Vec<Warning>,
}

impl SuiteReport {
    /// The closing text: the totals and `PASS`, `FAIL` or `INTERRUPTED`.
    pub fn summary_text(&self, style: Style) -> String {
        let s = &self.summary;
        let mut extra = String::new();
        if s.positions_timed_out > 0 {
            extra.push_str(&format!(
                "; {} stopped by --timeout (not verified)",
                s.positions_timed_out
            ));
        }
        if s.positions_not_run > 0 {
            extra.push_str(&format!(
                "; {} not run ({})",
                s.positions_not_run,
                if self.complete {
                    "--fail-fast"
                } else {
                    "interrupted"
                }
            ));
        }
        let verdict = if !self.complete {
            style.note("INTERRUPTED (partial results)")
        } else if s.counts_failed > 0 {
            style.bad("FAIL")
        } else {
            style.good("PASS")
        };
        format!(
            "\n{} positions checked, {} failed; {} counts checked, {} failed, {} skipped (limits: {}){extra}; {} nodes in {:.2} s\n{verdict}\n",
            s.positions_checked,
            s.positions_failed,
            s.counts_checked,
            s.counts_failed,
            s.counts_skipped,
            self.describe_limits(),
            thousands(s.nodes),
            s.seconds,
        )
    }

    fn describe_limits(&self) -> String {
        let depth = self
            .max_depth
            .map_or("no depth limit".to_string(), |d| format!("--max-depth {d}"));
        let nodes = self.max_nodes.map_or("no node limit".to_string(), |n| {
            format!("--max-nodes {}", thousands(n.into()))
        });
        format!("{depth}, {nodes}")
    }

    /// The whole text report (what `perft suite` prints line by line).
    pub fn to_text(&self, style: Style) -> String {
        let mut out: String = self.positions.iter().map(|p| p.to_text(style)).collect();
        out.push_str(&self.summary_text(style));
        out
    }
}

/// Result of `perft compare`.
#[derive(Clone, Debug, Serialize)]
pub struct CompareReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// The engine command line.
    pub engine: String,
    /// `uci` or `perftree`.
    pub engine_kind: &'static str,
    /// The root position (before `--moves`).
    pub root_fen: String,
    /// `--moves`, played from the root before bisecting.
    pub moves: Vec<String>,
    /// Requested depth (plies).
    pub depth: u32,
    /// Worker threads for our side.
    pub threads: usize,
    /// `agree`, `moves_differ`, `inconsistent`, or `interrupted`.
    pub result: &'static str,
    /// Moves from the root (after `--moves`) to the position found.
    pub path: Vec<String>,
    /// That position's FEN.
    pub fen: String,
    /// Legal moves there that the engine does not list.
    pub missing: Vec<String>,
    /// Moves the engine lists there that are not legal.
    pub extra: Vec<String>,
    /// For `inconsistent`: what contradicts what.
    pub note: Option<String>,
    /// Every divided level, root first.
    pub levels: Vec<Level>,
    /// `perft divide` command showing the position found.
    pub reproduce: Option<String>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl CompareReport {
    /// Text line for one level (printed as soon as it is known).
    pub fn level_text(level: &Level) -> String {
        let at = if level.path.is_empty() {
            "root".to_string()
        } else {
            format!("after {}", level.path.join(" "))
        };
        let mut s = format!(
            "depth {}  {at}: {} move{}, ours {}, engine {}",
            level.depth,
            level.moves,
            if level.moves == 1 { "" } else { "s" },
            thousands(level.ours),
            thousands(level.engine.into())
        );
        match level.differing.first() {
            Some(d) => s.push_str(&format!(
                "; {} differ, first {} (ours {}, engine {})\n",
                level.differing.len(),
                d.mv,
                thousands(d.ours),
                thousands(d.engine.into())
            )),
            None => s.push('\n'),
        }
        s
    }

    /// The verdict text (after the level lines).
    pub fn verdict_text(&self, style: Style) -> String {
        let list = |v: &[String]| {
            if v.is_empty() {
                "(none)".to_string()
            } else {
                v.join(" ")
            }
        };
        let path = if self.path.is_empty() {
            "(the root position)".to_string()
        } else {
            self.path.join(" ")
        };
        match self.result {
            "agree" => format!(
                "{}: the engine agrees at depth {} ({} nodes)\n",
                style.good("AGREE"),
                self.depth,
                thousands(self.levels.first().map_or(0, |l| l.ours))
            ),
            "interrupted" => format!(
                "{}: stopped before a verdict (partial: {} levels compared)\n",
                style.note("INTERRUPTED"),
                self.levels.len()
            ),
            _ => {
                let mut s = format!(
                    "{}\npath      {path}\nfen       {}\nmissing   {}\nextra     {}\n",
                    style.bad(if self.result == "moves_differ" {
                        "DIFFERENCE: the move lists differ"
                    } else {
                        "DIFFERENCE: the engine's counts are inconsistent"
                    }),
                    self.fen,
                    list(&self.missing),
                    list(&self.extra)
                );
                if let Some(note) = &self.note {
                    s.push_str(&format!("note      {note}\n"));
                }
                if let Some(cmd) = &self.reproduce {
                    s.push_str(&format!("reproduce {cmd}\n"));
                }
                s
            }
        }
    }

    /// The whole text report.
    pub fn to_text(&self, style: Style) -> String {
        let mut s = format!("engine    {} ({})\n", self.engine, self.engine_kind);
        for l in &self.levels {
            s.push_str(&CompareReport::level_text(l));
        }
        s.push_str(&self.verdict_text(style));
        s
    }
}

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
    /// Millions of bulk-counted leaves per second.
    pub mnps: f64,
}

/// One engine setting of a bench (one row of the scaling table).
#[derive(Clone, Debug, Serialize)]
pub struct BenchRun {
    /// Worker threads.
    pub threads: usize,
    /// Perft table setting (`null`: this build has no perft table option).
    pub hash: Option<String>,
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
            "threads {}{}\n{:<12} {:>5} {:>15} {:>9} {:>8}\n",
            run.threads,
            run.hash
                .as_deref()
                .map(|h| format!(", hash {h}"))
                .unwrap_or_default(),
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
            s.push_str(&format!(
                "{:>7} {:>8} {:>9} {:>8} {:>10}\n",
                "threads", "hash", "Mnps", "speedup", "efficiency"
            ));
            for r in &self.runs {
                s.push_str(&format!(
                    "{:>7} {:>8} {:>9.1} {:>7.2}x {:>9.0}%\n",
                    r.threads,
                    r.hash.as_deref().unwrap_or("-"),
                    r.mnps,
                    r.speedup,
                    r.efficiency * 100.0
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
