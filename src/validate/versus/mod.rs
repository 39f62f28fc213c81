//! Timing this tool against other perft programs (`perft versus`): every
//! program, ours included, runs as a child process per measurement
//! ([`process`]), started and read according to its kind ([`peer`]).
//!
//! [`run_versus`] takes the programs (ours first), the positions and the
//! settings, and returns every sample. By default ([`VersusOrder::Rounds`])
//! each round goes over every position in turn, so a position's rounds lie
//! a whole round apart and a slow spell of the machine (tens of seconds on
//! a shared one) falls into one of them, not all; [`VersusOrder::Positions`]
//! runs each position's rounds back to back instead. For each position, in
//! every round, each program runs once, in an order that rotates from round
//! to round (round 0 starts with ours, so its count is known before any
//! peer's is read). A peer whose count differs from
//! ours is a [`Finding`]; a peer that crashes, hangs past the timeout or
//! prints what cannot be read is a [`PeerError`] and is left out of the rest
//! of the run, the other programs carrying on. The statistics (medians,
//! ratios, geometric means) are the report layer's
//! (`report::VersusReport`).
//!
//! ```no_run
//! use perft::validate::versus::{Peer, VersusPosition, VersusSettings, run_versus};
//!
//! let peers = [
//!     Peer::ours("target/release/perft"),
//!     Peer::parse("stockfish=/usr/games/stockfish")?,
//! ];
//! let positions = [VersusPosition::named("startpos", 5)?];
//! let run = run_versus(&peers, &positions, &VersusSettings::default(), None, |_| {})?;
//! let report = perft::report::VersusReport::new(&run);
//! print!("{}", report.to_text());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod peer;
pub mod process;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;
use thiserror::Error;

pub use peer::{Matching, Peer, PeerKind, PeerOutput, parse_output};
pub use process::{Finished, LoadSample, RunFailure};

/// What stops a comparison before it starts, or our own side failing.
#[derive(Debug, Error)]
pub enum VersusError {
    /// A peer argument or command that cannot be used.
    #[error("{0}")]
    BadPeer(String),
    /// A position that cannot be used.
    #[error("{0}")]
    BadPosition(String),
    /// Our own `perft count` failed: nothing can be compared.
    #[error("our own perft ({command}) failed on {position}: {message}")]
    Ours {
        /// Our binary.
        command: String,
        /// Position name and depth.
        position: String,
        /// What went wrong.
        message: String,
    },
    /// The scratch directory for outputs cannot be made.
    #[error("cannot create a scratch directory in {dir}: {source}")]
    Scratch {
        /// Where.
        dir: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// One position to time.
#[derive(Clone, Debug, Serialize)]
pub struct VersusPosition {
    /// Its name in reports (`startpos`, an EPD `id`, or `line N`).
    pub name: String,
    /// The FEN every program is given.
    pub fen: String,
    /// Depth in plies.
    pub depth: u32,
    /// Chess960 castling (told to Stockfish with `UCI_Chess960`, to ours
    /// with `--chess960`).
    pub chess960: bool,
    /// The count an EPD file gives for this depth, if any: every program,
    /// ours included, must match it (a difference is a [`Finding`]).
    pub published: Option<u64>,
}

impl VersusPosition {
    /// A named position (`start`/`startpos`, `kiwipete`, `cpw3` .. `cpw6`)
    /// at `depth`.
    pub fn named(name: &str, depth: u32) -> Result<VersusPosition, VersusError> {
        let fen = crate::chess::fen::named_position(name).ok_or_else(|| {
            VersusError::BadPosition(format!(
                "unknown position name '{name}': one of start, {} (or a FEN through --file)",
                crate::chess::fen::POSITION_NAMES.join(", ")
            ))
        })?;
        let name = if name == "start" { "startpos" } else { name };
        Ok(VersusPosition {
            name: name.to_string(),
            fen: fen.to_string(),
            depth,
            chess960: false,
            published: None,
        })
    }
}

/// In which order a comparison's runs go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VersusOrder {
    /// Round after round, each over every position: a position's samples
    /// lie a round apart, so one slow spell of the machine cannot take all
    /// of them.
    #[default]
    Rounds,
    /// Position after position, each for all its rounds: a position's
    /// figures are final sooner.
    Positions,
}

impl VersusOrder {
    /// The (round, position index) pairs of a run, in the order they run.
    /// Either order reaches the positions first in their own order
    /// ([`run_versus`] relies on it).
    pub fn schedule(self, rounds: u32, positions: usize) -> Vec<(u32, usize)> {
        match self {
            VersusOrder::Rounds => (0..rounds)
                .flat_map(|r| (0..positions).map(move |p| (r, p)))
                .collect(),
            VersusOrder::Positions => (0..positions)
                .flat_map(|p| (0..rounds).map(move |r| (r, p)))
                .collect(),
        }
    }
}

/// How a comparison is run.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct VersusSettings {
    /// Rounds per position.
    pub rounds: u32,
    /// Rounds over all positions (default), or each position's rounds back
    /// to back.
    pub order: VersusOrder,
    /// Threads for our side and for peers that take a thread count.
    pub threads: usize,
    /// Perft table bytes for our side and for peers that have one (0: none).
    pub hash_bytes: u128,
    /// Our side runs `perft count --stats` (every leaf counted and
    /// classified, no table) against the peers' plain counts.
    pub stats: bool,
    /// Seconds a single run may take before the program is killed and
    /// reported.
    pub peer_timeout: f64,
}

impl Default for VersusSettings {
    /// Like for like: three rounds over all positions, one thread, no
    /// table, 300 s per run.
    fn default() -> VersusSettings {
        VersusSettings {
            rounds: 3,
            order: VersusOrder::Rounds,
            threads: 1,
            hash_bytes: 0,
            stats: false,
            peer_timeout: 300.0,
        }
    }
}

/// One timed run of one program.
#[derive(Clone, Debug, Serialize)]
pub struct Sample {
    /// Round (0-based).
    pub round: u32,
    /// The count it gave for the depth asked.
    pub nodes: u64,
    /// CPU seconds (user + system) of the whole process (`null` where the
    /// system does not report them).
    pub cpu_seconds: Option<f64>,
    /// Wall-clock seconds of the whole process.
    pub wall_seconds: f64,
    /// The program's own printed time for the depth asked, seconds.
    pub own_seconds: Option<f64>,
    /// For a program that counts every depth 1..D: the share of the run
    /// that was depth D's, by its own clock (see
    /// [`PeerOutput::depth_share`](peer::PeerOutput::depth_share)); `seconds`
    /// is scaled by it.
    pub depth_share: Option<f64>,
    /// The nodes this run is credited with: the count of the depth asked,
    /// or the sum over depths 1..D when `depth_share` is `null`.
    pub credited_nodes: u64,
    /// Stockfish: seconds (counted as `seconds` are) of its `go perft 1`
    /// start-up run in the same round, subtracted from `seconds`.
    pub startup_seconds: Option<f64>,
    /// The time compared: CPU seconds with one thread, wall seconds with
    /// several (CPU time would add up the threads) or where the system
    /// gives no CPU time; less `startup_seconds`; times `depth_share`.
    pub seconds: f64,
}

/// A program's count that differs from ours (or, for a position of an EPD
/// file, from the count the file gives: then ours can be the program).
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// The program.
    pub program: String,
    /// The position's name.
    pub position: String,
    /// Depth.
    pub depth: u32,
    /// Our count, or the EPD file's when it gives one.
    pub expected: u64,
    /// Theirs.
    pub got: u64,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} counts {} on {} depth {}, expected {}",
            self.program, self.got, self.position, self.depth, self.expected
        )
    }
}

/// A peer that crashed, hung or printed what cannot be read.
#[derive(Clone, Debug, Serialize)]
pub struct PeerError {
    /// The program.
    pub program: String,
    /// The position's name and depth it failed on.
    pub position: String,
    /// `crash`, `timeout`, `output` or `spawn`.
    pub kind: &'static str,
    /// What happened.
    pub message: String,
}

impl std::fmt::Display for PeerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} on {}: {}", self.program, self.position, self.message)
    }
}

/// A program of the run, as the report describes it.
#[derive(Clone, Debug, Serialize)]
pub struct ProgramInfo {
    /// Name in reports.
    pub name: String,
    /// Kind.
    pub kind: PeerKind,
    /// The binary run.
    pub path: String,
    /// Its command line's fixed words (a custom peer's template).
    pub command: Vec<String>,
    /// SHA-256 of the binary (`null` if it cannot be read).
    pub sha256: Option<String>,
    /// Counts every depth 1..D in one process (timed for depth D's share of
    /// the run, by its own clock; else credited with the sum).
    pub counts_all_depths: bool,
    /// Prints its own time for the depth asked.
    pub prints_own_time: bool,
    /// Start-up time measured and subtracted each round (Stockfish).
    pub startup_subtracted: bool,
    /// Settings it cannot be given to match ours (`threads`, `hash`).
    pub unmatched: Vec<&'static str>,
}

/// The samples of one position.
#[derive(Clone, Debug)]
pub struct PositionRun {
    /// The position.
    pub position: VersusPosition,
    /// Our count (`None` if ours never finished).
    pub expected: Option<u64>,
    /// Per program (in the order of [`VersusRun::programs`]), its samples.
    pub samples: Vec<Vec<Sample>>,
    /// True when every round ran.
    pub complete: bool,
}

/// Everything a comparison measured.
#[derive(Clone, Debug)]
pub struct VersusRun {
    /// The settings.
    pub settings: VersusSettings,
    /// The programs, ours first.
    pub programs: Vec<ProgramInfo>,
    /// Positions measured, in the order given; a partial run has those
    /// started before it stopped.
    pub positions: Vec<PositionRun>,
    /// Counts that differ from ours.
    pub findings: Vec<Finding>,
    /// Peers that failed (each then left out).
    pub errors: Vec<PeerError>,
    /// False when stopped (Ctrl-C) before the end.
    pub complete: bool,
    /// Load before the first run.
    pub load_before: Option<LoadSample>,
    /// Load after the last run.
    pub load_after: Option<LoadSample>,
}

/// Reported before each run, for progress displays.
#[derive(Clone, Copy, Debug)]
pub struct VersusEvent<'a> {
    /// The position.
    pub position: &'a VersusPosition,
    /// Round (0-based).
    pub round: u32,
    /// The program about to run.
    pub program: &'a str,
}

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the comparison: `peers[0]` is ours (its counts are the expected
/// ones); `stop` (Ctrl-C) ends it early with what was measured
/// (`complete` false); `on_run` hears of every run before it starts.
pub fn run_versus(
    peers: &[Peer],
    positions: &[VersusPosition],
    settings: &VersusSettings,
    stop: Option<&AtomicBool>,
    mut on_run: impl FnMut(VersusEvent<'_>),
) -> Result<VersusRun, VersusError> {
    assert!(
        peers.first().is_some_and(|p| p.kind == PeerKind::Perft),
        "peers[0] must be our own perft"
    );
    let mut programs = Vec::new();
    let mut paths = Vec::new();
    for p in peers {
        let path = p.program()?;
        programs.push(ProgramInfo {
            name: p.name.clone(),
            kind: p.kind,
            path: path.display().to_string(),
            command: p.command.clone(),
            sha256: peer::sha256_file(&path),
            counts_all_depths: p.kind.counts_all_depths(),
            prints_own_time: p.kind.prints_own_time(),
            startup_subtracted: p.kind == PeerKind::Stockfish,
            unmatched: p.kind.unmatched(settings.threads, settings.hash_bytes),
        });
        paths.push(path);
    }
    let base = std::env::temp_dir().join(format!("perft-versus-{}", std::process::id()));
    let scratch_err = |source| VersusError::Scratch {
        dir: base.display().to_string(),
        source,
    };
    std::fs::create_dir_all(base.join("cwd")).map_err(scratch_err)?;
    let scratch = Scratch(base);
    let matching = Matching {
        threads: settings.threads,
        hash_bytes: settings.hash_bytes,
        stats: settings.stats,
    };
    let timeout = Duration::from_secs_f64(settings.peer_timeout);
    let stopped = || stop.is_some_and(|s| s.load(Ordering::SeqCst));
    let mut run = VersusRun {
        settings: *settings,
        programs,
        positions: Vec::new(),
        findings: Vec::new(),
        errors: Vec::new(),
        complete: true,
        load_before: LoadSample::read(),
        load_after: None,
    };
    let mut failed = vec![false; peers.len()];
    let n = peers.len();
    'runs: for (round, at) in settings.order.schedule(settings.rounds, positions.len()) {
        let position = &positions[at];
        // Either order reaches the positions first in the order given: each
        // is pushed when it first runs, so a stopped run holds only
        // positions started, at their own index.
        if at == run.positions.len() {
            run.positions.push(PositionRun {
                position: position.clone(),
                expected: position.published,
                samples: vec![Vec::new(); n],
                complete: false,
            });
        }
        let label = format!("{} depth {}", position.name, position.depth);
        let shift = round as usize % n;
        for i in (0..n).map(|k| (k + shift) % n) {
            if failed[i] {
                continue;
            }
            if stopped() {
                run.complete = false;
                break 'runs;
            }
            on_run(VersusEvent {
                position,
                round,
                program: &peers[i].name,
            });
            let outcome = measure(
                &peers[i],
                &paths[i],
                position,
                matching,
                run.positions[at].expected,
                &scratch.0,
                timeout,
                stop,
            );
            let at = &mut run.positions[at];
            match outcome {
                Ok((out, mut sample)) => {
                    sample.round = round;
                    if i == 0 {
                        at.expected.get_or_insert(out.nodes);
                    }
                    at.samples[i].push(sample);
                    let expected = at.expected.unwrap_or(out.nodes);
                    let known = run
                        .findings
                        .iter()
                        .any(|f| f.program == peers[i].name && f.position == position.name);
                    if out.nodes != expected && !known {
                        run.findings.push(Finding {
                            program: peers[i].name.clone(),
                            position: position.name.clone(),
                            depth: position.depth,
                            expected,
                            got: out.nodes,
                        });
                    }
                }
                Err(None) => {
                    run.complete = false;
                    break 'runs;
                }
                Err(Some((kind, message))) => {
                    if i == 0 {
                        return Err(VersusError::Ours {
                            command: paths[0].display().to_string(),
                            position: label,
                            message,
                        });
                    }
                    failed[i] = true;
                    run.errors.push(PeerError {
                        program: peers[i].name.clone(),
                        position: label.clone(),
                        kind,
                        message,
                    });
                }
            }
        }
        if round + 1 == settings.rounds {
            run.positions[at].complete = true;
        }
    }
    run.load_after = LoadSample::read();
    Ok(run)
}

/// One measurement: `Err(None)` when stopped, `Err(Some((kind, message)))`
/// when the program failed.
#[allow(clippy::too_many_arguments)]
fn measure(
    peer: &Peer,
    path: &std::path::Path,
    position: &VersusPosition,
    matching: Matching,
    expected: Option<u64>,
    scratch: &std::path::Path,
    timeout: Duration,
    stop: Option<&AtomicBool>,
) -> Result<(PeerOutput, Sample), Option<(&'static str, String)>> {
    let cwd = scratch.join("cwd");
    let run = |inv: &peer::Invocation| {
        let dir = inv.scratch_dir.then_some(cwd.as_path());
        process::run_timed(
            path,
            &inv.args,
            inv.stdin.as_deref(),
            dir,
            scratch,
            timeout,
            stop,
        )
        .map_err(|f| match f {
            RunFailure::Stopped => None,
            RunFailure::Timeout(t) => Some((
                "timeout",
                format!(
                    "no result within {:.0} s (--peer-timeout); killed",
                    t.as_secs_f64()
                ),
            )),
            RunFailure::Spawn(e) => {
                Some(("spawn", format!("cannot start {}: {e}", path.display())))
            }
            RunFailure::Io(e) => Some(("output", format!("cannot read its output: {e}"))),
        })
    };
    // Ctrl-C on a terminal reaches the whole process group: a program that
    // died of SIGINT as the stop flag went up was interrupted, not broken.
    let interrupted = |f: &Finished| {
        if f.signal == Some(SIGINT) {
            std::thread::sleep(Duration::from_millis(200));
        }
        stop.is_some_and(|s| s.load(Ordering::SeqCst))
    };
    let startup = match peer.startup_invocation() {
        Some(inv) => {
            let f = run(&inv)?;
            if !f.success() {
                if interrupted(&f) {
                    return Err(None);
                }
                return Err(Some(crashed(&f, "its start-up run (go perft 1)")));
            }
            Some(match f.cpu_seconds {
                Some(cpu) if matching.threads == 1 => cpu,
                _ => f.wall_seconds,
            })
        }
        None => None,
    };
    let inv = peer.invocation(&position.fen, position.chess960, position.depth, matching);
    let f = run(&inv)?;
    if !f.success() {
        if interrupted(&f) {
            return Err(None);
        }
        return Err(Some(crashed(&f, "the run")));
    }
    let out = parse_output(peer.kind, &f.stdout, position.depth, expected).map_err(|why| {
        let start: String = f.stdout.trim().chars().take(120).collect();
        Some((
            "output",
            format!("cannot read its output: {why}; stdout began '{start}'"),
        ))
    })?;
    // CPU time adds up every thread's: with several threads the speed a
    // user sees is wall time.
    let time = match f.cpu_seconds {
        Some(cpu) if matching.threads == 1 => cpu,
        _ => f.wall_seconds,
    };
    let sample = Sample {
        round: 0,
        nodes: out.nodes,
        cpu_seconds: f.cpu_seconds,
        wall_seconds: f.wall_seconds,
        own_seconds: out.own_seconds,
        depth_share: out.depth_share,
        credited_nodes: out.credited_nodes,
        startup_seconds: startup,
        // A start-up longer than the run itself is noise on a tiny depth:
        // keep the time positive.
        seconds: ((time - startup.unwrap_or(0.0)) * out.depth_share.unwrap_or(1.0)).max(1e-6),
    };
    Ok((out, sample))
}

/// The signal number of SIGINT (2 on every Unix).
const SIGINT: i32 = 2;

fn crashed(f: &Finished, what: &str) -> (&'static str, String) {
    let first = f
        .stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| format!("; stderr: {}", l.chars().take(200).collect::<String>()))
        .unwrap_or_default();
    (
        "crash",
        format!("{what} ended with {}{first}", f.status_text()),
    )
}

#[cfg(test)]
mod tests {
    use super::VersusOrder;

    #[test]
    fn schedules_cover_every_round_of_every_position_once_in_their_order() {
        let rounds = VersusOrder::Rounds.schedule(3, 2);
        assert_eq!(rounds, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]);
        let positions = VersusOrder::Positions.schedule(3, 2);
        assert_eq!(positions, [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]);
        assert!(VersusOrder::Rounds.schedule(0, 5).is_empty());
        assert!(VersusOrder::Positions.schedule(4, 0).is_empty());
        assert_eq!(VersusOrder::default(), VersusOrder::Rounds);
        // Positions are first reached in their own order.
        for order in [VersusOrder::Rounds, VersusOrder::Positions] {
            let mut first = Vec::new();
            for (_, p) in order.schedule(4, 5) {
                if !first.contains(&p) {
                    first.push(p);
                }
            }
            assert_eq!(first, [0, 1, 2, 3, 4], "{order:?}");
        }
    }
}
