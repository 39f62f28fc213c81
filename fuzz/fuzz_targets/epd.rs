//! Any bytes as EPD suite text: each line through the line parser and the
//! whole text through the suite parser. No panic; an accepted line's
//! position writes back to a FEN that parses to it again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perft::Position;
use perft::validate::suite::{parse_epd_line, parse_suite};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let chess960 = data.first().is_some_and(|b| b & 1 == 1);
    for (i, line) in text.lines().enumerate() {
        if let Ok(record) = parse_epd_line(line, i + 1, chess960) {
            let written = record.position.to_fen();
            let again = Position::from_fen_with(&written, chess960, record.position.zobrist())
                .unwrap_or_else(|e| panic!("{line:?} wrote {written:?}, which fails: {e}"));
            assert_eq!(again, record.position, "{line:?}");
            let mut depths: Vec<u32> = record.depths.iter().map(|&(d, _)| d).collect();
            depths.sort_unstable();
            depths.dedup();
            assert_eq!(
                depths.len(),
                record.depths.len(),
                "duplicate depth in {line:?}"
            );
        }
    }
    let _ = parse_suite(&text, "fuzz.epd", chess960);
});
