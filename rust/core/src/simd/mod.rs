//! Run-time SIMD dispatch: one source, compiled once per instruction-set level, the level
//! chosen when the process first asks for it.
//!
//! The streaming kernels (greedy RankRLS's fused pass and criterion terms, centring, the
//! RankRLS and shard sums, the pairwise squared hinge, the metrics, single-feature importance,
//! Kendall's bitsets, the kernel maps, the LETOR parser) are written once, as portable Rust
//! whose sums run over a fixed number of lane accumulators ([`crate::linalg`]). [`dispatch`]
//! runs such a body inside a function compiled with the active level's target features, so
//! the compiler vectorises it for that level:
//!
//! - `baseline`: the target's baseline (x86-64: SSE2; aarch64: NEON);
//! - `avx2`: x86-64-v3 (AVX2, FMA, BMI1/2, LZCNT, POPCNT), through [`pulp::x86::V3`];
//! - `avx512`: x86-64-v4 (AVX-512 F/BW/CD/DQ/VL on top of v3). pulp has this level only
//!   behind its `x86-v4` feature, which would also switch faer's own kernels (Cargo unifies
//!   features) and so change faer's results on AVX-512 machines; its trampoline is here.
//!
//! **Bit-identity rule.** Every level computes every result bit for bit alike: Rust never
//! contracts `a * b + c` into a fused multiply-add nor reassociates a floating-point sum, so
//! the same source gives the same operations in the same order at every level; only the
//! width of the instructions that carry them changes. A kernel that hand-writes intrinsics
//! for one level (Kendall's AVX2 bitsets) keeps the scalar code's order exactly, and
//! `f64::mul_add` is correctly rounded with or without FMA hardware. The test
//! `tests/test_simd_bitwise.py` and the proptests of `simd::tests` compare the levels bitwise.
//!
//! The level is the best the CPU has, or the one the environment variable
//! [`ENV_VAR`] (`RANKSELECT_SIMD`: `baseline`, `avx2`, `avx512`) names; it is read once.
//! An unknown value or a level the CPU lacks is an error ([`active_level`]), which the Python
//! binding raises at import.

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The environment variable that forces a dispatch level.
pub const ENV_VAR: &str = "RANKSELECT_SIMD";

/// An instruction-set level the kernels are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SimdLevel {
    /// The target's baseline (x86-64: SSE2).
    Baseline,
    /// x86-64-v3: AVX2, FMA, BMI1/2, LZCNT, POPCNT.
    Avx2,
    /// x86-64-v4: AVX-512 F/BW/CD/DQ/VL on top of v3.
    Avx512,
}

impl SimdLevel {
    /// Every level, from the narrowest.
    pub const ALL: [SimdLevel; 3] = [SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Avx512];

    /// The level's name, as [`ENV_VAR`] spells it.
    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Baseline => "baseline",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
        }
    }

    /// Whether this CPU runs the level.
    pub fn is_available(self) -> bool {
        match self {
            SimdLevel::Baseline => true,
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx2 => pulp::x86::V3::try_new().is_some(),
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx512 => {
                pulp::x86::V3::try_new().is_some()
                    && std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512cd")
                    && std::is_x86_feature_detected!("avx512dq")
                    && std::is_x86_feature_detected!("avx512vl")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The levels this CPU runs, from the narrowest.
    pub fn available() -> Vec<SimdLevel> {
        Self::ALL.into_iter().filter(|l| l.is_available()).collect()
    }

    /// The widest level this CPU runs.
    pub fn best() -> SimdLevel {
        Self::ALL.into_iter().rev().find(|l| l.is_available()).unwrap_or(SimdLevel::Baseline)
    }

    /// The level named `value` (a value of [`ENV_VAR`]), if this CPU runs it.
    pub fn parse(value: &str) -> Result<SimdLevel> {
        let names = || Self::available().iter().map(|l| l.name()).collect::<Vec<_>>().join(", ");
        let level = Self::ALL.into_iter().find(|l| l.name() == value.trim()).ok_or_else(|| {
            Error::InvalidInput(format!(
                "{ENV_VAR}={value:?} is not a SIMD level: use one of baseline, avx2, avx512 \
                 (this CPU has: {}), or leave it unset for the best",
                names()
            ))
        })?;
        if !level.is_available() {
            return Err(Error::InvalidInput(format!(
                "{ENV_VAR}={value:?}: this CPU lacks the {} instructions (it has: {}); \
                 unset {ENV_VAR} or choose one of those",
                level.name(),
                names()
            )));
        }
        Ok(level)
    }
}

static ACTIVE: OnceLock<std::result::Result<SimdLevel, String>> = OnceLock::new();

/// The level the kernels run at: [`ENV_VAR`]'s if set (read once), else the best the CPU
/// has. An unknown value or a level the CPU lacks is [`Error::InvalidInput`] naming the
/// variable, the value and the levels the CPU has.
pub fn active_level() -> Result<SimdLevel> {
    ACTIVE
        .get_or_init(|| match std::env::var(ENV_VAR) {
            Ok(v) if !v.trim().is_empty() => SimdLevel::parse(&v).map_err(|e| e.to_string()),
            _ => Ok(SimdLevel::best()),
        })
        .clone()
        .map_err(Error::InvalidInput)
}

/// The active level, or the baseline where [`active_level`] is an error (the binding
/// refuses to import in that case, so no Python call gets here with a bad setting).
#[inline]
pub fn level() -> SimdLevel {
    active_level().unwrap_or(SimdLevel::Baseline)
}

/// Runs `f` compiled for the active level (module docs). `f` and what it calls must inline
/// into it (`#[inline(always)]` on the closure and on the kernel body it calls).
#[inline(always)]
pub fn dispatch<R>(f: impl FnOnce() -> R) -> R {
    dispatch_at(level(), f)
}

/// Runs `f` compiled for `level`, or for the widest level below it that this CPU runs.
#[inline(always)]
pub fn dispatch_at<R>(level: SimdLevel, f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        if level >= SimdLevel::Avx512 && SimdLevel::Avx512.is_available() {
            // SAFETY: the CPU has every feature the function enables (checked just above).
            return unsafe { run_avx512(f) };
        }
        if level >= SimdLevel::Avx2 {
            if let Some(v3) = pulp::x86::V3::try_new() {
                return pulp::Simd::vectorize(v3, f);
            }
        }
    }
    let _ = level;
    f()
}

/// The x86-64-v4 trampoline (module docs: why not pulp's).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512cd,avx512dq,avx512vl,avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn run_avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
mod tests;
