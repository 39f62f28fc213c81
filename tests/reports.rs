//! Reports of the built binary: the JSON schema of every `--json` command,
//! suite options (`--filter`, `--fail-fast`, `--timeout`), bench, help and
//! completions. Expected counts come from `positions/*.epd`.

use std::time::Instant;

use serde_json::Value;

use crate::common::{
    broken_engine, json_stdout, load, repo_path, run_perft, stderr, stdout, write_temp,
};

/// Checks the common header and the `*_str` twins of a report.
fn check_schema(v: &Value, kind: &str) {
    assert_eq!(v["schema_version"], 1, "{v}");
    assert_eq!(v["kind"], kind);
    let build = &v["build"];
    for key in ["version", "git", "profile", "slider_lookup", "cpu_path"] {
        assert!(build[key].is_string(), "build.{key}: {build}");
    }
    assert!(["portable", "popcnt", "bmi2"].contains(&build["cpu_path"].as_str().unwrap()));
    assert!(build["cpu_paths_supported"].is_array());
    assert!(build["target_features"].is_array());
    assert!(build["debug_assertions"].is_boolean());
    let machine = &v["machine"];
    assert!(machine["cpu"].is_string() && machine["os"].is_string());
    assert!(machine["logical_cpus"].as_u64().unwrap() >= 1);
    check_str_twins(v);
}

/// Every `X_str` field is the exact decimal string of the integer `X`.
fn check_str_twins(v: &Value) {
    match v {
        Value::Object(map) => {
            for (k, val) in map {
                if let Some(base) = k.strip_suffix("_str") {
                    let n = &map[base];
                    assert!(n.is_u64(), "{base} is not an integer: {n}");
                    assert_eq!(val.as_str().unwrap(), n.to_string(), "{k}");
                }
                check_str_twins(val);
            }
        }
        Value::Array(items) => items.iter().for_each(check_str_twins),
        _ => {}
    }
}

#[test]
fn every_json_report_parses_and_carries_the_schema() {
    let standard = repo_path("positions/standard.epd");
    let standard = standard.to_str().unwrap();
    let engine = format!("{} --drop none", broken_engine());
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["count", "3", "kiwipete", "--json"], "count"),
        (vec!["divide", "2", "cpw3", "--json"], "divide"),
        (
            vec!["suite", standard, "--max-depth", "2", "--json"],
            "suite",
        ),
        (vec!["bench", "--max-depth", "2", "--json"], "bench"),
        (vec!["count", "3", "kiwipete", "--stats", "--json"], "count"),
        (vec!["divide", "2", "cpw3", "--stats", "--json"], "divide"),
        (
            vec!["suite", standard, "--max-depth", "2", "--stats", "--json"],
            "suite",
        ),
        (
            vec!["bench", "--max-depth", "2", "--stats", "--json"],
            "bench",
        ),
        (
            vec!["compare", "2", "--engine", &engine, "--json"],
            "compare",
        ),
    ];
    for (args, kind) in cases {
        let out = run_perft(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let v = json_stdout(&out);
        check_schema(&v, kind);
        assert!(v["warnings"].is_array() || kind == "compare", "{args:?}");
        assert!(stdout(&out).ends_with("}\n"));
    }
}

#[test]
fn count_and_divide_json_values_match_the_published_counts() {
    // standard.epd line 3 (CPW position 3): D4 43238.
    let out = run_perft(&["count", "4", "cpw3", "--json"]);
    let v = json_stdout(&out);
    assert_eq!(v["nodes"], 43238);
    assert_eq!(v["complete"], true);
    assert_eq!(v["root_moves"], 14);
    assert_eq!(v["root_moves_done"], 14);
    let out = run_perft(&["divide", "3", "cpw3", "--json", "--threads", "1"]);
    let v = json_stdout(&out);
    assert_eq!(v["nodes"], 2812);
    assert_eq!(v["threads"], 1);
    let sum: u64 = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["nodes"].as_u64().unwrap())
        .sum();
    assert_eq!(sum, 2812);
}

#[test]
fn thread_lists_are_only_for_bench() {
    let out = run_perft(&["count", "3", "--threads", "1,2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("lists are for perft bench"));
    let out = run_perft(&["count", "3", "--threads", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("at least 1"), "{}", stderr(&out));
}

#[test]
fn bench_signature_is_the_sum_of_the_published_counts_for_any_thread_count() {
    // The bench's counts at --max-depth 3 are the D3 values of bench.epd.
    let records = load("bench");
    let want: u64 = records
        .iter()
        .map(|r| r.depths.iter().find(|&&(d, _)| d == 3).unwrap().1)
        .sum();
    let out = run_perft(&["bench", "--max-depth", "3", "--threads", "1,2", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json_stdout(&out);
    assert_eq!(v["signature"], want);
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["threads"], 1);
    assert_eq!(runs[1]["threads"], 2);
    for run in runs {
        assert_eq!(run["nodes"], want);
        assert_eq!(run["positions"].as_array().unwrap().len(), records.len());
        assert!(run["mnps"].as_f64().unwrap() > 0.0);
    }
    // Text: a table per run, the scaling table, the signature.
    let out = run_perft(&["bench", "--max-depth", "3", "--threads", "1,2"]);
    let text = stdout(&out);
    assert!(
        text.contains("threads 1, hash none; cpu path ")
            && text.contains("threads 2, hash none; cpu path "),
        "{text}"
    );
    assert!(text.contains("speedup"), "{text}");
    assert!(
        text.contains(&format!(
            "signature {} nodes",
            perft::report::thousands(want.into())
        )),
        "{text}"
    );
    // The full bench's documented signature: the sum of the deepest counts.
    let full: u64 = records.iter().map(|r| r.depths.last().unwrap().1).sum();
    assert_eq!(
        full, 4_755_977_578,
        "positions/bench.epd changed: update README"
    );
}

/// The deep depth set: the same positions as the standard one, each at
/// least as deep, its documented signature the sum of its deepest counts;
/// chosen by the highest thread count unless `--depth-set` says otherwise.
#[test]
fn the_bench_depth_set_follows_the_highest_thread_count_and_has_its_own_signature() {
    let standard = load("bench");
    let deep = load("bench-deep");
    assert_eq!(standard.len(), deep.len());
    for (s, d) in standard.iter().zip(&deep) {
        assert_eq!(s.fen_text, d.fen_text);
        assert_eq!(s.id, d.id);
        // Every count the standard line gives, the deep line gives alike.
        assert!(s.depths.iter().all(|c| d.depths.contains(c)), "{:?}", s.id);
        assert!(d.depths.last().unwrap().0 > s.depths.last().unwrap().0);
    }
    let full: u64 = deep.iter().map(|r| r.depths.last().unwrap().1).sum();
    assert_eq!(
        full, 139_265_939_778,
        "positions/bench-deep.epd changed: update its header and docs"
    );
    let set = |args: &[&str]| {
        let out = run_perft(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let v = json_stdout(&out);
        (
            v["depth_set"].as_str().unwrap().to_string(),
            v["file"].as_str().unwrap().to_string(),
        )
    };
    let base = ["bench", "--max-depth", "2", "--json", "--threads"];
    let standard_set = (
        "standard".to_string(),
        "positions/bench.epd (built in)".to_string(),
    );
    let deep_set = (
        "deep".to_string(),
        "positions/bench-deep.epd (built in)".to_string(),
    );
    assert_eq!(set(&[&base[..], &["1,2"]].concat()), standard_set);
    assert_eq!(set(&[&base[..], &["1,3"]].concat()), deep_set);
    assert_eq!(
        set(&[&base[..], &["1,3", "--depth-set", "standard"]].concat()),
        standard_set
    );
    assert_eq!(
        set(&[&base[..], &["1", "--depth-set", "deep"]].concat()),
        deep_set
    );
    // A file of one's own has no depth set.
    let file = crate::common::repo_path("positions/bench.epd");
    let out = run_perft(&[
        "bench",
        "--max-depth",
        "2",
        "--json",
        "--file",
        file.to_str().unwrap(),
    ]);
    assert!(json_stdout(&out)["depth_set"].is_null());
}

#[test]
fn suite_filter_selects_by_id_or_substring_and_rejects_unmatched_filters() {
    let tricky = repo_path("positions/tricky.epd");
    let tricky = tricky.to_str().unwrap();
    let out = run_perft(&["suite", tricky, "--filter", "3k4/3p4/8/K1P4r", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json_stdout(&out);
    let positions = v["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 1);
    assert_eq!(positions[0]["line"], 4);
    // A filter on file:line.
    let out = run_perft(&[
        "suite",
        tricky,
        "--filter",
        "tricky.epd:6",
        "--max-depth",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out).lines().filter(|l| l.starts_with("ok")).count(),
        1
    );
    // An id from an EPD `id` operation.
    let path = write_temp(
        "ids.epd",
        "8/8/8/8/8/8/8/K6k w - - ;D1 3 ;id \"corner\"\n8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - ;D1 14 ;id \"cpw3\"\n",
    );
    let out = run_perft(&[
        "suite",
        path.to_str().unwrap(),
        "--filter",
        "cpw3",
        "--json",
    ]);
    let v = json_stdout(&out);
    assert_eq!(v["positions"].as_array().unwrap().len(), 1);
    assert_eq!(v["positions"][0]["id"], "cpw3");
    let out = run_perft(&["suite", tricky, "--filter", "no such thing"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--filter 'no such thing' matches no position"));
    assert!(out.stdout.is_empty());
}

#[test]
fn a_failing_position_prints_the_compare_command_and_fail_fast_stops() {
    // Two published positions with one count changed in the first.
    let standard = std::fs::read_to_string(repo_path("positions/standard.epd")).unwrap();
    let lines: Vec<&str> = standard.lines().collect();
    let bad = lines[2].replacen(";D3 2812", ";D3 2813", 1);
    assert_ne!(bad, lines[2]);
    let path = write_temp("failfast.epd", &format!("{bad}\n{}\n", lines[3]));
    let path = path.to_str().unwrap();
    let out = run_perft(&["suite", path, "--max-depth", "4", "--fail-fast"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let fen = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
    let command = format!("perft compare 3 '{fen}' --engine stockfish");
    assert!(text.contains(&format!("next: {command}")), "{text}");
    assert!(text.contains("1 not run (--fail-fast)"), "{text}");
    assert!(!text.contains("failfast.epd:2"), "{text}");
    // Without --fail-fast the second position runs.
    let out = run_perft(&["suite", path, "--max-depth", "4", "--json"]);
    let v = json_stdout(&out);
    assert_eq!(v["positions"][0]["status"], "fail");
    assert_eq!(v["positions"][0]["bisect"], command);
    assert_eq!(v["positions"][1]["status"], "pass");
    // The printed command runs: Stockfish agrees with us (the file was wrong).
    let out = run_perft(&["compare", "3", fen, "--engine", "stockfish"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn suite_timeout_really_stops_the_count_and_the_run_goes_on() {
    // standard.epd line 1 asks for D1..D13; with no node limit and no perft
    // table D7 alone is 3.2e9 counted leaves (seconds to minutes), so a
    // 0.5 s timeout must cut it.
    let standard = repo_path("positions/standard.epd");
    let start = Instant::now();
    let out = run_perft(&[
        "suite",
        standard.to_str().unwrap(),
        "--filter",
        "standard.epd:1",
        "--filter",
        "standard.epd:3",
        "--max-nodes",
        "0",
        "--max-depth",
        "9",
        "--timeout",
        "0.5",
        "--no-hash",
        "--json",
    ]);
    let elapsed = start.elapsed().as_secs_f64();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(elapsed < 10.0, "took {elapsed:.1} s");
    let v = json_stdout(&out);
    let positions = v["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 2);
    for p in positions {
        assert_eq!(p["status"], "timeout", "{p}");
        assert!(p["stopped_at_depth"].as_u64().unwrap() >= 5, "{p}");
        for c in p["checks"].as_array().unwrap() {
            assert_eq!(c["pass"], true);
        }
    }
    assert_eq!(v["summary"]["positions_timed_out"], 2);
    let out = run_perft(&["suite", "x.epd", "--timeout", "-1"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn every_subcommand_has_help_with_examples_and_completions_work() {
    for sub in [
        "count",
        "divide",
        "suite",
        "compare",
        "perftree",
        "uci",
        "bench",
        "completions",
    ] {
        let out = run_perft(&[sub, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{sub}");
        assert!(
            stdout(&out).contains("Examples:"),
            "{sub}: {}",
            stdout(&out)
        );
    }
    for (shell, marker) in [
        ("bash", "_perft()"),
        ("zsh", "#compdef perft"),
        ("fish", "complete -c perft"),
    ] {
        let out = run_perft(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0));
        let text = stdout(&out);
        assert!(text.contains(marker), "{shell}");
        assert!(
            text.contains("compare") && text.contains("perftree"),
            "{shell}"
        );
    }
    let out = run_perft(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run_perft(&["--version"]);
    let text = stdout(&out);
    assert!(
        text.starts_with("perft 0.")
            && text.contains("[cpu path: ")
            && text.contains("sliders); build features: "),
        "{text}"
    );
}
