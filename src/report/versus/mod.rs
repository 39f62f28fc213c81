//! The report of `perft versus`: per position and program the median, min
//! and max time, the speed, and the ratio to ours as the median of the
//! per-round ratios with their range; the geometric mean of the ratios over
//! positions; rendered as a text table, as JSON
//! (docs/schema/versus.schema.json) and as an SVG bar chart ([`plot`]).
//!
//! The ratio compares speeds, nodes per second, each program credited with
//! the nodes it counted at the depth asked: `(their seconds / their nodes)
//! / (our seconds / our nodes)`, per round, so above 1 means perft is
//! faster. A program that counts every depth 1..D in one process is timed
//! for depth D's share of its run, by its own per-depth clock (the sum of
//! the counts over its whole run where its clock says nothing).

pub mod plot;

use serde::Serialize;

use super::{Header, Warning, plural, thousands, thousands_f1};
use crate::validate::versus::{
    Finding, LoadSample, PeerError, PositionRun, ProgramInfo, Sample, VersusOrder, VersusRun,
    VersusSettings,
};

/// The 1-minute load average from which a machine counts as loaded for a
/// single-threaded comparison (before the run: none of it is ours).
pub const LOADED_BEFORE: f64 = 1.0;
/// The fraction of CPU time stolen by the hypervisor during the run above
/// which the report warns.
pub const LOADED_STEAL: f64 = 0.02;

/// A median time below this many seconds is too short to time: process
/// start-up and the timer's resolution weigh on it (and Stockfish's
/// subtracted start-up can exceed what is left).
pub const SHORT_SECONDS: f64 = 0.02;

/// A warning of the report: `{"kind": ..., "message": ...}` like
/// [`Warning`], with the kinds of this command besides.
#[derive(Clone, Debug, Serialize)]
pub struct VersusWarning {
    /// Stable machine-readable name (`loaded_machine`, `unmatched_setting`,
    /// or a [`Warning::kind`]).
    pub kind: String,
    /// What to know.
    pub message: String,
}

impl From<&Warning> for VersusWarning {
    fn from(w: &Warning) -> VersusWarning {
        VersusWarning {
            kind: w.kind().to_string(),
            message: w.to_string(),
        }
    }
}

/// A ratio and the range of the per-round ratios it is the median of.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Ratio {
    /// Median of the per-round ratios.
    pub median: f64,
    /// Smallest per-round ratio.
    pub min: f64,
    /// Largest per-round ratio.
    pub max: f64,
    /// Rounds the ratio is taken over.
    pub rounds: usize,
}

/// One program on one position.
#[derive(Clone, Debug, Serialize)]
pub struct ProgramResult {
    /// The program's name.
    pub program: String,
    /// Nodes its last run is credited with ([`Sample::credited_nodes`]):
    /// the count of the depth asked, or the sum of depths 1..D for a program
    /// that counts them all and whose own clock gave depth D no time.
    pub credited_nodes: Option<u64>,
    /// Every run.
    pub samples: Vec<Sample>,
    /// Median of the samples' `seconds` (CPU, start-up subtracted).
    pub median_seconds: Option<f64>,
    /// Smallest `seconds`.
    pub min_seconds: Option<f64>,
    /// Largest `seconds`.
    pub max_seconds: Option<f64>,
    /// Median wall-clock seconds of the whole process.
    pub median_wall_seconds: Option<f64>,
    /// Median over the runs of millions of credited nodes per second.
    pub mnps: Option<f64>,
    /// Median of its own printed time for the depth asked, if it prints one.
    pub own_median_seconds: Option<f64>,
    /// Millions of nodes of the depth asked per own second.
    pub own_mnps: Option<f64>,
    /// Speed ratio, ours to theirs (`null` for ours, or without paired
    /// rounds).
    pub ratio: Option<Ratio>,
}

/// One position.
#[derive(Clone, Debug, Serialize)]
pub struct PositionResult {
    /// Name.
    pub name: String,
    /// FEN.
    pub fen: String,
    /// Depth.
    pub depth: u32,
    /// Our count (`null` if ours never finished).
    pub nodes: Option<u64>,
    /// True when every round ran.
    pub complete: bool,
    /// Per program, ours first.
    pub results: Vec<ProgramResult>,
}

/// The geometric mean of one peer's ratios.
#[derive(Clone, Debug, Serialize)]
pub struct GeoMean {
    /// The peer.
    pub program: String,
    /// Geometric mean of its per-position median ratios.
    pub ratio: f64,
    /// Positions it is taken over.
    pub positions: usize,
}

/// Load before and after the run.
#[derive(Clone, Debug, Serialize)]
pub struct LoadReport {
    /// Before the first run.
    pub before: Option<LoadSample>,
    /// After the last run.
    pub after: Option<LoadSample>,
    /// Fraction of CPU time stolen by the hypervisor during the run.
    pub steal_fraction: Option<f64>,
    /// True when the report warns that the machine was loaded.
    pub loaded: bool,
}

/// Result of `perft versus`.
#[derive(Clone, Debug, Serialize)]
pub struct VersusReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// False when interrupted: the last position may have fewer rounds and
    /// later ones are missing.
    pub complete: bool,
    /// Rounds, threads, table bytes, timeout.
    pub settings: VersusSettings,
    /// Machine load.
    pub load: LoadReport,
    /// The programs, ours first.
    pub programs: Vec<ProgramInfo>,
    /// Per position.
    pub positions: Vec<PositionResult>,
    /// Per peer, the geometric mean of its ratios.
    pub geomean: Vec<GeoMean>,
    /// Counts that differ from ours (exit 1).
    pub findings: Vec<Finding>,
    /// Peers that crashed, hung or printed garbage (exit 2).
    pub errors: Vec<PeerError>,
    /// Warnings (also on stderr).
    pub warnings: Vec<VersusWarning>,
}

/// The median of `v` (`None` when empty).
pub fn median(v: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn min_max(v: &[f64]) -> Option<(f64, f64)> {
    let min = v.iter().copied().reduce(f64::min)?;
    let max = v.iter().copied().reduce(f64::max)?;
    Some((min, max))
}

fn position_result(run: &VersusRun, p: &PositionRun) -> PositionResult {
    let ours = &p.samples[0];
    let results = run
        .programs
        .iter()
        .enumerate()
        .map(|(i, prog)| {
            let samples = &p.samples[i];
            let secs: Vec<f64> = samples.iter().map(|s| s.seconds).collect();
            let walls: Vec<f64> = samples.iter().map(|s| s.wall_seconds).collect();
            let own: Vec<f64> = samples.iter().filter_map(|s| s.own_seconds).collect();
            let med = median(&secs);
            let credited = samples.last().map(|s| s.credited_nodes);
            // Per run: a peer's runs may be credited differently (depth D's
            // share, or the sum where its clock gave depth D no time).
            let rates: Vec<f64> = samples
                .iter()
                .filter(|s| s.seconds > 0.0)
                .map(|s| s.credited_nodes as f64 / s.seconds / 1e6)
                .collect();
            let mnps = median(&rates);
            let own_med = median(&own);
            let own_mnps = own_med
                .zip(samples.first())
                .filter(|&(s, _)| s > 0.0)
                .map(|(s, x)| x.nodes as f64 / s / 1e6);
            let ratio = if i == 0 {
                None
            } else {
                // Pair the rounds: the two runs of one round are minutes
                // apart at most, so a drift of the machine's speed cancels.
                let per_round: Vec<f64> = samples
                    .iter()
                    .filter_map(|s| {
                        let o = ours.iter().find(|o| o.round == s.round)?;
                        let (n, on) = (s.credited_nodes as f64, o.credited_nodes as f64);
                        Some((s.seconds / n) / (o.seconds / on))
                    })
                    .collect();
                median(&per_round)
                    .zip(min_max(&per_round))
                    .map(|(m, (lo, hi))| Ratio {
                        median: m,
                        min: lo,
                        max: hi,
                        rounds: per_round.len(),
                    })
            };
            let (min_seconds, max_seconds) = min_max(&secs).unzip();
            ProgramResult {
                program: prog.name.clone(),
                credited_nodes: credited,
                samples: samples.clone(),
                median_seconds: med,
                min_seconds,
                max_seconds,
                median_wall_seconds: median(&walls),
                mnps,
                own_median_seconds: own_med,
                own_mnps,
                ratio,
            }
        })
        .collect();
    PositionResult {
        name: p.position.name.clone(),
        fen: p.position.fen.clone(),
        depth: p.position.depth,
        nodes: p.expected,
        complete: p.complete,
        results,
    }
}

impl VersusReport {
    /// The report of `run`, without warnings from outside it.
    pub fn new(run: &VersusRun) -> VersusReport {
        VersusReport::with_warnings(run, &[])
    }

    /// The report of `run`, listing `extra` warnings (debug build, busy
    /// machine) first.
    pub fn with_warnings(run: &VersusRun, extra: &[Warning]) -> VersusReport {
        let positions: Vec<PositionResult> = run
            .positions
            .iter()
            .map(|p| position_result(run, p))
            .collect();
        let geomean = run
            .programs
            .iter()
            .enumerate()
            .skip(1)
            .filter_map(|(i, prog)| {
                let ratios: Vec<f64> = positions
                    .iter()
                    .filter_map(|p| p.results[i].ratio.map(|r| r.median))
                    .filter(|&r| r > 0.0)
                    .collect();
                (!ratios.is_empty()).then(|| GeoMean {
                    program: prog.name.clone(),
                    ratio: (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp(),
                    positions: ratios.len(),
                })
            })
            .collect();
        let steal = run
            .load_before
            .zip(run.load_after)
            .map(|(b, a)| b.steal_fraction(&a));
        let loaded = run.load_before.is_some_and(|b| b.load1 >= LOADED_BEFORE)
            || steal.is_some_and(|s| s > LOADED_STEAL);
        let mut warnings: Vec<VersusWarning> = extra.iter().map(VersusWarning::from).collect();
        if loaded {
            let before = run.load_before.map_or(0.0, |b| b.load1);
            let after = run.load_after.map_or(0.0, |a| a.load1);
            warnings.push(VersusWarning {
                kind: "loaded_machine".into(),
                message: format!(
                    "the machine was loaded (1-minute load average {before:.2} before the run, \
                     {after:.2} after; {:.1} % of CPU time stolen): CPU times suffer less than \
                     wall times, but the ratios may be off by more than their spread; run again \
                     on a quiet machine",
                    100.0 * steal.unwrap_or(0.0)
                ),
            });
        }
        let short: Vec<String> = positions
            .iter()
            .flat_map(|p| {
                p.results.iter().filter_map(move |r| {
                    let s = r.median_seconds.filter(|&s| s < SHORT_SECONDS)?;
                    Some(format!(
                        "{} on {} D{} ({s:.3} s)",
                        r.program, p.name, p.depth
                    ))
                })
            })
            .collect();
        if !short.is_empty() {
            warnings.push(VersusWarning {
                kind: "short_run".into(),
                message: format!(
                    "too short to time reliably, start-up and timer resolution dominate: {}; \
                     use deeper depths",
                    short.join(", ")
                ),
            });
        }
        for prog in &run.programs {
            for what in &prog.unmatched {
                let flag = match *what {
                    "threads" => format!("--threads {}", run.settings.threads),
                    _ => "--hash".to_string(),
                };
                warnings.push(VersusWarning {
                    kind: "unmatched_setting".into(),
                    message: format!(
                        "{} ({}) has no setting for {flag}: it runs with its own default \
                         (single-threaded, no table), unlike ours",
                        prog.name, prog.kind
                    ),
                });
            }
        }
        VersusReport {
            header: Header::new("versus"),
            complete: run.complete,
            settings: run.settings,
            load: LoadReport {
                before: run.load_before,
                after: run.load_after,
                steal_fraction: steal,
                loaded,
            },
            programs: run.programs.clone(),
            positions,
            geomean,
            findings: run.findings.clone(),
            errors: run.errors.clone(),
            warnings,
        }
    }

    /// The text table: positions as rows, programs as columns, each cell
    /// the speed and, for peers, the ratio with its per-round range; then
    /// the geometric means and notes on what each figure is.
    pub fn to_text(&self) -> String {
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut head = vec!["position".to_string(), "depth".into(), "nodes".into()];
        head.extend(self.programs.iter().map(|p| p.name.clone()));
        rows.push(head);
        for p in &self.positions {
            let mut row = vec![
                p.name.clone(),
                p.depth.to_string(),
                p.nodes.map_or("-".into(), |n| thousands(n.into())),
            ];
            for r in &p.results {
                let speed = r
                    .mnps
                    .map_or("-".to_string(), |m| format!("{} Mnps", thousands_f1(m)));
                row.push(match &r.ratio {
                    Some(x) => format!("{speed}  {:.2}x ({:.2}-{:.2})", x.median, x.min, x.max),
                    None => speed,
                });
            }
            rows.push(row);
        }
        if !self.geomean.is_empty() {
            let mut row = vec!["geomean".to_string(), String::new(), String::new()];
            for prog in &self.programs {
                row.push(
                    self.geomean
                        .iter()
                        .find(|g| g.program == prog.name)
                        .map_or(String::new(), |g| format!("{:.2}x", g.ratio)),
                );
            }
            rows.push(row);
        }
        let widths: Vec<usize> = (0..rows[0].len())
            .map(|c| rows.iter().map(|r| r[c].len()).max().unwrap_or(0))
            .collect();
        let mut s = String::new();
        for row in &rows {
            let mut line = String::new();
            for (c, cell) in row.iter().enumerate() {
                if c == 0 {
                    line.push_str(&format!("{cell:<w$}", w = widths[c]));
                } else {
                    line.push_str(&format!("  {cell:>w$}", w = widths[c]));
                }
            }
            s.push_str(line.trim_end());
            s.push('\n');
        }
        s.push('\n');
        s.push_str(&self.notes());
        s
    }

    fn notes(&self) -> String {
        let st = &self.settings;
        let mut s = format!(
            "{}, interleaved (the order rotates every round){}; {}, {}{}. Times are {} of \
             whole processes, start-up included; Mnps = the median over the runs of nodes \
             credited per second.\nRatio = perft's speed / the program's, the median of the \
             per-round ratios (range in brackets): above 1, perft is faster.\n",
            plural(st.rounds.into(), "round"),
            match (st.order, st.rounds) {
                (_, 1) => "",
                (VersusOrder::Rounds, _) => ", each round over every position",
                (VersusOrder::Positions, _) => ", each position's rounds back to back",
            },
            plural(st.threads as u128, "thread"),
            if st.hash_bytes == 0 {
                "no perft table".to_string()
            } else {
                format!(
                    "a {} perft table",
                    crate::perft::hash::human_bytes(st.hash_bytes)
                )
            },
            if st.stats {
                "; perft runs with --stats (every leaf classified)"
            } else {
                ""
            },
            if st.threads == 1 {
                "CPU seconds (user + system)"
            } else {
                "wall seconds (CPU time would add up the threads)"
            }
        );
        for (i, prog) in self.programs.iter().enumerate() {
            if prog.counts_all_depths {
                let runs = || {
                    self.positions
                        .iter()
                        .flat_map(|p| p.results[i].samples.iter())
                };
                let shares: Vec<f64> = runs().filter_map(|x| x.depth_share).collect();
                let summed = runs().filter(|x| x.depth_share.is_none()).count();
                if let Some((lo, hi)) = min_max(&shares) {
                    s.push_str(&format!(
                        "{} counts every depth 1..D in one process: timed for depth D's share of \
                         the process, by its own clock ({:.1}-{:.1} %), and credited with \
                         depth D's count.\n",
                        prog.name,
                        100.0 * lo,
                        100.0 * hi
                    ));
                }
                if summed > 0 {
                    s.push_str(&format!(
                        "{}: {} timed whole and credited with the sum of the counts of depths \
                         1..D, where its own clock gave depth D no time.\n",
                        prog.name,
                        plural(summed as u128, "run")
                    ));
                }
            }
            if prog.prints_own_time {
                let own: Vec<String> = self
                    .positions
                    .iter()
                    .filter_map(|p| {
                        let r = &p.results[i];
                        Some(format!(
                            "{} D{} {:.3} s ({} Mnps; timed {:.3} s)",
                            p.name,
                            p.depth,
                            r.own_median_seconds?,
                            thousands_f1(r.own_mnps?),
                            r.median_seconds?
                        ))
                    })
                    .collect();
                if !own.is_empty() {
                    s.push_str(&format!(
                        "{}'s own time for depth D, by its own clock (median): {}.\n",
                        prog.name,
                        own.join(", ")
                    ));
                }
            }
            if prog.startup_subtracted {
                let startup: Vec<f64> = self
                    .positions
                    .iter()
                    .flat_map(|p| p.results[i].samples.iter())
                    .filter_map(|x| x.startup_seconds)
                    .collect();
                if let Some(m) = median(&startup) {
                    s.push_str(&format!(
                        "{}: its start-up (a `go perft 1` run in the same round, median {m:.3} s) \
                         is subtracted.\n",
                        prog.name
                    ));
                }
            }
        }
        for f in &self.findings {
            s.push_str(&format!("WRONG COUNT: {f}\n"));
        }
        for e in &self.errors {
            s.push_str(&format!("FAILED: {e} (left out from then on)\n"));
        }
        if !self.complete {
            s.push_str("PARTIAL: interrupted; the figures cover the rounds that finished\n");
        }
        s
    }

    /// The SVG bar chart ([`plot::svg`]).
    pub fn to_svg(&self) -> String {
        plot::svg(self)
    }
}
