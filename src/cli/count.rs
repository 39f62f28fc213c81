//! `perft count` and `perft divide`.

use std::time::Instant;

use clap::Args;

use super::config::{EngineArgs, PositionArgs, resolve_position_warned};
use super::output::{emit_warnings, timing_warnings, write_json, write_out};
use super::progress::{Interrupt, ProgressFactory};
use crate::chess::moves::Move;
use crate::chess::position::Position;
use crate::error::{EXIT_INTERRUPTED, EXIT_OK, Error};
use crate::perft::{Control, DivideOutcome, Perft, PerftStats};
use crate::report::{self, CountReport, DivideEntry, DivideReport, Header, Warning};

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
}

/// Counts with progress and Ctrl-C; depth 0 is 1 without running anything.
fn counted(perft: &Perft, pos: &Position, depth: u32, progress: &ProgressFactory) -> Counted {
    let start = Instant::now();
    if depth == 0 {
        return Counted {
            moves: Vec::new(),
            root_moves: 0,
            nodes: 1,
            complete: true,
            seconds: 0.0,
            stats: PerftStats::default(),
        };
    }
    let interrupt = Interrupt::install();
    let label = format!("perft {depth}");
    let o: DivideOutcome =
        divide_with_progress(perft, pos, depth, interrupt.flag(), progress, &label);
    Counted {
        moves: o.moves,
        root_moves: o.root_moves,
        nodes: o.nodes,
        complete: o.complete,
        seconds: start.elapsed().as_secs_f64(),
        stats: o.stats,
    }
}

/// Runs `perft count`.
pub fn run_count(args: CountArgs, quiet: bool) -> Result<u8, Error> {
    let (pos, oddities) = resolve_position_warned(&args.position)?;
    let perft = args.engine.build(args.depth)?;
    let progress = ProgressFactory::new(args.json, quiet);
    let outcome = counted(&perft, &pos, args.depth, &progress);
    let seconds = outcome.seconds;
    let threads = perft.config().threads;
    let mut warnings = oddities;
    warnings.extend(timing_warnings(threads, None));
    if !outcome.complete {
        warnings.push(Warning::Partial {
            done: outcome.moves.len(),
            total: outcome.root_moves,
        });
    }
    emit_warnings(&warnings, quiet);
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
    let perft = args.engine.build(args.depth)?;
    let progress = ProgressFactory::new(args.json, quiet);
    let outcome = counted(&perft, &pos, args.depth, &progress);
    let seconds = outcome.seconds;
    let chess960 = pos.is_chess960();
    let mut moves: Vec<DivideEntry> = outcome
        .moves
        .iter()
        .map(|&(mv, n)| DivideEntry {
            mv: mv.to_uci(chess960).to_string(),
            nodes: n,
            nodes_str: n.to_string(),
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
