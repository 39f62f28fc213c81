//! Transactions (see "Transactions and the status table" in the module
//! docs): the status slots and their states, opening a transaction (claiming
//! a slot, sweeping its old entries), commit and rollback as one atomic store,
//! and which entries a handle sees ([`Isolation`]).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::entry::{EMPTY, bound_bits, slot_of};
use super::{CLUSTER_ENTRIES, Tt, TtError};

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
    pub(super) slot: u16,
    pub(super) serial: u64,
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
pub(super) const FREE: u8 = 0;
pub(super) const ACTIVE: u8 = 1;
pub(super) const COMMITTED: u8 = 2;
pub(super) const ROLLED_BACK: u8 = 3;
/// Open, and visible to every handle as it is written: a transaction that
/// can never be rolled back ([`Tt::begin_auto_commit`]).
pub(super) const AUTO_COMMIT: u8 = 4;
/// Set while a handle sweeps a slot it is about to reuse.
pub(super) const CLAIMED: u8 = 0x80;

pub(super) fn state_of(byte: u8) -> TxnState {
    match byte & !CLAIMED {
        FREE => TxnState::Free,
        ACTIVE | AUTO_COMMIT => TxnState::Active,
        COMMITTED => TxnState::Committed,
        _ => TxnState::RolledBack,
    }
}

impl Tt {
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

    pub(super) fn begin_as(&mut self, state: u8) -> Result<Txn, TtError> {
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
    pub(super) fn sweep(&mut self, slot: usize, committed: bool) {
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

    pub(super) fn check_active(&self, txn: Txn, op: &'static str) -> Result<(), TtError> {
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
    pub(super) fn visible(&self, slot: usize) -> bool {
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
    pub(super) fn live(&self, slot: usize) -> bool {
        matches!(
            self.shared.states[slot].load(Ordering::Acquire) & !CLAIMED,
            COMMITTED | ACTIVE | AUTO_COMMIT
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::chess::moves::Move;
    use crate::search::tt::{Bound, CLUSTER_BYTES, Tt, TtData, TtError};

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
}
