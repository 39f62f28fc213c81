//! Zobrist keys.
//!
//! Keys come from SplitMix64 seeded with a 64-bit seed. The default set
//! ([`Zobrist::DEFAULT`], seed [`DEFAULT_SEED`]) is built at compile time and is
//! part of the tool's stability promise: the same position always has the same
//! key in every build of the same major version. Other seeds give independent
//! key sets (for re-running a hashed perft with different keys, so a key
//! collision cannot go unnoticed); [`Zobrist::leaked`] makes one that lives for
//! the rest of the process, because a [`Position`](crate::Position) refers to
//! its key set by a `'static` reference.
//!
//! Layout: one key per (colour, piece, square); one per castling-rook square
//! (castling rights are stored as the set of rooks that may still castle, which
//! is exact for standard chess and Chess960 alike); one per en-passant file; one
//! for black to move.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::chess::piece::{Color, Piece};
use crate::chess::square::{File, Square};

/// The seed of the default key set.
pub const DEFAULT_SEED: u64 = 0x5045_5246_545F_4B45; // "PERFT_KE"

/// A complete set of Zobrist keys.
#[derive(Debug)]
pub struct Zobrist {
    seed: u64,
    pieces: [[[u64; 64]; 6]; 2],
    castling: [u64; 64],
    ep: [u64; 8],
    black: u64,
}

const fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Zobrist {
    /// The default key set, built at compile time.
    pub const DEFAULT: &'static Zobrist = &DEFAULT_KEYS;

    /// Builds the key set of `seed`.
    pub const fn new(seed: u64) -> Zobrist {
        let mut state = seed;
        let mut pieces = [[[0u64; 64]; 6]; 2];
        let mut c = 0;
        while c < 2 {
            let mut p = 0;
            while p < 6 {
                let mut s = 0;
                while s < 64 {
                    pieces[c][p][s] = splitmix(&mut state);
                    s += 1;
                }
                p += 1;
            }
            c += 1;
        }
        let mut castling = [0u64; 64];
        let mut s = 0;
        while s < 64 {
            castling[s] = splitmix(&mut state);
            s += 1;
        }
        let mut ep = [0u64; 8];
        let mut f = 0;
        while f < 8 {
            ep[f] = splitmix(&mut state);
            f += 1;
        }
        let black = splitmix(&mut state);
        Zobrist {
            seed,
            pieces,
            castling,
            ep,
            black,
        }
    }

    /// The key set of `seed` with a `'static` lifetime. Each seed is built once
    /// per process and then shared; the default seed returns [`Zobrist::DEFAULT`].
    pub fn leaked(seed: u64) -> &'static Zobrist {
        if seed == DEFAULT_SEED {
            return Zobrist::DEFAULT;
        }
        static CACHE: OnceLock<Mutex<HashMap<u64, &'static Zobrist>>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        let mut map = cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        map.entry(seed)
            .or_insert_with(|| Box::leak(Box::new(Zobrist::new(seed))))
    }

    /// A seed whose key set is independent of `seed`'s (SplitMix64 of it,
    /// never `seed` itself): the second run of `--verify-table`.
    pub const fn independent_seed(seed: u64) -> u64 {
        let mut state = seed ^ 0x7665_7269_6679_2121; // "verify!!"
        let other = splitmix(&mut state);
        if other == seed { !seed } else { other }
    }

    /// The seed this set was built from.
    pub const fn seed(&self) -> u64 {
        self.seed
    }

    /// Key of `piece` of `color` on `sq`.
    #[inline(always)]
    pub fn piece(&self, color: Color, piece: Piece, sq: Square) -> u64 {
        self.pieces[color.index()][piece.index()][sq.index()]
    }

    /// Key of a castling right held by the rook on `sq`.
    #[inline(always)]
    pub fn castling(&self, sq: Square) -> u64 {
        self.castling[sq.index()]
    }

    /// Key of an en-passant square on `file`.
    #[inline(always)]
    pub fn ep(&self, file: File) -> u64 {
        self.ep[file as usize]
    }

    /// Key XORed in when black is to move.
    #[inline(always)]
    pub fn black_to_move(&self) -> u64 {
        self.black
    }
}

static DEFAULT_KEYS: Zobrist = Zobrist::new(DEFAULT_SEED);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_seeded() {
        let z = Zobrist::DEFAULT;
        let mut all: Vec<u64> = z.pieces.iter().flatten().flatten().copied().collect();
        all.extend(z.castling);
        all.extend(z.ep);
        all.push(z.black);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
        let other = Zobrist::leaked(42);
        assert_ne!(other.black_to_move(), z.black_to_move());
        assert!(std::ptr::eq(Zobrist::leaked(42), other));
        assert!(std::ptr::eq(Zobrist::leaked(DEFAULT_SEED), z));
    }
}
