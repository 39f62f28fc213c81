//! `perft fuzz`: differential testing of an engine's move generator on
//! seeded random positions biased towards the hard cases
//! ([`crate::validate::random`]); the first disagreement is bisected down
//! to a minimal reproduction.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use clap::Args;

use super::compare::{EngineProtocolArgs, Spinning, start_engine_with};
use super::config::{EngineArgs, parse_seconds, shell_quote};
use super::output::{Style, write_json, write_out};
use super::progress::{Interrupt, ProgressFactory};
use crate::error::{EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_OK, Error};
use crate::perft::Control;
use crate::report::{FuzzFailure, FuzzReport, Header};
use crate::validate::bisect::{BisectError, Verdict, bisect};
use crate::validate::random::RandomPositions;

/// `perft fuzz` arguments.
#[derive(Debug, Args)]
pub struct FuzzArgs {
    /// The engine command line (quotes honoured), e.g. `'./my engine' --uci`.
    #[arg(long, short = 'e', id = "engine_cmd", value_name = "COMMAND")]
    pub engine: String,
    /// Engine protocol, options and timeout.
    #[command(flatten)]
    pub protocol: EngineProtocolArgs,
    /// How many random positions to try.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub positions: usize,
    /// Divide depth on both sides (plies, 1 to 6).
    #[arg(long, value_name = "D", default_value_t = 3)]
    pub depth: u32,
    /// Seed of the position generator (the same seed, the same positions).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Mix in Chess960 positions (castling with king and rooks on any file;
    /// the engine gets `UCI_Chess960`).
    #[arg(long)]
    pub chess960: bool,
    /// Stop trying new positions after SECONDS.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub time: Option<f64>,
    /// Threads and hash (our side).
    #[command(flatten)]
    pub threads: EngineArgs,
    /// Print one JSON object on stdout (and nothing else).
    #[arg(long)]
    pub json: bool,
}

/// Runs `perft fuzz`.
pub fn run_fuzz(args: FuzzArgs, quiet: bool) -> Result<u8, Error> {
    if !(1..=6).contains(&args.depth) {
        return Err(Error::Usage(format!(
            "--depth: expected 1 to 6 plies, got {}",
            args.depth
        )));
    }
    if args.positions == 0 {
        return Err(Error::Usage("--positions must be at least 1".into()));
    }
    let perft = args.threads.build(args.depth)?;
    let mut engine = start_engine_with(&args.engine, &args.protocol)?;
    let interrupt = Interrupt::install();
    let progress = ProgressFactory::new(args.json, quiet);
    let style = Style::stdout();
    let kind = args.protocol.engine_kind.name();
    let mut generator = RandomPositions::new(args.seed, args.chess960);
    let budget = args.time.map(Duration::from_secs_f64);
    let start = Instant::now();
    let bar = progress.counter(args.positions, "positions", "fuzz");
    let (mut tried, mut nodes) = (0usize, 0u128);
    let mut failure = None;
    let mut interrupted = false;
    let ours = |pos: &crate::chess::position::Position, depth: u32| {
        let o = perft.divide(
            pos,
            depth,
            Control {
                stop: Some(interrupt.flag()),
                on_root_move: None,
            },
        );
        o.complete.then_some(o.moves)
    };
    for index in 1..=args.positions {
        if budget.is_some_and(|b| start.elapsed() >= b) {
            break;
        }
        let (pos, motif) = generator.next_position();
        let fen = pos.to_fen();
        let Some(mine) = ours(&pos, args.depth) else {
            interrupted = true;
            break;
        };
        let reply = engine
            .set_chess960(pos.is_chess960())
            .and_then(|_| engine.divide(&fen, &[], args.depth));
        let reply = match reply {
            Ok(r) => r,
            Err(_) if interrupt.is_set() => {
                interrupted = true;
                break;
            }
            Err(e) => return Err(Error::Engine(e)),
        };
        tried += 1;
        bar.inc();
        let total: u128 = mine.iter().map(|&(_, n)| n).sum();
        nodes += total;
        // Both divides keyed by our move text (castling read either way).
        let chess960 = pos.is_chess960();
        let mine: BTreeMap<String, u128> = mine
            .iter()
            .map(|&(mv, n)| (mv.to_uci(chess960).to_string(), n))
            .collect();
        let mut theirs: BTreeMap<String, u128> = BTreeMap::new();
        let mut unreadable = false;
        for (text, n) in &reply.moves {
            match pos.parse_uci(text) {
                Some(mv) => {
                    let key = mv.to_uci(chess960).to_string();
                    unreadable |= theirs.insert(key, u128::from(*n)).is_some();
                }
                None => unreadable = true,
            }
        }
        if mine == theirs && !unreadable && u128::from(reply.total) == total {
            continue;
        }
        // The first disagreement: bisect it from this position.
        let mut spinning = Spinning {
            engine: engine.as_mut(),
            progress,
        };
        let result = bar.suspend(|| {
            bisect(
                &mut spinning,
                &pos,
                &[],
                args.depth,
                &mut |p, d| if interrupt.is_set() { None } else { ours(p, d) },
                &mut |_| {},
            )
        });
        let bisection = match result {
            Ok(b) => b,
            Err(BisectError::Interrupted) => {
                interrupted = true;
                break;
            }
            Err(BisectError::Engine(_)) if interrupt.is_set() => {
                interrupted = true;
                break;
            }
            Err(BisectError::Engine(e)) => return Err(Error::Engine(e)),
        };
        // Differing move lists show at depth 1; an inconsistency needs the
        // depth at which it was seen.
        let last_depth = match bisection.verdict {
            Verdict::MovesDiffer => 1,
            _ => bisection.levels.last().map_or(args.depth, |l| l.depth),
        };
        let mut reproduce = format!("perft compare {last_depth} {}", shell_quote(&fen));
        if chess960 {
            reproduce.push_str(" --chess960");
        }
        if !bisection.path.is_empty() {
            reproduce.push_str(" --moves ");
            reproduce.push_str(&bisection.path.join(" "));
        }
        reproduce.push_str(&format!(" --engine {}", shell_quote(&args.engine)));
        failure = Some(FuzzFailure {
            index,
            motif: motif.name(),
            root_fen: fen,
            bisection,
            reproduce,
        });
        break;
    }
    drop(bar);
    interrupted |= interrupt.is_set() && failure.is_none();
    let seconds = start.elapsed().as_secs_f64();
    let result = match &failure {
        Some(f) => match f.bisection.verdict {
            Verdict::Inconsistent => "inconsistent",
            _ => "moves_differ",
        },
        None if interrupted => "interrupted",
        None => "agree",
    };
    let report = FuzzReport {
        header: Header::new("fuzz"),
        engine: args.engine.clone(),
        engine_kind: kind,
        depth: args.depth,
        seed: args.seed,
        seed_str: args.seed.to_string(),
        chess960: args.chess960,
        positions_requested: args.positions,
        time_limit: args.time,
        positions_tried: tried,
        nodes,
        nodes_str: nodes.to_string(),
        seconds,
        positions_per_second: if seconds > 0.0 {
            tried as f64 / seconds
        } else {
            0.0
        },
        result,
        failure,
    };
    if args.json {
        write_json(&report)?;
    } else {
        write_out(&format!(
            "engine    {} ({kind}), depth {}, seed {}{}\n",
            args.engine,
            args.depth,
            args.seed,
            if args.chess960 {
                ", Chess960 mixed in"
            } else {
                ""
            }
        ))?;
        write_out(&report.to_text(style))?;
    }
    Ok(match report.result {
        "agree" => EXIT_OK,
        "interrupted" => EXIT_INTERRUPTED,
        _ => EXIT_MISMATCH,
    })
}
