//! The table and its handles (see "Handles and the shared table" and
//! "Replacement" in the module docs): the memory every handle shares, a
//! thread's [`Tt`] handle with its counters, and the probe and store that
//! go straight to the shared entries.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU8, AtomicU32, AtomicU64, Ordering};

use super::entry::{Cluster, EMPTY, bound_bits, depth_of, pack, slot_of, unpack};
use super::txn::{COMMITTED, FREE, state_of};
use super::{
    CLUSTER_BYTES, CLUSTER_ENTRIES, DEFAULT_AGE_WEIGHT, Isolation, MAX_AGE, STATUS_SLOTS, TtData,
    TtError, TtStats, Txn, TxnState,
};

/// The table every handle shares.
pub(super) struct Shared {
    pub(super) clusters: Vec<Cluster>,
    /// Per slot: state byte (with the claim bit). Read by every probe that
    /// finds its key, written by begin, commit and rollback only.
    pub(super) states: Vec<AtomicU8>,
    /// Per slot: generation the transaction began in.
    pub(super) generations: Vec<AtomicU32>,
    /// Per slot: serial number of the transaction holding it.
    pub(super) serials: Vec<AtomicU64>,
    /// Per slot: its transaction stored something (so a reuse must sweep).
    pub(super) dirty: Vec<AtomicBool>,
    /// Tickets for slots, handed out round robin.
    pub(super) tickets: AtomicU64,
    /// Transactions begun (the last serial number).
    pub(super) serial: AtomicU64,
    pub(super) generation: AtomicU32,
    pub(super) age_weight: AtomicI32,
    pub(super) sweep_enabled: AtomicBool,
    pub(super) read_uncommitted: AtomicBool,
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
    pub(super) shared: Arc<Shared>,
    pub(super) active: Option<Txn>,
    /// Entries of the open transaction this handle created and has not
    /// itself replaced (what a rollback discards; exact with one thread, an
    /// upper bound when other threads replace them).
    pub(super) own_live: u64,
    pub(super) stats: TtStats,
    pub(super) probes: Cell<u64>,
    pub(super) hits: Cell<u64>,
    pub(super) probe_accesses: Cell<u64>,
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

    pub(super) fn refuse_if_active(&self, op: &'static str) -> Result<(), TtError> {
        match self.active {
            Some(t) => Err(TtError::StillActive {
                op,
                active: t.serial,
            }),
            None => Ok(()),
        }
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
    use std::sync::Arc;
    use std::sync::atomic::Ordering;

    use crate::chess::moves::Move;
    use crate::search::tt::{Bound, CLUSTER_BYTES, Tt, TtData};

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
