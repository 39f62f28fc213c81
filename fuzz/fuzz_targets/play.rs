//! A FEN (up to the first newline) and a byte stream choosing legal moves.
//! At every step: the fast generator's moves equal the slow reference
//! generator's (src/chess/reference.rs), its bulk count equals the list's
//! length, `is_legal` agrees, the incrementally updated Zobrist key equals
//! the recomputed one, the position matches the reference board after the
//! same move, and it writes back to a FEN that parses to it again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perft::Position;
use perft::chess::reference::{self, RefBoard};

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let Ok(fen) = std::str::from_utf8(&data[..split]) else {
        return;
    };
    let Ok(mut pos) = Position::from_fen(fen).or_else(|_| Position::from_fen_960(fen)) else {
        return;
    };
    let choices = data.get(split + 1..).unwrap_or(&[]);
    for &choice in choices.iter().take(128).chain(std::iter::once(&0)) {
        assert_eq!(pos.hash(), pos.compute_hash(), "{pos:?}");
        let written = pos.to_fen();
        let again = Position::from_fen_with(&written, pos.is_chess960(), pos.zobrist())
            .unwrap_or_else(|e| panic!("{written:?} fails: {e}"));
        assert_eq!(again, pos, "{written:?}");

        let mut fast: Vec<_> = pos.legal_moves().iter().copied().collect();
        fast.sort_by_key(|mv| mv.to_bits());
        let slow = reference::legal_moves(&pos);
        assert_eq!(fast, slow, "move sets differ in {written}");
        assert_eq!(pos.count_moves(), fast.len() as u64, "{written}");
        if fast.is_empty() {
            return;
        }
        let mv = fast[usize::from(choice) % fast.len()];
        assert!(pos.is_legal(mv), "{written}: {mv:?}");
        let next = pos.play(mv).expect("legal");
        assert!(
            RefBoard::from_position(&pos).make(mv).matches(&next),
            "{written}: {mv:?} gives {next:?}"
        );
        pos = next;
    }
});
