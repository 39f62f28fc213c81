//! `perft count` and `perft divide`.

use std::time::{Duration, Instant};

use clap::Args;

use super::config::{
    EngineArgs, PositionArgs, build_perft, parse_seconds, resolve_position_warned,
};
use super::output::{emit_warnings, timing_warnings, write_json, write_out};
use super::progress::{Interrupt, ProgressFactory, StopReason, with_stop};
use crate::chess::moves::Move;
use crate::chess::position::Position;
use crate::chess::zobrist::Zobrist;
use crate::error::{EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_OK, EXIT_TIME_LIMIT, Error};
use crate::perft::{
    Control, DivideOutcome, LeafStats, Perft, PerftStats, StatsOutcome, perft_stats,
};
use crate::report::{
    self, CountReport, DivideEntry, DivideReport, Header, StatsReport, StoppedBy, TableCheck,
    Warning,
};

/// `perft count` and `perft divide` arguments (the same flags).
#[derive(Debug, Args)]
pub struct CountArgs {
    /// Depth in plies (divide: at least 1).
    #[arg(value_parser = clap::value_parser!(u32).range(0..=crate::perft::MAX_PERFT_DEPTH as i64))]
    pub depth: u32,
    /// Position and moves.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Threads and hash.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Also classify the leaves as the published tables do: captures, en
    /// passant, castles, promotions, checks, discovered checks, double
    /// checks, checkmates (no perft table: every leaf is counted).
    #[arg(long)]
    pub stats: bool,
    /// Stop after SECONDS of wall time: the root moves finished by then are
    /// reported, marked partial, and the exit code is 124.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub max_time: Option<f64>,
    /// Count a second time with independent Zobrist keys (another seed) and
    /// a fresh table, and compare: a false table hit cannot go unnoticed
    /// (exit 1 if the runs differ). Twice the time.
    #[arg(long, conflicts_with_all = ["no_hash", "stats"])]
    pub verify_table: bool,
    /// Print one JSON object on stdout (and nothing else).
    #[arg(long)]
    pub json: bool,
}

/// `perft divide` takes exactly `perft count`'s flags.
pub type DivideArgs = CountArgs;

/// Divides `pos` with a root-move progress bar, stopping on `stop`.
pub fn divide_with_progress(
    perft: &Perft,
    pos: &Position,
    depth: u32,
    stop: &std::sync::atomic::AtomicBool,
    progress: &ProgressFactory,
    label: &str,
) -> DivideOutcome {
    let bar = progress.root_moves(pos.legal_moves().len(), label);
    let on_root_move = |_: Move, _: u128| bar.inc();
    perft.divide(
        pos,
        depth,
        Control {
            stop: Some(stop),
            on_root_move: Some(&on_root_move),
        },
    )
}

/// What a count or divide produced.
struct Counted {
    moves: Vec<(Move, u128)>,
    root_moves: usize,
    nodes: u128,
    complete: bool,
    /// What stopped it early, if anything.
    stopped: Option<StoppedBy>,
    seconds: f64,
    stats: PerftStats,
    /// The smallest hashed depth as the run ended.
    min_hash_depth: u32,
    /// The counter that ran, and how it was chosen.
    plain: bool,
    counter_choice: Option<crate::perft::choose::CounterChoice>,
    /// With `--stats`: the breakdown per finished root move, and in total.
    leaves: Option<(Vec<LeafStats>, LeafStats)>,
}

/// Counts with progress, Ctrl-C and an optional time limit; depth 0 is 1
/// without running anything. With `with_stats` the leaves are classified
/// too (no perft table).
fn counted(
    perft: &Perft,
    pos: &Position,
    depth: u32,
    progress: &ProgressFactory,
    with_stats: bool,
    interrupt: &Interrupt,
    time_left: Option<Duration>,
) -> Counted {
    let start = Instant::now();
    if depth == 0 {
        return Counted {
            moves: Vec::new(),
            root_moves: 0,
            nodes: 1,
            complete: true,
            stopped: None,
            seconds: 0.0,
            stats: PerftStats::default(),
            min_hash_depth: perft.config().min_hash_depth,
            plain: perft.config().plain,
            counter_choice: None,
            leaves: with_stats.then(|| (Vec::new(), perft_stats(pos, 0))),
        };
    }
    let label = format!("perft {depth}");
    let (mut counted, reason) = with_stop(interrupt, time_left, |stop| {
        if with_stats {
            let bar = progress.root_moves(pos.legal_moves().len(), &label);
            let on_root_move = |_: Move, _: u128| bar.inc();
            let o: StatsOutcome = perft.divide_stats(
                pos,
                depth,
                Control {
                    stop: Some(stop),
                    on_root_move: Some(&on_root_move),
                },
            );
            return Counted {
                moves: o
                    .moves
                    .iter()
                    .map(|&(mv, st)| (mv, u128::from(st.nodes)))
                    .collect(),
                root_moves: o.root_moves,
                nodes: u128::from(o.total.nodes),
                complete: o.complete,
                stopped: None,
                seconds: 0.0,
                stats: PerftStats::default(),
                min_hash_depth: perft.config().min_hash_depth,
                plain: perft.config().plain,
                counter_choice: None,
                leaves: Some((o.moves.iter().map(|&(_, st)| st).collect(), o.total)),
            };
        }
        let o: DivideOutcome = divide_with_progress(perft, pos, depth, stop, progress, &label);
        Counted {
            moves: o.moves,
            root_moves: o.root_moves,
            nodes: o.nodes,
            complete: o.complete,
            stopped: None,
            seconds: 0.0,
            stats: o.stats,
            min_hash_depth: o.min_hash_depth,
            plain: o.plain,
            counter_choice: o.counter_choice,
            leaves: None,
        }
    });
    counted.seconds = start.elapsed().as_secs_f64();
    if !counted.complete {
        counted.stopped = Some(match reason {
            Some(StopReason::Timeout) => StoppedBy::MaxTime,
            _ => StoppedBy::Interrupt,
        });
    }
    counted
}

/// `--max-time` left after `elapsed` (zero once it has passed).
fn time_left(max_time: Option<f64>, elapsed: Duration) -> Option<Duration> {
    max_time.map(|t| Duration::from_secs_f64(t).saturating_sub(elapsed))
}

/// `--verify-table`: counts again with independent Zobrist keys and a fresh
/// table (the first driver, and its table, are dropped first so the memory
/// is not needed twice). `Ok(None)` when there is nothing to verify: the
/// first run did not finish or used no table. The second run's stop, if
/// any, is returned with it.
fn verify_table(
    perft: Perft,
    pos: &Position,
    depth: u32,
    first: &Counted,
    progress: &ProgressFactory,
    interrupt: &Interrupt,
    time_left: Option<Duration>,
) -> Result<(Option<TableCheck>, Option<StoppedBy>), Error> {
    if !first.complete || perft.table().is_none() || depth == 0 {
        return Ok((None, None));
    }
    let mut config = perft.config().clone();
    drop(perft);
    config.zobrist_seed = Zobrist::independent_seed(config.zobrist_seed);
    let seed = config.zobrist_seed;
    let second = build_perft(config)?;
    let again = counted(&second, pos, depth, progress, false, interrupt, time_left);
    if !again.complete {
        return Ok((None, again.stopped));
    }
    let mut differing: Vec<String> = Vec::new();
    let chess960 = pos.is_chess960();
    let theirs: std::collections::HashMap<Move, u128> = again.moves.iter().copied().collect();
    for &(mv, n) in &first.moves {
        if theirs.get(&mv) != Some(&n) {
            differing.push(mv.to_uci(chess960).to_string());
        }
    }
    differing.sort();
    Ok((
        Some(TableCheck {
            zobrist_seed: seed,
            zobrist_seed_str: seed.to_string(),
            nodes: again.nodes,
            nodes_str: again.nodes.to_string(),
            seconds: again.seconds,
            agrees: differing.is_empty() && again.nodes == first.nodes,
            differing_moves: differing,
        }),
        None,
    ))
}

/// `--verify-table` when `asked` (see [`verify_table`]), with its warnings:
/// nothing to verify without a table, or a second run that was stopped.
#[allow(clippy::too_many_arguments)]
fn verify_if_asked(
    asked: bool,
    perft: Perft,
    pos: &Position,
    depth: u32,
    first: &Counted,
    progress: &ProgressFactory,
    interrupt: &Interrupt,
    time_left: Option<Duration>,
    warnings: &mut Vec<Warning>,
) -> Result<(Option<TableCheck>, Option<StoppedBy>), Error> {
    if !asked {
        return Ok((None, None));
    }
    if perft.table().is_none() {
        warnings.push(Warning::NothingToVerify);
    }
    let (check, stopped) = verify_table(perft, pos, depth, first, progress, interrupt, time_left)?;
    if let Some(by) = stopped {
        warnings.push(Warning::VerifyStopped { by });
    }
    Ok((check, stopped))
}

/// The exit code of a count or divide (`stopped` is set whenever the run
/// or its verification did not finish).
fn exit_code(stopped: Option<StoppedBy>, check: Option<&TableCheck>) -> u8 {
    match (stopped, check) {
        (_, Some(c)) if !c.agrees => EXIT_MISMATCH,
        (Some(StoppedBy::MaxTime), _) => EXIT_TIME_LIMIT,
        (Some(StoppedBy::Interrupt), _) => EXIT_INTERRUPTED,
        (None, _) => EXIT_OK,
    }
}

/// The driver for a count or divide: with `--stats`, one without a perft
/// table (it stores node counts only).
fn build_driver(engine: &EngineArgs, depth: u32, with_stats: bool) -> Result<Perft, Error> {
    if with_stats {
        engine.build_without_table(depth, "--stats")
    } else {
        engine.build(depth)
    }
}

/// Runs estimated to take longer than this get a warning first.
const LONG_RUN_SECONDS: f64 = 86_400.0;

/// Estimates a count of `depth` plies before it runs: the leaves grow by the
/// mean branching factor of the last two plies counted at a small depth, and
/// the time follows from the speed of that small count (serial, times the
/// threads; the perft table's savings are not counted, so it errs long).
/// `None` for depths too shallow to matter (below 8).
pub fn estimate(pos: &Position, depth: u32, threads: usize) -> Option<(f64, f64)> {
    if depth < 8 {
        return None;
    }
    let n2 = crate::perft::perft(pos, 2) as f64;
    let n4 = crate::perft::perft(pos, 4) as f64;
    if n2 == 0.0 || n4 == 0.0 {
        return None;
    }
    // Depth 5 for the speed unless it would take long itself.
    let k = if n4 * (n4 / n2).sqrt() < 2e8 { 5 } else { 4 };
    let start = Instant::now();
    let nk = crate::perft::perft(pos, k) as f64;
    let seconds = start.elapsed().as_secs_f64().max(1e-6);
    let growth = (n4 / n2).sqrt();
    let nodes = nk * growth.powi((depth - k) as i32);
    let speed = nk / seconds * threads as f64;
    Some((nodes, nodes / speed))
}

/// The long-run warning for `depth`, if the estimate exceeds a day.
fn long_run_warning(pos: &Position, depth: u32, threads: usize) -> Option<Warning> {
    let (nodes, seconds) = estimate(pos, depth, threads)?;
    (seconds > LONG_RUN_SECONDS).then_some(Warning::LongRun {
        depth,
        nodes,
        seconds,
    })
}

/// What `count` and `divide` share: the position, the run, its
/// verification and its warnings (already printed on stderr).
struct Done {
    pos: Position,
    outcome: Counted,
    threads: usize,
    engine: report::EngineInfo,
    table: Option<report::TableStats>,
    table_used: bool,
    table_check: Option<TableCheck>,
    /// What stopped the run or its verification, if anything.
    stopped: Option<StoppedBy>,
    warnings: Vec<Warning>,
    /// When the command began.
    start: Instant,
}

impl Done {
    fn exit_code(&self) -> u8 {
        exit_code(self.stopped, self.table_check.as_ref())
    }
}

/// Counts for `count` (`timing`: with the timing warnings) and `divide`.
fn count_or_divide(args: &CountArgs, quiet: bool, timing: bool) -> Result<Done, Error> {
    let CountArgs {
        ref position,
        engine: ref engine_args,
        depth,
        stats,
        max_time,
        verify_table: verify,
        json,
        ..
    } = *args;
    let start = Instant::now();
    let (pos, oddities) = resolve_position_warned(position)?;
    let perft = build_driver(engine_args, depth, stats)?;
    let progress = ProgressFactory::new(json, quiet);
    let threads = perft.config().threads;
    let long = long_run_warning(&pos, depth, threads);
    emit_warnings(long.as_slice(), quiet);
    let interrupt = Interrupt::install();
    let outcome = counted(
        &perft,
        &pos,
        depth,
        &progress,
        stats,
        &interrupt,
        time_left(max_time, start.elapsed()),
    );
    let mut warnings = oddities;
    if timing {
        warnings.extend(timing_warnings(threads, None));
    }
    if let Some(by) = outcome.stopped {
        warnings.push(Warning::Partial {
            done: outcome.moves.len(),
            total: outcome.root_moves,
            by,
        });
    }
    let engine = report::EngineInfo::of(&perft).ran(outcome.plain, outcome.counter_choice);
    let table = perft
        .table()
        .map(|t| report::TableStats::of(t, &outcome.stats, outcome.min_hash_depth));
    let table_used = perft.table().is_some();
    let (table_check, verify_stopped) = verify_if_asked(
        verify,
        perft,
        &pos,
        depth,
        &outcome,
        &progress,
        &interrupt,
        time_left(max_time, start.elapsed()),
        &mut warnings,
    )?;
    emit_warnings(&warnings, quiet);
    // Printed before the run; listed in the report too.
    warnings.extend(long);
    let stopped = outcome.stopped.or(verify_stopped);
    Ok(Done {
        pos,
        outcome,
        threads,
        engine,
        table,
        table_used,
        table_check,
        stopped,
        warnings,
        start,
    })
}

/// Runs `perft count`.
pub fn run_count(args: CountArgs, quiet: bool) -> Result<u8, Error> {
    let done = count_or_divide(&args, quiet, true)?;
    let code = done.exit_code();
    let Done {
        pos,
        outcome,
        threads,
        engine,
        table,
        table_used,
        table_check,
        stopped,
        warnings,
        start,
    } = done;
    let seconds = outcome.seconds;
    let report = CountReport {
        header: Header::new("count"),
        fen: pos.to_fen(),
        depth: args.depth,
        nodes: outcome.nodes,
        nodes_str: outcome.nodes.to_string(),
        complete: outcome.complete,
        stopped_by: stopped,
        table_check,
        root_moves: outcome.root_moves,
        root_moves_done: outcome.moves.len(),
        threads,
        seconds,
        wall_seconds: start.elapsed().as_secs_f64(),
        nps: report::nps(outcome.nodes, seconds),
        engine,
        table,
        table_used,
        stats: outcome
            .leaves
            .as_ref()
            .map(|(_, total)| StatsReport(*total)),
        warnings,
    };
    if args.json {
        write_json(&report)?;
    } else {
        write_out(&report.to_text())?;
    }
    Ok(code)
}

/// Runs `perft divide`.
pub fn run_divide(args: DivideArgs, quiet: bool) -> Result<u8, Error> {
    if args.depth == 0 {
        return Err(Error::Usage(
            "divide: DEPTH must be at least 1 (perft 0 is 1, with no move to divide by)".into(),
        ));
    }
    let done = count_or_divide(&args, quiet, false)?;
    let code = done.exit_code();
    let Done {
        pos,
        outcome,
        threads,
        engine,
        table,
        table_used,
        table_check,
        stopped,
        warnings,
        start,
        ..
    } = done;
    let chess960 = pos.is_chess960();
    let mut moves: Vec<DivideEntry> = outcome
        .moves
        .iter()
        .enumerate()
        .map(|(i, &(mv, n))| DivideEntry {
            mv: mv.to_uci(chess960).to_string(),
            nodes: n,
            nodes_str: n.to_string(),
            stats: outcome
                .leaves
                .as_ref()
                .map(|(per_move, _)| StatsReport(per_move[i])),
        })
        .collect();
    moves.sort_by(|a, b| a.mv.cmp(&b.mv));
    let report = DivideReport {
        header: Header::new("divide"),
        fen: pos.to_fen(),
        depth: args.depth,
        moves,
        nodes: outcome.nodes,
        nodes_str: outcome.nodes.to_string(),
        complete: outcome.complete,
        stopped_by: stopped,
        table_check,
        root_moves: outcome.root_moves,
        threads,
        seconds: outcome.seconds,
        wall_seconds: start.elapsed().as_secs_f64(),
        table_used,
        table,
        stats: outcome
            .leaves
            .as_ref()
            .map(|(_, total)| StatsReport(*total)),
        engine,
        warnings,
    };
    if args.json {
        write_json(&report)?;
    } else {
        write_out(&report.to_text())?;
    }
    Ok(code)
}
