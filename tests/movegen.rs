//! Move generator cross-checks and named special cases (each with a witness FEN).

use perft::perft::{divide, perft, perft_full};
use perft::{Move, MoveKind, Position};

use crate::common::load;

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn uci_moves(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .iter()
        .map(|m| m.to_uci(p.is_chess960()).to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn divide_totals_equal_perft() {
    for r in load("standard").iter().chain(load("tricky960").iter()) {
        let d: u64 = divide(&r.position, 3).iter().map(|&(_, n)| n).sum();
        assert_eq!(d, perft(&r.position, 3), "line {}", r.line);
    }
}

#[test]
fn bulk_counting_equals_playing_every_leaf() {
    for r in load("tricky").iter().chain(load("tricky960").iter()) {
        assert_eq!(
            perft_full(&r.position, 3),
            perft(&r.position, 3),
            "line {}",
            r.line
        );
    }
}

#[test]
fn is_legal_agrees_with_the_move_list_for_every_16_bit_move() {
    let records = load("tricky");
    for r in records.iter().take(25) {
        let list = r.position.legal_moves();
        for bits in 0..=u16::MAX {
            let mv = Move::from_bits(bits);
            assert_eq!(
                r.position.is_legal(mv),
                list.contains(mv),
                "line {} move {mv:?}",
                r.line
            );
        }
    }
}

#[test]
fn ep_capture_exposing_king_on_rank_is_illegal() {
    // Black just played c7c5; b5xc6 would leave both pawns off the fifth rank
    // and expose the a5 king to the h5 rook.
    let p = pos("8/8/8/KPp4r/8/8/8/7k w - c6 0 2");
    assert!(!uci_moves(&p).contains(&"b5c6".to_string()));
    assert_eq!(
        p.ep_square(),
        None,
        "an impossible capture keeps no ep square"
    );
}

#[test]
fn ep_capture_removing_the_checking_pawn_is_legal() {
    // d2d4 gives check to the c5 king; e4xd3 removes the checker.
    let p = pos("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1");
    let moves = uci_moves(&p);
    assert!(moves.contains(&"e4d3".to_string()), "{moves:?}");
    assert!(
        p.legal_moves()
            .iter()
            .any(|m| m.kind() == MoveKind::EnPassant)
    );
}

#[test]
fn ep_capture_by_diagonally_pinned_pawn_only_along_the_pin() {
    // The e5 pawn is pinned on the a1-h8 diagonal by the h8 bishop.
    // Black just played d7d5: e5xd6 would leave the diagonal (illegal).
    let off_ray = pos("7b/8/8/3pP3/8/8/8/K6k w - d6 0 2");
    assert!(!uci_moves(&off_ray).contains(&"e5d6".to_string()));
    // Black just played f7f5: e5xf6 stays on the diagonal (legal).
    let on_ray = pos("7b/8/8/4Pp2/8/8/8/K6k w - f6 0 2");
    assert!(uci_moves(&on_ray).contains(&"e5f6".to_string()));
}

#[test]
fn double_check_allows_only_king_moves() {
    // Knight f6 and rook e1 both check the e8 king.
    let p = pos("4k3/8/5N2/8/8/8/8/4R1K1 b - - 0 1");
    assert!(p.checkers().has_many());
    assert!(
        p.legal_moves()
            .iter()
            .all(|m| m.from() == perft::Square::E8)
    );
}

#[test]
fn pinned_pieces_move_only_along_the_pin_ray() {
    // The e2 rook is pinned by e8 against the e1 king: it moves on the e-file only.
    let p = pos("4r1k1/8/8/8/8/8/4R3/4K3 w - - 0 1");
    let rook: Vec<String> = uci_moves(&p)
        .into_iter()
        .filter(|m| m.starts_with("e2"))
        .collect();
    assert_eq!(rook, ["e2e3", "e2e4", "e2e5", "e2e6", "e2e7", "e2e8"]);
}

#[test]
fn chess960_castling_with_king_already_on_its_target() {
    // King g1, rook h1: castling h-side moves only the rook (to f1).
    let p = pos("6k1/8/8/8/8/8/8/R5KR w HA - 0 1");
    let moves = uci_moves(&p);
    assert!(moves.contains(&"g1h1".to_string()), "{moves:?}");
    let after = p.play_unchecked(p.parse_uci("g1h1").unwrap());
    assert_eq!(after.to_fen(), "6k1/8/8/8/8/8/8/R4RK1 b - - 1 1");
}

#[test]
fn castling_through_or_into_check_is_illegal() {
    // Black rook on f8 attacks f1: no O-O; d1 free of attack: O-O-O legal.
    let p = pos("r3kr2/8/8/8/8/8/8/R3K2R w KQq - 0 1");
    let moves = uci_moves(&p);
    assert!(!moves.contains(&"e1g1".to_string()));
    assert!(moves.contains(&"e1c1".to_string()));
}

#[test]
fn standard_castling_prints_king_target_and_chess960_prints_rook_square() {
    let std = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert!(uci_moves(&std).contains(&"e1g1".to_string()));
    let c960 = Position::from_fen_960("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let moves = uci_moves(&c960);
    assert!(moves.contains(&"e1h1".to_string()) && moves.contains(&"e1a1".to_string()));
    assert_eq!(perft(&std, 3), perft(&c960, 3));
}

#[test]
fn promotions_count_four_each() {
    let p = pos("8/P6k/8/8/8/8/8/K7 w - - 0 1");
    // a7a8 = 4 moves, plus 3 king moves.
    assert_eq!(p.count_moves(), 7);
    assert_eq!(p.legal_moves().len(), 7);
}
