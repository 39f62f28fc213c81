//! Criterion benchmarks of the hot path.
//!
//! ```sh
//! RUSTFLAGS="-C target-cpu=native" cargo bench --bench perft
//! ```
//!
//! * `perft/*`: single-threaded bulk-counting perft side by side, node counts
//!   asserted against the published values: `ours` (what `perft count` runs,
//!   with the leaf-parent shortcut), `ours-plain` and `cozy-chess` (the same
//!   loop for both: copy-make, popcount at depth 1).
//! * `movegen/*`: generating the move list, and counting, alone.
//! * `play/*`: playing every legal move of a position alone.
//! * `sliders/*`: one rook plus one bishop lookup, PEXT (when compiled in)
//!   against magic bitboards.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use perft::chess::attacks;
use perft::{Bitboard, Position, Square};

/// (name, FEN, depth, published count: Chess Programming Wiki "Perft Results").
const CASES: [(&str, &str, u32, u64); 5] = [
    ("start", perft::chess::fen::STARTPOS, 5, 4_865_609),
    ("kiwipete", perft::chess::fen::KIWIPETE, 4, 4_085_603),
    (
        "cpw3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        5,
        674_624,
    ),
    (
        "cpw4",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        4,
        422_333,
    ),
    (
        "cpw5",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        4,
        2_103_487,
    ),
];

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    if depth == 1 {
        let mut n = 0;
        board.generate_moves(|moves| {
            n += moves.len() as u64;
            false
        });
        return n;
    }
    let mut n = 0;
    board.generate_moves(|moves| {
        for mv in moves {
            let mut child = board.clone();
            child.play_unchecked(mv);
            n += cozy_perft(&child, depth - 1);
        }
        false
    });
    n
}

fn perft_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for (name, fen, depth, nodes) in CASES {
        let ours = Position::from_fen(fen).unwrap();
        let cozy = cozy_chess::Board::from_fen(fen, false).unwrap();
        assert_eq!(perft::perft::perft(&ours, depth), nodes, "{name}");
        assert_eq!(
            perft::perft::perft_plain(&ours, depth),
            nodes,
            "{name} (plain)"
        );
        assert_eq!(cozy_perft(&cozy, depth), nodes, "{name} (cozy-chess)");
        group.throughput(Throughput::Elements(nodes));
        group.bench_with_input(BenchmarkId::new("ours", name), &ours, |b, pos| {
            b.iter(|| assert_eq!(perft::perft::perft(black_box(pos), depth), nodes))
        });
        group.bench_with_input(BenchmarkId::new("ours-plain", name), &ours, |b, pos| {
            b.iter(|| assert_eq!(perft::perft::perft_plain(black_box(pos), depth), nodes))
        });
        group.bench_with_input(BenchmarkId::new("cozy-chess", name), &cozy, |b, board| {
            b.iter(|| assert_eq!(cozy_perft(black_box(board), depth), nodes))
        });
    }
    group.finish();
}

fn positions() -> Vec<Position> {
    CASES
        .iter()
        .map(|(_, fen, _, _)| Position::from_fen(fen).unwrap())
        .collect()
}

fn movegen_benches(c: &mut Criterion) {
    let positions = positions();
    let moves: u64 = positions.iter().map(|p| p.legal_moves().len() as u64).sum();
    let mut group = c.benchmark_group("movegen");
    group.throughput(Throughput::Elements(moves));
    group.bench_function("legal_moves", |b| {
        b.iter(|| {
            let n: usize = positions
                .iter()
                .map(|p| black_box(p).legal_moves().len())
                .sum();
            assert_eq!(n as u64, moves);
        })
    });
    group.bench_function("count_moves", |b| {
        b.iter(|| {
            let n: u64 = positions.iter().map(|p| black_box(p).count_moves()).sum();
            assert_eq!(n, moves);
        })
    });
    group.finish();
}

fn play_benches(c: &mut Criterion) {
    let cases: Vec<(Position, Vec<perft::Move>)> = positions()
        .into_iter()
        .map(|p| (p, p.legal_moves().iter().copied().collect()))
        .collect();
    let moves: u64 = cases.iter().map(|(_, m)| m.len() as u64).sum();
    let mut group = c.benchmark_group("play");
    group.throughput(Throughput::Elements(moves));
    group.bench_function("play_unchecked", |b| {
        b.iter(|| {
            let mut keys = 0u64;
            for (pos, list) in &cases {
                for &mv in list {
                    keys ^= black_box(pos).play_unchecked(mv).hash();
                }
            }
            keys
        })
    });
    group.finish();
}

fn slider_benches(c: &mut Criterion) {
    // A fixed pseudo-random set of (square, occupancy) pairs.
    let mut state = 0x1234_5678_9ABC_DEF0u64;
    let inputs: Vec<(Square, Bitboard)> = (0..4096)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (
                Square::from_index(state as usize),
                Bitboard(state & state.rotate_left(23)),
            )
        })
        .collect();
    let mut group = c.benchmark_group("sliders");
    group.throughput(Throughput::Elements(inputs.len() as u64));
    group.bench_function("magic", |b| {
        b.iter(|| {
            inputs.iter().fold(0u64, |acc, &(sq, occ)| {
                acc ^ attacks::magic::rook_attacks(sq, black_box(occ)).0
                    ^ attacks::magic::bishop_attacks(sq, occ).0
            })
        })
    });
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    group.bench_function("pext", |b| {
        b.iter(|| {
            inputs.iter().fold(0u64, |acc, &(sq, occ)| {
                acc ^ attacks::pext::rook_attacks(sq, black_box(occ)).0
                    ^ attacks::pext::bishop_attacks(sq, occ).0
            })
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    perft_benches,
    movegen_benches,
    play_benches,
    slider_benches
);
criterion_main!(benches);
