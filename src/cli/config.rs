//! Argument validation: the flags several commands share (position and
//! engine settings), turned into checked library values ([`Position`],
//! [`PerftConfig`], [`Perft`]). Every bad value becomes an
//! [`Error::Usage`] naming the flag.

use clap::Args;

use crate::chess::cpu::{CPU_ENV, CpuError, CpuPath};
use crate::chess::fen::{STARTPOS, named_position};
use crate::chess::moves::Move;
use crate::chess::position::Position;
use crate::error::Error;
use crate::perft::hash::HashSync;
use crate::perft::{self, Perft, PerftConfig};
use crate::report::Warning;

/// Checks `PERFT_CPU` (unset or empty: the fastest path this CPU offers):
/// an unknown path, or one this CPU lacks, is an error.
pub fn check_cpu_env() -> Result<CpuPath, CpuError> {
    let value = std::env::var(CPU_ENV).ok().filter(|v| !v.trim().is_empty());
    CpuPath::from_setting(value.as_deref())
}

/// Position selection shared by commands.
#[derive(Debug, Args, Default)]
pub struct PositionArgs {
    /// A FEN (quote it, or give its fields as separate words), or a name:
    /// startpos, kiwipete, cpw3, cpw4, cpw5, cpw6. Default: startpos.
    #[arg(value_name = "POSITION")]
    pub position: Vec<String>,
    /// Moves (UCI) to play from the position first.
    #[arg(long, num_args = 1.., value_name = "MOVE")]
    pub moves: Vec<String>,
    /// Chess960 mode: KQkq as X-FEN, castling written king-takes-rook.
    /// (Shredder-FEN castling letters switch it on by themselves.)
    #[arg(long)]
    pub chess960: bool,
}

/// Engine settings shared by counting commands. Build drivers through
/// [`EngineArgs::build`] (or [`EngineArgs::configs`] for a grid) so every
/// engine flag reaches every command.
#[derive(Debug, Args, Default, Clone)]
pub struct EngineArgs {
    /// Worker threads, 1 to 1024 (default: all logical CPUs). `perft bench` takes a
    /// comma-separated list (`1,2,4`) and prints a scaling table.
    #[arg(long, short = 't', value_name = "N", value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Perft table size with a unit: 512MiB, 2GiB (a bare number is MiB;
    /// `none` or 0 = no table). Default: 32MiB for runs of depth 6 or 7, 256MiB from 8,
    /// none below. `perft bench` takes a list (`none,512MiB`).
    #[arg(
        long,
        value_name = "SIZE",
        value_delimiter = ',',
        conflicts_with = "no_hash"
    )]
    pub hash: Vec<String>,
    /// No perft table: every leaf is counted (raw generator speed).
    #[arg(long)]
    pub no_hash: bool,
    /// How threads share the table: lockless (default), mutex (one global
    /// lock), striped (1024 locks) or striped:N. `perft bench` takes a list.
    #[arg(long, value_name = "MODE", value_delimiter = ',')]
    pub hash_sync: Vec<HashSync>,
    /// Subtrees with at least this many plies left are split across threads.
    #[arg(long, value_name = "N", default_value_t = perft::DEFAULT_SPLIT_DEPTH, hide_short_help = true)]
    pub split_depth: u32,
    /// Subtrees with fewer plies left are not hashed.
    #[arg(long, value_name = "N", default_value_t = perft::DEFAULT_MIN_HASH_DEPTH, hide_short_help = true)]
    pub min_hash_depth: u32,
    /// Seed of the Zobrist keys used by the perft table (a second run with
    /// another seed rules out a key collision).
    #[arg(long, value_name = "N", hide_short_help = true)]
    pub zobrist_seed: Option<u64>,
    /// Let the perft table compare only the low N bits of each key (1 to
    /// 64), so false hits are common: for testing `--verify-table` and the
    /// collision figures in docs/deep-perft.md, never for real counts.
    #[arg(long, value_name = "N", default_value_t = 64,
          value_parser = clap::value_parser!(u32).range(1..=64), hide = true)]
    pub table_key_bits: u32,
    /// Count without the leaf-parent shortcut: every move above the last
    /// ply is made and its replies bulk-counted (copy-make plus bulk
    /// counting, the loop other perft programs run: raw generator speed).
    #[arg(long, conflicts_with = "shortcut")]
    pub plain: bool,
    /// Always count with the leaf-parent shortcut. By default a count of
    /// depth 6 or more first times the shortcut and the plain loop on
    /// samples of its tree and runs the faster (the counts are the same).
    #[arg(long)]
    pub shortcut: bool,
}

/// Table size used when neither `--hash` nor `--no-hash` is given, for runs
/// of depth [`AUTO_HASH_DEEP_DEPTH`] or more.
pub const AUTO_HASH_BYTES: u128 = 256 << 20;
/// The automatic table is used from this depth on.
pub const AUTO_HASH_MIN_DEPTH: u32 = 6;
/// Table size of the automatic table below [`AUTO_HASH_DEEP_DEPTH`].
/// Measured (docs/performance.md): at depths 6 and 7, 32 MiB counts as fast
/// as 256 MiB, and the kernel's first touch of a 256 MiB table cost up to
/// 0.3 s on this machine, more than a start position perft 6 takes.
pub const AUTO_HASH_SMALL_BYTES: u128 = 32 << 20;
/// From this depth on the automatic table is [`AUTO_HASH_BYTES`].
pub const AUTO_HASH_DEEP_DEPTH: u32 = 8;

impl EngineArgs {
    /// One driver configuration per combination of the listed values, in
    /// order (threads outermost, then table sizes, then sync modes). Without
    /// `--hash`/`--no-hash` a run whose deepest perft is `max_depth` plies
    /// gets [`AUTO_HASH_SMALL_BYTES`] from depth [`AUTO_HASH_MIN_DEPTH`] on,
    /// [`AUTO_HASH_BYTES`] from depth [`AUTO_HASH_DEEP_DEPTH`] on.
    pub fn configs(&self, max_depth: u32) -> Result<Vec<PerftConfig>, Error> {
        let mut base = PerftConfig::default();
        if self.split_depth == 0 {
            return Err(Error::Usage("--split-depth must be at least 1".into()));
        }
        base.split_depth = self.split_depth;
        base.plain = self.plain;
        base.choose_counter = !self.shortcut;
        base.table_key_bits = self.table_key_bits;
        base.min_hash_depth = self.min_hash_depth.max(1);
        if let Some(seed) = self.zobrist_seed {
            base.zobrist_seed = seed;
        }
        let threads = if self.threads.is_empty() {
            vec![base.threads]
        } else {
            self.threads.clone()
        };
        if threads.contains(&0) {
            return Err(Error::Usage("--threads must be at least 1".into()));
        }
        // Checked here too, not only by the driver, so a `perft bench` list
        // is rejected before its first run.
        if let Some(&t) = threads.iter().find(|&&t| t > perft::MAX_THREADS) {
            return Err(Error::Usage(
                perft::PerftError::TooManyThreads(t).to_string(),
            ));
        }
        let sizes: Vec<u128> = if self.no_hash {
            vec![0]
        } else if self.hash.is_empty() {
            vec![if max_depth >= AUTO_HASH_DEEP_DEPTH {
                AUTO_HASH_BYTES
            } else if max_depth >= AUTO_HASH_MIN_DEPTH {
                AUTO_HASH_SMALL_BYTES
            } else {
                0
            }]
        } else {
            self.hash
                .iter()
                .map(|h| match h.trim() {
                    "none" | "off" => Ok(0),
                    size => crate::perft::hash::parse_size(size)
                        .map_err(|e| Error::Usage(format!("--hash: {e}"))),
                })
                .collect::<Result<_, _>>()?
        };
        let syncs = if self.hash_sync.is_empty() {
            vec![perft::DEFAULT_HASH_SYNC]
        } else {
            self.hash_sync.clone()
        };
        let mut configs = Vec::new();
        for &t in &threads {
            for &bytes in &sizes {
                // Sync modes only matter with a table.
                let modes = if bytes == 0 { &syncs[..1] } else { &syncs[..] };
                for &sync in modes {
                    configs.push(PerftConfig {
                        threads: t,
                        hash_bytes: bytes,
                        hash_sync: sync,
                        ..base.clone()
                    });
                }
            }
        }
        Ok(configs)
    }

    /// The single configuration these flags describe (a list is an error
    /// outside `perft bench`).
    pub fn config(&self, max_depth: u32) -> Result<PerftConfig, Error> {
        let mut configs = self.configs(max_depth)?;
        let lists = [
            ("--threads", self.threads.len()),
            ("--hash", self.hash.len()),
            ("--hash-sync", self.hash_sync.len()),
        ];
        if let Some((flag, _)) = lists.iter().find(|(_, n)| *n > 1) {
            return Err(Error::Usage(format!(
                "{flag} takes one value here, not a list; lists are for perft bench"
            )));
        }
        Ok(configs.remove(0))
    }

    /// Builds the perft driver for a run whose deepest perft is `max_depth`.
    pub fn build(&self, max_depth: u32) -> Result<Perft, Error> {
        build_perft(self.config(max_depth)?)
    }

    /// Builds a driver with no perft table, for `flag` (`--stats`), which
    /// needs more than the node counts the table stores. An explicit
    /// `--hash` size is an error rather than silently dropped.
    pub fn build_without_table(&self, max_depth: u32, flag: &str) -> Result<Perft, Error> {
        let mut config = self.config(max_depth)?;
        if !self.hash.is_empty() && config.hash_bytes > 0 {
            return Err(Error::Usage(format!(
                "{flag} uses no perft table (the table stores node counts only): drop --hash"
            )));
        }
        config.hash_bytes = 0;
        build_perft(config)
    }
}

/// Starts a driver for `config`.
pub fn build_perft(config: PerftConfig) -> Result<Perft, Error> {
    Perft::new(config).map_err(|e| Error::Usage(e.to_string()))
}

/// How the perft table is set in `config`, for reports: `none` or
/// `<size> <sync>`.
pub fn hash_setting(config: &PerftConfig) -> Option<String> {
    Some(if config.hash_bytes == 0 {
        "none".to_string()
    } else {
        format!(
            "{} {}",
            crate::perft::hash::human_bytes(config.hash_bytes),
            config.hash_sync
        )
    })
}

/// Resolves the position words into the root position and the `--moves`
/// (checked legal, in order), without playing them.
pub fn resolve_root(args: &PositionArgs) -> Result<(Position, Vec<Move>), Error> {
    let text = args.position.join(" ");
    let text = text.trim();
    // UCI habit: `startpos moves e2e4` or `FEN moves ...` as the position.
    let words: Vec<&str> = text.split_whitespace().collect();
    if let Some(at) = words.iter().position(|w| w.eq_ignore_ascii_case("moves")) {
        let (spec, moves) = (words[..at].join(" "), words[at + 1..].join(" "));
        let spec = if spec.contains(' ') {
            shell_quote(&spec)
        } else {
            spec
        };
        return Err(Error::Usage(format!(
            "the position '{text}' contains 'moves': moves are given with --moves, e.g. {spec} --moves {moves}"
        )));
    }
    let root = if text.is_empty() && !args.position.is_empty() {
        return Err(
            crate::chess::fen::InvalidFen::Syntax(crate::chess::fen::FenError::Empty).into(),
        );
    } else if text.is_empty() {
        Position::from_fen_with(STARTPOS, args.chess960, crate::Zobrist::DEFAULT)?
    } else if let Some(fen) = named_position(text) {
        Position::from_fen_with(fen, args.chess960, crate::Zobrist::DEFAULT)?
    } else if args.position.len() == 1 && !text.contains('/') {
        return Err(Error::UnknownPosition(crate::chess::fen::quote(text)));
    } else {
        Position::from_fen_with(text, args.chess960, crate::Zobrist::DEFAULT)?
    };
    let mut pos = root;
    let mut moves = Vec::with_capacity(args.moves.len());
    for (i, text) in args.moves.iter().enumerate() {
        let mv = pos.parse_uci(text).ok_or_else(|| Error::IllegalMove {
            index: i + 1,
            text: crate::chess::fen::quote(text),
            fen: pos.to_fen(),
        })?;
        pos = pos.play_unchecked(mv);
        moves.push(mv);
    }
    Ok((root, moves))
}

/// The [`Warning::Oddity`] warnings of the root position of `args`
/// (`root`, as [`resolve_root`] returned it): judged with the en-passant
/// square the FEN claims, kept or not.
pub fn oddity_warnings(args: &PositionArgs, root: &Position) -> Vec<Warning> {
    let text = args.position.join(" ");
    let fen = named_position(text.trim()).unwrap_or(&text);
    root.oddities_with_ep(crate::chess::oddity::claimed_ep(fen))
        .into_iter()
        .map(|oddity| Warning::Oddity {
            oddity,
            place: None,
        })
        .collect()
}

/// Resolves the position words and `--moves` into a position, with the
/// warnings that the root position is game-impossible.
pub fn resolve_position_warned(args: &PositionArgs) -> Result<(Position, Vec<Warning>), Error> {
    let (root, moves) = resolve_root(args)?;
    let warnings = oddity_warnings(args, &root);
    Ok((
        moves.iter().fold(root, |p, &mv| p.play_unchecked(mv)),
        warnings,
    ))
}

/// Resolves the position words and `--moves` into a position.
pub fn resolve_position(args: &PositionArgs) -> Result<Position, Error> {
    let (root, moves) = resolve_root(args)?;
    Ok(moves.iter().fold(root, |p, &mv| p.play_unchecked(mv)))
}

/// Quotes `text` for a POSIX shell when it needs it.
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+".contains(&b));
    if safe {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Parses a positive, finite number of seconds.
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(s),
        _ => Err(format!(
            "expected a positive number of seconds, found '{text}'"
        )),
    }
}
