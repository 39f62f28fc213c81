//! Perft: counting the leaves of the legal move tree.
//!
//! * [`perft`]: the serial counter with bulk counting at the last ply
//!   (`perft(pos, 0) = 1`; depth 1 is a popcount sum, no move is played).
//! * [`Perft`]: the driver the CLI uses: a local rayon pool, cancellation, a
//!   per-root-move callback for progress, and statistics.
//!
//! Counts: a subtree below the driver's serial cut-off fits `u64` by a wide
//! margin (2^64 leaves would take centuries without a hash table); the driver
//! adds subtrees in `u128`, so totals are exact whatever their size.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use thiserror::Error;

use std::marker::PhantomData;

use crate::bitboard::Bitboard;
use crate::movegen::{self, Black, MoveSink, Side, White};
use crate::moves::{Move, PROMOTION_PIECES, PieceMoves};
use crate::piece::Color;
use crate::piece::Piece;
use crate::position::Position;
use crate::square::Square;

/// Serial perft with bulk counting at the last ply.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match pos.side_to_move() {
        Color::White => perft_side::<White>(pos, depth),
        Color::Black => perft_side::<Black>(pos, depth),
    }
}

fn perft_side<S: Side>(pos: &Position, depth: u32) -> u64 {
    let mut nodes = 0;
    match depth {
        0 => return 1,
        1 => return movegen::count::<S>(pos),
        // The leaf parents: count each child's moves without recursing.
        2 => for_each_child::<S, false>(pos, |child| {
            nodes += count_leaves::<S::Other>(child);
        }),
        _ => for_each_child::<S, false>(pos, |child| {
            nodes += perft_side::<S::Other>(child, depth - 1);
        }),
    }
    nodes
}

/// The bulk counter as one out-of-line function: the child loop calls it from
/// a dozen places (one per move group), and inlining it into each made the
/// hot code several times larger than the instruction cache (measured).
#[inline(never)]
fn count_leaves<S: Side>(pos: &Position) -> u64 {
    movegen::count::<S>(pos)
}

/// Calls `f` with every child position of `pos` (side `S` to move), made by
/// the perft makes: exact board, rights and en passant, the key only when
/// `KEYS`, no clocks.
#[inline(always)]
fn for_each_child<S: Side, const KEYS: bool>(pos: &Position, f: impl FnMut(&Position)) {
    movegen::generate_into::<S, _>(
        pos,
        &mut Children::<S, KEYS, _> {
            pos,
            f,
            side: PhantomData,
        },
    );
}

/// The [`MoveSink`] of the perft recursion: makes each child and hands it on.
struct Children<'a, S, const KEYS: bool, F> {
    pos: &'a Position,
    f: F,
    side: PhantomData<S>,
}

impl<S: Side, const KEYS: bool, F: FnMut(&Position)> MoveSink for Children<'_, S, KEYS, F> {
    #[inline(always)]
    fn piece_moves(&mut self, piece: Piece, from: Square, to: Bitboard) -> bool {
        for to in to {
            (self.f)(&self.pos.make_normal::<S, KEYS>(piece, from, to));
        }
        false
    }

    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, delta: i32, promotion: bool) -> bool {
        for to in to {
            let from = Square::from_index((to.index() as i32 - delta) as usize);
            if promotion {
                for piece in PROMOTION_PIECES {
                    (self.f)(&self.pos.make_promotion::<S, KEYS>(from, to, piece));
                }
            } else {
                (self.f)(&self.pos.make_normal::<S, KEYS>(Piece::Pawn, from, to));
            }
        }
        false
    }

    /// En passant and castling are rare: the general make.
    #[inline(always)]
    fn special(&mut self, moves: PieceMoves) -> bool {
        for mv in moves {
            (self.f)(&self.pos.play_piece(moves.piece, mv));
        }
        false
    }
}

/// Perft without bulk counting: every leaf is reached by playing its move.
/// Slow; a cross-check of the bulk counter and of `play`.
pub fn perft_full(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.legal_moves()
        .iter()
        .map(|&mv| perft_full(&pos.play_unchecked(mv), depth - 1))
        .sum()
}

/// Serial divide: the perft count below each legal move (empty at depth 0).
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&mv| (mv, perft(&pos.play_unchecked(mv), depth - 1)))
        .collect()
}

/// Settings of a [`Perft`] driver.
#[derive(Clone, Debug)]
pub struct PerftConfig {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Subtrees with at least this many plies left are split across threads;
    /// smaller ones run serially on the thread that owns them.
    pub split_depth: u32,
}

impl Default for PerftConfig {
    fn default() -> Self {
        PerftConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            split_depth: 3,
        }
    }
}

/// Why a [`Perft`] driver could not be built.
#[derive(Debug, Error)]
pub enum PerftError {
    /// Zero threads requested.
    #[error("--threads must be at least 1")]
    NoThreads,
    /// The thread pool could not start.
    #[error("cannot start {threads} worker threads: {message}")]
    Pool {
        /// Threads requested.
        threads: usize,
        /// The pool's error.
        message: String,
    },
}

/// Counters of one run, added up the recursion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PerftStats {
    /// Interior nodes visited by the driver (above the serial cut-off).
    pub driver_nodes: u64,
}

impl std::ops::Add for PerftStats {
    type Output = PerftStats;
    fn add(self, o: PerftStats) -> PerftStats {
        PerftStats {
            driver_nodes: self.driver_nodes + o.driver_nodes,
        }
    }
}

/// Result of [`Perft::divide`].
#[derive(Clone, Debug)]
pub struct DivideOutcome {
    /// `(move, count)` for every root move that finished, in generation order.
    pub moves: Vec<(Move, u128)>,
    /// Number of legal root moves.
    pub root_moves: usize,
    /// Sum of `moves` (the perft count when `complete`).
    pub nodes: u128,
    /// False when the run was stopped before every root move finished.
    pub complete: bool,
    /// Counters.
    pub stats: PerftStats,
}

/// Hooks into a running [`Perft::divide`].
#[derive(Default, Clone, Copy)]
pub struct Control<'a> {
    /// Set to `true` (from any thread, e.g. a Ctrl-C handler) to stop early.
    pub stop: Option<&'a AtomicBool>,
    /// Called once per finished root move, from a worker thread.
    pub on_root_move: Option<&'a (dyn Fn(Move, u128) + Sync)>,
}

/// The perft driver: a local thread pool plus settings.
pub struct Perft {
    config: PerftConfig,
    pool: rayon::ThreadPool,
}

/// Plies left at which the driver hands a subtree to the serial counter.
const SERIAL_DEPTH: u32 = 2;

impl Perft {
    /// Builds a driver: starts `config.threads` workers.
    pub fn new(config: PerftConfig) -> Result<Perft, PerftError> {
        if config.threads == 0 {
            return Err(PerftError::NoThreads);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(config.threads)
            .thread_name(|i| format!("perft-{i}"))
            .build()
            .map_err(|e| PerftError::Pool {
                threads: config.threads,
                message: e.to_string(),
            })?;
        Ok(Perft { config, pool })
    }

    /// The settings.
    pub fn config(&self) -> &PerftConfig {
        &self.config
    }

    /// Perft count (not interruptible).
    pub fn count(&self, pos: &Position, depth: u32) -> u128 {
        if depth == 0 {
            return 1;
        }
        self.divide(pos, depth, Control::default()).nodes
    }

    /// Per-root-move counts. Root moves run in parallel; each is reported to
    /// `control.on_root_move` as it finishes. When `control.stop` is set the
    /// run ends early with `complete == false` and only finished moves listed.
    pub fn divide(&self, pos: &Position, depth: u32, control: Control<'_>) -> DivideOutcome {
        let never = AtomicBool::new(false);
        let stop = control.stop.unwrap_or(&never);
        let moves: Vec<Move> = if depth == 0 {
            Vec::new()
        } else {
            pos.legal_moves().iter().copied().collect()
        };
        let results: Vec<Option<(Move, u128, PerftStats)>> = self.pool.install(|| {
            moves
                .par_iter()
                .map(|&mv| {
                    let child = pos.play_unchecked(mv);
                    let (nodes, stats) = self.drive(&child, depth - 1, stop)?;
                    if let Some(cb) = control.on_root_move {
                        cb(mv, nodes);
                    }
                    Some((mv, nodes, stats))
                })
                .collect()
        });
        let complete = results.iter().all(Option::is_some) && !stop.load(Ordering::Relaxed);
        let mut outcome = DivideOutcome {
            moves: Vec::with_capacity(results.len()),
            root_moves: moves.len(),
            nodes: 0,
            complete,
            stats: PerftStats::default(),
        };
        for (mv, nodes, stats) in results.into_iter().flatten() {
            outcome.moves.push((mv, nodes));
            outcome.nodes += nodes;
            outcome.stats = outcome.stats + stats;
        }
        outcome
    }

    /// Counts below `pos`; `None` if stopped.
    fn drive(&self, pos: &Position, depth: u32, stop: &AtomicBool) -> Option<(u128, PerftStats)> {
        if depth <= SERIAL_DEPTH {
            return Some((u128::from(perft(pos, depth)), PerftStats::default()));
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let moves = pos.legal_moves();
        let one = |&mv: &Move| self.drive(&pos.play_unchecked(mv), depth - 1, stop);
        let add = |a: (u128, PerftStats), b: (u128, PerftStats)| (a.0 + b.0, a.1 + b.1);
        let zero = (0u128, PerftStats::default());
        let (nodes, stats) = if depth >= self.config.split_depth {
            moves
                .as_slice()
                .par_iter()
                .map(one)
                .try_reduce(|| zero, |a, b| Some(add(a, b)))?
        } else {
            moves
                .iter()
                .map(one)
                .try_fold(zero, |a, r| r.map(|b| add(a, b)))?
        };
        Some((nodes, stats + PerftStats { driver_nodes: 1 }))
    }
}
