//! Restartable nodes: a search interrupted every K nodes and resumed from its
//! [`SearchState`] is, with one thread, exactly the uninterrupted search: the
//! same best move, score and PV at the same depth, and the same number of
//! nodes. With restart off the chunks start over and the node totals differ,
//! which shows the comparison can fail.

use perft::Position;
use perft::search::tt::Tt;
use perft::search::{self, Limits, Score, SearchOptions, SearchResult, SearchState};

use crate::common::{load, run_perft, run_perft_env, stderr, stdout};

/// TT size of every search here (the same for the whole and the chunked
/// search: replacement depends on it).
const TT_BYTES: usize = 1 << 20;

/// What the comparison looks at.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    best: String,
    score: Option<Score>,
    depth: u32,
    pv: Vec<String>,
    nodes: u64,
}

fn outcome(r: &SearchResult, nodes: u64) -> Outcome {
    Outcome {
        best: r.best_move_uci(),
        score: r.score,
        depth: r.depth,
        pv: r.pv.iter().map(|m| m.to_uci(false).to_string()).collect(),
        nodes,
    }
}

fn whole(pos: &Position, depth: u32, options: &SearchOptions) -> Outcome {
    let mut tt = Tt::new(TT_BYTES).unwrap();
    let r = search::search(
        pos,
        &[],
        &Limits::depth(depth),
        Some(&mut tt),
        options,
        |_| {},
    )
    .unwrap();
    assert!(!r.stopped);
    outcome(&r, r.stats.nodes)
}

/// Searches to `depth` in calls of at most `k` nodes on one TT and one
/// state; returns the outcome with the nodes of all calls, and the calls.
fn chunked(pos: &Position, depth: u32, k: u64, options: &SearchOptions) -> (Outcome, u64) {
    let mut tt = Tt::new(TT_BYTES).unwrap();
    let mut state = SearchState::new();
    let limits = Limits {
        depth: Some(depth),
        nodes: Some(k),
        ..Limits::default()
    };
    let mut total = 0;
    for call in 1..=20_000u64 {
        let r = search::search_resumable(
            pos,
            &[],
            &limits,
            Some(&mut tt),
            options,
            &mut state,
            |_| {},
        )
        .unwrap();
        total += r.stats.nodes;
        assert!(r.stats.nodes <= k, "a call searched more than its budget");
        if call > 1 && options.restart {
            assert!(r.resumed.is_some(), "call {call} did not resume");
        } else {
            assert_eq!(r.resumed, None, "call {call} resumed with restart off");
        }
        if !r.stopped {
            assert!(!state.is_resumable());
            return (outcome(&r, total), call);
        }
        assert!(state.is_resumable() == options.restart);
    }
    panic!(
        "{} not searched to depth {depth} in 20000 calls",
        pos.to_fen()
    );
}

/// The bench positions at a reduced depth and mates of mates.epd at
/// 2·dm − 1 plies.
fn cases() -> Vec<(String, Position, u32)> {
    let mut cases = Vec::new();
    for r in load("search_bench") {
        let acd: u32 = r.op("acd").unwrap().parse().unwrap();
        let depth = if acd > 7 { 7 } else { 4 };
        cases.push((
            format!("search_bench {}", r.id.clone().unwrap_or_default()),
            r.position,
            depth,
        ));
    }
    for (i, r) in load("mates").into_iter().enumerate() {
        let dm: u32 = r.op("dm").unwrap().parse().unwrap();
        if i % 8 == 3 && dm >= 2 {
            cases.push((
                format!("mates {}", r.id.clone().unwrap_or_default()),
                r.position,
                2 * dm - 1,
            ));
        }
    }
    cases
}

#[test]
fn a_search_interrupted_every_k_nodes_and_resumed_is_the_uninterrupted_search() {
    let options = SearchOptions::default();
    let mut checked = 0;
    let mut interrupted = 0;
    for (name, pos, depth) in cases() {
        let want = whole(&pos, depth, &options);
        for k in [50, 137, 500, 4_000] {
            let (got, calls) = chunked(&pos, depth, k, &options);
            assert_eq!(
                got, want,
                "{name} depth {depth}, interrupted every {k} nodes"
            );
            checked += 1;
            interrupted += u64::from(calls > 1);
        }
    }
    assert!(checked >= 60, "{checked} comparisons");
    // Most searches were really cut into pieces.
    assert!(
        interrupted * 10 >= checked * 9,
        "{interrupted} of {checked}"
    );
}

#[test]
fn resuming_keeps_the_aspiration_window_and_the_commit_policy() {
    // A 1 cp window fails at almost every iteration: a resumed re-search must
    // continue in the widened window of the aborted one, under either policy,
    // and without PVS too.
    let pos = load("search_bench")[3].position;
    for options in [
        SearchOptions {
            aspiration: 1,
            ..SearchOptions::default()
        },
        SearchOptions {
            aspiration: 1,
            on_fail: search::OnFail::Commit,
            ..SearchOptions::default()
        },
        SearchOptions::reference(1, search::OnFail::Rollback),
    ] {
        let want = whole(&pos, 5, &options);
        for k in [61, 900] {
            assert_eq!(chunked(&pos, 5, k, &options).0, want, "{options:?} k {k}");
        }
    }
}

#[test]
fn without_restart_the_chunks_start_over_and_cost_more() {
    // The same comparison with restart off must fail: each call starts a new
    // search (only the TT is kept), so the nodes differ.
    let off = SearchOptions {
        restart: false,
        ..SearchOptions::default()
    };
    let mut differ = 0;
    let cases: Vec<_> = cases().into_iter().take(4).collect();
    for (_, pos, depth) in &cases {
        let want = whole(pos, *depth, &off);
        let (got, _) = chunked(pos, *depth, 4_000, &off);
        assert_eq!(got.depth, want.depth);
        differ += usize::from(got.nodes != want.nodes);
    }
    assert_eq!(differ, cases.len());
}

#[test]
fn another_root_or_other_options_start_afresh() {
    let records = load("search_bench");
    let (a, b) = (records[0].position, records[1].position);
    let mut tt = Tt::new(TT_BYTES).unwrap();
    let mut state = SearchState::new();
    let options = SearchOptions::default();
    let run = |pos: &Position,
               options: &SearchOptions,
               tt: &mut Tt,
               state: &mut SearchState,
               limits: &Limits| {
        search::search_resumable(pos, &[], limits, Some(tt), options, state, |_| {}).unwrap()
    };
    let short = Limits {
        depth: Some(6),
        nodes: Some(3_000),
        ..Limits::default()
    };
    let r = run(&a, &options, &mut tt, &mut state, &short);
    assert!(r.stopped && state.is_resumable());
    let d = state.resumes(&a, &[], &short, Some(&tt), &options);
    assert!(d.is_some());
    // Another root: afresh (the aborted transaction is committed, so the TT
    // is usable again).
    assert_eq!(state.resumes(&b, &[], &short, Some(&tt), &options), None);
    // Another history, other options, or a depth limit below the aborted
    // iteration: afresh too.
    assert_eq!(state.resumes(&a, &[1], &short, Some(&tt), &options), None);
    let wider = SearchOptions {
        aspiration: 80,
        ..SearchOptions::default()
    };
    assert_eq!(state.resumes(&a, &[], &short, Some(&tt), &wider), None);
    assert_eq!(
        state.resumes(&a, &[], &Limits::depth(1), Some(&tt), &options),
        None
    );
    let r = run(&b, &options, &mut tt, &mut state, &Limits::depth(3));
    assert_eq!(r.resumed, None);
    assert_eq!(r.depth, 3);
    assert!(!state.is_resumable());
    // The plain search() leaves nothing open on the TT.
    let r = search::search(&a, &[], &short, Some(&mut tt), &options, |_| {}).unwrap();
    assert!(r.stopped);
    assert_eq!(tt.active(), None);
    // A time limit leaves a resumable state too (the node at which the clock
    // stopped it is not counted and is entered again): still exact.
    let mut state = SearchState::new();
    let mut tt = Tt::new(TT_BYTES).unwrap();
    let timed = Limits {
        depth: Some(5),
        movetime: Some(std::time::Duration::from_millis(1)),
        ..Limits::default()
    };
    let (mut calls, mut nodes) = (0, 0);
    let last = loop {
        calls += 1;
        let r = run(&a, &options, &mut tt, &mut state, &timed);
        nodes += r.stats.nodes;
        if !r.stopped {
            break r;
        }
        assert!(calls < 100_000);
    };
    assert_eq!(outcome(&last, nodes), whole(&a, 5, &options));
}

// ----- the command line and UCI -----

fn json(out: &std::process::Output) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    serde_json::from_str(&stdout(out)).expect("one JSON object")
}

#[test]
fn cli_chunk_nodes_reaches_the_depth_with_the_nodes_of_one_search() {
    let fen = load("search_bench")[1].position.to_fen();
    let base = [
        "search",
        fen.as_str(),
        "--depth",
        "5",
        "--threads",
        "1",
        "--json",
    ];
    let whole = json(&run_perft(&base));
    let run = |extra: &[&str]| json(&run_perft(&[&base[..], extra].concat()));
    let on = run(&["--chunk-nodes", "700"]);
    for field in ["bestmove", "score", "depth", "nodes", "qnodes", "stopped"] {
        assert_eq!(on[field], whole[field], "{field}");
    }
    let last = |r: &serde_json::Value| r["iterations"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last(&on)["pv"], last(&whole)["pv"]);
    assert_eq!(last(&on)["nodes"], whole["nodes"]);
    let chunks = on["chunks"].as_u64().unwrap();
    assert!(chunks > 5, "{chunks}");
    assert_eq!(on["resumed_chunks"].as_u64(), Some(chunks - 1));
    assert_eq!(on["chunk_nodes"].as_u64(), Some(700));
    assert_eq!(on["restart"], true);
    assert_eq!(
        (whole["chunks"].as_u64(), whole["restart"].as_bool()),
        (Some(1), Some(true))
    );
    // Restart off: every chunk starts over, nothing resumes, and the nodes
    // are not those of one search.
    let off = run(&["--chunk-nodes", "700", "--no-restart"]);
    assert_eq!(off["resumed_chunks"].as_u64(), Some(0));
    assert_eq!(off["restart"], false);
    assert_ne!(off["nodes"], whole["nodes"]);
    // A budget too small for the depth: stopped, and said so.
    let out = run_perft(&[
        "search",
        fen.as_str(),
        "--depth",
        "9",
        "--threads",
        "1",
        "--chunk-nodes",
        "100",
        "--max-chunks",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(
            "info string chunks 3 of 100 nodes resumed 2 restart on nodes 300 depth 9 not reached"
        ),
        "{text}"
    );
}

#[test]
fn cli_chunk_flags_are_checked() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["--chunk-nodes", "0"],
            "--chunk-nodes: expected a whole number of nodes, at least 1, got '0'",
        ),
        (&["--chunk-nodes", "-3"], "--chunk-nodes"),
        (
            &["--chunk-nodes", "50", "--nodes", "100"],
            "--nodes and --movetime cannot be given with it",
        ),
        (
            &["--chunk-nodes", "50", "--movetime", "100"],
            "--nodes and --movetime cannot be given with it",
        ),
        (&["--no-restart"], "--no-restart needs --chunk-nodes"),
        (&["--max-chunks", "3"], "--max-chunks needs --chunk-nodes"),
        (
            &["--chunk-nodes", "50", "--max-chunks", "0"],
            "--max-chunks: expected a whole number of chunks, 1 to 1000000",
        ),
    ];
    for (args, needle) in cases {
        let argv = [&["search", "kiwipete"][..], args].concat();
        let out = run_perft(&argv);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {err}");
        assert!(stdout(&out).is_empty(), "{argv:?}");
        assert_eq!(err.lines().count(), 1, "{argv:?}: {err}");
        assert!(err.contains(needle), "{argv:?}: {err}");
    }
    let out = run_perft(&["search", "--bench", "--chunk-nodes", "100"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--chunk-nodes cannot be given with it"));
}

/// `(info depth lines, bestmove)` of each `go` of a UCI transcript.
fn replies(text: &str) -> Vec<(Vec<&str>, &str)> {
    let mut out = Vec::new();
    let mut infos = Vec::new();
    for line in text.lines() {
        if let Some(mv) = line.strip_prefix("bestmove ") {
            out.push((std::mem::take(&mut infos), mv));
        } else if line.starts_with("info depth ") {
            infos.push(line);
        }
    }
    out
}

fn info_nodes(line: &str) -> u64 {
    let words: Vec<&str> = line.split_whitespace().collect();
    let i = words.iter().position(|&w| w == "nodes").unwrap();
    words[i + 1].parse().unwrap()
}

#[test]
fn uci_go_nodes_repeated_resumes_the_search_of_the_same_position() {
    let fen = load("search_bench")[1].position.to_fen();
    let depth = 5;
    let chunk = 2_000;
    let setup = format!("uci\nsetoption name Threads value 1\nucinewgame\nposition fen {fen}\n");
    let whole = run_perft_env(
        &["uci"],
        &[],
        Some(&format!("{setup}go depth {depth}\nquit\n")),
    );
    let whole = stdout(&whole);
    let want = replies(&whole)[0].0.last().unwrap().to_string();
    let gos = "go nodes 2000\n".repeat(60);
    let out = run_perft_env(&["uci"], &[], Some(&format!("{setup}{gos}quit\n")));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let rs = replies(&text);
    assert_eq!(rs.len(), 60, "{text}");
    // The go that completes the depth: its info line is the uninterrupted
    // one (same score and PV), after the same nodes in all.
    let (k, line) = rs
        .iter()
        .enumerate()
        .find_map(|(k, (infos, _))| {
            infos
                .iter()
                .find(|l| l.starts_with(&format!("info depth {depth} ")))
                .map(|l| (k, *l))
        })
        .expect("depth reached");
    assert!(k > 3, "{k}");
    let total = chunk * k as u64 + info_nodes(line);
    assert_eq!(total, info_nodes(&want), "{text}");
    let tail = |l: &str| l.split(" pv ").nth(1).unwrap().to_string();
    let score = |l: &str| l.split(" nodes ").next().unwrap().to_string();
    assert_eq!((score(line), tail(line)), (score(&want), tail(&want)));
    assert_eq!(
        text.matches("info string resumed at depth").count(),
        59,
        "{text}"
    );

    // Another position, ucinewgame, or Restart off: no resume.
    let out = run_perft_env(
        &["uci"],
        &[],
        Some(&format!(
            "{setup}go nodes 3000\nposition startpos\ngo nodes 3000\nposition fen {fen}\ngo nodes 3000\n\
             ucinewgame\nposition fen {fen}\ngo nodes 3000\nsetoption name Restart value false\n\
             go nodes 3000\ngo nodes 3000\nsetoption name Restart value true\ngo nodes 3000\n\
             go nodes 3000\nquit\n"
        )),
    );
    let text = stdout(&out);
    assert_eq!(replies(&text).len(), 8, "{text}");
    // Only the last go continues the one before it.
    assert_eq!(
        text.matches("info string resumed at depth").count(),
        1,
        "{text}"
    );
    assert!(text.contains("option name Restart type check default true"));
}
