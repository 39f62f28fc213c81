//! The perft engine: counting the leaves of the legal move tree.
//!
//! Owns the serial counting recursion ([`perft()`], [`perft_plain`],
//! [`divide()`], in `serial`), the counter chooser ([`choose`]), the
//! leaf-parent shortcut (`leaf`), the shared perft table ([`hash`]), the
//! rayon driver with its statistics ([`Perft`],
//! [`PerftStats`]), the leaf breakdown of `--stats` ([`stats`]), and work
//! units for deep runs split over many processes or machines ([`units`]).
//! Uses the `chess` layer only.

mod children;
pub mod choose;
mod count;
pub mod hash;
mod leaf;
pub mod memory;
mod replies;
mod serial;
pub mod stats;
pub mod units;

pub use count::{
    Control, DEFAULT_HASH_SYNC, DEFAULT_MIN_HASH_DEPTH, DEFAULT_SPLIT_DEPTH, DivideOutcome,
    MAX_PERFT_DEPTH, MAX_THREADS, Perft, PerftConfig, PerftError, PerftStats, THREAD_STACK_BYTES,
};
pub use serial::{divide, perft, perft_full, perft_on, perft_plain, perft_plain_on};
pub use stats::{LeafStats, StatField, StatsOutcome, move_stats, perft_stats};
