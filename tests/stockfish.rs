//! Differential tests against Stockfish (`apt-get install stockfish`; the
//! Debian binary is /usr/games/stockfish, or set $STOCKFISH). These tests
//! fail, never skip, when Stockfish is missing: CI installs it.

use std::collections::BTreeMap;
use std::time::Duration;

use perft::Position;
use perft::chess::cpu::CpuPath;
use perft::perft::{divide, perft_on, perft_plain_on};
use perft::validate::engine::{UciEngine, find_stockfish};

use crate::common::{Rng, load, run_perft, stdout};

fn stockfish() -> UciEngine {
    let path = find_stockfish().expect(
        "Stockfish not found: install it (apt-get install stockfish) or set STOCKFISH=/path/to/stockfish",
    );
    let mut engine = UciEngine::start(&path, Duration::from_secs(60)).expect("start Stockfish");
    engine.set_option("Threads", "1").unwrap();
    engine.set_option("Hash", "16").unwrap();
    engine
}

/// Positions reached by seeded random play (0 to 12 plies) from every suite.
fn random_positions(count: usize, seed: u64) -> Vec<(Position, Position, Vec<String>)> {
    let mut roots: Vec<Position> = Vec::new();
    for name in ["standard", "perftsuite", "tricky", "tricky960", "chess960"] {
        roots.extend(load(name).into_iter().map(|r| r.position));
    }
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let root = roots[rng.below(roots.len())];
        let mut pos = root;
        let mut moves = Vec::new();
        for _ in 0..rng.below(13) {
            let list = pos.legal_moves();
            if list.is_empty() {
                break;
            }
            let mv = list.as_slice()[rng.below(list.len())];
            moves.push(mv.to_uci(pos.is_chess960()).to_string());
            pos = pos.play_unchecked(mv);
        }
        out.push((root, pos, moves));
    }
    out
}

/// Our divide, which every CPU path this machine supports (with and
/// without the leaf-parent shortcut) must reproduce exactly.
fn ours(pos: &Position, depth: u32) -> BTreeMap<String, u64> {
    let moves = divide(pos, depth);
    for path in CpuPath::supported() {
        for (mv, n) in &moves {
            let child = pos.play_unchecked(*mv);
            assert_eq!(
                perft_on(path, &child, depth - 1),
                *n,
                "{path} {}",
                pos.to_fen()
            );
            assert_eq!(
                perft_plain_on(path, &child, depth - 1),
                *n,
                "{path} plain {}",
                pos.to_fen()
            );
        }
    }
    moves
        .into_iter()
        .map(|(mv, n)| (mv.to_uci(pos.is_chess960()).to_string(), n))
        .collect()
}

#[test]
fn divide_matches_stockfish_move_by_move_on_240_random_positions_at_depth_3() {
    let mut sf = stockfish();
    let mut chess960 = None;
    let mut failures = Vec::new();
    let positions = random_positions(240, 0x5EED_2026);
    for (_, pos, _) in &positions {
        if chess960 != Some(pos.is_chess960()) {
            sf.set_option(
                "UCI_Chess960",
                if pos.is_chess960() { "true" } else { "false" },
            )
            .unwrap();
            chess960 = Some(pos.is_chess960());
        }
        let fen = pos.to_fen();
        let theirs = sf.divide(&fen, &[], 3).unwrap();
        let mine = ours(pos, 3);
        let theirs_map: BTreeMap<String, u64> = theirs.moves.iter().cloned().collect();
        if mine != theirs_map {
            let diff: Vec<String> = mine
                .keys()
                .chain(theirs_map.keys())
                .filter(|m| mine.get(*m) != theirs_map.get(*m))
                .map(|m| {
                    format!(
                        "{m}: ours {:?} stockfish {:?}",
                        mine.get(m),
                        theirs_map.get(m)
                    )
                })
                .collect();
            failures.push(format!("{fen}\n  {}", diff.join("\n  ")));
        }
        assert_eq!(mine.values().sum::<u64>(), theirs.total, "{fen}");
    }
    let c960 = positions.iter().filter(|(_, p, _)| p.is_chess960()).count();
    assert!(c960 >= 20, "only {c960} Chess960 positions sampled");
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn cli_divide_with_moves_matches_stockfish_position_with_moves() {
    let mut sf = stockfish();
    sf.set_option("UCI_Chess960", "false").unwrap();
    let positions = random_positions(400, 7);
    let mut checked = 0;
    for (root, _, moves) in positions
        .iter()
        .filter(|(r, _, m)| !r.is_chess960() && !m.is_empty())
        .take(25)
    {
        let fen = root.to_fen();
        let theirs = sf.divide(&fen, moves, 2).unwrap();
        let mut args = vec!["divide", "2", fen.as_str(), "--moves"];
        args.extend(moves.iter().map(String::as_str));
        let out = run_perft(&args);
        assert_eq!(out.status.code(), Some(0));
        let text = stdout(&out);
        let mine: BTreeMap<String, u64> = text
            .lines()
            .filter_map(perft::validate::engine::parse_divide_line)
            .collect();
        let theirs_map: BTreeMap<String, u64> = theirs.moves.into_iter().collect();
        assert_eq!(mine, theirs_map, "{fen} moves {moves:?}");
        assert!(text.ends_with(&format!("Nodes searched: {}\n", theirs.total)));
        checked += 1;
    }
    assert_eq!(checked, 25);
}
