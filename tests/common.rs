//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use perft::suite::{self, EpdRecord};

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
