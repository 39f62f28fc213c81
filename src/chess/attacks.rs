//! Attack lookups, all built at compile time.
//!
//! * Leapers: pawn, knight and king tables.
//! * Geometry: `between(a, b)` (squares strictly between two aligned squares)
//!   and `line(a, b)` (the whole line through them).
//! * Sliders: two implementations with the same 107,648-entry layout:
//!   - [`magic`]: fancy magic bitboards, `(occ & mask) * magic >> shift`. Portable.
//!     The multipliers come from `build.rs` (fixed-seed search); every entry is
//!     recomputed here and a multiplier that maps two different attack sets to one
//!     slot is a `const` panic, so a bad magic fails the build.
//!   - `pext`: `PEXT(occ, mask)` from BMI2, in every x86-64 build, called only
//!     where BMI2 is known to be present (the `bmi2` path of
//!     [`crate::chess::cpu`], or a build with BMI2 enabled throughout).
//!
//! The counting hot path picks its lookup at run time through a
//! [`Cpu`](crate::chess::cpu::Cpu) token; the free `rook_attacks` /
//! `bishop_attacks` (lists, search, FEN checks) use PEXT when the whole build
//! enables BMI2 and magics otherwise.

use crate::chess::bitboard::Bitboard;
use crate::chess::piece::Color;
use crate::chess::side::{NOT_A, NOT_H};
use crate::chess::square::Square;

include!(concat!(env!("OUT_DIR"), "/magics.rs"));

const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Slow, obviously-correct ray walk: the squares attacked from `sq` along
/// `dirs`, stopping at (and including) the first occupied square.
pub const fn slow_slider_attacks(sq: usize, occ: u64, rook: bool) -> u64 {
    let dirs = if rook { &ROOK_DIRS } else { &BISHOP_DIRS };
    let mut out = 0u64;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let mut f = (sq % 8) as i8;
        let mut r = (sq / 8) as i8;
        loop {
            f += df;
            r += dr;
            if f < 0 || f > 7 || r < 0 || r > 7 {
                break;
            }
            let bit = 1u64 << (r as u64 * 8 + f as u64);
            out |= bit;
            if occ & bit != 0 {
                break;
            }
        }
        d += 1;
    }
    out
}

/// The relevant-occupancy mask: the empty-board rays without their last square.
const fn relevant_mask(sq: usize, rook: bool) -> u64 {
    let dirs = if rook { &ROOK_DIRS } else { &BISHOP_DIRS };
    let mut out = 0u64;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let mut f = (sq % 8) as i8 + df;
        let mut r = (sq / 8) as i8 + dr;
        while f + df >= 0 && f + df <= 7 && r + dr >= 0 && r + dr <= 7 {
            out |= 1u64 << (r as u64 * 8 + f as u64);
            f += df;
            r += dr;
        }
        d += 1;
    }
    out
}

const fn leaper_table(deltas: &[(i8, i8)]) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut bb = 0u64;
        let mut i = 0;
        while i < deltas.len() {
            let f = (sq % 8) as i8 + deltas[i].0;
            let r = (sq / 8) as i8 + deltas[i].1;
            if f >= 0 && f <= 7 && r >= 0 && r <= 7 {
                bb |= 1u64 << (r as u64 * 8 + f as u64);
            }
            i += 1;
        }
        table[sq] = Bitboard(bb);
        sq += 1;
    }
    table
}

const KNIGHT_DELTAS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_DELTAS: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// `(between, line)` for every pair of squares.
const fn geometry() -> ([[Bitboard; 64]; 64], [[Bitboard; 64]; 64]) {
    let mut between = [[Bitboard::EMPTY; 64]; 64];
    let mut line = [[Bitboard::EMPTY; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            if a != b {
                let a_bit = 1u64 << a;
                let b_bit = 1u64 << b;
                let mut rook = true;
                let mut k = 0;
                while k < 2 {
                    let from_a = slow_slider_attacks(a, 0, rook);
                    if from_a & b_bit != 0 {
                        let from_b = slow_slider_attacks(b, 0, rook);
                        line[a][b] = Bitboard((from_a & from_b) | a_bit | b_bit);
                        between[a][b] = Bitboard(
                            slow_slider_attacks(a, b_bit, rook)
                                & slow_slider_attacks(b, a_bit, rook),
                        );
                    }
                    rook = false;
                    k += 1;
                }
            }
            b += 1;
        }
        a += 1;
    }
    (between, line)
}

/// Every table the counting hot path reads, in one static. Position-
/// independent code computes a static's address relative to the instruction
/// pointer before it can load from it; with a static per table the two
/// leaf-parent functions could not keep eight such addresses in registers
/// and computed them again at 444 and 440 sites. One static needs one
/// address, and each table is a constant offset from it (161 and 245 sites
/// left). The tables are built here and nowhere else, so no second copy of
/// one can be read by mistake.
#[repr(C)]
struct Tables {
    knight: [Bitboard; 64],
    king: [Bitboard; 64],
    pawn: [[Bitboard; 64]; 2],
    rays: ([Bitboard; 64], [Bitboard; 64]),
    ring_lines: ([Bitboard; 64], [Bitboard; 64]),
    #[cfg(target_arch = "x86_64")]
    pext_infos: [(u64, u64); 128],
    geometry: ([[Bitboard; 64]; 64], [[Bitboard; 64]; 64]),
    #[cfg(target_arch = "x86_64")]
    pext: [Bitboard; TABLE_SIZE],
}

// 107,648 slider entries of const evaluation: expected, not a runaway loop.
#[allow(long_running_const_eval)]
static TABLES: Tables = Tables {
    knight: leaper_table(&KNIGHT_DELTAS),
    king: leaper_table(&KING_DELTAS),
    pawn: [
        leaper_table(&[(-1, 1), (1, 1)]),
        leaper_table(&[(-1, -1), (1, -1)]),
    ],
    rays: rays(),
    ring_lines: ring_lines_table(),
    #[cfg(target_arch = "x86_64")]
    pext_infos: pext::pext_infos(),
    geometry: geometry(),
    #[cfg(target_arch = "x86_64")]
    pext: slider_table(true),
};

/// Squares a knight on `sq` attacks.
#[inline(always)]
pub fn knight_attacks(sq: Square) -> Bitboard {
    TABLES.knight[sq.index()]
}

/// Squares a king on `sq` attacks.
#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    TABLES.king[sq.index()]
}

/// Squares a pawn of `color` on `sq` attacks (captures towards).
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    TABLES.pawn[color.index()][sq.index()]
}

/// Squares strictly between `a` and `b` if they share a rank, file or diagonal;
/// empty otherwise.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    TABLES.geometry.0[a.index()][b.index()]
}

/// The whole line (edge to edge) through `a` and `b` if they are aligned;
/// empty otherwise or if `a == b`.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    TABLES.geometry.1[a.index()][b.index()]
}

/// Rook rays from `sq` on an empty board.
#[inline(always)]
pub fn rook_rays(sq: Square) -> Bitboard {
    TABLES.rays.0[sq.index()]
}

/// Bishop rays from `sq` on an empty board.
#[inline(always)]
pub fn bishop_rays(sq: Square) -> Bitboard {
    TABLES.rays.1[sq.index()]
}

/// One direction of a set-wise slider fill (Kogge-Stone): the squares the
/// pieces on `seeds` attack along the direction `S` (a shift left by `S`
/// when positive, right by `-S` when negative) through the empty squares of
/// `empty`, the first piece met included. `keep` drops the squares a shift
/// wraps onto (the a- or h-file), or is everything for a vertical shift.
#[inline(always)]
const fn fill<const S: i32>(seeds: u64, empty: u64, keep: u64) -> u64 {
    const fn sh<const S: i32>(x: u64, k: u32) -> u64 {
        if S > 0 {
            x << (S as u32 * k)
        } else {
            x >> ((-S) as u32 * k)
        }
    }
    let mut g = seeds;
    let mut p = empty & keep;
    g |= p & sh::<S>(g, 1);
    p &= sh::<S>(p, 1);
    g |= p & sh::<S>(g, 2);
    p &= sh::<S>(p, 2);
    g |= p & sh::<S>(g, 4);
    sh::<S>(g, 1) & keep
}

/// The union of [`rook_attacks`] from every square of `from` with the
/// occupancy `occ`, set-wise (four occluded fills, no table): cheaper than
/// one lookup per square for a set of more than a few squares, and it
/// touches no memory.
#[inline(always)]
pub fn rook_attacks_from_set(from: Bitboard, occ: Bitboard) -> Bitboard {
    let (g, e) = (from.0, !occ.0);
    Bitboard(
        fill::<8>(g, e, !0)
            | fill::<-8>(g, e, !0)
            | fill::<1>(g, e, NOT_A)
            | fill::<-1>(g, e, NOT_H),
    )
}

/// The union of [`bishop_attacks`] from every square of `from` with the
/// occupancy `occ`, set-wise (see [`rook_attacks_from_set`]).
#[inline(always)]
pub fn bishop_attacks_from_set(from: Bitboard, occ: Bitboard) -> Bitboard {
    let (g, e) = (from.0, !occ.0);
    Bitboard(
        fill::<9>(g, e, NOT_A)
            | fill::<7>(g, e, NOT_H)
            | fill::<-7>(g, e, NOT_A)
            | fill::<-9>(g, e, NOT_H),
    )
}

/// `(rook, bishop)` rays of every square on an empty board.
const fn rays() -> ([Bitboard; 64], [Bitboard; 64]) {
    let mut rook = [Bitboard::EMPTY; 64];
    let mut bishop = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        rook[sq] = Bitboard(slow_slider_attacks(sq, 0, true));
        bishop[sq] = Bitboard(slow_slider_attacks(sq, 0, false));
        sq += 1;
    }
    (rook, bishop)
}

/// Per square `k`: the union of the bishop rays, and of the rook rays, of
/// the squares next to `k` (empty board).
const fn ring_lines_table() -> ([Bitboard; 64], [Bitboard; 64]) {
    let ring = leaper_table(&KING_DELTAS);
    let mut diagonal = [Bitboard::EMPTY; 64];
    let mut orthogonal = [Bitboard::EMPTY; 64];
    let mut k = 0;
    while k < 64 {
        let mut next = ring[k].0;
        while next != 0 {
            let w = next.trailing_zeros() as usize;
            diagonal[k].0 |= slow_slider_attacks(w, 0, false);
            orthogonal[k].0 |= slow_slider_attacks(w, 0, true);
            next &= next - 1;
        }
        k += 1;
    }
    (diagonal, orthogonal)
}

/// The squares on a diagonal, and on a rank or file, with a square next to
/// `sq`: the unions of [`bishop_rays`] and of [`rook_rays`] over
/// [`king_attacks`]`(sq)`.
#[inline(always)]
pub fn ring_lines(sq: Square) -> (Bitboard, Bitboard) {
    (
        TABLES.ring_lines.0[sq.index()],
        TABLES.ring_lines.1[sq.index()],
    )
}

/// Number of slider table entries: rook squares first, then bishop squares.
const TABLE_SIZE: usize = 102_400 + 5_248;

/// Per-square slider parameters shared by both index schemes.
#[derive(Clone, Copy)]
struct SliderInfo {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: u32,
}

/// `[rook; 64]` then `[bishop; 64]` parameters, with consecutive offsets.
const fn slider_infos() -> [SliderInfo; 128] {
    let mut infos = [SliderInfo {
        mask: 0,
        magic: 0,
        shift: 0,
        offset: 0,
    }; 128];
    let mut offset = 0u32;
    let mut i = 0;
    while i < 128 {
        let rook = i < 64;
        let sq = i % 64;
        let mask = relevant_mask(sq, rook);
        let bits = mask.count_ones();
        infos[i] = SliderInfo {
            mask,
            magic: if rook {
                ROOK_MAGICS[sq]
            } else {
                BISHOP_MAGICS[sq]
            },
            shift: 64 - bits,
            offset,
        };
        offset += 1 << bits;
        i += 1;
    }
    assert!(offset as usize == TABLE_SIZE);
    infos
}

static INFOS: [SliderInfo; 128] = slider_infos();

/// Builds one slider table; `use_pext` chooses the index scheme.
///
/// The carry-rippler walk `subset = (subset - mask) & mask` visits the subsets
/// of `mask` in increasing numeric order, which is also the order of their
/// PEXT values, so the k-th subset's PEXT index is simply k.
const fn slider_table(use_pext: bool) -> [Bitboard; TABLE_SIZE] {
    let infos = slider_infos();
    let mut table = [Bitboard::EMPTY; TABLE_SIZE];
    let mut i = 0;
    while i < 128 {
        let info = infos[i];
        let rook = i < 64;
        let sq = i % 64;
        let mut subset = 0u64;
        let mut k = 0usize;
        loop {
            let attacks = slow_slider_attacks(sq, subset, rook);
            let index = info.offset as usize
                + if use_pext {
                    k
                } else {
                    (subset.wrapping_mul(info.magic) >> info.shift) as usize
                };
            let existing = table[index].0;
            // Every slider attack set is non-empty, so 0 marks an unused slot.
            assert!(
                existing == 0 || existing == attacks,
                "magic multiplier collision"
            );
            table[index] = Bitboard(attacks);
            subset = subset.wrapping_sub(info.mask) & info.mask;
            k += 1;
            if subset == 0 {
                break;
            }
        }
        i += 1;
    }
    table
}

/// Fancy magic bitboards (portable).
pub mod magic {
    use super::*;

    #[allow(long_running_const_eval)]
    static TABLE: [Bitboard; TABLE_SIZE] = slider_table(false);

    #[inline(always)]
    #[allow(unsafe_code)]
    fn lookup(i: usize, occ: Bitboard) -> Bitboard {
        let info = &INFOS[i];
        let index = ((occ.0 & info.mask).wrapping_mul(info.magic) >> info.shift) as usize;
        // SAFETY: shifting a u64 right by 64 - b leaves a value below 2^b, and
        // slider_infos gives square i the slots offset..offset + 2^b, all
        // inside TABLE (the last offset + 2^b is TABLE_SIZE, asserted there).
        unsafe { *TABLE.get_unchecked(info.offset as usize + index) }
    }

    /// Rook attacks from `sq` given the occupancy `occ`.
    #[inline(always)]
    pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
        lookup(sq.index(), occ)
    }

    /// Bishop attacks from `sq` given the occupancy `occ`.
    #[inline(always)]
    pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
        lookup(64 + sq.index(), occ)
    }
}

/// PEXT (BMI2) slider lookups. Compiled into every x86-64 build; only a
/// [`Bmi2`](crate::chess::cpu::Bmi2) token (proof that the CPU has BMI2) or a
/// build that enables `bmi2` for every function may call them.
#[cfg(target_arch = "x86_64")]
pub mod pext {
    use super::*;

    /// `(mask, offset)` per slider and square: 16 bytes, half the stride of
    /// the shared parameters (measured: fewer instructions per lookup).
    pub(super) const fn pext_infos() -> [(u64, u64); 128] {
        let infos = slider_infos();
        let mut out = [(0u64, 0u64); 128];
        let mut i = 0;
        while i < 128 {
            out[i] = (infos[i].mask, infos[i].offset as u64);
            i += 1;
        }
        out
    }

    /// # Safety
    /// The CPU must have BMI2.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn lookup(i: usize, occ: Bitboard) -> Bitboard {
        let (mask, offset) = TABLES.pext_infos[i];
        // SAFETY: the caller guarantees BMI2 (PEXT) is available.
        let index =
            offset as usize + unsafe { core::arch::x86_64::_pext_u64(occ.0, mask) } as usize;
        // SAFETY: PEXT with a mask of b bits is below 2^b, and slider_infos
        // gives square i the slots offset..offset + 2^b, all inside
        // TABLES.pext (the last offset + 2^b is TABLE_SIZE, asserted in
        // slider_infos).
        unsafe { *TABLES.pext.get_unchecked(index) }
    }

    /// Rook attacks from `sq` given the occupancy `occ`.
    ///
    /// # Safety
    /// The CPU must have BMI2.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
        // SAFETY: passed on from the caller.
        unsafe { lookup(sq.index(), occ) }
    }

    /// Bishop attacks from `sq` given the occupancy `occ`.
    ///
    /// # Safety
    /// The CPU must have BMI2.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub unsafe fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
        // SAFETY: passed on from the caller.
        unsafe { lookup(64 + sq.index(), occ) }
    }
}

/// True when the whole build enables BMI2 (`-C target-cpu=native` on a CPU
/// with it): the free functions below then use PEXT.
const STATIC_PEXT: bool = cfg!(all(target_arch = "x86_64", target_feature = "bmi2"));

/// Name of the slider lookup the free functions below use (`"pext"` in a
/// build that enables BMI2 throughout, else `"magic"`). The counting hot path
/// chooses at run time instead: see [`crate::chess::cpu`].
pub const SLIDER_LOOKUP: &str = if STATIC_PEXT { "pext" } else { "magic" };

/// Rook attacks from `sq` given the occupancy `occ` (the build's static
/// choice: see [`SLIDER_LOOKUP`]).
#[inline(always)]
#[allow(unsafe_code)]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    // SAFETY: the whole build enables BMI2, so every CPU it runs on has it.
    unsafe {
        pext::rook_attacks(sq, occ)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    magic::rook_attacks(sq, occ)
}

/// Bishop attacks from `sq` given the occupancy `occ` (the build's static
/// choice: see [`SLIDER_LOOKUP`]).
#[inline(always)]
#[allow(unsafe_code)]
pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    // SAFETY: the whole build enables BMI2, so every CPU it runs on has it.
    unsafe {
        pext::bishop_attacks(sq, occ)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    magic::bishop_attacks(sq, occ)
}

/// Queen attacks from `sq` given the occupancy `occ`.
#[inline(always)]
pub fn queen_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    rook_attacks(sq, occ) | bishop_attacks(sq, occ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_lines_are_the_rays_of_the_kings_neighbours() {
        for k in 0..64 {
            let k = Square::from_index(k);
            let (mut diagonal, mut orthogonal) = (Bitboard::EMPTY, Bitboard::EMPTY);
            for w in king_attacks(k) {
                diagonal |= bishop_rays(w);
                orthogonal |= rook_rays(w);
            }
            assert_eq!(ring_lines(k), (diagonal, orthogonal), "{k:?}");
        }
        // a1's neighbours a2, b1 and b2: b2's diagonal holds a1 and h8, no
        // neighbour's diagonal reaches e1; b1's file holds b8.
        let sq = Square::from_index;
        let (d, o) = ring_lines(sq(0));
        assert!(d.contains(sq(0)) && d.contains(sq(63)) && !d.contains(sq(4)));
        assert!(o.contains(sq(0)) && o.contains(sq(57)) && !o.contains(sq(63)));
    }

    #[test]
    fn set_wise_fills_equal_the_union_of_lookups() {
        // Seeded xorshift: sparse and dense occupancies, sets of 0-12 squares.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..20_000 {
            let occ = match round % 3 {
                0 => next() & next() & next(),
                1 => next() & next(),
                _ => next(),
            };
            let from = next() & next() & next() & next();
            let (mut rook, mut bishop) = (Bitboard::EMPTY, Bitboard::EMPTY);
            for sq in Bitboard(from) {
                rook |= Bitboard(slow_slider_attacks(sq.index(), occ, true));
                bishop |= Bitboard(slow_slider_attacks(sq.index(), occ, false));
            }
            assert_eq!(rook_attacks_from_set(Bitboard(from), Bitboard(occ)), rook);
            assert_eq!(
                bishop_attacks_from_set(Bitboard(from), Bitboard(occ)),
                bishop
            );
        }
        for sq in Square::ALL {
            assert_eq!(
                rook_attacks_from_set(sq.bitboard(), Bitboard::EMPTY),
                rook_rays(sq)
            );
            assert_eq!(
                bishop_attacks_from_set(sq.bitboard(), Bitboard::EMPTY),
                bishop_rays(sq)
            );
        }
    }

    fn check_all_subsets(
        rook_fn: fn(Square, Bitboard) -> Bitboard,
        bishop_fn: fn(Square, Bitboard) -> Bitboard,
    ) {
        for sq in Square::ALL {
            for (rook, f) in [(true, rook_fn), (false, bishop_fn)] {
                let mask = Bitboard(relevant_mask(sq.index(), rook));
                for subset in mask.subsets() {
                    let expected = slow_slider_attacks(sq.index(), subset.0, rook);
                    assert_eq!(f(sq, subset).0, expected, "{sq} rook={rook} occ={subset:?}");
                    // Occupancy outside the mask must not matter.
                    let noisy = subset | !mask;
                    assert_eq!(
                        f(sq, noisy).0,
                        slow_slider_attacks(sq.index(), noisy.0, rook),
                        "{sq} rook={rook} noisy occ"
                    );
                }
            }
        }
    }

    #[test]
    fn magic_lookup_matches_ray_walk_for_every_subset() {
        check_all_subsets(magic::rook_attacks, magic::bishop_attacks);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    #[allow(unsafe_code)]
    fn pext_lookup_matches_ray_walk_for_every_subset() {
        // Fails (rather than skipping) on a CPU without BMI2: the test
        // machine has it, and the lookup must be checked.
        assert!(
            std::arch::is_x86_feature_detected!("bmi2"),
            "this test needs BMI2"
        );
        // SAFETY: BMI2 was detected just above.
        check_all_subsets(
            |s, o| unsafe { pext::rook_attacks(s, o) },
            |s, o| unsafe { pext::bishop_attacks(s, o) },
        );
    }

    #[test]
    fn leaper_tables_match_known_counts() {
        assert_eq!(knight_attacks(Square::A1).len(), 2);
        assert_eq!(knight_attacks(Square::E4).len(), 8);
        assert_eq!(king_attacks(Square::H8).len(), 3);
        assert_eq!(
            pawn_attacks(Color::White, Square::E4),
            Square::D5.bitboard() | Square::F5.bitboard()
        );
        assert_eq!(
            pawn_attacks(Color::Black, Square::A5),
            Square::B4.bitboard()
        );
    }

    #[test]
    fn between_and_line_geometry() {
        assert_eq!(
            between(Square::A1, Square::D4),
            Square::B2.bitboard() | Square::C3.bitboard()
        );
        assert!(between(Square::A1, Square::B3).is_empty());
        assert!(between(Square::E1, Square::E2).is_empty());
        assert_eq!(
            line(Square::E1, Square::E4),
            crate::chess::square::File::E.bitboard()
        );
        assert!(line(Square::A1, Square::B3).is_empty());
    }
}
