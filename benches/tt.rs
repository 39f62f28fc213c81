//! Benchmarks of the transactional TT.
//!
//! `cargo bench --bench tt`: criterion timings of `rollback` (and `commit`)
//! after 10, 1,000 and 100,000 stores in the transaction. Rollback is one
//! status write, so its time must not grow with the entries written; only
//! the rollback itself is timed (the stores are set-up), and `timer` times an
//! empty region to show the clock's own overhead.
//!
//! `cargo bench --bench tt -- --age-weight-table`: the measurement behind the
//! default `k` of the replacement priority `depth - k * age`. A fixed game
//! line from each of 12 middlegame positions is searched position after
//! position with one small TT (age only matters across searches), for
//! several `k`; prints total nodes per `k` as a Markdown table.

use std::hint::black_box;
use std::sync::atomic::{Ordering, fence};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion};

use perft::search::tt::{Bound, Tt, TtData};
use perft::search::{self, Limits, SearchOptions};
use perft::validate::suite::load_suite;
use perft::{Move, Position};

fn key(i: u64) -> u64 {
    i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5555
}

fn entry(i: u64) -> TtData {
    TtData {
        mv: Move::from_bits(0x0123),
        score: (i % 1000) as i16,
        depth: (i % 20) as u8,
        bound: Bound::Lower,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Rollback,
    Commit,
    /// Time an empty region instead (the control: what the clock reads after
    /// the same set-up with no work at all), then roll back untimed.
    Nothing,
}

/// Times only the end of a transaction that stored `stores` entries.
fn end_after_stores(c: &mut Criterion, name: &str, end: End) {
    let mut group = c.benchmark_group(name);
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(3));
    for stores in [10u64, 1_000, 100_000] {
        group.bench_with_input(
            BenchmarkId::from_parameter(stores),
            &stores,
            |b, &stores| {
                let mut tt = Tt::new(16 << 20).unwrap();
                let mut warm = Tt::new(4096).unwrap();
                let mut next = 0u64;
                b.iter_custom(|iters| {
                    let mut timed = Duration::ZERO;
                    for _ in 0..iters {
                        let txn = tt.begin().unwrap();
                        for _ in 0..stores {
                            next += 1;
                            tt.store(txn, key(next), entry(next)).unwrap();
                        }
                        let accesses = tt.stats().entry_accesses;
                        // Warm what the timed region needs (the clock, the status
                        // slot, the code of begin/commit/rollback via a small
                        // table) and drain pending stores, so that caches the
                        // long set-up evicted are not billed to the timed region.
                        let w = warm.begin().unwrap();
                        warm.rollback(w).unwrap();
                        let w = warm.begin().unwrap();
                        warm.commit(w).unwrap();
                        black_box(Instant::now());
                        black_box(tt.slot_state(txn.slot()));
                        fence(Ordering::SeqCst);
                        let start = Instant::now();
                        let r = match end {
                            End::Rollback => tt.rollback(black_box(txn)),
                            End::Commit => tt.commit(black_box(txn)),
                            End::Nothing => Ok(()),
                        };
                        timed += start.elapsed();
                        r.unwrap();
                        // Not one entry read or written by the commit/rollback.
                        assert_eq!(tt.stats().entry_accesses, accesses);
                        if end == End::Nothing {
                            tt.rollback(txn).unwrap();
                        }
                        assert_eq!(tt.probe(key(next)).is_some(), end == End::Commit);
                    }
                    timed
                });
            },
        );
    }
    group.finish();
}

fn timer_overhead(c: &mut Criterion) {
    c.bench_function("timer", |b| {
        b.iter_custom(|iters| {
            let mut timed = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                black_box(());
                timed += start.elapsed();
            }
            timed
        });
    });
}

/// 12 middlegame positions: CPW "Perft Results" 2, 4, 4 mirrored, 5, 6 and
/// the first seven Chess960 positions (the set of scripts/lab/tt_policy.sh).
fn middlegames() -> Vec<Position> {
    let root = env!("CARGO_MANIFEST_DIR");
    let standard = load_suite(format!("{root}/positions/standard.epd").as_ref(), false).unwrap();
    let c960 = load_suite(format!("{root}/positions/chess960.epd").as_ref(), false).unwrap();
    let mut out: Vec<Position> = standard
        .iter()
        .filter(|r| r.line == 2 || (4..=7).contains(&r.line))
        .map(|r| r.position)
        .collect();
    out.extend(c960.iter().take(7).map(|r| r.position));
    assert_eq!(out.len(), 12);
    out
}

fn age_weight_table() {
    const LINE_PLIES: usize = 8;
    const DEPTH: u32 = 6;
    const TT_BYTES: usize = 256 << 10;
    // Fixed game lines, chosen without a TT so they do not depend on k.
    let games: Vec<Vec<Position>> = middlegames()
        .into_iter()
        .map(|start| {
            let mut line = vec![start];
            let mut pos = start;
            for _ in 0..LINE_PLIES {
                let r = search::search(
                    &pos,
                    &[],
                    &Limits::depth(4),
                    None,
                    &SearchOptions::default(),
                    |_| {},
                )
                .unwrap();
                let Some(mv) = r.best_move else { break };
                pos = pos.play_unchecked(mv);
                line.push(pos);
            }
            line
        })
        .collect();
    println!(
        "{} game lines of up to {} positions, depth {DEPTH}, TT {} KiB ({} entries), default options\n",
        games.len(),
        LINE_PLIES + 1,
        TT_BYTES >> 10,
        TT_BYTES / 16
    );
    println!("| k | nodes | vs k = 0 |\n| ---: | ---: | ---: |");
    let mut base = 0u64;
    for k in [0, 1, 2, 4, 8, 16, 64] {
        let mut nodes = 0u64;
        for line in &games {
            let mut tt = Tt::new(TT_BYTES).unwrap();
            tt.set_age_weight(k);
            let mut history = Vec::new();
            for pos in line {
                let r = search::search(
                    pos,
                    &history,
                    &Limits::depth(DEPTH),
                    Some(&mut tt),
                    &SearchOptions::default(),
                    |_| {},
                )
                .unwrap();
                nodes += r.stats.nodes;
                history.push(pos.hash());
            }
        }
        if k == 0 {
            base = nodes;
        }
        println!("| {k} | {nodes} | {:.3} |", nodes as f64 / base as f64);
    }
}

fn main() {
    if std::env::args().any(|a| a == "--age-weight-table") {
        age_weight_table();
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    end_after_stores(&mut c, "tt_rollback_after_stores", End::Rollback);
    end_after_stores(&mut c, "tt_commit_after_stores", End::Commit);
    end_after_stores(&mut c, "tt_nothing_after_stores", End::Nothing);
    timer_overhead(&mut c);
    c.final_summary();
}
