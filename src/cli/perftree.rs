//! `perft perftree`: the protocol of the perftree tool (perftree-cli).
//!
//! perftree runs `script "$depth" "$fen" "$moves"` (the third argument absent
//! when there are no moves; moves space-separated, UCI) and reads `<move>
//! <count>` lines, exactly one empty line, then the total alone on its line.
//! Nothing else may appear on stdout; errors go to stderr with exit code 2.

use clap::Args;

use super::config::{EngineArgs, PositionArgs, resolve_position};
use super::output::write_out;
use crate::error::{EXIT_OK, Error};
use crate::perft::Control;

/// `perft perftree` arguments.
#[derive(Debug, Args)]
pub struct PerftreeArgs {
    /// Depth in plies (at least 1).
    #[arg(value_parser = clap::value_parser!(u32).range(0..=crate::perft::MAX_PERFT_DEPTH as i64))]
    pub depth: u32,
    /// The position (one argument; Shredder-FEN castling letters mean Chess960).
    pub fen: String,
    /// Moves to play first, UCI, space-separated in one argument.
    pub moves: Option<String>,
    /// Threads and hash.
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Runs `perft perftree`.
pub fn run_perftree(args: PerftreeArgs) -> Result<u8, Error> {
    if args.depth == 0 {
        return Err(Error::Usage(
            "perftree: DEPTH must be at least 1 (there is no move to divide by at depth 0)".into(),
        ));
    }
    let position = PositionArgs {
        position: vec![args.fen.clone()],
        moves: args
            .moves
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        chess960: false,
    };
    if !args.fen.contains('/') {
        // A name such as `startpos` is not part of the protocol, but harmless.
        crate::chess::fen::named_position(args.fen.trim())
            .ok_or_else(|| Error::UnknownPosition(crate::chess::fen::quote(&args.fen)))?;
    }
    // perftree has no `--moves` flag: name its third argument instead.
    let pos = resolve_position(&position).map_err(|e| match e {
        Error::IllegalMove { index, text, fen } => Error::Usage(format!(
            "perftree: MOVES: move {index} '{text}' is not a legal move in {fen}"
        )),
        e => e,
    })?;
    let perft = args.engine.build(args.depth)?;
    let outcome = perft.divide(&pos, args.depth, Control::default());
    let chess960 = pos.is_chess960();
    let mut lines: Vec<(String, u128)> = outcome
        .moves
        .iter()
        .map(|&(mv, n)| (mv.to_uci(chess960).to_string(), n))
        .collect();
    lines.sort();
    let mut out = String::new();
    for (mv, n) in &lines {
        out.push_str(&format!("{mv} {n}\n"));
    }
    out.push_str(&format!("\n{}\n", outcome.nodes));
    write_out(&out)?;
    Ok(EXIT_OK)
}
