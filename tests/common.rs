//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use perft::validate::suite::{self, EpdRecord};

/// Path of a file in the repository.
pub fn repo_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Loads `positions/<name>.epd`.
pub fn load(name: &str) -> Vec<EpdRecord> {
    let path = repo_path(&format!("positions/{name}.epd"));
    suite::load_suite(&path, false).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the built `perft` binary.
pub fn run_perft(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perft"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run perft binary")
}

/// stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A small deterministic PRNG (xorshift64*) for seeded random play.
pub struct Rng(pub u64);

impl Rng {
    /// Next 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-ish value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Runs the built `perft` binary with extra environment variables and, if
/// given, `stdin` as its standard input.
pub fn run_perft_env(args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_perft"));
    cmd.args(args)
        .env("NO_COLOR", "1")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("run perft binary");
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().expect("stdin piped");
        pipe.write_all(input.as_bytes()).expect("write stdin");
    }
    child.wait_with_output().expect("wait for perft")
}

/// Path of the built `perft` binary.
pub fn perft_bin() -> &'static str {
    env!("CARGO_BIN_EXE_perft")
}

/// Path of `examples/broken_engine.rs` as built by `cargo test` (next to the
/// binary, in `target/<profile>/examples/`).
pub fn broken_engine() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_perft"));
    let dir = bin.parent().expect("binary has a directory");
    let path = dir.join("examples").join("broken_engine");
    assert!(
        path.is_file(),
        "{} not found: `cargo test` builds the examples; run `cargo build --examples` with the same profile",
        path.display()
    );
    path.display().to_string()
}

/// Stockfish's path; fails (never skips) when it is missing.
pub fn stockfish_path() -> String {
    perft::validate::engine::find_stockfish().expect(
        "Stockfish not found: install it (apt-get install stockfish) or set STOCKFISH=/path/to/stockfish",
    )
}

/// Parses stdout as exactly one JSON value (anything else on stdout fails).
pub fn json_stdout(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON value ({e}): {}", stdout(out)))
}

/// Writes `text` to a fresh temporary file named `name` and returns its path.
/// Each call gets a directory of its own: tests run in parallel threads of
/// one process, and two of them writing the same name (both `tryout` and
/// `trust` write a `deep.epd`, with different contents) must not read each
/// other's file.
pub fn write_temp(name: &str, text: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "perft-tests-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}
