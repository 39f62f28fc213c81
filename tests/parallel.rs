//! The parallel driver and the perft table: counts are identical for every
//! thread count, hash size and synchronisation mode; the table never returns
//! a wrong count under concurrent use.

use std::ops::RangeInclusive;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use perft::perft::hash::{HashSync, PerftTable};
use perft::perft::{Perft, PerftConfig};

use crate::common::load;

fn driver(
    threads: usize,
    hash_bytes: u128,
    sync: HashSync,
    split_depth: u32,
    min_hash_depth: u32,
) -> Perft {
    Perft::new(PerftConfig {
        threads,
        split_depth,
        hash_bytes,
        hash_sync: sync,
        min_hash_depth,
        ..PerftConfig::default()
    })
    .unwrap()
}

const SYNCS: [HashSync; 4] = [
    HashSync::Mutex { shards: 1 },
    HashSync::Mutex { shards: 64 },
    HashSync::Lockless,
    HashSync::Mutex { shards: 3 },
];

/// Published counts within `counts` (nodes), through `perft`.
fn check(perft: &Perft, names: &[&str], counts: RangeInclusive<u64>) -> usize {
    let mut checked = 0;
    for name in names {
        for r in load(name) {
            for &(d, n) in r.depths.iter().filter(|&&(_, n)| counts.contains(&n)) {
                assert_eq!(
                    perft.count(&r.position, d),
                    u128::from(n),
                    "{name}:{} D{d}",
                    r.line
                );
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn every_thread_count_and_hash_setting_gives_the_published_counts() {
    let files = ["standard", "tricky", "tricky960", "perftsuite"];
    for threads in [1, 2, 3] {
        for (i, sync) in SYNCS.iter().enumerate() {
            // Big, tiny (heavy replacement) and one-bucket tables.
            let bytes = [64 << 20, 64 * 1024, 64, 0][i];
            let perft = driver(threads, bytes, *sync, 2 + i as u32, 2 + (i as u32 % 2));
            assert!(check(&perft, &files, 0..=2_000_000) > 900);
        }
    }
}

#[test]
fn hashed_and_parallel_runs_of_deep_counts_match_the_suite() {
    // Bigger counts through a warm, shared table (reused across positions and
    // depths, so hits come from earlier runs too).
    let perft = driver(2, 32 << 20, HashSync::Lockless, 4, 2);
    assert!(check(&perft, &["standard", "tricky960"], 0..=200_000_000) > 60);
    let perft = driver(2, 1 << 20, HashSync::Mutex { shards: 1 }, 3, 3);
    assert!(check(&perft, &["standard"], 0..=200_000_000) > 30);
}

#[test]
fn chess960_counts_hold_with_a_small_striped_table() {
    let perft = driver(2, 256 << 10, HashSync::Mutex { shards: 16 }, 3, 2);
    let records = load("chess960");
    for r in records.iter().take(120) {
        for &(d, n) in r.depths.iter().filter(|&&(d, _)| d <= 4) {
            assert_eq!(
                perft.count(&r.position, d),
                u128::from(n),
                "chess960:{} D{d}",
                r.line
            );
        }
    }
}

#[test]
fn divide_reports_every_root_move_and_the_stats_add_up() {
    let perft = driver(2, 16 << 20, HashSync::Lockless, 3, 2);
    let pos = perft::Position::from_fen(perft::chess::fen::KIWIPETE).unwrap();
    let seen = AtomicU64::new(0);
    let cb = |_m: perft::Move, n: u128| {
        seen.fetch_add(n as u64, Ordering::Relaxed);
    };
    let out = perft.divide(
        &pos,
        4,
        perft::perft::Control {
            stop: None,
            on_root_move: Some(&cb),
        },
    );
    assert!(out.complete);
    assert_eq!(out.root_moves, 48);
    assert_eq!(out.moves.len(), 48);
    assert_eq!(out.nodes, 4_085_603); // CPW position 2, depth 4
    assert_eq!(seen.load(Ordering::Relaxed), 4_085_603);
    let s = out.stats;
    assert!(s.probes > 0 && s.hits <= s.probes);
    // Every miss (busy or not) is counted and then offered to the table.
    assert_eq!(
        s.probes - s.hits,
        s.stores + s.replacements + s.rejected + s.busy_stores
    );
    assert_eq!((s.busy_probes, s.busy_stores), (0, 0), "lockless: no locks");
}

/// Many more threads than cores, every sync mode, tables small enough that
/// every store fights over a few buckets (one bucket, then 64): threads are
/// preempted in the middle of their table accesses, locks are found taken
/// and entries are replaced under each other, and every count stays exact.
#[test]
fn oversubscribed_threads_on_tiny_tables_give_the_published_counts_in_every_sync_mode() {
    let modes = [
        HashSync::Lockless,
        HashSync::Mutex { shards: 1 },
        HashSync::Mutex { shards: 3 },
        HashSync::Mutex { shards: 1024 },
    ];
    for threads in [16, 64] {
        for (i, sync) in modes.iter().enumerate() {
            let bytes = [64, 64 * 64][i % 2];
            let perft = driver(threads, bytes, *sync, 2, 2);
            let checked = check(&perft, &["standard", "tricky960"], 1_000..=5_000_000);
            assert!(checked > 60, "{threads} threads, {sync}: {checked} counts");
        }
    }
}

/// With a lock mode, what the table's counters say adds up: every probe is
/// a hit, a miss or a busy miss, and every miss offers its count once.
#[test]
fn lock_modes_account_for_every_probe_and_store() {
    let pos = perft::Position::from_fen(perft::chess::fen::KIWIPETE).unwrap();
    for sync in [
        HashSync::Mutex { shards: 1 },
        HashSync::Mutex { shards: 64 },
    ] {
        let perft = driver(4, 1 << 20, sync, 3, 2);
        let out = perft.divide(&pos, 5, perft::perft::Control::default());
        assert_eq!(out.nodes, 193_690_690); // CPW position 2, depth 5
        let s = out.stats;
        assert!(s.hits > 0, "{sync}");
        assert_eq!(
            s.probes - s.hits,
            s.stores + s.replacements + s.rejected + s.busy_stores,
            "{sync}"
        );
        assert!(s.busy_probes <= s.probes - s.hits, "{sync}");
        assert!(out.min_hash_depth >= 2, "{sync}");
    }
}

#[test]
fn a_stop_request_ends_the_run_with_a_partial_result() {
    let perft = driver(2, 0, HashSync::Lockless, 3, 2);
    let stop = std::sync::atomic::AtomicBool::new(true);
    let out = perft.divide(
        &perft::Position::startpos(),
        7,
        perft::perft::Control {
            stop: Some(&stop),
            on_root_move: None,
        },
    );
    assert!(!out.complete);
    assert!(out.moves.len() < 20);
}

#[test]
fn threads_hammering_a_tiny_table_never_read_a_wrong_count() {
    // Every stored count is a function of (key, depth); any hit that breaks it
    // would be a torn or misattributed entry.
    fn count_of(key: u64, depth: u32) -> u64 {
        (key.rotate_left(17) ^ (u64::from(depth) * 0x9E37_79B9_7F4A_7C15)) | 1
    }
    for sync in SYNCS {
        for bytes in [64u128, 64 * 4, 64 * 1024] {
            let table = Arc::new(PerftTable::new(bytes, sync).unwrap());
            let hits = Arc::new(AtomicU64::new(0));
            let handles: Vec<_> = (0..4u64)
                .map(|t| {
                    let table = Arc::clone(&table);
                    let hits = Arc::clone(&hits);
                    std::thread::spawn(move || {
                        let mut state = 0x1234_5678 + t;
                        for _ in 0..200_000 {
                            state ^= state << 13;
                            state ^= state >> 7;
                            state ^= state << 17;
                            // Few distinct keys, so threads collide on purpose.
                            let key = (state % 97).wrapping_mul(0xD6E8_FEB8_6659_FD93);
                            let depth = 2 + (state >> 32) as u32 % 4;
                            if let Some(c) = table.probe(key, depth) {
                                assert_eq!(c, count_of(key, depth), "{sync} wrong count");
                                hits.fetch_add(1, Ordering::Relaxed);
                            } else {
                                table.store(key, depth, count_of(key, depth));
                            }
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            assert!(
                hits.load(Ordering::Relaxed) > 1000,
                "{sync} {bytes}: too few hits"
            );
        }
    }
}

/// The deep counts of `standard.epd` above 10^10 and up to 10^12 nodes (start
/// position D8, CPW position 6 D7: about 30 s on two cores) through the
/// parallel driver with a 512 MiB perft table, as `perft count` runs them.
/// (The serial suite test covers everything up to 10^10.)
#[test]
fn deep_standard_counts_through_the_hashed_driver() {
    let perft = driver(2, 512 << 20, HashSync::Lockless, 5, 2);
    let deep = 10_000_000_001..=1_000_000_000_000;
    assert_eq!(check(&perft, &["standard"], deep), 2);
}

/// Every count of `standard.epd`, start position D9-D13 and CPW 6 D8-D9
/// included: days of CPU even with the table. (Start position D9,
/// 2,439,530,234,167, takes about 75 s with `perft count 9 --hash 1GiB` on
/// two cores.)
#[test]
#[ignore = "days of CPU: run with --ignored on a big machine"]
fn every_standard_count() {
    let perft = driver(2, 16 << 30, HashSync::Lockless, 5, 2);
    assert_eq!(check(&perft, &["standard"], 0..=u64::MAX), 53);
}
