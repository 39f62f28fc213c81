//! `perft count` and `perft divide`.

use std::time::Instant;

use clap::Args;

use super::config::{EngineArgs, PositionArgs, resolve_position_warned};
use super::output::{emit_warnings, timing_warnings, write_json, write_out};
use super::progress::{Interrupt, ProgressFactory};
use crate::chess::moves::Move;
use crate::chess::position::Position;
use crate::error::{EXIT_INTERRUPTED, EXIT_OK, Error};
use crate::perft::{
    Control, DivideOutcome, LeafStats, Perft, PerftStats, StatsOutcome, perft_stats,
};
use crate::report::{self, CountReport, DivideEntry, DivideReport, Header, StatsReport, Warning};

/// `perft count` arguments.
#[derive(Debug, Args)]
pub struct CountArgs {
    /// Depth in plies.
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
    /// Print one JSON object on stdout (and nothing else).
    #[arg(long)]
    pub json: bool,
}

/// `perft divide` arguments.
#[derive(Debug, Args)]
pub struct DivideArgs {
    /// Depth in plies (at least 1).
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
    /// Print one JSON object on stdout (and nothing else).
    #[arg(long)]
    pub json: bool,
}

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
    seconds: f64,
    stats: PerftStats,
    /// With `--stats`: the breakdown per finished root move, and in total.
    leaves: Option<(Vec<LeafStats>, LeafStats)>,
}

/// Counts with progress and Ctrl-C; depth 0 is 1 without running anything.
/// With `with_stats` the leaves are classified too (no perft table).
fn counted(
    perft: &Perft,
    pos: &Position,
    depth: u32,
    progress: &ProgressFactory,
    with_stats: bool,
) -> Counted {
    let start = Instant::now();
    if depth == 0 {
        return Counted {
            moves: Vec::new(),
            root_moves: 0,
            nodes: 1,
            complete: true,
            seconds: 0.0,
            stats: PerftStats::default(),
            leaves: with_stats.then(|| (Vec::new(), perft_stats(pos, 0))),
        };
    }
    let interrupt = Interrupt::install();
    let label = format!("perft {depth}");
    if with_stats {
        let bar = progress.root_moves(pos.legal_moves().len(), &label);
        let on_root_move = |_: Move, _: u128| bar.inc();
        let o: StatsOutcome = perft.divide_stats(
            pos,
            depth,
            Control {
                stop: Some(interrupt.flag()),
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
            seconds: start.elapsed().as_secs_f64(),
            stats: PerftStats::default(),
            leaves: Some((o.moves.iter().map(|&(_, st)| st).collect(), o.total)),
        };
    }
    let o: DivideOutcome =
        divide_with_progress(perft, pos, depth, interrupt.flag(), progress, &label);
    Counted {
        moves: o.moves,
        root_moves: o.root_moves,
        nodes: o.nodes,
        complete: o.complete,
        seconds: start.elapsed().as_secs_f64(),
        stats: o.stats,
        leaves: None,
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

/// Runs `perft count`.
pub fn run_count(args: CountArgs, quiet: bool) -> Result<u8, Error> {
    let (pos, oddities) = resolve_position_warned(&args.position)?;
    let perft = build_driver(&args.engine, args.depth, args.stats)?;
    let progress = ProgressFactory::new(args.json, quiet);
    let threads = perft.config().threads;
    let long = long_run_warning(&pos, args.depth, threads);
    emit_warnings(long.as_slice(), quiet);
    let outcome = counted(&perft, &pos, args.depth, &progress, args.stats);
    let seconds = outcome.seconds;
    let mut warnings = oddities;
    warnings.extend(timing_warnings(threads, None));
    if !outcome.complete {
        warnings.push(Warning::Partial {
            done: outcome.moves.len(),
            total: outcome.root_moves,
        });
    }
    emit_warnings(&warnings, quiet);
    // Printed before the run; listed in the report too.
    warnings.extend(long);
    let report = CountReport {
        header: Header::new("count"),
        fen: pos.to_fen(),
        depth: args.depth,
        nodes: outcome.nodes,
        nodes_str: outcome.nodes.to_string(),
        complete: outcome.complete,
        root_moves: outcome.root_moves,
        root_moves_done: outcome.moves.len(),
        threads,
        seconds,
        nps: report::nps(outcome.nodes, seconds),
        engine: report::EngineInfo::of(&perft),
        table: perft
            .table()
            .map(|_| report::TableStats::from(&outcome.stats)),
        table_used: perft.table().is_some(),
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
    Ok(if outcome.complete {
        EXIT_OK
    } else {
        EXIT_INTERRUPTED
    })
}

/// Runs `perft divide`.
pub fn run_divide(args: DivideArgs, quiet: bool) -> Result<u8, Error> {
    if args.depth == 0 {
        return Err(Error::Usage(
            "divide: DEPTH must be at least 1 (perft 0 is 1, with no move to divide by)".into(),
        ));
    }
    let (pos, oddities) = resolve_position_warned(&args.position)?;
    let perft = build_driver(&args.engine, args.depth, args.stats)?;
    let progress = ProgressFactory::new(args.json, quiet);
    let long = long_run_warning(&pos, args.depth, perft.config().threads);
    emit_warnings(long.as_slice(), quiet);
    let outcome = counted(&perft, &pos, args.depth, &progress, args.stats);
    let seconds = outcome.seconds;
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
    let mut warnings = oddities;
    if !outcome.complete {
        warnings.push(Warning::Partial {
            done: outcome.moves.len(),
            total: outcome.root_moves,
        });
    }
    emit_warnings(&warnings, quiet);
    warnings.extend(long);
    let report = DivideReport {
        header: Header::new("divide"),
        fen: pos.to_fen(),
        depth: args.depth,
        moves,
        nodes: outcome.nodes,
        nodes_str: outcome.nodes.to_string(),
        complete: outcome.complete,
        root_moves: outcome.root_moves,
        threads: perft.config().threads,
        seconds,
        table_used: perft.table().is_some(),
        stats: outcome
            .leaves
            .as_ref()
            .map(|(_, total)| StatsReport(*total)),
        engine: report::EngineInfo::of(&perft),
        warnings,
    };
    if args.json {
        write_json(&report)?;
    } else {
        write_out(&report.to_text())?;
    }
    Ok(if outcome.complete {
        EXIT_OK
    } else {
        EXIT_INTERRUPTED
    })
}
