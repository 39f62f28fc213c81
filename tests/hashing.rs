//! The incrementally updated Zobrist key equals the key computed from scratch.

use perft::{Position, Zobrist};

use crate::common::load;

fn walk(pos: &Position, depth: u32, visited: &mut u64) {
    assert_eq!(
        pos.hash(),
        pos.compute_hash(),
        "key drift at {}",
        pos.to_fen()
    );
    *visited += 1;
    if depth == 0 {
        return;
    }
    for &mv in pos.legal_moves().iter() {
        walk(&pos.play_unchecked(mv), depth - 1, visited);
    }
}

#[test]
fn incremental_key_equals_recomputed_key_after_every_move_of_perft_4() {
    // Castling (both kinds), en passant, promotions, captures of castling
    // rooks, Chess960 castling with king or rook already on its target.
    let fens = [
        perft::chess::fen::STARTPOS,
        perft::chess::fen::KIWIPETE,
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
    ];
    for fen in fens {
        let pos = Position::from_fen(fen).unwrap();
        let mut visited = 0;
        walk(&pos, 4, &mut visited);
        assert!(visited > 1000, "{fen}: only {visited} nodes");
    }
}

#[test]
fn incremental_key_holds_on_tricky_positions_to_depth_3() {
    for r in load("tricky").iter().chain(load("tricky960").iter()) {
        let mut visited = 0;
        walk(&r.position, 3, &mut visited);
    }
}

#[test]
fn seeded_key_sets_are_independent_but_consistent() {
    let keys = Zobrist::leaked(12345);
    let pos = Position::startpos().with_zobrist(keys);
    assert_ne!(pos.hash(), Position::startpos().hash());
    let mut visited = 0;
    walk(&pos, 3, &mut visited);
    assert_eq!(visited, 1 + 20 + 400 + 8902);
}

#[test]
fn transposed_move_orders_give_equal_keys() {
    let pos = Position::startpos();
    let play = |moves: &[&str]| {
        moves
            .iter()
            .fold(pos, |p, m| p.play_unchecked(p.parse_uci(m).unwrap()))
    };
    let a = play(&["g1f3", "g8f6", "b1c3", "b8c6"]);
    let b = play(&["b1c3", "b8c6", "g1f3", "g8f6"]);
    assert_eq!(a.hash(), b.hash());
    // A double push next to an enemy pawn sets the en-passant square, which
    // is part of the key; single pushes to the same board do not.
    let c = play(&["e2e4", "e7e6", "e4e5", "d7d5"]);
    assert_eq!(c.ep_square(), Some(perft::Square::D6));
    let e = play(&["e2e4", "d7d6", "e4e5", "d6d5"]);
    assert_eq!(e.ep_square(), None);
    assert_ne!(c.hash(), play(&["e2e4", "d7d5", "e4e5", "e7e6"]).hash());
    // A double push with no capturer does not set an en-passant square, so
    // the two ways of reaching this board are one position with one key.
    let f = play(&["e2e4", "a7a5"]);
    let g = play(&["e2e3", "a7a6", "e3e4", "a6a5"]);
    assert_eq!(f.ep_square(), None);
    assert_eq!(f.hash(), g.hash());
}
