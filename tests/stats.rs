//! Perft statistics (`--stats`): the published breakdown rows, a slow
//! independent classification, the divide property, Chess960 castles, and
//! the command line.

use rayon::prelude::*;

use crate::common::{Rng, json_stdout, load, repo_path, run_perft, stderr, stdout, write_temp};
use perft::chess::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
};
use perft::perft::stats::StatField;
use perft::validate::suite::{self as epd, EpdRecord};
use perft::{Bitboard, LeafStats, MoveKind, Perft, PerftConfig, Piece, Position, perft_stats};

/// The slow, independent classification: every leaf move is made with
/// `play_unchecked`, and the checkers are found by computing the attacks of
/// every piece of the side that moved, one by one.
fn slow_stats(pos: &Position, depth: u32) -> LeafStats {
    let mut acc = LeafStats::default();
    if depth == 0 {
        acc.nodes = 1;
        return acc;
    }
    for &mv in pos.legal_moves().iter() {
        let child = pos.play_unchecked(mv);
        if depth > 1 {
            acc += slow_stats(&child, depth - 1);
            continue;
        }
        acc.nodes += 1;
        let mover = pos.side_to_move();
        let captured = pos.colors(!mover).contains(mv.to());
        match mv.kind() {
            MoveKind::EnPassant => {
                acc.captures += 1;
                acc.en_passant += 1;
            }
            MoveKind::Castling => acc.castles += 1,
            MoveKind::Promotion => {
                acc.promotions += 1;
                acc.captures += u64::from(captured);
            }
            MoveKind::Normal => acc.captures += u64::from(captured),
        }
        let king = child.king(!mover);
        let occ = child.occupied();
        let mut checkers = Bitboard::EMPTY;
        for sq in child.colors(mover) {
            let (_, piece) = child.piece_on(sq).unwrap();
            let attacks = match piece {
                Piece::Pawn => pawn_attacks(mover, sq),
                Piece::Knight => knight_attacks(sq),
                Piece::Bishop => bishop_attacks(sq, occ),
                Piece::Rook => rook_attacks(sq, occ),
                Piece::Queen => bishop_attacks(sq, occ) | rook_attacks(sq, occ),
                Piece::King => king_attacks(sq),
            };
            if attacks.contains(king) {
                checkers |= sq.bitboard();
            }
        }
        if checkers.is_empty() {
            continue;
        }
        let moved = if mv.kind() == MoveKind::Castling {
            mv.castling_rook_target()
        } else {
            mv.to()
        };
        acc.checks += 1;
        if child.legal_moves().is_empty() {
            acc.checkmates += 1;
        } else if checkers.len() >= 2 {
            acc.double_checks += 1;
        } else if !checkers.contains(moved) {
            acc.discovered_checks += 1;
        }
    }
    acc
}

/// `(record, depth, node count)` of every depth of `standard.epd` that has
/// published statistics and at most `cap` nodes.
fn published_rows(records: &[EpdRecord], cap: u64) -> Vec<(&EpdRecord, u32, u64)> {
    records
        .iter()
        .flat_map(|r| r.depths.iter().map(move |&(d, n)| (r, d, n)))
        .filter(|&(r, d, n)| n <= cap && r.stats_at(d).next().is_some())
        .collect()
}

/// Differences between the published figures of `record` at `depth` and `got`.
fn mismatches(record: &EpdRecord, depth: u32, nodes: u64, got: &LeafStats) -> Vec<String> {
    let mut out = Vec::new();
    if got.nodes != nodes {
        out.push(format!("nodes: published {nodes}, got {}", got.nodes));
    }
    for (field, expected) in record.stats_at(depth) {
        if field.of(got) != expected {
            out.push(format!(
                "{}: published {expected}, got {}",
                field.name(),
                field.of(got)
            ));
        }
    }
    out.into_iter()
        .map(|m| format!("standard.epd:{} D{depth} {m}", record.line))
        .collect()
}

#[test]
fn every_published_row_up_to_a_hundred_million_nodes() {
    let records = load("standard");
    let rows = published_rows(&records, 100_000_000);
    // Start position D1-D5, Kiwipete D1-D4, position 3 D1-D6, position 4
    // and its mirror D1-D5 (Chess Programming Wiki, "Perft Results").
    assert_eq!(rows.len(), 25);
    let failures: Vec<String> = rows
        .par_iter()
        .flat_map(|&(r, d, n)| mismatches(r, d, n, &perft_stats(&r.position, d)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_published_rows_up_to_a_billion_nodes_through_the_driver() {
    // Start D6, Kiwipete D5 (its 2,637 double checks leave out the 8 that
    // mate), position 3 D7, position 4 and mirror D6: 1.9e9 leaves, about
    // 6 s of CPU.
    let records = load("standard");
    let rows: Vec<_> = published_rows(&records, 1_000_000_000)
        .into_iter()
        .filter(|&(_, _, n)| n > 100_000_000)
        .collect();
    assert_eq!(rows.len(), 5);
    let perft = Perft::new(PerftConfig {
        threads: 2,
        ..PerftConfig::default()
    })
    .unwrap();
    let failures: Vec<String> = rows
        .iter()
        .flat_map(|&(r, d, n)| mismatches(r, d, n, &perft.count_stats(&r.position, d)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The published rows above 10^9 nodes: start D7-D9 (D9 is 2.4e12 leaves:
/// days), Kiwipete D6, position 3 D8. Run with `--ignored`.
#[test]
#[ignore]
fn every_published_row() {
    let records = load("standard");
    let rows = published_rows(&records, u64::MAX);
    assert_eq!(rows.len(), 35);
    let perft = Perft::new(PerftConfig::default()).unwrap();
    let failures: Vec<String> = rows
        .iter()
        .flat_map(|&(r, d, n)| mismatches(r, d, n, &perft.count_stats(&r.position, d)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Positions: every line of the suites, then seeded random play from each.
fn positions(per_line: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for name in ["standard", "tricky", "tricky960", "perftsuite", "chess960"] {
        let records = load(name);
        let step = if name == "chess960" { 40 } else { 1 };
        for r in records.iter().step_by(step) {
            let mut pos = r.position;
            for _ in 0..per_line {
                out.push(pos);
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos = pos.play_unchecked(moves.as_slice()[rng.below(moves.len())]);
            }
        }
    }
    out
}

#[test]
fn the_fast_classification_agrees_with_the_slow_one() {
    let positions = positions(16, 0x5eed_0001);
    assert!(positions.len() > 2000, "{}", positions.len());
    let totals: LeafStats = positions
        .par_iter()
        .map(|pos| {
            for depth in 1..=2 {
                let fast = perft_stats(pos, depth);
                let slow = slow_stats(pos, depth);
                assert_eq!(fast, slow, "{} D{depth}", pos.to_fen());
            }
            perft_stats(pos, 2)
        })
        .sum();
    // Every figure must actually occur, or the comparison proves little.
    for field in StatField::ALL {
        assert!(field.of(&totals) > 0, "{}: {totals:?}", field.name());
    }
}

#[test]
fn depth_d_is_the_sum_of_the_children_at_depth_d_minus_one() {
    let positions = positions(6, 0x5eed_0002);
    let perft = Perft::new(PerftConfig {
        threads: 2,
        split_depth: 2,
        ..PerftConfig::default()
    })
    .unwrap();
    let mut rng = Rng(0x5eed_0003);
    for pos in positions.iter().step_by(3) {
        let depth = 2 + rng.below(2) as u32;
        let whole = perft_stats(pos, depth);
        let children: LeafStats = pos
            .legal_moves()
            .iter()
            .map(|&mv| perft_stats(&pos.play_unchecked(mv), depth - 1))
            .sum();
        assert_eq!(whole, children, "{} D{depth}", pos.to_fen());
        // The driver's divide gives the same per-move breakdowns.
        let divided = perft.divide_stats(pos, depth, Default::default());
        assert!(divided.complete);
        assert_eq!(divided.total, whole, "{} D{depth}", pos.to_fen());
        for (mv, st) in &divided.moves {
            assert_eq!(*st, perft_stats(&pos.play_unchecked(*mv), depth - 1));
        }
        // Depth 1: each root move's own breakdown.
        let one = perft.divide_stats(pos, 1, Default::default());
        assert_eq!(one.total, perft_stats(pos, 1), "{}", pos.to_fen());
        assert!(one.moves.iter().all(|(_, st)| st.nodes == 1));
    }
}

#[test]
fn chess960_castles_are_counted() {
    // tricky960.epd: Chess960 castling edge cases (Stockfish's tests and
    // positions built for the suite; the node counts are Stockfish's).
    let path = repo_path("positions/tricky960.epd");
    let records = epd::load_suite(&path, true).unwrap();
    let mut castles = 0;
    for r in &records {
        for &(d, n) in r.depths.iter().filter(|&&(d, n)| d <= 3 && n <= 300_000) {
            let fast = perft_stats(&r.position, d);
            assert_eq!(fast.nodes, n, "tricky960.epd:{} D{d}", r.line);
            assert_eq!(
                fast,
                slow_stats(&r.position, d),
                "tricky960.epd:{} D{d}",
                r.line
            );
            castles += fast.castles;
        }
    }
    assert!(castles > 1000, "{castles}");
    // Positions of tricky960.epd with known castling moves at depth 1 (see
    // the comments there): O-O walking the king b1-g1, O-O moving only the
    // rook, O-O-O with king b1 and rook a1; O-O-O illegal because the rook
    // shields the king's destination, or because d1 is occupied.
    for (fen, castles) in [
        ("6k1/8/8/8/8/8/8/1KR5 w C - 0 1", 1),
        ("1k6/8/8/8/8/8/8/6KR w H - 0 1", 1),
        ("6k1/8/8/8/8/8/8/RK6 w A - 0 1", 1),
        ("4k3/8/8/8/8/8/8/rR2K3 w B - 0 1", 0),
        ("6k1/8/8/8/8/8/8/RK1N4 w A - 0 1", 0),
    ] {
        let pos = Position::from_fen(fen).unwrap();
        let st = perft_stats(&pos, 1);
        // Castling is king-takes-own-rook in the move encoding.
        let by_hand = pos
            .legal_moves()
            .iter()
            .filter(|mv| {
                pos.piece_on(mv.to())
                    .is_some_and(|(c, p)| c == pos.side_to_move() && p == Piece::Rook)
            })
            .count() as u64;
        assert_eq!((st.castles, by_hand), (castles, castles), "{fen}");
    }
}

#[test]
fn count_stats_prints_the_published_kiwipete_row_in_text_and_json() {
    let out = run_perft(&["count", "4", "kiwipete", "--stats", "--threads", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("table     off"), "{text}");
    let row = text
        .lines()
        .find(|l| l.starts_with("4 "))
        .unwrap_or_else(|| panic!("{text}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        [
            "4",
            "4,085,603",
            "757,163",
            "1,929",
            "128,013",
            "15,172",
            "25,523",
            "42",
            "6",
            "43"
        ]
    );
    let v = json_stdout(&run_perft(&["count", "4", "kiwipete", "--stats", "--json"]));
    assert_eq!(v["nodes"], 4_085_603);
    assert_eq!(v["table_used"], false);
    let expected = [
        ("captures", 757_163),
        ("en_passant", 1_929),
        ("castles", 128_013),
        ("promotions", 15_172),
        ("checks", 25_523),
        ("discovered_checks", 42),
        ("double_checks", 6),
        ("checkmates", 43),
    ];
    let stats = v["stats"].as_object().unwrap();
    assert_eq!(stats.len(), 16, "{stats:?}");
    for (name, n) in expected {
        assert_eq!(stats[name], n, "{name}");
        assert_eq!(stats[&format!("{name}_str")], n.to_string(), "{name}");
    }
    // Without --stats: no stats object.
    let v = json_stdout(&run_perft(&["count", "2", "--json"]));
    assert!(v.get("stats").is_none());
}

#[test]
fn divide_stats_gives_each_move_its_breakdown() {
    let v = json_stdout(&run_perft(&[
        "divide", "3", "kiwipete", "--stats", "--json",
    ]));
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 48);
    let sum = |name: &str| -> u64 {
        moves
            .iter()
            .map(|m| m["stats"][name].as_u64().unwrap())
            .sum()
    };
    // Kiwipete D3 (published): 17,102 captures, 45 e.p., 3,162 castles, 993 checks, 1 mate.
    assert_eq!(sum("captures"), 17_102);
    assert_eq!(v["stats"]["captures"], 17_102);
    assert_eq!(sum("en_passant"), 45);
    assert_eq!(sum("castles"), 3_162);
    assert_eq!(sum("checks"), 993);
    assert_eq!(sum("checkmates"), 1);
    let text = stdout(&run_perft(&["divide", "1", "cpw3", "--stats"]));
    // b4f4 captures with check; g2g3 checks.
    let line = |mv: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.starts_with(mv))
            .unwrap_or_else(|| panic!("{text}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        line("b4f4")[1..],
        ["1", "1", "0", "0", "0", "1", "0", "0", "0"]
    );
    assert_eq!(
        line("g2g3")[1..],
        ["1", "0", "0", "0", "0", "1", "0", "0", "0"]
    );
    assert!(text.contains("Nodes searched: 14"), "{text}");
}

#[test]
fn stats_with_a_perft_table_size_is_refused() {
    let out = run_perft(&["count", "3", "--stats", "--hash", "64MiB"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("--stats uses no perft table"), "{err}");
    assert!(out.stdout.is_empty());
    // `--hash none` is fine.
    let out = run_perft(&["count", "3", "--stats", "--hash", "none"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn suite_checks_published_statistics_only_with_stats() {
    let standard = std::fs::read_to_string(repo_path("positions/standard.epd")).unwrap();
    let kiwipete = standard.lines().nth(1).unwrap();
    let bad = kiwipete.replacen(";D3checks 993", ";D3checks 994", 1);
    assert_ne!(bad, kiwipete);
    let path = write_temp("stats-bad.epd", &format!("{bad}\n"));
    let path = path.to_str().unwrap();
    // Without --stats the figures are read, not checked: the counts pass.
    let out = run_perft(&["suite", path, "--max-depth", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("statistics not checked (add --stats)"));
    // With --stats the wrong figure fails, named in the text and the JSON.
    let out = run_perft(&["suite", path, "--max-depth", "3", "--stats"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("D3  checks expected 994  got 993"), "{text}");
    let v = json_stdout(&run_perft(&[
        "suite",
        path,
        "--max-depth",
        "3",
        "--stats",
        "--json",
    ]));
    assert_eq!(v["summary"]["stats_failed"], 1);
    let checks = v["positions"][0]["checks"].as_array().unwrap();
    let d3 = &checks[2]["stats"];
    let failed: Vec<_> = d3
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["pass"] == false)
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["field"], "checks");
    assert_eq!(failed[0]["got"], 993);
    // The published file passes with --stats.
    let out = run_perft(&[
        "suite",
        repo_path("positions/standard.epd").to_str().unwrap(),
        "--max-nodes",
        "5000000",
        "--stats",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let v = json_stdout(&out);
    assert!(v["summary"]["stats_checked"].as_u64().unwrap() > 100);
    assert_eq!(v["summary"]["stats_failed"], 0);
}

#[test]
fn malformed_statistics_opcodes_are_clear_errors() {
    let fen = "8/8/8/8/8/8/8/K6k w - -";
    for (ops, message) in [
        (";D1 3 ;D1foo 0", "bad perft statistic 'D1foo 0'"),
        (";D1 3 ;D1cap x", "bad perft statistic 'D1cap x'"),
        (";D1 3 ;D1cap", "bad perft statistic 'D1cap'"),
        (";D1 3 ;D1cap 0 ;D1cap 0", "statistic D1cap is given twice"),
        (";D1 3 ;D2mates 0", "statistic D2mates needs the node count"),
    ] {
        let path = write_temp("stats-malformed.epd", &format!("{fen} {ops}\n"));
        let out = run_perft(&["suite", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{ops}");
        let err = stderr(&out);
        assert!(err.contains(message), "{ops}: {err}");
        assert!(err.contains("stats-malformed.epd:1:"), "{ops}: {err}");
        assert_eq!(err.lines().count(), 1, "{ops}: {err}");
    }
}

#[test]
fn bench_stats_keeps_the_signature_and_classifies_each_position() {
    let plain = json_stdout(&run_perft(&["bench", "--max-depth", "3", "--json"]));
    let out = run_perft(&["bench", "--max-depth", "3", "--stats", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json_stdout(&out);
    assert_eq!(v["signature"], plain["signature"]);
    let run = &v["runs"][0];
    assert_eq!(run["leaf_stats"], true);
    // Kiwipete D3 (published): 17,102 captures, 3,162 castles, 993 checks.
    let kiwipete = &run["positions"][1];
    assert_eq!(kiwipete["id"], "kiwipete");
    assert_eq!(kiwipete["stats"]["captures"], 17_102);
    assert_eq!(kiwipete["stats"]["castles"], 3_162);
    assert_eq!(kiwipete["stats"]["checks"], 993);
    let out = run_perft(&["bench", "--stats", "--hash", "16MiB"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--stats uses no perft table"));
}
