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
