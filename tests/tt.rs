//! The transactional TT: every operation, its preconditions, replacement,
//! slot reuse, and a property test against a reference model.

use std::collections::{HashMap, HashSet};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRng, TestRunner};

use perft::Move;
use perft::search::score::{score_from_tt, score_to_tt};
use perft::search::tt::{
    Bound, CLUSTER_BYTES, STATUS_SLOTS, Tt, TtData, TtError, TxnFate, TxnState,
};

fn data(depth: u8, score: i16) -> TtData {
    TtData {
        mv: Move::from_bits(0x0123),
        score,
        depth,
        bound: Bound::Exact,
    }
}

/// Well-spread keys (small integers would all land in cluster 0).
fn key(i: u64) -> u64 {
    i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// A one-cluster table: every key lands in the same four entries.
fn one_cluster(slots: usize) -> Tt {
    Tt::with_status_slots(CLUSTER_BYTES, slots).unwrap()
}

// ----- construction -----

#[test]
fn new_table_has_whole_clusters_and_the_production_status_table() {
    let tt = Tt::new(1 << 20).unwrap();
    assert_eq!(tt.bytes(), 1 << 20);
    assert_eq!(tt.clusters(), (1 << 20) / 64);
    assert_eq!(tt.capacity(), (1 << 20) / 16);
    assert_eq!(tt.status_slots(), STATUS_SLOTS);
    assert_eq!(STATUS_SLOTS, 16384);
    // Slot 0 is the permanent "old, committed" sentinel; the rest are free.
    assert_eq!(tt.slot_state(0), Some(TxnState::Committed));
    assert_eq!(tt.slot_state(1), Some(TxnState::Free));
    assert_eq!(tt.slot_state(STATUS_SLOTS), None);
    // A partial cluster is dropped.
    assert_eq!(Tt::new(100).unwrap().clusters(), 1);
}

#[test]
fn bad_sizes_are_errors_not_panics() {
    assert_eq!(Tt::new(63).unwrap_err(), TtError::TooSmall { bytes: 63 });
    assert_eq!(
        Tt::with_status_slots(1024, 1).unwrap_err(),
        TtError::BadSlots { slots: 1 }
    );
    assert!(Tt::with_status_slots(1024, 65537).is_err());
    // More than the address space can hold: try_reserve reports it.
    match Tt::new(usize::MAX) {
        Err(TtError::Alloc { bytes, reason }) => {
            assert_eq!(bytes, usize::MAX);
            assert!(!reason.is_empty());
        }
        other => panic!("expected an allocation error, got {other:?}"),
    }
}

// ----- probe, store, read your writes -----

#[test]
fn empty_table_has_no_entries() {
    let tt = Tt::new(4096).unwrap();
    for key in [0, 1, 0xDEAD_BEEF, u64::MAX] {
        assert_eq!(tt.probe(key), None);
    }
    assert_eq!(tt.stats().probes, 4);
    assert_eq!(tt.stats().hits, 0);
}

#[test]
fn store_is_visible_to_probe_while_active_and_after_commit() {
    let mut tt = Tt::new(4096).unwrap();
    let txn = tt.begin().unwrap();
    assert_eq!(tt.active(), Some(txn));
    assert_eq!(tt.slot_state(txn.slot()), Some(TxnState::Active));
    tt.store(txn, 42, data(3, -17)).unwrap();
    assert_eq!(tt.probe(42), Some(data(3, -17)));
    assert_eq!(tt.probe(43), None);
    tt.commit(txn).unwrap();
    assert_eq!(tt.active(), None);
    assert_eq!(tt.slot_state(txn.slot()), Some(TxnState::Committed));
    assert_eq!(tt.probe(42), Some(data(3, -17)));
    let s = tt.stats();
    assert_eq!(
        (s.transactions, s.commits, s.rollbacks, s.stores),
        (1, 1, 0, 1)
    );
    assert_eq!((s.probes, s.hits), (3, 2));
}

#[test]
fn rollback_hides_the_transactions_entries_and_only_those() {
    let mut tt = Tt::new(1 << 16).unwrap();
    let t1 = tt.begin().unwrap();
    tt.store(t1, 1, data(4, 10)).unwrap();
    tt.commit(t1).unwrap();
    let t2 = tt.begin().unwrap();
    tt.store(t2, 2, data(5, 20)).unwrap();
    tt.store(t2, 3, data(6, 30)).unwrap();
    tt.rollback(t2).unwrap();
    assert_eq!(tt.slot_state(t2.slot()), Some(TxnState::RolledBack));
    assert_eq!(tt.probe(1), Some(data(4, 10)));
    assert_eq!(tt.probe(2), None);
    assert_eq!(tt.probe(3), None);
    let s = tt.stats();
    assert_eq!((s.rollbacks, s.discarded), (1, 2));
}

#[test]
fn rollback_discards_rather_than_restores() {
    // A committed entry overwritten (same key) by a transaction that is then
    // rolled back is gone: rollback is not an undo log.
    let mut tt = Tt::new(4096).unwrap();
    let t1 = tt.begin().unwrap();
    tt.store(t1, 7, data(4, 10)).unwrap();
    tt.commit(t1).unwrap();
    let t2 = tt.begin().unwrap();
    tt.store(t2, 7, data(8, 99)).unwrap();
    assert_eq!(tt.probe(7), Some(data(8, 99)));
    tt.rollback(t2).unwrap();
    assert_eq!(tt.probe(7), None);
}

#[test]
fn same_key_store_without_a_move_keeps_the_old_move() {
    let mut tt = Tt::new(4096).unwrap();
    let t = tt.begin().unwrap();
    tt.store(t, 9, data(2, 1)).unwrap();
    let no_move = TtData {
        mv: Move::NONE,
        score: -5,
        depth: 3,
        bound: Bound::Upper,
    };
    tt.store(t, 9, no_move).unwrap();
    assert_eq!(
        tt.probe(9),
        Some(TtData {
            mv: data(2, 1).mv,
            ..no_move
        })
    );
}

#[test]
fn mate_scores_survive_a_transposition_to_another_ply() {
    let mut tt = Tt::new(4096).unwrap();
    let t = tt.begin().unwrap();
    let mate_in_7_plies_from_root = perft::search::MATE - 7;
    // Found at ply 5 (mate 2 plies from that node) ...
    let stored = TtData {
        score: score_to_tt(mate_in_7_plies_from_root, 5),
        ..data(2, 0)
    };
    tt.store(t, 11, stored).unwrap();
    // ... and read at ply 1: mate 3 plies from the root.
    let hit = tt.probe(11).unwrap();
    assert_eq!(score_from_tt(hit.score, 1), perft::search::MATE - 3);
}

// ----- preconditions -----

#[test]
fn two_active_transactions_are_an_error() {
    let mut tt = Tt::new(4096).unwrap();
    let t = tt.begin().unwrap();
    assert_eq!(
        tt.begin().unwrap_err(),
        TtError::StillActive {
            op: "begin a transaction",
            active: t.serial()
        }
    );
    // new_search and clear are refused too: a transaction belongs to one search.
    assert!(matches!(tt.new_search(), Err(TtError::StillActive { .. })));
    assert!(matches!(tt.clear(), Err(TtError::StillActive { .. })));
    // The open transaction is unharmed.
    tt.store(t, 1, data(1, 1)).unwrap();
    tt.commit(t).unwrap();
    assert!(tt.begin().is_ok());
}

#[test]
fn ending_a_transaction_twice_is_an_error() {
    let mut tt = Tt::new(4096).unwrap();
    let t = tt.begin().unwrap();
    tt.rollback(t).unwrap();
    let err = tt.commit(t).unwrap_err();
    assert_eq!(
        err,
        TtError::NotActive {
            op: "commit",
            serial: t.serial(),
            fate: TxnFate::RolledBack
        }
    );
    assert!(err.to_string().contains("already rolled back"), "{err}");
    assert!(matches!(
        tt.rollback(t),
        Err(TtError::NotActive {
            fate: TxnFate::RolledBack,
            ..
        })
    ));

    let t = tt.begin().unwrap();
    tt.commit(t).unwrap();
    for result in [tt.commit(t), tt.rollback(t), tt.store(t, 5, data(1, 1))] {
        assert!(matches!(
            result,
            Err(TtError::NotActive {
                fate: TxnFate::Committed,
                ..
            })
        ));
    }
    // A refused store stored nothing.
    assert_eq!(tt.probe(5), None);
}

#[test]
fn a_handle_whose_slot_was_reused_is_expired() {
    let mut tt = Tt::with_status_slots(4096, 2).unwrap(); // one usable slot
    let t1 = tt.begin().unwrap();
    tt.commit(t1).unwrap();
    let t2 = tt.begin().unwrap();
    assert_eq!(t1.slot(), t2.slot());
    assert!(matches!(
        tt.store(t1, 1, data(1, 1)),
        Err(TtError::NotActive {
            fate: TxnFate::Expired,
            ..
        })
    ));
    // And a handle from another table is unknown here.
    let mut other = Tt::new(4096).unwrap();
    for _ in 0..5 {
        let t = other.begin().unwrap();
        other.commit(t).unwrap();
    }
    let foreign = other.begin().unwrap();
    assert!(matches!(
        tt.commit(foreign),
        Err(TtError::NotActive {
            fate: TxnFate::Unknown,
            ..
        })
    ));
    tt.commit(t2).unwrap();
}

// ----- O(1) commit and rollback -----

#[test]
fn rollback_and_commit_touch_no_entry() {
    let mut tt = Tt::new(1 << 20).unwrap();
    for policy_commit in [false, true] {
        let t = tt.begin().unwrap();
        for i in 0..10_000u64 {
            tt.store(t, i.wrapping_mul(0x9E37_79B9_7F4A_7C15), data(3, 1))
                .unwrap();
        }
        let before = tt.stats().entry_accesses;
        assert!(before > 10_000, "the counter counts stores");
        if policy_commit {
            tt.commit(t).unwrap();
        } else {
            tt.rollback(t).unwrap();
        }
        assert_eq!(tt.stats().entry_accesses - before, 0);
    }
}

#[test]
fn discarded_counts_the_rolled_back_entries_still_in_the_table() {
    let mut tt = Tt::new(1 << 16).unwrap();
    let t = tt.begin().unwrap();
    let keys: Vec<u64> = (1..=3000u64)
        .map(|i| i.wrapping_mul(0xD1B5_4A32_D192_ED03))
        .collect();
    for &k in &keys {
        tt.store(t, k, data(2, 2)).unwrap();
    }
    // 4096 entries for 3000 keys: some clusters overflow, so count what stayed.
    let visible = keys.iter().filter(|&&k| tt.probe(k).is_some()).count() as u64;
    assert!(visible > 2000 && visible < 3000, "{visible}");
    tt.rollback(t).unwrap();
    assert_eq!(tt.stats().discarded, visible);
    assert!(keys.iter().all(|&k| tt.probe(k).is_none()));
}

// ----- replacement -----

#[test]
fn rolled_back_entries_are_the_first_victims() {
    let mut tt = one_cluster(STATUS_SLOTS);
    let t1 = tt.begin().unwrap();
    for k in 1..=3 {
        tt.store(t1, k, data(10, k as i16)).unwrap();
    }
    tt.commit(t1).unwrap();
    let t2 = tt.begin().unwrap();
    tt.store(t2, 4, data(50, 4)).unwrap(); // deepest of all
    tt.rollback(t2).unwrap();
    let t3 = tt.begin().unwrap();
    tt.store(t3, 5, data(1, 5)).unwrap(); // shallowest of all
    tt.commit(t3).unwrap();
    // It took the rolled-back entry, not a shallower committed one.
    for k in 1..=3 {
        assert_eq!(tt.probe(k), Some(data(10, k as i16)), "key {k}");
    }
    assert_eq!(tt.probe(5), Some(data(1, 5)));
    assert_eq!(tt.probe(4), None);
}

#[test]
fn full_cluster_replaces_the_lowest_depth_minus_k_age() {
    let mut tt = one_cluster(STATUS_SLOTS);
    tt.set_age_weight(2);
    let t = tt.begin().unwrap();
    tt.store(t, 1, data(10, 1)).unwrap();
    tt.commit(t).unwrap();
    tt.new_search().unwrap();
    let t = tt.begin().unwrap();
    for k in 2..=4 {
        tt.store(t, k, data(5 + k as u8, k as i16)).unwrap(); // depths 7, 8, 9
    }
    // Worth: key 1 = 10 - 2*1 = 8; keys 2..4 = 7, 8, 9 (age 0). Key 2 goes.
    tt.store(t, 5, data(1, 5)).unwrap();
    tt.commit(t).unwrap();
    assert_eq!(tt.probe(2), None);
    assert!(tt.probe(1).is_some());

    // With a heavier age weight the old entry goes first: 10 - 10*1 = 0.
    tt.set_age_weight(10);
    let t = tt.begin().unwrap();
    tt.store(t, 6, data(1, 6)).unwrap();
    tt.commit(t).unwrap();
    assert_eq!(tt.probe(1), None);
    for k in [3, 4, 5, 6] {
        assert!(tt.probe(k).is_some(), "key {k}");
    }
}

#[test]
fn age_counts_searches_not_transactions() {
    let mut tt = one_cluster(STATUS_SLOTS);
    tt.set_age_weight(100);
    let t = tt.begin().unwrap();
    tt.store(t, 1, data(9, 1)).unwrap();
    tt.commit(t).unwrap();
    // Many transactions in the same search: no ageing.
    for _ in 0..50 {
        let t = tt.begin().unwrap();
        tt.commit(t).unwrap();
    }
    let t = tt.begin().unwrap();
    for k in 2..=4 {
        tt.store(t, k, data(3, k as i16)).unwrap();
    }
    tt.store(t, 5, data(3, 5)).unwrap();
    tt.commit(t).unwrap();
    assert_eq!(tt.probe(1), Some(data(9, 1)), "the deep entry must stay");
    // One new search ages it by 100 * 1. Refresh the other three entries in
    // the new search (same keys): now the old deep entry is the victim.
    tt.new_search().unwrap();
    let t = tt.begin().unwrap();
    for k in 3..=5 {
        tt.store(t, k, data(3, k as i16)).unwrap();
    }
    tt.store(t, 6, data(3, 6)).unwrap();
    tt.commit(t).unwrap();
    assert_eq!(tt.probe(1), None);
    for k in 3..=6 {
        assert!(tt.probe(k).is_some(), "key {k}");
    }
}

// ----- slot reuse -----

#[test]
fn slot_reuse_sweeps_rolled_back_entries_and_keeps_committed_ones() {
    // Three slots: 0 (sentinel), 1 and 2, so the third transaction reuses slot 1.
    let mut tt = Tt::with_status_slots(4096, 3).unwrap();
    assert_ne!(tt.cluster_index(key(100)), tt.cluster_index(key(200)));
    let t1 = tt.begin().unwrap();
    tt.store(t1, key(100), data(2, 1)).unwrap();
    tt.rollback(t1).unwrap();
    let t2 = tt.begin().unwrap();
    tt.store(t2, key(200), data(2, 2)).unwrap();
    tt.commit(t2).unwrap();
    let t3 = tt.begin().unwrap();
    assert_eq!(t3.slot(), t1.slot());
    assert_eq!(
        tt.probe(key(100)),
        None,
        "rolled-back entry came back to life"
    );
    assert_eq!(tt.stats().swept_cleared, 1);
    tt.commit(t3).unwrap();
    let t4 = tt.begin().unwrap(); // reuses slot 2: committed entry retagged to 0
    assert_eq!(t4.slot(), t2.slot());
    assert_eq!(tt.probe(key(200)), Some(data(2, 2)));
    tt.rollback(t4).unwrap();
    assert_eq!(
        tt.probe(key(200)),
        Some(data(2, 2)),
        "slot 0 entries are committed"
    );
    let s = tt.stats();
    assert_eq!((s.sweeps, s.swept_cleared, s.swept_retagged), (2, 1, 1));
}

#[test]
fn without_the_sweep_a_rolled_back_entry_comes_back_to_life() {
    // The same sequence with the sweep switched off shows the bug the sweep
    // prevents: the reused slot is active again, so its stale entry is visible.
    let mut tt = Tt::with_status_slots(4096, 3).unwrap();
    tt.set_sweep_enabled(false);
    let t1 = tt.begin().unwrap();
    tt.store(t1, key(100), data(2, 1)).unwrap();
    tt.rollback(t1).unwrap();
    let t2 = tt.begin().unwrap();
    tt.commit(t2).unwrap();
    let _t3 = tt.begin().unwrap();
    assert_eq!(tt.probe(key(100)), Some(data(2, 1)));
}

#[test]
fn slots_wrap_around_many_times_without_resurrection() {
    let mut tt = Tt::with_status_slots(1 << 12, 5).unwrap();
    let mut committed = HashMap::new();
    for round in 0..200u64 {
        let t = tt.begin().unwrap();
        let k = round % 37 + 1;
        let d = data((round % 20) as u8, round as i16);
        tt.store(t, key(k), d).unwrap();
        if round % 3 == 0 {
            tt.rollback(t).unwrap();
            committed.remove(&k); // same key overwritten, then discarded
        } else {
            tt.commit(t).unwrap();
            committed.insert(k, d);
        }
        for k in 1..=37 {
            // A cluster may get more than four keys, so an entry may be
            // evicted; but what is returned must be the last committed value.
            if let Some(hit) = tt.probe(key(k)) {
                assert_eq!(Some(&hit), committed.get(&k), "round {round} key {k}");
            }
        }
    }
    assert!(tt.stats().sweeps > 0);
}

// ----- clear and new_search -----

#[test]
fn clear_empties_the_table_and_frees_slots() {
    let mut tt = Tt::new(4096).unwrap();
    let t = tt.begin().unwrap();
    tt.store(t, 1, data(1, 1)).unwrap();
    tt.commit(t).unwrap();
    tt.clear().unwrap();
    assert_eq!(tt.probe(1), None);
    assert_eq!(tt.slot_state(t.slot()), Some(TxnState::Free));
    assert_eq!(tt.slot_state(0), Some(TxnState::Committed));
    assert!(matches!(
        tt.commit(t),
        Err(TtError::NotActive {
            fate: TxnFate::Expired,
            ..
        })
    ));
    let g = tt.generation();
    tt.new_search().unwrap();
    assert_eq!(tt.generation(), g + 1);
}

// ----- property test against a reference model -----

#[derive(Clone, Debug)]
enum Op {
    Begin,
    /// Store key `keys[i % len]` with this depth.
    Store(usize, u8),
    Probe(usize),
    Commit,
    Rollback,
    /// Commit or roll back an earlier handle (`handles[i % len]`), usually
    /// not the active one: must be refused unless it is.
    EndOld(usize, bool),
    NewSearch,
}

#[derive(Clone, Debug)]
struct Case {
    clusters: usize,
    slots: usize,
    age_weight: i32,
    keys: Vec<u64>,
    ops: Vec<Op>,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Begin),
        8 => (any::<usize>(), 0u8..20).prop_map(|(k, d)| Op::Store(k, d)),
        6 => any::<usize>().prop_map(Op::Probe),
        2 => Just(Op::Commit),
        2 => Just(Op::Rollback),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(i, c)| Op::EndOld(i, c)),
        1 => Just(Op::NewSearch),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![Just(1usize), Just(2), Just(4), Just(16)],
        2usize..7,
        0i32..4,
        prop::collection::vec(any::<u64>(), 1..24),
        prop::collection::vec(op(), 1..400),
    )
        .prop_map(|(clusters, slots, age_weight, keys, ops)| Case {
            clusters,
            slots,
            age_weight,
            keys,
            ops,
        })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ModelState {
    Active,
    Committed,
    RolledBack,
}

/// Runs `case` on a table and on the model; fails on the first probe the
/// model does not allow. The model keeps, per key, its latest store and the
/// transaction it was made under, and the keys ever stored per cluster.
/// A probe may return only that latest store, and only if its transaction is
/// active or committed (never an older value, never a rolled-back one); it
/// must return it if the cluster never held more than four keys (no
/// eviction pressure). A store is probed right after (read your writes).
fn run_case(case: &Case, sweep: bool) -> Result<(), TestCaseError> {
    let mut tt = Tt::with_status_slots(case.clusters * CLUSTER_BYTES, case.slots)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    tt.set_age_weight(case.age_weight);
    tt.set_sweep_enabled(sweep);
    let mut handles = Vec::new();
    let mut states: Vec<ModelState> = Vec::new();
    let mut active: Option<usize> = None;
    let mut latest: HashMap<u64, (TtData, usize)> = HashMap::new();
    let mut cluster_keys: HashMap<usize, HashSet<u64>> = HashMap::new();
    let mut stores = 0u16;
    for (step, op) in case.ops.iter().enumerate() {
        let at = |msg: String| TestCaseError::fail(format!("step {step} {op:?}: {msg}"));
        match *op {
            Op::Begin => match (tt.begin(), active) {
                (Ok(t), None) => {
                    handles.push(t);
                    states.push(ModelState::Active);
                    active = Some(handles.len() - 1);
                }
                (Err(TtError::StillActive { .. }), Some(_)) => {}
                (r, a) => return Err(at(format!("begin gave {r:?} with active {a:?}"))),
            },
            Op::Commit | Op::Rollback => {
                let Some(i) = active else { continue };
                let commit = matches!(op, Op::Commit);
                let r = if commit {
                    tt.commit(handles[i])
                } else {
                    tt.rollback(handles[i])
                };
                r.map_err(|e| at(e.to_string()))?;
                states[i] = if commit {
                    ModelState::Committed
                } else {
                    ModelState::RolledBack
                };
                active = None;
            }
            Op::EndOld(j, commit) => {
                if handles.is_empty() {
                    continue;
                }
                let i = j % handles.len();
                let r = if commit {
                    tt.commit(handles[i])
                } else {
                    tt.rollback(handles[i])
                };
                if active == Some(i) {
                    r.map_err(|e| at(e.to_string()))?;
                    states[i] = if commit {
                        ModelState::Committed
                    } else {
                        ModelState::RolledBack
                    };
                    active = None;
                } else if r.is_ok() {
                    return Err(at(format!("ending inactive handle {i} succeeded")));
                }
            }
            Op::NewSearch => match (tt.new_search(), active) {
                (Ok(()), None) | (Err(TtError::StillActive { .. }), Some(_)) => {}
                (r, a) => return Err(at(format!("new_search gave {r:?} with active {a:?}"))),
            },
            Op::Store(k, depth) => {
                let key = case.keys[k % case.keys.len()];
                stores += 1;
                let d = TtData {
                    mv: Move::from_bits(stores),
                    score: stores as i16,
                    depth,
                    bound: Bound::Lower,
                };
                let Some(i) = active else {
                    // No open transaction: every handle must be refused.
                    if let Some(&h) = handles.last()
                        && tt.store(h, key, d).is_ok()
                    {
                        return Err(at("store without an active transaction succeeded".into()));
                    }
                    continue;
                };
                tt.store(handles[i], key, d)
                    .map_err(|e| at(e.to_string()))?;
                latest.insert(key, (d, i));
                cluster_keys
                    .entry(tt.cluster_index(key))
                    .or_default()
                    .insert(key);
                if tt.probe(key) != Some(d) {
                    return Err(at(format!(
                        "read-your-writes: probe gave {:?}",
                        tt.probe(key)
                    )));
                }
            }
            Op::Probe(k) => {
                let key = case.keys[k % case.keys.len()];
                let got = tt.probe(key);
                let pressure = cluster_keys
                    .get(&tt.cluster_index(key))
                    .is_some_and(|s| s.len() > 4);
                match (latest.get(&key), got) {
                    (None, None) => {}
                    (None, Some(g)) => return Err(at(format!("never stored, probe gave {g:?}"))),
                    (Some(&(d, i)), got) => {
                        let visible = states[i] != ModelState::RolledBack;
                        match got {
                            Some(g) if !visible => {
                                return Err(at(format!(
                                    "returned {g:?} although its last store ({d:?}) was rolled back"
                                )));
                            }
                            Some(g) if g != d => {
                                return Err(at(format!("returned stale {g:?}, latest is {d:?}")));
                            }
                            None if visible && !pressure => {
                                return Err(at(format!(
                                    "committed/active entry {d:?} lost without eviction pressure"
                                )));
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 2048, ..Config::default() })]

    #[test]
    fn tt_matches_the_reference_model(case in case()) {
        run_case(&case, true)?;
    }
}

#[test]
fn property_test_catches_resurrection_when_the_sweep_is_disabled() {
    // A fixed seed, so the test does not depend on luck.
    let config = Config {
        cases: 512,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = TestRunner::new_with_rng(config, rng);
    match runner.run(&case(), |c| run_case(&c, false)) {
        Err(TestError::Fail(reason, minimal)) => {
            // The symptoms of a reused slot that was not swept: a rolled-back
            // entry visible again, an old value shadowing the latest, or old
            // committed entries taken down by the new transaction's rollback.
            let reason = reason.to_string();
            assert!(
                ["rolled back", "stale", "lost without eviction pressure"]
                    .iter()
                    .any(|s| reason.contains(s)),
                "unexpected failure: {reason}\n{minimal:?}"
            );
        }
        other => panic!("the model test did not notice the missing sweep: {other:?}"),
    }
}

// ----- concurrent stress test (several handles on one shared table) -----

/// What a stress run saw. Every `*_violations` figure must be zero.
#[derive(Debug, Default, Clone, Copy)]
struct Stress {
    stores: u64,
    probes: u64,
    hits: u64,
    /// Hits on another thread's (committed) entry.
    foreign_hits: u64,
    commits: u64,
    rollbacks: u64,
    sweeps: u64,
    /// Own entries probed after their store or after their commit, when no
    /// other store or sweep could have replaced them.
    own_checks: u64,
    /// Own entries not checked because a store or a sweep may have
    /// replaced them.
    own_replaced: u64,
    /// An entry whose data does not belong to its key (a torn entry).
    torn_violations: u64,
    /// An entry of a transaction rolled back before the probe began.
    discarded_violations: u64,
    /// Another thread's entry that was not committed (read-committed).
    uncommitted_violations: u64,
    /// An own entry missing or wrong although nothing replaced it.
    lost_violations: u64,
}

impl Stress {
    fn add(&mut self, o: &Stress) {
        self.stores += o.stores;
        self.probes += o.probes;
        self.hits += o.hits;
        self.foreign_hits += o.foreign_hits;
        self.commits += o.commits;
        self.rollbacks += o.rollbacks;
        self.sweeps += o.sweeps;
        self.own_checks += o.own_checks;
        self.own_replaced += o.own_replaced;
        self.torn_violations += o.torn_violations;
        self.discarded_violations += o.discarded_violations;
        self.uncommitted_violations += o.uncommitted_violations;
        self.lost_violations += o.lost_violations;
    }

    fn violations(&self) -> u64 {
        self.torn_violations
            + self.discarded_violations
            + self.uncommitted_violations
            + self.lost_violations
    }
}

const STRESS_SERIALS: usize = 1 << 22;

/// The data a stress thread stores for `key` under transaction `serial`: the
/// serial in the move and score, a checksum of key and serial in the depth.
fn stress_data(key: u64, serial: u64) -> TtData {
    TtData {
        mv: Move::from_bits((serial & 0x7FFF) as u16 | 0x8000),
        score: (serial >> 15) as i16,
        depth: stress_check(key, serial),
        bound: Bound::Lower,
    }
}

fn stress_check(key: u64, serial: u64) -> u8 {
    let h = (key ^ serial.wrapping_mul(0xD6E8_FEB8_6659_FD93)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 56) as u8
}

fn stress_serial(d: &TtData) -> u64 {
    u64::from(d.mv.to_bits() & 0x7FFF) | (u64::from(d.score as u16) << 15)
}

/// Shared book-keeping of a stress run (outside the table under test).
struct Book {
    /// Per serial: 1 once it is going to commit (set before the commit).
    committed: Vec<std::sync::atomic::AtomicU8>,
    /// Per serial: the epoch at which its rollback had completed (0: never).
    rolled_back: Vec<std::sync::atomic::AtomicU64>,
    epoch: std::sync::atomic::AtomicU64,
    /// Per cluster: stores begun and ended.
    begun: Vec<std::sync::atomic::AtomicU64>,
    ended: Vec<std::sync::atomic::AtomicU64>,
    /// Sweeps (begins) begun and ended, table-wide.
    sweeps_begun: std::sync::atomic::AtomicU64,
    sweeps_ended: std::sync::atomic::AtomicU64,
}

/// Threads storing, probing, committing and rolling back at random over a
/// tiny table (`clusters` clusters, `slots` status slots) for `secs`
/// seconds, checking every probe. With `auto_commit`, thread 0 opens
/// auto-commit transactions instead (visible to all at once, committed where
/// the others would roll back): its entries count as committed from the
/// start.
fn stress(
    threads: usize,
    clusters: usize,
    slots: usize,
    secs: f64,
    sweep: bool,
    auto_commit: bool,
) -> Stress {
    use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::SeqCst};
    let mut tt = Tt::with_status_slots(clusters * CLUSTER_BYTES, slots).unwrap();
    tt.set_sweep_enabled(sweep);
    let book = Book {
        committed: (0..STRESS_SERIALS).map(|_| AtomicU8::new(0)).collect(),
        rolled_back: (0..STRESS_SERIALS).map(|_| AtomicU64::new(0)).collect(),
        epoch: AtomicU64::new(1),
        begun: (0..clusters).map(|_| AtomicU64::new(0)).collect(),
        ended: (0..clusters).map(|_| AtomicU64::new(0)).collect(),
        sweeps_begun: AtomicU64::new(0),
        sweeps_ended: AtomicU64::new(0),
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs_f64(secs);
    let handles: Vec<Tt> = (0..threads).map(|_| tt.share()).collect();
    let book = &book;
    let totals: Vec<Stress> = std::thread::scope(|scope| {
        let joins: Vec<_> = handles
            .into_iter()
            .enumerate()
            .map(|(id, mut h)| {
                scope.spawn(move || {
                    let auto = auto_commit && id == 0;
                    let mut s = Stress::default();
                    let mut rng = 0x2545_F491_4F6C_DD1D_u64 ^ ((id as u64 + 1) * 0x9E37);
                    let mut next = move || {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        rng
                    };
                    // Keys of this transaction: key -> (serial, begun
                    // snapshot, sweeps snapshot) of its last store.
                    let mut mine: HashMap<u64, (u64, u64, u64)> = HashMap::new();
                    let mut txn = None;
                    while std::time::Instant::now() < deadline {
                        let Some(t) = txn else {
                            book.sweeps_begun.fetch_add(1, SeqCst);
                            let t = if auto {
                                h.begin_auto_commit()
                            } else {
                                h.begin()
                            }
                            .unwrap();
                            book.sweeps_ended.fetch_add(1, SeqCst);
                            if t.serial() as usize >= STRESS_SERIALS {
                                if auto { h.commit(t) } else { h.rollback(t) }.unwrap();
                                break;
                            }
                            if auto {
                                // Visible from its first store on.
                                book.committed[t.serial() as usize].store(1, SeqCst);
                            }
                            txn = Some(t);
                            mine.clear();
                            continue;
                        };
                        let r = next();
                        let key = key(r % 96 + 1);
                        let c = h.cluster_index(key);
                        match (r >> 32) % 100 {
                            0..=39 => {
                                // Quiet: no store of this cluster and no
                                // sweep in flight when ours begins, and none
                                // begun by the time ours has ended.
                                let sw_pre = book.sweeps_begun.load(SeqCst);
                                let sw_pre_end = book.sweeps_ended.load(SeqCst);
                                let b_pre = book.begun[c].load(SeqCst);
                                let e_pre = book.ended[c].load(SeqCst);
                                book.begun[c].fetch_add(1, SeqCst);
                                h.store(t, key, stress_data(key, t.serial())).unwrap();
                                book.ended[c].fetch_add(1, SeqCst);
                                s.stores += 1;
                                let (b, e) =
                                    (book.begun[c].load(SeqCst), book.ended[c].load(SeqCst));
                                let sw = book.sweeps_begun.load(SeqCst);
                                let quiet = b_pre == e_pre
                                    && b == b_pre + 1
                                    && e == b
                                    && sw_pre == sw_pre_end
                                    && sw == sw_pre;
                                mine.insert(
                                    key,
                                    (t.serial(), if quiet { b } else { u64::MAX }, sw),
                                );
                            }
                            40..=93 => {
                                let e0 = book.epoch.load(SeqCst);
                                let got = h.probe(key);
                                s.probes += 1;
                                if let Some(d) = got {
                                    s.hits += 1;
                                    let serial = stress_serial(&d);
                                    if serial == 0
                                        || serial as usize >= STRESS_SERIALS
                                        || d.depth != stress_check(key, serial)
                                        || d.bound != Bound::Lower
                                    {
                                        s.torn_violations += 1;
                                        continue;
                                    }
                                    let rb = book.rolled_back[serial as usize].load(SeqCst);
                                    if rb != 0 && rb <= e0 {
                                        s.discarded_violations += 1;
                                    }
                                    if serial != t.serial() {
                                        s.foreign_hits += 1;
                                        if book.committed[serial as usize].load(SeqCst) == 0 {
                                            s.uncommitted_violations += 1;
                                        }
                                    }
                                }
                                // Read your writes, unless replaced.
                                if let Some(&(serial, b0, sw0)) = mine.get(&key) {
                                    let untouched = b0 != u64::MAX
                                        && book.begun[c].load(SeqCst) == b0
                                        && book.sweeps_begun.load(SeqCst) == sw0;
                                    if untouched {
                                        s.own_checks += 1;
                                        if got != Some(stress_data(key, serial)) {
                                            s.lost_violations += 1;
                                        }
                                    } else {
                                        s.own_replaced += 1;
                                    }
                                }
                            }
                            n if (94..=97).contains(&n) || auto => {
                                book.committed[t.serial() as usize].store(1, SeqCst);
                                h.commit(t).unwrap();
                                s.commits += 1;
                                txn = None;
                                // Every committed entry is findable unless
                                // replaced (by a store or a sweep) since.
                                for (&k, &(serial, b0, sw0)) in &mine {
                                    let c = h.cluster_index(k);
                                    let got = h.probe(k);
                                    s.probes += 1;
                                    if b0 != u64::MAX
                                        && book.begun[c].load(SeqCst) == b0
                                        && book.sweeps_begun.load(SeqCst) == sw0
                                    {
                                        s.own_checks += 1;
                                        if got != Some(stress_data(k, serial)) {
                                            s.lost_violations += 1;
                                        }
                                    } else {
                                        s.own_replaced += 1;
                                    }
                                }
                            }
                            _ => {
                                h.rollback(t).unwrap();
                                let e = book.epoch.fetch_add(1, SeqCst) + 1;
                                book.rolled_back[t.serial() as usize].store(e, SeqCst);
                                s.rollbacks += 1;
                                txn = None;
                            }
                        }
                    }
                    if let Some(t) = txn {
                        if auto { h.commit(t) } else { h.rollback(t) }.unwrap();
                    }
                    s.sweeps = h.stats().sweeps;
                    s
                })
            })
            .collect();
        joins.into_iter().map(|j| j.join().unwrap()).collect()
    });
    let mut total = Stress::default();
    for t in &totals {
        total.add(t);
    }
    total
}

fn stress_secs() -> f64 {
    std::env::var("PERFT_TT_STRESS_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0)
}

#[test]
fn concurrent_stress_no_torn_no_discarded_no_lost_entry() {
    // 4 threads over 4 clusters (16 entries) and 16 status slots: constant
    // replacement, slot reuse and sweeps. PERFT_TT_STRESS_SECS sets the time.
    let s = stress(4, 4, 16, stress_secs(), true, true);
    eprintln!("tt stress: {s:?}");
    assert_eq!(s.violations(), 0, "{s:?}");
    // It really ran concurrently and exercised every path.
    assert!(
        s.stores > 10_000 && s.commits > 1_000 && s.rollbacks > 100,
        "{s:?}"
    );
    assert!(
        s.foreign_hits > 1_000 && s.own_checks > 1_000 && s.sweeps > 10,
        "{s:?}"
    );
}

#[test]
fn concurrent_stress_catches_resurrection_without_the_sweep() {
    // The same run with the sweep switched off must see rolled-back entries
    // served again (the check is not blind).
    let s = stress(4, 4, 8, 1.0, false, false);
    eprintln!("tt stress without sweep: {s:?}");
    assert!(s.discarded_violations > 0, "{s:?}");
}
