//! Command-line interface, the top layer: it may use every layer below
//! (`chess`, `perft`, `search`, `validate`, `report`) and nothing uses it
//! but `main.rs`.
//!
//! This file holds only the clap definitions of the command line and the
//! dispatch to one module per command. Shared flags and their validation
//! into library settings live in [`config`]; output helpers in [`output`],
//! the progress bar and Ctrl-C handling in [`progress`]. `main` calls
//! [`run`] and turns the result into an exit code.

pub mod bench;
pub mod compare;
pub mod config;
pub mod count;
pub mod fuzz;
pub mod merge;
pub mod output;
pub mod perftree;
pub mod progress;
pub mod run_job;
pub mod run_unit;
pub mod search;
pub mod split;
pub mod suite;
pub mod uci;
pub mod versus;

pub use config::check_cpu_env;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::error::{EXIT_OK, Error};
use crate::report;

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
    /// Differential testing: random positions biased to hard cases, divided by an engine and by us.
    #[command(
        long_about = "Generates seeded random positions biased towards the cases move generators \
get wrong (en passant with horizontal pins, castling rights and attacked paths, promotions and \
under-promotions, pins, double checks, Chess960 castling), divides each at --depth with the \
engine and with this generator, and bisects the first disagreement down to a minimal \
reproduction (FEN, moves, a perft compare command). Reports positions per second.\n\n\
Exit code 0: no difference within the budget; 1: a difference; 2: error.",
        after_help = "Examples:\n  perft fuzz --engine './my_engine' --positions 2000 --depth 3 --seed 1\n  perft fuzz --engine stockfish --chess960 --time 60\n  perft fuzz --engine ./perftree_script.sh --engine-kind perftree --json"
    )]
    Fuzz(fuzz::FuzzArgs),
    /// Speak the perftree script protocol (for perftree-cli).
    #[command(
        long_about = "Speaks the protocol of the perftree tool (perftree-cli): called as \
`perft perftree DEPTH FEN [MOVES]` with MOVES space-separated in one argument, it prints \
`<move> <count>` lines, one empty line and the total, and nothing else on stdout.",
        after_help = "Examples:\n  perft perftree 3 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1' 'e2e4 e7e5'\n\nWrapper script for perftree-cli (scripts/perftree.sh in the repository; run `perftree scripts/perftree.sh`):\n  #!/bin/sh\n  exec perft perftree \"$@\""
    )]
    Perftree(perftree::PerftreeArgs),
    /// Run as a UCI engine on stdin/stdout (`go perft N` in Stockfish's format; `go depth N` searches).
    #[command(
        after_help = "Examples:\n  printf 'position startpos moves e2e4\\ngo perft 4\\nquit\\n' | perft uci\n  perft compare 4 --engine 'perft uci'"
    )]
    Uci(uci::UciArgs),
    /// Time a fixed set of positions (positions/bench.epd; bench-deep.epd for more than 2 threads); print Mnps, a scaling table and a node-count signature.
    #[command(
        after_help = "Examples:\n  perft bench\n  perft bench --threads 1,2,4,8,16 --ceiling --json > scaling.json\n  python3 scripts/plot_scaling.py scaling.json scaling.svg\n  perft bench --threads 1,16 --hash none,1GiB --hash-sync lockless,striped,mutex\n  perft bench --max-depth 4"
    )]
    Bench(bench::BenchArgs),
    /// Time this binary against other perft programs (qperft, Stockfish, Gigantua, ...): ratios, JSON, SVG.
    #[command(
        long_about = "Runs our own `perft count` and each peer as whole processes on the same \
positions, interleaved in rounds with a rotating order, and compares CPU times: per position \
the median, min and max of each program, the speed ratio (median of the per-round ratios, \
with its range) and the geometric mean over positions. Every peer's count must equal ours. \
Like for like by default: one thread, no perft table. See docs/versus.md.\n\n\
Exit code 0: all counts agree; 1: a peer's count differs (peer, position and both counts \
named); 2: a peer crashed, hung (--peer-timeout) or printed garbage (named; the others' \
results are kept), or bad input; 130: interrupted (partial results printed).",
        after_help = "Examples:\n  perft versus stockfish\n  perft versus qperft=/opt/qperft stockfish gigantua=/opt/gigantua --positions start:6,kiwipete:5\n  perft versus hqperft --positions cpw4:5 --rounds 5 --json > versus.json\n  perft versus stockfish --plot versus.svg\n  perft versus --peer 'mine=./my_perft {depth} \"{fen}\"' --file positions/bench.epd --depth 4"
    )]
    Versus(versus::VersusArgs),
    /// Split a deep perft into work units: the unique positions at a ply, sharded into files.
    #[command(
        long_about = "Enumerates the unique positions SPLIT_PLY plies below the position \
(en passant only when capturable, clocks ignored), each with its multiplicity and root \
moves, shards them by estimated work into DIR/unit-00000.jsonl ... and writes \
DIR/manifest.json. Count the units with `perft run DIR` (one machine) or `perft run-unit \
DIR --index N` (GNU parallel, Slurm, Kubernetes), then sum them with `perft merge DIR`. \
See docs/deep-perft.md.",
        after_help = "Examples:\n  perft split 7 --split-ply 3 --units 16 --out w\n  perft split 10 --split-ply 3 --units 64 --out p10\n  perft split 6 kiwipete --split-ply 2 --units 8 --out kiwi6"
    )]
    Split(split::SplitArgs),
    /// Count one unit of a split job (resumable: rerun after a crash or Ctrl-C).
    #[command(
        after_help = "Examples:\n  perft run-unit w --index 0 --threads 1 --hash 256MiB\n  seq 0 15 | parallel perft run-unit w --index {} --threads 1\n  ls w/unit-*[0-9].jsonl | parallel perft run-unit w --index {#} --index-base 1\n  perft run-unit w --index-from-env    # Slurm array job or Kubernetes Indexed Job\n\nExit codes: 0 unit complete, 130 interrupted (rerun to resume), 2 bad input."
    )]
    RunUnit(run_unit::RunUnitArgs),
    /// Count every incomplete unit of a split job on this machine, with one progress bar.
    #[command(
        after_help = "Examples:\n  perft run w\n  perft run p10 --hash 8GiB --threads 2\n\nCtrl-C stops after the record being counted is dropped; rerun to resume.\nExit codes: 0 all units complete, 130 interrupted, 2 bad input."
    )]
    Run(run_job::RunArgs),
    /// Sum a split job's results: total and divide; --verify compares two runs.
    #[command(
        after_help = "Examples:\n  perft merge w\n  perft merge w --verify w2\n  perft merge w --json\n\nExit codes: 0 ok, 1 units missing/partial/corrupt or --verify found a difference, 2 bad input."
    )]
    Merge(merge::MergeArgs),
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

/// Runs a parsed command line; returns the exit code.
pub fn run(cli: Cli) -> Result<u8, Error> {
    let quiet = cli.quiet;
    match cli.command {
        Command::Count(args) => count::run_count(args, quiet),
        Command::Divide(args) => count::run_divide(args, quiet),
        Command::Suite(args) => suite::run_suite(args, quiet),
        Command::Compare(args) => compare::run_compare(args, quiet),
        Command::Fuzz(args) => fuzz::run_fuzz(args, quiet),
        Command::Perftree(args) => perftree::run_perftree(args),
        Command::Uci(args) => uci::run_uci(args),
        Command::Bench(args) => bench::run_bench(args, quiet),
        Command::Versus(args) => versus::run_versus_command(args, quiet),
        Command::Search(args) => search::run_search(args),
        Command::Split(args) => split::run_split(args, quiet),
        Command::RunUnit(args) => run_unit::run_run_unit(args, quiet),
        Command::Run(args) => run_job::run_run(args, quiet),
        Command::Merge(args) => merge::run_merge(args, quiet),
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
