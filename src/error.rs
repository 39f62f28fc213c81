//! The crate-level error type and its exit-code mapping.

use thiserror::Error;

use crate::chess::fen::InvalidFen;
use crate::validate::suite::SuiteError;

/// Exit code for success.
pub const EXIT_OK: u8 = 0;
/// Exit code when a count differs from the expected one (or an engine disagrees).
pub const EXIT_MISMATCH: u8 = 1;
/// Exit code for usage and input errors.
pub const EXIT_USAGE: u8 = 2;
/// Exit code after Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;
/// Exit code when `--max-time` ended a run (as GNU `timeout`; partial
/// results printed, marked as partial).
pub const EXIT_TIME_LIMIT: u8 = 124;

/// Everything that can go wrong before a result exists.
#[derive(Debug, Error)]
pub enum Error {
    /// A FEN that does not parse or describes an illegal position.
    #[error(transparent)]
    Fen(#[from] InvalidFen),
    /// A position name or argument that is neither a FEN nor a known name.
    #[error("unknown position '{0}': give a FEN (quoted) or one of {names}", names = crate::chess::fen::POSITION_NAMES.join(", "))]
    UnknownPosition(String),
    /// A move of `--moves` that is not legal.
    #[error("--moves: move {index} '{text}' is not a legal move in {fen}")]
    IllegalMove {
        /// 1-based position in the list.
        index: usize,
        /// The move text.
        text: String,
        /// The position it was tried in.
        fen: String,
    },
    /// A suite file problem (file and line named).
    #[error(transparent)]
    Suite(#[from] SuiteError),
    /// An external engine failed: not found, crashed, timed out, or broke
    /// the protocol.
    #[error(transparent)]
    Engine(#[from] crate::validate::engine::EngineError),
    /// A job directory of `perft split` that cannot be used.
    #[error(transparent)]
    Job(#[from] crate::perft::units::JobError),
    /// A bad argument value.
    #[error("{0}")]
    Usage(String),
    /// Writing output failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// A JSON encoding failure.
    #[error("JSON encoding failed: {0}")]
    Json(#[from] serde_json::Error),
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        EXIT_USAGE
    }

    /// True for a write to a closed pipe (`perft ... | head`): not an error.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}
