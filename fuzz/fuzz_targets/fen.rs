//! Any bytes as a FEN, standard and Chess960: no panic, and every accepted
//! FEN writes back to a FEN that parses to the same position and key.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perft::Position;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        // Invalid UTF-8 cannot reach the parser (it takes &str); the lossy
        // text still exercises it with replacement characters.
        let _ = Position::from_fen(&String::from_utf8_lossy(data));
        return;
    };
    for chess960 in [false, true] {
        let parsed = if chess960 {
            Position::from_fen_960(text)
        } else {
            Position::from_fen(text)
        };
        let Ok(pos) = parsed else { continue };
        assert_eq!(pos.hash(), pos.compute_hash(), "key of {text:?}");
        let written = pos.to_fen();
        let again = if chess960 {
            Position::from_fen_960(&written)
        } else {
            Position::from_fen(&written)
        }
        .unwrap_or_else(|e| panic!("{text:?} wrote {written:?}, which fails: {e}"));
        assert_eq!(again, pos, "{text:?} -> {written:?}");
        assert_eq!(again.hash(), pos.hash(), "{text:?} -> {written:?}");
        assert_eq!(again.to_fen(), written, "{text:?}");
        // The generator must cope with anything the parser accepts.
        let moves = pos.legal_moves();
        assert_eq!(moves.len() as u64, pos.count_moves(), "{text:?}");
    }
});
