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
