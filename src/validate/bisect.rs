//! Bisection against an external engine: find the first position where an
//! engine's move generator differs from ours.
//!
//! At each level both sides divide the same position; the position is always
//! given to the engine as the root FEN plus the whole move path (`position fen
//! ROOT moves M1 M2 ...`), never as a child FEN, so an engine whose bug lies
//! in making moves (castling rights, en-passant square, clocks) is caught
//! too. When the two move lists differ the search stops there and reports the
//! moves the engine is missing and the ones it has extra. Otherwise it
//! descends into the first move (in UCI text order) whose count differs, one
//! ply shallower.

use std::collections::BTreeMap;

use serde::Serialize;
use thiserror::Error;

use crate::chess::moves::Move;
use crate::chess::position::Position;
use crate::validate::engine::{DivideEngine, EngineDivide, EngineError};

/// Our per-move counts of a position, or `None` when the run was stopped.
pub type OurDivide<'a> = dyn FnMut(&Position, u32) -> Option<Vec<(Move, u128)>> + 'a;

/// Why a bisection did not finish.
#[derive(Debug, Error)]
pub enum BisectError {
    /// The engine failed (not found, crashed, timed out, protocol error).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// Stopped (Ctrl-C) before a verdict.
    #[error("interrupted")]
    Interrupted,
}

/// One move whose counts differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveDiff {
    /// UCI move.
    #[serde(rename = "move")]
    pub mv: String,
    /// Our count (leaf nodes).
    pub ours: u128,
    /// The engine's count (leaf nodes).
    pub engine: u64,
}

/// One divided position of the bisection.
#[derive(Clone, Debug, Serialize)]
pub struct Level {
    /// Moves from the root (after `--moves`) to this position.
    pub path: Vec<String>,
    /// Remaining depth divided here (plies).
    pub depth: u32,
    /// FEN of this position.
    pub fen: String,
    /// Legal moves here (ours).
    pub moves: usize,
    /// Our total (leaf nodes).
    pub ours: u128,
    /// The engine's `Nodes searched` / total line (leaf nodes).
    pub engine: u64,
    /// Moves whose counts differ (both sides list them), in UCI order.
    pub differing: Vec<MoveDiff>,
}

/// The outcome of a bisection.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every count agrees at the requested depth.
    Agree,
    /// The move lists of the position at the end of `path` differ.
    MovesDiffer,
    /// No move list differs, yet counts do: the engine's numbers contradict
    /// each other (its total is not the sum of its moves, or a count below a
    /// move changes when that move is divided). Details in `note`.
    Inconsistent,
}

/// Result of [`bisect`].
#[derive(Clone, Debug, Serialize)]
pub struct Bisection {
    /// The verdict.
    pub verdict: Verdict,
    /// Moves from the root (after `--moves`) to the position found.
    pub path: Vec<String>,
    /// FEN of that position.
    pub fen: String,
    /// Legal moves there that the engine does not list.
    pub missing: Vec<String>,
    /// Moves the engine lists there that are not legal (or listed twice).
    pub extra: Vec<String>,
    /// Every level divided, root first.
    pub levels: Vec<Level>,
    /// For `inconsistent`: what contradicts what.
    pub note: Option<String>,
}

/// Bisects `engine` against our generator, from `root` after `pre_moves`, at
/// `depth` (at least 1). `ours` divides a position (it may use threads and
/// may be stopped). `on_level` sees each level as soon as it is known.
pub fn bisect(
    engine: &mut dyn DivideEngine,
    root: &Position,
    pre_moves: &[Move],
    depth: u32,
    ours: &mut OurDivide<'_>,
    on_level: &mut dyn FnMut(&Level),
) -> Result<Bisection, BisectError> {
    let chess960 = root.is_chess960();
    engine.set_chess960(chess960)?;
    let root_fen = root.to_fen();
    let mut pos = *root;
    let mut uci_path: Vec<String> = Vec::new();
    for &mv in pre_moves {
        uci_path.push(mv.to_uci(chess960).to_string());
        pos = pos.play_unchecked(mv);
    }
    let pre = uci_path.len();
    let mut levels: Vec<Level> = Vec::new();
    // What the engine said about the move we descended into, to check that
    // its divide one level down adds up to the same number.
    let mut expected_below: Option<(String, u64)> = None;
    let mut d = depth;
    loop {
        let mine = ours(&pos, d).ok_or(BisectError::Interrupted)?;
        let mine: BTreeMap<String, (Move, u128)> = mine
            .into_iter()
            .map(|(mv, n)| (mv.to_uci(chess960).to_string(), (mv, n)))
            .collect();
        let reply = engine.divide(&root_fen, &uci_path, d)?;
        let (theirs, extra) = normalise(&pos, &reply);
        let missing: Vec<String> = mine
            .keys()
            .filter(|m| !theirs.contains_key(*m))
            .cloned()
            .collect();
        let differing: Vec<MoveDiff> = mine
            .iter()
            .filter_map(|(m, &(_, n))| {
                let e = *theirs.get(m)?;
                (u128::from(e) != n).then(|| MoveDiff {
                    mv: m.clone(),
                    ours: n,
                    engine: e,
                })
            })
            .collect();
        let theirs_sum = theirs.values().map(|&n| u128::from(n)).sum::<u128>();
        let level = Level {
            path: uci_path[pre..].to_vec(),
            depth: d,
            fen: pos.to_fen(),
            moves: mine.len(),
            ours: mine.values().map(|&(_, n)| n).sum(),
            engine: reply.total,
            differing,
        };
        on_level(&level);
        levels.push(level);
        let level = levels.last().expect("just pushed");
        let done = |verdict, missing, extra, note| Bisection {
            verdict,
            path: level.path.clone(),
            fen: level.fen.clone(),
            missing,
            extra,
            levels: levels.clone(),
            note,
        };
        if !missing.is_empty() || !extra.is_empty() {
            return Ok(done(Verdict::MovesDiffer, missing, extra, None));
        }
        if let Some(first) = level.differing.first() {
            if d > 1 {
                let (mv, _) = mine[&first.mv];
                expected_below = Some((first.mv.clone(), first.engine));
                uci_path.push(first.mv.clone());
                pos = pos.play_unchecked(mv);
                d -= 1;
                continue;
            }
            let note = format!(
                "at depth 1 the engine counts {} for {} (a single move counts 1)",
                first.engine, first.mv
            );
            return Ok(done(Verdict::Inconsistent, vec![], vec![], Some(note)));
        }
        if theirs_sum != u128::from(reply.total) {
            let note = format!(
                "the engine's total {} is not the sum of its moves {theirs_sum}",
                reply.total
            );
            return Ok(done(Verdict::Inconsistent, vec![], vec![], Some(note)));
        }
        return Ok(match expected_below {
            None => done(Verdict::Agree, vec![], vec![], None),
            Some((mv, n)) => {
                let note = format!(
                    "the engine counted {n} below {mv} when dividing the position before it, \
                     but its divide of the position after {mv} agrees with ours ({}): its counts \
                     depend on how the position was reached",
                    level.ours
                );
                done(Verdict::Inconsistent, vec![], vec![], Some(note))
            }
        });
    }
}

/// Maps the engine's move texts to ours (castling written either way is the
/// same move); texts that are not legal moves here, or repeat a move, are
/// returned as extra.
fn normalise(pos: &Position, theirs: &EngineDivide) -> (BTreeMap<String, u64>, Vec<String>) {
    let chess960 = pos.is_chess960();
    let mut map = BTreeMap::new();
    let mut extra = Vec::new();
    for (text, n) in &theirs.moves {
        match pos.parse_uci(text) {
            Some(mv) => {
                let ours = mv.to_uci(chess960).to_string();
                if map.insert(ours, *n).is_some() {
                    extra.push(format!("{text} (listed twice)"));
                }
            }
            None => extra.push(text.clone()),
        }
    }
    (map, extra)
}
