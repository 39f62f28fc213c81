//! `perft bench`: a fixed, documented benchmark with a deterministic
//! node-count signature per depth set, and, with `--ceiling`, what the
//! machine itself allows at each thread count.
//!
//! Depth sets (both compiled into the binary):
//! * `standard` (`positions/bench.epd`): about 1.5 s on one thread;
//!   signature 4,755,977,578.
//! * `deep` (`positions/bench-deep.epd`): the same seven positions one to
//!   two plies deeper, so that each still counts for a few tenths of a
//!   second at 16 threads and beyond (a position that takes milliseconds
//!   there measures the pool's start and finish, not the counting); about
//!   45 s on one thread; signature in that file.
//!
//! By default the set follows the highest thread count asked for:
//! `standard` up to [`STANDARD_MAX_THREADS`], `deep` above, so every thread
//! count of one invocation counts the same positions at the same depths.

use std::path::PathBuf;
use std::sync::Barrier;
use std::time::Instant;

use clap::Args;

use super::config::{EngineArgs, build_perft, hash_setting};
use super::output::{busy_machine_warning, emit_warnings, timing_warnings, write_json, write_out};
use super::progress::{Interrupt, ProgressFactory};
use crate::error::{EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_OK, Error};
use crate::perft::{Control, DivideOutcome, PerftStats};
use crate::report::{
    self, BenchCeiling, BenchPosition, BenchReport, BenchRun, Header, StatsReport,
};
use crate::validate::suite::{self as epd, EpdRecord};

/// The benchmark positions (positions/bench.epd), built in so `perft bench`
/// works from any directory.
pub const BENCH_EPD: &str = include_str!("../../positions/bench.epd");

/// The deep depth set (positions/bench-deep.epd), built in.
pub const BENCH_DEEP_EPD: &str = include_str!("../../positions/bench-deep.epd");

/// The highest thread count the `standard` depth set is chosen for.
pub const STANDARD_MAX_THREADS: usize = 2;

/// A built-in depth set of the bench.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DepthSet {
    /// positions/bench.epd: about 1.5 s on one thread.
    Standard,
    /// positions/bench-deep.epd: enough work per position for 16 threads
    /// and beyond (about 45 s on one thread).
    Deep,
}

impl DepthSet {
    /// The set a run whose highest thread count is `threads` uses.
    pub fn for_threads(threads: usize) -> DepthSet {
        if threads <= STANDARD_MAX_THREADS {
            DepthSet::Standard
        } else {
            DepthSet::Deep
        }
    }

    /// The file's text and the name reports give it.
    fn source(self) -> (&'static str, &'static str) {
        match self {
            DepthSet::Standard => (BENCH_EPD, "positions/bench.epd"),
            DepthSet::Deep => (BENCH_DEEP_EPD, "positions/bench-deep.epd"),
        }
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            DepthSet::Standard => "standard",
            DepthSet::Deep => "deep",
        }
    }
}

/// `perft bench` arguments.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Use the depths listed up to N only (a quicker, smaller bench; its
    /// signature differs from the full one).
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u32>,
    /// Another bench file in the same format (default: a built-in depth
    /// set, see --depth-set).
    #[arg(long, value_name = "FILE.epd", conflicts_with = "depth_set")]
    pub file: Option<PathBuf>,
    /// The built-in depth set: standard (positions/bench.epd, about 1.5 s
    /// on one thread) or deep (positions/bench-deep.epd, about 45 s on one
    /// thread, for many threads). Default: standard when the highest
    /// --threads is at most 2, deep above, so each position has enough work
    /// at the highest thread count. Each set has its own signature.
    #[arg(long, value_name = "SET", value_enum)]
    pub depth_set: Option<DepthSet>,
    /// Also run, for each thread count N, N independent single-thread
    /// counters at once (no table, nothing shared), and report each run's
    /// efficiency against linear scaling and against that ceiling: the gap
    /// to linear that is the machine's (all-core clock, shared caches and
    /// memory) and the part that is ours.
    #[arg(long)]
    pub ceiling: bool,
    /// Threads and hash; `--threads 1,2,4` runs the bench once per value and
    /// prints a scaling table.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Time the leaf statistics (`--stats` of `perft count`): every leaf
    /// counted and classified, no perft table; the signature is unchanged.
    #[arg(long)]
    pub stats: bool,
    /// Print one JSON object on stdout (and nothing else).
    #[arg(long)]
    pub json: bool,
}

/// The depth and expected count to run for `record`: the deepest listed,
/// within `max_depth`.
fn bench_depth(record: &EpdRecord, max_depth: Option<u32>) -> Option<(u32, u64)> {
    record
        .depths
        .iter()
        .copied()
        .filter(|&(d, _)| max_depth.is_none_or(|m| d <= m))
        .max_by_key(|&(d, _)| d)
}

/// One timed position: the record, its name, depth and published count.
type Job<'a> = (&'a EpdRecord, String, u32, u64);

/// Runs `perft bench`.
pub fn run_bench(args: BenchArgs, quiet: bool) -> Result<u8, Error> {
    // Raw generator speed unless --hash asks for a table (depth 0: no automatic table).
    let configs = args.engine.configs(0)?;
    if args.stats && configs.iter().any(|c| c.hash_bytes > 0) {
        return Err(Error::Usage(
            "--stats uses no perft table (the table stores node counts only): drop --hash".into(),
        ));
    }
    if args.stats && args.ceiling {
        return Err(Error::Usage(
            "--ceiling times the plain count: drop --stats".into(),
        ));
    }
    let max_threads = configs.iter().map(|c| c.threads).max().unwrap_or(1);
    let depth_set = match &args.file {
        Some(_) => None,
        None => Some(
            args.depth_set
                .unwrap_or_else(|| DepthSet::for_threads(max_threads)),
        ),
    };
    let (name, records) = match (&args.file, depth_set) {
        (Some(path), _) => (path.display().to_string(), epd::load_suite(path, false)?),
        (None, set) => {
            let (text, file) = set.unwrap_or(DepthSet::Standard).source();
            (
                format!("{file} (built in)"),
                epd::parse_suite(text, file, false)?,
            )
        }
    };
    if records.is_empty() {
        return Err(Error::Usage(format!(
            "{name}: no positions (the file is empty or has only comments)"
        )));
    }
    let mut jobs: Vec<Job> = Vec::new();
    for r in &records {
        let job = bench_depth(r, args.max_depth).ok_or_else(|| {
            let why = match args.max_depth {
                _ if r.depths.is_empty() => format!(
                    "no perft counts (;D1 20 ;D2 400 ...) on this line: bench times positions \
                     with published counts{}",
                    if records.iter().all(|r| r.depths.is_empty()) {
                        "; this file has none (a mate or test-position file?)"
                    } else {
                        ""
                    }
                ),
                Some(m) => format!(
                    "no count at depth {m} or less (the line lists D{})",
                    r.depths
                        .iter()
                        .map(|(d, _)| d.to_string())
                        .collect::<Vec<_>>()
                        .join(" D")
                ),
                None => unreachable!("a line with counts has a deepest one"),
            };
            Error::Usage(format!("{name}:{}: {why}", r.line))
        })?;
        let (depth, expected) = job;
        let id = r.id.clone().unwrap_or_else(|| format!("line {}", r.line));
        jobs.push((r, id, depth, expected));
    }
    let busy = busy_machine_warning();
    let interrupt = Interrupt::install();
    let progress = ProgressFactory::new(args.json, quiet);
    let mut runs: Vec<BenchRun> = Vec::new();
    let mut complete = true;
    let mut mismatches = Vec::new();
    // With --ceiling: one counter alone, the reference of every ceiling.
    let mut alone: Option<CeilingRun> = None;
    'configs: for config in configs {
        let hash = hash_setting(&config);
        let ceiling_config = config.clone();
        let perft = build_perft(config)?;
        let threads = perft.config().threads;
        let mut positions = Vec::new();
        let mut stats = crate::perft::PerftStats::default();
        let mut min_hash_depth = perft.config().min_hash_depth;
        let run_start = Instant::now();
        let bar = progress.counter(jobs.len(), "positions", "bench");
        for (record, id, depth, expected) in &jobs {
            bar.set_message(&format!(
                "bench, {}: {id} D{depth}",
                report::plural(threads as u128, "thread")
            ));
            let start = Instant::now();
            let control = Control {
                stop: Some(interrupt.flag()),
                on_root_move: None,
            };
            let (o, leaves) = if args.stats {
                let o = perft.divide_stats(&record.position, *depth, control);
                let counted = DivideOutcome {
                    moves: Vec::new(),
                    root_moves: o.root_moves,
                    nodes: u128::from(o.total.nodes),
                    complete: o.complete,
                    stats: PerftStats::default(),
                    min_hash_depth: perft.config().min_hash_depth,
                    plain: perft.config().plain,
                    counter_choice: None,
                };
                (counted, Some(StatsReport(o.total)))
            } else {
                (perft.divide(&record.position, *depth, control), None)
            };
            bar.inc();
            let seconds = start.elapsed().as_secs_f64();
            stats = stats + o.stats;
            min_hash_depth = min_hash_depth.max(o.min_hash_depth);
            if !o.complete {
                complete = false;
                break 'configs;
            }
            if o.nodes != u128::from(*expected) {
                mismatches.push(format!(
                    "{id} D{depth}: expected {}, got {} ({})",
                    report::thousands(u128::from(*expected)),
                    report::thousands(o.nodes),
                    report::plural(threads as u128, "thread")
                ));
            }
            positions.push(BenchPosition {
                id: id.clone(),
                fen: record.fen_text.clone(),
                depth: *depth,
                nodes: o.nodes,
                nodes_str: o.nodes.to_string(),
                expected: *expected,
                seconds,
                mnps: report::nps(o.nodes, seconds) / 1e6,
                stats: leaves,
            });
        }
        let seconds = run_start.elapsed().as_secs_f64();
        drop(bar);
        let table = perft
            .table()
            .map(|t| report::TableStats::of(t, &stats, min_hash_depth));
        drop(perft);
        let nodes: u128 = positions.iter().map(|p| p.nodes).sum();
        let mnps = report::nps(nodes, seconds) / 1e6;
        let (speedup, efficiency) = match runs.first() {
            Some(first) if first.mnps > 0.0 => {
                let s = mnps / first.mnps;
                (s, s * first.threads as f64 / threads as f64)
            }
            _ => (1.0, 1.0),
        };
        // The ceiling of a run without a table: the same counting, done by
        // `threads` single-thread counters side by side.
        let ceiling = if args.ceiling && table.is_none() {
            if threads == 1 && alone.is_none() {
                // This run is one single-thread counter alone.
                alone = Some(CeilingRun {
                    counters: 1,
                    seconds: vec![seconds],
                    counts: vec![positions.iter().map(|p| p.nodes).collect()],
                    nodes,
                });
            }
            let one = match &alone {
                Some(one) => one.clone(),
                None => {
                    let label = "bench ceiling, 1 counter".to_string();
                    let Some(one) =
                        ceiling_run(&jobs, 1, &ceiling_config, &interrupt, &progress, &label)?
                    else {
                        complete = false;
                        break 'configs;
                    };
                    alone = Some(one.clone());
                    one
                }
            };
            let here = if threads == 1 {
                one.clone()
            } else {
                let label = format!("bench ceiling, {threads} counters");
                match ceiling_run(
                    &jobs,
                    threads,
                    &ceiling_config,
                    &interrupt,
                    &progress,
                    &label,
                )? {
                    Some(c) => c,
                    None => {
                        complete = false;
                        break 'configs;
                    }
                }
            };
            for counted in &here.counts {
                for (job, &n) in jobs.iter().zip(counted) {
                    if n != u128::from(job.3) {
                        mismatches.push(format!(
                            "{} D{}: expected {}, got {} (ceiling counter)",
                            job.1,
                            job.2,
                            report::thousands(u128::from(job.3)),
                            report::thousands(n)
                        ));
                    }
                }
            }
            Some(BenchCeiling::new(&here, &one, mnps))
        } else {
            None
        };
        let run = BenchRun {
            threads,
            hash,
            cpu_path: ceiling_config.cpu,
            counter: if ceiling_config.plain {
                "plain"
            } else {
                "shortcut"
            },
            positions,
            nodes,
            nodes_str: nodes.to_string(),
            seconds,
            mnps,
            speedup,
            efficiency,
            probes: stats.probes,
            hits: stats.hits,
            hit_rate: stats.hit_rate(),
            leaf_stats: args.stats,
            table,
            ceiling,
        };
        if !args.json {
            write_out(&BenchReport::run_text(&run))?;
        }
        runs.push(run);
    }
    let shortest = runs.iter().map(|r| r.seconds).reduce(f64::min);
    // A bench run shorter than a second says little about speed.
    let mut warnings = timing_warnings(max_threads, shortest.filter(|&s| s < 1.0));
    warnings.extend(busy);
    emit_warnings(&warnings, quiet);
    for m in &mismatches {
        eprintln!("error: wrong count: {m}");
    }
    let signature = runs.first().map_or(0, |r| r.nodes);
    let report = BenchReport {
        header: Header::new("bench"),
        file: name,
        depth_set: depth_set.map(DepthSet::name),
        max_depth: args.max_depth,
        signature,
        signature_str: signature.to_string(),
        runs,
        complete,
        warnings,
    };
    if args.json {
        write_json(&report)?;
    } else {
        write_out(&report.summary_text())?;
    }
    Ok(if !complete {
        EXIT_INTERRUPTED
    } else if !mismatches.is_empty() {
        EXIT_MISMATCH
    } else {
        EXIT_OK
    })
}

/// What `counters` independent single-thread counters did side by side.
#[derive(Clone, Debug)]
struct CeilingRun {
    counters: usize,
    /// Each counter's wall-clock seconds over all positions.
    seconds: Vec<f64>,
    /// Each counter's count of each position, in job order.
    counts: Vec<Vec<u128>>,
    /// Leaves one counter counts over all positions.
    nodes: u128,
}

impl CeilingRun {
    /// The counters' speeds added up (millions of leaves per second).
    fn mnps(&self) -> f64 {
        self.seconds
            .iter()
            .map(|&s| report::nps(self.nodes, s) / 1e6)
            .sum()
    }

    /// The median counter's seconds.
    fn median_seconds(&self) -> f64 {
        let mut s = self.seconds.clone();
        s.sort_by(f64::total_cmp);
        s[s.len() / 2]
    }
}

/// Runs `counters` single-thread drivers at once (each its own pool of one
/// thread, no table, `config`'s CPU path and counter), each counting every
/// job in order, started together. `None` when interrupted.
fn ceiling_run(
    jobs: &[Job],
    counters: usize,
    config: &crate::perft::PerftConfig,
    interrupt: &Interrupt,
    progress: &ProgressFactory,
    label: &str,
) -> Result<Option<CeilingRun>, Error> {
    let mut drivers = Vec::with_capacity(counters);
    for _ in 0..counters {
        drivers.push(build_perft(crate::perft::PerftConfig {
            threads: 1,
            hash_bytes: 0,
            ..config.clone()
        })?);
    }
    let bar = progress.counter(jobs.len() * counters, "positions", label);
    let start = Barrier::new(counters);
    let results: Vec<Option<(f64, Vec<u128>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = drivers
            .iter()
            .map(|perft| {
                let (start, bar) = (&start, &bar);
                scope.spawn(move || {
                    start.wait();
                    let begun = Instant::now();
                    let mut counts = Vec::with_capacity(jobs.len());
                    for (record, _, depth, _) in jobs {
                        let o = perft.divide(
                            &record.position,
                            *depth,
                            Control {
                                stop: Some(interrupt.flag()),
                                on_root_move: None,
                            },
                        );
                        bar.inc();
                        if !o.complete {
                            return None;
                        }
                        counts.push(o.nodes);
                    }
                    Some((begun.elapsed().as_secs_f64(), counts))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(None))
            .collect()
    });
    let Some(results) = results.into_iter().collect::<Option<Vec<_>>>() else {
        return Ok(None);
    };
    let nodes = results.first().map_or(0, |(_, c)| c.iter().sum());
    let (seconds, counts) = results.into_iter().unzip();
    Ok(Some(CeilingRun {
        counters,
        seconds,
        counts,
        nodes,
    }))
}

impl BenchCeiling {
    /// The ceiling at `here.counters` counters, against one counter alone
    /// (`one`), for a run that reached `mnps`.
    fn new(here: &CeilingRun, one: &CeilingRun, mnps: f64) -> BenchCeiling {
        let alone = one.mnps();
        let ceiling = here.mnps();
        let speedup = if alone > 0.0 { ceiling / alone } else { 0.0 };
        let run_speedup = if alone > 0.0 { mnps / alone } else { 0.0 };
        let n = here.counters as f64;
        BenchCeiling {
            counters: here.counters,
            mnps: ceiling,
            one_mnps: alone,
            speedup,
            efficiency: speedup / n,
            slowdown: here.median_seconds() / one.median_seconds(),
            run_speedup,
            run_efficiency: run_speedup / n,
            of_ceiling: if ceiling > 0.0 { mnps / ceiling } else { 0.0 },
        }
    }
}
