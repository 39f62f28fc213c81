//! The programs `perft versus` knows: how each is started for a position and
//! a depth, and how its output is read.
//!
//! Every kind is run as one process per measurement. The output formats
//! (one sample line each; docs/versus.md shows whole outputs):
//!
//! | kind | command line | line read |
//! |---|---|---|
//! | `perft` (ours) | `perft count D FEN --threads T --no-hash --json` | the JSON `nodes`, `seconds` |
//! | `qperft` | `qperft D [H<bits>] FEN` (in a scratch directory: it writes `log.txt`) | `perft( 6)=    119060324 ( 0.612 sec)`, every depth 1..D |
//! | `stockfish` | stdin: `position fen FEN`, `go perft D`, `quit` | `Nodes searched: 119060324` |
//! | `gigantua` | `gigantua FEN D`, stdin closed | `Perft 6: 119060324 97ms 1227.4 MNodes/s`, every depth 1..D |
//! | `perft_cpu` | `perft_cpu FEN D -nott` (`-htt MB` with a table) | `Perft(06): 119060324, time: 0.1 seconds, nps: 1190603240`, every depth |
//! | `hqperft` | `hqperft -f FEN -d D -b [-H BITS]` | `perft  6 :       119060324 leaves in  0.6 s  198434000 leaves/s` |
//! | `custom` | the template, `{depth}` and `{fen}` replaced | the last integer equal to the expected count |

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::VersusError;
use crate::validate::engine::{DivideReader, split_command};

/// The kinds of program `perft versus` can time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PeerKind {
    /// This tool's own `perft count` (the reference every ratio is taken to).
    Perft,
    /// H.G. Muller's qperft.
    Qperft,
    /// Stockfish or any UCI engine with `go perft`.
    Stockfish,
    /// Gigantua.
    Gigantua,
    /// Ankan Banerjee's perft_cpu.
    PerftCpu,
    /// Richard Delorme's hqperft.
    Hqperft,
    /// Any program, from a command template with `{depth}` and `{fen}`.
    Custom,
}

impl PeerKind {
    /// The kinds a user names on the command line (all but our own).
    pub const PEERS: [PeerKind; 6] = [
        PeerKind::Qperft,
        PeerKind::Stockfish,
        PeerKind::Gigantua,
        PeerKind::PerftCpu,
        PeerKind::Hqperft,
        PeerKind::Custom,
    ];

    /// The kind's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            PeerKind::Perft => "perft",
            PeerKind::Qperft => "qperft",
            PeerKind::Stockfish => "stockfish",
            PeerKind::Gigantua => "gigantua",
            PeerKind::PerftCpu => "perft_cpu",
            PeerKind::Hqperft => "hqperft",
            PeerKind::Custom => "custom",
        }
    }

    /// The kind called `name` (`perft_cpu` also as `perft-cpu`).
    pub fn from_name(name: &str) -> Option<PeerKind> {
        let name = name.to_ascii_lowercase().replace('-', "_");
        PeerKind::PEERS.into_iter().find(|k| k.name() == name)
    }

    /// True for programs that count every depth 1..D in one process. Their
    /// own per-depth times say which share of the process was depth D's
    /// (see [`PeerOutput::depth_share`]); without usable times they are
    /// credited with the sum of all depths' counts.
    pub fn counts_all_depths(self) -> bool {
        matches!(
            self,
            PeerKind::Qperft | PeerKind::Gigantua | PeerKind::PerftCpu
        )
    }

    /// True when the program prints its own time for depth D.
    pub fn prints_own_time(self) -> bool {
        !matches!(self, PeerKind::Stockfish | PeerKind::Custom)
    }

    /// The settings the program cannot be given to match ours: `threads`
    /// when `threads > 1`, `hash` when `hash_bytes > 0`.
    pub fn unmatched(self, threads: usize, hash_bytes: u128) -> Vec<&'static str> {
        let mut out = Vec::new();
        if threads > 1 && self != PeerKind::Perft {
            out.push("threads");
        }
        let has_table = matches!(
            self,
            PeerKind::Perft | PeerKind::Qperft | PeerKind::PerftCpu | PeerKind::Hqperft
        );
        if hash_bytes > 0 && !has_table {
            out.push("hash");
        }
        out
    }
}

impl std::fmt::Display for PeerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A program to time.
#[derive(Clone, Debug)]
pub struct Peer {
    /// Its name in reports (the kind, or the custom name; unique in a run).
    pub name: String,
    /// How it is run and read.
    pub kind: PeerKind,
    /// The program and its fixed arguments (for `custom`, the template's
    /// words, `{depth}` and `{fen}` still in them).
    pub command: Vec<String>,
}

impl Peer {
    /// Our own `perft` binary at `path`.
    pub fn ours(path: impl Into<PathBuf>) -> Peer {
        Peer {
            name: "perft".to_string(),
            kind: PeerKind::Perft,
            command: vec![path.into().display().to_string()],
        }
    }

    /// A peer of `kind` run as `command` (split into words, quotes
    /// honoured; for `custom` a template with `{depth}` and `{fen}`).
    pub fn new(name: &str, kind: PeerKind, command: &str) -> Result<Peer, VersusError> {
        let words = split_command(command);
        if words.is_empty() {
            return Err(VersusError::BadPeer(format!(
                "{name}: the command is empty"
            )));
        }
        if kind == PeerKind::Custom && !command.contains("{depth}") {
            return Err(VersusError::BadPeer(format!(
                "{name}: a custom command needs {{depth}} (and usually {{fen}}), e.g. '{name}=./my_perft {{depth}} \"{{fen}}\"'"
            )));
        }
        Ok(Peer {
            name: name.to_string(),
            kind,
            command: words,
        })
    }

    /// Parses a peer argument: a bare kind (`stockfish`, found on `PATH`),
    /// `KIND=COMMAND`, or `NAME=TEMPLATE` with `{depth}` (a custom peer).
    pub fn parse(spec: &str) -> Result<Peer, VersusError> {
        let spec = spec.trim();
        match spec.split_once('=') {
            None => {
                let kind = PeerKind::from_name(spec).ok_or_else(|| unknown_kind(spec))?;
                if kind == PeerKind::Custom {
                    return Err(VersusError::BadPeer(
                        "custom needs a command: NAME='./my_perft {depth} \"{fen}\"'".into(),
                    ));
                }
                let path = find_on_path(kind).ok_or_else(|| {
                    VersusError::BadPeer(format!(
                        "{spec}: not found on PATH; give its path as {spec}=/path/to/{spec}"
                    ))
                })?;
                Ok(Peer {
                    name: kind.name().to_string(),
                    kind,
                    command: vec![path.display().to_string()],
                })
            }
            Some((name, command)) => {
                let name = name.trim();
                match PeerKind::from_name(name) {
                    Some(kind) => Peer::new(kind.name(), kind, command),
                    None if command.contains("{depth}") => {
                        if name.is_empty() || name.contains(char::is_whitespace) {
                            return Err(VersusError::BadPeer(format!(
                                "'{spec}': a custom peer is NAME=COMMAND with a one-word name"
                            )));
                        }
                        Peer::new(name, PeerKind::Custom, command)
                    }
                    None => Err(unknown_kind(name)),
                }
            }
        }
    }

    /// The program's path: absolute when it names a file (relative paths
    /// resolved against the current directory), else found on `PATH`.
    pub fn program(&self) -> Result<PathBuf, VersusError> {
        let first = &self.command[0];
        let found = if first.contains('/') {
            std::path::absolute(first).ok().filter(|p| p.is_file())
        } else {
            search_path(first)
        };
        found.ok_or_else(|| VersusError::BadPeer(format!("{}: '{first}' not found", self.name)))
    }
}

fn unknown_kind(name: &str) -> VersusError {
    let kinds: Vec<&str> = PeerKind::PEERS.iter().map(|k| k.name()).collect();
    VersusError::BadPeer(format!(
        "unknown peer kind '{name}': one of {} (KIND or KIND=COMMAND), or NAME='COMMAND {{depth}} \"{{fen}}\"' for any other program",
        kinds.join(", ")
    ))
}

/// `name` in a directory of `PATH` (or `/usr/games`, where Debian puts
/// Stockfish).
fn search_path(name: &str) -> Option<PathBuf> {
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path_var)
        .chain([PathBuf::from("/usr/games")])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The program of `kind` on `PATH` (Stockfish also through `$STOCKFISH`;
/// Gigantua also as `Gigantua` or `gigantua-clang`).
pub fn find_on_path(kind: PeerKind) -> Option<PathBuf> {
    if kind == PeerKind::Stockfish {
        return crate::validate::engine::find_stockfish().map(PathBuf::from);
    }
    let names: &[&str] = match kind {
        PeerKind::Gigantua => &["gigantua", "Gigantua", "gigantua-clang"],
        PeerKind::PerftCpu => &["perft_cpu", "perft_cpu_2026"],
        other => &[other.name()],
    };
    names.iter().find_map(|n| search_path(n))
}

/// One run's command line: arguments after the program, and the text to
/// write on its standard input (Stockfish), if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// Arguments after the program.
    pub args: Vec<String>,
    /// Standard input (`None`: closed).
    pub stdin: Option<String>,
    /// Run in a scratch directory (qperft writes `log.txt` where it runs).
    pub scratch_dir: bool,
}

/// The settings every program is asked to match.
#[derive(Clone, Copy, Debug)]
pub struct Matching {
    /// Threads.
    pub threads: usize,
    /// Table bytes (0: none).
    pub hash_bytes: u128,
    /// Our side counts with `--stats` (every leaf classified).
    pub stats: bool,
}

/// `floor(log2(bytes / entry))`, at least 1: a table of 2^bits entries of
/// `entry` bytes that fits in `bytes`.
fn table_bits(bytes: u128, entry: u128) -> u32 {
    (bytes / entry).max(2).ilog2()
}

impl Peer {
    /// The command line for `fen` (`chess960`: Chess960 castling) at
    /// `depth`.
    pub fn invocation(&self, fen: &str, chess960: bool, depth: u32, m: Matching) -> Invocation {
        let d = depth.to_string();
        let fixed = self.command[1..].iter().cloned();
        let mut inv = Invocation {
            args: fixed.collect(),
            stdin: None,
            scratch_dir: false,
        };
        let push = |inv: &mut Invocation, words: &[&str]| {
            inv.args.extend(words.iter().map(|w| w.to_string()));
        };
        match self.kind {
            PeerKind::Perft => {
                push(
                    &mut inv,
                    &["count", &d, fen, "--threads", &m.threads.to_string()],
                );
                if m.hash_bytes > 0 {
                    push(&mut inv, &["--hash", &format!("{}B", m.hash_bytes)]);
                } else {
                    push(&mut inv, &["--no-hash"]);
                }
                if chess960 {
                    push(&mut inv, &["--chess960"]);
                }
                if m.stats {
                    push(&mut inv, &["--stats"]);
                }
                push(&mut inv, &["--json"]);
            }
            PeerKind::Qperft => {
                push(&mut inv, &[&d]);
                if m.hash_bytes > 0 {
                    // 2^bits entries of 16 bytes (qperft's usage text).
                    push(&mut inv, &[&format!("H{}", table_bits(m.hash_bytes, 16))]);
                }
                push(&mut inv, &[fen]);
                inv.scratch_dir = true;
            }
            PeerKind::Stockfish => {
                inv.stdin = Some(format!(
                    "setoption name UCI_Chess960 value {chess960}\nposition fen {fen}\ngo perft {depth}\nquit\n"
                ));
            }
            PeerKind::Gigantua => push(&mut inv, &[fen, &d]),
            PeerKind::PerftCpu => {
                push(&mut inv, &[fen, &d]);
                if m.hash_bytes > 0 {
                    let mb = (m.hash_bytes >> 20).max(1).to_string();
                    push(&mut inv, &["-htt", &mb]);
                } else {
                    push(&mut inv, &["-nott"]);
                }
            }
            PeerKind::Hqperft => {
                push(&mut inv, &["-f", fen, "-d", &d, "-b"]);
                if m.hash_bytes > 0 {
                    // 2^bits entries of 24 bytes (hqperft.c, `Hash`).
                    let bits = table_bits(m.hash_bytes, 24).to_string();
                    push(&mut inv, &["-H", &bits]);
                }
            }
            PeerKind::Custom => {
                inv.args = self.command[1..]
                    .iter()
                    .map(|w| w.replace("{depth}", &d).replace("{fen}", fen))
                    .collect();
            }
        }
        inv
    }

    /// Stockfish's start-up run (network loading and all): `go perft 1`
    /// from the start position, timed in the same round and subtracted.
    pub fn startup_invocation(&self) -> Option<Invocation> {
        (self.kind == PeerKind::Stockfish).then(|| Invocation {
            args: self.command[1..].to_vec(),
            stdin: Some("position startpos\ngo perft 1\nquit\n".to_string()),
            scratch_dir: false,
        })
    }
}

/// What a program's output says about one run.
#[derive(Clone, Debug, PartialEq)]
pub struct PeerOutput {
    /// The count it gives for depth D.
    pub nodes: u64,
    /// The nodes it is credited with: `nodes`, or the sum over depths 1..D
    /// for a program that counts them all and whose own times cannot say
    /// which share of the run depth D took ([`PeerOutput::depth_share`]
    /// `None`).
    pub credited_nodes: u64,
    /// Its own time for depth D, in seconds, when it prints one.
    pub own_seconds: Option<f64>,
    /// For a program that counts every depth 1..D: its own time for depth D
    /// over the sum of its own times for depths 1..D, when both are above
    /// zero. The process time times this share is depth D's, credited with
    /// depth D's count alone. The sum of the counts would not do: where the
    /// branching alternates from ply to ply (endings), depth D-1 can run at
    /// three times depth D's nodes per second (Gigantua on
    /// `8/1PP4p/3P1k1P/4P2P/7K/8/8/8 b - -`: perft 8 at 1,270 Mnps, perft 9
    /// at 453), and crediting its nodes would overstate the program's speed
    /// at depth D by 11 % (260.4M nodes in 516 ms against 215.9M in 476).
    pub depth_share: Option<f64>,
}

/// Parses the output of a run of `kind` at `depth`. `expected` is our
/// count (a custom program's count is the last integer equal to it, else
/// its last integer). `Err` quotes what is missing or unreadable.
pub fn parse_output(
    kind: PeerKind,
    text: &str,
    depth: u32,
    expected: Option<u64>,
) -> Result<PeerOutput, String> {
    let single = |nodes: u64, own: Option<f64>| PeerOutput {
        nodes,
        credited_nodes: nodes,
        own_seconds: own,
        depth_share: None,
    };
    match kind {
        PeerKind::Perft => {
            let v: serde_json::Value = serde_json::from_str(text.trim())
                .map_err(|e| format!("stdout is not the JSON of `perft count --json` ({e})"))?;
            let nodes = v["nodes"].as_u64().ok_or("no `nodes` in its JSON")?;
            Ok(single(nodes, v["seconds"].as_f64()))
        }
        PeerKind::Stockfish => {
            let mut reader = DivideReader::default();
            for line in text.lines() {
                if reader.feed(line) {
                    break;
                }
            }
            match reader.total {
                Some(n) => Ok(single(n, None)),
                None => Err(match reader.unreadable {
                    Some(line) => format!("unreadable line '{line}'"),
                    None => "no 'Nodes searched: N' line".to_string(),
                }),
            }
        }
        PeerKind::Hqperft => {
            let (n, t) = text
                .lines()
                .find_map(hqperft_line)
                .filter(|&(d, _, _)| d == depth)
                .map(|(_, n, t)| (n, t))
                .ok_or_else(|| format!("no 'perft {depth} : COUNT leaves in T s' line"))?;
            Ok(single(n, Some(t)))
        }
        PeerKind::Qperft | PeerKind::Gigantua | PeerKind::PerftCpu => {
            let read = match kind {
                PeerKind::Qperft => qperft_line,
                PeerKind::Gigantua => gigantua_line,
                _ => perft_cpu_line,
            };
            let lines: Vec<(u32, u64, f64)> = text.lines().filter_map(read).collect();
            let (_, nodes, own) = lines
                .iter()
                .copied()
                .find(|&(d, _, _)| d == depth)
                .ok_or_else(|| format!("no line for depth {depth} ({})", sample_line(kind)))?;
            let upto = || lines.iter().filter(|&&(d, _, _)| (1..=depth).contains(&d));
            let own_sum: f64 = upto().map(|&(_, _, t)| t).sum();
            let depth_share = (own > 0.0 && own_sum.is_finite() && own_sum > 0.0)
                .then(|| (own / own_sum).min(1.0));
            let credited_nodes = match depth_share {
                Some(_) => nodes,
                None => upto().fold(0u64, |s, &(_, n, _)| s.saturating_add(n)),
            };
            Ok(PeerOutput {
                nodes,
                credited_nodes,
                own_seconds: Some(own),
                depth_share,
            })
        }
        PeerKind::Custom => {
            let numbers: Vec<u64> = text
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|w| w.parse().ok())
                .collect();
            let nodes = expected
                .filter(|e| numbers.contains(e))
                .or_else(|| numbers.last().copied())
                .ok_or("no integer on stdout")?;
            Ok(single(nodes, None))
        }
    }
}

/// The line a kind prints per depth, for error messages.
fn sample_line(kind: PeerKind) -> &'static str {
    match kind {
        PeerKind::Qperft => "'perft( N)=  COUNT ( T sec)'",
        PeerKind::Gigantua => "'Perft N: COUNT Tms X MNodes/s'",
        PeerKind::PerftCpu => "'Perft(NN): COUNT, time: T seconds, nps: X'",
        _ => "",
    }
}

/// `perft( 6)=    119060324 ( 0.612 sec)` -> (6, 119060324, 0.612).
pub fn qperft_line(line: &str) -> Option<(u32, u64, f64)> {
    let rest = line.trim().strip_prefix("perft(")?;
    let (depth, rest) = rest.split_once(")=")?;
    let (count, rest) = rest.trim_start().split_once(char::is_whitespace)?;
    let secs = rest.trim().strip_prefix('(')?.trim().strip_suffix("sec)")?;
    Some((
        depth.trim().parse().ok()?,
        count.parse().ok()?,
        secs.trim().parse().ok()?,
    ))
}

/// `Perft 6: 119060324 97ms 1227.4 MNodes/s` -> (6, 119060324, 0.097).
pub fn gigantua_line(line: &str) -> Option<(u32, u64, f64)> {
    let rest = line.trim().strip_prefix("Perft ")?;
    let (depth, rest) = rest.split_once(':')?;
    let mut words = rest.split_whitespace();
    let count = words.next()?.parse().ok()?;
    let ms: f64 = words.next()?.strip_suffix("ms")?.parse().ok()?;
    Some((depth.trim().parse().ok()?, count, ms / 1000.0))
}

/// `Perft(06): 119060324, time: 0.1 seconds, nps: 1190603240` ->
/// (6, 119060324, 0.1).
pub fn perft_cpu_line(line: &str) -> Option<(u32, u64, f64)> {
    let rest = line.trim().strip_prefix("Perft(")?;
    let (depth, rest) = rest.split_once("):")?;
    let (count, rest) = rest.split_once(',')?;
    let secs = rest.trim().strip_prefix("time:")?.trim();
    let secs = secs.split_whitespace().next()?;
    Some((
        depth.trim().parse().ok()?,
        count.trim().parse().ok()?,
        secs.parse().ok()?,
    ))
}

/// `perft  6 :       119060324 leaves in      0.612 s    194542000 leaves/s`
/// -> (6, 119060324, 0.612).
pub fn hqperft_line(line: &str) -> Option<(u32, u64, f64)> {
    let rest = line.trim().strip_prefix("perft ")?;
    let (depth, rest) = rest.split_once(':')?;
    let mut words = rest.split_whitespace();
    let count = words.next()?.parse().ok()?;
    if (words.next()?, words.next()?) != ("leaves", "in") {
        return None;
    }
    let secs = words.next()?.parse().ok()?;
    Some((depth.trim().parse().ok()?, count, secs))
}

/// The SHA-256 of a file, in hex (the identity of a peer's binary).
pub fn sha256_file(path: &Path) -> Option<String> {
    use sha2::{Digest, Sha256};
    let bytes = std::fs::read(path).ok()?;
    let digest = Sha256::digest(&bytes);
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_read() {
        assert_eq!(
            qperft_line("perft( 6)=    119060324 ( 0.612 sec)"),
            Some((6, 119_060_324, 0.612))
        );
        assert_eq!(
            gigantua_line("Perft 6: 119060324 97ms 1227.4 MNodes/s"),
            Some((6, 119_060_324, 0.097))
        );
        assert_eq!(
            perft_cpu_line("Perft(06): 119060324, time: 0.1 seconds, nps: 1190603240"),
            Some((6, 119_060_324, 0.1))
        );
        assert_eq!(
            hqperft_line("perft  4 :          197281 leaves in      0.001 s    352640770 leaves/s"),
            Some((4, 197_281, 0.001))
        );
        assert_eq!(qperft_line("Quick Perft by H.G. Muller"), None);
    }

    #[test]
    fn all_depth_programs_get_depth_ds_share_of_their_time() {
        // Gigantua's own lines from the ending in `PeerOutput::depth_share`:
        // depth 8 is 33 of the 516 ms, but 42.1M of the 260.4M nodes.
        let out = "Perft 1: 4 0ms 0.8 MNodes/s\nPerft 2: 52 0ms 8.7 MNodes/s\n\
                   Perft 7: 1933018 7ms 273.0 MNodes/s\nPerft 8: 42108504 33ms 1269.6 MNodes/s\n\
                   Perft 9: 215912093 476ms 452.9 MNodes/s\n";
        let p = parse_output(PeerKind::Gigantua, out, 9, None).unwrap();
        assert_eq!((p.nodes, p.credited_nodes), (215_912_093, 215_912_093));
        let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-12;
        assert!(close(p.depth_share, 476.0 / 516.0), "{p:?}");
        // Asked for depth 8, the lines after it do not count.
        let p = parse_output(PeerKind::Gigantua, out, 8, None).unwrap();
        assert_eq!(p.credited_nodes, 42_108_504);
        assert!(close(p.depth_share, 33.0 / 40.0), "{p:?}");
    }

    #[test]
    fn all_depth_programs_without_times_are_credited_with_the_sum() {
        // Depth 3 took no time by qperft's clock: no share, the sum.
        let out = "perft( 1)=           20 ( 0.000 sec)\nperft( 2)=          400 ( 0.000 sec)\nperft( 3)=         8902 ( 0.000 sec)\n";
        let p = parse_output(PeerKind::Qperft, out, 3, None).unwrap();
        assert_eq!((p.nodes, p.credited_nodes), (8902, 9322));
        assert_eq!(p.depth_share, None);
        assert!(parse_output(PeerKind::Qperft, out, 4, None).is_err());
        // With a time for depth 3 only, it had the whole run.
        let out = out.replace("8902 ( 0.000", "8902 ( 0.001");
        let p = parse_output(PeerKind::Qperft, &out, 3, None).unwrap();
        assert_eq!((p.credited_nodes, p.depth_share), (8902, Some(1.0)));
    }

    #[test]
    fn a_custom_count_is_the_integer_equal_to_ours() {
        let out = "depth 4\n197281 nodes in 12 ms\n";
        let p = parse_output(PeerKind::Custom, out, 4, Some(197_281)).unwrap();
        assert_eq!(p.nodes, 197_281);
        assert_eq!(
            parse_output(PeerKind::Custom, out, 4, Some(5))
                .unwrap()
                .nodes,
            12
        );
        assert!(parse_output(PeerKind::Custom, "none", 4, Some(5)).is_err());
    }

    #[test]
    fn peer_arguments_parse() {
        let p = Peer::parse("qperft=/opt/q --x").unwrap();
        assert_eq!((p.kind, p.command.len()), (PeerKind::Qperft, 2));
        let p = Peer::parse("mine=./m {depth} \"{fen}\"").unwrap();
        assert_eq!((p.kind, p.name.as_str()), (PeerKind::Custom, "mine"));
        assert!(Peer::parse("mine=./m").is_err());
        assert!(Peer::parse("nonesuch").is_err());
    }

    #[test]
    fn table_flags_match_our_size() {
        let m = Matching {
            threads: 1,
            hash_bytes: 16 << 20,
            stats: false,
        };
        let q = Peer::new("qperft", PeerKind::Qperft, "q").unwrap();
        assert_eq!(q.invocation("F", false, 5, m).args, ["5", "H20", "F"]);
    }
}
