//! `perft bench`: a fixed, documented benchmark (`positions/bench.epd`,
//! compiled into the binary) with a deterministic node-count signature.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::config::{EngineArgs, build_perft, hash_setting};
use super::output::{busy_machine_warning, emit_warnings, timing_warnings, write_json, write_out};
use super::progress::{Interrupt, ProgressFactory};
use crate::error::{EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_OK, Error};
use crate::perft::{Control, DivideOutcome, PerftStats};
use crate::report::{self, BenchPosition, BenchReport, BenchRun, Header, StatsReport};
use crate::validate::suite::{self as epd, EpdRecord};

/// The benchmark positions (positions/bench.epd), built in so `perft bench`
/// works from any directory.
pub const BENCH_EPD: &str = include_str!("../../positions/bench.epd");

/// `perft bench` arguments.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Use the depths listed up to N only (a quicker, smaller bench; its
    /// signature differs from the full one).
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u32>,
    /// Another bench file in the same format (default: the built-in
    /// positions/bench.epd).
    #[arg(long, value_name = "FILE.epd")]
    pub file: Option<PathBuf>,
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

/// Runs `perft bench`.
pub fn run_bench(args: BenchArgs, quiet: bool) -> Result<u8, Error> {
    let (name, records) = match &args.file {
        Some(path) => (path.display().to_string(), epd::load_suite(path, false)?),
        None => (
            "positions/bench.epd (built in)".to_string(),
            epd::parse_suite(BENCH_EPD, "positions/bench.epd", false)?,
        ),
    };
    if records.is_empty() {
        return Err(Error::Usage(format!(
            "{name}: no positions (the file is empty or has only comments)"
        )));
    }
    let mut jobs = Vec::new();
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
    // Raw generator speed unless --hash asks for a table (depth 0: no automatic table).
    let configs = args.engine.configs(0)?;
    if args.stats && configs.iter().any(|c| c.hash_bytes > 0) {
        return Err(Error::Usage(
            "--stats uses no perft table (the table stores node counts only): drop --hash".into(),
        ));
    }
    let busy = busy_machine_warning();
    let max_threads = configs.iter().map(|c| c.threads).max().unwrap_or(1);
    let interrupt = Interrupt::install();
    let progress = ProgressFactory::new(args.json, quiet);
    let mut runs: Vec<BenchRun> = Vec::new();
    let mut complete = true;
    let mut mismatches = Vec::new();
    'configs: for config in configs {
        let hash = hash_setting(&config);
        let perft = build_perft(config)?;
        let threads = perft.config().threads;
        let mut positions = Vec::new();
        let mut stats = crate::perft::PerftStats::default();
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
                };
                (counted, Some(StatsReport(o.total)))
            } else {
                (perft.divide(&record.position, *depth, control), None)
            };
            bar.inc();
            let seconds = start.elapsed().as_secs_f64();
            stats = stats + o.stats;
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
        let nodes: u128 = positions.iter().map(|p| p.nodes).sum();
        let mnps = report::nps(nodes, seconds) / 1e6;
        let (speedup, efficiency) = match runs.first() {
            Some(first) if first.mnps > 0.0 => {
                let s = mnps / first.mnps;
                (s, s * first.threads as f64 / threads as f64)
            }
            _ => (1.0, 1.0),
        };
        let run = BenchRun {
            threads,
            hash,
            cpu_path: perft.config().cpu,
            counter: if perft.config().plain {
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
