//! Work units (`perft split`, `run-unit`, `run`, `merge`) through the built
//! binary. Every total is a published count (positions/standard.epd,
//! positions/chess960.epd) or Stockfish's divide.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use perft::perft::units::{ResultLine, UnitSummary, seal, sha256_hex, unseal};
use perft::validate::engine::UciEngine;

use crate::common::{json_stdout, stderr, stdout, stockfish_path};

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("units-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn perft(args: &[&str]) -> Output {
    perft_env(args, &[])
}

fn perft_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_perft"));
    cmd.args(args).env("NO_COLOR", "1");
    cmd.env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run perft")
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        stdout(out),
        stderr(out)
    );
}

fn split(job: &Path, depth: u32, position: &[&str], ply: u32, units: usize) {
    let d = depth.to_string();
    let k = ply.to_string();
    let u = units.to_string();
    let mut args = vec!["split", &d];
    args.extend_from_slice(position);
    args.extend_from_slice(&["--split-ply", &k, "--units", &u, "--out"]);
    let job = job.to_str().unwrap();
    args.push(job);
    ok(&perft(&args));
}

/// Runs every unit of `job` as separate `run-unit` processes, `units` at a time.
fn run_units(job: &Path, units: usize, extra: &[&str]) {
    let children: Vec<_> = (0..units)
        .map(|i| {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_perft"));
            cmd.args(["run-unit", job.to_str().unwrap(), "--index", &i.to_string()])
                .args(["--threads", "1"])
                .args(extra)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    for c in children {
        ok(&c.wait_with_output().unwrap());
    }
}

/// `perft merge --json` of a complete job: its total and divide.
fn merged(job: &Path) -> (u128, BTreeMap<String, u64>) {
    let out = perft(&["merge", job.to_str().unwrap(), "--json"]);
    ok(&out);
    let v = json_stdout(&out);
    assert_eq!(v["kind"], "merge");
    assert_eq!(v["complete"], true);
    let moves = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["move"].as_str().unwrap().to_string(),
                m["nodes_str"].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect();
    (v["nodes_str"].as_str().unwrap().parse().unwrap(), moves)
}

fn result_file(job: &Path, unit: usize) -> PathBuf {
    job.join(format!("unit-{unit:05}.result.jsonl"))
}

#[test]
fn start_perft_6_split_at_ply_2_and_3_sums_to_the_published_count() {
    // positions/standard.epd: start position D6 119,060,324.
    for ply in [2, 3] {
        let job = scratch(&format!("start6-{ply}"));
        split(&job, 6, &[], ply, 4);
        run_units(&job, 4, &[]);
        assert_eq!(merged(&job).0, 119_060_324, "split ply {ply}");
    }
}

#[test]
fn kiwipete_perft_5_split_at_ply_2_matches_the_count_and_stockfish_divide() {
    // positions/standard.epd: Kiwipete D5 193,690,690.
    let job = scratch("kiwi5");
    split(&job, 5, &["kiwipete"], 2, 3);
    run_units(&job, 3, &["--hash", "64MiB"]);
    let (total, moves) = merged(&job);
    assert_eq!(total, 193_690_690);
    let mut sf = UciEngine::start(&stockfish_path(), Duration::from_secs(120)).unwrap();
    let theirs = sf.divide(perft::KIWIPETE, &[], 5).unwrap();
    let theirs: BTreeMap<String, u64> = theirs.moves.into_iter().collect();
    assert_eq!(moves, theirs);
}

#[test]
fn chess960_position_splits_and_sums_to_its_published_count() {
    // positions/chess960.epd, first line: D5 8,146,062.
    let line = std::fs::read_to_string(crate::common::repo_path("positions/chess960.epd")).unwrap();
    let line = line
        .lines()
        .find(|l| !l.starts_with('#') && !l.trim().is_empty())
        .unwrap();
    let fen = line.split(';').next().unwrap().trim();
    assert!(line.contains(";D5 8146062"), "{line}");
    let job = scratch("c960");
    split(&job, 5, &[fen], 2, 2);
    let out = perft(&["run", job.to_str().unwrap(), "--threads", "2"]);
    ok(&out);
    assert!(stdout(&out).contains("8,146,062"), "{}", stdout(&out));
    assert_eq!(merged(&job).0, 8_146_062);
}

#[test]
fn killed_run_unit_resumes_to_the_same_total() {
    // Start position D5 4,865,609 split at ply 3: 5,362 records in one
    // unit, each fsynced, so the run lasts long enough to be killed.
    let job = scratch("kill");
    split(&job, 5, &[], 3, 1);
    let dir = job.to_str().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(["run-unit", dir, "--index", "0", "--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let results = result_file(&job, 0);
    let mut waited = 0;
    while std::fs::read_to_string(&results).map_or(0, |t| t.lines().count()) < 50 {
        std::thread::sleep(Duration::from_millis(20));
        waited += 1;
        assert!(waited < 1500, "run-unit wrote nothing");
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let lines = std::fs::read_to_string(&results).unwrap().lines().count();
    assert!((50..5_362).contains(&lines), "{lines}");
    // Not summed while partial.
    let out = perft(&["merge", dir]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("unit-00000: partial"),
        "{}",
        stderr(&out)
    );
    let out = perft(&["run-unit", dir, "--index", "0", "--threads", "2"]);
    ok(&out);
    assert!(stdout(&out).contains("complete"), "{}", stdout(&out));
    assert_eq!(merged(&job).0, 4_865_609);
}

#[test]
fn interrupted_run_exits_130_and_resumes() {
    let job = scratch("sigint");
    split(&job, 5, &[], 3, 2);
    let dir = job.to_str().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(["run", dir, "--threads", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let results = result_file(&job, 0);
    while std::fs::read_to_string(&results).map_or(0, |t| t.lines().count()) < 20 {
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stdout(&out).contains("INTERRUPTED"), "{}", stdout(&out));
    let out = perft(&["run", dir, "--threads", "2"]);
    ok(&out);
    assert_eq!(merged(&job).0, 4_865_609);
}

/// A complete job of start position D4 (197,281) in 2 units.
fn small_job(name: &str, seed: &str) -> PathBuf {
    let job = scratch(name);
    split(&job, 4, &[], 2, 2);
    run_units(&job, 2, &["--hash", "16MiB", "--zobrist-seed", seed]);
    assert_eq!(merged(&job).0, 197_281);
    job
}

#[test]
fn truncated_or_corrupted_result_lines_are_detected_and_redone() {
    let job = small_job("corrupt", "1");
    let dir = job.to_str().unwrap();
    let path = result_file(&job, 1);
    let good = std::fs::read_to_string(&path).unwrap();

    // A torn last line (the summary cut short).
    std::fs::write(&path, &good[..good.len() - 20]).unwrap();
    let out = perft(&["merge", dir]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unit-00001: corrupt"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("torn"), "{}", stderr(&out));

    // A changed digit in a middle line.
    let lines: Vec<&str> = good.lines().collect();
    let mid = lines.len() / 2;
    let mut changed: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    changed[mid] = changed[mid].replacen("\"count\":\"", "\"count\":\"1", 1);
    std::fs::write(&path, changed.join("\n") + "\n").unwrap();
    let out = perft(&["merge", dir]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!("line {}: checksum mismatch", mid + 1)),
        "{}",
        stderr(&out)
    );

    // run-unit repairs it: the bad record is counted again.
    let out = perft(&["run-unit", dir, "--index", "1"]);
    ok(&out);
    assert!(
        stderr(&out).contains("checksum mismatch"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("1 counted now"), "{}", stdout(&out));
    assert_eq!(merged(&job).0, 197_281);
}

/// Rewrites one record's count in a result file, with valid checksums and
/// summary: damage no checksum can see, which only a second run finds.
fn forge_count(path: &Path, record: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut records: Vec<String> = Vec::new();
    let mut fen = String::new();
    let mut sum = 0u128;
    let mut last: Option<UnitSummary> = None;
    for line in text.lines() {
        match serde_json::from_str::<ResultLine>(&unseal(line).unwrap()).unwrap() {
            ResultLine::Record(mut r) => {
                if r.index == record {
                    r.count += 1;
                    r.product = r.count * r.multiplicity;
                    fen = r.fen.clone();
                }
                sum += r.product;
                records.push(seal(
                    &serde_json::to_string(&ResultLine::Record(r)).unwrap(),
                ));
            }
            ResultLine::Summary(s) => last = Some(s),
        }
    }
    let mut body = records.join("\n") + "\n";
    let mut summary = last.unwrap();
    summary.sum = sum;
    summary.results_sha256 = sha256_hex(body.as_bytes());
    body.push_str(&seal(
        &serde_json::to_string(&ResultLine::Summary(summary)).unwrap(),
    ));
    body.push('\n');
    std::fs::write(path, body).unwrap();
    fen
}

#[test]
fn verify_names_the_position_that_differs_between_two_seeds() {
    let a = small_job("verify-a", "11");
    let b = scratch("verify-b");
    std::fs::remove_dir(&b).unwrap();
    // The same split (same job id), counted with another seed.
    let out = perft(&[
        "split",
        "4",
        "--split-ply",
        "2",
        "--units",
        "2",
        "--out",
        b.to_str().unwrap(),
    ]);
    ok(&out);
    run_units(&b, 2, &["--hash", "16MiB", "--zobrist-seed", "22"]);
    let (ad, bd) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = perft(&["merge", ad, "--verify", bd]);
    ok(&out);
    assert!(
        stdout(&out).contains("agrees on all 400 records"),
        "{}",
        stdout(&out)
    );
    assert!(
        !stderr(&out).contains("same Zobrist seed"),
        "{}",
        stderr(&out)
    );

    let fen = forge_count(&result_file(&b, 1), 3);
    let out = perft(&["merge", bd]);
    ok(&out); // checksums and summary are consistent: merge alone cannot tell
    let out = perft(&["merge", ad, "--verify", bd, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_stdout(&out);
    let diffs = v["verify"]["differences"].as_array().unwrap();
    assert_eq!(diffs.len(), 1, "{v}");
    assert_eq!(diffs[0]["fen"], fen.as_str());
    let out = perft(&["merge", ad, "--verify", bd]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains(&fen), "{}", stdout(&out));

    // The same seed in both runs is worth a warning.
    let out = perft(&["merge", ad, "--verify", ad]);
    ok(&out);
    assert!(
        stderr(&out).contains("same Zobrist seed"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_job_input_exits_2_with_one_clear_line() {
    let job = small_job("bad", "5");
    let dir = job.to_str().unwrap();
    let fail = |args: &[&str], want: &str| {
        let out = perft(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    };
    let empty = scratch("not-a-job");
    fail(
        &["merge", empty.to_str().unwrap()],
        "not a perft job directory",
    );
    fail(
        &["run", empty.to_str().unwrap()],
        "not a perft job directory",
    );
    fail(&["run-unit", dir, "--index", "2"], "out of range");
    fail(
        &["run-unit", dir, "--index", "0", "--index-base", "1"],
        "below --index-base",
    );
    fail(
        &["run-unit", dir, "--index-from-env"],
        "SLURM_ARRAY_TASK_ID",
    );
    fail(
        &[
            "split",
            "4",
            "--split-ply",
            "2",
            "--units",
            "2",
            "--out",
            dir,
        ],
        "not an empty directory",
    );
    fail(
        &[
            "split",
            "4",
            "--split-ply",
            "5",
            "--units",
            "2",
            "--out",
            "/nonexistent/x",
        ],
        "--split-ply",
    );
    fail(
        &[
            "split",
            "3",
            "--split-ply",
            "1",
            "--units",
            "21",
            "--out",
            "/nonexistent/x",
        ],
        "more than the 20 unique positions",
    );

    // A unit's results from another job (Kiwipete instead of the start position).
    let other = scratch("other");
    split(&other, 3, &["kiwipete"], 1, 2);
    run_units(&other, 2, &[]);
    std::fs::copy(result_file(&other, 0), result_file(&job, 0)).unwrap();
    fail(&["merge", dir], "belongs to job");
    fail(&["run-unit", dir, "--index", "0"], "belongs to job");
    // Two different splits cannot be compared record by record.
    fail(
        &["merge", other.to_str().unwrap(), "--verify", dir],
        "different splits",
    );

    // A manifest of another format version.
    let manifest = job.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace("\"schema_version\": 1", "\"schema_version\": 2"),
    )
    .unwrap();
    fail(&["merge", dir], "job format version 2");
}

#[test]
fn index_comes_from_slurm_or_kubernetes_or_a_1_based_counter() {
    let job = scratch("index");
    split(&job, 3, &[], 1, 3);
    let dir = job.to_str().unwrap();
    let out = perft_env(
        &["run-unit", dir, "--index-from-env"],
        &[("SLURM_ARRAY_TASK_ID", "0")],
    );
    ok(&out);
    assert!(
        stdout(&out).starts_with("unit 0: complete"),
        "{}",
        stdout(&out)
    );
    let out = perft_env(
        &["run-unit", dir, "--index-from-env"],
        &[("JOB_COMPLETION_INDEX", "1")],
    );
    ok(&out);
    assert!(
        stdout(&out).starts_with("unit 1: complete"),
        "{}",
        stdout(&out)
    );
    let out = perft(&["merge", dir]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unit-00002: missing"),
        "{}",
        stderr(&out)
    );
    // GNU parallel's {#} counts from 1.
    let out = perft(&["run-unit", dir, "--index", "3", "--index-base", "1"]);
    ok(&out);
    assert!(
        stdout(&out).starts_with("unit 2: complete"),
        "{}",
        stdout(&out)
    );
    // A complete unit is not counted again.
    let out = perft(&["run-unit", dir, "--index", "2"]);
    ok(&out);
    assert!(stdout(&out).contains("0 counted now"), "{}", stdout(&out));
    // positions/standard.epd: start position D3 8,902.
    assert_eq!(merged(&job).0, 8_902);
}
