//! `perft uci`: a UCI loop on stdin/stdout, enough for GUIs and tools.
//!
//! Commands: `uci`, `isready`, `ucinewgame`, `position startpos|fen ...
//! [moves ...]`, `go perft N` (Stockfish's output: `move: count` lines, a
//! blank line, `Nodes searched: N`, a blank line), `go depth N`, `go nodes
//! N`, `go movetime MS`, clock times, `go infinite` and `go ponder` (the
//! alpha-beta search of [`crate::search`](mod@crate::search), in its own thread: `info` lines
//! and `bestmove`; `stop` ends it at once, `ponderhit` starts its clock),
//! `setoption name Threads|Hash|Restart|UCI_Chess960 value V`, `d` (print the FEN),
//! `debug`, `quit`. Unknown commands are ignored as UCI requires, with an
//! `info string` saying so; nothing the GUI sends makes the loop panic.
//!
//! Restartable nodes: a search stopped by `stop` or by its limits (`go nodes
//! N`, `movetime`, the clock) leaves its state; the next `go` on the same
//! position (same moves) continues it where it stopped (`info string resumed
//! at depth D`) instead of starting over. Another position, `ucinewgame`, a
//! `Hash` change or `setoption name Restart value false` discards it.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use clap::Args;

use super::config::{EngineArgs, build_perft};
use crate::chess::fen::STARTPOS;
use crate::chess::position::Position;
use crate::chess::zobrist::Zobrist;
use crate::error::{EXIT_OK, Error};
use crate::perft::{Control, Perft, PerftConfig};
use crate::search::tt::Tt;
use crate::search::{self, Limits, SearchOptions, SearchState};

/// Where a session writes: stdout, or a buffer in tests. Shared with the
/// search thread, which prints `info` lines and `bestmove`.
pub type SharedOut = Arc<Mutex<Box<dyn Write + Send>>>;

/// A search running in its own thread.
struct Running {
    /// Raised by `stop` (or by the `ponderhit` timer): the search returns
    /// its best move at once.
    stop: Arc<AtomicBool>,
    /// While raised, a search that has finished holds its `bestmove` back
    /// (`go infinite` and `go ponder` must not answer before `stop` or
    /// `ponderhit`).
    hold: Arc<AtomicBool>,
    /// For `go ponder`: the time to search once `ponderhit` comes.
    ponder_time: Option<Duration>,
    /// `go infinite`: only `stop` ends it.
    infinite: bool,
    /// The thread; it gives the TT and the search state back.
    thread: JoinHandle<(Option<Tt>, SearchState)>,
}

/// `perft uci` arguments.
#[derive(Debug, Args)]
pub struct UciArgs {
    /// Initial threads (the GUI may change them with `setoption name Threads`).
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Largest `Threads` value accepted.
const MAX_THREADS: usize = crate::perft::MAX_THREADS;
/// Largest `Hash` value accepted (MiB).
const MAX_HASH_MIB: u64 = 1 << 20;
/// `Hash` at start (MiB), as Stockfish.
const DEFAULT_HASH_MIB: u64 = 16;

/// Reads a UCI `Hash` value in the program's one size grammar (a bare
/// number is MiB, as UCI says; `512MiB`, `1GiB` work too) and checks it
/// against the memory available now, so a size the machine cannot hold is
/// refused at once, in one line, with the same figure as `--hash`.
fn parse_hash(value: &str) -> Result<u64, String> {
    let bytes = crate::perft::hash::parse_size(value)?;
    let range = || format!("expected 1 to {MAX_HASH_MIB} MiB in whole MiB, found '{value}'");
    if bytes % (1 << 20) != 0 || bytes == 0 {
        return Err(range());
    }
    crate::perft::hash::check_available(bytes).map_err(|available| {
        format!(
            "hash table of {} requested, but only {available} of memory is available",
            crate::perft::hash::human_bytes(bytes)
        )
    })?;
    if bytes >> 20 > u128::from(MAX_HASH_MIB) {
        return Err(range());
    }
    Ok((bytes >> 20) as u64)
}

/// The state of a UCI session.
pub struct UciSession {
    config: PerftConfig,
    perft: Option<Perft>,
    hash_mib: u64,
    /// The search TT, kept across `go` commands of a game (`ucinewgame`
    /// and a `Hash` change drop it).
    tt: Option<Tt>,
    /// The TT could not be allocated (said once; retried after a `Hash`
    /// change or `ucinewgame`).
    tt_failed: bool,
    /// What a stopped search left for the next `go` on the same position
    /// (restartable nodes).
    search_state: SearchState,
    /// The `Restart` option: resume stopped searches.
    restart: bool,
    /// `--no-hash`: `go perft` counts without a perft table whatever `Hash` says.
    no_perft_table: bool,
    chess960: bool,
    /// The current position and the keys of the game positions before it
    /// (for repetition draws), or why the last `position` command failed.
    position: Result<(Position, Vec<u64>), String>,
    /// The search in progress, if any.
    running: Option<Running>,
    out: SharedOut,
}

impl UciSession {
    /// A session with the driver settings `config`, at the start position,
    /// writing to `out`.
    pub fn new(mut config: PerftConfig, out: SharedOut) -> UciSession {
        // The UCI `Hash` option sizes the perft table (and the search TT).
        config.hash_bytes = u128::from(DEFAULT_HASH_MIB) << 20;
        UciSession {
            config,
            perft: None,
            hash_mib: DEFAULT_HASH_MIB,
            tt: None,
            tt_failed: false,
            search_state: SearchState::new(),
            restart: true,
            no_perft_table: false,
            chess960: false,
            position: Ok((Position::startpos(), Vec::new())),
            running: None,
            out,
        }
    }

    /// Writes `text` and flushes.
    fn say(&self, text: &str) -> Result<(), Error> {
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        out.write_all(text.as_bytes())?;
        out.flush()?;
        Ok(())
    }

    /// Ends the running search, if any: `stop` asks it to return at once;
    /// otherwise a search with a limit runs to it, and one without
    /// (`infinite`, `ponder`) is stopped, since nothing else would end it.
    /// Takes the TT back.
    pub fn finish_search(&mut self, stop: bool) {
        if let Some(run) = self.running.take() {
            if stop || run.hold.load(Ordering::SeqCst) {
                run.stop.store(true, Ordering::SeqCst);
            }
            if let Ok((tt, state)) = run.thread.join() {
                self.tt = tt;
                self.search_state = state;
            }
        }
    }

    /// `ponderhit`: the pondered move was played; the search goes on as a
    /// normal one, its clock starting now.
    fn ponderhit(&mut self) {
        let Some(run) = &mut self.running else {
            return;
        };
        if !run.infinite {
            // Now the search may answer when it reaches its limits.
            run.hold.store(false, Ordering::SeqCst);
        }
        if let Some(time) = run.ponder_time.take() {
            let stop = Arc::clone(&run.stop);
            std::thread::spawn(move || {
                std::thread::sleep(time);
                stop.store(true, Ordering::SeqCst);
            });
        }
    }

    /// Handles one input line. Returns `false` after `quit`.
    ///
    /// While a search runs, `isready` is answered at once, `stop` and
    /// `ponderhit` act on it, and any other command first lets the search
    /// end (a limited one runs to its limit; `infinite` and `ponder` are
    /// stopped).
    pub fn handle(&mut self, line: &str) -> Result<bool, Error> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, rest)) = words.split_first() else {
            return Ok(true);
        };
        match command {
            "isready" => return self.say("readyok\n").map(|_| true),
            "stop" => {
                self.finish_search(true);
                return Ok(true);
            }
            "ponderhit" => {
                self.ponderhit();
                return Ok(true);
            }
            "debug" => return Ok(true),
            _ => self.finish_search(false),
        }
        match command {
            "uci" => self.say(&format!(
                "id name perft {}\nid author the perft authors\n\n\
                 option name Threads type spin default {} min 1 max {MAX_THREADS}\n\
                 option name Hash type spin default {} min 1 max {MAX_HASH_MIB}\n\
                 option name Restart type check default true\n\
                 option name UCI_Chess960 type check default false\nuciok\n",
                env!("CARGO_PKG_VERSION"),
                self.config.threads,
                self.hash_mib
            ))?,
            "ucinewgame" => {
                self.tt = None;
                self.tt_failed = false;
                self.search_state = SearchState::new();
            }
            "quit" => return Ok(false),
            "position" => self.set_position(rest)?,
            "setoption" => self.set_option(rest)?,
            "go" => self.go(rest)?,
            "d" => match &self.position {
                Ok((pos, _)) => self.say(&format!("Fen: {}\n", pos.to_fen()))?,
                Err(e) => self.say(&format!("info string no valid position: {e}\n"))?,
            },
            _ => self.say(&format!(
                "info string unknown command '{}' ignored\n",
                line.trim()
            ))?,
        }
        Ok(true)
    }

    /// Sets the position. A bad FEN is reported at once and kept as an
    /// error, so a later `go perft` cannot count a stale position. A move
    /// that is not legal ends the move list there: the position after the
    /// last legal move is kept, and an `info string` says so (as Stockfish
    /// does).
    fn set_position(&mut self, words: &[&str]) -> Result<(), Error> {
        let (position, warning) = match self.parse_position(words) {
            Ok((pos, history, warning)) => (Ok((pos, history)), warning),
            Err(e) => (Err(e.clone()), Some(format!("error: {e}"))),
        };
        self.position = position;
        if let Some(w) = warning {
            self.say(&format!("info string {w}\n"))?;
        }
        Ok(())
    }

    /// The position, the keys before it, and a note when the move list
    /// stopped at an illegal move.
    fn parse_position(
        &self,
        words: &[&str],
    ) -> Result<(Position, Vec<u64>, Option<String>), String> {
        let moves_at = words.iter().position(|&w| w == "moves");
        let (spec, moves) = match moves_at {
            Some(i) => (&words[..i], &words[i + 1..]),
            None => (words, &[][..]),
        };
        let mut pos = match spec.split_first() {
            Some((&"startpos", [])) => {
                Position::from_fen_with(STARTPOS, self.chess960, Zobrist::DEFAULT)
                    .map_err(|e| e.to_string())?
            }
            Some((&"fen", fields)) if !fields.is_empty() => {
                Position::from_fen_with(&fields.join(" "), self.chess960, Zobrist::DEFAULT)
                    .map_err(|e| e.to_string())?
            }
            _ => {
                return Err(format!(
                    "expected 'position startpos|fen <FEN> [moves ...]', found 'position {}'",
                    words.join(" ")
                ));
            }
        };
        // Shredder-FEN letters switch Chess960 notation on by themselves;
        // with UCI_Chess960 off, castling is written (and read) e1g1/e1c1
        // whatever the FEN said, as Stockfish does. The rules are the same.
        if !self.chess960 {
            pos.set_chess960(false);
        }
        let mut history = Vec::with_capacity(moves.len());
        for (i, text) in moves.iter().enumerate() {
            let Some(mv) = pos.parse_uci(text) else {
                let kept = if i == 0 {
                    "the position before any move is kept".to_string()
                } else {
                    format!("the position after move {i} '{}' is kept", moves[i - 1])
                };
                let note = format!(
                    "error: move {} '{text}' is not legal in {}; {kept}",
                    i + 1,
                    pos.to_fen()
                );
                return Ok((pos, history, Some(note)));
            };
            history.push(pos.hash());
            pos = pos.play_unchecked(mv);
        }
        Ok((pos, history, None))
    }

    fn set_option(&mut self, words: &[&str]) -> Result<(), Error> {
        let shared = Arc::clone(&self.out);
        let mut guard = shared.lock().unwrap_or_else(|e| e.into_inner());
        let out: &mut dyn Write = &mut **guard;
        // setoption name <NAME words> [value <VALUE words>]
        let value_at = words.iter().position(|&w| w == "value");
        let name = match (words.first(), value_at) {
            (Some(&"name"), Some(v)) => words[1..v].join(" "),
            (Some(&"name"), None) => words[1..].join(" "),
            _ => {
                writeln!(
                    out,
                    "info string error: expected 'setoption name <NAME> value <VALUE>'"
                )?;
                return Ok(());
            }
        };
        let value = value_at
            .map(|v| words[v + 1..].join(" "))
            .unwrap_or_default();
        match name.to_ascii_lowercase().as_str() {
            "threads" => match value.parse::<usize>() {
                Ok(t) if (1..=MAX_THREADS).contains(&t) => {
                    if t != self.config.threads {
                        self.config.threads = t;
                        self.perft = None;
                    }
                }
                _ => writeln!(
                    out,
                    "info string error: Threads must be a number from 1 to {MAX_THREADS}, found '{value}'"
                )?,
            },
            "hash" => match parse_hash(&value) {
                Ok(mib) => {
                    if mib != self.hash_mib {
                        self.hash_mib = mib;
                        if !self.no_perft_table {
                            self.config.hash_bytes = u128::from(mib) << 20;
                        }
                        self.perft = None;
                        self.tt = None;
                        self.tt_failed = false;
                        self.search_state = SearchState::new();
                    }
                }
                Err(e) => writeln!(
                    out,
                    "info string error: Hash: {e}; Hash stays {} MiB",
                    self.hash_mib
                )?,
            },
            "restart" => match value.as_str() {
                "true" | "false" => self.restart = value == "true",
                _ => writeln!(
                    out,
                    "info string error: Restart must be true or false, found '{value}'"
                )?,
            },
            "uci_chess960" => match value.as_str() {
                "true" | "false" => {
                    self.chess960 = value == "true";
                    if let Ok((pos, _)) = &mut self.position {
                        pos.set_chess960(self.chess960);
                    }
                }
                _ => writeln!(
                    out,
                    "info string error: UCI_Chess960 must be true or false, found '{value}'"
                )?,
            },
            _ => writeln!(out, "info string unknown option '{name}' ignored")?,
        }
        Ok(())
    }

    fn go(&mut self, words: &[&str]) -> Result<(), Error> {
        if let ["perft", depth] = words {
            let Ok(depth) = depth.parse::<u32>() else {
                return self.say(&format!(
                    "info string error: 'go perft' needs a depth, found '{depth}'\n"
                ));
            };
            return self.perft(depth);
        }
        if words.first() == Some(&"perft") {
            return self.say("info string error: expected 'go perft <DEPTH>'\n");
        }
        self.search(words)
    }

    /// `go` with search limits: `depth N`, `nodes N`, `movetime MS`, clock
    /// times (`wtime`/`btime`, `winc`/`binc`, `movestogo`: a simple share of
    /// the remaining time), `infinite` (until `stop`), `ponder` (no clock
    /// until `ponderhit`). The search runs in its own thread, so `stop`,
    /// `ponderhit` and `isready` are read while it runs.
    fn search(&mut self, words: &[&str]) -> Result<(), Error> {
        let (pos, history) = match &self.position {
            Ok((pos, history)) => (*pos, history.clone()),
            Err(e) => {
                return self.say(&format!(
                    "info string error: no valid position: {e}\nbestmove 0000\n"
                ));
            }
        };
        let mut limits = Limits::default();
        let (mut clock, mut inc, mut moves_to_go) = (None, 0u64, None);
        let (mut infinite, mut ponder) = (false, false);
        let white = pos.side_to_move() == crate::Color::White;
        let mut i = 0;
        while i < words.len() {
            let value = words.get(i + 1).and_then(|v| v.parse::<i64>().ok());
            let number = value.map(|v| v.max(0) as u64);
            match (words[i], number) {
                ("depth", Some(d)) => limits.depth = Some(d.clamp(1, 100) as u32),
                ("nodes", Some(n)) => limits.nodes = Some(n),
                ("movetime", Some(ms)) => limits.movetime = Some(Duration::from_millis(ms)),
                ("wtime", Some(ms)) if white => clock = Some(ms),
                ("btime", Some(ms)) if !white => clock = Some(ms),
                ("winc", Some(ms)) if white => inc = ms,
                ("binc", Some(ms)) if !white => inc = ms,
                ("movestogo", Some(n)) => moves_to_go = Some(n.max(1)),
                ("wtime" | "btime" | "winc" | "binc", Some(_)) => {}
                ("infinite" | "ponder", _) => {
                    infinite |= words[i] == "infinite";
                    ponder |= words[i] == "ponder";
                    i += 1;
                    continue;
                }
                (word, _) => {
                    return self.say(&format!(
                        "info string error: cannot read 'go' argument '{word}'\nbestmove 0000\n"
                    ));
                }
            }
            i += 2;
        }
        if let Some(ms) = clock
            && limits.movetime.is_none()
        {
            let share = ms / moves_to_go.unwrap_or(30) + inc / 2;
            limits.movetime = Some(Duration::from_millis(
                share.min(ms.saturating_sub(50)).max(1),
            ));
        }
        // `go ponder`: no clock until `ponderhit`; `go infinite`: none at all.
        let ponder_time = if ponder { limits.movetime.take() } else { None };
        if infinite {
            limits.movetime = None;
        }
        if self.tt.is_none() && !self.tt_failed {
            match super::search::tt_of((self.hash_mib as usize) << 20) {
                Ok(tt) => self.tt = Some(tt),
                Err(e) => {
                    self.tt_failed = true;
                    self.say(&format!("info string error: {e}; searching without a TT\n"))?;
                }
            }
        }
        let stop = Arc::new(AtomicBool::new(false));
        let hold = Arc::new(AtomicBool::new(infinite || ponder));
        limits.stop = Some(Arc::clone(&stop));
        let mut tt = self.tt.take();
        let mut state = std::mem::take(&mut self.search_state);
        // `Threads` counts the search's threads too (lazy SMP over the TT).
        let options = SearchOptions {
            threads: self.config.threads,
            restart: self.restart,
            ..SearchOptions::default()
        };
        if let Some(depth) = state.resumes(&pos, &history, &limits, tt.as_ref(), &options) {
            self.say(&format!(
                "info string resumed at depth {depth} ({} nodes of the stopped search continue)\n",
                state.path_len()
            ))?;
        }
        let out = Arc::clone(&self.out);
        let (thread_stop, thread_hold) = (Arc::clone(&stop), Arc::clone(&hold));
        let thread = std::thread::spawn(move || {
            let say = |text: String| {
                let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
                // A closed pipe is noticed by the input loop; nothing to do here.
                let _ = o.write_all(text.as_bytes()).and_then(|_| o.flush());
            };
            let result = search::search_resumable(
                &pos,
                &history,
                &limits,
                tt.as_mut(),
                &options,
                &mut state,
                |info| say(format!("{}\n", info.to_uci())),
            );
            // `infinite` and `ponder` answer only after `stop` (or `ponderhit`).
            while thread_hold.load(Ordering::SeqCst) && !thread_stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(2));
            }
            match result {
                Ok(r) => {
                    let mut text = String::new();
                    if r.depth == 0
                        && let Some(score) = r.score
                    {
                        // No legal move: mate 0 or a stalemate's cp 0, as
                        // `perft search` and Stockfish say it.
                        text.push_str(&format!("info depth 0 score {score}\n"));
                    }
                    text.push_str(&format!("bestmove {}\n", r.best_move_uci()));
                    say(text);
                    (tt, state)
                }
                Err(e) => {
                    say(format!("info string error: {e}\nbestmove 0000\n"));
                    (None, SearchState::new())
                }
            }
        });
        self.running = Some(Running {
            stop,
            hold,
            ponder_time,
            infinite,
            thread,
        });
        Ok(())
    }

    fn perft(&mut self, depth: u32) -> Result<(), Error> {
        let shared = Arc::clone(&self.out);
        let mut guard = shared.lock().unwrap_or_else(|e| e.into_inner());
        let out: &mut dyn Write = &mut **guard;
        if depth > crate::perft::MAX_PERFT_DEPTH {
            writeln!(
                out,
                "info string error: 'go perft' depth {depth} is above the maximum {}",
                crate::perft::MAX_PERFT_DEPTH
            )?;
            return Ok(());
        }
        let pos = match &self.position {
            Ok((pos, _)) => *pos,
            Err(e) => {
                writeln!(out, "info string error: no valid position: {e}")?;
                return Ok(());
            }
        };
        if self.perft.is_none() {
            // A `Hash` the machine cannot hold must not end the session (a
            // GUI would see the engine die): say so and count without the
            // perft table, as a search goes on without its TT.
            self.perft = Some(match build_perft(self.config.clone()) {
                Ok(perft) => perft,
                Err(e) => {
                    writeln!(
                        out,
                        "info string error: {e}; counting without the perft table"
                    )?;
                    build_perft(PerftConfig {
                        hash_bytes: 0,
                        ..self.config.clone()
                    })?
                }
            });
        }
        let perft = self.perft.as_ref().expect("built above");
        let chess960 = pos.is_chess960();
        let mut lines: Vec<(String, u128)> = if depth == 0 {
            Vec::new()
        } else {
            perft
                .divide(&pos, depth, Control::default())
                .moves
                .iter()
                .map(|&(mv, n)| (mv.to_uci(chess960).to_string(), n))
                .collect()
        };
        lines.sort();
        let total: u128 = if depth == 0 {
            1
        } else {
            lines.iter().map(|(_, n)| n).sum()
        };
        let mut text = String::new();
        for (mv, n) in &lines {
            text.push_str(&format!("{mv}: {n}\n"));
        }
        text.push_str(&format!("\nNodes searched: {total}\n\n"));
        out.write_all(text.as_bytes())?;
        out.flush()?;
        Ok(())
    }
}

/// The session `perft uci` starts with: `--threads`, `--hash` and
/// `--no-hash` applied, the perft driver built (a table too small or too
/// large for the machine is an error here, not at the first `go perft`).
fn session_for(args: &UciArgs, out: SharedOut) -> Result<UciSession, Error> {
    let mut session = UciSession::new(args.engine.config(0)?, out);
    if args.engine.no_hash {
        session.no_perft_table = true;
        session.config.hash_bytes = 0;
    } else if !args.engine.hash.is_empty() {
        // `config(0)` parsed the size (`none` is 0, no table).
        let bytes = args.engine.config(0)?.hash_bytes;
        session.config.hash_bytes = bytes;
        session.no_perft_table = bytes == 0;
        if bytes >= 1 << 20 {
            session.hash_mib = u64::try_from(bytes >> 20)
                .unwrap_or(MAX_HASH_MIB)
                .min(MAX_HASH_MIB);
        }
    }
    session.perft = Some(build_perft(session.config.clone())?);
    Ok(session)
}

/// Runs `perft uci` until `quit` or the end of input.
///
/// `--hash SIZE` sets the perft table of `go perft` and the `Hash` option's
/// starting value (whole MiB; the TT uses it too); a GUI's `setoption name
/// Hash` changes both later. `--no-hash` counts `go perft` without a table
/// for the whole session (`Hash` then sizes only the search TT). A bad
/// `--hash` is an error before the loop starts (exit code 2).
pub fn run_uci(args: UciArgs) -> Result<u8, Error> {
    let out: SharedOut = Arc::new(Mutex::new(Box::new(std::io::stdout())));
    let mut session = session_for(&args, out)?;
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        if !session.handle(&line?)? {
            break;
        }
    }
    // `quit` or the end of input: a limited search finishes and answers,
    // `infinite`/`ponder` are stopped (and answer).
    session.finish_search(false);
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `Write` into a shared buffer the test can read afterwards.
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(data);
            Ok(data.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The perft table `go perft` would count with, after `setup` lines.
    fn perft_table_bytes(flags: &[&str], setup: &[&str]) -> u128 {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            uci: UciArgs,
        }
        let cli = Cli::try_parse_from(std::iter::once("uci").chain(flags.iter().copied())).unwrap();
        let out: SharedOut = Arc::new(Mutex::new(Box::new(Buffer::default())));
        let mut session = session_for(&cli.uci, out).unwrap();
        for line in setup {
            session.handle(line).unwrap();
        }
        session.perft.as_ref().map_or(0, |p| p.config().hash_bytes)
    }

    #[test]
    fn hash_flags_take_effect_and_no_hash_outlives_setoption_hash() {
        assert_eq!(
            perft_table_bytes(&[], &[]),
            16 << 20,
            "Stockfish's default Hash"
        );
        assert_eq!(perft_table_bytes(&["--hash", "64MiB"], &[]), 64 << 20);
        assert_eq!(perft_table_bytes(&["--hash", "none"], &[]), 0);
        assert_eq!(perft_table_bytes(&["--no-hash"], &[]), 0);
        // A GUI's Hash sizes the table, except under --no-hash.
        let set = ["setoption name Hash value 32", "go perft 1"];
        assert_eq!(perft_table_bytes(&[], &set), 32 << 20);
        assert_eq!(perft_table_bytes(&["--no-hash"], &set), 0);
    }

    fn session_output(input: &str) -> String {
        let buffer = Buffer::default();
        let out: SharedOut = Arc::new(Mutex::new(Box::new(buffer.clone())));
        let mut session = UciSession::new(
            PerftConfig {
                threads: 1,
                ..PerftConfig::default()
            },
            out,
        );
        for line in input.lines() {
            if !session.handle(line).unwrap() {
                break;
            }
        }
        session.finish_search(false);
        String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn bad_input_is_answered_never_a_panic() {
        let out = session_output(
            "position\nposition fen\nposition fen 8/8 w\ngo perft 1\nposition startpos moves e2e5\ngo perft x\n\
             setoption name Threads value 0\nsetoption name Hash value -3\nsetoption\nfrobnicate 3\n\
             setoption name UCI_Chess960 value maybe\nsetoption name Bogus value 1\ngo perft\n",
        );
        assert!(out.contains("no valid position"), "{out}");
        assert!(out.contains("'e2e5' is not legal"), "{out}");
        assert!(
            out.contains("the position before any move is kept"),
            "{out}"
        );
        assert!(out.contains("Threads must be"), "{out}");
        assert!(out.contains("Hash: invalid size '-3'"), "{out}");
        assert!(out.contains("unknown command 'frobnicate 3'"), "{out}");
        assert!(out.contains("UCI_Chess960 must be"), "{out}");
        assert!(out.contains("unknown option 'Bogus'"), "{out}");
        assert!(!out.contains("Nodes searched"), "{out}");
    }

    #[test]
    fn go_depth_searches_and_quit_stops_the_loop() {
        // positions/mates.epd, lichess puzzle 00OPk: mate in 1 by Nf7 (d6f7).
        let out = session_output(
            "position fen 6rk/7p/R2N3P/3r4/1P5K/P7/8/8 w - - 5 51\ngo depth 3\nquit\nisready\n",
        );
        assert!(out.contains("score mate 1"), "{out}");
        assert!(out.ends_with("bestmove d6f7\n"), "{out}");
        assert!(!out.contains("readyok"), "{out}");
    }

    #[test]
    fn go_with_clock_times_and_bad_arguments() {
        let out = session_output(
            "position startpos moves e2e4\ngo wtime 1000 btime 1000 winc 0 binc 0 movestogo 40\ngo depth x\n",
        );
        let bestmoves: Vec<&str> = out.lines().filter(|l| l.starts_with("bestmove")).collect();
        assert_eq!(bestmoves.len(), 2, "{out}");
        assert_ne!(bestmoves[0], "bestmove 0000", "{out}");
        assert!(out.contains("cannot read 'go' argument 'depth'"), "{out}");
        assert_eq!(bestmoves[1], "bestmove 0000");
    }

    #[test]
    fn chess960_option_switches_castling_notation() {
        // Castling moves are written king-takes-rook; D1 = 26 is
        // positions/perftsuite.epd line 13.
        let out = session_output(
            "setoption name UCI_Chess960 value true\nposition fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\ngo perft 1\n",
        );
        assert!(out.contains("e1h1: 1") && out.contains("e1a1: 1"), "{out}");
        assert!(out.ends_with("\nNodes searched: 26\n\n"), "{out}");
    }

    /// Runs `lines` on a fresh session without waiting for the search;
    /// returns the session and its buffer.
    fn live_session() -> (UciSession, Buffer) {
        let buffer = Buffer::default();
        let out: SharedOut = Arc::new(Mutex::new(Box::new(buffer.clone())));
        let session = UciSession::new(
            PerftConfig {
                threads: 1,
                ..PerftConfig::default()
            },
            out,
        );
        (session, buffer)
    }

    fn text(buffer: &Buffer) -> String {
        String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap()
    }

    #[test]
    fn go_infinite_answers_only_after_stop_and_at_once() {
        let (mut session, buffer) = live_session();
        session.handle("position startpos").unwrap();
        session.handle("go infinite").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        session.handle("isready").unwrap();
        assert!(text(&buffer).contains("readyok"), "{}", text(&buffer));
        assert!(!text(&buffer).contains("bestmove"), "{}", text(&buffer));
        let start = std::time::Instant::now();
        session.handle("stop").unwrap();
        let took = start.elapsed();
        let out = text(&buffer);
        assert_eq!(out.matches("bestmove ").count(), 1, "{out}");
        assert!(!out.contains("bestmove 0000"), "{out}");
        // The search reads its stop flag every few thousand nodes.
        assert!(took < Duration::from_millis(500), "stop took {took:?}");
    }

    #[test]
    fn go_ponder_waits_for_ponderhit_then_uses_its_clock() {
        let (mut session, buffer) = live_session();
        session.handle("position startpos moves e2e4").unwrap();
        session
            .handle("go ponder wtime 3000 btime 3000 movestogo 30")
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert!(!text(&buffer).contains("bestmove"), "{}", text(&buffer));
        session.handle("ponderhit").unwrap();
        // 3000 ms / 30 moves: about 100 ms after ponderhit.
        std::thread::sleep(Duration::from_millis(600));
        assert_eq!(
            text(&buffer).matches("bestmove ").count(),
            1,
            "{}",
            text(&buffer)
        );
        session.finish_search(false);
    }

    #[test]
    fn shredder_fen_castling_is_written_e1g1_without_uci_chess960() {
        // D1 = 26: positions/perftsuite.epd line 13 (KQkq there).
        let out = session_output(
            "position fen r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1\ngo perft 1\n\
             position fen r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1 moves e1g1\nd\n",
        );
        assert!(out.contains("e1g1: 1") && out.contains("e1c1: 1"), "{out}");
        assert!(!out.contains("e1h1"), "{out}");
        assert!(out.contains("\nNodes searched: 26\n"), "{out}");
        assert!(!out.contains("error"), "{out}");
        assert!(out.contains("Fen: r3k2r/8/8/8/8/8/8/R4RK1 b "), "{out}");
    }

    #[test]
    fn an_illegal_move_keeps_the_position_up_to_the_last_legal_one() {
        let out = session_output("position startpos moves e2e4 e7e5 e1e3 g1f3\nd\ngo perft 1\n");
        assert!(
            out.contains("info string error: move 3 'e1e3' is not legal in ")
                && out.contains("the position after move 2 'e7e5' is kept"),
            "{out}"
        );
        assert!(
            out.contains("Fen: rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"),
            "{out}"
        );
        // White's moves after 1. e4 e5: 29 (Stockfish, go perft 1).
        assert!(out.contains("\nNodes searched: 29\n"), "{out}");
    }
}
