//! The perft table: a shared hash table of subtree counts.
//!
//! Layout (every synchronisation mode):
//! * an entry is 16 bytes: a check word (the key word XOR the count) and a
//!   64-bit count, where the key word is the top 56 bits of the position's
//!   Zobrist key with the remaining depth in the low 8 bits;
//! * a bucket is 4 entries, 64 bytes, aligned to a cache line (asserted at
//!   compile time);
//! * the bucket of a key is `swap_bytes(key) * buckets >> 64` (multiply-high),
//!   so any number of buckets works, not only powers of two, and the bucket
//!   comes from the low key bits that the stored word gives up for the depth.
//!
//! Memory: one zero-filled mapping, advised huge pages, populated by several
//! threads before the count ([`crate::perft::memory`]); the time that takes
//! is [`PerftTable::setup`], reported beside the count's own time.
//!
//! Policy: a store overwrites an entry with the same key word (same position,
//! same depth), else fills an empty entry, else replaces the entry with the
//! smallest count, and only with a count at least as large: big subtrees are
//! the expensive ones to recompute. A count of 0 marks an empty entry (a zero
//! count is never stored; such subtrees are trivial to recount). `probe`
//! returns the count by value: no reference into the table ever escapes.
//!
//! Synchronisation ([`HashSync`]):
//! * `Mutex { shards }`: the buckets are guarded by `shards` mutexes (bucket
//!   `i` by lock `i % shards`), each on a cache line of its own. One shard
//!   is a single global lock (the design's); more are striped locks. A lock
//!   is held only while one bucket is copied in or out, and it is waited
//!   for only briefly (a few attempts and two yields of the CPU): a probe
//!   whose lock stays taken is a miss, a store is skipped ([`Probe::Busy`],
//!   [`StoreOutcome::Busy`]). That costs a recount, never a wrong count, and
//!   no thread ever sleeps on the table, however many share it or however
//!   the OS schedules them. The driver also raises the smallest hashed
//!   depth while locks are often contended, so that with many threads on
//!   one lock the lock is rare.
//! * `Lockless`: after Hyatt: a reader accepts an entry only if `check ^
//!   count == word`, so a write torn by a concurrent store reads as a miss,
//!   never as a wrong count. `Relaxed` ordering is enough: the XOR check, not
//!   ordering, makes a torn pair detectable, and no other memory is
//!   published through it.
//!
//! Both modes store the same entries in the same memory; under a lock no
//! entry is ever torn, so the XOR check always passes there.

pub use crate::perft::memory::HugePages;
use crate::perft::memory::ZeroedSlice;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use thiserror::Error;

/// Number of entries per bucket.
pub const BUCKET_ENTRIES: usize = 4;
/// Bytes per bucket (one cache line).
pub const BUCKET_BYTES: usize = 64;

const DEPTH_MASK: u64 = 0xFF;

/// The stored key word: key with its low 8 bits replaced by the depth.
#[inline(always)]
fn key_word(key: u64, depth: u32) -> u64 {
    (key & !DEPTH_MASK) | u64::from(depth.min(255))
}

/// How the table is shared between threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "mode")]
pub enum HashSync {
    /// Buckets split into `shards` ranges, one mutex each (1 = a global lock).
    Mutex {
        /// Number of locks.
        shards: usize,
    },
    /// Two atomics per entry with an XOR check.
    Lockless,
}

impl std::fmt::Display for HashSync {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HashSync::Mutex { shards: 1 } => write!(f, "mutex"),
            HashSync::Mutex { shards } => write!(f, "striped:{shards}"),
            HashSync::Lockless => write!(f, "lockless"),
        }
    }
}

impl std::str::FromStr for HashSync {
    type Err = String;

    /// `mutex`, `striped` (1024 locks), `striped:N`, `lockless`.
    fn from_str(s: &str) -> Result<HashSync, String> {
        match s {
            "mutex" => Ok(HashSync::Mutex { shards: 1 }),
            "striped" => Ok(HashSync::Mutex { shards: 1024 }),
            "lockless" => Ok(HashSync::Lockless),
            other => match other.strip_prefix("striped:").map(str::parse::<usize>) {
                Some(Ok(n)) if n >= 1 => Ok(HashSync::Mutex { shards: n }),
                _ => Err(format!(
                    "invalid hash sync mode '{other}': expected mutex, striped, striped:N (N >= 1) or lockless"
                )),
            },
        }
    }
}

/// A table that could not be made.
#[derive(Debug, Error)]
pub enum HashError {
    /// More than the machine has available.
    #[error("hash table of {requested} requested, but only {available} of memory is available")]
    TooLarge {
        /// Requested size, human readable.
        requested: String,
        /// Available memory, human readable.
        available: String,
    },
    /// Smaller than one bucket: no table could hold a single entry.
    #[error(
        "hash table of {requested} is too small: the smallest table is one {BUCKET_BYTES}-byte bucket (use --no-hash for none)"
    )]
    TooSmall {
        /// Requested size, human readable.
        requested: String,
    },
    /// The allocator refused.
    #[error("cannot allocate a hash table of {requested}: {reason}")]
    Allocation {
        /// Requested size, human readable.
        requested: String,
        /// The allocator's reason.
        reason: String,
    },
}

/// Formats a byte count with a binary unit (`512 MiB`).
pub fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value.fract() == 0.0 {
        format!("{value} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Parses a size with a unit: `512MiB`, `2GiB`, `64KiB`, `1TiB`, `4096B`;
/// `K`/`M`/`G`/`T` are binary too, `KB`/`MB`/`GB`/`TB` decimal; a bare number
/// is MiB (as UCI's `Hash` option); case does not matter; a fraction
/// (`1.5GiB`) is rounded down to whole bytes. Returns bytes. This is the one
/// size grammar of the program: `--hash`, `--tt` and UCI `Hash` all use it.
pub fn parse_size(text: &str) -> Result<u128, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let unit = unit.trim();
    if number.is_empty() {
        return Err(format!(
            "invalid size '{text}': expected a number with a unit, e.g. 512MiB"
        ));
    }
    let multiplier: u128 = match unit.to_ascii_lowercase().as_str() {
        "" | "m" | "mib" => 1 << 20,
        "b" => 1,
        "k" | "kib" => 1 << 10,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => {
            return Err(format!(
                "invalid size '{text}': unknown unit '{unit}' (use B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB)"
            ));
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("invalid size '{text}': '{number}' is not a number"))?;
    let bytes = value * multiplier as f64;
    if !bytes.is_finite() || bytes > 1e30 {
        return Err(format!("invalid size '{text}': too large"));
    }
    Ok(bytes as u128)
}

/// `Err(available memory, human readable)` when `bytes` is more than the
/// memory available to new allocations ([`available_memory`]). Every "too
/// large" message (perft table, search TT, UCI `Hash`) uses this one figure.
pub fn check_available(bytes: u128) -> Result<(), String> {
    match available_memory() {
        Some(available) if bytes > available => Err(human_bytes(available)),
        _ => Ok(()),
    }
}

/// Memory available to new allocations, from `/proc/meminfo` (`MemAvailable`),
/// or `None` where that is not known.
pub fn available_memory() -> Option<u128> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u128 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// One bucket: four entries on one cache line.
#[derive(Default)]
#[repr(C, align(64))]
struct AtomicBucket {
    entries: [AtomicEntry; BUCKET_ENTRIES],
}

#[derive(Default)]
#[repr(C)]
struct AtomicEntry {
    check: AtomicU64,
    count: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<AtomicEntry>() == 16);
const _: () = assert!(std::mem::size_of::<AtomicBucket>() == BUCKET_BYTES);
const _: () = assert!(std::mem::align_of::<AtomicBucket>() == BUCKET_BYTES);

/// One lock of the mutex modes: a flag taken with a compare-and-swap and
/// never waited on, alone on its cache line so that threads taking
/// neighbouring locks do not steal each other's line.
///
/// A taken lock is first seen with a plain load (test, then
/// test-and-set): a thread that finds the lock taken only reads its line,
/// so the holder keeps the line and releases the lock without fetching it
/// back. With `std::sync::Mutex::try_lock` (a compare-and-swap straight
/// away) the failed attempts took the line from the holder: with one global
/// lock, 9.7 % of the accesses of 2 threads found it busy against 3.7 %
/// here, and 61 % against 17 % with 16 threads on 2 cores (start position
/// perft 7, 1 GiB).
#[derive(Default)]
#[repr(align(64))]
struct Lock(AtomicBool);

/// A held [`Lock`], released on drop.
struct Held<'a>(&'a AtomicBool);

impl Drop for Held<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

const _: () = assert!(std::mem::size_of::<Lock>() == 64);

/// What a store did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreOutcome {
    /// Written into an empty entry or over the same key word.
    Stored,
    /// Written over another position's entry with a smaller count.
    Replaced,
    /// Not written: every entry holds a larger count (or the table has no
    /// room: zero size).
    Rejected,
    /// Not written: the bucket's lock stayed taken (mutex modes only).
    Busy,
}

/// What a probe found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// The stored count.
    Hit(u64),
    /// No entry for this position and depth.
    Miss,
    /// The bucket's lock stayed taken, so the bucket was not read (mutex
    /// modes only): a miss.
    Busy,
}

/// What an access to the table found or did, and whether it first waited
/// for its bucket's lock (mutex modes: it was taken, and freed within a
/// few attempts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access<T> {
    /// The probe's or store's result.
    pub value: T,
    /// True when the lock was found taken before it was had.
    pub waited: bool,
}

impl<T> Access<T> {
    fn at_once(value: T) -> Access<T> {
        Access {
            value,
            waited: false,
        }
    }
}

/// Chooses the slot for `word` among four `(word, count)` pairs.
#[inline(always)]
fn choose_slot(
    entries: [(u64, u64); BUCKET_ENTRIES],
    word: u64,
    count: u64,
) -> Option<(usize, StoreOutcome)> {
    if let Some(i) = entries.iter().position(|&(w, c)| w == word && c != 0) {
        return Some((i, StoreOutcome::Stored));
    }
    if let Some(i) = entries.iter().position(|&(_, c)| c == 0) {
        return Some((i, StoreOutcome::Stored));
    }
    let (i, &(_, smallest)) = entries.iter().enumerate().min_by_key(|(_, (_, c))| *c)?;
    (count >= smallest).then_some((i, StoreOutcome::Replaced))
}

/// How the table's memory was made ready, and what it cost: the table's
/// set-up, a figure of its own beside the count's time.
#[derive(Clone, Debug, PartialEq)]
pub struct TableSetup {
    /// Wall-clock seconds to allocate and populate the memory.
    pub seconds: f64,
    /// Threads that populated it.
    pub threads: usize,
    /// How the pages were faulted in.
    pub populated: Populated,
    /// Whether huge pages were advised.
    pub huge_pages: HugePages,
}

/// How the table's pages were faulted in before the count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Populated {
    /// `madvise(MADV_POPULATE_WRITE)` (Linux 5.14 and later).
    Advised,
    /// One write per 4 KiB page (where that advice is not available).
    Touched,
    /// Nothing to populate (a zero-size table).
    Empty,
}

impl std::fmt::Display for Populated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Populated::Advised => "madvise(MADV_POPULATE_WRITE)",
            Populated::Touched => "a write per page",
            Populated::Empty => "nothing to populate",
        })
    }
}

/// The shared perft table.
pub struct PerftTable {
    memory: ZeroedSlice<AtomicBucket>,
    /// The mutex modes' locks (bucket `i` under lock `i % locks.len()`);
    /// empty for the lockless mode.
    locks: Vec<Lock>,
    buckets: usize,
    bytes: u128,
    /// The key bits the table sees (all 64 unless a test narrows them to
    /// force collisions: [`PerftTable::with_key_bits`]).
    key_mask: u64,
    setup: TableSetup,
}

impl PerftTable {
    /// A table of at most `bytes` bytes (rounded down to whole 64-byte
    /// buckets; 0 gives a table that stores nothing), populated by one
    /// thread per logical CPU. Fails cleanly if the machine does not have
    /// the memory or the allocator refuses.
    pub fn new(bytes: u128, sync: HashSync) -> Result<PerftTable, HashError> {
        PerftTable::with_key_bits(bytes, sync, 64)
    }

    /// A table that sees only the low `key_bits` bits of each key (1 to 63;
    /// 0 or 64 is all of them, [`PerftTable::new`]). Fewer bits make false hits common: it
    /// exists to show that a collision is caught (`--verify-table`), never
    /// to count with.
    pub fn with_key_bits(
        bytes: u128,
        sync: HashSync,
        key_bits: u32,
    ) -> Result<PerftTable, HashError> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        PerftTable::build(bytes, sync, key_bits, threads)
    }

    /// [`PerftTable::with_key_bits`], its memory populated by
    /// `populate_threads` threads (the driver passes its worker count).
    pub fn build(
        bytes: u128,
        sync: HashSync,
        key_bits: u32,
        populate_threads: usize,
    ) -> Result<PerftTable, HashError> {
        let started = std::time::Instant::now();
        let key_mask = match key_bits {
            0 | 64.. => u64::MAX,
            n => (1u64 << n) - 1,
        };
        // 0 is an empty table (every store rejected); 1 to 63 bytes is a
        // mistake (`--hash 1B`), not a table.
        if bytes > 0 && bytes < BUCKET_BYTES as u128 {
            return Err(HashError::TooSmall {
                requested: human_bytes(bytes),
            });
        }
        check_available(bytes).map_err(|available| HashError::TooLarge {
            requested: human_bytes(bytes),
            available,
        })?;
        let buckets =
            usize::try_from(bytes / BUCKET_BYTES as u128).map_err(|_| HashError::TooLarge {
                requested: human_bytes(bytes),
                available: "the address space".to_string(),
            })?;
        // SAFETY: an all-zero AtomicBucket is a valid, empty bucket
        // (AtomicU64 has the layout of u64; count 0 = empty entry).
        #[allow(unsafe_code)]
        let memory = unsafe { ZeroedSlice::<AtomicBucket>::new(buckets) }.ok_or_else(|| {
            HashError::Allocation {
                requested: human_bytes(bytes),
                reason: std::io::Error::last_os_error().to_string(),
            }
        })?;
        let locks = match sync {
            HashSync::Lockless => Vec::new(),
            HashSync::Mutex { shards } => {
                let shards = shards.clamp(1, buckets.max(1));
                let mut locks = Vec::new();
                locks
                    .try_reserve_exact(shards)
                    .map_err(|e| HashError::Allocation {
                        requested: human_bytes(bytes),
                        reason: e.to_string(),
                    })?;
                locks.resize_with(shards, Lock::default);
                locks
            }
        };
        let (threads, populated) = populate(&memory, populate_threads);
        let setup = TableSetup {
            seconds: started.elapsed().as_secs_f64(),
            threads,
            populated,
            huge_pages: memory.huge_pages().clone(),
        };
        Ok(PerftTable {
            memory,
            locks,
            buckets,
            bytes: buckets as u128 * BUCKET_BYTES as u128,
            key_mask,
            setup,
        })
    }

    /// Number of buckets.
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// Key bits the table compares (64 except in collision tests).
    pub fn key_bits(&self) -> u32 {
        64 - self.key_mask.leading_zeros()
    }

    /// Bytes actually used by the buckets.
    pub fn bytes(&self) -> u128 {
        self.bytes
    }

    /// Whether the table's memory was advised to use huge pages.
    pub fn huge_pages(&self) -> HugePages {
        self.setup.huge_pages.clone()
    }

    /// What making the table cost: allocation and population, timed.
    pub fn setup(&self) -> &TableSetup {
        &self.setup
    }

    /// Starts loading the bucket of `key` into the cache (a hint: no effect
    /// on results). Called for a child before its probe.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        if self.buckets > 0 {
            let index = self.bucket_index(key & self.key_mask);
            let bucket: *const AtomicBucket = &self.memory[index];
            // SAFETY: SSE is part of every x86-64 CPU; a prefetch never
            // faults and changes no memory (the address is a live bucket).
            #[allow(unsafe_code)]
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    bucket.cast::<i8>(),
                );
            }
            // The bucket's lock too: its line was most likely last written
            // by another core.
            if !self.locks.is_empty() {
                let lock: *const Lock = &self.locks[index % self.locks.len()];
                // SAFETY: as above (the address is a live lock).
                #[allow(unsafe_code)]
                unsafe {
                    std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                        lock.cast::<i8>(),
                    );
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The synchronisation mode.
    pub fn sync(&self) -> HashSync {
        if self.locks.is_empty() {
            HashSync::Lockless
        } else {
            HashSync::Mutex {
                shards: self.locks.len(),
            }
        }
    }

    /// Multiply-high of the byte-swapped key: the bucket is chosen by the
    /// key's low bytes, which the stored word does not hold, so index and word
    /// together check all 64 bits of the key (for tables of 256+ buckets).
    #[inline(always)]
    fn bucket_index(&self, key: u64) -> usize {
        ((u128::from(key.swap_bytes()) * self.buckets as u128) >> 64) as usize
    }

    /// Brings bucket `index` into this core's cache before its lock is
    /// taken, so the lock is held for a cache hit, not a memory access.
    #[inline(always)]
    fn warm(&self, index: usize) {
        std::hint::black_box(self.memory[index].entries[0].check.load(Ordering::Relaxed));
    }

    /// Access to bucket `index`: its lock (the bucket warmed first) in the
    /// mutex modes, nothing to take in the lockless one; `None` when the
    /// lock stayed taken ([`PerftTable::lock`]). The flag: it had to wait.
    #[inline(always)]
    fn enter(&self, index: usize) -> Option<(Option<Held<'_>>, bool)> {
        if self.locks.is_empty() {
            return Some((None, false));
        }
        self.warm(index);
        self.lock(index).map(|(held, waited)| (Some(held), waited))
    }

    /// Takes the lock of bucket `index`, waiting only briefly: a few
    /// attempts ([`LOCK_SPINS`]), then a yield of the CPU, then a few more,
    /// [`LOCK_YIELDS`] times, then it gives up (`None`: the caller counts a
    /// miss or skips its store). `Some(true)` when it had to wait.
    ///
    /// Why yield: a lock held longer than a few attempts is one whose holder
    /// lost its CPU in the middle of its bucket copy (more threads than
    /// cores, or a busy machine); yielding lets the holder run and release
    /// it. Measured (16 threads on 2 cores, one global lock, start position
    /// perft 7, 1 GiB, medians of 7 interleaved rounds): giving up at once
    /// took 1.9x the lockless table's time, spinning alone (64 attempts)
    /// 2.4x, this 1.3x; more yields (4, 8) changed nothing. Every critical
    /// section is a copy of one bucket in or out, which cannot panic, so a
    /// lock is never left taken.
    #[inline(always)]
    fn lock(&self, index: usize) -> Option<(Held<'_>, bool)> {
        let lock = &self.locks[index % self.locks.len()].0;
        let mut waited = false;
        for round in 0..=LOCK_YIELDS {
            for _ in 0..LOCK_SPINS {
                if !lock.load(Ordering::Relaxed)
                    && lock
                        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                        .is_ok()
                {
                    return Some((Held(lock), waited));
                }
                waited = true;
                std::hint::spin_loop();
            }
            if round < LOCK_YIELDS {
                std::thread::yield_now();
            }
        }
        None
    }

    /// The stored count of the position with Zobrist key `key` at `depth`
    /// plies, if present (a copy; a busy lock reads as absent).
    #[inline]
    pub fn probe(&self, key: u64, depth: u32) -> Option<u64> {
        match self.lookup(key, depth).value {
            Probe::Hit(count) => Some(count),
            Probe::Miss | Probe::Busy => None,
        }
    }

    /// [`PerftTable::probe`], telling a miss from a busy lock, and whether
    /// the lock had to be waited for.
    #[inline]
    pub fn lookup(&self, key: u64, depth: u32) -> Access<Probe> {
        if self.buckets == 0 {
            return Access::at_once(Probe::Miss);
        }
        let key = key & self.key_mask;
        let word = key_word(key, depth);
        let index = self.bucket_index(key);
        let Some((_guard, waited)) = self.enter(index) else {
            return Access::at_once(Probe::Busy);
        };
        let found = self.memory[index].entries.iter().find_map(|e| {
            let count = e.count.load(Ordering::Relaxed);
            let check = e.check.load(Ordering::Relaxed);
            (count != 0 && check ^ count == word).then_some(count)
        });
        Access {
            value: found.map_or(Probe::Miss, Probe::Hit),
            waited,
        }
    }

    /// Stores `count` for `key` at `depth` under the replacement policy.
    /// A zero count is not stored (0 marks an empty entry).
    #[inline]
    pub fn store(&self, key: u64, depth: u32, count: u64) -> StoreOutcome {
        self.offer(key, depth, count).value
    }

    /// [`PerftTable::store`], saying whether the lock had to be waited for.
    #[inline]
    pub fn offer(&self, key: u64, depth: u32, count: u64) -> Access<StoreOutcome> {
        if self.buckets == 0 || count == 0 {
            return Access::at_once(StoreOutcome::Rejected);
        }
        let key = key & self.key_mask;
        let word = key_word(key, depth);
        let index = self.bucket_index(key);
        let Some((_guard, waited)) = self.enter(index) else {
            return Access::at_once(StoreOutcome::Busy);
        };
        let bucket = &self.memory[index];
        // Lockless: a torn entry decodes to a word no probe will ask for;
        // it competes for replacement by its count like any other.
        let pairs = std::array::from_fn(|i| {
            let e = &bucket.entries[i];
            let count = e.count.load(Ordering::Relaxed);
            (e.check.load(Ordering::Relaxed) ^ count, count)
        });
        let outcome = match choose_slot(pairs, word, count) {
            Some((i, outcome)) => {
                let e = &bucket.entries[i];
                e.count.store(count, Ordering::Relaxed);
                e.check.store(word ^ count, Ordering::Relaxed);
                outcome
            }
            None => StoreOutcome::Rejected,
        };
        Access {
            value: outcome,
            waited,
        }
    }

    /// Entries in use (scans the table; for statistics and tests).
    pub fn occupied(&self) -> usize {
        self.memory
            .iter()
            .flat_map(|b| b.entries.iter())
            .filter(|e| e.count.load(Ordering::Relaxed) != 0)
            .count()
    }
}

impl Drop for PerftTable {
    /// Frees a large table's memory from as many threads as populated it,
    /// before the mapping goes: the time is part of the command's. Freeing
    /// 8 GiB took 22 ms on one thread (the unmapping alone), 11 ms on two.
    fn drop(&mut self) {
        let threads = self.setup.threads;
        if threads > 1 {
            let memory = &self.memory;
            let share = memory.len().div_ceil(threads);
            crate::perft::memory::for_each_chunk(memory.len(), share, threads, |range| {
                // SAFETY: `&mut self`: no probe or store can run any more,
                // and the ranges are disjoint.
                #[allow(unsafe_code)]
                unsafe {
                    memory.discard(range);
                }
            });
        }
    }
}

/// Faults every page of `memory` in before the count, from `threads`
/// threads; returns the threads that took part and how. A table below
/// [`PARALLEL_POPULATE_BYTES`] is populated by the calling thread alone
/// (starting threads would cost more than the faults).
fn populate(memory: &ZeroedSlice<AtomicBucket>, threads: usize) -> (usize, Populated) {
    if memory.is_empty() {
        return (0, Populated::Empty);
    }
    let bytes = memory.len() * BUCKET_BYTES;
    let threads = if bytes < PARALLEL_POPULATE_BYTES {
        1
    } else {
        threads
    };
    let touched = std::sync::atomic::AtomicBool::new(false);
    let used = crate::perft::memory::for_each_chunk(
        memory.len(),
        crate::perft::memory::CHUNK_BYTES / BUCKET_BYTES,
        threads,
        |range| {
            if !memory.prefault(range.clone()) {
                // Writing the value already there: the page is faulted in,
                // nothing changes (no count runs yet).
                for bucket in memory[range].iter().step_by(PAGE_BYTES / BUCKET_BYTES) {
                    bucket.entries[0].count.store(0, Ordering::Relaxed);
                }
                touched.store(true, Ordering::Relaxed);
            }
        },
    );
    let how = if touched.load(Ordering::Relaxed) {
        Populated::Touched
    } else {
        Populated::Advised
    };
    (used, how)
}

/// Attempts at a lock between two yields.
const LOCK_SPINS: u32 = 4;
/// Yields before an access gives up on a lock.
const LOCK_YIELDS: u32 = 2;

/// The smallest page.
const PAGE_BYTES: usize = 4096;

/// Tables from this size on are populated by several threads.
const PARALLEL_POPULATE_BYTES: usize = 16 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    const MODES: [HashSync; 3] = [
        HashSync::Mutex { shards: 1 },
        HashSync::Mutex { shards: 7 },
        HashSync::Lockless,
    ];

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("64"), Ok(64 << 20));
        assert_eq!(parse_size("1MB"), Ok(1_000_000));
        assert_eq!(parse_size("100TiB"), Ok(100 << 40));
        assert_eq!(parse_size("0"), Ok(0));
        assert!(parse_size("12XB").is_err());
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("-5MiB").is_err());
        assert!(parse_size("1e400GiB").is_err());
    }

    #[test]
    fn store_then_probe_returns_the_count_and_depth_is_part_of_the_key() {
        for mode in MODES {
            let t = PerftTable::new(64 * 1000, mode).unwrap();
            assert_eq!(t.buckets(), 1000);
            assert_eq!(t.probe(0xABCD_0000_0000_1234, 3), None);
            assert_eq!(
                t.store(0xABCD_0000_0000_1234, 3, 8902),
                StoreOutcome::Stored
            );
            assert_eq!(t.probe(0xABCD_0000_0000_1234, 3), Some(8902));
            assert_eq!(t.probe(0xABCD_0000_0000_1234, 4), None, "{mode}");
            assert_eq!(t.probe(0xABCE_0000_0000_1234, 3), None);
        }
    }

    #[test]
    fn replacement_keeps_the_larger_counts() {
        for mode in MODES {
            // One bucket: every key lands in it.
            let t = PerftTable::new(64, mode).unwrap();
            for (i, count) in [10u64, 20, 30, 40].into_iter().enumerate() {
                assert_eq!(t.store((i as u64 + 1) << 8, 2, count), StoreOutcome::Stored);
            }
            // Smaller than everything: rejected.
            assert_eq!(t.store(99 << 8, 2, 5), StoreOutcome::Rejected);
            assert_eq!(t.probe(99 << 8, 2), None);
            // Larger than the smallest (10): replaces it.
            assert_eq!(t.store(98 << 8, 2, 15), StoreOutcome::Replaced);
            assert_eq!(t.probe(98 << 8, 2), Some(15));
            assert_eq!(t.probe(1 << 8, 2), None);
            assert_eq!(t.probe(4 << 8, 2), Some(40));
            // Same key and depth: overwritten in place.
            assert_eq!(t.store(4 << 8, 2, 40), StoreOutcome::Stored);
            assert_eq!(t.occupied(), 4);
        }
    }

    #[test]
    fn zero_capacity_and_odd_sizes_work() {
        for mode in MODES {
            let empty = PerftTable::new(0, mode).unwrap();
            assert_eq!(empty.store(12345, 2, 7), StoreOutcome::Rejected);
            assert_eq!(empty.probe(12345, 2), None);
            for small in [1, 63] {
                assert!(matches!(
                    PerftTable::new(small, mode),
                    Err(HashError::TooSmall { .. })
                ));
            }
            let odd = PerftTable::new(64 * 3 + 17, mode).unwrap();
            assert_eq!(odd.buckets(), 3);
            for k in 0..1000u64 {
                odd.store(k.wrapping_mul(0x9E37_79B9_7F4A_7C15), 5, k + 1);
            }
            assert!(odd.occupied() <= 12);
        }
    }

    #[test]
    fn absurd_sizes_are_refused_cleanly() {
        let err = PerftTable::new(100 << 40, HashSync::Lockless)
            .err()
            .expect("refused");
        assert!(err.to_string().contains("100 TiB"), "{err}");
    }

    #[test]
    fn a_narrowed_key_makes_keys_that_share_its_bits_collide() {
        for mode in MODES {
            let full = PerftTable::new(64 * 1024, mode).unwrap();
            let narrow = PerftTable::with_key_bits(64 * 1024, mode, 16).unwrap();
            assert_eq!((full.key_bits(), narrow.key_bits()), (64, 16));
            // Two keys that differ only above bit 16.
            let (a, b) = (0x1234_5678_9ABC_DEF0u64, 0xFEDC_BA98_7654_DEF0u64);
            for t in [&full, &narrow] {
                t.store(a, 3, 97_862);
            }
            assert_eq!(full.probe(b, 3), None, "{mode}");
            assert_eq!(narrow.probe(b, 3), Some(97_862), "{mode}: a false hit");
        }
    }

    #[test]
    fn a_taken_lock_makes_probes_and_stores_busy_never_wrong() {
        for shards in [1, 4] {
            let t = PerftTable::new(64 * 64, HashSync::Mutex { shards }).unwrap();
            let key = 0x0123_4567_89AB_CDEF;
            assert_eq!(t.store(key, 3, 777), StoreOutcome::Stored);
            let index = t.bucket_index(key);
            let held = t.lock(index).expect("a free lock");
            assert!(!held.1, "a free lock is had at once");
            // Another thread would find it taken and give up: a miss and a
            // skipped store.
            assert!(t.lock(index).is_none());
            assert_eq!(t.lookup(key, 3).value, Probe::Busy);
            assert_eq!(t.probe(key, 3), None);
            assert_eq!(t.store(key, 3, 999), StoreOutcome::Busy);
            drop(held);
            assert_eq!(t.lookup(key, 3), Access::at_once(Probe::Hit(777)));
            assert_eq!(t.store(key, 3, 999), StoreOutcome::Stored);
            assert_eq!(t.lookup(key, 3).value, Probe::Hit(999));
        }
    }

    #[test]
    fn the_lockless_table_is_never_busy() {
        let t = PerftTable::new(64 * 64, HashSync::Lockless).unwrap();
        assert_eq!(t.lookup(42 << 8, 2), Access::at_once(Probe::Miss));
        assert_eq!(
            t.offer(42 << 8, 2, 5),
            Access::at_once(StoreOutcome::Stored)
        );
        assert_eq!(t.lookup(42 << 8, 2), Access::at_once(Probe::Hit(5)));
    }

    #[test]
    fn every_mode_is_populated_before_use_and_the_set_up_is_timed() {
        for mode in MODES {
            // 40 MiB: above the size populated by several threads, and not a
            // whole number of 2 MiB chunks.
            let t = PerftTable::build((40 << 20) + 64 * 5, mode, 64, 3).unwrap();
            let setup = t.setup();
            assert_eq!(setup.threads, 3, "{mode}");
            assert!(setup.seconds >= 0.0 && setup.seconds < 60.0);
            if cfg!(target_os = "linux") {
                assert!(
                    matches!(setup.populated, Populated::Advised | Populated::Touched),
                    "{mode}"
                );
            }
            assert_eq!(t.occupied(), 0, "{mode}: populating wrote nothing");
            assert_eq!(t.sync(), mode);
            // A small table is populated by the calling thread alone.
            let small = PerftTable::build(1 << 20, mode, 64, 8).unwrap();
            assert_eq!(small.setup().threads, 1);
            let none = PerftTable::build(0, mode, 64, 8).unwrap();
            assert_eq!(none.setup().populated, Populated::Empty);
        }
    }

    #[test]
    fn sync_modes_parse() {
        assert_eq!("mutex".parse(), Ok(HashSync::Mutex { shards: 1 }));
        assert_eq!("striped:64".parse(), Ok(HashSync::Mutex { shards: 64 }));
        assert_eq!("lockless".parse(), Ok(HashSync::Lockless));
        assert!("striped:0".parse::<HashSync>().is_err());
        assert!("fast".parse::<HashSync>().is_err());
    }
}
