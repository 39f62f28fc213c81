//! `perft versus` against fake peers: small shell scripts that print each
//! kind's output format with the published counts (Chess Programming Wiki,
//! "Perft Results": start position perft 1-4 = 20, 400, 8902, 197281;
//! Kiwipete 48, 2039, 97862, 4085603), and against the real Stockfish.
//! A wrong count must exit 1 naming the peer, the position and both counts;
//! a crash, a hang (`--peer-timeout`) or garbage output must exit 2 naming
//! the peer, with the other peers' results kept. Every JSON report is
//! checked against docs/schema/versus.schema.json.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::Value;

use crate::common::{json_stdout, run_perft, stderr, stdout, stockfish_path, write_temp};

/// The published counts as a shell function: `counts FEN` sets $1..$4.
const COUNTS: &str = r#"
counts() {
    case "$1" in
        rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR*) set -- 20 400 8902 197281 ;;
        r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R*) set -- 48 2039 97862 4085603 ;;
        *) echo "fake peer: unknown position $1" >&2; exit 9 ;;
    esac
    C1=$1; C2=$2; C3=$3; C4=$4
}
count_at() { eval "echo \$C$1"; }
"#;

/// Writes an executable script `name` with `body` (after the counts
/// helpers) with [`write_temp`], which gives each file a directory of its
/// own, so two tests that use the same fake peer never rewrite a script the
/// other is running (that open fails with ETXTBSY, "Text file busy").
///
/// It then runs the script once with `FAKE_PEER_PROBE` set (the script exits
/// 0 at once) until the exec succeeds: a process forked by another test while
/// this one had the file open for writing keeps a writable descriptor until
/// its own exec, and an exec of the script in that window fails with ETXTBSY
/// too. Once a probe has run, no writable descriptor is left.
fn script(name: &str, body: &str) -> String {
    let path = write_temp(
        name,
        &format!("#!/bin/sh\n[ -n \"$FAKE_PEER_PROBE\" ] && exit 0\n{COUNTS}\n{body}\n"),
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    for attempt in 0.. {
        match std::process::Command::new(&path)
            .env("FAKE_PEER_PROBE", "1")
            .status()
        {
            Ok(status) => {
                assert!(
                    status.success(),
                    "probe of {} failed: {status}",
                    path.display()
                );
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && attempt < 100 => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => panic!("cannot run {}: {e}", path.display()),
        }
    }
    path.display().to_string()
}

/// qperft: `qperft D FEN`, every depth, its own time; `extra` is added to
/// the count of the depth asked (a wrong count).
fn fake_qperft(name: &str, extra: u64) -> String {
    script(
        name,
        &format!(
            r#"D=$1; counts "$2"
echo "Quick Perft by H.G. Muller (fake)"
echo "log" >> log.txt
i=1; while [ $i -le $D ]; do
    c=$(count_at $i); [ $i = $D ] && c=$((c + {extra}))
    printf 'perft(%2d)=%13d ( 0.001 sec)\n' $i $c
    i=$((i + 1))
done"#
        ),
    )
}

fn fake_gigantua() -> String {
    script(
        "gigantua",
        r#"counts "$1"; D=$2
echo "Depth: $D - $1"
i=1; while [ $i -le $D ]; do echo "Perft $i: $(count_at $i) 1ms 1.5 MNodes/s"; i=$((i + 1)); done
printf '\nPress any key to exit...'; read key; exit 0"#,
    )
}

fn fake_perft_cpu() -> String {
    script(
        "perft_cpu",
        r#"counts "$1"; D=$2; [ "$3" = -nott ] || exit 7
i=1; while [ $i -le $D ]; do printf 'Perft(%02d): %d, time: 0.001 seconds, nps: 1\n' $i $(count_at $i); i=$((i + 1)); done"#,
    )
}

fn fake_hqperft() -> String {
    script(
        "hqperft",
        r#"[ "$1" = -f ] && [ "$3" = -d ] && [ "$5" = -b ] || exit 7
counts "$2"
echo "HQPerft (fake)"
printf 'perft %2d : %15d leaves in %10.3f s %12d leaves/s\n' $4 $(count_at $4) 0.001 1"#,
    )
}

fn fake_stockfish() -> String {
    script(
        "stockfish",
        r#"echo "Stockfish (fake)"
while read cmd a b rest; do
    case "$cmd" in
        position) if [ "$a" = startpos ]; then F=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR; else F=$b; fi ;;
        go) counts "$F"; echo "a2a3: 1"; echo; echo "Nodes searched: $(count_at $b)" ;;
        quit) exit 0 ;;
    esac
done"#,
    )
}

fn fake_custom() -> String {
    script(
        "custom",
        r#"counts "$2"; echo "depth $1, 12 ms"; echo "$(count_at $1) leaves""#,
    )
}

/// The schema errors of a `perft versus --json` report.
fn check_schema(v: &Value) {
    crate::schemas::assert_valid(v, "versus", "perft versus --json");
}

fn versus(args: &[&str]) -> std::process::Output {
    run_perft(&[&["versus"], args].concat())
}

const POSITIONS: [&str; 4] = ["--positions", "start:4,kiwipete:3", "--rounds", "2"];

#[test]
fn every_kind_is_read_and_compared() {
    let (q, g, c, h, s) = (
        fake_qperft("qperft", 0),
        fake_gigantua(),
        fake_perft_cpu(),
        fake_hqperft(),
        fake_stockfish(),
    );
    let custom = format!("mine={} {{depth}} \"{{fen}}\"", fake_custom());
    let peers = [
        format!("qperft={q}"),
        format!("gigantua={g}"),
        format!("perft_cpu={c}"),
        format!("hqperft={h}"),
        format!("stockfish={s}"),
    ];
    let mut args: Vec<&str> = peers.iter().map(String::as_str).collect();
    args.extend(["--peer", &custom]);
    args.extend(POSITIONS);
    let plot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("versus-test.svg");
    let plot = plot.to_str().unwrap();
    let out = versus(&[&args[..], &["--json", "--plot", plot]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json_stdout(&out);
    check_schema(&v);
    let names: Vec<&str> = v["programs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "perft",
            "qperft",
            "gigantua",
            "perft_cpu",
            "hqperft",
            "stockfish",
            "mine"
        ]
    );
    let positions = v["positions"].as_array().unwrap();
    assert_eq!(positions[0]["nodes"], 197_281);
    assert_eq!(positions[1]["nodes"], 97_862);
    for p in positions {
        for r in p["results"].as_array().unwrap().iter().skip(1) {
            assert_eq!(r["samples"].as_array().unwrap().len(), 2, "{r}");
            assert!(r["ratio"]["median"].as_f64().unwrap() > 0.0, "{r}");
        }
    }
    // qperft, Gigantua and perft_cpu count depths 1..D, each 1 ms by their
    // own clocks: timed for depth 4's quarter of the process, credited with
    // depth 4's count alone.
    let start = &positions[0]["results"];
    for i in 1..=3 {
        assert_eq!(start[i]["credited_nodes"], 197_281, "{}", start[i]);
        for s in start[i]["samples"].as_array().unwrap() {
            assert_eq!(s["own_seconds"], 0.001);
            assert_eq!(s["depth_share"], 0.25, "{s}");
            assert_eq!(s["credited_nodes"], 197_281);
            let cpu = s["cpu_seconds"].as_f64().unwrap();
            let compared = s["seconds"].as_f64().unwrap();
            assert!((compared - cpu / 4.0).abs() < 1e-9, "{s}");
        }
    }
    assert_eq!(start[4]["credited_nodes"], 197_281);
    assert!(start[4]["samples"][0]["depth_share"].is_null());
    // Mnps is the median of the runs' own rates (two runs: their mean).
    for r in start.as_array().unwrap() {
        let rates: Vec<f64> = r["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["credited_nodes"].as_f64().unwrap() / s["seconds"].as_f64().unwrap() / 1e6)
            .collect();
        let want = rates.iter().sum::<f64>() / rates.len() as f64;
        let mnps = r["mnps"].as_f64().unwrap();
        assert!((mnps - want).abs() <= 1e-9 * want, "{r}");
    }
    // Stockfish's start-up run is measured every round.
    assert!(start[5]["samples"][0]["startup_seconds"].is_number());
    assert!(v["programs"][5]["startup_subtracted"].as_bool().unwrap());
    assert_eq!(v["geomean"].as_array().unwrap().len(), 6);
    assert!(v["findings"].as_array().unwrap().is_empty());
    // The chart: one bar per peer and position, a legend entry per peer.
    let svg = std::fs::read_to_string(plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<title>").count(), 12);
    for name in &names[1..] {
        assert!(
            svg.contains(&format!(">{name}</text>")),
            "legend lacks {name}"
        );
    }
    // The text table: a row per position, a column per program.
    let out = versus(
        &[
            &peers.iter().map(String::as_str).collect::<Vec<_>>()[..],
            &POSITIONS,
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let head = text.lines().next().unwrap();
    for name in &names[..6] {
        assert!(head.contains(name), "{head}");
    }
    assert!(
        text.lines()
            .any(|l| l.starts_with("kiwipete") && l.matches('x').count() >= 5)
    );
    assert!(
        text.contains("gigantua counts every depth 1..D in one process: timed for depth D's share of the process, by its own clock (25.0-33.3 %), and credited with depth D's count"),
        "{text}"
    );
}

/// Positions of an EPD file are checked against the file's own counts, so
/// a wrong line is a finding about every program, ours included (exit 1),
/// and a right one passes.
#[test]
fn an_epd_count_is_checked_against_ours_too() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("versus-epd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (good, bad) = (dir.join("good.epd"), dir.join("bad.epd"));
    // Kiwipete perft 3 is 97,862 (published); 97,863 is wrong.
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    std::fs::write(&good, format!("{fen} ;D3 97862 ;id \"kiwi\"\n")).unwrap();
    std::fs::write(&bad, format!("{fen} ;D3 97863 ;id \"kiwi\"\n")).unwrap();
    let h = fake_hqperft();
    let run = |file: &std::path::Path| {
        versus(&[
            &format!("hqperft={h}"),
            "--file",
            &file.display().to_string(),
            "--rounds",
            "1",
            "--json",
        ])
    };
    let out = run(&good);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(&bad);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("perft counts 97862 on kiwi depth 3, expected 97863"),
        "{err}"
    );
    let v = json_stdout(&out);
    check_schema(&v);
    let programs: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["program"].as_str().unwrap())
        .collect();
    assert_eq!(programs, ["perft", "hqperft"], "{v}");
}

#[test]
fn a_wrong_count_exits_1_naming_peer_position_and_counts() {
    let wrong = fake_qperft("qperft-wrong", 1);
    let h = fake_hqperft();
    let out = versus(&[
        &format!("qperft={wrong}"),
        &format!("hqperft={h}"),
        "--positions",
        "kiwipete:4",
        "--rounds",
        "1",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("qperft counts 4085604 on kiwipete depth 4, expected 4085603"),
        "{err}"
    );
    let v = json_stdout(&out);
    check_schema(&v);
    assert_eq!(v["findings"][0]["expected"], 4_085_603);
    assert_eq!(v["findings"][0]["got"], 4_085_604);
}

#[test]
fn a_crash_a_hang_or_garbage_exits_2_and_keeps_the_others() {
    let q = fake_qperft("qperft", 0);
    let crash = script("crash", "echo 'Perft 1: 20 0ms 1 MNodes/s'; kill -SEGV $$");
    let hang = script("hang", "exec sleep 60");
    let garbage = script("garbage", "echo 'hello, world'");
    for (peer, kind, what) in [
        (format!("gigantua={crash}"), "crash", "signal 11"),
        (format!("hqperft={hang}"), "timeout", "--peer-timeout"),
        (format!("perft_cpu={garbage}"), "output", "hello, world"),
    ] {
        let start = std::time::Instant::now();
        let out = versus(&[
            &format!("qperft={q}"),
            &peer,
            "--positions",
            "start:3,kiwipete:3",
            "--rounds",
            "2",
            "--peer-timeout",
            "1",
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(2), "{peer}: {}", stderr(&out));
        let failed = peer.split('=').next().unwrap();
        let err = stderr(&out);
        assert!(
            err.contains(&format!("error: peer {failed} on startpos depth 3"))
                && err.contains(what),
            "{err}"
        );
        let v = json_stdout(&out);
        check_schema(&v);
        assert_eq!(v["errors"][0]["kind"], kind);
        assert_eq!(
            v["errors"].as_array().unwrap().len(),
            1,
            "left out after failing"
        );
        // qperft's results are kept on both positions.
        for p in v["positions"].as_array().unwrap() {
            assert!(p["results"][1]["ratio"]["median"].as_f64().unwrap() > 0.0);
            assert!(p["results"][2]["samples"].as_array().unwrap().is_empty());
        }
        // The hang is killed once, not waited for on every round.
        assert!(start.elapsed().as_secs() < 20, "{peer}");
    }
}

#[test]
fn bad_arguments_are_usage_errors() {
    for (args, needle) in [
        (vec!["nonesuch"], "unknown peer kind 'nonesuch'"),
        (vec![], "no peer to compare with"),
        (
            vec!["qperft=/nonexistent/qperft"],
            "'/nonexistent/qperft' not found",
        ),
        (
            vec!["stockfish", "--positions", "start:x"],
            "positive integer",
        ),
        (vec!["stockfish", "--positions", "nowhere:3"], "nowhere"),
        (vec!["stockfish", "--rounds", "0"], "--rounds"),
        (vec!["mine=./x"], "unknown peer kind 'mine'"),
    ] {
        let out = versus(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
}

/// The real Stockfish (its `go perft` counts are the reference of the
/// differential tests): counts agree, ratios come out, JSON validates.
#[test]
fn stockfish_agrees_and_is_timed() {
    let sf = format!("stockfish={}", stockfish_path());
    let out = versus(&[
        &sf,
        "--positions",
        "start:5,cpw3:5",
        "--rounds",
        "1",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json_stdout(&out);
    check_schema(&v);
    // Published: start position perft 5 = 4,865,609; CPW 3 perft 5 = 674,624.
    assert_eq!(v["positions"][0]["nodes"], 4_865_609);
    assert_eq!(v["positions"][1]["nodes"], 674_624);
    for p in v["positions"].as_array().unwrap() {
        let sf = &p["results"][1];
        assert_eq!(sf["samples"][0]["nodes"], p["nodes"]);
        assert!(sf["samples"][0]["startup_seconds"].as_f64().unwrap() > 0.0);
        assert!(sf["ratio"]["median"].as_f64().unwrap() > 0.0);
    }
}

/// The order of the runs, as a logging custom peer sees it (the depth
/// tells the position: start 4, Kiwipete 3): by default each round goes over
/// every position, so a position's rounds lie a round apart;
/// `--order positions` runs each position's rounds back to back. The JSON
/// settings and the text notes name the order.
#[test]
fn rounds_go_over_every_position_unless_order_positions() {
    for (order, runs, note) in [
        (None, "4 3 4 3 4 3", "each round over every position"),
        (
            Some("rounds"),
            "4 3 4 3 4 3",
            "each round over every position",
        ),
        (
            Some("positions"),
            "4 4 4 3 3 3",
            "each position's rounds back to back",
        ),
    ] {
        let log = write_temp("order.log", "");
        let log = log.display();
        let body = format!(
            r#"counts "$2"; echo "$1" >> '{log}'; echo "depth $1, 12 ms"; echo "$(count_at $1) leaves""#
        );
        let custom = format!("log={} {{depth}} \"{{fen}}\"", script("logging", &body));
        let mut args = vec!["--peer", &custom, "--positions", "start:4,kiwipete:3"];
        args.extend(["--rounds", "3"]);
        if let Some(o) = order {
            args.extend(["--order", o]);
        }
        let out = versus(&[&args[..], &["--json"]].concat());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v = json_stdout(&out);
        check_schema(&v);
        assert_eq!(v["settings"]["order"], order.unwrap_or("rounds"));
        let seen = std::fs::read_to_string(log.to_string()).unwrap();
        let seen: Vec<&str> = seen.split_whitespace().collect();
        assert_eq!(seen.join(" "), runs, "--order {order:?}");
        for p in v["positions"].as_array().unwrap() {
            assert_eq!(p["complete"], true);
            let rounds: Vec<u64> = p["results"][1]["samples"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["round"].as_u64().unwrap())
                .collect();
            assert_eq!(rounds, [0, 1, 2]);
        }
        let text = versus(&args);
        assert_eq!(text.status.code(), Some(0), "{}", stderr(&text));
        assert!(stdout(&text).contains(note), "{}", stdout(&text));
    }
    let bad = versus(&["--peer", "x=true", "--order", "sideways"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("--order"), "{}", stderr(&bad));
}

/// Runs `perft versus ARGS`, sends it SIGINT (Ctrl-C) after `wait_ms`
/// and returns what it printed.
fn interrupted_versus(args: &[&str], wait_ms: u64) -> std::process::Output {
    let child = std::process::Command::new(crate::common::perft_bin())
        .arg("versus")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(wait_ms));
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    child.wait_with_output().unwrap()
}

/// Ctrl-C in the first round's second position, with two rounds: the
/// report holds both positions, neither complete (each has one round of
/// two), the first with both programs' samples, the second with ours only.
#[test]
fn ctrl_c_in_a_later_position_keeps_the_rounds_before() {
    let body = r#"counts "$2"; [ "$1" = 3 ] && exec sleep 60; echo "depth $1, 12 ms"; echo "$(count_at $1) leaves""#;
    let custom = format!(
        "late={} {{depth}} \"{{fen}}\"",
        script("hang-on-kiwipete", body)
    );
    let args = [
        "--peer",
        custom.as_str(),
        "--positions",
        "start:4,kiwipete:3",
    ];
    let out = interrupted_versus(&[&args[..], &["--rounds", "2", "--json"]].concat(), 2000);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let v = json_stdout(&out);
    check_schema(&v);
    assert_eq!(v["complete"], false);
    let positions = v["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 2, "both positions started");
    let samples = |p: usize, prog: usize| {
        positions[p]["results"][prog]["samples"]
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(positions[0]["complete"], false, "one round of two");
    assert_eq!((samples(0, 0), samples(0, 1)), (1, 1));
    // Published: start position perft 4 = 197,281; Kiwipete perft 3 = 97,862.
    assert_eq!(positions[0]["results"][1]["samples"][0]["nodes"], 197_281);
    assert_eq!(positions[1]["complete"], false);
    assert_eq!((samples(1, 0), samples(1, 1)), (1, 0));
    assert_eq!(positions[1]["nodes"], 97_862);
}

/// Ctrl-C (SIGINT) while a peer runs: the peer is killed, what was
/// measured is printed marked partial, exit 130, and the interrupted peer
/// is not reported as failed.
#[test]
fn ctrl_c_prints_the_partial_report_and_exits_130() {
    let q = fake_qperft("qperft", 0);
    let hang = script("hang-long", "exec sleep 60");
    let (q, hang) = (format!("qperft={q}"), format!("hqperft={hang}"));
    let args = [
        q.as_str(),
        hang.as_str(),
        "--positions",
        "start:3,kiwipete:3",
    ];
    let out = interrupted_versus(&[&args[..], &["--rounds", "1", "--json"]].concat(), 1500);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let v = json_stdout(&out);
    check_schema(&v);
    assert_eq!(v["complete"], false);
    assert!(v["errors"].as_array().unwrap().is_empty());
    let positions = v["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 1, "stopped on the first position");
    assert_eq!(positions[0]["complete"], false);
    assert_eq!(positions[0]["results"][1]["samples"][0]["nodes"], 8902);
}
