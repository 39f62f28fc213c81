//! Command-line interface: clap definitions (raw arguments), their validation
//! into settings, and one module per command. `main` calls [`run`] and turns
//! the result into an exit code.

pub mod bench;
pub mod compare;
pub mod count;
pub mod output;
pub mod perftree;
pub mod progress;
pub mod search;
pub mod suite;
pub mod uci;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::error::{EXIT_OK, Error};
use crate::fen::{KIWIPETE, STARTPOS};
use crate::hash::HashSync;
use crate::moves::Move;
use crate::perft::{self, Perft, PerftConfig};
use crate::position::Position;
use crate::report;

/// Names accepted in place of a FEN.
pub const POSITION_NAMES: [&str; 6] = ["startpos", "kiwipete", "cpw3", "cpw4", "cpw5", "cpw6"];

/// The FEN of a named position (Chess Programming Wiki "Perft Results" 1-6).
pub fn named_position(name: &str) -> Option<&'static str> {
    Some(match name {
        "startpos" | "start" => STARTPOS,
        "kiwipete" | "cpw2" => KIWIPETE,
        "cpw3" => "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "cpw4" => "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "cpw5" => "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "cpw6" => "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        _ => return None,
    })
}

/// perft: chess move-generator validation and benchmarking.
#[derive(Debug, Parser)]
#[command(
    name = "perft",
    version = version_string(),
    about,
    long_about = None,
    after_help = "Examples:\n  perft divide 5 kiwipete\n  perft compare 5 kiwipete --engine stockfish\n  perft suite positions/standard.epd --max-depth 5\n  perft bench --threads 1,2\n\nExit codes: 0 ok, 1 a count or engine differs, 2 usage or input error, 130 interrupted (Ctrl-C)."
)]
pub struct Cli {
    /// No progress bar and no warnings on stderr (errors still print).
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

fn version_string() -> &'static str {
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    VERSION.get_or_init(|| report::BuildInfo::current().summary())
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count the leaves of the legal move tree to DEPTH.
    #[command(
        after_help = "Examples:\n  perft count 6\n  perft count 5 kiwipete --json\n  perft count 4 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1' --moves e1g1\n  perft count 7 --threads 2"
    )]
    Count(count::CountArgs),
    /// Per-move counts in Stockfish's `go perft` format.
    #[command(
        after_help = "Examples:\n  perft divide 5\n  perft divide 3 kiwipete --moves e2a6 b4c3\n  perft divide 2 'bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9'"
    )]
    Divide(count::DivideArgs),
    /// Check every `;Dn count` of EPD suite files.
    #[command(
        after_help = "Examples:\n  perft suite positions/standard.epd\n  perft suite positions/perftsuite.epd --max-depth 5 --fail-fast\n  perft suite positions/tricky.epd --filter 'ep' --timeout 10\n  perft suite positions/chess960.epd --max-depth 4 --json"
    )]
    Suite(suite::SuiteArgs),
    /// Alpha-beta search over the transactional TT: UCI info lines and bestmove.
    #[command(
        after_help = "Examples:\n  perft search kiwipete --depth 6\n  perft search '6rk/7p/R2N3P/3r4/1P5K/P7/8/8 w - - 0 1' --depth 3 --no-tt\n  perft search cpw6 --depth 6 --aspiration 1 --on-fail commit --json"
    )]
    Search(search::SearchArgs),
    /// Find the first position where an engine's move generator differs from ours.
    #[command(
        long_about = "Bisects an engine against this generator: divides the position on both \
sides, descends into the first move whose count differs (replaying the move path from the \
root, never jumping to a child FEN), and stops where the move lists themselves differ. Prints \
the path, that position's FEN, and the moves the engine is missing or has extra.\n\n\
Exit code 0: the engine agrees; 1: a difference was found; 2: error (engine not found, \
crashed, timed out, or bad input).",
        after_help = "Examples:\n  perft compare 5 kiwipete --engine stockfish\n  perft compare 4 --moves e2e4 --engine './my_engine --uci'\n  perft compare 3 cpw4 --engine ./perftree_script.sh --engine-kind perftree --json"
    )]
    Compare(compare::CompareArgs),
    /// Speak the perftree script protocol (for perftree-cli).
    #[command(
        long_about = "Speaks the protocol of the perftree tool (perftree-cli): called as \
`perft perftree DEPTH FEN [MOVES]` with MOVES space-separated in one argument, it prints \
`<move> <count>` lines, one empty line and the total, and nothing else on stdout.",
        after_help = "Examples:\n  perft perftree 3 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' 'e2e4 e7e5'\n\nWrapper script for perftree-cli (save as perft-perftree.sh, chmod +x):\n  #!/bin/sh\n  exec perft perftree \"$@\""
    )]
    Perftree(perftree::PerftreeArgs),
    /// Run as a UCI engine on stdin/stdout (`go perft N` in Stockfish's format; `go depth N` searches).
    #[command(
        after_help = "Examples:\n  printf 'position startpos moves e2e4\\ngo perft 4\\nquit\\n' | perft uci\n  perft compare 4 --engine 'perft uci'"
    )]
    Uci(uci::UciArgs),
    /// Time a fixed set of positions (positions/bench.epd); print Mnps and a node-count signature.
    #[command(
        after_help = "Examples:\n  perft bench\n  perft bench --threads 1,2,4 --json > scaling.json\n  python3 scripts/plot_scaling.py scaling.json scaling.svg\n  perft bench --max-depth 4"
    )]
    Bench(bench::BenchArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  perft completions bash > ~/.local/share/bash-completion/completions/perft\n  perft completions zsh > ~/.zfunc/_perft\n  perft completions fish > ~/.config/fish/completions/perft.fish"
    )]
    Completions(CompletionsArgs),
}

/// `perft completions` arguments.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Shells with completion scripts.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Shell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// PowerShell.
    Powershell,
    /// Elvish.
    Elvish,
}

/// Position selection shared by commands.
#[derive(Debug, Args, Default)]
pub struct PositionArgs {
    /// A FEN (quote it, or give its fields as separate words), or a name:
    /// startpos, kiwipete, cpw3, cpw4, cpw5, cpw6. Default: startpos.
    #[arg(value_name = "POSITION")]
    pub position: Vec<String>,
    /// Moves (UCI) to play from the position first.
    #[arg(long, num_args = 1.., value_name = "MOVE")]
    pub moves: Vec<String>,
    /// Chess960 mode: KQkq as X-FEN, castling written king-takes-rook.
    /// (Shredder-FEN castling letters switch it on by themselves.)
    #[arg(long)]
    pub chess960: bool,
}

/// Engine settings shared by counting commands. Build drivers through
/// [`EngineArgs::build`] (or [`EngineArgs::configs`] for a grid) so every
/// engine flag reaches every command.
#[derive(Debug, Args, Default, Clone)]
pub struct EngineArgs {
    /// Worker threads, 1 to 1024 (default: all logical CPUs). `perft bench` takes a
    /// comma-separated list (`1,2,4`) and prints a scaling table.
    #[arg(long, short = 't', value_name = "N", value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Perft table size with a unit: 512MiB, 2GiB (a bare number is MiB;
    /// `none` or 0 = no table). Default: 256MiB for runs of depth 6 or more,
    /// none below. `perft bench` takes a list (`none,512MiB`).
    #[arg(
        long,
        value_name = "SIZE",
        value_delimiter = ',',
        conflicts_with = "no_hash"
    )]
    pub hash: Vec<String>,
    /// No perft table: every leaf is counted (raw generator speed).
    #[arg(long)]
    pub no_hash: bool,
    /// How threads share the table: lockless (default), mutex (one global
    /// lock), striped (1024 locks) or striped:N. `perft bench` takes a list.
    #[arg(long, value_name = "MODE", value_delimiter = ',')]
    pub hash_sync: Vec<HashSync>,
    /// Subtrees with at least this many plies left are split across threads.
    #[arg(long, value_name = "N", default_value_t = perft::DEFAULT_SPLIT_DEPTH, hide_short_help = true)]
    pub split_depth: u32,
    /// Subtrees with fewer plies left are not hashed.
    #[arg(long, value_name = "N", default_value_t = perft::DEFAULT_MIN_HASH_DEPTH, hide_short_help = true)]
    pub min_hash_depth: u32,
    /// Seed of the Zobrist keys used by the perft table (a second run with
    /// another seed rules out a key collision).
    #[arg(long, value_name = "N", hide_short_help = true)]
    pub zobrist_seed: Option<u64>,
}

/// Table size used when neither `--hash` nor `--no-hash` is given, for deep runs.
pub const AUTO_HASH_BYTES: u128 = 256 << 20;
/// The automatic table is used from this depth on.
pub const AUTO_HASH_MIN_DEPTH: u32 = 6;

impl EngineArgs {
    /// One driver configuration per combination of the listed values, in
    /// order (threads outermost, then table sizes, then sync modes). Without
    /// `--hash`/`--no-hash` a run whose deepest perft is `max_depth` plies
    /// gets [`AUTO_HASH_BYTES`] from depth [`AUTO_HASH_MIN_DEPTH`] on.
    pub fn configs(&self, max_depth: u32) -> Result<Vec<PerftConfig>, Error> {
        let mut base = PerftConfig::default();
        if self.split_depth == 0 {
            return Err(Error::Usage("--split-depth must be at least 1".into()));
        }
        base.split_depth = self.split_depth;
        base.min_hash_depth = self.min_hash_depth.max(1);
        if let Some(seed) = self.zobrist_seed {
            base.zobrist_seed = seed;
        }
        let threads = if self.threads.is_empty() {
            vec![base.threads]
        } else {
            self.threads.clone()
        };
        if threads.contains(&0) {
            return Err(Error::Usage("--threads must be at least 1".into()));
        }
        // Checked here too, not only by the driver, so a `perft bench` list
        // is rejected before its first run.
        if let Some(&t) = threads.iter().find(|&&t| t > perft::MAX_THREADS) {
            return Err(Error::Usage(
                perft::PerftError::TooManyThreads(t).to_string(),
            ));
        }
        let sizes: Vec<u128> = if self.no_hash {
            vec![0]
        } else if self.hash.is_empty() {
            vec![if max_depth >= AUTO_HASH_MIN_DEPTH {
                AUTO_HASH_BYTES
            } else {
                0
            }]
        } else {
            self.hash
                .iter()
                .map(|h| match h.trim() {
                    "none" | "off" => Ok(0),
                    size => crate::hash::parse_size(size)
                        .map_err(|e| Error::Usage(format!("--hash: {e}"))),
                })
                .collect::<Result<_, _>>()?
        };
        let syncs = if self.hash_sync.is_empty() {
            vec![perft::DEFAULT_HASH_SYNC]
        } else {
            self.hash_sync.clone()
        };
        let mut configs = Vec::new();
        for &t in &threads {
            for &bytes in &sizes {
                // Sync modes only matter with a table.
                let modes = if bytes == 0 { &syncs[..1] } else { &syncs[..] };
                for &sync in modes {
                    configs.push(PerftConfig {
                        threads: t,
                        hash_bytes: bytes,
                        hash_sync: sync,
                        ..base.clone()
                    });
                }
            }
        }
        Ok(configs)
    }

    /// The single configuration these flags describe (a list is an error
    /// outside `perft bench`).
    pub fn config(&self, max_depth: u32) -> Result<PerftConfig, Error> {
        let mut configs = self.configs(max_depth)?;
        let lists = [
            ("--threads", self.threads.len()),
            ("--hash", self.hash.len()),
            ("--hash-sync", self.hash_sync.len()),
        ];
        if let Some((flag, _)) = lists.iter().find(|(_, n)| *n > 1) {
            return Err(Error::Usage(format!(
                "{flag} takes one value here, not a list; lists are for perft bench"
            )));
        }
        Ok(configs.remove(0))
    }

    /// Builds the perft driver for a run whose deepest perft is `max_depth`.
    pub fn build(&self, max_depth: u32) -> Result<Perft, Error> {
        build_perft(self.config(max_depth)?)
    }
}

/// Starts a driver for `config`.
pub fn build_perft(config: PerftConfig) -> Result<Perft, Error> {
    Perft::new(config).map_err(|e| Error::Usage(e.to_string()))
}

/// How the perft table is set in `config`, for reports: `none` or
/// `<size> <sync>`.
pub fn hash_setting(config: &PerftConfig) -> Option<String> {
    Some(if config.hash_bytes == 0 {
        "none".to_string()
    } else {
        format!(
            "{} {}",
            crate::hash::human_bytes(config.hash_bytes),
            config.hash_sync
        )
    })
}

/// Resolves the position words into the root position and the `--moves`
/// (checked legal, in order), without playing them.
pub fn resolve_root(args: &PositionArgs) -> Result<(Position, Vec<Move>), Error> {
    let text = args.position.join(" ");
    let text = text.trim();
    let root = if text.is_empty() && !args.position.is_empty() {
        return Err(crate::fen::InvalidFen::Syntax(crate::fen::FenError::Empty).into());
    } else if text.is_empty() {
        Position::from_fen_with(STARTPOS, args.chess960, crate::Zobrist::DEFAULT)?
    } else if let Some(fen) = named_position(text) {
        Position::from_fen_with(fen, args.chess960, crate::Zobrist::DEFAULT)?
    } else if args.position.len() == 1 && !text.contains('/') {
        return Err(Error::UnknownPosition(text.to_string()));
    } else {
        Position::from_fen_with(text, args.chess960, crate::Zobrist::DEFAULT)?
    };
    let mut pos = root;
    let mut moves = Vec::with_capacity(args.moves.len());
    for (i, text) in args.moves.iter().enumerate() {
        let mv = pos.parse_uci(text).ok_or_else(|| Error::IllegalMove {
            index: i + 1,
            text: text.clone(),
            fen: pos.to_fen(),
        })?;
        pos = pos.play_unchecked(mv);
        moves.push(mv);
    }
    Ok((root, moves))
}

/// Resolves the position words and `--moves` into a position.
pub fn resolve_position(args: &PositionArgs) -> Result<Position, Error> {
    let (root, moves) = resolve_root(args)?;
    Ok(moves.iter().fold(root, |p, &mv| p.play_unchecked(mv)))
}

/// Quotes `text` for a POSIX shell when it needs it.
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+".contains(&b));
    if safe {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Runs a parsed command line; returns the exit code.
pub fn run(cli: Cli) -> Result<u8, Error> {
    let quiet = cli.quiet;
    match cli.command {
        Command::Count(args) => count::run_count(args, quiet),
        Command::Divide(args) => count::run_divide(args, quiet),
        Command::Suite(args) => suite::run_suite(args, quiet),
        Command::Compare(args) => compare::run_compare(args, quiet),
        Command::Perftree(args) => perftree::run_perftree(args),
        Command::Uci(args) => uci::run_uci(args),
        Command::Bench(args) => bench::run_bench(args, quiet),
        Command::Search(args) => search::run_search(args),
        Command::Completions(args) => run_completions(args),
    }
}

fn run_completions(args: CompletionsArgs) -> Result<u8, Error> {
    use clap_complete::Shell as S;
    let shell = match args.shell {
        Shell::Bash => S::Bash,
        Shell::Zsh => S::Zsh,
        Shell::Fish => S::Fish,
        Shell::Powershell => S::PowerShell,
        Shell::Elvish => S::Elvish,
    };
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "perft", &mut buf);
    output::write_out(&String::from_utf8_lossy(&buf))?;
    Ok(EXIT_OK)
}
