//! The parallel perft driver.
//!
//! * [`Perft`]: the driver the CLI uses: a local rayon pool, cancellation, a
//!   per-root-move callback for progress, and statistics.
//!
//! Counts: a subtree below the driver's serial cut-off fits `u64` by a wide
//! margin (2^64 leaves would take centuries without a hash table); the driver
//! adds subtrees in `u128`, so totals are exact whatever their size.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use thiserror::Error;

use crate::chess::cpu::{Cpu, CpuError, CpuFn, CpuPath};
use crate::chess::movegen::{Black, Side, White};
use crate::chess::moves::Move;
use crate::chess::piece::Color;
use crate::chess::position::Position;
use crate::chess::zobrist::Zobrist;
use crate::perft::children::for_each_child;
use crate::perft::choose::{self, CounterChoice};
use crate::perft::hash::{Access, HashError, HashSync, PerftTable, Probe, StoreOutcome};
use crate::perft::leaf::Scratch;
use crate::perft::serial::{SPARSE_MEN, perft_side};

/// Deepest perft the CLI, EPD suites and `perft uci` accept. Counts grow
/// about 30-fold a ply, so no run deeper than about 20 can finish; the
/// bound keeps the depth-first recursion far inside the thread stacks.
pub const MAX_PERFT_DEPTH: u32 = 64;

/// Stack of each worker thread. The recursion was measured to run depth
/// 400 within rayon's default 2 MiB (and to overflow at 1,000), so 8 MiB
/// is over 20 times what [`MAX_PERFT_DEPTH`] needs.
pub const THREAD_STACK_BYTES: usize = 8 << 20;

/// Settings of a [`Perft`] driver.
#[derive(Clone, Debug)]
pub struct PerftConfig {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Subtrees with at least this many plies left are split into parallel
    /// tasks (work stealing); smaller ones run serially on the thread that
    /// owns them.
    pub split_depth: u32,
    /// Perft table size in bytes; 0 = no table.
    pub hash_bytes: u128,
    /// How threads share the table.
    pub hash_sync: HashSync,
    /// Subtrees with fewer plies left are neither probed nor stored.
    pub min_hash_depth: u32,
    /// Zobrist key set (default: the built-in keys). Another seed gives
    /// independent keys, to rule out a key collision in a hashed count.
    pub zobrist_seed: u64,
    /// The compiled path the counting runs on (default:
    /// [`CpuPath::selected`]: `PERFT_CPU`, else the fastest for this CPU).
    pub cpu: CpuPath,
    /// Count without the leaf-parent shortcut ([`perft_plain`](crate::perft::perft_plain)'s loop):
    /// every move above the last ply is made.
    pub plain: bool,
    /// Unless `plain`: before a count deep enough to be worth it, time the
    /// shortcut and the plain loop on samples of the tree and run the
    /// faster (`perft::choose`). False: always the shortcut.
    pub choose_counter: bool,
    /// Key bits the perft table compares: 64 (the default). Fewer exist
    /// only to force false hits in tests of `--verify-table`.
    pub table_key_bits: u32,
}

/// Default split depth (measured: see docs/performance.md, "Threads and the perft
/// table"; 5 beat 4 by about 5 % once the leaf-parent shortcut made
/// subtrees cheaper).
pub const DEFAULT_SPLIT_DEPTH: u32 = 5;
/// Default minimum depth for probing the table (measured: see
/// docs/performance.md, "Threads and the perft table").
pub const DEFAULT_MIN_HASH_DEPTH: u32 = 2;
/// Default synchronisation: the XOR-checked atomics. The locks were at best
/// as fast (within the noise of 2 cores) and slower where many threads
/// contend (docs/performance.md, "Threads and the perft table").
pub const DEFAULT_HASH_SYNC: HashSync = HashSync::Lockless;
/// Most worker threads a driver accepts (Stockfish's `Threads` maximum).
/// Without a bound, `--threads 100000` spent minutes starting OS threads
/// before counting anything.
pub const MAX_THREADS: usize = 1024;

impl Default for PerftConfig {
    fn default() -> Self {
        PerftConfig {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            split_depth: DEFAULT_SPLIT_DEPTH,
            hash_bytes: 0,
            hash_sync: DEFAULT_HASH_SYNC,
            min_hash_depth: DEFAULT_MIN_HASH_DEPTH,
            zobrist_seed: crate::chess::zobrist::DEFAULT_SEED,
            cpu: CpuPath::selected(),
            plain: false,
            choose_counter: true,
            table_key_bits: 64,
        }
    }
}

/// Why a [`Perft`] driver could not be built.
#[derive(Debug, Error)]
pub enum PerftError {
    /// Zero threads requested.
    #[error("--threads must be at least 1")]
    NoThreads,
    /// More than [`MAX_THREADS`] threads requested.
    #[error("--threads {0}: at most {MAX_THREADS} worker threads")]
    TooManyThreads(usize),
    /// The thread pool could not start.
    #[error("cannot start {threads} worker threads: {message}")]
    Pool {
        /// Threads requested.
        threads: usize,
        /// The pool's error.
        message: String,
    },
    /// The perft table could not be made.
    #[error(transparent)]
    Hash(#[from] HashError),
    /// The CPU lacks the requested path's instructions.
    #[error(transparent)]
    Cpu(#[from] CpuError),
}

/// Counters of one run, added up the recursion (never shared between threads).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PerftStats {
    /// Table probes.
    pub probes: u64,
    /// Probes that found the count.
    pub hits: u64,
    /// Counts written (into an empty entry or over the same position).
    pub stores: u64,
    /// Counts written over another position's smaller count.
    pub replacements: u64,
    /// Counts not written because every entry of the bucket held a larger one.
    pub rejected: u64,
    /// Probes that found the bucket's lock still taken after a short wait
    /// and counted the subtree instead (mutex modes).
    pub busy_probes: u64,
    /// Counts not written because the bucket's lock stayed taken through a
    /// short wait (mutex modes).
    pub busy_stores: u64,
    /// Probes and stores that found the bucket's lock taken and had it
    /// after a short wait (mutex modes).
    pub lock_waits: u64,
}

impl PerftStats {
    /// `hits / probes`, 0 without probes.
    pub fn hit_rate(&self) -> f64 {
        if self.probes == 0 {
            0.0
        } else {
            self.hits as f64 / self.probes as f64
        }
    }

    fn record_store(&mut self, access: Access<StoreOutcome>) {
        self.lock_waits += u64::from(access.waited);
        match access.value {
            StoreOutcome::Stored => self.stores += 1,
            StoreOutcome::Replaced => self.replacements += 1,
            StoreOutcome::Rejected => self.rejected += 1,
            StoreOutcome::Busy => self.busy_stores += 1,
        }
    }

    /// Table accesses that needed a lock: probes and store attempts.
    pub fn lock_attempts(&self) -> u64 {
        self.probes + self.stores + self.replacements + self.rejected + self.busy_stores
    }

    /// Table accesses that found their lock taken: given up, or had after
    /// a wait.
    pub fn contended(&self) -> u64 {
        self.busy_probes + self.busy_stores + self.lock_waits
    }
}

impl std::ops::Add for PerftStats {
    type Output = PerftStats;
    fn add(self, o: PerftStats) -> PerftStats {
        PerftStats {
            probes: self.probes + o.probes,
            hits: self.hits + o.hits,
            stores: self.stores + o.stores,
            replacements: self.replacements + o.replacements,
            rejected: self.rejected + o.rejected,
            busy_probes: self.busy_probes + o.busy_probes,
            busy_stores: self.busy_stores + o.busy_stores,
            lock_waits: self.lock_waits + o.lock_waits,
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
    /// Table counters.
    pub stats: PerftStats,
    /// The smallest hashed depth at the end of the run: the configured
    /// `min_hash_depth`, or more where busy locks raised it.
    pub min_hash_depth: u32,
    /// True when the plain loop counted (`--plain`, or measured faster).
    pub plain: bool,
    /// The timing of both counters that chose between them, when one was
    /// made.
    pub counter_choice: Option<CounterChoice>,
}

/// Hooks into a running [`Perft::divide`].
#[derive(Default, Clone, Copy)]
pub struct Control<'a> {
    /// Set to `true` (from any thread, e.g. a Ctrl-C handler) to stop early.
    pub stop: Option<&'a AtomicBool>,
    /// Called once per finished root move, from a worker thread.
    pub on_root_move: Option<&'a (dyn Fn(Move, u128) + Sync)>,
}

/// Table access for the recursion: the real table, or none at all (then the
/// recursion neither computes keys nor probes).
trait Table: Sync {
    const ENABLED: bool;
    fn prefetch(&self, key: u64);
    /// Whether accesses take a lock (and may find it busy).
    fn locked(&self) -> bool;
    fn probe(&self, key: u64, depth: u32) -> Access<Probe>;
    fn store(&self, key: u64, depth: u32, count: u64) -> Access<StoreOutcome>;
}

impl Table for PerftTable {
    const ENABLED: bool = true;
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        PerftTable::prefetch(self, key);
    }
    #[inline(always)]
    fn locked(&self) -> bool {
        PerftTable::sync(self) != HashSync::Lockless
    }
    #[inline(always)]
    fn probe(&self, key: u64, depth: u32) -> Access<Probe> {
        PerftTable::lookup(self, key, depth)
    }
    #[inline(always)]
    fn store(&self, key: u64, depth: u32, count: u64) -> Access<StoreOutcome> {
        PerftTable::offer(self, key, depth, count)
    }
}

struct NoTable;

impl Table for NoTable {
    const ENABLED: bool = false;
    #[inline(always)]
    fn prefetch(&self, _: u64) {}
    #[inline(always)]
    fn locked(&self) -> bool {
        false
    }
    #[inline(always)]
    fn probe(&self, _: u64, _: u32) -> Access<Probe> {
        Access {
            value: Probe::Miss,
            waited: false,
        }
    }
    #[inline(always)]
    fn store(&self, _: u64, _: u32, _: u64) -> Access<StoreOutcome> {
        Access {
            value: StoreOutcome::Rejected,
            waited: false,
        }
    }
}

/// Everything a recursion needs besides the position: the table, the CPU
/// path `C`, and whether leaf parents take the shortcut.
struct Run<'a, T, C, const SHORTCUT: bool> {
    cpu: C,
    table: &'a T,
    /// The smallest hashed depth, shared by the run's threads.
    floor: &'a Floor,
    split_depth: u32,
    stop: &'a AtomicBool,
}

/// The smallest hashed depth of a run: the configured `min_hash_depth`,
/// raised one ply at a time (up to [`FLOOR_RAISE`] plies) while more than
/// one lock access in [`CONTENDED_SHARE`] finds its lock taken, over a
/// window of at least [`FLOOR_WINDOW`] of wall time. Each ply up makes the
/// hashed nodes about as many times rarer as the tree's branching factor,
/// so a lock that many threads fight over becomes a rare one; the deep
/// entries, which save the most, stay hashed. The lockless table never
/// reports a taken lock, so its floor never moves.
///
/// The window is one of time, not of accesses: a lock holder that loses
/// its CPU (more threads than cores, a busy machine) makes every access to
/// its lock wait for a scheduler time slice, a burst of a few milliseconds
/// that says nothing about contention; a window of accesses (4,096 or
/// 65,536 tried) often fell inside one burst and raised the floor of two
/// threads on 2 cores.
struct Floor {
    depth: AtomicU32,
    highest: u32,
    /// When the run began: windows are measured from it.
    began: Instant,
    /// Nanoseconds from `began` to the start of the current window.
    window_start: AtomicU64,
    /// Lock accesses and contended ones since the window started.
    attempts: AtomicU64,
    contended: AtomicU64,
}

/// The shortest window the floor is decided over.
const FLOOR_WINDOW: Duration = Duration::from_millis(50);
/// Accesses a window needs before it decides anything.
const FLOOR_MIN_ATTEMPTS: u64 = 4096;
/// The floor rises while more than one access in this many is contended.
const CONTENDED_SHARE: u64 = 4;
/// The most plies the floor rises above the configured depth.
const FLOOR_RAISE: u32 = 2;

impl Floor {
    fn new(min_hash_depth: u32) -> Floor {
        Floor {
            depth: AtomicU32::new(min_hash_depth),
            highest: min_hash_depth + FLOOR_RAISE,
            began: Instant::now(),
            window_start: AtomicU64::new(0),
            attempts: AtomicU64::new(0),
            contended: AtomicU64::new(0),
        }
    }

    #[inline(always)]
    fn get(&self) -> u32 {
        self.depth.load(Ordering::Relaxed)
    }

    /// Adds a finished serial subtree's lock figures (mutex modes only),
    /// `now` after the run began; at the end of a window, raises the floor
    /// if too many accesses were contended. Called once per serial subtree
    /// (thousands of nodes), so its shared counters are rare writes.
    fn record(&self, stats: &PerftStats, floor_at_start: u32, now: Duration) {
        // A subtree begun below the current floor tells nothing about it.
        if floor_at_start != self.get() {
            return;
        }
        let attempts = self
            .attempts
            .fetch_add(stats.lock_attempts(), Ordering::Relaxed)
            + stats.lock_attempts();
        let contended = self
            .contended
            .fetch_add(stats.contended(), Ordering::Relaxed)
            + stats.contended();
        let now = u64::try_from(now.as_nanos()).unwrap_or(u64::MAX);
        let start = self.window_start.load(Ordering::Relaxed);
        if attempts < FLOOR_MIN_ATTEMPTS
            || now.saturating_sub(start) < FLOOR_WINDOW.as_nanos() as u64
        {
            return;
        }
        // One thread closes the window.
        if self
            .window_start
            .compare_exchange(start, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        self.attempts.store(0, Ordering::Relaxed);
        self.contended.store(0, Ordering::Relaxed);
        if contended * CONTENDED_SHARE > attempts {
            let now = self.get();
            if now < self.highest {
                self.depth.fetch_max(now + 1, Ordering::Relaxed);
            }
        }
    }
}

impl<T: Table, C: Cpu, const SHORTCUT: bool> Run<'_, T, C, SHORTCUT> {
    /// Whether nodes `depth` plies from the leaves are probed and stored.
    #[inline(always)]
    fn hashed(&self, depth: u32) -> bool {
        T::ENABLED && depth >= self.floor.get()
    }

    /// Probes the table for `pos` at `depth` if this depth is hashed.
    #[inline(always)]
    fn probe(&self, pos: &Position, depth: u32, stats: &mut PerftStats) -> Option<u128> {
        if !self.hashed(depth) {
            return None;
        }
        stats.probes += 1;
        let access = self.table.probe(pos.hash(), depth);
        stats.lock_waits += u64::from(access.waited);
        match access.value {
            Probe::Hit(count) => {
                stats.hits += 1;
                Some(u128::from(count))
            }
            Probe::Miss => None,
            Probe::Busy => {
                stats.busy_probes += 1;
                None
            }
        }
    }

    /// Stores a computed count (if it fits the table's 64-bit counts).
    #[inline(always)]
    fn store(&self, pos: &Position, depth: u32, count: u128, stats: &mut PerftStats) {
        if self.hashed(depth)
            && let Ok(count) = u64::try_from(count)
        {
            stats.record_store(self.table.store(pos.hash(), depth, count));
        }
    }

    /// The children of `pos`, made out of line on path `C`; keys are kept
    /// only when a table is used.
    fn children<S: Side>(&self, pos: &Position) -> Vec<Position> {
        let cpu = self.cpu;
        cpu.outlined(
            #[inline(always)]
            || {
                let mut children = Vec::with_capacity(64);
                if T::ENABLED {
                    for_each_child::<C, S, true>(cpu, pos, |child| children.push(*child));
                } else {
                    for_each_child::<C, S, false>(cpu, pos, |child| children.push(*child));
                }
                children
            },
        )
    }

    /// The unhashed count below `pos` (no keys; the leaf-parent shortcut,
    /// with the caller's scratch, when this is a leaf parent).
    #[inline(always)]
    fn unhashed<S: Side>(&self, pos: &Position, depth: u32, scratch: &mut Scratch) -> u128 {
        u128::from(if SHORTCUT && depth == 2 {
            crate::perft::leaf::perft2_with::<C, S>(self.cpu, pos, scratch)
        } else {
            perft_side::<C, S, SHORTCUT>(self.cpu, pos, depth)
        })
    }

    /// Serial count below `pos`, probing and storing at hashed depths;
    /// `scratch` serves every leaf parent below.
    fn serial<S: Side>(
        &self,
        pos: &Position,
        depth: u32,
        stats: &mut PerftStats,
        scratch: &mut Scratch,
    ) -> u128 {
        if !self.hashed(depth) {
            return self.unhashed::<S>(pos, depth, scratch);
        }
        if let Some(n) = self.probe(pos, depth, stats) {
            return n;
        }
        let mut nodes = 0u128;
        if !self.hashed(depth - 1) {
            // The children are not hashed: the unhashed count.
            nodes = self.unhashed::<S>(pos, depth, scratch);
        } else {
            // All children first, then their buckets prefetched, then each
            // counted: each probe finds its bucket on its way into the cache
            // (measured: see docs/performance.md, "Threads and the perft table").
            let children = self.children::<S>(pos);
            for child in &children {
                self.table.prefetch(child.hash());
            }
            for child in &children {
                nodes += self.serial::<S::Other>(child, depth - 1, stats, scratch);
            }
        }
        self.store(pos, depth, nodes, stats);
        nodes
    }

    /// Parallel count below `pos`: children of nodes with at least
    /// `split_depth` plies left become tasks for the work-stealing pool.
    /// `None` if stopped.
    fn parallel<S: Side>(&self, pos: &Position, depth: u32) -> Option<(u128, PerftStats)> {
        let mut stats = PerftStats::default();
        if depth < self.split_depth {
            let floor = self.floor.get();
            let nodes = self.serial::<S>(pos, depth, &mut stats, &mut Scratch::new());
            if T::ENABLED && self.table.locked() {
                self.floor.record(&stats, floor, self.floor.began.elapsed());
            }
            return Some((nodes, stats));
        }
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        if let Some(n) = self.probe(pos, depth, &mut stats) {
            return Some((n, stats));
        }
        let children = self.children::<S>(pos);
        let (nodes, below) = children
            .par_iter()
            .map(|child| self.parallel::<S::Other>(child, depth - 1))
            .try_reduce(
                || (0, PerftStats::default()),
                |a, b| Some((a.0 + b.0, a.1 + b.1)),
            )?;
        stats = stats + below;
        self.store(pos, depth, nodes, &mut stats);
        Some((nodes, stats))
    }

    fn parallel_any(&self, pos: &Position, depth: u32) -> Option<(u128, PerftStats)> {
        match pos.side_to_move() {
            Color::White => self.parallel::<White>(pos, depth),
            Color::Black => self.parallel::<Black>(pos, depth),
        }
    }
}

/// The perft driver: a local thread pool, the optional perft table, settings.
pub struct Perft {
    config: PerftConfig,
    pool: rayon::ThreadPool,
    table: Option<PerftTable>,
    keys: &'static Zobrist,
}

impl Perft {
    /// Builds a driver: starts `config.threads` workers and allocates the
    /// table (failing cleanly if the memory is not there).
    pub fn new(config: PerftConfig) -> Result<Perft, PerftError> {
        if config.threads == 0 {
            return Err(PerftError::NoThreads);
        }
        if config.threads > MAX_THREADS {
            return Err(PerftError::TooManyThreads(config.threads));
        }
        if !config.cpu.is_supported() {
            let names: Vec<_> = CpuPath::supported().iter().map(|p| p.name()).collect();
            return Err(CpuError::Unsupported(config.cpu, names.join(", ")).into());
        }
        let table = if config.hash_bytes > 0 {
            Some(PerftTable::build(
                config.hash_bytes,
                config.hash_sync,
                config.table_key_bits,
                config.threads,
            )?)
        } else {
            None
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(config.threads)
            .stack_size(THREAD_STACK_BYTES)
            .thread_name(|i| format!("perft-{i}"))
            .build()
            .map_err(|e| PerftError::Pool {
                threads: config.threads,
                message: e.to_string(),
            })?;
        let keys = Zobrist::leaked(config.zobrist_seed);
        Ok(Perft {
            config,
            pool,
            table,
            keys,
        })
    }

    /// The settings.
    pub fn config(&self) -> &PerftConfig {
        &self.config
    }

    /// Runs `f` on the driver's thread pool.
    pub(crate) fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }

    /// The perft table, if any.
    pub fn table(&self) -> Option<&PerftTable> {
        self.table.as_ref()
    }

    /// Empties the perft table (so a timing run starts cold).
    pub fn clear_table(&mut self) -> Result<(), PerftError> {
        if let Some(table) = &self.table {
            let (bytes, sync, key_bits) = (table.bytes(), table.sync(), table.key_bits());
            // The old table goes first: its memory may be needed for the new one.
            self.table = None;
            self.table = Some(PerftTable::build(
                bytes,
                sync,
                key_bits,
                self.config.threads,
            )?);
        }
        Ok(())
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
        let floor = Floor::new(self.config.min_hash_depth);
        let root = pos.with_zobrist(self.keys);
        let counter_choice = if self.config.plain || !self.config.choose_counter {
            None
        } else {
            choose::measure(self.config.cpu, &root, depth, self.config.threads)
        };
        let plain = self.config.plain || counter_choice.is_some_and(|c| c.plain);
        let moves: Vec<Move> = if depth == 0 {
            Vec::new()
        } else {
            root.legal_moves().iter().copied().collect()
        };
        let one = |mv: Move| {
            let child = root.play_unchecked(mv);
            let result = self.config.cpu.run(Subtree {
                perft: self,
                pos: &child,
                depth: depth - 1,
                stop,
                floor: &floor,
                plain,
            });
            let (nodes, stats) = result?;
            if let Some(cb) = control.on_root_move {
                cb(mv, nodes);
            }
            Some((mv, nodes, stats))
        };
        let results: Vec<Option<(Move, u128, PerftStats)>> = self
            .pool
            .install(|| moves.par_iter().map(|&mv| one(mv)).collect());
        let complete = results.iter().all(Option::is_some) && !stop.load(Ordering::Relaxed);
        let mut outcome = DivideOutcome {
            moves: Vec::with_capacity(results.len()),
            root_moves: moves.len(),
            nodes: 0,
            complete,
            stats: PerftStats::default(),
            min_hash_depth: floor.get(),
            plain,
            counter_choice,
        };
        for (mv, nodes, stats) in results.into_iter().flatten() {
            outcome.moves.push((mv, nodes));
            outcome.nodes += nodes;
            outcome.stats = outcome.stats + stats;
        }
        outcome
    }

    fn run<'a, T: Table, C: Cpu, const SHORTCUT: bool>(
        &self,
        cpu: C,
        table: &'a T,
        stop: &'a AtomicBool,
        floor: &'a Floor,
    ) -> Run<'a, T, C, SHORTCUT> {
        Run {
            cpu,
            table,
            floor,
            split_depth: self.config.split_depth,
            stop,
        }
    }
}

/// One root move's subtree, run on a CPU path: the table (or none) and
/// the shortcut (or the plain loop) are chosen here, once per root move.
struct Subtree<'a> {
    perft: &'a Perft,
    pos: &'a Position,
    depth: u32,
    stop: &'a AtomicBool,
    floor: &'a Floor,
    /// The plain loop instead of the shortcut.
    plain: bool,
}

impl CpuFn for Subtree<'_> {
    type Output = Option<(u128, PerftStats)>;
    fn call<C: Cpu>(self, cpu: C) -> Self::Output {
        let Subtree {
            perft,
            pos,
            depth,
            stop,
            floor,
            plain,
        } = self;
        // Few men: the leaf parents count checks in the king tier (the men
        // only ever decrease below the root).
        if !plain && pos.occupied().len() <= SPARSE_MEN {
            let cpu = C::Sparse::from(cpu);
            return match &perft.table {
                Some(table) => perft
                    .run::<_, C::Sparse, true>(cpu, table, stop, floor)
                    .parallel_any(pos, depth),
                None => perft
                    .run::<_, C::Sparse, true>(cpu, &NoTable, stop, floor)
                    .parallel_any(pos, depth),
            };
        }
        match (&perft.table, plain) {
            (Some(table), false) => perft
                .run::<_, C, true>(cpu, table, stop, floor)
                .parallel_any(pos, depth),
            (Some(table), true) => perft
                .run::<_, C, false>(cpu, table, stop, floor)
                .parallel_any(pos, depth),
            (None, false) => perft
                .run::<_, C, true>(cpu, &NoTable, stop, floor)
                .parallel_any(pos, depth),
            (None, true) => perft
                .run::<_, C, false>(cpu, &NoTable, stop, floor)
                .parallel_any(pos, depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::cpu::Compiled;

    /// Walks the tree with the keyed perft makes (the ones the hashed
    /// recursion uses) and checks every key against a recomputed one.
    fn walk<S: Side>(pos: &Position, depth: u32, visited: &mut u64) {
        assert_eq!(pos.hash(), pos.compute_hash(), "{}", pos.to_fen());
        *visited += 1;
        if depth > 0 {
            for_each_child::<Compiled, S, true>(Compiled, pos, |child| {
                walk::<S::Other>(child, depth - 1, visited)
            });
        }
    }

    #[test]
    fn keyed_perft_makes_keep_the_zobrist_key_exact() {
        for fen in [
            crate::chess::fen::STARTPOS,
            crate::chess::fen::KIWIPETE,
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let mut visited = 0;
            match pos.side_to_move() {
                Color::White => walk::<White>(&pos, 4, &mut visited),
                Color::Black => walk::<Black>(&pos, 4, &mut visited),
            }
            assert!(visited > 10_000, "{fen}: {visited}");
        }
    }

    /// Lock figures of a subtree: `attempts` probes, `busy` of them busy.
    fn subtree(attempts: u64, busy: u64) -> PerftStats {
        PerftStats {
            probes: attempts,
            busy_probes: busy,
            ..PerftStats::default()
        }
    }

    #[test]
    fn the_floor_rises_only_while_locks_are_often_contended_and_at_most_two_plies() {
        let floor = Floor::new(2);
        let window = |i: u32| FLOOR_WINDOW * (i + 1);
        // Contended, but less than one access in CONTENDED_SHARE: it stays.
        for i in 0..4 {
            floor.record(
                &subtree(10_000, 10_000 / (CONTENDED_SHARE + 1)),
                2,
                window(i),
            );
        }
        assert_eq!(floor.get(), 2);
        // A burst (a lock holder that lost its CPU) inside a window of
        // quiet accesses: nothing is decided before the window ends, and
        // the window as a whole is not contended.
        let t = window(3);
        floor.record(&subtree(10_000, 10_000), 2, t + FLOOR_WINDOW / 10);
        assert_eq!(floor.get(), 2);
        floor.record(&subtree(100_000, 0), 2, t + FLOOR_WINDOW * 2);
        assert_eq!(floor.get(), 2);
        // Too contended over a whole window (waits count too): one ply up.
        let waited = PerftStats {
            probes: 10_000,
            lock_waits: 9_000,
            ..PerftStats::default()
        };
        floor.record(&waited, 2, t + FLOOR_WINDOW * 4);
        assert_eq!(floor.get(), 3);
        // A subtree begun at the old floor says nothing about the new one.
        floor.record(&subtree(10_000, 10_000), 2, t + FLOOR_WINDOW * 6);
        assert_eq!(floor.get(), 3);
        floor.record(&subtree(10_000, 10_000), 3, t + FLOOR_WINDOW * 8);
        assert_eq!(floor.get(), 4);
        // Never above the configured depth plus FLOOR_RAISE.
        for i in 0..10 {
            floor.record(
                &subtree(10_000, 10_000),
                floor.get(),
                t + FLOOR_WINDOW * (10 + 2 * i),
            );
        }
        assert_eq!(floor.get(), 2 + FLOOR_RAISE);
    }

    #[test]
    fn keyless_perft_makes_give_the_same_boards() {
        let pos = Position::from_fen(crate::chess::fen::KIWIPETE).unwrap();
        let mut keyed = Vec::new();
        for_each_child::<Compiled, White, true>(Compiled, &pos, |c| keyed.push(c.to_fen()));
        let mut plain = Vec::new();
        for_each_child::<Compiled, White, false>(Compiled, &pos, |c| plain.push(c.to_fen()));
        assert_eq!(keyed, plain);
        assert_eq!(keyed.len(), 48);
    }
}
