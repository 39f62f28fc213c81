//! Published perft suites from `positions/` (every count traced to its source
//! and re-checked with Stockfish; see positions/README.md).

use rayon::prelude::*;

use crate::common::load;
use perft::chess::cpu::CpuPath;
use perft::perft::{Perft, PerftConfig, perft, perft_on, perft_plain, perft_plain_on};
use perft::{Position, perft::PerftError};

/// Checks every `;Dn` count of `positions/<name>.epd` whose expected value is
/// at most `cap`; returns how many counts were checked. Fails with the list of
/// mismatches.
fn check_suite(name: &str, cap: u64) -> usize {
    check_suite_with(name, cap, perft)
}

/// [`check_suite`] with the counting function `count`.
fn check_suite_with(name: &str, cap: u64, count: fn(&Position, u32) -> u64) -> usize {
    let records = load(name);
    let jobs: Vec<_> = records
        .iter()
        .flat_map(|r| r.depths.iter().map(move |&(d, n)| (r, d, n)))
        .filter(|&(_, _, n)| n <= cap)
        .collect();
    let failures: Vec<String> = jobs
        .par_iter()
        .filter_map(|&(r, d, n)| {
            let got = count(&r.position, d);
            (got != n).then(|| format!("{name}.epd:{} D{d}: expected {n}, got {got}", r.line))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    jobs.len()
}

#[test]
fn standard_suite_counts_up_to_ten_billion() {
    // 44 of 53 counts; of the 9 above 1e10 nodes, start D8 and position 6 D7
    // are checked through the hashed parallel driver in
    // `parallel::deep_standard_counts_through_the_hashed_driver`, the rest in
    // `parallel::every_standard_count` (ignored: days of CPU).
    assert_eq!(check_suite("standard", 10_000_000_000), 44);
}

#[test]
fn tricky_suite_every_count() {
    assert_eq!(check_suite("tricky", u64::MAX), 300);
}

#[test]
fn tricky960_suite_every_count() {
    assert_eq!(check_suite("tricky960", u64::MAX), 141);
}

#[test]
fn perftsuite_every_count_up_to_one_billion() {
    // All 755 counts are at most 1e9 nodes.
    assert_eq!(check_suite("perftsuite", 1_000_000_000), 755);
}

#[test]
fn chess960_suite_counts_up_to_ten_million() {
    assert_eq!(check_suite("chess960", 10_000_000), 4052);
}

#[test]
fn speed_set_counts_up_to_twenty_million() {
    // Every count of positions/speed.epd is Stockfish 15.1's `go perft`
    // (scripts/lab/speed_set.py); the timed depths (0.3-3 s each) are left to
    // `perft suite positions/speed.epd` and scripts/lab/peers.py. Each of the 64
    // positions has at least its D1-D3 under the cap.
    let checked = check_suite("speed", 20_000_000);
    assert!(checked >= 64 * 3, "{checked}");
    let plain = check_suite_with("speed", 1_000_000, perft_plain);
    assert!(plain >= 64 * 3, "{plain}");
}

/// The speed set is broad enough to time: at least 60 positions, at least
/// 12 in each bin of men on the board, every line's comment naming the bin
/// its FEN is in, and every line deep enough to time (a count of at least
/// 100 million at its deepest depth).
#[test]
fn speed_set_has_four_bins_of_at_least_twelve() {
    let records = load("speed");
    assert!(records.len() >= 60, "{} positions", records.len());
    let mut bins = [0usize; 4];
    for r in &records {
        let men = r.position.occupied().len();
        let bin = match men {
            0..=10 => 0,
            11..=16 => 1,
            17..=24 => 2,
            _ => 3,
        };
        bins[bin] += 1;
        let name = ["bin up to 10,", "bin 11-16,", "bin 17-24,", "bin 25-32,"][bin];
        let comment = r
            .ops
            .iter()
            .find(|(op, _)| op == "c0")
            .map_or("", |(_, text)| text.as_str());
        assert!(
            comment.contains(name),
            "line {}: {men} men, c0 {comment:?}",
            r.line
        );
        let deepest = r.depths.iter().map(|&(_, n)| n).max().unwrap_or(0);
        assert!(
            deepest >= 100_000_000,
            "line {}: deepest count {deepest}",
            r.line
        );
    }
    assert!(bins.iter().all(|&n| n >= 12), "{bins:?}");
}

#[test]
fn endings_set_counts_up_to_twenty_million() {
    // Every count of positions/endings.epd is Stockfish 15.1's `go perft`
    // (scripts/lab/endings_set.py); the timed depths are left to `perft
    // suite positions/endings.epd` and scripts/lab/peers.py. Each of the 72
    // positions has at least its D1-D4 under the cap.
    let checked = check_suite("endings", 20_000_000);
    assert!(checked >= 72 * 4, "{checked}");
    let plain = check_suite_with("endings", 2_000_000, perft_plain);
    assert!(plain >= 72 * 4, "{plain}");
}

/// The endings set covers what it claims: at least 14 material signatures
/// in classes from plain to unusual, at least 4 positions each, 5 to 16 men,
/// every line's comment naming its class, its signature (checked against
/// the board: the men of each side, a `P7` pawn on its seventh rank) and
/// its men, and every line deep enough to time.
#[test]
fn endings_set_has_fourteen_signatures_of_four_positions() {
    use std::collections::BTreeMap;
    let records = load("endings");
    let mut per_signature: BTreeMap<String, usize> = BTreeMap::new();
    for r in &records {
        let comment = r
            .ops
            .iter()
            .find(|(op, _)| op == "c0")
            .map_or("", |(_, text)| text.trim_matches('"'));
        let parts: Vec<&str> = comment.split(", ").collect();
        assert_eq!(parts.len(), 3, "line {}: c0 {comment:?}", r.line);
        let (signature, men) = (parts[1], r.position.occupied().len());
        assert_eq!(parts[2], format!("{men} men"), "line {}", r.line);
        assert!((5..=16).contains(&men), "line {}: {men} men", r.line);
        // The signature's two sides, in either colour order.
        let (a, b) = signature.split_once('v').expect("KxxvKyy");
        let side = |color: perft::chess::piece::Color| {
            let mut s = String::from("K");
            for (kind, letter) in [
                (perft::chess::piece::Piece::Queen, 'Q'),
                (perft::chess::piece::Piece::Rook, 'R'),
                (perft::chess::piece::Piece::Bishop, 'B'),
                (perft::chess::piece::Piece::Knight, 'N'),
            ] {
                for _ in 0..r.position.colored(color, kind).len() {
                    s.push(letter);
                }
            }
            let seventh = match color {
                perft::chess::piece::Color::White => 6,
                perft::chess::piece::Color::Black => 1,
            };
            let pawns = r.position.colored(color, perft::chess::piece::Piece::Pawn);
            let on_seventh = pawns
                .into_iter()
                .filter(|sq| sq.rank() as u8 == seventh)
                .count();
            (s, pawns.len() as usize, on_seventh)
        };
        let norm = |text: &str| {
            let sevens = text.matches("P7").count();
            let pawns = text.matches('P').count();
            let pieces: String = text.chars().filter(|c| "KQRBN".contains(*c)).collect();
            (pieces, pawns, sevens)
        };
        let (w, b_) = (
            side(perft::chess::piece::Color::White),
            side(perft::chess::piece::Color::Black),
        );
        let (na, nb) = (norm(a), norm(b));
        let fits = |(s, pawns, seventh): &(String, usize, usize), want: &(String, usize, usize)| {
            s == &want.0 && *pawns == want.1 && *seventh >= want.2
        };
        assert!(
            (fits(&w, &na) && fits(&b_, &nb)) || (fits(&w, &nb) && fits(&b_, &na)),
            "line {}: {signature} does not match the board {}",
            r.line,
            r.fen_text
        );
        let deepest = r.depths.iter().map(|&(_, n)| n).max().unwrap_or(0);
        assert!(deepest >= 100_000_000, "line {}: deepest {deepest}", r.line);
        *per_signature.entry(signature.to_string()).or_default() += 1;
    }
    assert!(per_signature.len() >= 14, "{per_signature:?}");
    assert!(per_signature.values().all(|&n| n >= 4), "{per_signature:?}");
    assert!(records.len() >= 56);
}

#[test]
fn the_plain_loop_gives_the_published_counts_too() {
    // perft_plain makes every move above the last ply (no leaf-parent
    // shortcut): a second, independent path through the same generator.
    let checked: usize = ["standard", "tricky", "tricky960", "perftsuite", "chess960"]
        .iter()
        .map(|name| check_suite_with(name, 1_000_000, perft_plain))
        .sum();
    assert!(checked > 3000, "{checked}");
}

#[test]
fn colour_flipped_twins_have_equal_counts() {
    for name in ["perftsuite", "tricky", "tricky960", "chess960"] {
        let records = load(name);
        records.par_iter().take(300).for_each(|r| {
            let flipped = r.position.flipped();
            for &(d, n) in r.depths.iter().filter(|&&(_, n)| n <= 1_000_000) {
                assert_eq!(perft(&flipped, d), n, "{name}:{} flipped, D{d}", r.line);
            }
        });
    }
}

/// A serial counting function.
type Counter = fn(&Position, u32) -> u64;

/// The suites' counts up to `CAP` on one CPU path, with and without the
/// leaf-parent shortcut.
fn check_path(path: CpuPath) -> usize {
    const CAP: u64 = 2_000_000;
    let (shortcut, plain): (Counter, Counter) = match path {
        CpuPath::Portable => (
            |p, d| perft_on(CpuPath::Portable, p, d),
            |p, d| perft_plain_on(CpuPath::Portable, p, d),
        ),
        CpuPath::Popcnt => (
            |p, d| perft_on(CpuPath::Popcnt, p, d),
            |p, d| perft_plain_on(CpuPath::Popcnt, p, d),
        ),
        CpuPath::Bmi2 => (
            |p, d| perft_on(CpuPath::Bmi2, p, d),
            |p, d| perft_plain_on(CpuPath::Bmi2, p, d),
        ),
    };
    ["standard", "tricky", "tricky960", "perftsuite", "chess960"]
        .iter()
        .map(|name| check_suite_with(name, CAP, shortcut) + check_suite_with(name, CAP, plain))
        .sum()
}

/// Every compiled CPU path gives the published counts. A path this CPU
/// lacks cannot run: the driver must refuse it (and the test says which
/// paths ran, on stderr).
#[test]
fn every_cpu_path_this_machine_supports_gives_the_published_counts() {
    let supported = CpuPath::supported();
    eprintln!("CPU paths run: {supported:?}");
    assert!(supported.contains(&CpuPath::Portable));
    for path in CpuPath::ALL {
        if supported.contains(&path) {
            let checked = check_path(path);
            assert!(checked > 9000, "{path}: {checked}");
        } else {
            let refused = Perft::new(PerftConfig {
                cpu: path,
                ..PerftConfig::default()
            });
            assert!(matches!(refused, Err(PerftError::Cpu(_))), "{path}");
        }
    }
}

/// The parallel hashed driver on every supported path, plain and with the
/// shortcut, gives the published counts of the standard suite up to 1e7.
#[test]
fn the_driver_gives_the_published_counts_on_every_cpu_path() {
    let records = crate::common::load("standard");
    for path in CpuPath::supported() {
        for plain in [false, true] {
            let driver = Perft::new(PerftConfig {
                threads: 2,
                hash_bytes: 8 << 20,
                cpu: path,
                plain,
                ..PerftConfig::default()
            })
            .unwrap();
            let mut checked = 0;
            for r in &records {
                for &(d, n) in r.depths.iter().filter(|&&(_, n)| n <= 10_000_000) {
                    assert_eq!(
                        driver.count(&r.position, d),
                        u128::from(n),
                        "{path} plain={plain} {}:{d}",
                        r.line
                    );
                    checked += 1;
                }
            }
            assert!(checked >= 30, "{checked}");
        }
    }
}
