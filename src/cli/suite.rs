//! `perft suite`: check EPD files, one line per position, then a summary.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;

use super::config::{EngineArgs, parse_seconds, shell_quote};
use super::output::{Style, emit_warnings, timing_warnings, write_json, write_out};
use super::progress::{Interrupt, ProgressFactory, StopReason, with_stop};
use crate::error::{EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_OK, Error};
use crate::perft::Control;
use crate::report::{Header, PositionStatus, SuitePosition, SuiteReport, SuiteSummary, Warning};
use crate::validate::suite::{self as epd, EpdRecord, SuiteLimits};

/// `perft suite` arguments.
#[derive(Debug, Args)]
pub struct SuiteArgs {
    /// EPD files (`FEN ;D1 n ;D2 n ...` per line).
    #[arg(required = true, value_name = "FILE.epd")]
    pub files: Vec<PathBuf>,
    /// Skip depths deeper than this.
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u32>,
    /// Skip counts whose expected value exceeds N (0 = no limit).
    #[arg(long, value_name = "N", default_value_t = 10_000_000_000)]
    pub max_nodes: u64,
    /// Stop at the first failing position (the rest are listed as not run).
    #[arg(long)]
    pub fail_fast: bool,
    /// Run only positions whose `id` or FEN contains TEXT, or whose
    /// `file:line` ends with it (`tricky.epd:6`). Repeat for several; each
    /// must match something.
    #[arg(long, value_name = "TEXT")]
    pub filter: Vec<String>,
    /// Stop a position after SECONDS (all its depths together); it is
    /// reported as TIME, not verified, and the run goes on.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// Read every file in Chess960 mode (KQkq as X-FEN).
    #[arg(long)]
    pub chess960: bool,
    /// Threads and hash.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Print one JSON object on stdout (and nothing else).
    #[arg(long)]
    pub json: bool,
}

/// True if `filter` selects this record: its id or FEN contains it, or it
/// ends its `file:line` (`tricky.epd:6` selects line 6, not line 60).
fn matches(filter: &str, file: &str, record: &EpdRecord) -> bool {
    record.id.as_deref().is_some_and(|id| id.contains(filter))
        || record.fen_text.contains(filter)
        || format!("{file}:{}", record.line).ends_with(filter)
}

/// The `perft compare` command that bisects a failed position against
/// Stockfish.
fn bisect_command(record: &EpdRecord, depth: u32, chess960_flag: bool) -> String {
    format!(
        "perft compare {depth} {} --engine stockfish{}",
        shell_quote(&record.fen_text),
        if chess960_flag { " --chess960" } else { "" }
    )
}

/// Runs `perft suite`.
pub fn run_suite(args: SuiteArgs, quiet: bool) -> Result<u8, Error> {
    let limits = SuiteLimits {
        max_depth: args.max_depth,
        max_nodes: (args.max_nodes > 0).then_some(args.max_nodes),
    };
    // Load everything first: a malformed line is an input error (exit 2)
    // before any time is spent.
    let mut suites = Vec::new();
    for path in &args.files {
        let name = path.display().to_string();
        let records = epd::load_suite(path, args.chess960)?;
        suites.push((name, records));
    }
    let mut selected: Vec<(&str, &EpdRecord)> = Vec::new();
    for (file, records) in &suites {
        for r in records {
            if args.filter.is_empty() || args.filter.iter().any(|f| matches(f, file, r)) {
                selected.push((file, r));
            }
        }
    }
    for f in &args.filter {
        if !suites
            .iter()
            .any(|(file, recs)| recs.iter().any(|r| matches(f, file, r)))
        {
            return Err(Error::Usage(format!(
                "--filter '{f}' matches no position in {}",
                args.files
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    // The automatic perft table follows the deepest count that will run.
    let deepest = selected
        .iter()
        .flat_map(|(_, r)| r.depths.iter())
        .filter(|&&(d, n)| {
            limits.max_depth.is_none_or(|m| d <= m) && limits.max_nodes.is_none_or(|m| n <= m)
        })
        .map(|&(d, _)| d)
        .max()
        .unwrap_or(0);
    let perft = args.engine.build(deepest)?;
    let threads = perft.config().threads;
    let mut warnings = timing_warnings(threads, None);
    for &(file, record) in &selected {
        let claimed = crate::chess::oddity::claimed_ep(&record.fen_text);
        for oddity in record.position.oddities_with_ep(claimed) {
            warnings.push(Warning::Oddity {
                oddity,
                place: Some(format!("{file}:{}", record.line)),
            });
        }
    }
    emit_warnings(&warnings, quiet);
    let interrupt = Interrupt::install();
    let progress = ProgressFactory::new(args.json, quiet);
    let timeout = args.timeout.map(Duration::from_secs_f64);
    let style = Style::stdout();
    let start = Instant::now();
    let mut positions = Vec::new();
    let mut summary = SuiteSummary::default();
    let mut complete = true;
    let bar = progress.counter(selected.len(), "positions", "suite");
    for (i, &(file, record)) in selected.iter().enumerate() {
        bar.set_message(&format!("{file}:{}", record.line));
        let (outcome, reason) = with_stop(&interrupt, timeout, |stop| {
            epd::check_record(file, record, &limits, |p, d| {
                let o = perft.divide(
                    p,
                    d,
                    Control {
                        stop: Some(stop),
                        on_root_move: None,
                    },
                );
                // Suite counts are u64, so a count that does not fit cannot match.
                o.complete
                    .then(|| u64::try_from(o.nodes).unwrap_or(u64::MAX))
            })
        });
        let status = if outcome.stopped_at_depth.is_some() {
            match reason {
                Some(StopReason::Timeout) => PositionStatus::Timeout,
                _ => PositionStatus::Interrupted,
            }
        } else if !outcome.passed() {
            PositionStatus::Fail
        } else if outcome.checks.is_empty() {
            PositionStatus::Skipped
        } else {
            PositionStatus::Pass
        };
        let bisect = (status == PositionStatus::Fail).then(|| {
            let depth = outcome
                .checks
                .iter()
                .find(|c| !c.pass)
                .map_or(1, |c| c.depth);
            bisect_command(record, depth, args.chess960)
        });
        summary.positions_checked += usize::from(!outcome.checks.is_empty());
        summary.positions_failed += usize::from(status == PositionStatus::Fail);
        summary.positions_timed_out += usize::from(status == PositionStatus::Timeout);
        summary.counts_checked += outcome.checks.len();
        summary.counts_failed += outcome.checks.iter().filter(|c| !c.pass).count();
        summary.counts_skipped += outcome.skipped.len();
        summary.nodes += outcome
            .checks
            .iter()
            .map(|c| u128::from(c.got))
            .sum::<u128>();
        let entry = SuitePosition {
            outcome,
            status,
            bisect,
        };
        bar.inc();
        if !args.json {
            bar.suspend(|| write_out(&entry.to_text(style)))?;
        }
        positions.push(entry);
        let stop_now = status == PositionStatus::Interrupted
            || interrupt.is_set()
            || (args.fail_fast && status == PositionStatus::Fail);
        if stop_now {
            complete = !(status == PositionStatus::Interrupted || interrupt.is_set());
            summary.positions_not_run = selected.len() - i - 1;
            break;
        }
    }
    drop(bar);
    summary.seconds = start.elapsed().as_secs_f64();
    summary.nodes_str = summary.nodes.to_string();
    let report = SuiteReport {
        header: Header::new("suite"),
        files: suites.iter().map(|(f, _)| f.clone()).collect(),
        filters: args.filter.clone(),
        max_depth: limits.max_depth,
        max_nodes: limits.max_nodes,
        timeout: args.timeout,
        fail_fast: args.fail_fast,
        threads,
        complete,
        positions,
        summary,
        warnings,
    };
    if args.json {
        write_json(&report)?;
    } else {
        write_out(&report.summary_text(style))?;
    }
    Ok(if !complete {
        EXIT_INTERRUPTED
    } else if report.summary.counts_failed > 0 {
        EXIT_MISMATCH
    } else {
        EXIT_OK
    })
}
