//! Command-line interface: clap definitions, validation into settings, and the
//! command runners. `main` calls [`run`] and turns the result into an exit code.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};

use crate::error::{EXIT_MISMATCH, EXIT_OK, Error};
use crate::fen::{KIWIPETE, STARTPOS};
use crate::hash::HashSync;
use crate::perft::{self, Control, Perft, PerftConfig};
use crate::position::Position;
use crate::report::{self, CountReport, DivideEntry, DivideReport, Header};
use crate::suite::{self, PositionOutcome, SuiteLimits};

pub mod search;

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
#[command(name = "perft", version = version_string(), about, long_about = None)]
pub struct Cli {
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
        after_help = "Examples:\n  perft count 6\n  perft count 5 kiwipete --json\n  perft count 4 'r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1' --moves e1g1"
    )]
    Count(CountArgs),
    /// Per-move counts in Stockfish's `go perft` format.
    #[command(
        after_help = "Examples:\n  perft divide 5\n  perft divide 3 kiwipete --moves e2a6 b4c3\n  perft divide 2 'bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9'"
    )]
    Divide(DivideArgs),
    /// Check every `;Dn count` of EPD suite files.
    #[command(
        after_help = "Examples:\n  perft suite positions/standard.epd\n  perft suite positions/perftsuite.epd --max-depth 5\n  perft suite positions/chess960.epd --max-depth 4 --json"
    )]
    Suite(SuiteArgs),
    /// Alpha-beta search over the transactional TT: UCI info lines and bestmove.
    #[command(
        after_help = "Examples:\n  perft search kiwipete --depth 6\n  perft search '6rk/7p/R2N3P/3r4/1P5K/P7/8/8 w - - 0 1' --depth 3 --no-tt\n  perft search cpw6 --depth 6 --aspiration 1 --on-fail commit --json"
    )]
    Search(search::SearchArgs),
}

/// Position selection shared by commands.
#[derive(Debug, Args)]
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

/// Engine settings shared by counting commands.
#[derive(Debug, Args)]
pub struct EngineArgs {
    /// Worker threads (default: all logical CPUs).
    #[arg(long, short = 't', value_name = "N")]
    pub threads: Option<usize>,
    /// Perft table size, with a unit: 512MiB, 2GiB (a bare number is MiB).
    /// Default: 256MiB for runs of depth 6 or more, none below.
    #[arg(long, value_name = "SIZE", conflicts_with = "no_hash")]
    pub hash: Option<String>,
    /// No perft table: every leaf is counted (raw generator speed).
    #[arg(long)]
    pub no_hash: bool,
    /// How threads share the table: lockless, mutex (one global lock),
    /// striped (1024 locks) or striped:N.
    #[arg(long, value_name = "MODE", default_value_t = perft::DEFAULT_HASH_SYNC)]
    pub hash_sync: HashSync,
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

/// Table size used when no `--hash`/`--no-hash` is given, for deep runs.
pub const AUTO_HASH_BYTES: u128 = 256 << 20;
/// The automatic table is used from this depth on.
pub const AUTO_HASH_MIN_DEPTH: u32 = 6;

impl EngineArgs {
    /// The driver settings for a run whose deepest perft is `max_depth`.
    pub fn config(&self, max_depth: u32) -> Result<PerftConfig, Error> {
        let mut config = PerftConfig::default();
        if let Some(t) = self.threads {
            config.threads = t;
        }
        config.hash_bytes = match (&self.hash, self.no_hash) {
            (_, true) => 0,
            (Some(size), false) => {
                crate::hash::parse_size(size).map_err(|e| Error::Usage(format!("--hash: {e}")))?
            }
            (None, false) if max_depth >= AUTO_HASH_MIN_DEPTH => AUTO_HASH_BYTES,
            (None, false) => 0,
        };
        config.hash_sync = self.hash_sync;
        if self.split_depth == 0 {
            return Err(Error::Usage("--split-depth must be at least 1".into()));
        }
        config.split_depth = self.split_depth;
        config.min_hash_depth = self.min_hash_depth.max(1);
        if let Some(seed) = self.zobrist_seed {
            config.zobrist_seed = seed;
        }
        Ok(config)
    }

    /// Builds the perft driver for a run whose deepest perft is `max_depth`.
    pub fn build(&self, max_depth: u32) -> Result<Perft, Error> {
        Perft::new(self.config(max_depth)?).map_err(|e| Error::Usage(e.to_string()))
    }
}

/// `perft count` arguments.
#[derive(Debug, Args)]
pub struct CountArgs {
    /// Depth in plies.
    pub depth: u32,
    /// Position and moves.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Threads and hash.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `perft divide` arguments.
#[derive(Debug, Args)]
pub struct DivideArgs {
    /// Depth in plies (at least 1).
    pub depth: u32,
    /// Position and moves.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Threads and hash.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

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
    /// Read every file in Chess960 mode (KQkq as X-FEN).
    #[arg(long)]
    pub chess960: bool,
    /// Threads and hash.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Resolves the position words and `--moves` into a position.
pub fn resolve_position(args: &PositionArgs) -> Result<Position, Error> {
    let text = args.position.join(" ");
    let text = text.trim();
    let mut pos = if text.is_empty() && !args.position.is_empty() {
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
    for (i, text) in args.moves.iter().enumerate() {
        let mv = pos.parse_uci(text).ok_or_else(|| Error::IllegalMove {
            index: i + 1,
            text: text.clone(),
            fen: pos.to_fen(),
        })?;
        pos = pos.play_unchecked(mv);
    }
    Ok(pos)
}

fn write_out(text: &str) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn write_json<T: serde::Serialize>(value: &T) -> Result<(), Error> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    write_out(&text)
}

/// Runs a parsed command line; returns the exit code.
pub fn run(cli: Cli) -> Result<u8, Error> {
    match cli.command {
        Command::Count(args) => run_count(args),
        Command::Divide(args) => run_divide(args),
        Command::Suite(args) => run_suite(args),
        Command::Search(args) => search::run_search(args),
    }
}

fn run_count(args: CountArgs) -> Result<u8, Error> {
    let pos = resolve_position(&args.position)?;
    let perft = args.engine.build(args.depth)?;
    let start = Instant::now();
    let outcome = perft.divide(&pos, args.depth, Control::default());
    let nodes = if args.depth == 0 { 1 } else { outcome.nodes };
    let seconds = start.elapsed().as_secs_f64();
    let report = CountReport {
        header: Header::new("count"),
        fen: pos.to_fen(),
        depth: args.depth,
        nodes,
        nodes_str: nodes.to_string(),
        seconds,
        nps: report::nps(nodes, seconds),
        engine: report::EngineInfo::of(&perft),
        table: perft
            .table()
            .map(|_| report::TableStats::from(&outcome.stats)),
    };
    if args.json {
        write_json(&report)?;
    } else {
        write_out(&report.to_text())?;
    }
    Ok(EXIT_OK)
}

fn run_divide(args: DivideArgs) -> Result<u8, Error> {
    if args.depth == 0 {
        return Err(Error::Usage(
            "divide: DEPTH must be at least 1 (perft 0 is 1, with no move to divide by)".into(),
        ));
    }
    let pos = resolve_position(&args.position)?;
    let perft = args.engine.build(args.depth)?;
    let start = Instant::now();
    let chess960 = pos.is_chess960();
    let mut moves: Vec<DivideEntry> = perft
        .divide(&pos, args.depth, Control::default())
        .moves
        .into_iter()
        .map(|(mv, n)| DivideEntry {
            mv: mv.to_uci(chess960).to_string(),
            nodes: n,
            nodes_str: n.to_string(),
        })
        .collect();
    let seconds = start.elapsed().as_secs_f64();
    moves.sort_by(|a, b| a.mv.cmp(&b.mv));
    let nodes: u128 = moves.iter().map(|e| e.nodes).sum();
    let report = DivideReport {
        header: Header::new("divide"),
        fen: pos.to_fen(),
        depth: args.depth,
        moves,
        nodes,
        nodes_str: nodes.to_string(),
        seconds,
    };
    if args.json {
        write_json(&report)?;
    } else {
        write_out(&report.to_text())?;
    }
    Ok(EXIT_OK)
}

/// Result of `perft suite`.
#[derive(Debug, serde::Serialize)]
pub struct SuiteReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// Files run.
    pub files: Vec<String>,
    /// Limits used (`null` = none).
    pub max_depth: Option<u32>,
    /// Node limit used (`null` = none).
    pub max_nodes: Option<u64>,
    /// One entry per position.
    pub positions: Vec<PositionOutcome>,
    /// Totals.
    pub summary: SuiteSummary,
}

/// Totals of a suite run.
#[derive(Debug, Default, serde::Serialize)]
pub struct SuiteSummary {
    /// Positions with at least one count checked.
    pub positions_checked: usize,
    /// Positions where a count differed.
    pub positions_failed: usize,
    /// Depth counts checked.
    pub counts_checked: usize,
    /// Depth counts that differed.
    pub counts_failed: usize,
    /// Depth counts skipped because of the limits.
    pub counts_skipped: usize,
    /// Sum of all computed counts.
    pub nodes: u128,
    /// Exact decimal string of `nodes`.
    pub nodes_str: String,
    /// Wall-clock seconds.
    pub seconds: f64,
}

fn outcome_line(o: &PositionOutcome) -> String {
    let place = format!("{}:{}", o.file, o.line);
    let id =
        o.id.as_deref()
            .map(|i| format!("  [{i}]"))
            .unwrap_or_default();
    let time: f64 = o.checks.iter().map(|c| c.seconds).sum();
    let skipped = if o.skipped.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = o.skipped.iter().map(|d| format!("D{d}")).collect();
        format!("  (skipped {})", list.join(" "))
    };
    match (o.checks.iter().find(|c| !c.pass), o.checks.last()) {
        (Some(bad), _) => format!(
            "FAIL  {place}  D{}  expected {}  got {}  {time:.2} s{id}\n      {}\n",
            bad.depth,
            report::thousands(bad.expected.into()),
            report::thousands(bad.got.into()),
            o.fen
        ),
        (None, Some(last)) => format!(
            "ok    {place}  D{}  {}  {time:.2} s{id}{skipped}\n",
            if o.checks.len() > 1 {
                format!("{}-{}", o.checks[0].depth, last.depth)
            } else {
                last.depth.to_string()
            },
            report::thousands(last.got.into())
        ),
        (None, None) => format!("skip  {place}  nothing within the limits{id}{skipped}\n"),
    }
}

fn run_suite(args: SuiteArgs) -> Result<u8, Error> {
    let limits = SuiteLimits {
        max_depth: args.max_depth,
        max_nodes: (args.max_nodes > 0).then_some(args.max_nodes),
    };
    // Load everything first: a malformed line is an input error (exit 2)
    // before any time is spent.
    let mut suites = Vec::new();
    for path in &args.files {
        suites.push((
            path.display().to_string(),
            suite::load_suite(path, args.chess960)?,
        ));
    }
    let deepest = suites
        .iter()
        .flat_map(|(_, records)| records.iter().flat_map(|r| r.depths.iter()))
        .filter(|&&(d, n)| {
            limits.max_depth.is_none_or(|m| d <= m) && limits.max_nodes.is_none_or(|m| n <= m)
        })
        .map(|&(d, _)| d)
        .max()
        .unwrap_or(0);
    let perft = args.engine.build(deepest)?;
    let start = Instant::now();
    let mut positions = Vec::new();
    let mut summary = SuiteSummary::default();
    for (file, records) in &suites {
        for record in records {
            let outcome = suite::check_record(file, record, &limits, |p, d| {
                // Suite counts are u64, so a count that does not fit cannot match.
                u64::try_from(perft.count(p, d)).unwrap_or(u64::MAX)
            });
            if !args.json {
                write_out(&outcome_line(&outcome))?;
            }
            summary.positions_checked += usize::from(!outcome.checks.is_empty());
            summary.positions_failed += usize::from(!outcome.passed());
            summary.counts_checked += outcome.checks.len();
            summary.counts_failed += outcome.checks.iter().filter(|c| !c.pass).count();
            summary.counts_skipped += outcome.skipped.len();
            summary.nodes += outcome
                .checks
                .iter()
                .map(|c| u128::from(c.got))
                .sum::<u128>();
            positions.push(outcome);
        }
    }
    summary.seconds = start.elapsed().as_secs_f64();
    summary.nodes_str = summary.nodes.to_string();
    let code = if summary.counts_failed > 0 {
        EXIT_MISMATCH
    } else {
        EXIT_OK
    };
    if args.json {
        write_json(&SuiteReport {
            header: Header::new("suite"),
            files: suites.iter().map(|(f, _)| f.clone()).collect(),
            max_depth: limits.max_depth,
            max_nodes: limits.max_nodes,
            positions,
            summary,
        })?;
    } else {
        let s = &summary;
        write_out(&format!(
            "\n{} positions checked, {} failed; {} counts checked, {} failed, {} skipped (limits: {}); {} nodes in {:.2} s\n{}\n",
            s.positions_checked,
            s.positions_failed,
            s.counts_checked,
            s.counts_failed,
            s.counts_skipped,
            describe_limits(&limits),
            report::thousands(s.nodes),
            s.seconds,
            if code == EXIT_OK { "PASS" } else { "FAIL" }
        ))?;
    }
    Ok(code)
}

fn describe_limits(limits: &SuiteLimits) -> String {
    let depth = limits
        .max_depth
        .map_or("no depth limit".to_string(), |d| format!("--max-depth {d}"));
    let nodes = limits.max_nodes.map_or("no node limit".to_string(), |n| {
        format!("--max-nodes {}", report::thousands(n.into()))
    });
    format!("{depth}, {nodes}")
}
