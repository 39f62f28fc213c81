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
//! here", not from the root; [`score_to_tt`](crate::search::score::score_to_tt)
//! / [`score_from_tt`](crate::search::score::score_from_tt)), so a mate found
//! in one place is still right when the position is reached at another ply by
//! transposition.
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

mod entry;
mod table;
mod txn;

use thiserror::Error;

pub use entry::{Bound, TtData};
pub use table::Tt;
pub use txn::{Isolation, Txn, TxnFate, TxnState};

/// Status slots in production. Slot 0 is the sentinel, so 16383 transactions
/// run between two uses of the same slot.
pub const STATUS_SLOTS: usize = 16384;

/// Age (in searches) at which entries count as fully old; also the age of
/// entries retagged to the sentinel slot 0.
pub const MAX_AGE: u32 = 64;

/// Default `k` of the replacement priority `depth - k * age`
/// (chosen by measurement: see docs/search.md, "Measurements").
pub const DEFAULT_AGE_WEIGHT: i32 = 1;

/// Size of one entry in bytes.
pub const ENTRY_BYTES: usize = 16;
/// Entries per cluster.
pub const CLUSTER_ENTRIES: usize = 4;
/// Size of one cluster in bytes (one cache line).
pub const CLUSTER_BYTES: usize = 64;

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
