//! A deliberately broken engine for testing `perft compare`: a minimal UCI
//! engine (or, with `--perftree`, a perftree script) on top of the perft
//! library whose move generator drops a class of moves everywhere in the
//! tree, or that crashes or hangs on `go`.
//!
//! ```text
//! broken_engine [--drop ep|underpromotion|none] [--crash-on-go] [--hang-on-go]
//! broken_engine --drop ep --perftree DEPTH FEN [MOVES]
//! ```

use std::io::{BufRead, Write};

use perft::{Move, MoveKind, Piece, Position};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Drop {
    None,
    EnPassant,
    UnderPromotion,
}

fn dropped(drop: Drop, mv: Move) -> bool {
    match drop {
        Drop::None => false,
        Drop::EnPassant => mv.kind() == MoveKind::EnPassant,
        Drop::UnderPromotion => mv.promotion().is_some_and(|p| p != Piece::Queen),
    }
}

fn moves(pos: &Position, drop: Drop) -> Vec<Move> {
    pos.legal_moves()
        .iter()
        .copied()
        .filter(|&mv| !dropped(drop, mv))
        .collect()
}

fn perft(pos: &Position, depth: u32, drop: Drop) -> u64 {
    if depth == 0 {
        return 1;
    }
    moves(pos, drop)
        .into_iter()
        .map(|mv| perft(&pos.play_unchecked(mv), depth - 1, drop))
        .sum()
}

fn divide(pos: &Position, depth: u32, drop: Drop) -> Vec<(String, u64)> {
    moves(pos, drop)
        .into_iter()
        .map(|mv| {
            (
                mv.to_uci(pos.is_chess960()).to_string(),
                perft(&pos.play_unchecked(mv), depth - 1, drop),
            )
        })
        .collect()
}

fn play_all(mut pos: Position, moves: &[&str]) -> Result<Position, String> {
    for text in moves {
        let mv = pos
            .parse_uci(text)
            .ok_or_else(|| format!("illegal move {text}"))?;
        pos = pos.play_unchecked(mv);
    }
    Ok(pos)
}

fn fail(message: &str) -> ! {
    eprintln!("broken_engine: {message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut drop = Drop::None;
    let mut crash_on_go = false;
    let mut hang_on_go = false;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--drop" => {
                i += 1;
                drop = match args.get(i).map(String::as_str) {
                    Some("ep") => Drop::EnPassant,
                    Some("underpromotion") => Drop::UnderPromotion,
                    Some("none") => Drop::None,
                    _ => fail("--drop takes ep, underpromotion or none"),
                };
            }
            "--crash-on-go" => crash_on_go = true,
            "--hang-on-go" => hang_on_go = true,
            "--perftree" => {
                let rest = &args[i + 1..];
                let (depth, fen) = match rest {
                    [d, f] | [d, f, _] => (d, f),
                    _ => fail("--perftree DEPTH FEN [MOVES]"),
                };
                let depth: u32 = depth.parse().unwrap_or_else(|_| fail("bad depth"));
                let pos = Position::from_fen(fen).unwrap_or_else(|e| fail(&e.to_string()));
                let moves: Vec<&str> = rest
                    .get(2)
                    .map(|m| m.split_whitespace().collect())
                    .unwrap_or_default();
                let pos = play_all(pos, &moves).unwrap_or_else(|e| fail(&e));
                let lines = divide(&pos, depth, drop);
                let total: u64 = lines.iter().map(|(_, n)| n).sum();
                for (mv, n) in &lines {
                    println!("{mv} {n}");
                }
                println!("\n{total}");
                return;
            }
            other => fail(&format!("unknown argument {other}")),
        }
        i += 1;
    }

    let mut chess960 = false;
    let mut pos = Position::startpos();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["uci"] => {
                let _ = writeln!(out, "id name broken_engine\nuciok");
            }
            ["isready"] => {
                let _ = writeln!(out, "readyok");
            }
            ["setoption", "name", "UCI_Chess960", "value", v] => chess960 = *v == "true",
            ["position", rest @ ..] => {
                let at = rest.iter().position(|&w| w == "moves");
                let (spec, moves) = match at {
                    Some(i) => (&rest[..i], &rest[i + 1..]),
                    None => (rest, &[][..]),
                };
                let root = match spec {
                    ["startpos"] => Ok(Position::startpos()),
                    ["fen", fields @ ..] => {
                        let fen = fields.join(" ");
                        if chess960 {
                            Position::from_fen_960(&fen)
                        } else {
                            Position::from_fen(&fen)
                        }
                        .map_err(|e| e.to_string())
                    }
                    _ => Err("bad position command".to_string()),
                };
                pos = root
                    .and_then(|p| play_all(p, moves))
                    .unwrap_or_else(|e| fail(&e));
            }
            ["go", "perft", depth] => {
                if crash_on_go {
                    std::process::exit(3);
                }
                if hang_on_go {
                    std::thread::sleep(std::time::Duration::from_secs(3600));
                }
                let depth: u32 = depth.parse().unwrap_or_else(|_| fail("bad depth"));
                let lines = divide(&pos, depth, drop);
                let total: u64 = lines.iter().map(|(_, n)| n).sum();
                for (mv, n) in &lines {
                    let _ = writeln!(out, "{mv}: {n}");
                }
                let _ = writeln!(out, "\nNodes searched: {total}\n");
            }
            ["quit"] => return,
            _ => {}
        }
        let _ = out.flush();
    }
}
