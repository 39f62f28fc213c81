//! `perft perftree` and `perft uci`: the protocols byte for byte, checked
//! against Stockfish at test time.

use std::collections::BTreeMap;
use std::time::Duration;

use perft::validate::engine::UciEngine;

use crate::common::{
    json_stdout, perft_bin, repo_path, run_perft, run_perft_env, stderr, stdout, stockfish_path,
};

fn stockfish() -> UciEngine {
    let mut sf = UciEngine::start(&stockfish_path(), Duration::from_secs(60)).expect("Stockfish");
    sf.set_option("Threads", "1").unwrap();
    sf
}

/// The perftree output Stockfish's divide implies: sorted `move count`
/// lines, one empty line, the total.
fn expected_perftree(sf: &mut UciEngine, fen: &str, moves: &[String], depth: u32) -> String {
    let d = sf.divide(fen, moves, depth).unwrap();
    let mut lines = d.moves.clone();
    lines.sort();
    let mut s: String = lines.iter().map(|(m, n)| format!("{m} {n}\n")).collect();
    s.push_str(&format!("\n{}\n", d.total));
    s
}

#[test]
fn perftree_output_matches_stockfish_byte_for_byte() {
    let mut sf = stockfish();
    sf.set_option("UCI_Chess960", "false").unwrap();
    let cases: [(&str, &str, u32); 4] = [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "",
            3,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "e2e4 d7d5 e4e5 f7f5",
            3,
        ),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "e1g1",
            2,
        ),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "",
            3,
        ),
    ];
    for (fen, moves, depth) in cases {
        let moves_v: Vec<String> = moves.split_whitespace().map(str::to_string).collect();
        let want = expected_perftree(&mut sf, fen, &moves_v, depth);
        let depth_s = depth.to_string();
        let mut args = vec!["perftree", depth_s.as_str(), fen];
        if !moves.is_empty() {
            args.push(moves);
        }
        let out = run_perft(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), want, "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}: {}", stderr(&out));
        if moves.is_empty() {
            // perftree omits the argument, but an empty one means the same.
            args.push("");
            assert_eq!(stdout(&run_perft(&args)), want);
        }
    }
    // Chess960 (Shredder-FEN): castling written king-takes-rook, as Stockfish.
    sf.set_option("UCI_Chess960", "true").unwrap();
    let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let want = expected_perftree(&mut sf, fen, &[], 3);
    assert_eq!(stdout(&run_perft(&["perftree", "3", fen])), want);
}

#[test]
fn perftree_errors_leave_stdout_empty() {
    for args in [
        &["perftree", "3", "not a fen"][..],
        &["perftree", "3", "8/8/8/8/8/8/8/Kk6 w - - 0 1"],
        &[
            "perftree",
            "0",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ],
        &[
            "perftree",
            "2",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "e2e5",
        ],
    ] {
        let out = run_perft(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", stdout(&out));
        assert_eq!(
            stderr(&out).lines().count(),
            1,
            "{args:?}: {}",
            stderr(&out)
        );
        // perftree takes MOVES as its third argument; there is no --moves.
        assert!(!stderr(&out).contains("--moves"), "{}", stderr(&out));
    }
}

#[test]
fn documented_perftree_wrapper_drives_compare() {
    // scripts/perftree.sh is the README's wrapper: `exec perft perftree "$@"`,
    // with perft on PATH. compare --engine-kind perftree speaks to it exactly
    // as perftree-cli does; against Stockfish's counts it must agree.
    let wrapper = repo_path("scripts/perftree.sh");
    let bin_dir = std::path::Path::new(perft_bin()).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = run_perft_env(
        &[
            "compare",
            "3",
            "kiwipete",
            "--engine",
            wrapper.to_str().unwrap(),
            "--engine-kind",
            "perftree",
            "--json",
        ],
        &[("PATH", &path)],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json_stdout(&out);
    let mut sf = stockfish();
    let theirs = sf
        .divide(v["root_fen"].as_str().unwrap(), &[], 3)
        .unwrap()
        .total;
    assert_eq!(v["levels"][0]["engine"], theirs);
    assert_eq!(v["result"], "agree");
}

/// Splits `go perft` output into its move lines (as a map) and the rest.
fn perft_reply(text: &str) -> (BTreeMap<String, u64>, String) {
    let mut moves = BTreeMap::new();
    let mut rest = String::new();
    for line in text.split_inclusive('\n') {
        match perft::validate::engine::parse_divide_line(line.trim_end()) {
            Some((m, n)) => {
                assert!(moves.insert(m, n).is_none(), "duplicate {line}");
            }
            None => rest.push_str(line),
        }
    }
    (moves, rest)
}

#[test]
fn uci_go_perft_gives_stockfishs_output() {
    // As a user would pipe it: printf 'position startpos moves e2e4\ngo perft 4\nquit\n' | perft uci
    let input = "position startpos moves e2e4\ngo perft 4\nquit\n";
    let ours = run_perft_env(&["uci"], &[], Some(input));
    assert_eq!(ours.status.code(), Some(0), "{}", stderr(&ours));
    let sf = std::process::Command::new(stockfish_path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(input.as_bytes())?;
            c.wait_with_output()
        })
        .expect("run Stockfish");
    let sf_text = stdout(&sf);
    // Stockfish prints a banner line first; the reply follows it.
    let sf_reply = sf_text.split_once('\n').unwrap().1;
    let (our_moves, our_rest) = perft_reply(&stdout(&ours));
    let (sf_moves, sf_rest) = perft_reply(sf_reply);
    assert_eq!(our_moves, sf_moves);
    assert_eq!(our_moves.len(), 20);
    // Blank line, `Nodes searched: N`, blank line, exactly as Stockfish.
    assert_eq!(our_rest, sf_rest);
    assert!(our_rest.starts_with("\nNodes searched: "), "{our_rest:?}");
    // Move lines first, in one block.
    assert!(stdout(&ours).ends_with(&sf_rest));
}

#[test]
fn uci_handshake_options_and_chess960() {
    let input = "uci\nisready\nsetoption name Threads value 2\nsetoption name UCI_Chess960 value true\n\
                 position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 moves a3a4\n\
                 go perft 2\nfoo bar\nquit\n";
    let out = run_perft_env(&["uci"], &[], Some(input));
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("id name perft "), "{text}");
    for option in ["Threads", "Hash", "UCI_Chess960"] {
        assert!(
            text.contains(&format!("option name {option} type ")),
            "{text}"
        );
    }
    let uciok = lines.iter().position(|&l| l == "uciok").expect("uciok");
    assert_eq!(lines[uciok + 1], "readyok");
    assert!(text.contains("info string unknown command 'foo bar' ignored"));
    let mut sf = stockfish();
    sf.set_option("UCI_Chess960", "true").unwrap();
    let theirs = sf
        .divide(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            &["a3a4".to_string()],
            2,
        )
        .unwrap();
    let (ours, _) = perft_reply(&text);
    assert_eq!(ours, theirs.moves.into_iter().collect::<BTreeMap<_, _>>());
}

/// A `Hash` larger than the machine's memory is an answer on stdout, not the
/// end of the engine: the value is refused in one line, `go perft` still
/// counts (with the previous table) and the session goes on. 400 is the published perft(2) of the start position.
#[test]
fn uci_hash_beyond_memory_keeps_the_session_alive() {
    const MIB: u64 = 1 << 20; // the UCI maximum, 1 TiB
    // The test needs a machine with less than 1 TiB available (any CI or
    // development machine); it fails rather than skips elsewhere.
    let available = perft::perft::hash::available_memory().expect("MemAvailable in /proc/meminfo");
    assert!(
        available < u128::from(MIB) << 20,
        "{available} bytes available"
    );
    let input = format!("setoption name Hash value {MIB}\ngo perft 2\nisready\nquit\n");
    let out = run_perft_env(&["uci"], &[], Some(&input));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("info string error: Hash: hash table of 1 TiB requested"),
        "{text}"
    );
    assert!(text.contains("; Hash stays 16 MiB\n"), "{text}");
    assert!(
        text.contains("\nNodes searched: 400\n\nreadyok\n"),
        "{text}"
    );
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

/// A GUI's analysis mode, as python-chess's `engine.analysis()` then
/// `stop()` drive it (scripts/uci_analysis.py does it with python-chess):
/// `go infinite` answers nothing until `stop`, then `bestmove` at once.
#[test]
fn uci_go_infinite_then_stop_answers_bestmove_promptly() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    use std::time::Instant;
    let mut child = Command::new(perft_bin())
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    writeln!(input, "uci\nisready").unwrap();
    while lines.next().unwrap().unwrap() != "readyok" {}
    writeln!(input, "position startpos moves e2e4\ngo infinite").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    writeln!(input, "isready").unwrap();
    // `isready` is answered during the search, before any bestmove.
    loop {
        let line = lines.next().unwrap().unwrap();
        assert!(!line.starts_with("bestmove"), "{line}");
        if line == "readyok" {
            break;
        }
    }
    let start = Instant::now();
    writeln!(input, "stop").unwrap();
    let best = loop {
        let line = lines.next().unwrap().unwrap();
        if let Some(mv) = line.strip_prefix("bestmove ") {
            break mv.to_string();
        }
    };
    let took = start.elapsed();
    writeln!(input, "quit").unwrap();
    assert!(child.wait().unwrap().success());
    assert!(took < Duration::from_secs(1), "stop took {took:?}");
    let after_e4 = perft::Position::startpos()
        .play_unchecked(perft::Position::startpos().parse_uci("e2e4").unwrap());
    assert!(after_e4.parse_uci(&best).is_some(), "bestmove {best}");
}
