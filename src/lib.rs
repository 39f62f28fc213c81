//! perft: chess move-generator validation and benchmarking.
//!
//! The library holds everything; the `perft` binary is a thin layer over it.
//! The source tree shows the layers, each using only the ones below it:
//!
//! | module | owns | uses |
//! |---|---|---|
//! | [`chess`] | squares, bitboards, attacks, Zobrist keys, [`Position`], FEN, moves, legal generation | nothing |
//! | [`perft`](mod@perft) | the counting recursion, the leaf-parent shortcut, the perft table, the parallel driver | `chess` |
//! | [`search`](mod@search) | scores, evaluation, the transactional TT, alpha-beta | `chess` |
//! | [`validate`] | EPD suites, external engines, bisection | `chess`, `perft` |
//! | [`report`] | report types, text and JSON rendering, build info | the layers above |
//! | [`cli`] | clap definitions, argument validation, one file per command | everything |
//!
//! The common vocabulary is re-exported here, so `perft::Position`,
//! `perft::perft` and `perft::Perft` stay put however the folders change.
//!
//! ```
//! use ::perft::{Perft, PerftConfig, Position, STARTPOS, perft};
//!
//! // Serial count with bulk counting at the last ply.
//! let start = Position::from_fen(STARTPOS)?;
//! assert_eq!(perft(&start, 4), 197_281);
//!
//! // Moves in UCI notation; the position is copied, never mutated.
//! let e4 = start.parse_uci("e2e4").expect("legal");
//! assert_eq!(perft(&start.play_unchecked(e4), 3), 13_160);
//!
//! // The multi-threaded driver with a 16 MiB perft table; totals are u128.
//! let driver = Perft::new(PerftConfig {
//!     threads: 2,
//!     hash_bytes: 16 << 20,
//!     ..PerftConfig::default()
//! })?;
//! assert_eq!(driver.count(&start, 5), 4_865_609);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod chess;
pub mod cli;
pub mod error;
pub mod perft;
pub mod report;
pub mod search;
pub mod validate;

pub use chess::bitboard::Bitboard;
pub use chess::fen::{FenError, InvalidFen, KIWIPETE, PositionError, STARTPOS};
pub use chess::moves::{Move, MoveKind, MoveList, PieceMoves};
pub use chess::piece::{Color, Piece};
pub use chess::position::{CastleSide, Position};
pub use chess::square::{File, Rank, Square};
pub use chess::zobrist::Zobrist;
pub use error::Error;
pub use perft::hash::{HashSync, PerftTable};
pub use perft::{Perft, PerftConfig, PerftStats, divide, perft, perft_plain};
pub use search::tt::Tt;
pub use search::{Limits, Score, SearchOptions, SearchResult, search};
