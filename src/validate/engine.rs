//! Driving an external engine that prints perft divides: a UCI engine
//! (`go perft N`, Stockfish's output) or a perftree script.
//!
//! The engine runs as a child process. A reader thread forwards its stdout
//! lines over a channel so every wait has a timeout: an engine that hangs,
//! crashes or prints garbage gives an [`EngineError`], never a hang.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use thiserror::Error;

/// What went wrong with an engine.
#[derive(Debug, Error)]
pub enum EngineError {
    /// The command could not be started.
    #[error("cannot start engine '{command}': {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The command line is empty.
    #[error("engine command is empty")]
    EmptyCommand,
    /// The engine exited or closed its output.
    #[error("engine '{command}' exited unexpectedly while {during}{status}")]
    Exited {
        /// The command line.
        command: String,
        /// What we were waiting for.
        during: String,
        /// Exit status, if known.
        status: String,
    },
    /// No answer in time.
    #[error("engine '{command}' did not answer within {seconds:.0} s while {during}")]
    Timeout {
        /// The command line.
        command: String,
        /// Seconds waited.
        seconds: f64,
        /// What we were waiting for.
        during: String,
    },
    /// Output that does not follow the protocol.
    #[error("engine '{command}' sent an unexpected line while {during}: '{line}'")]
    Protocol {
        /// The command line.
        command: String,
        /// What we were waiting for.
        during: String,
        /// The line.
        line: String,
    },
    /// Writing to the engine failed.
    #[error("cannot write to engine '{command}': {source}")]
    Write {
        /// The command line.
        command: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// A divide as printed by an engine: per-move counts and the total.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineDivide {
    /// `(uci move, count)` in the engine's order.
    pub moves: Vec<(String, u64)>,
    /// The total the engine printed.
    pub total: u64,
}

/// Splits a command line into words, honouring single and double quotes and
/// backslash escapes (enough for `--engine "./my engine" --uci`-style input).
pub fn split_command(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                    in_word = true;
                }
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The name in an `option name <NAME> type ...` line (names may contain
/// spaces).
pub fn parse_option_name(line: &str) -> Option<String> {
    let rest = line.strip_prefix("option name ")?;
    let name = match rest.find(" type ") {
        Some(i) => &rest[..i],
        None => rest,
    };
    Some(name.trim().to_string()).filter(|n| !n.is_empty())
}

/// Parses a `move: count` line (Stockfish's divide format).
pub fn parse_divide_line(line: &str) -> Option<(String, u64)> {
    let (mv, count) = line.split_once(':')?;
    let mv = mv.trim();
    if !is_uci_move(mv) {
        return None;
    }
    let count = count.trim();
    if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((mv.to_string(), count.parse().ok()?))
}

/// True if `text` looks like a UCI move (`e2e4`, `e7e8q`).
pub fn is_uci_move(text: &str) -> bool {
    let b = text.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    (b.len() == 4 || (b.len() == 5 && b"nbrq".contains(&b[4])))
        && square(b[0], b[1])
        && square(b[2], b[3])
}

/// A running UCI engine.
pub struct UciEngine {
    command: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    timeout: Duration,
    chess960: Option<bool>,
    options: Vec<String>,
}

impl UciEngine {
    /// Starts `command` (split into words, quotes honoured), performs the
    /// `uci`/`uciok` and `isready`/`readyok` handshake.
    pub fn start(command: &str, timeout: Duration) -> Result<UciEngine, EngineError> {
        let words = split_command(command);
        let (program, args) = words.split_first().ok_or(EngineError::EmptyCommand)?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| EngineError::Spawn {
                command: command.to_string(),
                source,
            })?;
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = UciEngine {
            command: command.to_string(),
            child,
            stdin,
            lines: rx,
            timeout,
            chess960: None,
            options: Vec::new(),
        };
        engine.send("uci")?;
        let deadline = Instant::now() + engine.timeout;
        loop {
            let line = engine.next_line("waiting for 'uciok' after 'uci'", deadline)?;
            let line = line.trim();
            if line == "uciok" {
                break;
            }
            if let Some(name) = parse_option_name(line) {
                engine.options.push(name);
            }
        }
        engine.sync()?;
        Ok(engine)
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|source| EngineError::Write {
                command: self.command.clone(),
                source,
            })
    }

    /// Sends `isready` and waits for `readyok`.
    pub fn sync(&mut self) -> Result<(), EngineError> {
        self.send("isready")?;
        self.wait_for("readyok", "waiting for 'readyok' after 'isready'")
    }

    /// Sets a UCI option.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        self.send(&format!("setoption name {name} value {value}"))?;
        self.sync()
    }

    fn next_line(&mut self, during: &str, deadline: Instant) -> Result<String, EngineError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Timeout {
                command: self.command.clone(),
                seconds: self.timeout.as_secs_f64(),
                during: during.to_string(),
            }),
            Err(RecvTimeoutError::Disconnected) => {
                let status = match self.child.wait() {
                    Ok(s) => format!(" ({s})"),
                    Err(_) => String::new(),
                };
                Err(EngineError::Exited {
                    command: self.command.clone(),
                    during: during.to_string(),
                    status,
                })
            }
        }
    }

    fn wait_for(&mut self, token: &str, during: &str) -> Result<(), EngineError> {
        let deadline = Instant::now() + self.timeout;
        loop {
            if self.next_line(during, deadline)?.trim() == token {
                return Ok(());
            }
        }
    }

    /// Runs `position fen <fen> [moves ...]` and `go perft <depth>`, and
    /// reads the divide. Lines that are not `move: count` or `Nodes searched`
    /// (info strings, banners) are ignored.
    pub fn divide(
        &mut self,
        fen: &str,
        moves: &[String],
        depth: u32,
    ) -> Result<EngineDivide, EngineError> {
        let mut cmd = format!("position fen {fen}");
        if !moves.is_empty() {
            cmd.push_str(" moves ");
            cmd.push_str(&moves.join(" "));
        }
        self.send(&cmd)?;
        self.send(&format!("go perft {depth}"))?;
        let during = format!("running 'go perft {depth}' on '{fen}'");
        let deadline = Instant::now() + self.timeout;
        let mut result = Vec::new();
        loop {
            let line = self.next_line(&during, deadline)?;
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("Nodes searched:") {
                let total = rest.trim().parse().map_err(|_| EngineError::Protocol {
                    command: self.command.clone(),
                    during: during.clone(),
                    line: line.to_string(),
                })?;
                return Ok(EngineDivide {
                    moves: result,
                    total,
                });
            }
            if let Some(entry) = parse_divide_line(line) {
                result.push(entry);
            }
        }
    }

    /// The timeout per request.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The option names the engine listed after `uci`.
    pub fn options(&self) -> &[String] {
        &self.options
    }

    /// Changes the timeout per request (e.g. a short one for the handshake,
    /// a long one for deep divides).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }
}

impl DivideEngine for UciEngine {
    fn divide(
        &mut self,
        fen: &str,
        moves: &[String],
        depth: u32,
    ) -> Result<EngineDivide, EngineError> {
        UciEngine::divide(self, fen, moves, depth)
    }

    fn set_chess960(&mut self, chess960: bool) -> Result<(), EngineError> {
        if self.chess960 != Some(chess960) {
            self.set_option("UCI_Chess960", if chess960 { "true" } else { "false" })?;
            self.chess960 = Some(chess960);
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("{} (uci)", self.command)
    }
}

/// Anything that can print a divide of a position given as a root FEN plus
/// a move path: a UCI engine or a perftree script.
pub trait DivideEngine {
    /// The per-move counts of `fen` after `moves`, at `depth` (at least 1).
    fn divide(
        &mut self,
        fen: &str,
        moves: &[String],
        depth: u32,
    ) -> Result<EngineDivide, EngineError>;

    /// Switches Chess960 castling notation on or off (a no-op for engines
    /// that read it from the FEN).
    fn set_chess960(&mut self, chess960: bool) -> Result<(), EngineError>;

    /// The command line and kind, for reports.
    fn describe(&self) -> String;
}

/// A script speaking the `perftree` protocol: it is run once per divide as
/// `command DEPTH FEN [MOVES]` (MOVES space-separated, the argument absent
/// when there are none) and prints `<move> <count>` lines, one empty line,
/// then the total alone on its line.
pub struct PerftreeEngine {
    command: String,
    words: Vec<String>,
    timeout: Duration,
}

impl PerftreeEngine {
    /// A perftree engine for `command` (split into words, quotes honoured).
    /// Nothing runs until the first divide; the program must exist.
    pub fn new(command: &str, timeout: Duration) -> Result<PerftreeEngine, EngineError> {
        let words = split_command(command);
        if words.is_empty() {
            return Err(EngineError::EmptyCommand);
        }
        Ok(PerftreeEngine {
            command: command.to_string(),
            words,
            timeout,
        })
    }

    fn protocol_error(&self, during: &str, line: &str) -> EngineError {
        EngineError::Protocol {
            command: self.command.clone(),
            during: during.to_string(),
            line: line.to_string(),
        }
    }

    /// Parses the protocol output: `<move> <count>` lines, one empty line,
    /// the total. Anything else is a protocol error naming the line.
    pub fn parse_output(&self, text: &str, during: &str) -> Result<EngineDivide, EngineError> {
        parse_perftree_output(text).map_err(|line| self.protocol_error(during, &line))
    }
}

/// Parses perftree protocol output; on error returns the offending line
/// (or a description of what is missing).
pub fn parse_perftree_output(text: &str) -> Result<EngineDivide, String> {
    let mut lines = text.lines();
    let mut moves = Vec::new();
    loop {
        let Some(line) = lines.next() else {
            return Err("(end of output before the empty line and the total)".into());
        };
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            break;
        }
        let entry = line.split_once(' ').and_then(|(mv, n)| {
            let ok = is_uci_move(mv) && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
            ok.then(|| n.parse::<u64>().ok().map(|n| (mv.to_string(), n)))
                .flatten()
        });
        moves.push(entry.ok_or_else(|| line.to_string())?);
    }
    let total_line = lines
        .next()
        .ok_or_else(|| "(end of output: no total after the empty line)".to_string())?;
    let total_line = total_line.trim_end_matches('\r');
    let total = Some(total_line)
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| total_line.to_string())?;
    if let Some(extra) = lines.find(|l| !l.trim().is_empty()) {
        return Err(extra.to_string());
    }
    Ok(EngineDivide { moves, total })
}

impl DivideEngine for PerftreeEngine {
    fn divide(
        &mut self,
        fen: &str,
        moves: &[String],
        depth: u32,
    ) -> Result<EngineDivide, EngineError> {
        let during = format!("running '{} {depth} \"{fen}\"'", self.command);
        let mut cmd = Command::new(&self.words[0]);
        cmd.args(&self.words[1..]).arg(depth.to_string()).arg(fen);
        if !moves.is_empty() {
            cmd.arg(moves.join(" "));
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| EngineError::Spawn {
                command: self.command.clone(),
                source,
            })?;
        let mut stdout = child.stdout.take().expect("stdout was piped");
        let mut stderr = child.stderr.take().expect("stderr was piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut out = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut out);
            let _ = tx.send(out);
        });
        let err_reader = std::thread::spawn(move || {
            let mut err = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut err);
            err
        });
        let out = match rx.recv_timeout(self.timeout) {
            Ok(out) => out,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(EngineError::Timeout {
                    command: self.command.clone(),
                    seconds: self.timeout.as_secs_f64(),
                    during,
                });
            }
        };
        let status = child.wait().map_err(|source| EngineError::Spawn {
            command: self.command.clone(),
            source,
        })?;
        let err = err_reader.join().unwrap_or_default();
        if !status.success() {
            let first = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let detail = if first.is_empty() {
                format!(" ({status})")
            } else {
                format!(" ({status}; stderr: {first})")
            };
            return Err(EngineError::Exited {
                command: self.command.clone(),
                during,
                status: detail,
            });
        }
        self.parse_output(&out, &during)
    }

    fn set_chess960(&mut self, _chess960: bool) -> Result<(), EngineError> {
        // The perftree protocol has no options: Chess960 is told by the FEN
        // (Shredder-FEN castling letters).
        Ok(())
    }

    fn describe(&self) -> String {
        format!("{} (perftree)", self.command)
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Finds a Stockfish binary: `$STOCKFISH`, then `stockfish` on `PATH`, then
/// Debian's `/usr/games/stockfish`.
pub fn find_stockfish() -> Option<String> {
    if let Ok(path) = std::env::var("STOCKFISH")
        && !path.is_empty()
    {
        return Some(path);
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path_var).chain([std::path::PathBuf::from("/usr/games")]) {
        let candidate = dir.join("stockfish");
        if candidate.is_file() {
            return Some(candidate.display().to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_command_honours_quotes() {
        assert_eq!(split_command("stockfish"), vec!["stockfish"]);
        assert_eq!(
            split_command(r#"python3 'my engine.py' --x "a b" c\ d"#),
            vec!["python3", "my engine.py", "--x", "a b", "c d"]
        );
        assert!(split_command("   ").is_empty());
    }

    #[test]
    fn option_names_may_contain_spaces() {
        assert_eq!(
            parse_option_name("option name Clear Hash type button").as_deref(),
            Some("Clear Hash")
        );
        assert_eq!(
            parse_option_name("option name Threads type spin default 1 min 1 max 1024").as_deref(),
            Some("Threads")
        );
        assert_eq!(parse_option_name("id name x"), None);
    }

    #[test]
    fn perftree_output_parses_strictly() {
        let d = parse_perftree_output("e2e4 20\na2a3 20\n\n40\n").unwrap();
        assert_eq!(d.moves, vec![("e2e4".into(), 20), ("a2a3".into(), 20)]);
        assert_eq!(d.total, 40);
        assert_eq!(parse_perftree_output("\n0\n").unwrap().total, 0);
        assert_eq!(
            parse_perftree_output("e2e4: 20\n\n20\n").unwrap_err(),
            "e2e4: 20"
        );
        assert!(parse_perftree_output("e2e4 20\n").is_err());
        assert_eq!(
            parse_perftree_output("e2e4 20\n\n20\nmore\n").unwrap_err(),
            "more"
        );
    }

    #[test]
    fn divide_lines_parse() {
        assert_eq!(parse_divide_line("e2e4: 20"), Some(("e2e4".into(), 20)));
        assert_eq!(parse_divide_line("e7e8q: 1"), Some(("e7e8q".into(), 1)));
        assert_eq!(parse_divide_line("info string x: 1"), None);
        assert_eq!(parse_divide_line("e2e4: -1"), None);
    }
}
