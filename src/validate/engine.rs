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
    /// The total the engine printed, or the sum of its move lines when it
    /// printed none (`total_printed` false).
    pub total: u64,
    /// True when the engine printed a total line.
    pub total_printed: bool,
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

/// What one line of an engine's divide output is, under the grammar of
/// [`classify_divide_line`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DivideLine {
    /// A move and its count (`e2e4: 20`, `e2e4 20`, `e2e4 - 20`,
    /// `e7e8Q: 1 (3 ms)`); the move is lower-cased.
    Move(String, u64),
    /// A total (`Nodes searched: N`, `Total nodes: N`, `Total: N`,
    /// `Nodes: N`, or, for perftree scripts, a bare number).
    Total(u64),
    /// An empty line.
    Blank,
    /// Anything else: banners, `info` lines, timings. Ignored.
    Chatter,
    /// A line that starts like a move line or a total but cannot be read
    /// (`e2e4: twenty`, `e7e8=Q: 1`, `Nodes searched: lots`): the reader
    /// stops with a protocol error quoting it rather than guess.
    Unreadable,
}

/// Total labels accepted before `:` (case-insensitive), longest first.
const TOTAL_LABELS: [&str; 4] = ["nodes searched", "total nodes", "total", "nodes"];

/// Reads a count at the start of `text`: ASCII digits ending the text or
/// followed by whitespace or `(` (then anything: a timing, a unit). `None`
/// when there is no such count (`1,234`, `12k`, `-1`).
fn leading_count(text: &str) -> Option<u64> {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    if end == 0 {
        return None;
    }
    let rest = &text[end..];
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace) || rest.starts_with('(')) {
        return None;
    }
    text[..end].parse().ok()
}

/// True if `text` starts with two squares (`e2e4...`): a line starting so
/// is meant as a move line.
fn starts_like_move(text: &str) -> bool {
    let b = text.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    b.len() >= 4 && square(b[0], b[1]) && square(b[2], b[3])
}

/// Classifies one line of divide output. The grammar (after trimming):
///
/// ```text
/// move line  := MOVE SEP? COUNT TRAILER?
///   MOVE     := [a-h][1-8][a-h][1-8] [nbrqNBRQ]?   (UCI; promotion in either case)
///   SEP      := ":" | "-" | whitespace only         (`e2e4: 20`, `e2e4 - 20`, `e2e4 20`)
///   COUNT    := decimal digits
///   TRAILER  := whitespace or "(" then anything     (`e2e4: 20 (3 ms)`, `e2e4: 20 nodes`)
/// total      := LABEL ":" COUNT TRAILER?, LABEL one of
///               "Nodes searched", "Total nodes", "Total", "Nodes" (any case)
///            |  COUNT alone on its line             (only with `bare_total`: perftree)
/// blank      := empty line
/// ```
///
/// A line that starts with two squares but is not a move line, or a
/// `LABEL:` whose value is not a count, is [`DivideLine::Unreadable`].
/// Everything else (UCI `info` lines, banners, `Time: 12 ms`) is chatter.
pub fn classify_divide_line(line: &str, bare_total: bool) -> DivideLine {
    let line = line.trim();
    if line.is_empty() {
        return DivideLine::Blank;
    }
    if starts_like_move(line) {
        let (mv, rest) = line.split_at(4);
        let (mv, rest) = match rest.as_bytes().first() {
            Some(p) if b"nbrqNBRQ".contains(p) => {
                let (promo, rest) = rest.split_at(1);
                (format!("{mv}{}", promo.to_ascii_lowercase()), rest)
            }
            _ => (mv.to_string(), rest),
        };
        // The move must end here: `e2e4:`, `e2e4 `, not `e2e4x` or `e7e8=Q`.
        if !(rest.starts_with(':') || rest.starts_with(char::is_whitespace)) {
            return DivideLine::Unreadable;
        }
        let rest = rest.trim_start();
        let rest = rest
            .strip_prefix(':')
            .or_else(|| rest.strip_prefix('-'))
            .unwrap_or(rest)
            .trim_start();
        return match leading_count(rest) {
            Some(n) => DivideLine::Move(mv, n),
            None => DivideLine::Unreadable,
        };
    }
    if bare_total && line.bytes().all(|b| b.is_ascii_digit()) {
        return line
            .parse()
            .map_or(DivideLine::Unreadable, DivideLine::Total);
    }
    let lower = line.to_ascii_lowercase();
    for label in TOTAL_LABELS {
        if let Some(rest) = lower.strip_prefix(label)
            && let Some(value) = rest.trim_start().strip_prefix(':')
        {
            return match leading_count(value.trim_start()) {
                Some(n) => DivideLine::Total(n),
                None => DivideLine::Unreadable,
            };
        }
    }
    DivideLine::Chatter
}

/// Collects a divide line by line (see [`classify_divide_line`] for the
/// grammar): move lines in order, the first total, and the first line that
/// could not be read.
#[derive(Clone, Debug, Default)]
pub struct DivideReader {
    /// Accept a count alone on its line as the total (perftree scripts).
    pub bare_total: bool,
    /// Move lines read so far.
    pub moves: Vec<(String, u64)>,
    /// The total, once read.
    pub total: Option<u64>,
    /// The first unreadable line.
    pub unreadable: Option<String>,
}

impl DivideReader {
    /// Feeds one line; returns true when the divide is complete (a total
    /// was read) or broken (an unreadable line).
    pub fn feed(&mut self, line: &str) -> bool {
        match classify_divide_line(line, self.bare_total) {
            DivideLine::Move(mv, n) => self.moves.push((mv, n)),
            DivideLine::Total(n) => self.total = Some(n),
            DivideLine::Unreadable => self.unreadable = Some(line.trim().to_string()),
            DivideLine::Blank | DivideLine::Chatter => {}
        }
        self.total.is_some() || self.unreadable.is_some()
    }

    /// The divide read: the printed total, or the sum of the move lines
    /// when none was printed. Errors with the unreadable line, if any.
    pub fn finish(self) -> Result<EngineDivide, String> {
        if let Some(line) = self.unreadable {
            return Err(line);
        }
        let total_printed = self.total.is_some();
        let total = self.total.unwrap_or_else(|| {
            self.moves
                .iter()
                .fold(0u64, |sum, (_, n)| sum.saturating_add(*n))
        });
        Ok(EngineDivide {
            moves: self.moves,
            total,
            total_printed,
        })
    }
}

/// Parses a move line (any of the forms of [`classify_divide_line`]).
pub fn parse_divide_line(line: &str) -> Option<(String, u64)> {
    match classify_divide_line(line, false) {
        DivideLine::Move(mv, n) => Some((mv, n)),
        _ => None,
    }
}

/// True if `text` looks like a UCI move (`e2e4`, `e7e8q`).
pub fn is_uci_move(text: &str) -> bool {
    let b = text.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    (b.len() == 4 || (b.len() == 5 && b"nbrq".contains(&b[4])))
        && square(b[0], b[1])
        && square(b[2], b[3])
}

/// How long an engine's output must stay quiet before we ask, with
/// `isready`, whether a divide without a total line is complete.
pub const QUIET: Duration = Duration::from_millis(200);

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
            Err(RecvTimeoutError::Timeout) => Err(self.timeout_error(during)),
            Err(RecvTimeoutError::Disconnected) => Err(self.exited_error(during)),
        }
    }

    fn timeout_error(&self, during: &str) -> EngineError {
        EngineError::Timeout {
            command: self.command.clone(),
            seconds: self.timeout.as_secs_f64(),
            during: during.to_string(),
        }
    }

    fn exited_error(&mut self, during: &str) -> EngineError {
        let status = match self.child.wait() {
            Ok(s) => format!(" ({s})"),
            Err(_) => String::new(),
        };
        EngineError::Exited {
            command: self.command.clone(),
            during: during.to_string(),
            status,
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
    /// reads the divide (grammar: [`classify_divide_line`]).
    ///
    /// The divide ends at its total line. An engine that prints no total
    /// recognised is not waited on until the timeout: after a quiet
    /// interval ([`QUIET`]) we send `isready`, and once `readyok` has come
    /// and the output has been quiet again, its move lines are the divide
    /// (their sum the total). An engine that exits after its output is
    /// decided on the spot. An unreadable line is a protocol error.
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
        let mut reader = DivideReader::default();
        // `isready` sent after a quiet interval; `readyok` received.
        let (mut probed, mut ready) = (false, false);
        let mut last_line = Instant::now();
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(self.timeout_error(&during));
            }
            let wait = if probed && !ready {
                deadline - now
            } else {
                QUIET.min(deadline - now)
            };
            match self.lines.recv_timeout(wait) {
                Ok(line) => {
                    if probed && !ready && line.trim() == "readyok" {
                        ready = true;
                        continue;
                    }
                    last_line = Instant::now();
                    if reader.feed(&line) {
                        if probed && !ready && reader.unreadable.is_none() {
                            // Keep the protocol in step: the answer to our
                            // `isready` is still to come.
                            self.wait_for("readyok", "waiting for 'readyok' after 'isready'")?;
                        }
                        break;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    if !probed {
                        self.send("isready")?;
                        probed = true;
                    } else if ready {
                        // Quiet since `readyok`: the output is complete. With no
                        // move line at all, give a slow engine longer.
                        let quiet_for = if reader.moves.is_empty() {
                            QUIET * 8
                        } else {
                            QUIET
                        };
                        if last_line.elapsed() >= quiet_for {
                            break;
                        }
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    if reader.moves.is_empty() {
                        return Err(self.exited_error(&during));
                    }
                    break;
                }
            }
        }
        reader.finish().map_err(|line| EngineError::Protocol {
            command: self.command.clone(),
            during,
            line,
        })
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

/// Parses a perftree script's output with the grammar of
/// [`classify_divide_line`], a count alone on its line accepted as the
/// total (perftree's own format: `<move> <count>` lines, one empty line,
/// the total). Without a total the sum of the move lines is taken. On error
/// returns the offending line.
pub fn parse_perftree_output(text: &str) -> Result<EngineDivide, String> {
    let mut reader = DivideReader {
        bare_total: true,
        ..DivideReader::default()
    };
    for line in text.lines() {
        if reader.feed(line) {
            break;
        }
    }
    reader.finish()
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
    fn perftree_output_takes_a_bare_total_and_quotes_bad_lines() {
        let d = parse_perftree_output("e2e4 20\na2a3 20\n\n40\n").unwrap();
        assert_eq!(d.moves, vec![("e2e4".into(), 20), ("a2a3".into(), 20)]);
        assert_eq!(d.total, 40);
        assert!(d.total_printed);
        assert_eq!(parse_perftree_output("\n0\n").unwrap().total, 0);
        let d = parse_perftree_output("e2e4: 20\na2a3 - 20\n").unwrap();
        assert_eq!((d.total, d.total_printed), (40, false));
        assert_eq!(
            parse_perftree_output("e2e4 twenty\n\n20\n").unwrap_err(),
            "e2e4 twenty"
        );
    }

    #[test]
    fn every_divide_format_in_the_wild_is_read() {
        let m = |mv: &str, n| DivideLine::Move(mv.to_string(), n);
        for (line, want) in [
            ("e2e4: 20", m("e2e4", 20)),
            ("e2e4 20", m("e2e4", 20)),
            ("e2e4 - 20", m("e2e4", 20)),
            ("e2e4: 20 (3 ms)", m("e2e4", 20)),
            ("e2e4: 20 (ms)", m("e2e4", 20)),
            ("  e2e4:20  ", m("e2e4", 20)),
            ("e7e8Q: 1", m("e7e8q", 1)),
            ("e7e8n 1", m("e7e8n", 1)),
            ("Nodes searched: 197281", DivideLine::Total(197_281)),
            ("Total nodes: 8902", DivideLine::Total(8902)),
            ("Total: 400", DivideLine::Total(400)),
            ("nodes : 20 in 1 ms", DivideLine::Total(20)),
            ("", DivideLine::Blank),
            (
                "info string NNUE evaluation using nn.nnue",
                DivideLine::Chatter,
            ),
            ("info depth 1 nodes 20", DivideLine::Chatter),
            ("Time: 12 ms", DivideLine::Chatter),
            ("Total time (ms) : 3", DivideLine::Chatter),
            ("Nodes/second : 1000", DivideLine::Chatter),
            ("e2e4: twenty", DivideLine::Unreadable),
            ("e2e4: 1,234", DivideLine::Unreadable),
            ("e2e4: -1", DivideLine::Unreadable),
            ("e7e8=Q: 1", DivideLine::Unreadable),
            ("e2e4", DivideLine::Unreadable),
            ("Nodes searched: lots", DivideLine::Unreadable),
        ] {
            assert_eq!(classify_divide_line(line, false), want, "{line:?}");
        }
        assert_eq!(classify_divide_line("400", false), DivideLine::Chatter);
        assert_eq!(classify_divide_line("400", true), DivideLine::Total(400));
    }

    #[test]
    fn a_divide_without_total_sums_its_lines() {
        let mut r = DivideReader::default();
        for line in ["id name x", "a2a3 - 20", "", "b2b3 - 20"] {
            assert!(!r.feed(line));
        }
        let d = r.finish().unwrap();
        assert_eq!((d.total, d.total_printed, d.moves.len()), (40, false, 2));
    }
}
