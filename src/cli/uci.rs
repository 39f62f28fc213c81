//! `perft uci`: a UCI loop on stdin/stdout, enough for GUIs and tools.
//!
//! Commands: `uci`, `isready`, `ucinewgame`, `position startpos|fen ...
//! [moves ...]`, `go perft N` (Stockfish's output: `move: count` lines, a
//! blank line, `Nodes searched: N`, a blank line), `go depth N`, `go nodes
//! N`, `go movetime MS` and clock times (the alpha-beta search of
//! [`crate::search`]: `info` lines and `bestmove`), `setoption name
//! Threads|Hash|UCI_Chess960 value V`, `d` (print the FEN), `stop`, `debug`,
//! `quit`. Unknown commands are ignored as UCI requires, with an `info
//! string` saying so; nothing the GUI sends makes the loop panic.

use std::io::{BufRead, Write};
use std::time::Duration;

use clap::Args;

use super::config::{EngineArgs, build_perft};
use crate::chess::fen::STARTPOS;
use crate::chess::position::Position;
use crate::chess::zobrist::Zobrist;
use crate::error::{EXIT_OK, Error};
use crate::perft::{Control, Perft, PerftConfig};
use crate::search::tt::Tt;
use crate::search::{self, Limits, SearchOptions};

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

/// The state of a UCI session.
pub struct UciSession {
    config: PerftConfig,
    perft: Option<Perft>,
    hash_mib: u64,
    /// The search TT, kept across `go` commands of a game (`ucinewgame`
    /// and a `Hash` change drop it).
    tt: Option<Tt>,
    chess960: bool,
    /// The current position and the keys of the game positions before it
    /// (for repetition draws), or why the last `position` command failed.
    position: Result<(Position, Vec<u64>), String>,
}

impl UciSession {
    /// A session with the driver settings `config`, at the start position.
    pub fn new(mut config: PerftConfig) -> UciSession {
        // The UCI `Hash` option sizes the perft table (and the search TT).
        config.hash_bytes = u128::from(DEFAULT_HASH_MIB) << 20;
        UciSession {
            config,
            perft: None,
            hash_mib: DEFAULT_HASH_MIB,
            tt: None,
            chess960: false,
            position: Ok((Position::startpos(), Vec::new())),
        }
    }

    /// Handles one input line, writing replies to `out`. Returns `false`
    /// after `quit`.
    pub fn handle(&mut self, line: &str, out: &mut dyn Write) -> Result<bool, Error> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, rest)) = words.split_first() else {
            return Ok(true);
        };
        match command {
            "uci" => {
                writeln!(out, "id name perft {}", env!("CARGO_PKG_VERSION"))?;
                writeln!(out, "id author the perft authors")?;
                writeln!(out)?;
                writeln!(
                    out,
                    "option name Threads type spin default {} min 1 max {MAX_THREADS}",
                    self.config.threads
                )?;
                writeln!(
                    out,
                    "option name Hash type spin default {DEFAULT_HASH_MIB} min 1 max {MAX_HASH_MIB}"
                )?;
                writeln!(out, "option name UCI_Chess960 type check default false")?;
                writeln!(out, "uciok")?;
            }
            "isready" => writeln!(out, "readyok")?,
            "ucinewgame" => self.tt = None,
            "stop" | "ponderhit" | "debug" => {}
            "quit" => return Ok(false),
            "position" => self.set_position(rest, out)?,
            "setoption" => self.set_option(rest, out)?,
            "go" => self.go(rest, out)?,
            "d" => match &self.position {
                Ok((pos, _)) => writeln!(out, "Fen: {}", pos.to_fen())?,
                Err(e) => writeln!(out, "info string no valid position: {e}")?,
            },
            _ => writeln!(out, "info string unknown command '{}' ignored", line.trim())?,
        }
        out.flush()?;
        Ok(true)
    }

    /// Sets the position; a bad one is reported at once and kept as an
    /// error, so a later `go perft` cannot count a stale position.
    fn set_position(&mut self, words: &[&str], out: &mut dyn Write) -> Result<(), Error> {
        self.position = self.parse_position(words);
        if let Err(e) = &self.position {
            writeln!(out, "info string error: {e}")?;
        }
        Ok(())
    }

    fn parse_position(&self, words: &[&str]) -> Result<(Position, Vec<u64>), String> {
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
        let mut history = Vec::with_capacity(moves.len());
        for (i, text) in moves.iter().enumerate() {
            let mv = pos.parse_uci(text).ok_or_else(|| {
                format!("move {} '{text}' is not legal in {}", i + 1, pos.to_fen())
            })?;
            history.push(pos.hash());
            pos = pos.play_unchecked(mv);
        }
        Ok((pos, history))
    }

    fn set_option(&mut self, words: &[&str], out: &mut dyn Write) -> Result<(), Error> {
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
            "hash" => match value.parse::<u64>() {
                Ok(mib) if (1..=MAX_HASH_MIB).contains(&mib) => {
                    if mib != self.hash_mib {
                        self.hash_mib = mib;
                        self.config.hash_bytes = u128::from(mib) << 20;
                        self.perft = None;
                        self.tt = None;
                    }
                }
                _ => writeln!(
                    out,
                    "info string error: Hash must be a number of MiB from 1 to {MAX_HASH_MIB}, found '{value}'"
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

    fn go(&mut self, words: &[&str], out: &mut dyn Write) -> Result<(), Error> {
        if let ["perft", depth] = words {
            let Ok(depth) = depth.parse::<u32>() else {
                writeln!(
                    out,
                    "info string error: 'go perft' needs a depth, found '{depth}'"
                )?;
                return Ok(());
            };
            return self.perft(depth, out);
        }
        if words.first() == Some(&"perft") {
            writeln!(out, "info string error: expected 'go perft <DEPTH>'")?;
            return Ok(());
        }
        self.search(words, out)
    }

    /// `go` with search limits: `depth N`, `nodes N`, `movetime MS`, clock
    /// times (`wtime`/`btime`, `winc`/`binc`, `movestogo`: a simple share of
    /// the remaining time), or `infinite` (searches to the maximum depth; this
    /// loop reads `stop` only after the search, so give a limit in practice).
    fn search(&mut self, words: &[&str], out: &mut dyn Write) -> Result<(), Error> {
        let (pos, history) = match &self.position {
            Ok((pos, history)) => (*pos, history.clone()),
            Err(e) => {
                writeln!(out, "info string error: no valid position: {e}")?;
                writeln!(out, "bestmove 0000")?;
                return Ok(());
            }
        };
        let mut limits = Limits::default();
        let (mut clock, mut inc, mut moves_to_go) = (None, 0u64, None);
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
                    i += 1;
                    continue;
                }
                (word, _) => {
                    writeln!(out, "info string error: cannot read 'go' argument '{word}'")?;
                    writeln!(out, "bestmove 0000")?;
                    return Ok(());
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
        if self.tt.is_none() {
            match Tt::new((self.hash_mib as usize) << 20) {
                Ok(tt) => self.tt = Some(tt),
                Err(e) => writeln!(out, "info string error: {e}; searching without a TT")?,
            }
        }
        // Info lines go out as each iteration completes; a write error
        // (closed pipe) is picked up by the `bestmove` write below.
        let result = search::search(
            &pos,
            &history,
            &limits,
            self.tt.as_mut(),
            &SearchOptions::default(),
            |info| {
                let _ = writeln!(out, "{}", info.to_uci()).and_then(|_| out.flush());
            },
        );
        match result {
            Ok(r) => {
                if r.depth == 0
                    && let Some(score) = r.score
                {
                    // No legal move: mate 0 or a stalemate's cp 0, as `perft
                    // search` and Stockfish say it.
                    writeln!(out, "info depth 0 score {score}")?;
                }
                writeln!(out, "bestmove {}", r.best_move_uci())?;
            }
            Err(e) => {
                writeln!(out, "info string error: {e}")?;
                self.tt = None;
                writeln!(out, "bestmove 0000")?;
            }
        }
        Ok(())
    }

    fn perft(&mut self, depth: u32, out: &mut dyn Write) -> Result<(), Error> {
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
        Ok(())
    }
}

/// Runs `perft uci` until `quit` or the end of input.
pub fn run_uci(args: UciArgs) -> Result<u8, Error> {
    let mut session = UciSession::new(args.engine.config(0)?);
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        if !session.handle(&line?, &mut out)? {
            break;
        }
    }
    out.flush()?;
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session_output(input: &str) -> String {
        let mut session = UciSession::new(PerftConfig {
            threads: 1,
            ..PerftConfig::default()
        });
        let mut out = Vec::new();
        for line in input.lines() {
            if !session.handle(line, &mut out).unwrap() {
                break;
            }
        }
        String::from_utf8(out).unwrap()
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
        assert!(out.contains("Threads must be"), "{out}");
        assert!(out.contains("Hash must be"), "{out}");
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
}
