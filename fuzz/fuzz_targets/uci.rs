//! Any bytes as UCI command lines fed to one session (`perft uci`): no
//! panic, no error but from the output sink, bounded time. Numbers in `go`
//! and `setoption` lines are capped (a `go perft 12` or `Hash 100000` is
//! legitimately slow or large, not a bug), and a `go` that would search
//! without a limit gets `nodes 2000`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perft::PerftConfig;
use std::sync::{Arc, Mutex};

use perft::cli::uci::{SharedOut, UciSession};

/// The session's output, readable after the run.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let mut b = self.0.lock().unwrap_or_else(|e| e.into_inner());
        b.extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `line` with every number above `cap` replaced by `cap`.
fn capped(line: &str, cap: i64) -> String {
    line.split_whitespace()
        .map(|w| match w.parse::<i64>() {
            Ok(n) if n > cap => cap.to_string(),
            _ => w.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn bounded(line: &str) -> String {
    let first = line.split_whitespace().next().unwrap_or("");
    match first {
        "go" => {
            let words = capped(line, 3);
            if words.split_whitespace().nth(1) == Some("perft") {
                words
            } else {
                // Drop `infinite`/`ponder` and bound the search by nodes.
                let kept: Vec<&str> = words
                    .split_whitespace()
                    .filter(|w| !matches!(*w, "infinite" | "ponder"))
                    .collect();
                format!("{} nodes 2000", kept.join(" "))
            }
        }
        "setoption" => capped(line, 2),
        _ => line.to_string(),
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let buffer = Buffer::default();
    let out: SharedOut = Arc::new(Mutex::new(Box::new(buffer.clone())));
    let mut session = UciSession::new(
        PerftConfig {
            threads: 1,
            ..PerftConfig::default()
        },
        out,
    );
    for line in text.lines().take(64) {
        match session.handle(&bounded(line)) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => panic!("session error on {line:?}: {e}"),
        }
    }
    // A search still running is stopped, as `quit` would.
    session.finish_search(true);
    let bytes = buffer.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
    assert!(std::str::from_utf8(&bytes).is_ok());
});
