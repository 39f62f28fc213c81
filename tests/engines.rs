//! Reading engines' divide output: scripted fake UCI engines (small shell
//! scripts written here) print the formats engines really use, and
//! `perft compare` must read each one right, quote an unreadable line
//! (exit 2), and never wait out `--engine-timeout` for a missing total.
//!
//! The counts the scripts print are Stockfish's (`go perft 2` on the start
//! position: 20 replies after each of the 20 first moves, 400 in all; `go
//! perft 1` on `k7/4P3/8/8/8/8/8/K7 w - - 0 1`: 7 moves of 1).

use std::time::{Duration, Instant};

use crate::common::{run_perft, stderr, stdout, write_temp};

const START_MOVES: [&str; 20] = [
    "a2a3", "b2b3", "c2c3", "d2d3", "e2e3", "f2f3", "g2g3", "h2h3", "a2a4", "b2b4", "c2c4", "d2d4",
    "e2e4", "f2f4", "g2g4", "h2h4", "b1a3", "b1c3", "g1f3", "g1h3",
];

/// Writes a fake UCI engine: it answers `uci` and `isready`, prints `body`
/// for every `go perft`, and exits after it when `exit_after_go`. Returns
/// the `--engine` command.
fn fake_engine(name: &str, body: &str, exit_after_go: bool) -> String {
    let body_path = write_temp(&format!("{name}.out"), body);
    let after = if exit_after_go { "exit 0" } else { ":" };
    let script = format!(
        "#!/bin/sh\n\
         echo 'a fake engine banner'\n\
         while read -r line; do\n\
           case \"$line\" in\n\
             uci) echo 'id name fake'; echo uciok ;;\n\
             isready) echo readyok ;;\n\
             'go perft'*) cat '{}'; {after} ;;\n\
             quit) exit 0 ;;\n\
           esac\n\
         done\n",
        body_path.display()
    );
    let path = write_temp(&format!("{name}.sh"), &script);
    format!("sh {}", path.display())
}

/// The start position's depth-2 divide in `format` (`{m}` the move, `{n}`
/// its count), with chatter and blank lines, then `total` (if any).
fn start_divide(format: &str, total: Option<&str>) -> String {
    let mut s = String::from("info string hello from the engine\n\n");
    for m in START_MOVES {
        s.push_str(&format.replace("{m}", m).replace("{n}", "20"));
        s.push('\n');
    }
    s.push('\n');
    if let Some(t) = total {
        s.push_str(t);
        s.push('\n');
    }
    s
}

fn compare_agrees(engine: &str, depth: &str, position: &str) -> Duration {
    let start = Instant::now();
    let out = run_perft(&[
        "compare",
        depth,
        position,
        "--engine",
        engine,
        "--engine-timeout",
        "60",
    ]);
    let took = start.elapsed();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{engine}: {}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(stdout(&out).contains("AGREE"), "{}", stdout(&out));
    took
}

#[test]
fn every_move_line_format_and_total_is_read() {
    let formats = [
        "{m}: {n}",
        "{m} {n}",
        "{m} - {n}",
        "{m}: {n} (ms)",
        "{m}: {n} (12 ms)",
    ];
    let totals = [
        Some("Nodes searched: 400"),
        Some("Total nodes: 400"),
        Some("Total: 400"),
        Some("Nodes: 400"),
        None,
    ];
    for (i, format) in formats.iter().enumerate() {
        for (j, total) in totals.iter().enumerate() {
            // Every format with one total and every total with one format.
            if i != j && i != 0 && j != 0 {
                continue;
            }
            let engine = fake_engine(&format!("fmt{i}{j}"), &start_divide(format, *total), false);
            compare_agrees(&engine, "2", "startpos");
        }
    }
}

#[test]
fn promotions_are_read_in_either_case() {
    let body =
        "e7e8Q: 1\ne7e8R: 1\ne7e8b: 1\ne7e8N: 1\na1b1: 1\na1a2: 1\na1b2: 1\n\nNodes searched: 7\n";
    let engine = fake_engine("promo", body, false);
    compare_agrees(&engine, "1", "k7/4P3/8/8/8/8/8/K7 w - - 0 1");
}

#[test]
fn an_unreadable_move_line_is_a_protocol_error_quoting_it() {
    let body =
        start_divide("{m}: {n}", Some("Nodes searched: 400")).replace("e2e4: 20", "e2e4: twenty");
    let engine = fake_engine("garbled", &body, false);
    let out = run_perft(&["compare", "2", "--engine", &engine]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("'e2e4: twenty'"), "{err}");
    assert!(err.contains("unexpected line"), "{err}");
    assert!(!stdout(&out).contains("DIFFERENCE"), "{}", stdout(&out));
    // A promotion written the SAN way is not guessed at either.
    let engine = fake_engine("san-promo", "e7e8=Q: 1\n", false);
    let out = run_perft(&[
        "compare",
        "1",
        "k7/4P3/8/8/8/8/8/K7 w - - 0 1",
        "--engine",
        &engine,
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("'e7e8=Q: 1'"), "{}", stderr(&out));
}

#[test]
fn an_engine_omitting_its_total_is_decided_without_the_timeout() {
    // The whole compare (start-up, two engine processes' handshakes, one
    // divide) against --engine-timeout 60: well under the timeout means the
    // quiet-interval rule decided, not the timer.
    let engine = fake_engine("no-total", &start_divide("{m} {n}", None), false);
    let took = compare_agrees(&engine, "2", "startpos");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    // An engine that exits right after its move lines is decided on exit.
    let engine = fake_engine("exits", &start_divide("{m}: {n}", None), true);
    let took = compare_agrees(&engine, "2", "startpos");
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn a_total_that_is_not_the_sum_is_inconsistent_not_a_move_difference() {
    let engine = fake_engine(
        "badsum",
        &start_divide("{m}: {n}", Some("Total: 401")),
        false,
    );
    let out = run_perft(&["compare", "2", "--engine", &engine, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"], "inconsistent", "{v}");
}

/// `perft suite --engine`: the broken engine without en passant fails
/// exactly the lines of positions/standard.epd whose published counts
/// include an en-passant capture within 5,000,000 nodes, and each failure
/// is bisected to a position where the engine misses only en-passant
/// captures. Stockfish passes the same run.
#[test]
fn suite_with_an_engine_fails_the_right_lines_and_bisects_each_to_en_passant() {
    let engine = format!("{} --drop ep", crate::common::broken_engine());
    let file = crate::common::repo_path("positions/standard.epd");
    let file = file.to_str().unwrap();
    let out = run_perft(&[
        "suite",
        file,
        "--engine",
        &engine,
        "--max-nodes",
        "5000000",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["engine"], engine.as_str());
    let mut failed = Vec::new();
    for p in v["positions"].as_array().unwrap() {
        if p["status"] != "fail" {
            assert!(p["bisection"].is_null(), "{p}");
            continue;
        }
        failed.push(p["line"].as_u64().unwrap());
        let b = &p["bisection"];
        assert_eq!(b["verdict"], "moves_differ", "{p}");
        assert!(b["extra"].as_array().unwrap().is_empty(), "{p}");
        let at = perft::Position::from_fen(b["fen"].as_str().unwrap()).unwrap();
        let missing = b["missing"].as_array().unwrap();
        assert!(!missing.is_empty(), "{p}");
        for mv in missing {
            let mv = at.parse_uci(mv.as_str().unwrap()).expect("a legal move");
            assert_eq!(mv.kind(), perft::MoveKind::EnPassant, "{p}");
        }
    }
    // Lines 1-5 reach an en-passant capture within the limit; CPW 5 and 6
    // (lines 6 and 7) do not below D5.
    assert_eq!(failed, [1, 2, 3, 4, 5], "{v}");
    let text = stdout(&run_perft(&[
        "suite",
        file,
        "--engine",
        &engine,
        "--max-nodes",
        "5000000",
    ]));
    assert!(
        text.contains("bisect: the move lists differ after a2a4\n"),
        "{text}"
    );
    let stockfish = crate::common::stockfish_path();
    let out = run_perft(&[
        "suite",
        file,
        "--engine",
        &stockfish,
        "--max-nodes",
        "5000000",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(stdout(&out).ends_with("PASS\n"), "{}", stdout(&out));
}

/// `perft fuzz`: the engine without under-promotions is caught, bisected
/// and reduced to a position whose missing moves are exactly
/// under-promotions, with a `perft compare` command that shows it again.
#[test]
fn fuzz_finds_and_minimises_a_missing_under_promotion() {
    let engine = format!("{} --drop underpromotion", crate::common::broken_engine());
    let args = [
        "fuzz",
        "--engine",
        &engine,
        "--positions",
        "2000",
        "--depth",
        "3",
        "--seed",
        "1",
    ];
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let out = run_perft(&json_args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "fuzz");
    assert_eq!(v["result"], "moves_differ");
    let f = &v["failure"];
    let b = &f["bisection"];
    let at = perft::Position::from_fen(b["fen"].as_str().unwrap()).unwrap();
    let missing = b["missing"].as_array().unwrap();
    assert!(!missing.is_empty(), "{v}");
    for mv in missing {
        let mv = at.parse_uci(mv.as_str().unwrap()).expect("legal");
        assert!(
            mv.promotion().is_some_and(|p| p != perft::Piece::Queen),
            "{v}"
        );
    }
    assert!(b["extra"].as_array().unwrap().is_empty(), "{v}");
    assert!(v["positions_per_second"].as_f64().unwrap() > 0.0, "{v}");
    // The reproduction command shows the same difference.
    let repro = f["reproduce"].as_str().unwrap();
    assert!(repro.starts_with("perft compare 1 "), "{repro}");
    let words = perft::validate::engine::split_command(repro);
    let out = run_perft(&words[1..].iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(stdout(&out).contains("DIFFERENCE"), "{}", stdout(&out));
    // The same seed finds the same position, in text too.
    let text = stdout(&run_perft(&args));
    assert!(
        text.contains(&format!("root      {}\n", f["root_fen"].as_str().unwrap())),
        "{text}"
    );
}

/// A correct engine (the broken engine dropping nothing) and Stockfish
/// agree on every position, Chess960 ones included; exit code 0.
#[test]
fn fuzz_finds_nothing_in_a_correct_engine() {
    let fine = format!("{} --drop none", crate::common::broken_engine());
    let stockfish = crate::common::stockfish_path();
    for (engine, n) in [(fine.as_str(), "300"), (stockfish.as_str(), "300")] {
        let out = run_perft(&[
            "fuzz",
            "--engine",
            engine,
            "--positions",
            n,
            "--depth",
            "2",
            "--seed",
            "5",
            "--chess960",
            "--json",
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{engine}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["result"], "agree");
        assert_eq!(v["positions_tried"], 300);
    }
}
