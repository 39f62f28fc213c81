//! Trust: game-impossible positions warn, hostile input is bounded, runs
//! stop at --max-time, table collisions are caught.

use crate::common::{json_stdout, run_perft, stderr, stdout};

/// Game-impossible positions: count with its Stockfish `go perft 3` figure,
/// the warning kind in JSON, and the warning on stderr.
const ODDITIES: [(&str, &str, u64); 3] = [
    // Stockfish 15.1 `go perft 3`: 208.
    (
        "4k3/8/8/8/1b6/8/2n1r3/4K3 w - - 0 1",
        "three_or_more_checkers",
        208,
    ),
    // Stockfish 15.1 `go perft 3`: 405.
    ("4k3/8/8/8/8/8/8/r3K2r w - - 0 1", "aligned_checkers", 405),
    // Stockfish 15.1 `go perft 3`: 383.
    (
        "k3r3/8/8/2pP4/8/8/8/4K3 w - c6 0 1",
        "check_contradicts_en_passant",
        383,
    ),
];

fn oddity_case(index: usize) {
    let (fen, kind, nodes) = ODDITIES[index];
    let out = run_perft(&["count", "3", fen, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json = json_stdout(&out);
    assert_eq!(json["nodes"], nodes, "{fen}");
    let kinds: Vec<&str> = json["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, [kind], "{fen}");
    let text = run_perft(&["divide", "3", fen]);
    assert_eq!(text.status.code(), Some(0));
    let err = stderr(&text);
    assert!(
        err.contains("warning:") && err.contains("no game reaches this position"),
        "{err}"
    );
    assert!(stdout(&text).contains(&format!("Nodes searched: {nodes}")));
}

#[test]
fn three_checkers_count_with_a_named_warning() {
    oddity_case(0);
}

#[test]
fn aligned_checkers_count_with_a_named_warning() {
    oddity_case(1);
}

#[test]
fn check_contradicting_the_en_passant_square_counts_with_a_named_warning() {
    oddity_case(2);
}

#[test]
fn suite_warns_about_game_impossible_lines_by_place() {
    let path = crate::common::write_temp(
        "oddities.epd",
        "4k3/8/8/8/8/8/8/r3K2r w - - 0 1 ;D3 405\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D2 400\n",
    );
    let file = path.display().to_string();
    let out = run_perft(&["suite", &file, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json = json_stdout(&out);
    let warnings = json["warnings"].as_array().unwrap();
    let odd: Vec<&serde_json::Value> = warnings
        .iter()
        .filter(|w| w["kind"] == "aligned_checkers")
        .collect();
    assert_eq!(odd.len(), 1, "{warnings:?}");
    assert!(
        odd[0]["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{file}:1: ")),
        "{odd:?}"
    );
}

#[test]
fn game_positions_have_no_oddity_warning() {
    let out = run_perft(&["count", "3", "kiwipete", "--json"]);
    let json = json_stdout(&out);
    assert!(
        json["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| !w["message"].as_str().unwrap().contains("no game reaches")),
        "{json}"
    );
}

/// Runs `perft ARGS` and returns the single stderr line of an exit-2 error.
fn one_line_error(args: &[&str]) -> String {
    let out = run_perft(args);
    assert_eq!(out.status.code(), Some(2), "{args:.80?}: {}", stderr(&out));
    assert!(out.stdout.is_empty(), "stdout: {}", stdout(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err:.400}");
    assert!(err.starts_with("error: "), "{err:.400}");
    assert!(err.len() < 400, "error of {} bytes: {err:.400}", err.len());
    err
}

#[test]
fn a_huge_unknown_position_argument_is_quoted_up_to_a_fixed_length() {
    let arg = "x".repeat(98_000);
    let err = one_line_error(&["count", "1", &arg]);
    assert!(
        err.contains("unknown position") && err.contains("(98000 characters)"),
        "{err}"
    );
    let err = one_line_error(&["count", "1", "startpos", "--moves", &"e".repeat(5_000)]);
    assert!(err.contains("(5000 characters)"), "{err}");
    let board = "8/".repeat(50_000);
    let err = one_line_error(&["divide", "1", &board, "w", "-", "-"]);
    assert!(err.contains("invalid FEN"), "{err}");
}

#[test]
fn a_megabyte_epd_line_is_one_error_line() {
    let path = crate::common::write_temp(
        "huge-line.epd",
        &format!("{} ;D1 20\n", "x".repeat(3_000_000)),
    );
    let err = one_line_error(&["suite", &path.display().to_string()]);
    assert!(
        err.contains(":1: line of 3000007 bytes is too long"),
        "{err}"
    );
}

#[test]
fn a_binary_epd_file_is_one_error_line() {
    let path = crate::common::write_temp("binary.epd", "");
    std::fs::write(&path, [0x7f, b'E', b'L', b'F', 0, 0, 0xff, 0xfe]).unwrap();
    let err = one_line_error(&["suite", &path.display().to_string()]);
    assert!(
        err.contains("not a text file (binary data at byte 4)"),
        "{err}"
    );
    std::fs::write(&path, [b'8', b'/', 0xc3, 0x28]).unwrap();
    let err = one_line_error(&["suite", &path.display().to_string()]);
    assert!(
        err.contains("not a text file (binary data at byte 2)"),
        "{err}"
    );
}

#[test]
fn a_directory_as_epd_file_is_one_error_line() {
    let dir = crate::common::write_temp("dir-probe.epd", "")
        .parent()
        .unwrap()
        .to_path_buf();
    let err = one_line_error(&["suite", &dir.display().to_string()]);
    assert!(err.contains("is a directory, not an EPD file"), "{err}");
}

#[test]
fn an_empty_or_comment_only_epd_file_is_one_error_line() {
    for (name, text) in [("empty.epd", ""), ("comments.epd", "# nothing\n\n   \n")] {
        let path = crate::common::write_temp(name, text);
        let err = one_line_error(&["suite", &path.display().to_string()]);
        assert!(err.contains("no positions (the file is empty"), "{err}");
    }
}

#[test]
fn unreadable_and_missing_epd_files_are_one_error_line() {
    // /proc/self/mem exists but reading it from offset 0 fails (EIO), for
    // root too (a mode-000 file would not stop root).
    let err = one_line_error(&["suite", "/proc/self/mem"]);
    assert!(err.contains("cannot read: Input/output error"), "{err}");
    let err = one_line_error(&["suite", "/nonexistent/suite.epd"]);
    assert!(
        err.contains("cannot read: No such file or directory"),
        "{err}"
    );
    // A device that never ends is refused after the size limit.
    let err = one_line_error(&["suite", "/dev/zero"]);
    assert!(err.contains("larger than 256 MiB"), "{err}");
}

#[test]
fn depths_above_the_maximum_are_refused_not_overflowing_the_stack() {
    // Depth 1,000 overflowed the worker stack (abort) before the bound.
    let err = one_line_error(&["count", "1000"]);
    assert!(err.contains("1000"), "{err}");
    let path = crate::common::write_temp("deep.epd", "8/8/8/8/8/8/8/K6k w - - ;D65 1\n");
    let err = one_line_error(&["suite", &path.display().to_string()]);
    assert!(err.contains("bad perft operation 'D65 1'"), "{err}");
    let out = crate::common::run_perft_env(&["uci"], &[], Some("go perft 1000\nquit\n"));
    assert!(
        stdout(&out).contains("above the maximum 64"),
        "{}",
        stdout(&out)
    );
}

/// Published (CPW): perft 8 of the start position.
const START_D8: u64 = 84_998_978_956;
/// Published (CPW): Kiwipete perft 5.
const KIWIPETE_D5: u64 = 193_690_690;

#[test]
fn count_and_divide_stop_at_max_time_with_marked_partial_results() {
    for command in ["count", "divide"] {
        let started = std::time::Instant::now();
        let out = run_perft(&[
            command,
            "8",
            "--no-hash",
            "--threads",
            "1",
            "--max-time",
            "0.5",
            "--json",
        ]);
        // Perft 8 takes minutes on one thread without a table: the limit,
        // not the count, ended this run (a loose bound, not a speed test).
        assert!(started.elapsed().as_secs() < 30, "{command} ran on");
        assert_eq!(out.status.code(), Some(124), "{}", stderr(&out));
        let v = json_stdout(&out);
        assert_eq!(v["complete"], false);
        assert_eq!(v["stopped_by"], "max_time");
        let nodes: u64 = v["nodes_str"].as_str().unwrap().parse().unwrap();
        assert!(nodes < START_D8, "{nodes}");
        assert!(v["warnings"].as_array().unwrap().iter().any(
            |w| w["kind"] == "partial" && w["message"].as_str().unwrap().contains("--max-time")
        ));
        assert!(
            stderr(&out).contains("stopped by --max-time"),
            "{}",
            stderr(&out)
        );
    }
    // The text divide names the stop and prints no total a tool could take.
    let out = run_perft(&[
        "divide",
        "8",
        "--no-hash",
        "--threads",
        "1",
        "--max-time",
        "0.3",
    ]);
    assert_eq!(out.status.code(), Some(124));
    let text = stdout(&out);
    assert!(text.contains("PARTIAL: stopped by --max-time"), "{text}");
    assert!(!text.contains("Nodes searched"), "{text}");
}

#[test]
fn suite_stops_at_max_time_and_lists_the_rest_as_not_run() {
    let standard = crate::common::repo_path("positions/standard.epd");
    let out = run_perft(&[
        "suite",
        standard.to_str().unwrap(),
        "--threads",
        "1",
        "--no-hash",
        "--max-time",
        "0.5",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(124), "{}", stderr(&out));
    let v = json_stdout(&out);
    assert_eq!(v["complete"], false);
    assert_eq!(v["stopped_by"], "max_time");
    assert_eq!(v["max_time"], 0.5);
    let positions = v["positions"].as_array().unwrap();
    assert_eq!(positions.last().unwrap()["status"], "max_time");
    assert!(v["summary"]["positions_not_run"].as_u64().unwrap() > 0);
    // Counts finished before the limit were checked, and passed.
    assert_eq!(v["summary"]["counts_failed"], 0);
    let text = stdout(&run_perft(&[
        "suite",
        standard.to_str().unwrap(),
        "--threads",
        "1",
        "--max-time",
        "0.5",
    ]));
    assert!(text.contains("STOPPED BY --max-time"), "{text}");
    assert!(text.contains("not run (--max-time)"), "{text}");
}

#[test]
fn a_tiny_table_key_makes_false_hits_and_verify_table_catches_them() {
    let base = [
        "count",
        "5",
        "kiwipete",
        "--hash",
        "1MiB",
        "--min-hash-depth",
        "1",
        "--threads",
        "1",
        "--json",
    ];
    // 16 key bits: positions that share them share entries, so the count
    // is wrong (the published figure is 193,690,690).
    let tiny = [&base[..], &["--table-key-bits", "16"]].concat();
    let v = json_stdout(&run_perft(&tiny));
    let wrong: u64 = v["nodes_str"].as_str().unwrap().parse().unwrap();
    assert_ne!(wrong, KIWIPETE_D5, "16-bit keys should collide");
    // --verify-table runs again with independent keys: the runs disagree.
    let out = run_perft(&[&tiny[..], &["--verify-table"]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json_stdout(&out);
    assert_eq!(v["table_check"]["agrees"], false);
    assert!(
        !v["table_check"]["differing_moves"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let as_text: Vec<&str> = tiny.iter().copied().filter(|a| *a != "--json").collect();
    let text = stdout(&run_perft(&[&as_text[..], &["--verify-table"]].concat()));
    assert!(text.contains("TABLE COLLISION"), "{text}");
    assert!(text.contains("--no-hash"), "{text}");
    // Full keys: the count is the published one and the second run agrees.
    let out = run_perft(&[&base[..], &["--verify-table"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json_stdout(&out);
    assert_eq!(v["nodes_str"], KIWIPETE_D5.to_string());
    assert_eq!(v["table_check"]["agrees"], true);
    assert_eq!(v["table_check"]["nodes_str"], KIWIPETE_D5.to_string());
    assert_ne!(
        v["table_check"]["zobrist_seed"],
        v["engine"]["zobrist_seed"]
    );
}

#[test]
fn verify_table_without_a_table_says_so_and_refuses_no_hash() {
    // Depth 4 uses no table by default: nothing can collide.
    let out = run_perft(&["count", "4", "--verify-table", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_stdout(&out);
    assert_eq!(v["table_check"], serde_json::Value::Null);
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["kind"] == "nothing_to_verify")
    );
    let out = run_perft(&["count", "4", "--verify-table", "--no-hash"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--no-hash"), "{}", stderr(&out));
}
