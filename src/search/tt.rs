//! The search TT: a lockless, shared, transactional transposition table.
//!
//! "TT" always means this table (the perft table is `hash.rs`). It serves the
//! alpha-beta search of [`crate::search`](mod@crate::search) and is built
//! around one idea: iterative deepening opens a **transaction** before each
//! search of the root (one per aspiration window), and when the window fails
//! the search may **roll back** everything that attempt stored, in O(1),
//! without touching a single entry. Several threads (lazy SMP) share one
//! table, each with its own transactions, without a lock anywhere.
//!
//! # Handles and the shared table
//!
//! A [`Tt`] is one thread's **handle** on a table: it holds the table (an
//! `Arc`), the handle's open transaction (at most one) and its counters.
//! [`Tt::share`] makes another handle on the same table for another thread.
//! Probes and stores go straight to the shared entries (atomic loads and
//! stores, `Relaxed`); `begin`, `commit` and `rollback` touch the shared
//! status table only (atomics again). Nothing blocks.
//!
//! # Layout
//!
//! ```text
//! Entry (16 bytes = 2 x AtomicU64)        Cluster (64 bytes, align 64)
//! +-------------------------------+       +-------+-------+-------+-------+
//! | check u64 = key ^ data        |       | entry | entry | entry | entry |
//! | data  u64:                    |       +-------+-------+-------+-------+
//! |   bits  0..16 move            |       cluster index = mul-high(key, n)
//! |   bits 16..32 score (i16)     |
//! |   bits 32..40 depth           |
//! |   bits 40..48 bound (0 empty) |
//! |   bits 48..64 status slot     |
//! +-------------------------------+
//! ```
//!
//! **Hyatt's XOR check.** A writer stores `data` and `key ^ data` with two
//! independent atomic stores; a reader loads both and accepts the entry for
//! `key` only if `check ^ data == key`. Two writers racing on one entry can
//! leave one's check beside the other's data (a torn entry): the XOR then
//! gives neither key, so the entry reads as a miss. The transaction's slot is
//! **inside** `data`, so it is covered by the check too: a torn entry cannot
//! borrow another entry's transaction.
//!
//! Scores are stored relative to the node (a mate is "mate in k plies from
//! here", not from the root; [`score_to_tt`](crate::search::score::score_to_tt) / [`score_from_tt`](crate::search::score::score_from_tt)), so a mate
//! found in one place is still right when the position is reached at another
//! ply by transposition.
//!
//! # Transactions and the status table
//!
//! Each entry carries the number of a **status slot**, not a transaction
//! number. The status table (shared by all handles) has [`STATUS_SLOTS`] =
//! 16384 slots; each is an `AtomicU8` state ([`TxnState`]: free, active,
//! committed, rolled back), plus the search generation and serial number of
//! the transaction holding it. An entry that passed the XOR check is
//! **visible** to a handle if
//!
//! * its slot is the handle's own open transaction (read your writes), or
//! * its slot is committed, or
//! * its slot holds an open *auto-commit* transaction ([`Tt::begin_auto_commit`]:
//!   for a search that cannot fail, such as a lazy-SMP helper's full
//!   window; it can only be committed, a rollback is refused), or
//! * its slot is active (another thread's open transaction) and the table's
//!   [`Isolation`] is [`Isolation::ReadUncommitted`].
//!
//! Under [`Isolation::ReadCommitted`] (the default) a thread never sees
//! another thread's uncommitted entries, so an entry of a transaction that is
//! later rolled back is never used by anyone but its writer, and not even by
//! it after the rollback. So:
//!
//! * [`Tt::commit`] and [`Tt::rollback`] are one atomic store of a status
//!   byte: O(1), and no entry is read or written (the
//!   [`TtStats::entry_accesses`] counter proves it in the tests), however
//!   many threads are writing at the time. A rolled-back transaction's
//!   entries read as empty from then on, to every handle.
//! * A probe that accepted an entry reads its slot's state (`Acquire`) and
//!   then loads the data word again: if it changed, the entry was replaced or
//!   swept meanwhile and the probe reports a miss. That closes the window in
//!   which a slot could be swept and reused between the reader's load of the
//!   entry and its load of the state.
//! * Slot 0 is a permanent sentinel, "old, committed". No transaction ever
//!   gets it.
//! * [`Tt::begin`] takes tickets from a shared atomic counter and maps them to
//!   slots 1, 2, ..., 16383, 1, 2, ... round robin. It **claims** a slot with
//!   a compare-and-swap of its state byte (setting a claim bit), skipping a
//!   slot that is active (auto-commit or not) or claimed by another handle, so two threads never
//!   share a slot. Before a claimed slot is reused, one sweep of the table
//!   clears the entries still tagged with it if it was rolled back, and
//!   retags them to slot 0 if it was committed (only if its transaction
//!   stored anything). Without the sweep a rolled-back entry would come back
//!   to life when its slot turned active again (the test suite shows exactly
//!   that with the sweep switched off). No other handle writes entries tagged
//!   with a claimed slot (only a slot's owner stores under it), so the sweep
//!   races only with stores of other slots into the same entries: those make
//!   torn entries (misses) or overwrite the swept entry, never resurrect it.
//!   The sweep costs one pass over the table per 16383 transactions.
//!
//! # Replacement
//!
//! A store goes, in order of preference, to the entry of the same key
//! (visible or not: a key has one entry, so a probe cannot find an older
//! copy first), else to any invisible entry (empty or rolled back: rolled-back
//! entries are the first victims), else to the entry with the lowest
//! `depth - k * age`, where age is counted in **searches**
//! ([`Tt::new_search`]), not transactions: an iterative-deepening search runs
//! many transactions, and counting those would age its own entries. Entries
//! retagged to slot 0 have lost their generation and count as
//! [`MAX_AGE`] searches old (a slot is reused only after 16383 transactions,
//! so such entries are old in practice). Another thread's open entries are
//! not victims of choice (they will most likely be committed).
//!
//! # Rollback discards, it does not restore
//!
//! A transaction overwrites entries in place. If it is rolled back, what it
//! overwrote is **gone**: a committed entry replaced during a failed
//! aspiration window does not come back. Rollback removes the failed
//! attempt's entries; it is not an undo log.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicU32, AtomicU64, Ordering};

use thiserror::Error;

use crate::chess::moves::Move;

/// Status slots in production. Slot 0 is the sentinel, so 16383 transactions
/// run between two uses of the same slot.
pub const STATUS_SLOTS: usize = 16384;

/// Age (in searches) at which entries count as fully old; also the age of
/// entries retagged to the sentinel slot 0.
pub const MAX_AGE: u32 = 64;

/// Default `k` of the replacement priority `depth - k * age`
/// (chosen by measurement: see README "perft search").
pub const DEFAULT_AGE_WEIGHT: i32 = 1;

/// Size of one entry in bytes.
pub const ENTRY_BYTES: usize = 16;
/// Entries per cluster.
pub const CLUSTER_ENTRIES: usize = 4;
/// Size of one cluster in bytes (one cache line).
pub const CLUSTER_BYTES: usize = 64;
/// What a stored score says about the true value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true value is at least the score (a fail high).
    Lower,
    /// The true value is at most the score (a fail low).
    Upper,
}

impl Bound {
    const fn to_bits(self) -> u8 {
        match self {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        }
    }

    const fn from_bits(bits: u8) -> Option<Bound> {
        match bits {
            1 => Some(Bound::Exact),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Upper),
            _ => None,
        }
    }
}

/// What the TT stores for a position, and what [`Tt::probe`] returns (a copy).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TtData {
    /// Best (or refuting) move, [`Move::NONE`] if unknown. May be illegal in
    /// the probing position after a key collision: check it with
    /// [`Position::is_legal`](crate::Position::is_legal).
    pub mv: Move,
    /// Score relative to the node ([`score_to_tt`](crate::search::score::score_to_tt)).
    pub score: i16,
    /// Remaining depth in plies the score was searched to.
    pub depth: u8,
    /// What kind of bound `score` is.
    pub bound: Bound,
}

/// The state of a status slot.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum TxnState {
    /// Never used since the table was created or cleared.
    Free,
    /// The transaction running now; its entries are visible.
    Active,
    /// Committed; its entries are visible.
    Committed,
    /// Rolled back; its entries read as empty.
    RolledBack,
}

impl std::fmt::Display for TxnState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TxnState::Free => "free",
            TxnState::Active => "active",
            TxnState::Committed => "committed",
            TxnState::RolledBack => "rolled back",
        })
    }
}

/// A transaction handle from [`Tt::begin`]. It names a status slot and the
/// transaction's serial number, so a stale handle (its slot reused since) is
/// recognised and refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Txn {
    slot: u16,
    serial: u64,
}

impl Txn {
    /// The status slot this transaction tags its entries with.
    pub fn slot(self) -> usize {
        usize::from(self.slot)
    }

    /// The transaction's serial number (1 for the first transaction of a table).
    pub fn serial(self) -> u64 {
        self.serial
    }
}

/// A broken precondition or a table that cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TtError {
    /// `begin`, `new_search` or `clear` while a transaction is open.
    #[error("TT: cannot {op} while transaction {active} is active (commit or roll it back first)")]
    StillActive {
        /// The operation refused.
        op: &'static str,
        /// Serial number of the open transaction.
        active: u64,
    },
    /// `commit`, `rollback` or `store` with a transaction that is not the
    /// active one.
    #[error("TT: cannot {op} transaction {serial}: it is {fate}, not active")]
    NotActive {
        /// The operation refused.
        op: &'static str,
        /// The handle's serial number.
        serial: u64,
        /// What became of it.
        fate: TxnFate,
    },
    /// Every status slot is held by an open transaction of some handle.
    #[error("TT: all {slots} status slots are held by open transactions")]
    NoFreeSlot {
        /// Status slots of the table.
        slots: usize,
    },
    /// A size too small for one cluster.
    #[error(
        "TT size {bytes} B is too small: the table needs at least one {CLUSTER_BYTES}-byte cluster"
    )]
    TooSmall {
        /// Requested bytes.
        bytes: usize,
    },
    /// A status-table size outside `2..=65536`.
    #[error("TT status table of {slots} slots: need 2 to 65536 (slot 0 is the sentinel)")]
    BadSlots {
        /// Requested slots.
        slots: usize,
    },
    /// A rollback of an auto-commit transaction, whose entries others may
    /// already have read ([`Tt::begin_auto_commit`]).
    #[error(
        "TT: cannot roll back auto-commit transaction {serial}: its entries are already visible"
    )]
    AutoCommitRollback {
        /// The transaction's serial number.
        serial: u64,
    },
    /// The allocation failed.
    #[error("cannot allocate a TT of {bytes} bytes: {reason}")]
    Alloc {
        /// Requested bytes.
        bytes: usize,
        /// The allocator's error.
        reason: String,
    },
}

/// What became of a transaction that is not the active one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TxnFate {
    /// It was committed.
    Committed,
    /// It was rolled back.
    RolledBack,
    /// Its slot has been given to a later transaction.
    Expired,
    /// This table never issued it.
    Unknown,
    /// It is another handle's open transaction.
    OtherHandle,
}

impl std::fmt::Display for TxnFate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TxnFate::Committed => "already committed",
            TxnFate::RolledBack => "already rolled back",
            TxnFate::Expired => "expired (its status slot was reused)",
            TxnFate::Unknown => "unknown to this table",
            TxnFate::OtherHandle => "open on another handle",
        })
    }
}

/// Counters of a table's life, for reports and tests.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct TtStats {
    /// Transactions begun.
    pub transactions: u64,
    /// Transactions committed.
    pub commits: u64,
    /// Transactions rolled back.
    pub rollbacks: u64,
    /// Entries made invisible by rollbacks (those of the rolled-back
    /// transaction still in the table at the time).
    pub discarded: u64,
    /// Probes.
    pub probes: u64,
    /// Probes that found a visible entry of the key.
    pub hits: u64,
    /// Stores.
    pub stores: u64,
    /// Slot sweeps run by `begin`.
    pub sweeps: u64,
    /// Entries cleared by sweeps (left by rolled-back transactions).
    pub swept_cleared: u64,
    /// Entries retagged to slot 0 by sweeps (left by committed transactions).
    pub swept_retagged: u64,
    /// Instrumentation: every entry read or written by any operation.
    /// `commit` and `rollback` never change it.
    pub entry_accesses: u64,
}

/// The counters of several threads' handles, added up.
impl std::ops::Add for TtStats {
    type Output = TtStats;
    fn add(self, o: TtStats) -> TtStats {
        TtStats {
            transactions: self.transactions + o.transactions,
            commits: self.commits + o.commits,
            rollbacks: self.rollbacks + o.rollbacks,
            discarded: self.discarded + o.discarded,
            probes: self.probes + o.probes,
            hits: self.hits + o.hits,
            stores: self.stores + o.stores,
            sweeps: self.sweeps + o.sweeps,
            swept_cleared: self.swept_cleared + o.swept_cleared,
            swept_retagged: self.swept_retagged + o.swept_retagged,
            entry_accesses: self.entry_accesses + o.entry_accesses,
        }
    }
}

/// The counters since an earlier reading of the same handle.
impl std::ops::Sub for TtStats {
    type Output = TtStats;
    fn sub(self, before: TtStats) -> TtStats {
        TtStats {
            transactions: self.transactions - before.transactions,
            commits: self.commits - before.commits,
            rollbacks: self.rollbacks - before.rollbacks,
            discarded: self.discarded - before.discarded,
            probes: self.probes - before.probes,
            hits: self.hits - before.hits,
            stores: self.stores - before.stores,
            sweeps: self.sweeps - before.sweeps,
            swept_cleared: self.swept_cleared - before.swept_cleared,
            swept_retagged: self.swept_retagged - before.swept_retagged,
            entry_accesses: self.entry_accesses - before.entry_accesses,
        }
    }
}

impl TtStats {
    /// Hits per probe, 0 without probes.
    pub fn hit_rate(&self) -> f64 {
        if self.probes == 0 {
            0.0
        } else {
            self.hits as f64 / self.probes as f64
        }
    }
}

/// Which other threads' entries a handle may read.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// A handle sees committed entries and its own open transaction's only
    /// (the default): an entry of a transaction that is later rolled back is
    /// never read by another thread.
    #[default]
    ReadCommitted,
    /// A handle also sees the entries of other threads' open transactions
    /// (they may still be rolled back after being read). For measurement.
    ReadUncommitted,
}

// Status bytes.
const FREE: u8 = 0;
const ACTIVE: u8 = 1;
const COMMITTED: u8 = 2;
const ROLLED_BACK: u8 = 3;
/// Open, and visible to every handle as it is written: a transaction that
/// can never be rolled back ([`Tt::begin_auto_commit`]).
const AUTO_COMMIT: u8 = 4;
/// Set while a handle sweeps a slot it is about to reuse.
const CLAIMED: u8 = 0x80;

fn state_of(byte: u8) -> TxnState {
    match byte & !CLAIMED {
        FREE => TxnState::Free,
        ACTIVE | AUTO_COMMIT => TxnState::Active,
        COMMITTED => TxnState::Committed,
        _ => TxnState::RolledBack,
    }
}

// The data word.
const EMPTY: u8 = 0;

#[inline(always)]
fn pack(key_mv: u16, data: &TtData, slot: u16) -> u64 {
    u64::from(key_mv)
        | u64::from(data.score as u16) << 16
        | u64::from(data.depth) << 32
        | u64::from(data.bound.to_bits()) << 40
        | u64::from(slot) << 48
}

#[inline(always)]
fn bound_bits(d: u64) -> u8 {
    (d >> 40) as u8
}

#[inline(always)]
fn slot_of(d: u64) -> usize {
    (d >> 48) as usize
}

#[inline(always)]
fn depth_of(d: u64) -> u8 {
    (d >> 32) as u8
}

#[inline(always)]
fn unpack(d: u64) -> Option<TtData> {
    Some(TtData {
        mv: Move::from_bits(d as u16),
        score: (d >> 16) as u16 as i16,
        depth: depth_of(d),
        bound: Bound::from_bits(bound_bits(d))?,
    })
}

/// Four entries, each two atomic words: `[check, data]` at `2i`, `2i + 1`.
#[derive(Default)]
#[repr(C, align(64))]
struct Cluster {
    words: [AtomicU64; 2 * CLUSTER_ENTRIES],
}

const _: () = assert!(std::mem::size_of::<Cluster>() == CLUSTER_BYTES);
const _: () = assert!(std::mem::align_of::<Cluster>() == CLUSTER_BYTES);
const _: () = assert!(CLUSTER_BYTES / CLUSTER_ENTRIES == ENTRY_BYTES);

/// The table every handle shares.
struct Shared {
    clusters: Vec<Cluster>,
    /// Per slot: state byte (with the claim bit). Read by every probe that
    /// finds its key, written by begin, commit and rollback only.
    states: Vec<AtomicU8>,
    /// Per slot: generation the transaction began in.
    generations: Vec<AtomicU32>,
    /// Per slot: serial number of the transaction holding it.
    serials: Vec<AtomicU64>,
    /// Per slot: its transaction stored something (so a reuse must sweep).
    dirty: Vec<AtomicBool>,
    /// Tickets for slots, handed out round robin.
    tickets: AtomicU64,
    /// Transactions begun (the last serial number).
    serial: AtomicU64,
    generation: AtomicU32,
    age_weight: AtomicI32,
    sweep_enabled: AtomicBool,
    read_uncommitted: AtomicBool,
}

/// One thread's handle on a lockless transactional transposition table
/// ([`Tt::share`] makes more handles on the same table). A handle is `Send`
/// but not `Sync`: one thread per handle, any number of handles per table.
///
/// ```
/// use perft::search::tt::{Bound, Tt, TtData};
/// use perft::Move;
///
/// let mut tt = Tt::new(1 << 20)?;
/// tt.new_search()?;
/// let txn = tt.begin()?;
/// let data = TtData { mv: Move::NONE, score: 12, depth: 3, bound: Bound::Exact };
/// tt.store(txn, 0xDEAD_BEEF, data)?;
/// assert_eq!(tt.probe(0xDEAD_BEEF), Some(data)); // read your writes
/// let other = tt.share(); // another thread's handle on the same table
/// assert_eq!(other.probe(0xDEAD_BEEF), None); // not committed yet
/// tt.rollback(txn)?;
/// assert_eq!(tt.probe(0xDEAD_BEEF), None); // gone, in O(1)
/// assert!(tt.commit(txn).is_err()); // a rolled-back transaction cannot commit
/// # Ok::<(), perft::search::tt::TtError>(())
/// ```
pub struct Tt {
    shared: Arc<Shared>,
    active: Option<Txn>,
    /// Entries of the open transaction this handle created and has not
    /// itself replaced (what a rollback discards; exact with one thread, an
    /// upper bound when other threads replace them).
    own_live: u64,
    stats: TtStats,
    probes: Cell<u64>,
    hits: Cell<u64>,
    probe_accesses: Cell<u64>,
}

impl std::fmt::Debug for Tt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tt")
            .field("clusters", &self.clusters())
            .field("status_slots", &self.status_slots())
            .field("active", &self.active)
            .field("generation", &self.generation())
            .finish_non_exhaustive()
    }
}

impl Tt {
    /// A table of at most `bytes` bytes (whole 64-byte clusters) with the
    /// production status table of [`STATUS_SLOTS`] slots, and a handle on it.
    pub fn new(bytes: usize) -> Result<Tt, TtError> {
        Tt::with_status_slots(bytes, STATUS_SLOTS)
    }

    /// A table with a status table of `slots` slots (slot 0 the sentinel).
    /// Tests use a tiny status table to make slots wrap around quickly.
    pub fn with_status_slots(bytes: usize, slots: usize) -> Result<Tt, TtError> {
        if !(2..=usize::from(u16::MAX) + 1).contains(&slots) {
            return Err(TtError::BadSlots { slots });
        }
        let n = bytes / CLUSTER_BYTES;
        if n == 0 {
            return Err(TtError::TooSmall { bytes });
        }
        let mut clusters = Vec::new();
        clusters.try_reserve_exact(n).map_err(|e| TtError::Alloc {
            bytes,
            reason: e.to_string(),
        })?;
        clusters.resize_with(n, Cluster::default);
        let states: Vec<AtomicU8> = (0..slots).map(|_| AtomicU8::new(FREE)).collect();
        states[0].store(COMMITTED, Ordering::Relaxed);
        let shared = Shared {
            clusters,
            states,
            generations: (0..slots).map(|_| AtomicU32::new(0)).collect(),
            serials: (0..slots).map(|_| AtomicU64::new(0)).collect(),
            dirty: (0..slots).map(|_| AtomicBool::new(false)).collect(),
            tickets: AtomicU64::new(0),
            serial: AtomicU64::new(0),
            generation: AtomicU32::new(0),
            age_weight: AtomicI32::new(DEFAULT_AGE_WEIGHT),
            sweep_enabled: AtomicBool::new(true),
            read_uncommitted: AtomicBool::new(false),
        };
        Ok(Tt::handle(Arc::new(shared)))
    }

    fn handle(shared: Arc<Shared>) -> Tt {
        Tt {
            shared,
            active: None,
            own_live: 0,
            stats: TtStats::default(),
            probes: Cell::new(0),
            hits: Cell::new(0),
            probe_accesses: Cell::new(0),
        }
    }

    /// Another handle on the same table (for another thread), with no open
    /// transaction and its own counters.
    pub fn share(&self) -> Tt {
        Tt::handle(Arc::clone(&self.shared))
    }

    /// True if `other` is a handle on the same table.
    pub fn same_table(&self, other: &Tt) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Size of the entry array in bytes.
    pub fn bytes(&self) -> usize {
        self.shared.clusters.len() * CLUSTER_BYTES
    }

    /// Number of entries (4 per cluster).
    pub fn capacity(&self) -> usize {
        self.shared.clusters.len() * CLUSTER_ENTRIES
    }

    /// Number of clusters.
    pub fn clusters(&self) -> usize {
        self.shared.clusters.len()
    }

    /// Number of status slots, including the sentinel slot 0.
    pub fn status_slots(&self) -> usize {
        self.shared.states.len()
    }

    /// The cluster `key` maps to (multiply-high of the key and the cluster
    /// count, so any count works and all key bits matter).
    #[inline(always)]
    pub fn cluster_index(&self, key: u64) -> usize {
        ((u128::from(key) * self.shared.clusters.len() as u128) >> 64) as usize
    }

    /// The weight `k` in the replacement priority `depth - k * age`.
    pub fn age_weight(&self) -> i32 {
        self.shared.age_weight.load(Ordering::Relaxed)
    }

    /// Sets `k` in the replacement priority `depth - k * age` (for every
    /// handle of the table).
    pub fn set_age_weight(&mut self, k: i32) {
        self.shared.age_weight.store(k, Ordering::Relaxed);
    }

    /// Which other threads' entries the handles of this table read.
    pub fn isolation(&self) -> Isolation {
        if self.shared.read_uncommitted.load(Ordering::Relaxed) {
            Isolation::ReadUncommitted
        } else {
            Isolation::ReadCommitted
        }
    }

    /// Sets the isolation of the table (every handle). Set it before the
    /// threads start.
    pub fn set_isolation(&mut self, isolation: Isolation) {
        self.shared
            .read_uncommitted
            .store(isolation == Isolation::ReadUncommitted, Ordering::Relaxed);
    }

    /// Switches the slot sweep of [`Tt::begin`] off or on. **For tests
    /// only**: with the sweep off, entries of a rolled-back transaction come
    /// back to life when its slot is reused, which the test suite uses to show
    /// that its property test catches exactly that bug. Never switch it off
    /// otherwise.
    #[doc(hidden)]
    pub fn set_sweep_enabled(&mut self, on: bool) {
        self.shared.sweep_enabled.store(on, Ordering::Relaxed);
    }

    /// This handle's counters so far.
    pub fn stats(&self) -> TtStats {
        let mut s = self.stats;
        s.probes = self.probes.get();
        s.hits = self.hits.get();
        s.entry_accesses += self.probe_accesses.get();
        s
    }

    /// The current search generation.
    pub fn generation(&self) -> u32 {
        self.shared.generation.load(Ordering::Relaxed)
    }

    /// This handle's open transaction, if any.
    pub fn active(&self) -> Option<Txn> {
        self.active
    }

    /// The state of status slot `slot` (`None` if out of range).
    pub fn slot_state(&self, slot: usize) -> Option<TxnState> {
        self.shared
            .states
            .get(slot)
            .map(|s| state_of(s.load(Ordering::Acquire)))
    }

    /// Starts a new search: entries stored from now on are one search younger
    /// than those stored before. Refused while this handle has a transaction
    /// open (a transaction belongs to one search). With several threads, one
    /// of them calls it before the others start.
    pub fn new_search(&mut self) -> Result<(), TtError> {
        self.refuse_if_active("start a new search")?;
        self.shared.generation.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Empties the table and frees every slot (keeps size, counters and
    /// generation). Refused while this handle has a transaction open; no
    /// other handle may be in use meanwhile.
    pub fn clear(&mut self) -> Result<(), TtError> {
        self.refuse_if_active("clear the table")?;
        let t = &*self.shared;
        self.stats.entry_accesses += self.capacity() as u64;
        for c in &t.clusters {
            for w in &c.words {
                w.store(0, Ordering::Relaxed);
            }
        }
        for (i, s) in t.states.iter().enumerate() {
            s.store(if i == 0 { COMMITTED } else { FREE }, Ordering::Release);
        }
        for d in &t.dirty {
            d.store(false, Ordering::Relaxed);
        }
        Ok(())
    }

    fn refuse_if_active(&self, op: &'static str) -> Result<(), TtError> {
        match self.active {
            Some(t) => Err(TtError::StillActive {
                op,
                active: t.serial,
            }),
            None => Ok(()),
        }
    }

    /// Opens a transaction on this handle. At most one is open per handle; a
    /// second `begin` is an error. Claims the next slot no other handle holds
    /// (compare-and-swap, no lock); if that slot's previous transaction left
    /// entries, they are swept first (see the module docs).
    pub fn begin(&mut self) -> Result<Txn, TtError> {
        self.begin_as(ACTIVE)
    }

    /// Opens an *auto-commit* transaction: its entries are visible to every
    /// handle as soon as they are stored, as if each store committed at once,
    /// and it cannot be rolled back ([`TtError::AutoCommitRollback`]);
    /// [`Tt::commit`] ends it. For a search that cannot fail (a full window:
    /// the lazy-SMP helpers under read-committed isolation), whose entries
    /// are final when written. A rolled-back transaction's entries stay
    /// invisible to everyone, as with [`Tt::begin`].
    pub fn begin_auto_commit(&mut self) -> Result<Txn, TtError> {
        self.begin_as(AUTO_COMMIT)
    }

    fn begin_as(&mut self, state: u8) -> Result<Txn, TtError> {
        self.refuse_if_active("begin a transaction")?;
        let shared = Arc::clone(&self.shared);
        let t = &*shared;
        let usable = (t.states.len() - 1) as u64;
        let mut tries = 0;
        let (slot, old) = loop {
            if tries > 2 * usable {
                return Err(TtError::NoFreeSlot {
                    slots: t.states.len(),
                });
            }
            tries += 1;
            let slot = (t.tickets.fetch_add(1, Ordering::Relaxed) % usable + 1) as usize;
            let old = t.states[slot].load(Ordering::Acquire);
            if old == ACTIVE || old == AUTO_COMMIT || old & CLAIMED != 0 {
                continue; // another handle's open transaction
            }
            if t.states[slot]
                .compare_exchange(old, old | CLAIMED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                break (slot, old);
            }
        };
        if t.dirty[slot].swap(false, Ordering::AcqRel) && t.sweep_enabled.load(Ordering::Relaxed) {
            self.sweep(slot, old == COMMITTED);
        }
        let serial = t.serial.fetch_add(1, Ordering::Relaxed) + 1;
        let txn = Txn {
            slot: slot as u16,
            serial,
        };
        t.generations[slot].store(t.generation.load(Ordering::Relaxed), Ordering::Relaxed);
        t.serials[slot].store(serial, Ordering::Relaxed);
        t.states[slot].store(state, Ordering::Release);
        self.active = Some(txn);
        self.own_live = 0;
        self.stats.transactions += 1;
        Ok(txn)
    }

    /// One pass over the table for a slot about to be reused: clears its
    /// entries if it was rolled back, retags them to the sentinel slot 0 if it
    /// was committed. Other handles may store into the same entries
    /// meanwhile; see the module docs for why that is harmless.
    fn sweep(&mut self, slot: usize, committed: bool) {
        let mut cleared = 0;
        let mut retagged = 0;
        for cluster in &self.shared.clusters {
            for e in 0..CLUSTER_ENTRIES {
                let (cw, dw) = (&cluster.words[2 * e], &cluster.words[2 * e + 1]);
                let d = dw.load(Ordering::Relaxed);
                if bound_bits(d) == EMPTY || slot_of(d) != slot {
                    continue;
                }
                if committed {
                    let key = cw.load(Ordering::Relaxed) ^ d;
                    let nd = d & !(0xFFFF << 48);
                    dw.store(nd, Ordering::Relaxed);
                    cw.store(key ^ nd, Ordering::Relaxed);
                    retagged += 1;
                } else {
                    dw.store(0, Ordering::Relaxed);
                    cw.store(0, Ordering::Relaxed);
                    cleared += 1;
                }
            }
        }
        self.stats.entry_accesses += self.capacity() as u64;
        self.stats.sweeps += 1;
        self.stats.swept_cleared += cleared;
        self.stats.swept_retagged += retagged;
    }

    fn check_active(&self, txn: Txn, op: &'static str) -> Result<(), TtError> {
        if self.active == Some(txn) {
            return Ok(());
        }
        let t = &*self.shared;
        let fate = if txn.serial == 0 || txn.serial > t.serial.load(Ordering::Relaxed) {
            TxnFate::Unknown
        } else if t.serials.get(txn.slot()).map(|s| s.load(Ordering::Relaxed)) != Some(txn.serial) {
            TxnFate::Expired
        } else {
            match state_of(t.states[txn.slot()].load(Ordering::Acquire)) {
                TxnState::Committed => TxnFate::Committed,
                TxnState::RolledBack => TxnFate::RolledBack,
                // A cleared table frees every slot; an active one belongs to
                // another handle.
                TxnState::Free => TxnFate::Expired,
                TxnState::Active => TxnFate::OtherHandle,
            }
        };
        Err(TtError::NotActive {
            op,
            serial: txn.serial,
            fate,
        })
    }

    /// Commits this handle's open transaction: its entries become visible to
    /// every handle. O(1): one atomic store.
    pub fn commit(&mut self, txn: Txn) -> Result<(), TtError> {
        self.check_active(txn, "commit")?;
        self.shared.states[txn.slot()].store(COMMITTED, Ordering::Release);
        self.active = None;
        self.stats.commits += 1;
        Ok(())
    }

    /// Rolls back this handle's open transaction: its entries read as empty
    /// to every handle from now on. O(1): one atomic store, no entry touched.
    /// What the transaction overwrote is not restored.
    pub fn rollback(&mut self, txn: Txn) -> Result<(), TtError> {
        self.check_active(txn, "roll back")?;
        if self.shared.states[txn.slot()].load(Ordering::Relaxed) == AUTO_COMMIT {
            return Err(TtError::AutoCommitRollback { serial: txn.serial });
        }
        self.shared.states[txn.slot()].store(ROLLED_BACK, Ordering::Release);
        self.active = None;
        self.stats.rollbacks += 1;
        self.stats.discarded += self.own_live;
        Ok(())
    }

    /// Whether entries of `slot` are visible to this handle.
    #[inline(always)]
    fn visible(&self, slot: usize) -> bool {
        if self.active.is_some_and(|t| t.slot() == slot) {
            return true;
        }
        let t = &*self.shared;
        match t.states[slot].load(Ordering::Acquire) & !CLAIMED {
            COMMITTED | AUTO_COMMIT => true,
            ACTIVE => t.read_uncommitted.load(Ordering::Relaxed),
            _ => false,
        }
    }

    /// Whether entries of `slot` count as live for replacement (committed or
    /// any open transaction).
    #[inline(always)]
    fn live(&self, slot: usize) -> bool {
        matches!(
            self.shared.states[slot].load(Ordering::Acquire) & !CLAIMED,
            COMMITTED | ACTIVE | AUTO_COMMIT
        )
    }

    /// The visible entry for `key`, if any, as a copy. A torn entry (two
    /// writers interleaved) fails the XOR check and is a miss.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtData> {
        self.probes.set(self.probes.get() + 1);
        let cluster = &self.shared.clusters[self.cluster_index(key)];
        for e in 0..CLUSTER_ENTRIES {
            let (cw, dw) = (&cluster.words[2 * e], &cluster.words[2 * e + 1]);
            let d = dw.load(Ordering::Relaxed);
            let c = cw.load(Ordering::Relaxed);
            if c ^ d != key || bound_bits(d) == EMPTY {
                continue;
            }
            // The state is read (Acquire) after the entry, then the data
            // word again: if it changed, the entry was replaced or swept
            // (and its slot maybe reused) while we looked: a miss.
            if !self.visible(slot_of(d)) || dw.load(Ordering::Relaxed) != d {
                continue;
            }
            self.probe_accesses
                .set(self.probe_accesses.get() + e as u64 + 1);
            self.hits.set(self.hits.get() + 1);
            return unpack(d);
        }
        self.probe_accesses
            .set(self.probe_accesses.get() + CLUSTER_ENTRIES as u64);
        None
    }

    /// Replacement priority: lower is replaced first.
    #[inline(always)]
    fn worth(&self, d: u64, generation: u32, k: i32) -> i32 {
        let slot = slot_of(d);
        let age = if slot == 0 {
            MAX_AGE
        } else {
            generation
                .wrapping_sub(self.shared.generations[slot].load(Ordering::Relaxed))
                .min(MAX_AGE)
        };
        i32::from(depth_of(d)) - k * age as i32
    }

    /// Stores `data` for `key` under this handle's open transaction `txn`.
    /// Replacement: the entry of the same key (whoever wrote it, so a key has
    /// one entry), else any invisible entry (empty or rolled back), else the
    /// lowest `depth - k * age`. When a visible entry of the same key is
    /// overwritten with no move, its old move is kept.
    /// Two atomic stores (data, then `key ^ data`), no lock.
    #[inline]
    pub fn store(&mut self, txn: Txn, key: u64, data: TtData) -> Result<(), TtError> {
        self.check_active(txn, "store under")?;
        let t = &*self.shared;
        let cluster = &t.clusters[self.cluster_index(key)];
        let generation = t.generation.load(Ordering::Relaxed);
        let k = t.age_weight.load(Ordering::Relaxed);
        let mut target = None;
        let mut invisible = None;
        let mut lowest = (i32::MAX, 0);
        let mut old = [0u64; CLUSTER_ENTRIES];
        for (e, slot_old) in old.iter_mut().enumerate() {
            let d = cluster.words[2 * e + 1].load(Ordering::Relaxed);
            *slot_old = d;
            if bound_bits(d) == EMPTY {
                invisible.get_or_insert(e);
                continue;
            }
            // The key's own entry, whoever wrote it: one entry per key.
            let c = cluster.words[2 * e].load(Ordering::Relaxed);
            if c ^ d == key {
                target = Some(e);
                break;
            }
            if !self.live(slot_of(d)) {
                invisible.get_or_insert(e);
                continue;
            }
            let worth = self.worth(d, generation, k);
            if worth < lowest.0 {
                lowest = (worth, e);
            }
        }
        let e = target.or(invisible).unwrap_or(lowest.1);
        let prev = old[e];
        let mv = if data.mv.is_none() && target.is_some() && self.visible(slot_of(prev)) {
            prev as u16
        } else {
            data.mv.to_bits()
        };
        let replaced_own = bound_bits(prev) != EMPTY && slot_of(prev) == txn.slot();
        if !replaced_own {
            self.own_live += 1;
            if self.own_live == 1 {
                t.dirty[txn.slot()].store(true, Ordering::Relaxed);
            }
        }
        let d = pack(mv, &data, txn.slot);
        cluster.words[2 * e + 1].store(d, Ordering::Relaxed);
        cluster.words[2 * e].store(key ^ d, Ordering::Relaxed);
        self.stats.stores += 1;
        self.stats.entry_accesses += CLUSTER_ENTRIES as u64 + 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_auto_commit_transaction_is_visible_at_once_and_cannot_roll_back() {
        let data = TtData {
            mv: Move::NONE,
            score: 7,
            depth: 3,
            bound: Bound::Exact,
        };
        let mut helper = Tt::with_status_slots(CLUSTER_BYTES * 4, 4).unwrap();
        let mut main = helper.share();
        let auto = helper.begin_auto_commit().unwrap();
        helper.store(auto, 5, data).unwrap();
        // Visible to another handle before any commit (an ordinary open
        // transaction is not, under read-committed isolation).
        assert_eq!(main.probe(5), Some(data));
        let open = main.begin().unwrap();
        main.store(open, 6, data).unwrap();
        assert_eq!(helper.probe(6), None);
        main.rollback(open).unwrap();
        // Its slot is never claimed by another begin while it is open.
        for _ in 0..8 {
            let t = main.begin().unwrap();
            assert_ne!(t.slot(), auto.slot());
            main.commit(t).unwrap();
        }
        assert!(matches!(
            helper.rollback(auto),
            Err(TtError::AutoCommitRollback { .. })
        ));
        helper.store(auto, 5, TtData { score: 8, ..data }).unwrap();
        helper.commit(auto).unwrap();
        assert_eq!(main.probe(5), Some(TtData { score: 8, ..data }));
    }

    #[test]
    fn a_torn_entry_is_a_miss_for_both_keys() {
        let mut tt = Tt::new(CLUSTER_BYTES).unwrap();
        let t = tt.begin().unwrap();
        let a = TtData {
            mv: Move::NONE,
            score: 1,
            depth: 1,
            bound: Bound::Exact,
        };
        let b = TtData { score: 2, ..a };
        tt.store(t, 11, a).unwrap();
        let shared = Arc::clone(&tt.shared);
        let words = &shared.clusters[0].words;
        let (check_a, data_a) = (
            words[0].load(Ordering::Relaxed),
            words[1].load(Ordering::Relaxed),
        );
        tt.store(t, 11, b).unwrap(); // the same entry, now for b
        assert_eq!(tt.probe(11), Some(b));
        // Two writers interleaved: a's check beside b's data, then b's
        // check beside a's data.
        words[0].store(check_a, Ordering::Relaxed);
        assert_eq!(tt.probe(11), None);
        let check_b = 11 ^ words[1].load(Ordering::Relaxed);
        words[0].store(check_b, Ordering::Relaxed);
        words[1].store(data_a, Ordering::Relaxed);
        assert_eq!(tt.probe(11), None);
        words[0].store(check_a, Ordering::Relaxed);
        assert_eq!(tt.probe(11), Some(a));
    }
}
