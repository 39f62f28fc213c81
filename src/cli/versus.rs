//! `perft versus`: times this binary against other perft programs
//! (library: [`crate::validate::versus`], report:
//! [`crate::report::VersusReport`]). This file turns the arguments into
//! peers, positions and settings, shows progress, handles Ctrl-C and writes
//! the report.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::config::parse_seconds;
use super::output::{busy_machine_warning, timing_warnings, write_json, write_out};
use super::progress::{Interrupt, ProgressFactory};
use crate::error::{EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_OK, EXIT_USAGE, Error};
use crate::report::VersusReport;
use crate::validate::suite as epd;
use crate::validate::versus::{Peer, VersusOrder, VersusPosition, VersusSettings, run_versus};

/// The positions timed when none are given: the five Chess Programming
/// Wiki positions at depths Stockfish's `go perft` finishes in about a
/// second on one thread (start position 6 = 119,060,324 leaves, Kiwipete 5
/// = 193,690,690, CPW 3 7 = 178,633,661, CPW 4 5 = 15,833,292 (depth 6 is
/// 706 million), CPW 5 5 = 89,941,194).
pub const DEFAULT_POSITIONS: &str = "startpos:6,kiwipete:5,cpw3:7,cpw4:5,cpw5:5";

/// Depth of a named position given without one (`--positions kiwipete`).
fn default_depth(name: &str) -> u32 {
    match name {
        "cpw3" => 7,
        "start" | "startpos" => 6,
        _ => 5,
    }
}

/// `perft versus` arguments.
#[derive(Debug, Args)]
pub struct VersusArgs {
    /// The programs to time against ours: a kind found on PATH (qperft,
    /// stockfish, gigantua, perft_cpu, hqperft), KIND=COMMAND
    /// (qperft=/opt/qperft), or NAME='COMMAND {depth} "{fen}"' for any
    /// other program (a custom peer).
    #[arg(value_name = "PEER")]
    pub peers: Vec<String>,
    /// A custom peer: NAME=COMMAND with {depth} and {fen} replaced; its
    /// count is the last integer on stdout equal to ours. Repeatable.
    #[arg(long = "peer", value_name = "NAME=COMMAND")]
    pub custom: Vec<String>,
    /// Positions as NAME:DEPTH,NAME:DEPTH (names: start/startpos,
    /// kiwipete, cpw3 .. cpw6; a name alone takes its default depth).
    /// Default: startpos:6,kiwipete:5,cpw3:7,cpw4:5,cpw5:5.
    #[arg(long, value_name = "SPEC", conflicts_with = "file")]
    pub positions: Option<String>,
    /// An EPD file of positions: each line at --depth, or else at its
    /// deepest `;Dn`.
    #[arg(long, value_name = "EPD")]
    pub file: Option<PathBuf>,
    /// Depth for the lines of --file.
    #[arg(long, value_name = "N", requires = "file")]
    pub depth: Option<u32>,
    /// Rounds per position: each program runs once per round, the order
    /// rotating.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub rounds: u32,
    /// rounds: each round goes over every position, so a position's runs
    /// lie a round apart and one slow spell of the machine cannot take all
    /// of them; positions: each position's rounds back to back (its
    /// figures final sooner).
    #[arg(long, value_enum, value_name = "ORDER", default_value_t = OrderArg::Rounds)]
    pub order: OrderArg,
    /// Threads for our side (and peers that take a thread count; the
    /// report marks those that cannot).
    #[arg(long, short = 't', value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// Perft table for our side and peers that have one (qperft, hqperft,
    /// perft_cpu); default none, like for like.
    #[arg(long, value_name = "SIZE")]
    pub hash: Option<String>,
    /// Time `perft count --stats` on our side (every leaf counted and
    /// classified, no perft table) against the peers' plain counts.
    #[arg(long, conflicts_with = "hash")]
    pub stats: bool,
    /// Print one JSON object on stdout (docs/schema/versus.schema.json).
    #[arg(long)]
    pub json: bool,
    /// Also write a bar chart of the ratios to FILE.svg.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Kill a program that runs longer than this (one run), report it and
    /// carry on without it.
    #[arg(long, value_name = "SECS", default_value = "300", value_parser = parse_seconds)]
    pub peer_timeout: f64,
}

/// `--order`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OrderArg {
    /// Round after round, each over every position.
    Rounds,
    /// Position after position, each for all its rounds.
    Positions,
}

impl From<OrderArg> for VersusOrder {
    fn from(o: OrderArg) -> VersusOrder {
        match o {
            OrderArg::Rounds => VersusOrder::Rounds,
            OrderArg::Positions => VersusOrder::Positions,
        }
    }
}

/// Parses `--positions`: `NAME[:DEPTH]` items separated by commas.
pub fn parse_positions(spec: &str) -> Result<Vec<VersusPosition>, Error> {
    let mut out = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (name, depth) =
            match item.split_once(':') {
                Some((name, d)) => {
                    let depth = d.trim().parse::<u32>().ok().filter(|&d| d >= 1).ok_or_else(|| {
                    Error::Usage(format!(
                        "--positions: '{item}': the depth after ':' must be a positive integer"
                    ))
                })?;
                    (name.trim(), depth)
                }
                None => (item, default_depth(item)),
            };
        let p = VersusPosition::named(name, depth)
            .map_err(|e| Error::Usage(format!("--positions: {e}")))?;
        out.push(p);
    }
    if out.is_empty() {
        return Err(Error::Usage(
            "--positions: no positions (e.g. start:6,kiwipete:5)".into(),
        ));
    }
    Ok(out)
}

fn file_positions(
    path: &std::path::Path,
    depth: Option<u32>,
) -> Result<Vec<VersusPosition>, Error> {
    let records = epd::load_suite(path, false)?;
    if records.is_empty() {
        return Err(Error::Usage(format!(
            "{}: no positions (the file is empty or has only comments)",
            path.display()
        )));
    }
    records
        .iter()
        .map(|r| {
            let d = depth
                .or_else(|| r.depths.iter().map(|&(d, _)| d).max())
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "{}:{}: no ;Dn count on this line: give --depth",
                        path.display(),
                        r.line
                    ))
                })?;
            Ok(VersusPosition {
                name: r.id.clone().unwrap_or_else(|| format!("line {}", r.line)),
                fen: r.position.to_fen(),
                depth: d,
                chess960: r.position.is_chess960(),
                published: r
                    .depths
                    .iter()
                    .find(|&&(depth, _)| depth == d)
                    .map(|&(_, n)| n),
            })
        })
        .collect()
}

/// The peers of the command line, ours first, names made unique.
fn peers(args: &VersusArgs) -> Result<Vec<Peer>, Error> {
    let ours = std::env::current_exe()
        .map_err(|e| Error::Usage(format!("cannot find this program's own path: {e}")))?;
    let mut out = vec![Peer::ours(ours)];
    for spec in &args.peers {
        out.push(Peer::parse(spec).map_err(|e| Error::Usage(e.to_string()))?);
    }
    for spec in &args.custom {
        let (name, command) = spec.split_once('=').ok_or_else(|| {
            Error::Usage(format!(
                "--peer '{spec}': expected NAME=COMMAND, e.g. mine='./my_perft {{depth}} \"{{fen}}\"'"
            ))
        })?;
        let kind = crate::validate::versus::PeerKind::Custom;
        out.push(Peer::new(name.trim(), kind, command).map_err(|e| Error::Usage(e.to_string()))?);
    }
    if out.len() == 1 {
        return Err(Error::Usage(
            "no peer to compare with: name one, e.g. `perft versus stockfish qperft=/path/to/qperft`"
                .into(),
        ));
    }
    for i in 1..out.len() {
        let base = out[i].name.clone();
        let mut k = 2;
        while out[..i].iter().any(|p| p.name == out[i].name) {
            out[i].name = format!("{base}-{k}");
            k += 1;
        }
    }
    Ok(out)
}

/// Runs `perft versus`.
pub fn run_versus_command(args: VersusArgs, quiet: bool) -> Result<u8, Error> {
    if args.rounds == 0 {
        return Err(Error::Usage("--rounds must be at least 1".into()));
    }
    if args.threads == 0 || args.threads > crate::perft::MAX_THREADS {
        return Err(Error::Usage(format!(
            "--threads must be 1 to {}",
            crate::perft::MAX_THREADS
        )));
    }
    if args.depth == Some(0) {
        return Err(Error::Usage("--depth must be at least 1".into()));
    }
    let hash_bytes = match args.hash.as_deref().map(str::trim) {
        None | Some("none" | "off" | "0") => 0,
        Some(size) => crate::perft::hash::parse_size(size)
            .map_err(|e| Error::Usage(format!("--hash: {e}")))?,
    };
    let peers = peers(&args)?;
    let positions = match (&args.file, &args.positions) {
        (Some(path), _) => file_positions(path, args.depth)?,
        (None, Some(spec)) => parse_positions(spec)?,
        (None, None) => parse_positions(DEFAULT_POSITIONS)?,
    };
    let settings = VersusSettings {
        rounds: args.rounds,
        order: args.order.into(),
        threads: args.threads,
        hash_bytes,
        stats: args.stats,
        peer_timeout: args.peer_timeout,
    };
    let mut warnings = timing_warnings(args.threads, None);
    warnings.extend(busy_machine_warning());
    let interrupt = Interrupt::install();
    let progress = ProgressFactory::new(args.json, quiet);
    let total = positions.len() * args.rounds as usize * peers.len();
    let bar = progress.counter(total, "runs", "versus");
    let mut started = 0;
    let run = run_versus(&peers, &positions, &settings, Some(interrupt.flag()), |e| {
        if started > 0 {
            bar.inc();
        }
        started += 1;
        bar.set_message(&format!(
            "versus: {} D{}, round {}/{}: {}",
            e.position.name,
            e.position.depth,
            e.round + 1,
            args.rounds,
            e.program
        ));
    })
    .map_err(|e| Error::Usage(e.to_string()))?;
    drop(bar);
    let report = VersusReport::with_warnings(&run, &warnings);
    if !quiet {
        for w in &report.warnings {
            eprintln!("warning: {}", w.message);
        }
    }
    for f in &report.findings {
        eprintln!("error: wrong count: {f}");
    }
    for e in &report.errors {
        eprintln!("error: peer {e}");
    }
    if let Some(path) = &args.plot {
        std::fs::write(path, report.to_svg())
            .map_err(|e| Error::Usage(format!("--plot {}: {e}", path.display())))?;
    }
    if args.json {
        write_json(&report)?;
    } else {
        write_out(&report.to_text())?;
    }
    Ok(if !report.complete {
        EXIT_INTERRUPTED
    } else if !report.errors.is_empty() {
        EXIT_USAGE
    } else if !report.findings.is_empty() {
        EXIT_MISMATCH
    } else {
        EXIT_OK
    })
}
