//! Side-by-side timing of our bulk-counting perft against cozy-chess with the
//! same loop (copy-make, bulk count at depth 1: `perft_plain`), and of what
//! `perft count` runs (`perft`, which also counts moves that cannot change
//! the reply count without making them), interleaved, several rounds,
//! medians, and the geometric means of the speed ratios.
//!
//! ```sh
//! RUSTFLAGS="-C target-cpu=native" cargo bench --bench versus
//! ```
//! Arguments after `--`: `--rounds N` (default 5), `--quick` (one depth less),
//! `--deep` (one depth more: the deep CPW set, start 7, Kiwipete 6, CPW 3
//! 7, CPW 4 6, CPW 5 6; about 50 s a round), `--binary PATH`: also time a
//! built `perft` binary in the same rounds (`count D FEN --threads 1
//! --no-hash --json`, with and without `--plain`, its own `seconds`), so a
//! default build (`cargo build --release`, runtime CPU dispatch) is measured
//! against cozy-chess built here with native flags:
//!
//! ```sh
//! cargo build --release && cp target/release/perft /tmp/perft-default
//! RUSTFLAGS="-C target-cpu=native" cargo bench --bench versus -- --deep --binary /tmp/perft-default
//! ```

use std::time::Instant;

use perft::Position;

/// The five CPW positions: (name, FEN, depth, published count, and
/// the published count one ply deeper where the Chess Programming Wiki gives
/// one; CPW 5 perft 6 it does not, so `--deep` checks it only against
/// cozy-chess's count).
type Case = (&'static str, &'static str, u32, u64, Option<u64>);
const CASES: [Case; 5] = [
    (
        "start",
        perft::chess::fen::STARTPOS,
        6,
        119_060_324,
        Some(3_195_901_860),
    ),
    (
        "kiwipete",
        perft::chess::fen::KIWIPETE,
        5,
        193_690_690,
        Some(8_031_647_685),
    ),
    (
        "cpw3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        6,
        11_030_083,
        Some(178_633_661),
    ),
    (
        "cpw4",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        5,
        15_833_292,
        Some(706_045_033),
    ),
    (
        "cpw5",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        5,
        89_941_194,
        None,
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

/// `perft count` of a built binary, one thread, no table: its node count and
/// its own measured seconds (start-up and parsing excluded).
fn binary_count(path: &str, fen: &str, depth: u32, plain: bool) -> (u64, f64) {
    let depth = depth.to_string();
    let mut args = vec![
        "count",
        &depth,
        fen,
        "--threads",
        "1",
        "--no-hash",
        "--json",
    ];
    if plain {
        args.push("--plain");
    }
    let out = std::process::Command::new(path)
        .args(&args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {path}: {e}"));
    assert!(
        out.status.success(),
        "{path} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{path}: stdout is not JSON ({e})"));
    let counter = report["engine"]["counter"].as_str();
    let wanted = if plain { "plain" } else { "shortcut" };
    assert_eq!(
        counter,
        Some(wanted),
        "{path}: engine.counter is {counter:?}"
    );
    (
        report["nodes"].as_u64().expect("nodes"),
        report["seconds"].as_f64().expect("seconds"),
    )
}

/// The fastest round: other load on the machine only ever adds time.
fn best(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let quick = args.iter().any(|a| a == "--quick");
    let deep = args.iter().any(|a| a == "--deep");
    assert!(!(quick && deep), "--quick and --deep exclude each other");
    let binary = args
        .iter()
        .position(|a| a == "--binary")
        .map(|i| args.get(i + 1).expect("--binary needs a path").clone());
    // `--only ours|plain|cozy`: one side only, one round, one depth less (for
    // instruction counting under valgrind; no ratio is printed).
    if let Some(which) = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
    {
        for (name, fen, depth, _, _) in CASES {
            let n = match which.as_str() {
                "cozy" => cozy_perft(&cozy_chess::Board::from_fen(fen, false).unwrap(), depth - 1),
                "plain" => perft::perft::perft_plain(&Position::from_fen(fen).unwrap(), depth - 1),
                _ => perft::perft::perft(&Position::from_fen(fen).unwrap(), depth - 1),
            };
            println!("{which} {name} D{} {n}", depth - 1);
        }
        return;
    }
    println!(
        "ours: {} sliders; cozy-chess: {}",
        perft::chess::attacks::SLIDER_LOOKUP,
        if cfg!(target_feature = "bmi2") {
            "pext"
        } else {
            "magic"
        }
    );
    println!(
        "(plain: our generator in cozy-chess's loop, every move made and bulk count at \
         depth 1, leaf parents handing their children's pins and king moves down; \
         tool: what `perft count` runs, which also counts untouched moves at depth 2 \
         without making them)"
    );
    if let Some(path) = &binary {
        let out = std::process::Command::new(path)
            .arg("--version")
            .output()
            .unwrap_or_else(|e| panic!("cannot run {path}: {e}"));
        println!(
            "binary: {path}: {}",
            String::from_utf8_lossy(&out.stdout).trim()
        );
    }
    print!(
        "{:<10} {:>5} {:>12} {:>10} {:>10} {:>10} {:>8} {:>8}",
        "position", "depth", "nodes", "cozy Mnps", "plain Mnps", "tool Mnps", "plain", "tool"
    );
    if binary.is_some() {
        print!(
            " {:>10} {:>10} {:>8} {:>8}",
            "bin plain", "bin tool", "b.plain", "b.tool"
        );
    }
    println!();
    let contestants = if binary.is_some() { 5 } else { 3 };
    let mut logs = [0.0f64; 5];
    for (name, fen, depth, expected, expected_deeper) in CASES {
        let (depth, expected) = if quick {
            (depth - 1, None)
        } else if deep {
            (depth + 1, expected_deeper)
        } else {
            (depth, Some(expected))
        };
        let ours = Position::from_fen(fen).unwrap();
        let cozy = cozy_chess::Board::from_fen(fen, false).unwrap();
        let mut times: [Vec<f64>; 5] = Default::default();
        let mut nodes = 0;
        for round in 0..rounds {
            // Rotate who goes first, so no program always runs on a warmer
            // or cooler machine.
            for k in 0..contestants {
                let which = (round + k) % contestants;
                let t = Instant::now();
                let (n, seconds) = match which {
                    0 => (cozy_perft(&cozy, depth), None),
                    1 => (perft::perft::perft_plain(&ours, depth), None),
                    2 => (perft::perft::perft(&ours, depth), None),
                    _ => {
                        let path = binary.as_deref().expect("binary contestants");
                        let (n, s) = binary_count(path, fen, depth, which == 3);
                        (n, Some(s))
                    }
                };
                times[which].push(seconds.unwrap_or_else(|| t.elapsed().as_secs_f64()));
                if nodes == 0 {
                    nodes = n;
                }
                assert_eq!(n, nodes, "{name}: programs disagree");
            }
        }
        if let Some(expected) = expected {
            assert_eq!(nodes, expected, "{name}: wrong count");
        }
        // The machine's speed drifts over seconds (a shared VM), so each
        // round's times are compared with each other: the ratio of one round
        // is cozy's time over ours measured back to back, and the median of
        // those per-round ratios is reported.
        let ratio = |i: usize| median(times[0].iter().zip(&times[i]).map(|(c, o)| c / o).collect());
        let ratios: Vec<f64> = (1..contestants).map(ratio).collect();
        for (i, r) in ratios.iter().enumerate() {
            logs[i + 1] += r.ln();
        }
        let mnps = |i: usize| nodes as f64 / best(&times[i]) / 1e6;
        print!(
            "{name:<10} {depth:>5} {nodes:>12} {:>10.1} {:>10.1} {:>10.1} {:>7.2}x {:>7.2}x",
            mnps(0),
            mnps(1),
            mnps(2),
            ratios[0],
            ratios[1]
        );
        if binary.is_some() {
            print!(
                " {:>10.1} {:>10.1} {:>7.2}x {:>7.2}x",
                mnps(3),
                mnps(4),
                ratios[2],
                ratios[3]
            );
        }
        println!();
    }
    let n = CASES.len() as f64;
    let geomean = |i: usize| (logs[i] / n).exp();
    println!(
        "geometric mean ratio vs cozy-chess: plain (same loop) {:.2}x, tool {:.2}x",
        geomean(1),
        geomean(2)
    );
    if binary.is_some() {
        println!(
            "binary: plain {:.2}x, tool (perft count) {:.2}x",
            geomean(3),
            geomean(4)
        );
    }
}
