//! Defects a new user hit in a first tryout, one test each. Counts are
//! published ones: start position D1 20, D2 400, D3 8,902, D7 3,195,901,860
//! (positions/standard.epd).

use std::process::Command;

use crate::common::{perft_bin, repo_path, run_perft, run_perft_env, stderr, stdout, write_temp};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn exit_2_one_line(args: &[&str], needle: &str) {
    let out = run_perft(args);
    let err = stderr(&out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?}: {}{err}",
        stdout(&out)
    );
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
}

#[test]
fn a_suite_that_checks_nothing_says_so_and_exits_2() {
    let empty = write_temp("empty.epd", "");
    let comments = write_temp("comments.epd", "# nothing here\n\n# still nothing\n");
    let counts = write_temp("counts.epd", &format!("{START} ;D1 20 ;D2 400\n"));
    // An empty or comment-only file is refused when it is read.
    for file in [&empty, &comments] {
        exit_2_one_line(
            &["suite", file.to_str().unwrap()],
            "no positions (the file is empty or has only comments and blank lines)",
        );
    }
    exit_2_one_line(
        &["suite", counts.to_str().unwrap(), "--max-depth", "0"],
        "every count is beyond the limits (--max-depth 0",
    );
    exit_2_one_line(
        &["suite", counts.to_str().unwrap(), "--max-nodes", "10"],
        "every count is beyond the limits",
    );
    // Every count timed out: D7 cannot finish in 0.2 s on one thread.
    let deep = write_temp("deep.epd", &format!("{START} ;D7 3195901860\n"));
    let out = run_perft(&[
        "suite",
        deep.to_str().unwrap(),
        "--timeout",
        "0.2",
        "--threads",
        "1",
        "--no-hash",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("NOTHING VERIFIED"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("PASS"), "{}", stdout(&out));
}

#[test]
fn lines_without_counts_get_an_accurate_message_in_suite_and_bench() {
    let mates = repo_path("positions/mates.epd");
    exit_2_one_line(
        &["suite", mates.to_str().unwrap()],
        "none of its lines has perft counts",
    );
    exit_2_one_line(
        &["bench", "--file", mates.to_str().unwrap()],
        "no perft counts (;D1 20 ;D2 400 ...) on this line",
    );
    let mixed = write_temp(
        "mixed.epd",
        &format!("{START} ;D1 20\n8/8/8/8/8/8/8/K6k w - - bm Ka2\n"),
    );
    let out = run_perft(&["suite", mixed.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(":2  no perft counts (;D1 20 ;D2 400 ...) on this line"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_long_count_warns_with_its_estimate_first() {
    // Start position D11 is 2,097,651,003,696,806 leaves: days on any
    // machine. Stopped after 3 s (SIGINT, as Ctrl-C).
    let out = Command::new("timeout")
        .args(["--preserve-status", "-s", "INT", "3", perft_bin()])
        .args(["count", "11", "--threads", "1", "--no-hash"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let err = stderr(&out);
    let first = err.lines().next().unwrap_or("");
    assert!(
        first.starts_with("warning: depth 11 is at least about "),
        "{err}"
    );
    assert!(first.contains("days") || first.contains("years"), "{err}");
    // A short count gets no such warning.
    let out = run_perft(&["count", "5"]);
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn a_hash_smaller_than_one_bucket_exits_2() {
    for size in ["1B", "63B", "0.01KiB"] {
        for cmd in ["count", "divide"] {
            exit_2_one_line(
                &[cmd, "3", "--hash", size],
                "the smallest table is one 64-byte bucket",
            );
        }
        exit_2_one_line(
            &["uci", "--hash", size],
            "the smallest table is one 64-byte bucket",
        );
    }
    // One bucket is a table; the count stays exact.
    let out = run_perft(&["count", "3", "--hash", "64B", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 8902);
}

#[test]
fn hash_tt_and_uci_hash_share_one_size_grammar_and_one_memory_figure() {
    // The same spellings are accepted everywhere (MB decimal, MiB binary).
    for size in ["64MB", "64MiB", "1.5MiB", "64"] {
        let out = run_perft(&["count", "3", "--hash", size]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "--hash {size}: {}",
            stderr(&out)
        );
        let out = run_perft(&["search", "--depth", "1", "--tt", size]);
        assert_eq!(out.status.code(), Some(0), "--tt {size}: {}", stderr(&out));
    }
    // Too large: one figure, "of memory is available", in every message.
    let figure = "requested, but only ";
    exit_2_one_line(&["count", "3", "--hash", "100TiB"], figure);
    exit_2_one_line(&["search", "--depth", "1", "--tt", "100TiB"], figure);
    let out = run_perft_env(
        &["uci"],
        &[],
        Some("setoption name Hash value 100TiB\ngo depth 1\ngo depth 1\ngo perft 2\nquit\n"),
    );
    let text = stdout(&out);
    let errors: Vec<&str> = text.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 1, "{text}");
    assert!(
        errors[0]
            .starts_with("info string error: Hash: hash table of 100 TiB requested, but only ")
            && errors[0].contains("of memory is available; Hash stays 16 MiB"),
        "{text}"
    );
    assert_eq!(text.matches("bestmove").count(), 2, "{text}");
    assert!(text.contains("\nNodes searched: 400\n"), "{text}");
}

#[test]
fn clap_suggestions_and_valid_values_survive_the_one_line_error() {
    exit_2_one_line(
        &["count", "3", "--thread", "2"],
        "did you mean '--threads'?",
    );
    exit_2_one_line(
        &["compare", "2", "--engine", "x", "--engine-kind", "uic"],
        "valid values: uci, perftree",
    );
    exit_2_one_line(&["completions", "bsh"], "valid values: bash, zsh");
    exit_2_one_line(
        &["divide", "3", "startpos", "moves", "e2e4"],
        "moves are given with --moves, e.g. startpos --moves e2e4",
    );
    // A missing argument is named, not only implied by the usage line.
    exit_2_one_line(
        &["compare", "3"],
        "required arguments were not provided: --engine <COMMAND>;",
    );
    exit_2_one_line(
        &["suite", "x.epd", "--engine-kind", "perftree"],
        "required arguments were not provided: --engine <COMMAND>;",
    );
    exit_2_one_line(&["count"], "required arguments were not provided: <DEPTH>;");
}

#[test]
fn an_epd_with_d1_and_d3_is_not_shown_as_a_range() {
    let file = write_temp("d1d3.epd", &format!("{START} ;D1 20 ;D3 8902\n"));
    let out = run_perft(&["suite", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("  D1 D3  8,902  "),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("D1-3"), "{}", stdout(&out));
}

#[test]
fn one_is_singular_and_text_numbers_have_separators() {
    let file = write_temp("one.epd", &format!("{START} ;D1 20 ;D3 8902\n"));
    let out = run_perft(&["suite", file.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(
        text.contains("\n1 position checked, 0 failed; 2 counts checked"),
        "{text}"
    );
    assert!(text.contains("8,922 nodes"), "{text}");
    let out = run_perft(&["count", "5", "--threads", "1", "--no-hash"]);
    let text = stdout(&out);
    assert!(text.contains(", 1 thread, no hash table"), "{text}");
    // No number of four or more digits without separators, FENs aside.
    for line in text.lines().filter(|l| !l.starts_with("position")) {
        let digits = line
            .split(|c: char| !c.is_ascii_digit())
            .map(str::len)
            .max()
            .unwrap_or(0);
        assert!(digits < 4, "{line}");
    }
}

#[test]
fn a_suite_failure_says_when_comparing_with_stockfish_helps() {
    let file = write_temp("wrong.epd", &format!("{START} ;D1 20 ;D3 8903\n"));
    let out = run_perft(&["suite", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("next: perft compare 3 "), "{text}");
    assert!(text.contains("if the EPD count is right"), "{text}");
    assert!(text.contains("the EPD count is wrong"), "{text}");
}

#[test]
fn every_count_in_json_has_its_str_twin_and_zobrist_seed_too() {
    let out = run_perft(&["count", "6", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["engine"]["zobrist_seed_str"].as_str().unwrap(),
        v["engine"]["zobrist_seed"].to_string()
    );
    for key in ["probes", "hits", "stores", "replacements", "rejected"] {
        assert_eq!(
            v["table"][format!("{key}_str")].as_str().unwrap(),
            v["table"][key].to_string(),
            "{key}"
        );
    }
    let file = write_temp("twins.epd", &format!("{START} ;D1 20 ;D2 400\n"));
    let out = run_perft(&["suite", file.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let check = &v["positions"][0]["checks"][1];
    assert_eq!(check["expected_str"], "400");
    assert_eq!(check["got_str"], "400");
    let out = run_perft(&["bench", "--max-depth", "1", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["runs"][0]["positions"][0]["expected_str"], "20");
}
