//! The perft table: a shared hash table of subtree counts.
//!
//! Layout (both synchronisation modes):
//! * an entry is 16 bytes: a key word (the top 56 bits of the position's
//!   Zobrist key, the remaining depth in the low 8 bits) and a 64-bit count;
//! * a bucket is 4 entries, 64 bytes, aligned to a cache line (asserted at
//!   compile time);
//! * the bucket of a key is `swap_bytes(key) * buckets >> 64` (multiply-high),
//!   so any number of buckets works, not only powers of two, and the bucket
//!   comes from the low key bits that the stored word gives up for the depth.
//!
//! Policy: a store overwrites an entry with the same key word (same position,
//! same depth), else fills an empty entry, else replaces the entry with the
//! smallest count, and only with a count at least as large: big subtrees are
//! the expensive ones to recompute. A count of 0 marks an empty entry (a zero
//! count is never stored; such subtrees are trivial to recount). `probe`
//! returns the count by value: no reference into the table ever escapes.
//!
//! Synchronisation ([`HashSync`]):
//! * `Mutex { shards }`: the buckets are split into `shards` contiguous
//!   ranges, each owned by a `std::sync::Mutex`. One shard is a single global
//!   lock (the design's); more are striped locks. A lock is held only while one
//!   bucket is read or written.
//! * `Lockless`: after Hyatt, each entry is two `AtomicU64`: `check = word ^
//!   count` and `count`. A reader accepts an entry only if `check ^ count ==
//!   word`, so a write torn by a concurrent store reads as a miss, never as a
//!   wrong count. `Relaxed` ordering is enough: the XOR check, not ordering,
//!   makes a torn pair detectable, and no other memory is published through it.

use std::sync::Mutex;

pub use crate::perft::memory::HugePages;
use crate::perft::memory::ZeroedSlice;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// One bucket of the mutex table.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Bucket {
    entries: [PlainEntry; BUCKET_ENTRIES],
}

#[derive(Clone, Copy, Default)]
#[repr(C)]
struct PlainEntry {
    word: u64,
    count: u64,
}

/// One bucket of the lockless table.
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

const _: () = assert!(std::mem::size_of::<PlainEntry>() == 16);
const _: () = assert!(std::mem::size_of::<AtomicEntry>() == 16);
const _: () = assert!(std::mem::size_of::<Bucket>() == BUCKET_BYTES);
const _: () = assert!(std::mem::align_of::<Bucket>() == BUCKET_BYTES);
const _: () = assert!(std::mem::size_of::<AtomicBucket>() == BUCKET_BYTES);
const _: () = assert!(std::mem::align_of::<AtomicBucket>() == BUCKET_BYTES);

/// What a store did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreOutcome {
    /// Written into an empty entry or over the same key word.
    Stored,
    /// Written over another position's entry with a smaller count.
    Replaced,
    /// Not written: every entry holds a larger count (or the table has no
    /// room: zero size, or a bucket its memory is not populated up to yet).
    Rejected,
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

/// The shared perft table.
pub struct PerftTable {
    storage: Storage,
    buckets: usize,
    bytes: u128,
    /// The key bits the table sees (all 64 unless a test narrows them to
    /// force collisions: [`PerftTable::with_key_bits`]).
    key_mask: u64,
}

enum Storage {
    Mutex {
        shards: Vec<Mutex<Vec<Bucket>>>,
        per_shard: usize,
    },
    Lockless(ZeroedSlice<AtomicBucket>),
}

fn try_vec<T>(len: usize, fill: impl FnMut() -> T, requested: u128) -> Result<Vec<T>, HashError> {
    let mut v: Vec<T> = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|e| HashError::Allocation {
            requested: human_bytes(requested),
            reason: e.to_string(),
        })?;
    v.resize_with(len, fill);
    Ok(v)
}

impl PerftTable {
    /// A table of at most `bytes` bytes (rounded down to whole 64-byte
    /// buckets; 0 gives a table that stores nothing). Fails cleanly if the
    /// machine does not have the memory or the allocator refuses.
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
        let storage = match sync {
            HashSync::Lockless => {
                // SAFETY: an all-zero AtomicBucket is a valid, empty bucket
                // (AtomicU64 has the layout of u64; count 0 = empty entry).
                #[allow(unsafe_code)]
                let memory = unsafe { ZeroedSlice::new(buckets) };
                Storage::Lockless(memory.ok_or_else(|| HashError::Allocation {
                    requested: human_bytes(bytes),
                    reason: std::io::Error::last_os_error().to_string(),
                })?)
            }
            HashSync::Mutex { shards } => {
                let shards = shards.clamp(1, buckets.max(1));
                let per_shard = buckets.div_ceil(shards).max(1);
                let mut locks = Vec::with_capacity(shards);
                let mut left = buckets;
                for _ in 0..shards {
                    let n = left.min(per_shard);
                    left -= n;
                    locks.push(Mutex::new(try_vec(n, Bucket::default, bytes)?));
                }
                Storage::Mutex {
                    shards: locks,
                    per_shard,
                }
            }
        };
        Ok(PerftTable {
            storage,
            buckets,
            bytes: buckets as u128 * BUCKET_BYTES as u128,
            key_mask,
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

    /// Whether the table's memory was advised to use huge pages (the
    /// lockless table on Linux; the mutex modes use the ordinary allocator).
    pub fn huge_pages(&self) -> HugePages {
        match &self.storage {
            Storage::Lockless(memory) => memory.huge_pages().clone(),
            Storage::Mutex { .. } => HugePages::Unsupported,
        }
    }

    /// Starts loading the bucket of `key` into the cache (a hint: no effect
    /// on results). Called for a child before its probe.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        if let Storage::Lockless(buckets) = &self.storage
            && self.buckets > 0
        {
            let index = self.bucket_index(key & self.key_mask);
            if index >= buckets.ready() {
                return;
            }
            let bucket: *const AtomicBucket = &buckets[index];
            // SAFETY: SSE is part of every x86-64 CPU; a prefetch never
            // faults and changes no memory (the address is a live bucket).
            #[allow(unsafe_code)]
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    bucket.cast::<i8>(),
                );
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The synchronisation mode.
    pub fn sync(&self) -> HashSync {
        match &self.storage {
            Storage::Mutex { shards, .. } => HashSync::Mutex {
                shards: shards.len(),
            },
            Storage::Lockless(_) => HashSync::Lockless,
        }
    }

    /// Multiply-high of the byte-swapped key: the bucket is chosen by the
    /// key's low bytes, which the stored word does not hold, so index and word
    /// together check all 64 bits of the key (for tables of 256+ buckets).
    #[inline(always)]
    fn bucket_index(&self, key: u64) -> usize {
        ((u128::from(key.swap_bytes()) * self.buckets as u128) >> 64) as usize
    }

    /// The stored count of the position with Zobrist key `key` at `depth`
    /// plies, if present (a copy).
    #[inline]
    pub fn probe(&self, key: u64, depth: u32) -> Option<u64> {
        if self.buckets == 0 {
            return None;
        }
        let key = key & self.key_mask;
        let word = key_word(key, depth);
        let index = self.bucket_index(key);
        match &self.storage {
            Storage::Mutex { shards, per_shard } => {
                let bucket = {
                    let shard = lock(&shards[index / per_shard]);
                    shard[index % per_shard]
                };
                bucket
                    .entries
                    .iter()
                    .find(|e| e.word == word && e.count != 0)
                    .map(|e| e.count)
            }
            // A bucket the populating thread has not reached is taken as
            // empty: touching it would stall on a first-touch page fault.
            Storage::Lockless(buckets) if index >= buckets.ready() => None,
            Storage::Lockless(buckets) => buckets[index].entries.iter().find_map(|e| {
                let count = e.count.load(Ordering::Relaxed);
                let check = e.check.load(Ordering::Relaxed);
                (count != 0 && check ^ count == word).then_some(count)
            }),
        }
    }

    /// Stores `count` for `key` at `depth` under the replacement policy.
    /// A zero count is not stored (0 marks an empty entry).
    #[inline]
    pub fn store(&self, key: u64, depth: u32, count: u64) -> StoreOutcome {
        if self.buckets == 0 || count == 0 {
            return StoreOutcome::Rejected;
        }
        let key = key & self.key_mask;
        let word = key_word(key, depth);
        let index = self.bucket_index(key);
        match &self.storage {
            Storage::Mutex { shards, per_shard } => {
                let mut shard = lock(&shards[index / per_shard]);
                let bucket = &mut shard[index % per_shard];
                let pairs = bucket.entries.map(|e| (e.word, e.count));
                match choose_slot(pairs, word, count) {
                    Some((i, outcome)) => {
                        bucket.entries[i] = PlainEntry { word, count };
                        outcome
                    }
                    None => StoreOutcome::Rejected,
                }
            }
            Storage::Lockless(buckets) if index >= buckets.ready() => StoreOutcome::Rejected,
            Storage::Lockless(buckets) => {
                let bucket = &buckets[index];
                // A torn entry decodes to a word no probe will ask for; it
                // competes for replacement by its count like any other.
                let pairs = std::array::from_fn(|i| {
                    let e = &bucket.entries[i];
                    let count = e.count.load(Ordering::Relaxed);
                    (e.check.load(Ordering::Relaxed) ^ count, count)
                });
                match choose_slot(pairs, word, count) {
                    Some((i, outcome)) => {
                        let e = &bucket.entries[i];
                        e.count.store(count, Ordering::Relaxed);
                        e.check.store(word ^ count, Ordering::Relaxed);
                        outcome
                    }
                    None => StoreOutcome::Rejected,
                }
            }
        }
    }

    /// Entries in use (scans the table; for statistics and tests).
    pub fn occupied(&self) -> usize {
        match &self.storage {
            Storage::Mutex { shards, .. } => shards
                .iter()
                .map(|s| {
                    lock(s)
                        .iter()
                        .flat_map(|b| b.entries.iter())
                        .filter(|e| e.count != 0)
                        .count()
                })
                .sum(),
            Storage::Lockless(buckets) => buckets
                .iter()
                .flat_map(|b| b.entries.iter())
                .filter(|e| e.count.load(Ordering::Relaxed) != 0)
                .count(),
        }
    }
}

/// Locks a shard; a poisoned lock (a panic elsewhere while holding it) still
/// guards consistent data, because every critical section is a plain copy.
#[inline(always)]
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

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
    fn sync_modes_parse() {
        assert_eq!("mutex".parse(), Ok(HashSync::Mutex { shards: 1 }));
        assert_eq!("striped:64".parse(), Ok(HashSync::Mutex { shards: 64 }));
        assert_eq!("lockless".parse(), Ok(HashSync::Lockless));
        assert!("striped:0".parse::<HashSync>().is_err());
        assert!("fast".parse::<HashSync>().is_err());
    }
}
