//! `perft search`: the alpha-beta search mode over the transactional TT.
//!
//! A thin layer over [`crate::search::search`]: validate the flags, build the
//! TT, print one UCI `info` line per completed iteration, a TT line and
//! `bestmove` (or one JSON object with `--json`).

use std::str::FromStr;
use std::time::Duration;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::config::{PositionArgs, resolve_root};
use super::output::{write_json, write_out};
use crate::error::{EXIT_OK, Error};
use crate::report::Header;
use crate::search::tt::{Isolation, STATUS_SLOTS, Tt, TtStats};
use crate::search::{self, IterationInfo, Limits, MAX_DEPTH, OnFail, Score, SearchOptions};

/// Depth searched when no limit is given.
pub const DEFAULT_DEPTH: u32 = 6;
/// TT size when `--tt` is not given.
pub const DEFAULT_TT: &str = "16MiB";
/// Largest accepted `--aspiration`.
pub const MAX_ASPIRATION: u32 = 10_000;

/// `perft search` arguments.
///
/// The numbers, the size and the policy are taken as text and checked by
/// [`run_search`], and the alternatives (`--depth | --nodes | --movetime`,
/// `--tt | --no-tt`) are checked there too, so that every bad value or
/// combination, a negative number included, is one line on stderr (clap's own
/// errors add usage lines, and read `--depth -1` as an unknown flag `-1`).
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Position and moves.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Search to this depth in plies (1 to 100). Default when no limit is
    /// given: 6. `--depth`, `--nodes` and `--movetime` are alternatives.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub depth: Option<String>,
    /// Stop after about N nodes (at least 1).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub nodes: Option<String>,
    /// Stop after MS milliseconds (at least 1).
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    pub movetime: Option<String>,
    /// TT size with a unit: B, KiB, MiB, GiB (a bare number means MiB).
    /// Default: 16MiB.
    #[arg(long, value_name = "SIZE", allow_negative_numbers = true)]
    pub tt: Option<String>,
    /// Search without a TT.
    #[arg(long)]
    pub no_tt: bool,
    /// Aspiration half-width in centipawns, 0 to 10000 (0 = full window).
    /// Default: 50.
    #[arg(long, value_name = "CP", allow_negative_numbers = true)]
    pub aspiration: Option<String>,
    /// What to do with the TT entries of a failed aspiration window.
    /// Default: rollback.
    #[arg(long, value_name = "POLICY", value_parser = PolicyText)]
    pub on_fail: Option<String>,
    /// Search threads (lazy SMP over the shared TT), 1 to 1024; default 1.
    /// With `--bench`, a comma-separated list (`1,2`) gives a scaling table.
    #[arg(long, value_name = "N[,N...]", allow_negative_numbers = true)]
    pub threads: Option<String>,
    /// Let threads read each other's uncommitted TT entries (the default
    /// isolation is read-committed: a thread sees committed entries and its
    /// own open transaction's only). For measurement.
    #[arg(long)]
    pub read_uncommitted: bool,
    /// Benchmark: search the fixed positions of positions/search_bench.epd
    /// to their depth (`acd`; `--depth` overrides it) and print the total
    /// nodes (the signature), nps and, with several `--threads`, a scaling
    /// table.
    #[arg(long)]
    pub bench: bool,
    /// With `--bench`: run every thread count this many times, interleaved,
    /// and report medians (1 to 100, default 1).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub rounds: Option<String>,
    /// Search to the depth (`--depth`, default 6) in chunks: a search
    /// stopped every N nodes (at least 1) and resumed from where it stopped
    /// (restartable nodes), as a GUI's repeated `go nodes N` would. Prints
    /// the iterations with the nodes of all chunks so far, and the chunks.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub chunk_nodes: Option<String>,
    /// With `--chunk-nodes`: give up after this many chunks (1 to 1000000,
    /// default 1000).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub max_chunks: Option<String>,
    /// With `--chunk-nodes`: restartable nodes off, every chunk starts a new
    /// search (over the same TT), for comparison.
    #[arg(long)]
    pub no_restart: bool,
    /// Print one JSON object on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `--on-fail` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OnFailArg {
    /// Roll the failed window's transaction back (its entries vanish).
    Rollback,
    /// Commit it anyway (its entries are valid bounds).
    Commit,
}

impl From<OnFailArg> for OnFail {
    fn from(a: OnFailArg) -> OnFail {
        match a {
            OnFailArg::Rollback => OnFail::Rollback,
            OnFailArg::Commit => OnFail::Commit,
        }
    }
}

/// Takes `--on-fail` as text (checked by [`run_search`], so a bad value is a
/// one-line error) while offering [`OnFailArg`]'s values to `--help` and to
/// shell completions.
#[derive(Clone, Copy, Debug)]
struct PolicyText;

impl TypedValueParser for PolicyText {
    type Value = String;

    fn parse_ref(
        &self,
        _cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        Ok(value.to_string_lossy().into_owned())
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            OnFailArg::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value),
        ))
    }
}

/// `--aspiration` (centipawns, default [`search::DEFAULT_ASPIRATION`]) and
/// `--on-fail` (default rollback): the window settings of a search and of
/// `--bench` alike.
fn window_settings(args: &SearchArgs) -> Result<(u32, OnFailArg), Error> {
    let aspiration = match args.aspiration.as_deref() {
        Some(t) => number("--aspiration", t, "centipawns", 0, Some(MAX_ASPIRATION))?,
        None => search::DEFAULT_ASPIRATION as u32,
    };
    let on_fail = match args.on_fail.as_deref() {
        Some(t) => <OnFailArg as ValueEnum>::from_str(t.trim(), true).map_err(|_| {
            Error::Usage(format!("--on-fail: expected rollback or commit, got '{t}'"))
        })?,
        None => OnFailArg::Rollback,
    };
    Ok((aspiration, on_fail))
}

/// Parses the value of `flag`: a whole number from `min` (to `max`, if
/// given), else a one-line usage error naming the flag, the range and the
/// text given.
fn number<T>(flag: &str, text: &str, unit: &str, min: T, max: Option<T>) -> Result<T, Error>
where
    T: FromStr + PartialOrd + std::fmt::Display + Copy,
{
    match text.trim().parse::<T>() {
        Ok(n) if n >= min && max.is_none_or(|m| n <= m) => Ok(n),
        _ => {
            let range = match max {
                Some(m) => format!("{min} to {m}"),
                None => format!("at least {min}"),
            };
            Err(Error::Usage(format!(
                "{flag}: expected a whole number of {unit}, {range}, got '{text}'"
            )))
        }
    }
}

/// Parses a size in the program's one size grammar
/// ([`crate::perft::hash::parse_size`]: `64MiB`, `1GiB`, `1GB`, a bare
/// number of MiB) into bytes that fit this machine's address space.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let bytes = crate::perft::hash::parse_size(text)?;
    usize::try_from(bytes)
        .map_err(|_| format!("size '{text}' is too large for this machine's address space"))
}

/// Builds the TT for `--tt SIZE`: a clear error for a bad size, one larger
/// than the machine's memory, or a failed allocation.
fn build_tt(text: &str) -> Result<Tt, Error> {
    let bytes = parse_size(text).map_err(|e| Error::Usage(format!("--tt: {e}")))?;
    tt_of(bytes).map_err(|e| Error::Usage(format!("--tt: {e}")))
}

/// A search TT of `bytes`, with the same "too large" figure as the perft
/// table (memory available now): one readable line on failure.
pub fn tt_of(bytes: usize) -> Result<Tt, String> {
    use crate::perft::hash::{check_available, human_bytes};
    if bytes < 1024 {
        return Err(format!(
            "TT of {} is too small (at least 1 KiB)",
            human_bytes(bytes as u128)
        ));
    }
    check_available(bytes as u128).map_err(|available| {
        format!(
            "TT of {} requested, but only {available} of memory is available",
            human_bytes(bytes as u128)
        )
    })?;
    Tt::new(bytes).map_err(|e| e.to_string())
}

/// TT counters in the report.
#[derive(Debug, Serialize)]
pub struct TtReport {
    /// Table size in bytes.
    pub bytes: usize,
    /// Status slots (slot 0 the sentinel).
    pub status_slots: usize,
    /// Policy after a failed aspiration window.
    pub on_fail: OnFail,
    /// Transactions begun (one per aspiration window searched).
    pub transactions: u64,
    /// Transactions committed.
    pub commits: u64,
    /// Transactions rolled back.
    pub rollbacks: u64,
    /// Entries discarded by rollbacks.
    pub discarded: u64,
    /// Probes.
    pub probes: u64,
    /// Probes that found a visible entry.
    pub hits: u64,
    /// `hits / probes` (0 to 1).
    pub hit_rate: f64,
    /// Stores.
    pub stores: u64,
    /// Slot sweeps.
    pub sweeps: u64,
}

/// Result of `perft search`.
#[derive(Debug, Serialize)]
pub struct SearchReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// The searched position (after `--moves`).
    pub fen: String,
    /// Depth limit in plies (`null` = none).
    pub depth_limit: Option<u32>,
    /// Node limit (`null` = none).
    pub nodes_limit: Option<u64>,
    /// Time limit in milliseconds (`null` = none).
    pub movetime_ms: Option<u64>,
    /// Aspiration half-width in centipawns (0 = off).
    pub aspiration: u32,
    /// Search threads.
    pub threads: usize,
    /// One entry per completed iteration.
    pub iterations: Vec<IterationInfo>,
    /// Best move (UCI), `(none)` when there is no legal move.
    pub bestmove: String,
    /// Score of the last completed iteration.
    pub score: Option<Score>,
    /// Deepest completed iteration.
    pub depth: u32,
    /// Nodes searched (main search and quiescence).
    pub nodes: u64,
    /// Quiescence nodes among them.
    pub qnodes: u64,
    /// Wall-clock milliseconds.
    pub time_ms: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Aspiration windows that failed.
    pub aspiration_fails: u64,
    /// True if a node or time limit cut the last iteration short.
    pub stopped: bool,
    /// `--chunk-nodes` (`null` = one search).
    pub chunk_nodes: Option<u64>,
    /// Searches run: the chunks (1 without `--chunk-nodes`).
    pub chunks: u64,
    /// Chunks that resumed the search the previous one stopped.
    pub resumed_chunks: u64,
    /// Restartable nodes on (off with `--no-restart`).
    pub restart: bool,
    /// TT counters, `null` with `--no-tt`.
    pub tt: Option<TtReport>,
}

fn tt_line(tt: &Option<TtReport>) -> String {
    match tt {
        None => "info string tt off".to_string(),
        Some(t) => format!(
            "info string tt transactions {} commits {} rollbacks {} discarded {} probes {} hits {} hitrate {:.1}%",
            t.transactions,
            t.commits,
            t.rollbacks,
            t.discarded,
            t.probes,
            t.hits,
            100.0 * t.hit_rate
        ),
    }
}

fn tt_report(tt: &Tt, s: &TtStats, on_fail: OnFail) -> TtReport {
    TtReport {
        bytes: tt.bytes(),
        status_slots: tt.status_slots(),
        on_fail,
        transactions: s.transactions,
        commits: s.commits,
        rollbacks: s.rollbacks,
        discarded: s.discarded,
        probes: s.probes,
        hits: s.hits,
        hit_rate: s.hit_rate(),
        stores: s.stores,
        sweeps: s.sweeps,
    }
}

/// Parses `--threads`: one count, or with `--bench` a list.
fn thread_list(text: Option<&str>, list: bool) -> Result<Vec<usize>, Error> {
    let Some(text) = text else {
        return Ok(vec![1]);
    };
    let counts = text
        .split(',')
        .map(|t| {
            number(
                "--threads",
                t,
                "threads",
                1,
                Some(crate::perft::MAX_THREADS),
            )
        })
        .collect::<Result<Vec<usize>, Error>>()?;
    if counts.len() > 1 && !list {
        return Err(Error::Usage(format!(
            "--threads: a list ('{text}') needs --bench; give one number"
        )));
    }
    Ok(counts)
}

/// Runs `perft search`.
pub fn run_search(args: SearchArgs) -> Result<u8, Error> {
    if args.bench {
        return run_bench(args);
    }
    if args.rounds.is_some() {
        return Err(Error::Usage("--rounds needs --bench".into()));
    }
    let threads = thread_list(args.threads.as_deref(), false)?[0];
    if args.no_tt && threads > 1 {
        return Err(Error::Usage(
            "--threads above 1 and --no-tt given together: threads share the TT".into(),
        ));
    }
    let given: Vec<&str> = [
        ("--depth", args.depth.is_some()),
        ("--nodes", args.nodes.is_some()),
        ("--movetime", args.movetime.is_some()),
    ]
    .iter()
    .filter_map(|&(flag, on)| on.then_some(flag))
    .collect();
    if given.len() > 1 {
        return Err(Error::Usage(format!(
            "--depth, --nodes and --movetime are alternatives: give one (got {})",
            given.join(", ")
        )));
    }
    if args.no_tt && args.tt.is_some() {
        return Err(Error::Usage(
            "--tt and --no-tt given together: give a size or no TT, not both".into(),
        ));
    }
    if args.no_tt && args.on_fail.is_some() {
        return Err(Error::Usage(
            "--on-fail and --no-tt given together: without a TT there is nothing to roll back or commit".into(),
        ));
    }
    let depth = args
        .depth
        .as_deref()
        .map(|t| number("--depth", t, "plies", 1, Some(MAX_DEPTH)))
        .transpose()?;
    let nodes = args
        .nodes
        .as_deref()
        .map(|t| number("--nodes", t, "nodes", 1u64, None))
        .transpose()?;
    let movetime = args
        .movetime
        .as_deref()
        .map(|t| number("--movetime", t, "milliseconds", 1u64, None))
        .transpose()?;
    let chunk_nodes = args
        .chunk_nodes
        .as_deref()
        .map(|t| number("--chunk-nodes", t, "nodes", 1u64, None))
        .transpose()?;
    if chunk_nodes.is_some() && (nodes.is_some() || movetime.is_some()) {
        return Err(Error::Usage(
            "--chunk-nodes searches to a depth in chunks of N nodes: --nodes and --movetime cannot be given with it".into(),
        ));
    }
    for (flag, given) in [
        ("--max-chunks", args.max_chunks.is_some()),
        ("--no-restart", args.no_restart),
    ] {
        if given && chunk_nodes.is_none() {
            return Err(Error::Usage(format!(
                "{flag} needs --chunk-nodes: one search has nothing to resume"
            )));
        }
    }
    let max_chunks = match args.max_chunks.as_deref() {
        Some(t) => number("--max-chunks", t, "chunks", 1u64, Some(1_000_000))?,
        None => 1000,
    };
    let (aspiration, on_fail) = window_settings(&args)?;
    // The positions before the searched one (`--moves`) count for repetitions.
    let (root, moves) = resolve_root(&args.position)?;
    let mut pos = root;
    let mut history = Vec::with_capacity(moves.len());
    for &mv in &moves {
        history.push(pos.hash());
        pos = pos.play_unchecked(mv);
    }
    let mut tt = if args.no_tt {
        None
    } else {
        Some(build_tt(args.tt.as_deref().unwrap_or(DEFAULT_TT))?)
    };
    if let Some(tt) = tt.as_mut()
        && args.read_uncommitted
    {
        tt.set_isolation(Isolation::ReadUncommitted);
    }
    debug_assert!(tt.as_ref().is_none_or(|t| t.status_slots() == STATUS_SLOTS));
    let limits = Limits {
        depth: depth.or_else(|| (nodes.is_none() && movetime.is_none()).then_some(DEFAULT_DEPTH)),
        nodes,
        movetime: movetime.map(Duration::from_millis),
        stop: None,
    };
    let on_fail = OnFail::from(on_fail);
    let options = SearchOptions {
        aspiration: aspiration as i32,
        on_fail,
        threads,
        restart: !args.no_restart,
        ..SearchOptions::default()
    };

    let mut iterations = Vec::new();
    let mut write_error = None;
    // One search, or with --chunk-nodes one per chunk over the same state
    // and TT until a chunk completes the depth.
    let mut state = search::SearchState::new();
    let (mut chunks, mut resumed_chunks) = (0u64, 0u64);
    let mut total = search::SearchStats::default();
    let (mut time, mut tt_stats) = (Duration::ZERO, TtStats::default());
    let result = loop {
        let chunk_limits = Limits {
            nodes: chunk_nodes.or(limits.nodes),
            ..limits.clone()
        };
        let (nodes_before, time_before) = (total.nodes, time);
        let r = search::search_resumable(
            &pos,
            &history,
            &chunk_limits,
            tt.as_mut(),
            &options,
            &mut state,
            |info| {
                let mut info = info.clone();
                info.nodes += nodes_before;
                info.time += time_before;
                info.nps = (info.nodes as f64 / info.time.as_secs_f64().max(1e-6)) as u64;
                if args.json {
                    iterations.push(info);
                } else if write_error.is_none()
                    && let Err(e) = write_out(&format!("{}\n", info.to_uci()))
                {
                    // Keep searching quietly; the error is reported at the end.
                    write_error = Some(e);
                }
            },
        )
        .map_err(|e| Error::Usage(e.to_string()))?;
        chunks += 1;
        resumed_chunks += u64::from(r.resumed.is_some());
        total.nodes += r.stats.nodes;
        total.qnodes += r.stats.qnodes;
        total.aspiration_fails += r.stats.aspiration_fails;
        time += r.time;
        tt_stats = tt_stats + r.tt;
        if chunk_nodes.is_none() || !r.stopped || chunks >= max_chunks {
            break r;
        }
    };
    // Nothing is resumed after this: close the transaction a stopped search
    // left open.
    state
        .discard(tt.as_mut())
        .map_err(|e| Error::Usage(e.to_string()))?;
    if let Some(e) = write_error {
        return Err(e);
    }

    let report = SearchReport {
        header: Header::new("search"),
        fen: pos.to_fen(),
        depth_limit: limits.depth,
        nodes_limit: limits.nodes,
        movetime_ms: movetime,
        aspiration,
        threads,
        iterations,
        bestmove: result.best_move_uci(),
        score: result.score,
        depth: result.depth,
        nodes: total.nodes,
        qnodes: total.qnodes,
        time_ms: time.as_millis() as u64,
        nps: (total.nodes as f64 / time.as_secs_f64().max(1e-6)) as u64,
        aspiration_fails: total.aspiration_fails,
        stopped: result.stopped,
        chunk_nodes,
        chunks,
        resumed_chunks,
        restart: options.restart,
        tt: tt.as_ref().map(|t| tt_report(t, &tt_stats, on_fail)),
    };
    if args.json {
        write_json(&report)?;
    } else {
        let mut text = String::new();
        if report.iterations.is_empty() && report.depth == 0 {
            // No iteration completed (no legal move, or cut short at once).
            if let Some(score) = report.score {
                text.push_str(&format!("info depth 0 score {score}\n"));
            }
        }
        if let Some(k) = report.chunk_nodes {
            text.push_str(&format!(
                "info string chunks {} of {k} nodes resumed {} restart {} nodes {}{}\n",
                report.chunks,
                report.resumed_chunks,
                if report.restart { "on" } else { "off" },
                report.nodes,
                if report.stopped {
                    format!(
                        " depth {} not reached (--max-chunks {max_chunks})",
                        limits.depth.unwrap_or(0)
                    )
                } else {
                    String::new()
                }
            ));
        }
        text.push_str(&tt_line(&report.tt));
        text.push('\n');
        text.push_str(&format!("bestmove {}\n", report.bestmove));
        write_out(&text)?;
    }
    Ok(EXIT_OK)
}

/// The bench positions (`positions/search_bench.epd`), built in so that the
/// signature does not depend on the working directory.
pub const SEARCH_BENCH_EPD: &str = include_str!("../../positions/search_bench.epd");

/// One bench position's outcome (the first run of the first thread count).
#[derive(Debug, Serialize)]
pub struct BenchPosition {
    /// The position.
    pub fen: String,
    /// Its `id` in the EPD file.
    pub id: Option<String>,
    /// Depth searched.
    pub depth: u32,
    /// Nodes (all threads).
    pub nodes: u64,
    /// Best move (UCI).
    pub bestmove: String,
    /// Score.
    pub score: Option<Score>,
    /// Milliseconds to the depth.
    pub time_ms: f64,
}

/// One pass over all positions with one thread count.
#[derive(Debug, Serialize, Clone, Copy)]
pub struct BenchRound {
    /// Nodes of all threads over all positions.
    pub nodes: u64,
    /// Milliseconds to the depth, summed over the positions.
    pub time_ms: f64,
    /// Nodes per second.
    pub nps: u64,
}

/// Medians of one thread count over the rounds.
#[derive(Debug, Serialize)]
pub struct BenchRun {
    /// Threads.
    pub threads: usize,
    /// Median nodes.
    pub nodes: u64,
    /// Median milliseconds to the depth (summed over the positions).
    pub time_ms: f64,
    /// Median nodes per second.
    pub nps: u64,
    /// `nps` over that of the first thread count.
    pub nps_ratio: f64,
    /// `time_ms` over that of the first thread count.
    pub time_ratio: f64,
    /// Every round.
    pub rounds: Vec<BenchRound>,
}

/// Result of `perft search --bench`.
#[derive(Debug, Serialize)]
pub struct SearchBenchReport {
    /// Common header.
    #[serde(flatten)]
    pub header: Header,
    /// TT size in bytes.
    pub tt_bytes: usize,
    /// Isolation of the shared TT.
    pub isolation: Isolation,
    /// Depth given with `--depth` (`null`: each position's `acd`).
    pub depth_override: Option<u32>,
    /// Rounds per thread count.
    pub rounds: usize,
    /// Per position, from the first round of the first thread count.
    pub positions: Vec<BenchPosition>,
    /// Per thread count.
    pub runs: Vec<BenchRun>,
    /// Total nodes with one thread (`null` if 1 is not among the thread
    /// counts): the bench signature.
    pub signature: Option<u64>,
    /// Whether every one-thread round gave the same total (`null` without a
    /// one-thread run).
    pub signature_stable: Option<bool>,
}

fn median_f64(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs `perft search --bench`.
fn run_bench(args: SearchArgs) -> Result<u8, Error> {
    for (flag, given) in [
        ("a position", !args.position.position.is_empty()),
        ("--moves", !args.position.moves.is_empty()),
        ("--nodes", args.nodes.is_some()),
        ("--movetime", args.movetime.is_some()),
        ("--no-tt", args.no_tt),
        ("--chunk-nodes", args.chunk_nodes.is_some()),
        ("--max-chunks", args.max_chunks.is_some()),
        ("--no-restart", args.no_restart),
    ] {
        if given {
            return Err(Error::Usage(format!(
                "--bench searches its own positions to a fixed depth: {flag} cannot be given with it"
            )));
        }
    }
    let threads = thread_list(args.threads.as_deref(), true)?;
    let rounds = match args.rounds.as_deref() {
        Some(t) => number("--rounds", t, "rounds", 1usize, Some(100))?,
        None => 1,
    };
    let depth_override = args
        .depth
        .as_deref()
        .map(|t| number("--depth", t, "plies", 1, Some(MAX_DEPTH)))
        .transpose()?;
    let (aspiration, on_fail) = window_settings(&args)?;
    let records = crate::validate::suite::parse_suite(SEARCH_BENCH_EPD, "search_bench.epd", false)
        .map_err(|e| Error::Usage(format!("search_bench.epd: {e}")))?;
    let mut tt = build_tt(args.tt.as_deref().unwrap_or(DEFAULT_TT))?;
    let isolation = if args.read_uncommitted {
        Isolation::ReadUncommitted
    } else {
        Isolation::ReadCommitted
    };
    tt.set_isolation(isolation);
    let depth_of = |r: &crate::validate::suite::EpdRecord| -> u32 {
        depth_override
            .or_else(|| r.op("acd").and_then(|d| d.parse().ok()))
            .unwrap_or(DEFAULT_DEPTH)
    };

    let mut positions = Vec::new();
    let mut per_threads: Vec<Vec<BenchRound>> = vec![Vec::new(); threads.len()];
    for round in 0..rounds {
        for (ti, &t) in threads.iter().enumerate() {
            let options = SearchOptions {
                aspiration: aspiration as i32,
                on_fail: OnFail::from(on_fail),
                threads: t,
                ..SearchOptions::default()
            };
            let (mut nodes, mut time) = (0u64, 0f64);
            for r in &records {
                tt.clear().map_err(|e| Error::Usage(e.to_string()))?;
                let depth = depth_of(r);
                let result = search::search(
                    &r.position,
                    &[],
                    &Limits::depth(depth),
                    Some(&mut tt),
                    &options,
                    |_| {},
                )
                .map_err(|e| Error::Usage(e.to_string()))?;
                let ms = result.time.as_secs_f64() * 1000.0;
                nodes += result.stats.nodes;
                time += ms;
                if round == 0 && ti == 0 {
                    positions.push(BenchPosition {
                        fen: r.position.to_fen(),
                        id: r.id.clone(),
                        depth,
                        nodes: result.stats.nodes,
                        bestmove: result.best_move_uci(),
                        score: result.score,
                        time_ms: ms,
                    });
                }
            }
            per_threads[ti].push(BenchRound {
                nodes,
                time_ms: time,
                nps: (nodes as f64 * 1000.0 / time.max(1e-3)) as u64,
            });
        }
    }
    let mut runs: Vec<BenchRun> = Vec::new();
    for (ti, &t) in threads.iter().enumerate() {
        let rs = &per_threads[ti];
        let nodes = median_f64(rs.iter().map(|r| r.nodes as f64).collect()) as u64;
        let time_ms = median_f64(rs.iter().map(|r| r.time_ms).collect());
        let nps = median_f64(rs.iter().map(|r| r.nps as f64).collect()) as u64;
        let (nps_ratio, time_ratio) = match runs.first() {
            Some(base) => (
                nps as f64 / base.nps.max(1) as f64,
                time_ms / base.time_ms.max(1e-3),
            ),
            None => (1.0, 1.0),
        };
        runs.push(BenchRun {
            threads: t,
            nodes,
            time_ms,
            nps,
            nps_ratio,
            time_ratio,
            rounds: rs.clone(),
        });
    }
    let one = threads.iter().position(|&t| t == 1);
    let signature = one.map(|i| per_threads[i][0].nodes);
    let signature_stable = one.map(|i| per_threads[i].iter().all(|r| Some(r.nodes) == signature));
    let report = SearchBenchReport {
        header: Header::new("search-bench"),
        tt_bytes: tt.bytes(),
        isolation,
        depth_override,
        rounds,
        positions,
        runs,
        signature,
        signature_stable,
    };
    if args.json {
        write_json(&report)?;
    } else {
        let mut text = String::new();
        text.push_str(&format!(
            "{:>3}  {:>5}  {:>10}  {:>9}  {:>8}  {}\n",
            "#", "depth", "nodes", "time_ms", "bestmove", "score"
        ));
        for (i, p) in report.positions.iter().enumerate() {
            text.push_str(&format!(
                "{:>3}  {:>5}  {:>10}  {:>9.1}  {:>8}  {}\n",
                i + 1,
                p.depth,
                p.nodes,
                p.time_ms,
                p.bestmove,
                p.score.map_or_else(|| "-".to_string(), |s| s.to_string())
            ));
        }
        text.push_str(&format!(
            "\n{:>7}  {:>11}  {:>9}  {:>9}  {:>6}  {:>6}\n",
            "threads", "nodes", "time_ms", "nps", "nps_x", "time_x"
        ));
        for r in &report.runs {
            text.push_str(&format!(
                "{:>7}  {:>11}  {:>9.1}  {:>9}  {:>6.3}  {:>6.3}\n",
                r.threads, r.nodes, r.time_ms, r.nps, r.nps_ratio, r.time_ratio
            ));
        }
        if rounds > 1 {
            text.push_str(&format!("(medians of {rounds} interleaved rounds)\n"));
        }
        match (report.signature, report.signature_stable) {
            (Some(sig), Some(true)) => {
                text.push_str(&format!("\nTotal nodes (signature, 1 thread): {sig}\n"))
            }
            (Some(sig), _) => text.push_str(&format!(
                "\nTotal nodes (signature, 1 thread): {sig} -- NOT the same in every round\n"
            )),
            _ => {}
        }
        write_out(&text)?;
    }
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_binary_units() {
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("512kib"), Ok(512 << 10));
        assert_eq!(parse_size("4096B"), Ok(4096));
        assert_eq!(parse_size("16"), Ok(16 << 20));
        // The same grammar as --hash: MB is decimal, a fraction rounds down.
        assert_eq!(parse_size("64MB"), Ok(64_000_000));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert!(parse_size("MiB").unwrap_err().contains("invalid size"));
        assert!(parse_size("-1MiB").unwrap_err().contains("invalid size"));
        assert!(parse_size("64XB").unwrap_err().contains("unknown unit"));
        assert!(parse_size("99999999999999999999").is_err());
        assert!(parse_size("16777216TiB").unwrap_err().contains("too large"));
    }
}
