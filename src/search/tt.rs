//! The search TT: a transactional transposition table.
//!
//! "TT" always means this table (the perft table is `hash.rs`). It serves the
//! alpha-beta search of [`crate::search`] and is built around one idea:
//! iterative deepening opens a **transaction** before each search of the root
//! (one per aspiration window), and when the window fails the search may
//! **roll back** everything that attempt stored, in O(1), without touching a
//! single entry.
//!
//! # Layout
//!
//! ```text
//! Entry (16 bytes)                       Cluster (64 bytes, align 64)
//! +--------------------------+           +-------+-------+-------+-------+
//! | key    u64  full Zobrist |           | entry | entry | entry | entry |
//! | mv     u16  Move bits    |           +-------+-------+-------+-------+
//! | score  i16  node-relative|           cluster index = mul-high(key, n)
//! | depth  u8   plies        |
//! | bound  u8   0 = empty    |
//! | txn    u16  status slot  |
//! +--------------------------+
//! ```
//!
//! Scores are stored relative to the node (a mate is "mate in k plies from
//! here", not from the root; [`score_to_tt`](crate::search::score::score_to_tt) / [`score_from_tt`](crate::search::score::score_from_tt)), so a mate
//! found in one place is still right when the position is reached at another
//! ply by transposition.
//!
//! # Transactions and the status table
//!
//! Each entry carries the number of a **status slot** (`txn`), not a
//! transaction number. The status table has [`STATUS_SLOTS`] = 16384 slots;
//! each holds a state ([`TxnState`]: free, active, committed, rolled back),
//! the search generation the transaction began in, and the number of entries
//! currently tagged with the slot. An entry is **visible** only if its slot is
//! active or committed. So:
//!
//! * [`Tt::commit`] and [`Tt::rollback`] write one status byte: O(1), and no
//!   entry is read or written (the [`TtStats::entry_accesses`] counter proves
//!   it in the tests). A rolled-back transaction's entries simply read as
//!   empty from then on.
//! * Slot 0 is a permanent sentinel, "old, committed". No transaction ever
//!   gets it.
//! * [`Tt::begin`] hands out slots 1, 2, ..., 16383, 1, 2, ... round robin.
//!   Before a slot is **reused**, one sweep of the table clears the entries
//!   still tagged with it if it was rolled back, and retags them to slot 0 if
//!   it was committed. Without that sweep a rolled-back entry would come back
//!   to life when its slot turned active again (the test suite shows exactly
//!   that with the sweep switched off). The sweep costs one pass over the
//!   table per 16383 transactions, and is skipped when no entry carries the
//!   slot.
//!
//! # Replacement
//!
//! A store goes, in order of preference, to the entry of the same key (if
//! visible), else to any invisible entry (empty or rolled back: rolled-back
//! entries are the first victims), else to the entry with the lowest
//! `depth - k * age`, where age is counted in **searches**
//! ([`Tt::new_search`]), not transactions: an iterative-deepening search runs
//! many transactions, and counting those would age its own entries. Entries
//! retagged to slot 0 have lost their generation and count as
//! [`MAX_AGE`] searches old (a slot is reused only after 16383 transactions,
//! so such entries are old in practice).
//!
//! # Rollback discards, it does not restore
//!
//! A transaction overwrites entries in place. If it is rolled back, what it
//! overwrote is **gone**: a committed entry replaced during a failed
//! aspiration window does not come back. Rollback removes the failed
//! attempt's entries; it is not an undo log.

use std::cell::Cell;

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
}

impl std::fmt::Display for TxnFate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TxnFate::Committed => "already committed",
            TxnFate::RolledBack => "already rolled back",
            TxnFate::Expired => "expired (its status slot was reused)",
            TxnFate::Unknown => "unknown to this table",
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

#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Entry {
    key: u64,
    mv: u16,
    score: i16,
    depth: u8,
    bound: u8,
    txn: u16,
}

const EMPTY: u8 = 0;

#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Cluster {
    entries: [Entry; CLUSTER_ENTRIES],
}

const _: () = assert!(std::mem::size_of::<Entry>() == ENTRY_BYTES);
const _: () = assert!(std::mem::size_of::<Cluster>() == CLUSTER_BYTES);
const _: () = assert!(std::mem::align_of::<Cluster>() == CLUSTER_BYTES);

/// The transactional transposition table. Single-threaded (`!Sync`).
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
/// tt.rollback(txn)?;
/// assert_eq!(tt.probe(0xDEAD_BEEF), None); // gone, in O(1)
/// assert!(tt.commit(txn).is_err()); // a rolled-back transaction cannot commit
/// # Ok::<(), perft::search::tt::TtError>(())
/// ```
pub struct Tt {
    clusters: Vec<Cluster>,
    /// Per slot: state. Read by every probe, so kept apart and small.
    states: Vec<TxnState>,
    /// Per slot: generation the transaction began in.
    generations: Vec<u32>,
    /// Per slot: entries currently tagged with it.
    tagged: Vec<u64>,
    /// Per slot: serial number of the transaction holding it.
    serials: Vec<u64>,
    /// Last slot handed out.
    last_slot: usize,
    /// Transactions begun (the last serial number).
    serial: u64,
    active: Option<Txn>,
    generation: u32,
    age_weight: i32,
    sweep_enabled: bool,
    stats: TtStats,
    probes: Cell<u64>,
    hits: Cell<u64>,
    probe_accesses: Cell<u64>,
}

impl std::fmt::Debug for Tt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tt")
            .field("clusters", &self.clusters.len())
            .field("status_slots", &self.states.len())
            .field("active", &self.active)
            .field("generation", &self.generation)
            .finish_non_exhaustive()
    }
}

impl Tt {
    /// A table of at most `bytes` bytes (whole 64-byte clusters) with the
    /// production status table of [`STATUS_SLOTS`] slots.
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
        clusters.resize(n, Cluster::default());
        let mut states = vec![TxnState::Free; slots];
        states[0] = TxnState::Committed;
        Ok(Tt {
            clusters,
            states,
            generations: vec![0; slots],
            tagged: vec![0; slots],
            serials: vec![0; slots],
            last_slot: 0,
            serial: 0,
            active: None,
            generation: 0,
            age_weight: DEFAULT_AGE_WEIGHT,
            sweep_enabled: true,
            stats: TtStats::default(),
            probes: Cell::new(0),
            hits: Cell::new(0),
            probe_accesses: Cell::new(0),
        })
    }

    /// Size of the entry array in bytes.
    pub fn bytes(&self) -> usize {
        self.clusters.len() * CLUSTER_BYTES
    }

    /// Number of entries (4 per cluster).
    pub fn capacity(&self) -> usize {
        self.clusters.len() * CLUSTER_ENTRIES
    }

    /// Number of clusters.
    pub fn clusters(&self) -> usize {
        self.clusters.len()
    }

    /// Number of status slots, including the sentinel slot 0.
    pub fn status_slots(&self) -> usize {
        self.states.len()
    }

    /// The cluster `key` maps to (multiply-high of the key and the cluster
    /// count, so any count works and all key bits matter).
    #[inline(always)]
    pub fn cluster_index(&self, key: u64) -> usize {
        ((u128::from(key) * self.clusters.len() as u128) >> 64) as usize
    }

    /// The weight `k` in the replacement priority `depth - k * age`.
    pub fn age_weight(&self) -> i32 {
        self.age_weight
    }

    /// Sets `k` in the replacement priority `depth - k * age`.
    pub fn set_age_weight(&mut self, k: i32) {
        self.age_weight = k;
    }

    /// Switches the slot sweep of [`Tt::begin`] off or on. **For tests
    /// only**: with the sweep off, entries of a rolled-back transaction come
    /// back to life when its slot is reused, which the test suite uses to show
    /// that its property test catches exactly that bug. Never switch it off
    /// otherwise.
    #[doc(hidden)]
    pub fn set_sweep_enabled(&mut self, on: bool) {
        self.sweep_enabled = on;
    }

    /// The counters so far.
    pub fn stats(&self) -> TtStats {
        let mut s = self.stats;
        s.probes = self.probes.get();
        s.hits = self.hits.get();
        s.entry_accesses += self.probe_accesses.get();
        s
    }

    /// The current search generation.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// The open transaction, if any.
    pub fn active(&self) -> Option<Txn> {
        self.active
    }

    /// The state of status slot `slot` (`None` if out of range).
    pub fn slot_state(&self, slot: usize) -> Option<TxnState> {
        self.states.get(slot).copied()
    }

    /// Starts a new search: entries stored from now on are one search younger
    /// than those stored before. Refused while a transaction is open (a
    /// transaction belongs to one search).
    pub fn new_search(&mut self) -> Result<(), TtError> {
        self.refuse_if_active("start a new search")?;
        self.generation = self.generation.wrapping_add(1);
        Ok(())
    }

    /// Empties the table and frees every slot (keeps size, counters and
    /// generation). Refused while a transaction is open.
    pub fn clear(&mut self) -> Result<(), TtError> {
        self.refuse_if_active("clear the table")?;
        self.stats.entry_accesses += self.capacity() as u64;
        self.clusters.fill(Cluster::default());
        self.states.fill(TxnState::Free);
        self.states[0] = TxnState::Committed;
        self.tagged.fill(0);
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

    /// Opens a transaction. At most one is open at a time; a second `begin`
    /// is an error. If the next slot still tags entries from its previous
    /// transaction, they are swept first (see the module docs).
    pub fn begin(&mut self) -> Result<Txn, TtError> {
        self.refuse_if_active("begin a transaction")?;
        let slot = self.last_slot % (self.states.len() - 1) + 1;
        self.last_slot = slot;
        if self.tagged[slot] > 0 && self.sweep_enabled {
            self.sweep(slot);
        }
        self.serial += 1;
        let txn = Txn {
            slot: slot as u16,
            serial: self.serial,
        };
        self.states[slot] = TxnState::Active;
        self.generations[slot] = self.generation;
        self.serials[slot] = self.serial;
        self.active = Some(txn);
        self.stats.transactions += 1;
        Ok(txn)
    }

    /// One pass over the table for a slot about to be reused: clears its
    /// entries if it was rolled back, retags them to the sentinel slot 0 if it
    /// was committed.
    fn sweep(&mut self, slot: usize) {
        let committed = self.states[slot] == TxnState::Committed;
        let tag = slot as u16;
        let mut cleared = 0;
        let mut retagged = 0;
        for cluster in &mut self.clusters {
            for e in &mut cluster.entries {
                if e.txn == tag && e.bound != EMPTY {
                    if committed {
                        e.txn = 0;
                        retagged += 1;
                    } else {
                        *e = Entry::default();
                        cleared += 1;
                    }
                }
            }
        }
        self.stats.entry_accesses += self.capacity() as u64;
        self.stats.sweeps += 1;
        self.stats.swept_cleared += cleared;
        self.stats.swept_retagged += retagged;
        self.tagged[0] += retagged;
        self.tagged[slot] = 0;
    }

    fn check_active(&self, txn: Txn, op: &'static str) -> Result<(), TtError> {
        if self.active == Some(txn) {
            return Ok(());
        }
        let fate = if txn.serial == 0 || txn.serial > self.serial {
            TxnFate::Unknown
        } else if self.serials.get(txn.slot()) != Some(&txn.serial) {
            TxnFate::Expired
        } else {
            match self.states[txn.slot()] {
                TxnState::Committed => TxnFate::Committed,
                TxnState::RolledBack => TxnFate::RolledBack,
                // A cleared table frees every slot.
                TxnState::Free | TxnState::Active => TxnFate::Expired,
            }
        };
        Err(TtError::NotActive {
            op,
            serial: txn.serial,
            fate,
        })
    }

    /// Commits the active transaction: its entries stay visible. O(1).
    pub fn commit(&mut self, txn: Txn) -> Result<(), TtError> {
        self.check_active(txn, "commit")?;
        self.states[txn.slot()] = TxnState::Committed;
        self.active = None;
        self.stats.commits += 1;
        Ok(())
    }

    /// Rolls back the active transaction: its entries read as empty from now
    /// on. O(1): one status write, no entry touched. What the transaction
    /// overwrote is not restored.
    pub fn rollback(&mut self, txn: Txn) -> Result<(), TtError> {
        self.check_active(txn, "roll back")?;
        self.states[txn.slot()] = TxnState::RolledBack;
        self.active = None;
        self.stats.rollbacks += 1;
        self.stats.discarded += self.tagged[txn.slot()];
        Ok(())
    }

    #[inline(always)]
    fn visible(&self, e: &Entry) -> bool {
        e.bound != EMPTY
            && matches!(
                self.states[usize::from(e.txn)],
                TxnState::Active | TxnState::Committed
            )
    }

    /// The visible entry for `key`, if any, as a copy.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtData> {
        self.probes.set(self.probes.get() + 1);
        let cluster = &self.clusters[self.cluster_index(key)];
        for (i, e) in cluster.entries.iter().enumerate() {
            if e.key == key && self.visible(e) {
                self.probe_accesses
                    .set(self.probe_accesses.get() + i as u64 + 1);
                self.hits.set(self.hits.get() + 1);
                return Some(TtData {
                    mv: Move::from_bits(e.mv),
                    score: e.score,
                    depth: e.depth,
                    bound: Bound::from_bits(e.bound)?,
                });
            }
        }
        self.probe_accesses
            .set(self.probe_accesses.get() + CLUSTER_ENTRIES as u64);
        None
    }

    /// Replacement priority: lower is replaced first.
    #[inline(always)]
    fn worth(&self, e: &Entry) -> i32 {
        let age = if e.txn == 0 {
            MAX_AGE
        } else {
            self.generation
                .wrapping_sub(self.generations[usize::from(e.txn)])
                .min(MAX_AGE)
        };
        i32::from(e.depth) - self.age_weight * age as i32
    }

    /// Stores `data` for `key` under the active transaction `txn`.
    /// Replacement: the visible entry of the same key, else any invisible
    /// entry (empty or rolled back), else the lowest `depth - k * age`. When
    /// the same key is overwritten with no move, its old move is kept.
    #[inline]
    pub fn store(&mut self, txn: Txn, key: u64, data: TtData) -> Result<(), TtError> {
        self.check_active(txn, "store under")?;
        let index = self.cluster_index(key);
        let mut target = None;
        let mut invisible = None;
        let mut lowest = (i32::MAX, 0);
        let cluster = &self.clusters[index];
        for (i, e) in cluster.entries.iter().enumerate() {
            if !self.visible(e) {
                invisible.get_or_insert(i);
                continue;
            }
            if e.key == key {
                target = Some(i);
                break;
            }
            let worth = self.worth(e);
            if worth < lowest.0 {
                lowest = (worth, i);
            }
        }
        let i = target.or(invisible).unwrap_or(lowest.1);
        let old = self.clusters[index].entries[i];
        let mv = if data.mv.is_none() && target.is_some() {
            old.mv
        } else {
            data.mv.to_bits()
        };
        if old.bound != EMPTY {
            self.tagged[usize::from(old.txn)] -= 1;
        }
        self.tagged[txn.slot()] += 1;
        self.clusters[index].entries[i] = Entry {
            key,
            mv,
            score: data.score,
            depth: data.depth,
            bound: data.bound.to_bits(),
            txn: txn.slot,
        };
        self.stats.stores += 1;
        self.stats.entry_accesses += CLUSTER_ENTRIES as u64 + 1;
        Ok(())
    }
}
