//! The built binary: output formats and exit codes.

use crate::common::{repo_path, run_perft, stderr, stdout, write_temp};

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", stdout(out)))
}

#[test]
fn divide_prints_stockfish_format() {
    let out = run_perft(&["divide", "5"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    // 20 moves, a blank line, the total (CPW: perft 5 = 4,865,609).
    assert_eq!(lines.len(), 22, "{text}");
    for line in &lines[..20] {
        let (mv, n) = line
            .split_once(": ")
            .unwrap_or_else(|| panic!("bad line {line:?}"));
        assert!(perft::validate::engine::is_uci_move(mv), "{line}");
        assert!(n.bytes().all(|b| b.is_ascii_digit()), "{line}");
    }
    assert_eq!(lines[20], "");
    assert_eq!(lines[21], "Nodes searched: 4865609");
    assert!(text.ends_with('\n'));
}

#[test]
fn count_json_has_the_required_fields() {
    let out = run_perft(&["count", "4", "kiwipete", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["nodes"], 4_085_603); // CPW position 2, depth 4
    assert_eq!(v["nodes_str"], "4085603");
    assert_eq!(v["depth"], 4);
    assert!(v["fen"].as_str().unwrap().starts_with("r3k2r/p1ppqpb1"));
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    assert!(v["nps"].as_f64().is_some());
}

#[test]
fn count_zero_is_one_and_text_uses_thousands_separators() {
    let out = run_perft(&["count", "0"]);
    assert!(stdout(&out).contains("nodes     1\n"), "{}", stdout(&out));
    let out = run_perft(&["count", "5"]);
    assert!(stdout(&out).contains("4,865,609"), "{}", stdout(&out));
}

#[test]
fn divide_json_lists_every_move() {
    let out = run_perft(&["divide", "3", "kiwipete", "--json"]);
    let v = json(&out);
    assert_eq!(v["moves"].as_array().unwrap().len(), 48);
    assert_eq!(v["nodes"], 97_862);
}

#[test]
fn chess960_divide_writes_castling_as_king_takes_rook() {
    let out = run_perft(&[
        "divide",
        "1",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "--chess960",
    ]);
    let text = stdout(&out);
    assert!(
        text.contains("e1h1: 1") && text.contains("e1a1: 1"),
        "{text}"
    );
    let out = run_perft(&[
        "divide",
        "1",
        "r3k2r/8/8/8/8/8/8/R3K2R",
        "w",
        "KQkq",
        "-",
        "0",
        "1",
    ]);
    let text = stdout(&out);
    assert!(
        text.contains("e1g1: 1") && text.contains("e1c1: 1"),
        "{text}"
    );
    assert!(text.ends_with("Nodes searched: 26\n"), "{text}");
}

#[test]
fn suite_passes_and_a_changed_count_exits_1_naming_the_line() {
    let good = repo_path("positions/standard.epd");
    let out = run_perft(&["suite", good.to_str().unwrap(), "--max-nodes", "1000000"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).trim_end().ends_with("PASS"));

    let text = std::fs::read_to_string(&good).unwrap();
    let changed = text.replacen(";D3 97862", ";D3 97863", 1);
    assert_ne!(changed, text);
    let path = write_temp("changed.epd", &changed);
    let out = run_perft(&["suite", path.to_str().unwrap(), "--max-nodes", "1000000"]);
    assert_eq!(out.status.code(), Some(1));
    let report = stdout(&out);
    assert!(
        report.contains("FAIL  ")
            && report.contains("changed.epd:2  D3  expected 97,863  got 97,862"),
        "{report}"
    );
}

#[test]
fn suite_json_reports_every_position() {
    let good = repo_path("positions/tricky.epd");
    let out = run_perft(&[
        "suite",
        good.to_str().unwrap(),
        "--max-depth",
        "2",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["kind"], "suite");
    assert_eq!(v["positions"].as_array().unwrap().len(), 49);
    assert_eq!(v["summary"]["counts_failed"], 0);
}

#[test]
fn malformed_suite_line_exits_2_with_file_and_line() {
    let path = write_temp(
        "bad.epd",
        "8/8/8/8/8/8/8/K6k w - - ;D1 3\n8/8/8/8/8/8/8/K6k w - - ;D1 three\n",
    );
    let out = run_perft(&["suite", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("bad.epd:2:") && err.contains("D1 three"),
        "{err}"
    );
    let out = run_perft(&["suite", "no/such/file.epd"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no/such/file.epd"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["count", "x"][..],
        &["count", "-1"],
        &["count", "3", "notaposition"],
        &["count", "3", ""],
        &["count", "3", "--moves", "e2e5"],
        &["count", "3", "--moves", "e2e4", "e2e4"],
        &["divide", "0"],
        &["suite"],
        &["frobnicate"],
        &["count", "3", "--bogus-flag"],
    ] {
        let out = run_perft(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        // One clear line, argument-parser errors included.
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!err.contains("panicked"));
    }
    let err = stderr(&run_perft(&["count", "3", "--bogus-flag"]));
    assert!(
        err.contains("'--bogus-flag'") && err.contains("usage: perft count <DEPTH>"),
        "{err}"
    );
}

/// A thread count beyond the driver's bound is refused at once (exit 2)
/// instead of spending minutes starting OS threads; `perft bench` refuses a
/// list with such a value before its first run.
#[test]
fn thread_count_above_the_bound_exits_2_at_once() {
    let start = std::time::Instant::now();
    for args in [
        &["count", "3", "--threads", "100000"][..],
        &["bench", "--max-depth", "1", "--threads", "1,100000"],
    ] {
        let out = run_perft(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(
            err.starts_with("error: --threads 100000: at most 1024") && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
}

#[test]
fn illegal_move_error_names_the_move_and_position() {
    let out = run_perft(&["count", "2", "--moves", "e2e4", "e2e4"]);
    let err = stderr(&out);
    assert!(
        err.contains("move 2 'e2e4'") && err.contains(" b KQkq"),
        "{err}"
    );
}

/// A perft table the machine cannot hold is refused before anything runs:
/// exit 2, one line naming the size and the memory available, no abort and
/// no OOM kill.
#[test]
fn a_hash_size_beyond_memory_exits_2_with_a_clear_message() {
    for args in [
        &["count", "7", "--hash", "100TiB"][..],
        &["divide", "7", "--hash", "100TiB"],
        &["bench", "--hash", "100TiB"],
    ] {
        let out = run_perft(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("error: hash table of 100 TiB requested, but only ")
                && err.trim_end().ends_with("of memory is available"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = run_perft(&["count", "3", "--hash", "12XB"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown unit 'XB'"),
        "{}",
        stderr(&out)
    );
}

/// Runs the binary with `PERFT_CPU` set.
fn run_perft_cpu(cpu: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("PERFT_CPU", cpu)
        .output()
        .expect("run perft binary")
}

#[test]
fn perft_cpu_selects_the_path_and_the_suites_pass_on_every_supported_one() {
    use perft::chess::cpu::CpuPath;
    let supported = CpuPath::supported();
    eprintln!("CPU paths run: {supported:?}");
    for path in CpuPath::ALL {
        let out = run_perft_cpu(path.name(), &["--version"]);
        if !supported.contains(&path) {
            // Refused before anything runs: one line, exit 2.
            assert_eq!(out.status.code(), Some(2), "{path}");
            let err = stderr(&out);
            assert!(err.contains("PERFT_CPU") && err.contains("lacks"), "{err}");
            continue;
        }
        assert_eq!(out.status.code(), Some(0));
        assert!(
            stdout(&out).contains(&format!("cpu path: {path} ")),
            "{}",
            stdout(&out)
        );
        // The suites' smaller counts (tricky: every count; standard and
        // Chess960 up to a million nodes), with and without the shortcut.
        for plain in [false, true] {
            let mut args = vec![
                "suite",
                "positions/tricky.epd",
                "positions/standard.epd",
                "positions/tricky960.epd",
                "--max-nodes",
                "1000000",
                "--json",
            ];
            if plain {
                args.push("--plain");
            }
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_perft"))
                .args(&args)
                .current_dir(repo_path(""))
                .env("PERFT_CPU", path.name())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{path}: {}", stderr(&out));
            let v = json(&out);
            assert_eq!(v["build"]["cpu_path"], path.name());
            assert_eq!(v["summary"]["counts_failed"], 0, "{v}");
            assert!(
                v["summary"]["counts_checked"].as_u64().unwrap() > 300,
                "{}",
                v["summary"]
            );
        }
        let v = json(&run_perft_cpu(
            path.name(),
            &["count", "4", "kiwipete", "--json"],
        ));
        assert_eq!(v["nodes"], 4_085_603); // CPW position 2, depth 4
        assert_eq!(v["build"]["cpu_path"], path.name());
        assert_eq!(v["engine"]["cpu_path"], path.name());
    }
}

#[test]
fn an_unknown_perft_cpu_exits_2_with_one_line() {
    for args in [&["count", "3"][..], &["--version"]] {
        let out = run_perft_cpu("avx9000", args);
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("PERFT_CPU=\"avx9000\"") && err.contains("unknown CPU path"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}
