//! The search mode: mates from `positions/mates.epd` (Lichess puzzles verified
//! with Stockfish), the TT-independence of the reference-mode root score, and
//! the `perft search` command line.

use rayon::prelude::*;

use perft::search::tt::{Isolation, Tt};
use perft::search::{self, Limits, OnFail, Score, SearchOptions, SearchResult};
use perft::validate::suite::EpdRecord;
use perft::{Move, MoveKind, Piece, Position, Square};

use crate::common::{load, run_perft, run_perft_env, stderr, stdout};

/// The legal move `san` names in `pos` (SAN as python-chess writes it; `+#!?`
/// ignored), if exactly one does.
fn san_to_move(pos: &Position, san: &str) -> Option<Move> {
    let s = san.trim_end_matches(['+', '#', '!', '?']);
    let legal = pos.legal_moves();
    if s == "O-O" || s == "O-O-O" {
        let king_side = s == "O-O";
        let found: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| {
                m.kind() == MoveKind::Castling && (m.to().file() > m.from().file()) == king_side
            })
            .collect();
        return (found.len() == 1).then(|| found[0]);
    }
    let (body, promotion) = match s.split_once('=') {
        Some((b, p)) => (b, Some(Piece::from_char(p.chars().next()?)?)),
        None => (s, None),
    };
    let mut chars: Vec<char> = body.chars().collect();
    let piece = if chars.first()?.is_ascii_uppercase() {
        Piece::from_char(chars.remove(0))?
    } else {
        Piece::Pawn
    };
    let n = chars.len();
    if n < 2 {
        return None;
    }
    let to = Square::parse(&chars[n - 2..].iter().collect::<String>())?;
    let hints: Vec<char> = chars[..n - 2]
        .iter()
        .copied()
        .filter(|&c| c != 'x')
        .collect();
    let found: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| {
            m.kind() != MoveKind::Castling
                && pos.piece_on(m.from()).map(|(_, p)| p) == Some(piece)
                && m.to() == to
                && m.promotion() == promotion
                && hints.iter().all(|&c| {
                    if c.is_ascii_digit() {
                        m.from().rank().to_char() == c
                    } else {
                        m.from().file().to_char() == c
                    }
                })
        })
        .collect();
    (found.len() == 1).then(|| found[0])
}

struct Mate {
    record: EpdRecord,
    dm: u32,
    bm: Vec<Move>,
}

fn label(r: &EpdRecord) -> String {
    format!("mates.epd:{} {}", r.line, r.id.as_deref().unwrap_or("?"))
}

/// Every line of `positions/mates.epd`, its `dm` and its `bm` moves.
fn mates() -> Vec<Mate> {
    load("mates")
        .into_iter()
        .map(|record| {
            let dm: u32 = record
                .op("dm")
                .and_then(|d| d.parse().ok())
                .unwrap_or_else(|| panic!("{}: no dm", label(&record)));
            let bm: Vec<Move> = record
                .op("bm")
                .unwrap_or_else(|| panic!("{}: no bm", label(&record)))
                .split_whitespace()
                .map(|san| {
                    san_to_move(&record.position, san).unwrap_or_else(|| {
                        panic!("{}: bm {san} is not a legal move", label(&record))
                    })
                })
                .collect();
            Mate { record, dm, bm }
        })
        .collect()
}

#[test]
fn mates_file_has_77_positions_whose_pv_ends_in_checkmate() {
    // The counts per dm are those of shared/search/README.md.
    let all = mates();
    assert_eq!(all.len(), 77);
    for (dm, want) in [(1, 12), (2, 23), (3, 17), (4, 25)] {
        assert_eq!(all.iter().filter(|m| m.dm == dm).count(), want, "dm {dm}");
    }
    // Each pv is 2*dm - 1 legal plies ending in checkmate (this checks the
    // SAN reader as much as the file), and its first move is one of bm.
    for m in &all {
        let pv: Vec<&str> = m.record.op("pv").unwrap().split_whitespace().collect();
        assert_eq!(pv.len() as u32, 2 * m.dm - 1, "{}", label(&m.record));
        let mut pos = m.record.position;
        for (i, san) in pv.iter().enumerate() {
            let mv = san_to_move(&pos, san)
                .unwrap_or_else(|| panic!("{}: pv move {san} is not legal", label(&m.record)));
            if i == 0 {
                assert!(m.bm.contains(&mv), "{}", label(&m.record));
            }
            pos = pos.play_unchecked(mv);
        }
        assert!(
            pos.in_check() && pos.legal_moves().is_empty(),
            "{}: pv does not mate",
            label(&m.record)
        );
    }
}

fn solve(m: &Mate, tt: Option<&mut Tt>, options: &SearchOptions) -> SearchResult {
    let depth = 2 * m.dm - 1;
    search::search(
        &m.record.position,
        &[],
        &Limits::depth(depth),
        tt,
        options,
        |_| {},
    )
    .unwrap_or_else(|e| panic!("{}: {e}", label(&m.record)))
}

fn check_mate_found(m: &Mate, r: &SearchResult, mode: &str) -> Result<(), String> {
    let best = r
        .best_move
        .ok_or_else(|| format!("{} [{mode}]: no best move", label(&m.record)))?;
    // The PV is a legal line from the root, led by the best move.
    let mut pos = m.record.position;
    for (i, &mv) in r.pv.iter().enumerate() {
        if !pos.is_legal(mv) {
            return Err(format!(
                "{} [{mode}]: pv move {} ({}) is illegal",
                label(&m.record),
                i + 1,
                mv.to_uci(false)
            ));
        }
        pos = pos.play_unchecked(mv);
    }
    if r.pv.first() != Some(&best) {
        return Err(format!(
            "{} [{mode}]: pv does not start with the best move",
            label(&m.record)
        ));
    }
    if r.score != Some(Score::Mate(m.dm as i32)) || !m.bm.contains(&best) {
        return Err(format!(
            "{} [{mode}]: got score {:?} bestmove {}, want mate {} with one of {:?}",
            label(&m.record),
            r.score,
            best.to_uci(false),
            m.dm,
            m.record.op("bm")
        ));
    }
    Ok(())
}

/// Without a TT nothing cuts the PV short: it is the whole mate, 2·dm − 1
/// plies ending in checkmate (the triangular PV table at work).
fn check_pv_mates(m: &Mate, r: &SearchResult) -> Result<(), String> {
    let pos =
        r.pv.iter()
            .fold(m.record.position, |p, &mv| p.play_unchecked(mv));
    if r.pv.len() as u32 != 2 * m.dm - 1 || !pos.in_check() || !pos.legal_moves().is_empty() {
        let pv: Vec<String> = r.pv.iter().map(|mv| mv.to_uci(false).to_string()).collect();
        return Err(format!(
            "{} [tt off]: pv {} is not a mate in {}",
            label(&m.record),
            pv.join(" "),
            m.dm
        ));
    }
    Ok(())
}

#[test]
fn all_77_mates_are_solved_with_two_threads_over_the_shared_tt() {
    // Lazy SMP: the main thread and a helper one ply ahead share one TT,
    // read-committed (the default) and read-uncommitted. Sequential over the
    // positions: each search runs two threads already.
    let mut failures = Vec::new();
    for isolation in [Isolation::ReadCommitted, Isolation::ReadUncommitted] {
        let mut tt = Tt::new(4 << 20).unwrap();
        tt.set_isolation(isolation);
        let options = SearchOptions {
            threads: 2,
            ..SearchOptions::default()
        };
        for m in mates() {
            tt.clear().unwrap();
            let r = solve(&m, Some(&mut tt), &options);
            if let Err(e) = check_mate_found(&m, &r, &format!("2 threads, {isolation:?}")) {
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn all_77_mates_are_solved_at_depth_2dm_minus_1_with_tt_on_and_off() {
    let all = mates();
    let failures: Vec<String> = all
        .par_iter()
        .flat_map_iter(|m| {
            let mut out = Vec::new();
            let default = SearchOptions::default();
            let r = solve(m, None, &default);
            out.push(check_mate_found(m, &r, "tt off"));
            out.push(check_pv_mates(m, &r));
            for (mode, options) in [
                ("tt on, rollback", default.clone()),
                (
                    "tt on, 1 cp window, rollback",
                    SearchOptions {
                        aspiration: 1,
                        on_fail: OnFail::Rollback,
                        ..SearchOptions::default()
                    },
                ),
                (
                    "tt on, 1 cp window, commit",
                    SearchOptions {
                        aspiration: 1,
                        on_fail: OnFail::Commit,
                        ..SearchOptions::default()
                    },
                ),
            ] {
                let mut tt = Tt::new(4 << 20).unwrap();
                out.push(check_mate_found(
                    m,
                    &solve(m, Some(&mut tt), &options),
                    mode,
                ));
            }
            out.into_iter().filter_map(Result::err)
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn any_aspiration_width_and_node_budget_is_safe() {
    // Extreme widths behave as a very narrow or a full window; a zero node
    // budget still yields a legal move. (No overflow, no panic.)
    let m = first_mate(2);
    for width in [1, i32::MAX] {
        for on_fail in [OnFail::Rollback, OnFail::Commit] {
            let mut tt = Tt::new(1 << 20).unwrap();
            let options = SearchOptions {
                aspiration: width,
                on_fail,
                ..SearchOptions::default()
            };
            check_mate_found(&m, &solve(&m, Some(&mut tt), &options), "extreme width").unwrap();
        }
    }
    let pos = m.record.position;
    let r = search::search(
        &pos,
        &[],
        &Limits::nodes(0),
        None,
        &SearchOptions::default(),
        |_| {},
    )
    .unwrap();
    assert!(r.stopped && r.depth == 0 && r.score.is_none());
    assert!(pos.is_legal(r.best_move.unwrap()));
}

// ----- search rules: draws, collisions, the PV -----

fn search_no_tt(pos: &Position, history: &[u64], depth: u32) -> SearchResult {
    search::search(
        pos,
        history,
        &Limits::depth(depth),
        None,
        &SearchOptions::default(),
        |_| {},
    )
    .unwrap()
}

fn uci(pos: &Position, text: &str) -> Move {
    pos.parse_uci(text)
        .unwrap_or_else(|| panic!("{text} not legal in {}", pos.to_fen()))
}

/// White is a rook and pawns down but has a perpetual check: Qe8+ Kh7 Qh5+
/// Kg8 repeats (Stockfish 15.1: `score cp 0`, `bestmove h5e8`).
const PERPETUAL: &str = "6k1/ppp3p1/8/7Q/8/rr6/6PP/7K w - - 0 1";

#[test]
fn a_position_of_the_game_history_repeated_is_a_draw() {
    let start = Position::from_fen(PERPETUAL).unwrap();
    // Without history, depth 1 cannot see the perpetual: White is lost.
    let r = search_no_tt(&start, &[], 1);
    assert!(
        matches!(r.score, Some(Score::Cp(cp)) if cp < -200),
        "{:?}",
        r.score
    );
    // The same position after Qe8+ Kh7 Qh5+ Kg8: Qe8+ now repeats a game
    // position at ply 1, a draw, the best White has.
    let mut pos = start;
    let mut history = Vec::new();
    for mv in ["h5e8", "g8h7", "e8h5", "h7g8"] {
        history.push(pos.hash());
        pos = pos.play_unchecked(uci(&pos, mv));
    }
    assert_eq!(pos.hash(), start.hash());
    let r = search_no_tt(&pos, &history, 1);
    assert_eq!(r.score, Some(Score::Cp(0)));
    assert_eq!(r.best_move_uci(), "h5e8");
    // Deep enough, the search finds the repetition in its own tree (the root
    // comes back at ply 4), with and without a TT.
    let r = search_no_tt(&start, &[], 5);
    assert_eq!(
        (r.score, r.best_move_uci()),
        (Some(Score::Cp(0)), "h5e8".into())
    );
    let mut tt = Tt::new(1 << 20).unwrap();
    let r = search::search(
        &start,
        &[],
        &Limits::depth(6),
        Some(&mut tt),
        &SearchOptions::default(),
        |_| {},
    )
    .unwrap();
    assert_eq!(
        (r.score, r.best_move_uci()),
        (Some(Score::Cp(0)), "h5e8".into())
    );
}

#[test]
fn fifty_move_rule_draws_unless_the_last_move_mates() {
    // Two black queens against a bare king: lost, unless the halfmove clock
    // is at 99 and White's move (Kg1, the only one) reaches 100.
    let lost = Position::from_fen("k7/8/8/8/8/8/qq6/7K w - - 0 80").unwrap();
    for depth in 1..=3 {
        let r = search_no_tt(&lost, &[], depth);
        assert!(
            matches!(r.score, Some(Score::Cp(cp)) if cp < -1000)
                || matches!(r.score, Some(Score::Mate(n)) if n < 0),
            "depth {depth}: {:?}",
            r.score
        );
    }
    let drawn = Position::from_fen("k7/8/8/8/8/8/qq6/7K w - - 99 80").unwrap();
    for depth in 1..=4 {
        assert_eq!(search_no_tt(&drawn, &[], depth).score, Some(Score::Cp(0)));
    }
    // mates.epd 00OPk with the clock at 99: Nf7# is the 100th half-move and
    // still mates (every other move draws).
    let mate = Position::from_fen("6rk/7p/R2N3P/3r4/1P5K/P7/8/8 w - - 99 51").unwrap();
    for depth in 1..=3 {
        let r = search_no_tt(&mate, &[], depth);
        assert_eq!(r.score, Some(Score::Mate(1)), "depth {depth}");
        assert_eq!(r.best_move_uci(), "d6f7");
    }
}

#[test]
fn a_tt_entry_whose_move_is_illegal_is_a_collision_and_is_ignored() {
    // A mate in 1. Before the search, every child of the root gets an entry
    // (exact, the depth the second iteration searches it to) claiming that
    // the side to move there mates in one: if the search trusted those
    // entries, every root move would lose. Their move is the root move itself,
    // illegal in the child (its origin is empty now), so they must read as a
    // key collision and be ignored.
    let m = first_mate(1);
    let pos = m.record.position;
    let run = |colliding: bool| {
        let mut tt = Tt::new(1 << 20).unwrap();
        let txn = tt.begin().unwrap();
        for &mv in pos.legal_moves().iter() {
            let child = pos.play_unchecked(mv);
            let data = perft::search::tt::TtData {
                mv: if colliding { mv } else { Move::NONE },
                score: (search::MATE - 1) as i16,
                depth: 1,
                bound: perft::search::tt::Bound::Exact,
            };
            tt.store(txn, child.hash(), data).unwrap();
        }
        tt.commit(txn).unwrap();
        // Reference mode: pure alpha-beta, so an exact entry of equal depth
        // cuts off wherever it is found.
        search::search(
            &pos,
            &[],
            &Limits::depth(2),
            Some(&mut tt),
            &SearchOptions::reference(0, OnFail::Rollback),
            |_| {},
        )
        .unwrap()
    };
    let r = run(true);
    check_mate_found(&m, &r, "colliding entries").unwrap();
    assert!(
        r.stats.tt_collisions >= pos.legal_moves().len() as u64,
        "{:?}",
        r.stats
    );
    // The control: the same entries with no move to check are trusted, and
    // they do mislead the search, so the test above has teeth.
    let r = run(false);
    assert_eq!(r.score, Some(Score::Mate(-1)), "{:?}", r.stats);
    assert_eq!(r.stats.tt_collisions, 0);
}

// ----- the root score does not depend on the TT (reference mode) -----

/// At least 30 positions from `positions/*.epd`: all of `standard.epd` and
/// every fourth line of `perftsuite.epd`, skipping positions near the
/// fifty-move limit.
fn reference_positions() -> Vec<(String, Position)> {
    let mut out = Vec::new();
    for (file, step) in [("standard", 1), ("perftsuite", 4)] {
        for r in load(file).into_iter().step_by(step) {
            if r.position.halfmove_clock() < 90 {
                out.push((format!("{file}.epd:{}", r.line), r.position));
            }
        }
    }
    out
}

/// Depth 4: a repetition below the root that depends on the path to a node
/// (graph history interaction, the one way a TT can change a fixed-depth
/// score) needs a position at ply s >= 1 repeated at ply s + 4 <= depth
/// (draws are checked down to the horizon, not deeper in quiescence), so at
/// depth 4 only the root can be repeated, and it is on every path.
const REFERENCE_DEPTH: u32 = 4;

#[test]
fn reference_root_score_is_identical_with_tt_off_rollback_commit_and_a_1cp_window() {
    let positions = reference_positions();
    assert!(positions.len() >= 30, "{}", positions.len());
    let modes: [(&str, bool, i32, OnFail); 5] = [
        ("tt off", false, 0, OnFail::Rollback),
        (
            "tt on, default window, rollback",
            true,
            search::DEFAULT_ASPIRATION,
            OnFail::Rollback,
        ),
        (
            "tt on, default window, commit",
            true,
            search::DEFAULT_ASPIRATION,
            OnFail::Commit,
        ),
        ("tt on, 1 cp window, rollback", true, 1, OnFail::Rollback),
        ("tt on, 1 cp window, commit", true, 1, OnFail::Commit),
    ];
    let outcomes: Vec<(String, Vec<SearchResult>)> = positions
        .par_iter()
        .map(|(name, pos)| {
            let results = modes
                .iter()
                .map(|&(_, use_tt, width, on_fail)| {
                    let mut tt = Tt::new(4 << 20).unwrap();
                    let options = SearchOptions::reference(width, on_fail);
                    let limits = Limits::depth(REFERENCE_DEPTH);
                    search::search(
                        pos,
                        &[],
                        &limits,
                        use_tt.then_some(&mut tt),
                        &options,
                        |_| {},
                    )
                    .unwrap()
                })
                .collect();
            (name.clone(), results)
        })
        .collect();

    let mut mismatches = Vec::new();
    for (name, results) in &outcomes {
        let reference = results[0].score;
        assert!(reference.is_some(), "{name}: no score");
        for (i, r) in results.iter().enumerate().skip(1) {
            assert_eq!(r.depth, results[0].depth, "{name}");
            if r.score != reference {
                mismatches.push(format!(
                    "{name} [{}]: {:?} vs tt off {:?}",
                    modes[i].0, r.score, reference
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));

    // The comparison is not vacuous: the TT cut off, and the 1 cp window
    // failed and rolled back (or committed) many times.
    let total = |i: usize, f: &dyn Fn(&SearchResult) -> u64| -> u64 {
        outcomes.iter().map(|(_, r)| f(&r[i])).sum()
    };
    assert!(total(1, &|r| r.stats.tt_cutoffs) > 1000);
    assert!(total(3, &|r| r.tt.rollbacks) > positions.len() as u64);
    assert!(total(3, &|r| r.tt.discarded) > 0);
    assert!(total(4, &|r| r.stats.aspiration_fails) > positions.len() as u64);
    assert_eq!(total(4, &|r| r.tt.rollbacks), 0);
}

// ----- the command line -----

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}): {}", stdout(out)))
}

/// The UCI text of every `bm` move of a mates.epd record.
fn bm_uci(m: &Mate) -> Vec<String> {
    m.bm.iter().map(|mv| mv.to_uci(false).to_string()).collect()
}

fn first_mate(dm: u32) -> Mate {
    mates().into_iter().find(|m| m.dm == dm).unwrap()
}

#[test]
fn cli_finds_mate_in_3_at_depth_8() {
    let m = first_mate(3);
    let fen = m.record.position.to_fen();
    let out = run_perft(&["search", &fen, "--depth", "8"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    // One info line per iteration, the TT line, bestmove.
    assert_eq!(lines.len(), 8 + 2, "{text}");
    for (d, line) in lines[..8].iter().enumerate() {
        assert!(
            line.starts_with(&format!("info depth {} score ", d + 1)),
            "{line}"
        );
        for field in [" nodes ", " nps ", " time ", " pv "] {
            assert!(line.contains(field), "{line}");
        }
    }
    assert!(lines[7].contains(" score mate 3 "), "{text}");
    assert!(
        lines[8].starts_with("info string tt transactions "),
        "{text}"
    );
    for field in [" commits ", " rollbacks ", " discarded ", " hitrate "] {
        assert!(lines[8].contains(field), "{}", lines[8]);
    }
    let best = lines[9].strip_prefix("bestmove ").unwrap();
    assert!(
        bm_uci(&m).contains(&best.to_string()),
        "{best} not in {:?}",
        m.record.op("bm")
    );
}

#[test]
fn cli_json_is_one_object_with_iterations_and_tt_counters() {
    let m = first_mate(2);
    let fen = m.record.position.to_fen();
    let out = run_perft(&["search", &fen, "--depth", "4", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["kind"], "search");
    assert_eq!(v["depth"], 4);
    assert_eq!(v["iterations"].as_array().unwrap().len(), 4);
    assert_eq!(v["iterations"][3]["depth"], 4);
    assert_eq!(v["score"]["mate"], 2);
    assert!(bm_uci(&m).contains(&v["bestmove"].as_str().unwrap().to_string()));
    let tt = &v["tt"];
    assert_eq!(tt["status_slots"], 16384);
    let transactions = tt["transactions"].as_u64().unwrap();
    assert!(transactions >= 4);
    assert_eq!(
        transactions,
        tt["commits"].as_u64().unwrap() + tt["rollbacks"].as_u64().unwrap()
    );
    assert!(tt["hit_rate"].as_f64().unwrap() >= 0.0);

    let out = run_perft(&["search", &fen, "--depth", "3", "--no-tt", "--json"]);
    let v = json(&out);
    assert!(v["tt"].is_null());
}

#[test]
fn cli_one_cp_window_with_rollback_rolls_back_and_agrees_with_no_tt() {
    // A mate in 4: the cp scores of the early iterations turn into a mate
    // score, so a 1 cp window must fail; the best move must still be the
    // --no-tt one, and one of the verified mating moves.
    let m = mates()
        .into_iter()
        .find(|m| m.dm == 4 && m.bm.len() == 1)
        .unwrap();
    let fen = m.record.position.to_fen();
    let depth = "7";
    let with_tt = json(&run_perft(&[
        "search",
        &fen,
        "--depth",
        depth,
        "--aspiration",
        "1",
        "--on-fail",
        "rollback",
        "--json",
    ]));
    let no_tt = json(&run_perft(&[
        "search", &fen, "--depth", depth, "--no-tt", "--json",
    ]));
    assert!(
        with_tt["tt"]["rollbacks"].as_u64().unwrap() > 0,
        "{with_tt}"
    );
    assert!(with_tt["aspiration_fails"].as_u64().unwrap() > 0);
    assert_eq!(with_tt["bestmove"], no_tt["bestmove"]);
    assert_eq!(with_tt["score"]["mate"], 4);
    assert_eq!(no_tt["score"]["mate"], 4);
    assert_eq!(with_tt["bestmove"].as_str().unwrap(), bm_uci(&m)[0]);
}

#[test]
fn cli_moves_count_for_repetitions() {
    // PERPETUAL after Qe8+ Kh7 Qh5+ Kg8 is PERPETUAL again: with the moves
    // played by --moves, Qe8+ repeats a game position, a draw even at depth 1;
    // from the bare FEN, depth 1 sees only the material.
    let with_moves = json(&run_perft(&[
        "search", PERPETUAL, "--moves", "h5e8", "g8h7", "e8h5", "h7g8", "--depth", "1", "--json",
    ]));
    assert_eq!(with_moves["score"]["cp"], 0, "{with_moves}");
    assert_eq!(with_moves["bestmove"], "h5e8");
    assert_eq!(with_moves["fen"], PERPETUAL.replace(" 0 1", " 4 3"));
    let bare = json(&run_perft(&["search", PERPETUAL, "--depth", "1", "--json"]));
    assert!(bare["score"]["cp"].as_i64().unwrap() < -200, "{bare}");
}

/// The replies of one `go` in a `perft uci` session: its `info` lines and
/// the move of its `bestmove` line.
struct Go<'a> {
    infos: Vec<&'a str>,
    bestmove: &'a str,
}

/// Splits a `perft uci` transcript into the replies of its `go` commands.
fn go_replies(text: &str) -> Vec<Go<'_>> {
    let mut out = Vec::new();
    let mut infos = Vec::new();
    for line in text.lines() {
        if let Some(mv) = line.strip_prefix("bestmove ") {
            out.push(Go {
                infos: std::mem::take(&mut infos),
                bestmove: mv,
            });
        } else if line.starts_with("info depth ") {
            infos.push(line);
        }
    }
    out
}

/// The value after `field` in an info line.
fn info_field<'a>(line: &'a str, field: &str) -> &'a str {
    let words: Vec<&str> = line.split_whitespace().collect();
    let i = words
        .iter()
        .position(|&w| w == field)
        .unwrap_or_else(|| panic!("{field} in {line}"));
    words[i + 1]
}

#[test]
fn uci_go_depth_nodes_and_movetime_run_the_search() {
    // Through the binary: two mates of each length from mates.epd at depth
    // 2*dm - 1, then the first mate in 2 after its first two pv moves (mate
    // in 1 left, the game moves given by `position ... moves`), a node
    // budget, a time budget, and a checkmated root.
    let all = mates();
    let mut picked: Vec<&Mate> = Vec::new();
    for dm in 1..=4 {
        picked.extend(all.iter().filter(|m| m.dm == dm).take(2));
    }
    // One thread: every iteration gets its info line (with threads, the
    // main thread may adopt a helper's deeper iteration and skip depths).
    let mut input = String::from("uci\nsetoption name Threads value 1\nisready\n");
    for m in &picked {
        input += &format!(
            "ucinewgame\nposition fen {}\ngo depth {}\n",
            m.record.position.to_fen(),
            2 * m.dm - 1
        );
    }
    let m2 = picked.iter().find(|m| m.dm == 2).unwrap();
    let pv: Vec<&str> = m2.record.op("pv").unwrap().split_whitespace().collect();
    let first = san_to_move(&m2.record.position, pv[0]).unwrap();
    let after = m2.record.position.play_unchecked(first);
    let reply = san_to_move(&after, pv[1]).unwrap();
    input += &format!(
        "position fen {} moves {} {}\ngo depth 3\n",
        m2.record.position.to_fen(),
        first.to_uci(false),
        reply.to_uci(false)
    );
    let m1 = picked[0];
    input += &format!(
        "position fen {}\ngo nodes 5000\ngo movetime 300\n",
        m1.record.position.to_fen()
    );
    input += "position fen rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\ngo depth 3\nquit\n";

    let out = run_perft_env(&["uci"], &[], Some(&input));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("uciok\nreadyok\n"), "{text}");
    let replies = go_replies(&text);
    assert_eq!(replies.len(), picked.len() + 4, "{text}");

    for (m, go) in picked.iter().zip(&replies) {
        let depth = 2 * m.dm - 1;
        // One info line per iteration, depths 1 to 2*dm - 1, all fields.
        assert_eq!(go.infos.len() as u32, depth, "{}: {text}", label(&m.record));
        for (d, line) in go.infos.iter().enumerate() {
            assert_eq!(info_field(line, "depth"), (d + 1).to_string(), "{line}");
            for field in ["score", "nodes", "nps", "time", "pv"] {
                info_field(line, field);
            }
        }
        let last_info = go.infos.last().unwrap();
        assert!(
            last_info.contains(&format!(" score mate {} ", m.dm)),
            "{}: {last_info}",
            label(&m.record)
        );
        assert!(
            bm_uci(m).contains(&go.bestmove.to_string()),
            "{}: bestmove {} not in {:?}",
            label(&m.record),
            go.bestmove,
            m.record.op("bm")
        );
    }
    let rest = &replies[picked.len()..];
    // After the first two pv moves: mate in 1 (the pv reply is Stockfish's
    // best defence); bm lists root moves only, so check that the move mates.
    assert!(
        rest[0].infos.last().unwrap().contains(" score mate 1 "),
        "{text}"
    );
    let end = after.play_unchecked(reply);
    let mv = end.parse_uci(rest[0].bestmove).expect("legal bestmove");
    let mated = end.play_unchecked(mv);
    assert!(mated.in_check() && mated.legal_moves().is_empty(), "{text}");
    // A node budget: a legal move, and no info line past the budget.
    let pos1 = m1.record.position;
    assert!(pos1.parse_uci(rest[1].bestmove).is_some(), "{text}");
    for line in &rest[1].infos {
        assert!(
            info_field(line, "nodes").parse::<u64>().unwrap() <= 5000,
            "{line}"
        );
    }
    // A time budget: deep enough for the mate in 1.
    assert!(
        rest[2].infos.last().unwrap().contains(" score mate 1 "),
        "{text}"
    );
    assert!(bm_uci(m1).contains(&rest[2].bestmove.to_string()), "{text}");
    // Fool's mate: no legal move.
    assert_eq!(rest[3].infos, ["info depth 0 score mate 0"], "{text}");
    assert_eq!(rest[3].bestmove, "(none)");
}

#[test]
fn cli_node_and_time_limits_stop_with_a_legal_move() {
    let pos = Position::from_fen(perft::chess::fen::KIWIPETE).unwrap();
    let out = run_perft(&["search", "kiwipete", "--nodes", "5000", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert!(v["nodes"].as_u64().unwrap() <= 5000, "{v}");
    assert_eq!(v["stopped"], true);
    assert!(
        pos.parse_uci(v["bestmove"].as_str().unwrap()).is_some(),
        "{v}"
    );

    let start = std::time::Instant::now();
    let out = run_perft(&["search", "kiwipete", "--movetime", "300", "--json"]);
    assert!(start.elapsed().as_secs_f64() < 10.0);
    let v = json(&out);
    assert_eq!(v["stopped"], true);
    assert!(v["depth"].as_u64().unwrap() >= 1, "{v}");
    assert!(
        pos.parse_uci(v["bestmove"].as_str().unwrap()).is_some(),
        "{v}"
    );
}

#[test]
fn cli_checkmated_and_stalemated_roots_have_no_best_move() {
    // Fool's mate (1.f3 e5 2.g4 Qh4#): White is checkmated.
    let out = run_perft(&[
        "search",
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("info depth 0 score mate 0\n"), "{text}");
    assert!(text.ends_with("bestmove (none)\n"), "{text}");
    // Black king h8, white queen f7 and king g6, Black to move: stalemate.
    let out = run_perft(&["search", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "--json"]);
    let v = json(&out);
    assert_eq!(v["score"]["cp"], 0);
    assert_eq!(v["bestmove"], "(none)");
}

#[test]
fn cli_bad_flags_are_one_line_errors_with_exit_code_2() {
    // Every bad value or combination, negative numbers and conflicting
    // limits included, is exactly one line on stderr naming the flag, exit
    // code 2, nothing on stdout.
    let cases: [(&[&str], &str); 26] = [
        (&["--tt", "64XB"], "--tt: invalid size '64XB'"),
        (&["--tt", "5XB"], "--tt: invalid size '5XB'"),
        (&["--tt", "1B"], "--tt: TT of 1 B is too small"),
        (&["--tt", "-1"], "--tt: invalid size '-1'"),
        (&["--tt", "0"], "too small"),
        (&["--tt", "1TiB"], "memory"),
        (&["--tt", "99999999999TiB"], "too large"),
        (
            &["--depth", "0"],
            "--depth: expected a whole number of plies, 1 to 100, got '0'",
        ),
        (
            &["--depth", "-1"],
            "--depth: expected a whole number of plies, 1 to 100, got '-1'",
        ),
        (&["--depth", "101"], "--depth"),
        (&["--depth", "x"], "--depth"),
        (
            &["--nodes", "0"],
            "--nodes: expected a whole number of nodes, at least 1",
        ),
        (&["--nodes", "-1"], "--nodes"),
        (&["--movetime", "0"], "--movetime"),
        (&["--movetime", "-5"], "--movetime"),
        (
            &["--aspiration", "-5"],
            "--aspiration: expected a whole number of centipawns, 0 to 10000, got '-5'",
        ),
        (&["--aspiration", "10001"], "--aspiration"),
        (
            &["--on-fail", "maybe"],
            "--on-fail: expected rollback or commit, got 'maybe'",
        ),
        (
            &["--depth", "3", "--nodes", "10"],
            "alternatives: give one (got --depth, --nodes)",
        ),
        (
            &["--depth", "3", "--movetime", "10"],
            "(got --depth, --movetime)",
        ),
        (
            &["--nodes", "3", "--movetime", "10"],
            "(got --nodes, --movetime)",
        ),
        (
            &["--no-tt", "--tt", "1MiB"],
            "--tt and --no-tt given together",
        ),
        (
            &["--no-tt", "--on-fail", "commit"],
            "--on-fail and --no-tt given together",
        ),
        (
            &["--moves", "e2e5"],
            "--moves: move 1 'e2e5' is not a legal move",
        ),
        (&["--chess960", "--moves", "e1g1"], "--moves"),
        (&["--depth", "1", "--tt", "12"], ""),
    ];
    for (args, needle) in cases {
        let mut argv = vec!["search", "kiwipete"];
        argv.extend_from_slice(args);
        let out = run_perft(&argv);
        let err = stderr(&out);
        if needle.is_empty() {
            // A bare number is MiB: valid.
            assert_eq!(out.status.code(), Some(0), "{argv:?}: {err}");
            continue;
        }
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {err}");
        assert!(stdout(&out).is_empty(), "{argv:?}");
        assert_eq!(err.lines().count(), 1, "{argv:?}: {err}");
        assert!(err.starts_with("error: "), "{argv:?}: {err}");
        assert!(err.contains(needle), "{argv:?}: {err}");
    }
    // Bad positions are one-line input errors too.
    for position in [
        "not a fen",
        "not/a/fen w - -",
        "8/8/8/8/8/8/8/Kk6 w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
    ] {
        let out = run_perft(&["search", position, "--depth", "1"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{position}: {err}");
        assert_eq!(err.lines().count(), 1, "{position}: {err}");
        assert!(stdout(&out).is_empty(), "{position}");
    }
}

#[test]
fn bench_json_has_a_stable_one_thread_signature_and_a_scaling_table() {
    let out = run_perft(&[
        "search",
        "--bench",
        "--depth",
        "3",
        "--threads",
        "1,2",
        "--rounds",
        "2",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    crate::schemas::assert_valid(&v, "search-bench", "perft search --bench --json");
    assert_eq!(v["kind"], "search-bench");
    let positions = v["positions"].as_array().unwrap();
    assert!(positions.len() >= 12, "{v}");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        (runs[0]["threads"].as_u64(), runs[1]["threads"].as_u64()),
        (Some(1), Some(2))
    );
    // The signature: the one-thread total, the same in both rounds, and the
    // sum of the positions' nodes.
    let sum: u64 = positions.iter().map(|p| p["nodes"].as_u64().unwrap()).sum();
    assert_eq!(v["signature"].as_u64(), Some(sum));
    assert_eq!(v["signature_stable"], true);
    for r in runs[0]["rounds"].as_array().unwrap() {
        assert_eq!(r["nodes"].as_u64(), Some(sum));
    }
    // Every position has a legal best move at its depth.
    for p in positions {
        let pos = Position::from_fen(p["fen"].as_str().unwrap()).unwrap();
        assert!(
            pos.parse_uci(p["bestmove"].as_str().unwrap()).is_some(),
            "{p}"
        );
        assert_eq!(p["depth"], 3);
    }
}

#[test]
fn bench_and_threads_flags_are_checked() {
    for args in [
        &["search", "--bench", "--nodes", "5"][..],
        &["search", "--bench", "kiwipete"],
        &["search", "--bench", "--no-tt"],
        &["search", "--threads", "1,2", "--depth", "2"],
        &["search", "--threads", "0", "--depth", "2"],
        &["search", "--threads", "2", "--no-tt", "--depth", "2"],
        &["search", "--rounds", "2", "--depth", "2"],
        &["search", "--bench", "--rounds", "0"],
    ] {
        let out = run_perft(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{args:?}");
        assert_eq!(
            stderr(&out).trim().lines().count(),
            1,
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn cli_two_threads_find_the_mate_in_3() {
    let m = first_mate(3);
    let fen = m.record.position.to_fen();
    let out = run_perft(&["search", &fen, "--depth", "5", "--threads", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(" score mate 3 "), "{text}");
    let best = text
        .lines()
        .last()
        .unwrap()
        .strip_prefix("bestmove ")
        .unwrap();
    assert!(bm_uci(&m).contains(&best.to_string()), "{text}");
}
