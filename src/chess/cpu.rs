//! CPU paths: one binary, the hot code compiled once per instruction set,
//! the fastest path the CPU offers chosen once at start-up.
//!
//! | path | slider lookup | compiled with |
//! |---|---|---|
//! | [`CpuPath::Bmi2`] | PEXT | `bmi1,bmi2,popcnt,lzcnt,avx,avx2` |
//! | [`CpuPath::Popcnt`] | fancy magics | `popcnt` |
//! | [`CpuPath::Portable`] | fancy magics | the build's baseline |
//!
//! The hot code (generator, leaf-parent counter, perft recursion) is generic
//! over a [`Cpu`] token type and monomorphised once per path. Its
//! out-of-line pieces (recursion, rare branches) run through
//! [`Cpu::outlined`], which calls a closure through a function carrying the
//! path's `#[target_feature]`s; the closure and everything it inlines are
//! compiled with those features (PEXT, POPCNT, TZCNT/BLSR instead of their
//! portable sequences). Nothing is dispatched per node: a path is chosen
//! once per run ([`CpuPath::run`]).
//!
//! A token ([`Popcnt`], [`Bmi2`]) can only be made by checking the CPU, so
//! holding one proves its instructions exist: that is what makes the
//! feature-enabled calls sound.
//!
//! PEXT is not always fast: AMD Zen 1 and Zen 2 (family 0x17) and Hygon
//! microcode it (tens of cycles, data-dependent), where magics win. Those
//! CPUs get [`CpuPath::Popcnt`] unless `PERFT_CPU=bmi2` asks for it.
//!
//! The BMI2 path also enables AVX and AVX2 (every CPU with a fast PEXT has
//! them): the leaf-parent counter's per-kind zone arrays and the position
//! copies then use 256-bit registers. Measured against the same path without
//! them, one thread, deep set: start perft 7 1.09x, CPW 5 perft 6 1.13x,
//! CPW 4 perft 6 1.08x (interleaved, 9 rounds).

use std::fmt;
use std::sync::OnceLock;

use crate::chess::attacks::{self, magic};
use crate::chess::bitboard::Bitboard;
use crate::chess::square::Square;

/// Environment variable that forces a path: `portable`, `popcnt` or `bmi2`.
pub const CPU_ENV: &str = "PERFT_CPU";

/// A compiled path through the hot code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CpuPath {
    /// Magic lookups, no CPU extension beyond the build's baseline.
    Portable,
    /// Magic lookups, hardware population count.
    Popcnt,
    /// PEXT lookups (BMI2), hardware population count, TZCNT, BLSR, LZCNT.
    Bmi2,
}

/// Why a requested path cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CpuError {
    /// The value names no path.
    #[error("{CPU_ENV}={0:?}: unknown CPU path (expected portable, popcnt or bmi2)")]
    Unknown(String),
    /// The CPU lacks the path's instructions.
    #[error("{CPU_ENV}={0}: this CPU lacks the instructions of that path (supported: {1})")]
    Unsupported(CpuPath, String),
}

impl CpuPath {
    /// Every path, slowest first.
    pub const ALL: [CpuPath; 3] = [CpuPath::Portable, CpuPath::Popcnt, CpuPath::Bmi2];

    /// The path's name (`portable`, `popcnt`, `bmi2`).
    pub fn name(self) -> &'static str {
        match self {
            CpuPath::Portable => "portable",
            CpuPath::Popcnt => "popcnt",
            CpuPath::Bmi2 => "bmi2",
        }
    }

    /// The slider lookup the path uses (`pext` or `magic`).
    pub fn slider_lookup(self) -> &'static str {
        match self {
            CpuPath::Bmi2 => "pext",
            _ => "magic",
        }
    }

    /// Parses a path name.
    pub fn parse(text: &str) -> Result<CpuPath, CpuError> {
        CpuPath::ALL
            .into_iter()
            .find(|p| p.name() == text.trim().to_ascii_lowercase())
            .ok_or_else(|| CpuError::Unknown(text.to_string()))
    }

    /// True if this CPU has the path's instructions.
    pub fn is_supported(self) -> bool {
        match self {
            CpuPath::Portable => true,
            CpuPath::Popcnt => Popcnt::detect().is_some(),
            CpuPath::Bmi2 => Bmi2::detect().is_some(),
        }
    }

    /// The paths this CPU supports, slowest first.
    pub fn supported() -> Vec<CpuPath> {
        CpuPath::ALL
            .into_iter()
            .filter(|p| p.is_supported())
            .collect()
    }

    /// The fastest path for this CPU: BMI2 where PEXT is present and fast,
    /// else POPCNT where present, else portable.
    pub fn best() -> CpuPath {
        static BEST: OnceLock<CpuPath> = OnceLock::new();
        *BEST.get_or_init(|| {
            if CpuPath::Bmi2.is_supported() && !slow_pext() {
                CpuPath::Bmi2
            } else if CpuPath::Popcnt.is_supported() {
                CpuPath::Popcnt
            } else {
                CpuPath::Portable
            }
        })
    }

    /// The path named by `value` (the content of [`CPU_ENV`]), or the
    /// [`best`](Self::best) one when there is none; an unknown name or a
    /// path this CPU lacks is an error.
    pub fn from_setting(value: Option<&str>) -> Result<CpuPath, CpuError> {
        match value {
            None => Ok(CpuPath::best()),
            Some(text) => {
                let path = CpuPath::parse(text)?;
                if path.is_supported() {
                    Ok(path)
                } else {
                    let names: Vec<_> = CpuPath::supported().iter().map(|p| p.name()).collect();
                    Err(CpuError::Unsupported(path, names.join(", ")))
                }
            }
        }
    }

    /// The path this process uses by default: the one [`CPU_ENV`] names,
    /// else the [`best`](Self::best). (The command line refuses a bad
    /// [`CPU_ENV`] before running; here it falls back to the best path.)
    pub fn selected() -> CpuPath {
        static SELECTED: OnceLock<CpuPath> = OnceLock::new();
        *SELECTED.get_or_init(|| {
            let value = std::env::var(CPU_ENV).ok().filter(|v| !v.trim().is_empty());
            CpuPath::from_setting(value.as_deref()).unwrap_or_else(|_| CpuPath::best())
        })
    }

    /// Runs `f` on this path's compiled code. A path this CPU lacks runs on
    /// the portable path (drivers check [`is_supported`](Self::is_supported)
    /// first; the counts are the same either way).
    #[inline]
    pub fn run<F: CpuFn>(self, f: F) -> F::Output {
        match self {
            CpuPath::Bmi2 => {
                if let Some(cpu) = Bmi2::detect() {
                    return f.call(cpu);
                }
            }
            CpuPath::Popcnt => {
                if let Some(cpu) = Popcnt::detect() {
                    return f.call(cpu);
                }
            }
            CpuPath::Portable => {}
        }
        f.call(Portable(()))
    }
}

impl fmt::Display for CpuPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// True on CPUs whose PEXT is microcoded: AMD before Zen 3 (family below
/// 0x19) and Hygon (Zen 1 based). From the CPUID vendor string and family.
fn slow_pext() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::__cpuid;
        // CPUID leaves 0 and 1 exist on every x86-64 CPU and have no side
        // effects (the intrinsic is safe to call on x86-64).
        let vendor = __cpuid(0);
        let mut name = [0u8; 12];
        name[0..4].copy_from_slice(&vendor.ebx.to_le_bytes());
        name[4..8].copy_from_slice(&vendor.edx.to_le_bytes());
        name[8..12].copy_from_slice(&vendor.ecx.to_le_bytes());
        let eax = __cpuid(1).eax;
        let base = (eax >> 8) & 0xF;
        let family = if base == 0xF {
            base + ((eax >> 20) & 0xFF)
        } else {
            base
        };
        match &name {
            b"AuthenticAMD" => family < 0x19,
            b"HygonGenuine" => true,
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Code generic over a [`Cpu`] path, run through [`CpuPath::run`].
pub trait CpuFn {
    /// What the code returns.
    type Output;
    /// Runs the code on path `C`.
    fn call<C: Cpu>(self, cpu: C) -> Self::Output;
}

/// A compiled path: slider lookups and a way to compile code with the path's
/// CPU features. Implemented by zero-sized tokens; a token's existence
/// proves its instructions are present.
pub trait Cpu: Copy + Send + Sync + 'static {
    /// The path this token stands for (`None` for [`Compiled`]).
    const PATH: Option<CpuPath>;
    /// Rook attacks from `sq` given the occupancy `occ`.
    fn rook_attacks(self, sq: Square, occ: Bitboard) -> Bitboard;
    /// Bishop attacks from `sq` given the occupancy `occ`.
    fn bishop_attacks(self, sq: Square, occ: Bitboard) -> Bitboard;
    /// Runs `f` in an out-of-line function compiled with this path's CPU
    /// features. Pass a closure marked `#[inline(always)]` so its body (and
    /// what it inlines) is compiled there.
    fn outlined<R, F: FnOnce() -> R>(self, f: F) -> R;
    /// Whether the leaf-parent counter counts the replies to checking moves
    /// in its king tier instead of making them (see [`Sparse`]).
    const CHECK_TIER: bool = false;
    /// The path a root with few men is counted on: [`Sparse`] of the BMI2
    /// path, the path itself otherwise (each twin compiles the counter once
    /// more; only the default path of the machines we time gets one).
    /// Its token is made from this path's (`C::Sparse::from(cpu)`).
    type Sparse: Cpu + From<Self>;
}

/// Path `C` for positions with few men: the same lookups and features, but
/// the leaf-parent counter's king tier also counts the replies to checking
/// moves without a make. A type of its own, so the counting code is
/// compiled a second time for it and the code the other positions run is
/// the same as without it (counted in the tier for every position, the
/// checks cost 2-3 % in the rich bins of the speed set: see
/// docs/performance.md). Only the BMI2 path has it as its
/// [`Cpu::Sparse`]: each twin is one more copy of the counter for every
/// build to compile, and the other paths are fallbacks, not what is timed.
#[derive(Clone, Copy, Debug)]
pub struct Sparse<C>(pub C);

impl<C: Cpu> From<C> for Sparse<C> {
    #[inline(always)]
    fn from(cpu: C) -> Sparse<C> {
        Sparse(cpu)
    }
}

impl<C: Cpu> Cpu for Sparse<C> {
    const PATH: Option<CpuPath> = C::PATH;
    const CHECK_TIER: bool = true;
    type Sparse = Self;
    #[inline(always)]
    fn rook_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        self.0.rook_attacks(sq, occ)
    }
    #[inline(always)]
    fn bishop_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        self.0.bishop_attacks(sq, occ)
    }
    #[inline(always)]
    fn outlined<R, F: FnOnce() -> R>(self, f: F) -> R {
        self.0.outlined(f)
    }
}

/// The portable path: magics, baseline instructions.
#[derive(Clone, Copy, Debug)]
pub struct Portable(());

impl Portable {
    /// The portable token (every CPU has it).
    pub fn new() -> Portable {
        Portable(())
    }
}

impl Default for Portable {
    fn default() -> Self {
        Portable::new()
    }
}

impl Cpu for Portable {
    const PATH: Option<CpuPath> = Some(CpuPath::Portable);
    type Sparse = Self;
    #[inline(always)]
    fn rook_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        magic::rook_attacks(sq, occ)
    }
    #[inline(always)]
    fn bishop_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        magic::bishop_attacks(sq, occ)
    }
    #[inline(always)]
    fn outlined<R, F: FnOnce() -> R>(self, f: F) -> R {
        portable_call(f)
    }
}

#[inline(never)]
fn portable_call<R, F: FnOnce() -> R>(f: F) -> R {
    f()
}

/// The compile-time path: the lookups this build selects statically (PEXT
/// when the whole build enables BMI2, magics otherwise), no trampolines.
/// For code outside the counting hot path (lists, search, FEN checks).
#[derive(Clone, Copy, Debug, Default)]
pub struct Compiled;

impl Cpu for Compiled {
    const PATH: Option<CpuPath> = None;
    type Sparse = Self;
    #[inline(always)]
    fn rook_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        attacks::rook_attacks(sq, occ)
    }
    #[inline(always)]
    fn bishop_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        attacks::bishop_attacks(sq, occ)
    }
    #[inline(always)]
    fn outlined<R, F: FnOnce() -> R>(self, f: F) -> R {
        portable_call(f)
    }
}

/// The POPCNT path: magics, hardware population count.
#[derive(Clone, Copy, Debug)]
pub struct Popcnt(());

impl Popcnt {
    /// The token, if this CPU has POPCNT.
    pub fn detect() -> Option<Popcnt> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            return Some(Popcnt(()));
        }
        None
    }
}

impl Cpu for Popcnt {
    const PATH: Option<CpuPath> = Some(CpuPath::Popcnt);
    type Sparse = Self;
    #[inline(always)]
    fn rook_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        magic::rook_attacks(sq, occ)
    }
    #[inline(always)]
    fn bishop_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        magic::bishop_attacks(sq, occ)
    }
    #[inline(always)]
    #[allow(unsafe_code)]
    fn outlined<R, F: FnOnce() -> R>(self, f: F) -> R {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a Popcnt token is only made by `Popcnt::detect`, after
        // `is_x86_feature_detected!("popcnt")`: the CPU has the instruction.
        unsafe {
            popcnt_call(f)
        }
        #[cfg(not(target_arch = "x86_64"))]
        portable_call(f)
    }
}

/// Out-of-line call compiled with POPCNT. Measured need for `unsafe`: the
/// default build's popcount is a 12-instruction bit trick; see
/// docs/performance.md ("CPU paths").
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn popcnt_call<R, F: FnOnce() -> R>(f: F) -> R {
    f()
}

/// The BMI2 path: PEXT lookups, hardware population count, TZCNT, BLSR.
#[derive(Clone, Copy, Debug)]
pub struct Bmi2(());

impl Bmi2 {
    /// The token, if this CPU has BMI1, BMI2, POPCNT, LZCNT and AVX2 (whether
    /// PEXT is fast is [`CpuPath::best`]'s concern).
    pub fn detect() -> Option<Bmi2> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("avx")
            && std::arch::is_x86_feature_detected!("avx2")
        {
            return Some(Bmi2(()));
        }
        None
    }
}

impl Cpu for Bmi2 {
    const PATH: Option<CpuPath> = Some(CpuPath::Bmi2);
    type Sparse = Sparse<Bmi2>;
    #[inline(always)]
    #[allow(unsafe_code)]
    fn rook_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a Bmi2 token is only made by `Bmi2::detect`, after
        // `is_x86_feature_detected!("bmi2")`: PEXT exists on this CPU.
        unsafe {
            attacks::pext::rook_attacks(sq, occ)
        }
        #[cfg(not(target_arch = "x86_64"))]
        magic::rook_attacks(sq, occ)
    }
    #[inline(always)]
    #[allow(unsafe_code)]
    fn bishop_attacks(self, sq: Square, occ: Bitboard) -> Bitboard {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `rook_attacks`: the token proves BMI2 was detected.
        unsafe {
            attacks::pext::bishop_attacks(sq, occ)
        }
        #[cfg(not(target_arch = "x86_64"))]
        magic::bishop_attacks(sq, occ)
    }
    #[inline(always)]
    #[allow(unsafe_code)]
    fn outlined<R, F: FnOnce() -> R>(self, f: F) -> R {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a Bmi2 token is only made by `Bmi2::detect`, which checked
        // every feature `bmi2_call` enables.
        unsafe {
            bmi2_call(f)
        }
        #[cfg(not(target_arch = "x86_64"))]
        portable_call(f)
    }
}

/// Out-of-line call compiled with the BMI2 path's features.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt,avx,avx2")]
#[inline(never)]
#[allow(unsafe_code)]
unsafe fn bmi2_call<R, F: FnOnce() -> R>(f: F) -> R {
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for path in CpuPath::ALL {
            assert_eq!(CpuPath::parse(path.name()), Ok(path));
        }
        assert_eq!(CpuPath::parse("BMI2"), Ok(CpuPath::Bmi2));
        assert!(matches!(
            CpuPath::parse("avx512"),
            Err(CpuError::Unknown(_))
        ));
        assert!(matches!(
            CpuPath::from_setting(Some("sse9")),
            Err(CpuError::Unknown(_))
        ));
    }

    #[test]
    fn the_best_path_is_supported_and_portable_always_is() {
        assert!(CpuPath::Portable.is_supported());
        assert!(CpuPath::best().is_supported());
        assert_eq!(CpuPath::from_setting(None), Ok(CpuPath::best()));
        assert!(CpuPath::supported().contains(&CpuPath::best()));
    }

    #[test]
    fn every_supported_path_looks_up_the_same_attacks() {
        struct Lookups(Square, Bitboard);
        impl CpuFn for Lookups {
            type Output = (Bitboard, Bitboard);
            fn call<C: Cpu>(self, cpu: C) -> (Bitboard, Bitboard) {
                cpu.outlined(
                    #[inline(always)]
                    || {
                        (
                            cpu.rook_attacks(self.0, self.1),
                            cpu.bishop_attacks(self.0, self.1),
                        )
                    },
                )
            }
        }
        for sq in Square::ALL {
            for occ in [0u64, 0x0042_0000_1800_2400, !0, 0x00FF_0000_0000_FF00] {
                let occ = Bitboard(occ);
                let expected = (
                    Bitboard(attacks::slow_slider_attacks(sq.index(), occ.0, true)),
                    Bitboard(attacks::slow_slider_attacks(sq.index(), occ.0, false)),
                );
                for path in CpuPath::supported() {
                    assert_eq!(path.run(Lookups(sq, occ)), expected, "{path} {sq}");
                }
            }
        }
    }
}
