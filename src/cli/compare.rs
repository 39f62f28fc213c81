//! `perft compare`: bisect an external engine against this generator.

use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};

use super::config::parse_seconds;
use super::config::{EngineArgs, PositionArgs, resolve_root, shell_quote};
use super::count::divide_with_progress;
use super::output::{Style, write_json, write_out};
use super::progress::{Interrupt, ProgressFactory};
use crate::error::{EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_OK, Error};
use crate::report::{CompareReport, Header};
use crate::validate::bisect::{BisectError, Bisection, Level, Verdict, bisect};
use crate::validate::engine::{
    DivideEngine, EngineError, PerftreeEngine, UciEngine, find_stockfish, split_command,
};

/// How to talk to the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineKind {
    /// A UCI engine: `position fen ... moves ...`, `go perft N`, reading
    /// `move: count` lines and `Nodes searched: N`.
    Uci,
    /// A perftree script: run as `COMMAND DEPTH FEN [MOVES]` per divide.
    Perftree,
}

impl EngineKind {
    /// The flag value, as reports name it.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Uci => "uci",
            EngineKind::Perftree => "perftree",
        }
    }
}

/// How to talk to an external engine: the flags `compare`, `fuzz` and
/// `suite --engine` share. Each needs `--engine` (id `engine_cmd`).
#[derive(Debug, Args, Clone)]
pub struct EngineProtocolArgs {
    /// How to talk to the engine.
    #[arg(long, value_enum, default_value_t = EngineKind::Uci, requires = "engine_cmd")]
    pub engine_kind: EngineKind,
    /// UCI option to set first, as NAME=VALUE (repeatable), e.g.
    /// `--engine-option Threads=1`.
    #[arg(long, value_name = "NAME=VALUE", requires = "engine_cmd")]
    pub engine_option: Vec<String>,
    /// Give up on the engine when one answer takes longer than SECONDS.
    #[arg(long, value_name = "SECONDS", default_value = "600", value_parser = parse_seconds)]
    pub engine_timeout: f64,
}

/// `perft compare` arguments.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Depth in plies (at least 1).
    #[arg(value_parser = clap::value_parser!(u32).range(0..=crate::perft::MAX_PERFT_DEPTH as i64))]
    pub depth: u32,
    /// Position and moves (the moves are replayed to the engine, never
    /// replaced by a FEN).
    #[command(flatten)]
    pub position: PositionArgs,
    /// The engine command line (quotes honoured), e.g. `stockfish` or
    /// `'./my engine' --uci`.
    #[arg(long, short = 'e', id = "engine_cmd", value_name = "COMMAND")]
    pub engine: String,
    /// Engine protocol, options and timeout.
    #[command(flatten)]
    pub protocol: EngineProtocolArgs,
    /// Threads and hash (our side).
    #[command(flatten)]
    pub threads: EngineArgs,
    /// Print one JSON object on stdout (and nothing else).
    #[arg(long)]
    pub json: bool,
}

/// An engine that shows a spinner on stderr (after a second, on a terminal)
/// while it is being waited for.
pub struct Spinning<'a> {
    /// The engine.
    pub engine: &'a mut dyn DivideEngine,
    /// Where spinners come from.
    pub progress: ProgressFactory,
}

impl DivideEngine for Spinning<'_> {
    fn divide(
        &mut self,
        fen: &str,
        moves: &[String],
        depth: u32,
    ) -> Result<crate::validate::engine::EngineDivide, EngineError> {
        let _spinner = self
            .progress
            .spinner(&format!("engine: perft {depth}, waiting for its divide"));
        self.engine.divide(fen, moves, depth)
    }

    fn set_chess960(&mut self, chess960: bool) -> Result<(), EngineError> {
        self.engine.set_chess960(chess960)
    }

    fn describe(&self) -> String {
        self.engine.describe()
    }
}

/// The UCI handshake (`uci`/`uciok`, `isready`/`readyok`) gets this long at
/// most, so a program that is not a UCI engine fails fast.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

fn engine_error(e: EngineError) -> Error {
    Error::Engine(e)
}

/// The engine command to run: a bare `stockfish` that is not on `PATH` is
/// looked up where `find_stockfish` looks (`$STOCKFISH`, Debian's
/// `/usr/games`), since that is where the packaged binary lives.
fn resolve_command(command: &str) -> String {
    let words = split_command(command);
    match words.split_first() {
        Some((program, rest)) if program == "stockfish" => match find_stockfish() {
            Some(path) => std::iter::once(path)
                .chain(rest.iter().cloned())
                .map(|w| shell_quote(&w))
                .collect::<Vec<_>>()
                .join(" "),
            None => command.to_string(),
        },
        _ => command.to_string(),
    }
}

/// Starts the engine `command` of `kind` with its `--engine-option`s and
/// `--engine-timeout` (shared by `compare`, `suite --engine` and `fuzz`).
pub fn start_engine_with(
    command: &str,
    protocol: &EngineProtocolArgs,
) -> Result<Box<dyn DivideEngine>, Error> {
    let kind = protocol.engine_kind;
    let engine_options = &protocol.engine_option;
    let timeout = Duration::from_secs_f64(protocol.engine_timeout);
    let command = resolve_command(command);
    match kind {
        EngineKind::Uci => {
            let mut engine =
                UciEngine::start(&command, HANDSHAKE_TIMEOUT.min(timeout)).map_err(engine_error)?;
            for option in engine_options {
                let (name, value) = option.split_once('=').ok_or_else(|| {
                    Error::Usage(format!("--engine-option '{option}': expected NAME=VALUE"))
                })?;
                let name = name.trim();
                // An option the engine does not offer would be ignored by it
                // without a word; say so instead.
                if !engine
                    .options()
                    .iter()
                    .any(|o| o.eq_ignore_ascii_case(name))
                {
                    return Err(Error::Usage(format!(
                        "--engine-option '{option}': the engine offers no option '{name}' (it offers: {})",
                        engine.options().join(", ")
                    )));
                }
                engine
                    .set_option(name, value.trim())
                    .map_err(engine_error)?;
            }
            engine.set_timeout(timeout);
            Ok(Box::new(engine))
        }
        EngineKind::Perftree => {
            if let Some(option) = engine_options.first() {
                return Err(Error::Usage(format!(
                    "--engine-option '{option}': perftree scripts take no options"
                )));
            }
            Ok(Box::new(
                PerftreeEngine::new(&command, timeout).map_err(engine_error)?,
            ))
        }
    }
}

/// Runs `perft compare`.
pub fn run_compare(args: CompareArgs, quiet: bool) -> Result<u8, Error> {
    if args.depth == 0 {
        return Err(Error::Usage(
            "compare: DEPTH must be at least 1 (there is nothing to compare at depth 0)".into(),
        ));
    }
    let (root, pre_moves) = resolve_root(&args.position)?;
    let perft = args.threads.build(args.depth)?;
    let chess960 = root.is_chess960();
    let moves_text: Vec<String> = pre_moves
        .iter()
        .scan(root, |pos, &mv| {
            let text = mv.to_uci(pos.is_chess960()).to_string();
            *pos = pos.play_unchecked(mv);
            Some(text)
        })
        .collect();
    let mut engine = start_engine_with(&args.engine, &args.protocol)?;
    let interrupt = Interrupt::install();
    let progress = ProgressFactory::new(args.json, quiet);
    let style = Style::stdout();
    let kind = args.protocol.engine_kind.name();
    if !args.json {
        write_out(&format!("engine    {} ({kind})\n", args.engine))?;
    }
    let start = Instant::now();
    let mut levels: Vec<Level> = Vec::new();
    let mut write_error = None;
    let mut spinning = Spinning {
        engine: engine.as_mut(),
        progress,
    };
    let result = bisect(
        &mut spinning,
        &root,
        &pre_moves,
        args.depth,
        &mut |pos, depth| {
            if interrupt.is_set() {
                return None;
            }
            let o = divide_with_progress(
                &perft,
                pos,
                depth,
                interrupt.flag(),
                &progress,
                &format!("ours: perft {depth}"),
            );
            o.complete.then_some(o.moves)
        },
        &mut |level| {
            levels.push(level.clone());
            if !args.json && write_error.is_none() {
                write_error = write_out(&CompareReport::level_text(level)).err();
            }
        },
    );
    if let Some(e) = write_error {
        return Err(e);
    }
    let bisection = match result {
        Ok(b) => Some(b),
        Err(BisectError::Interrupted) => None,
        // An engine killed by the same Ctrl-C is an interruption, not a crash.
        Err(BisectError::Engine(_)) if interrupt.is_set() => None,
        Err(BisectError::Engine(e)) => return Err(engine_error(e)),
    };
    let reproduce = |b: &Bisection| {
        let mut all = moves_text.clone();
        all.extend(b.path.iter().cloned());
        let mut cmd = format!("perft divide 1 {}", shell_quote(&root.to_fen()));
        if chess960 {
            cmd.push_str(" --chess960");
        }
        if !all.is_empty() {
            cmd.push_str(" --moves ");
            cmd.push_str(&all.join(" "));
        }
        cmd
    };
    let (result_name, path, fen, missing, extra, note, repro) = match &bisection {
        Some(b) => (
            match b.verdict {
                Verdict::Agree => "agree",
                Verdict::MovesDiffer => "moves_differ",
                Verdict::Inconsistent => "inconsistent",
            },
            b.path.clone(),
            b.fen.clone(),
            b.missing.clone(),
            b.extra.clone(),
            b.note.clone(),
            (b.verdict != Verdict::Agree).then(|| reproduce(b)),
        ),
        None => (
            "interrupted",
            levels.last().map(|l| l.path.clone()).unwrap_or_default(),
            levels.last().map(|l| l.fen.clone()).unwrap_or_default(),
            vec![],
            vec![],
            None,
            None,
        ),
    };
    let report = CompareReport {
        header: Header::new("compare"),
        engine: args.engine.clone(),
        engine_kind: kind,
        root_fen: root.to_fen(),
        moves: moves_text.clone(),
        depth: args.depth,
        threads: perft.config().threads,
        result: result_name,
        path,
        fen,
        missing,
        extra,
        note,
        levels,
        reproduce: repro,
        seconds: start.elapsed().as_secs_f64(),
    };
    if args.json {
        write_json(&report)?;
    } else {
        write_out(&report.verdict_text(style))?;
    }
    Ok(match report.result {
        "agree" => EXIT_OK,
        "interrupted" => EXIT_INTERRUPTED,
        _ => EXIT_MISMATCH,
    })
}
