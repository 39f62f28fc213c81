//! `perft suite`: check EPD files, one line per position, then a summary.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;

use super::compare::{EngineProtocolArgs, Spinning, start_engine_with};
use super::config::{EngineArgs, parse_seconds, shell_quote};
use super::output::{Style, emit_warnings, timing_warnings, write_json, write_out};
use super::progress::{Interrupt, ProgressFactory, StopReason, with_stop};
use crate::error::{EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_OK, Error};
use crate::perft::Control;
use crate::report::{
    Header, PositionStatus, StoppedBy, SuitePosition, SuiteReport, SuiteSummary, Warning,
};
use crate::validate::bisect::{self as bisection_mod, BisectError};
use crate::validate::engine::EngineError;
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
    /// Stop the whole run after SECONDS: the position being counted is
    /// reported as STOP, the rest as not run, the results are marked
    /// partial, and the exit code is 124.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub max_time: Option<f64>,
    /// Read every file in Chess960 mode (KQkq as X-FEN).
    #[arg(long)]
    pub chess960: bool,
    /// Check the published leaf statistics too (`;D4cap 757163 ;D4ep 1929
    /// ...`). Depths with figures are counted without the perft table;
    /// without this flag the figures are read but not checked.
    #[arg(long, conflicts_with = "engine_cmd")]
    pub stats: bool,
    /// Check an external engine instead of this generator: its divide
    /// totals are compared with the EPD counts, and each failing line is
    /// bisected against this generator down to the first differing
    /// position and moves.
    #[arg(long = "engine", id = "engine_cmd", value_name = "COMMAND")]
    pub engine_cmd: Option<String>,
    /// Engine protocol, options and timeout (with --engine).
    #[command(flatten)]
    pub protocol: EngineProtocolArgs,
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

/// The next step after a failed position: the `perft compare` command that
/// bisects it against Stockfish, and what its answer means.
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
        stats: args.stats,
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
    // A run that can check nothing is an input error, not a PASS.
    if selected.is_empty() {
        return Err(Error::Usage(format!(
            "no positions in {} (empty, or only comments and blank lines): nothing to check",
            args.files
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let within = |&(d, n): &(u32, u64)| {
        limits.max_depth.is_none_or(|m| d <= m) && limits.max_nodes.is_none_or(|m| n <= m)
    };
    if !selected.iter().any(|(_, r)| r.depths.iter().any(within)) {
        let with_counts = selected
            .iter()
            .filter(|(_, r)| !r.depths.is_empty())
            .count();
        let why = if with_counts == 0 {
            "none of its lines has perft counts (;D1 20 ;D2 400 ...)".to_string()
        } else {
            format!(
                "every count is beyond the limits ({})",
                [
                    limits.max_depth.map(|d| format!("--max-depth {d}")),
                    limits
                        .max_nodes
                        .map(|n| format!("--max-nodes {}", crate::report::thousands(n.into()))),
                ]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(", ")
            )
        };
        return Err(Error::Usage(format!(
            "nothing to check in {} selected: {why}",
            crate::report::plural(selected.len() as u128, "position")
        )));
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
    // With --engine the bisections divide one level at a time: no table needed
    // beyond what the flags ask for.
    let perft = args.engine.build(deepest)?;
    let threads = perft.config().threads;
    let mut engine = match &args.engine_cmd {
        Some(cmd) => Some(start_engine_with(cmd, &args.protocol)?),
        None => None,
    };
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
    let bar = progress.counter(selected.len(), "positions", "suite");
    let deadline = args.max_time.map(|t| start + Duration::from_secs_f64(t));
    let mut stopped_by = None;
    for (i, &(file, record)) in selected.iter().enumerate() {
        // The position's limit: --timeout, or less when --max-time ends first.
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if left == Some(Duration::ZERO) {
            stopped_by = Some(StoppedBy::MaxTime);
            summary.positions_not_run = selected.len() - i;
            break;
        }
        let limit = match (timeout, left) {
            (Some(t), Some(l)) => Some(t.min(l)),
            (t, l) => t.or(l),
        };
        bar.set_message(&format!("{file}:{}", record.line));
        let mut engine_error: Option<EngineError> = None;
        let (outcome, reason) = with_stop(&interrupt, limit, |stop| {
            epd::check_record(file, record, &limits, |p, d, with_stats| {
                if let Some(engine) = engine.as_deref_mut() {
                    // The engine's total for the line's position (`--stats`
                    // conflicts with `--engine`: a divide has no breakdown).
                    let _spinner = progress.spinner(&format!("engine: perft {d}"));
                    let reply = engine
                        .set_chess960(p.is_chess960())
                        .and_then(|_| engine.divide(&p.to_fen(), &[], d));
                    return match reply {
                        Ok(r) => Some((r.total, None)),
                        Err(e) => {
                            engine_error = Some(e);
                            None
                        }
                    };
                }
                let control = Control {
                    stop: Some(stop),
                    on_root_move: None,
                };
                if with_stats {
                    let o = perft.divide_stats(p, d, control);
                    return o.complete.then_some((o.total.nodes, Some(o.total)));
                }
                let o = perft.divide(p, d, control);
                // Suite counts are u64, so a count that does not fit cannot match.
                o.complete
                    .then(|| (u64::try_from(o.nodes).unwrap_or(u64::MAX), None))
            })
        });
        if let Some(e) = engine_error {
            // An engine killed by the same Ctrl-C is an interruption.
            if !interrupt.is_set() {
                drop(bar);
                return Err(Error::Engine(e));
            }
        }
        let past_deadline = deadline.is_some_and(|d| Instant::now() >= d);
        let status = if outcome.stopped_at_depth.is_some() {
            match reason {
                Some(StopReason::Timeout) if past_deadline => PositionStatus::MaxTime,
                Some(StopReason::Timeout) => PositionStatus::Timeout,
                _ => PositionStatus::Interrupted,
            }
        } else if !outcome.passed() {
            PositionStatus::Fail
        } else if record.depths.is_empty() {
            PositionStatus::NoCounts
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
        for c in &outcome.checks {
            summary.stats_checked += c.stats.len();
            summary.stats_failed += c.stats.iter().filter(|st| !st.pass).count();
            summary.stats_not_checked += c.stats_not_checked;
        }
        summary.nodes += outcome
            .checks
            .iter()
            .map(|c| u128::from(c.got))
            .sum::<u128>();
        // With --engine: bisect the failing depth against this generator.
        let bisection = match (&mut engine, status) {
            (Some(engine), PositionStatus::Fail) => {
                let depth = outcome
                    .checks
                    .iter()
                    .find(|c| !c.pass)
                    .map_or(1, |c| c.depth);
                let mut spinning = Spinning {
                    engine: engine.as_mut(),
                    progress,
                };
                let result = bar.suspend(|| {
                    bisection_mod::bisect(
                        &mut spinning,
                        &record.position,
                        &[],
                        depth,
                        &mut |pos, d| {
                            if interrupt.is_set() {
                                return None;
                            }
                            let o = perft.divide(
                                pos,
                                d,
                                Control {
                                    stop: Some(interrupt.flag()),
                                    on_root_move: None,
                                },
                            );
                            o.complete.then_some(o.moves)
                        },
                        &mut |_| {},
                    )
                });
                match result {
                    Ok(b) => Some(b),
                    Err(BisectError::Interrupted) => None,
                    Err(BisectError::Engine(_)) if interrupt.is_set() => None,
                    Err(BisectError::Engine(e)) => {
                        drop(bar);
                        return Err(Error::Engine(e));
                    }
                }
            }
            _ => None,
        };
        let entry = SuitePosition {
            outcome,
            status,
            bisect: if engine.is_some() { None } else { bisect },
            bisection,
        };
        bar.inc();
        if !args.json {
            bar.suspend(|| write_out(&entry.to_text(style)))?;
        }
        positions.push(entry);
        let stop_now = status == PositionStatus::Interrupted
            || status == PositionStatus::MaxTime
            || interrupt.is_set()
            || (args.fail_fast && status == PositionStatus::Fail);
        if stop_now {
            if status == PositionStatus::Interrupted || interrupt.is_set() {
                stopped_by = Some(StoppedBy::Interrupt);
            } else if status == PositionStatus::MaxTime {
                stopped_by = Some(StoppedBy::MaxTime);
            }
            summary.positions_not_run = selected.len() - i - 1;
            break;
        }
    }
    drop(bar);
    summary.seconds = start.elapsed().as_secs_f64();
    summary.nodes_str = summary.nodes.to_string();
    let report = SuiteReport {
        header: Header::new("suite"),
        engine: args.engine_cmd.clone(),
        files: suites.iter().map(|(f, _)| f.clone()).collect(),
        filters: args.filter.clone(),
        max_depth: limits.max_depth,
        max_nodes: limits.max_nodes,
        timeout: args.timeout,
        max_time: args.max_time,
        fail_fast: args.fail_fast,
        stats: args.stats,
        threads,
        table: perft.table().map(crate::report::TableSetupReport::of),
        complete: stopped_by.is_none(),
        stopped_by,
        positions,
        summary,
        warnings,
    };
    if args.json {
        write_json(&report)?;
    } else {
        write_out(&report.summary_text(style))?;
    }
    Ok(if stopped_by == Some(StoppedBy::MaxTime) {
        crate::error::EXIT_TIME_LIMIT
    } else if stopped_by.is_some() {
        EXIT_INTERRUPTED
    } else if report.summary.counts_failed > 0 {
        EXIT_MISMATCH
    } else if report.summary.counts_checked == 0 {
        // Every count timed out: nothing was verified.
        crate::error::EXIT_USAGE
    } else {
        EXIT_OK
    })
}
