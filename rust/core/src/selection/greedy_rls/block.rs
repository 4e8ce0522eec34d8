//! The criterion after adding or removing a unit of `b > 1` columns, from the caches of
//! [`GreedyState`](super::GreedyState) (module docs of [`super`]): the block form of the
//! rank-one scan.
//!
//! With the unit's columns `g`, `Cg = C_:g`, `Zg = U_:g`, the sign `s = +1` (add) or `-1`
//! (remove: `G'^-1 = G^-1 - Xg Xg^T`), Woodbury gives `G' = G - s Cg K^-1 Cg^T` and per query
//!
//! ```text
//! K    = I_b + s M_gg             h = K^-1 r_g
//! S_q  = Cg_q^T Zg_q              W_q = K - s S_q              (b x b)
//! B'_q = B_q + s Zg_q W_q^-1 Zg_q^T
//! p'_q = p_q + s Zg_q v_q,        v_q = W_q^-1 (Cg_q^T p_q - s S_q h) - h
//! ```
//!
//! and the candidate's criterion is that of `p'` (Theorem 3.1, eq. 7). With `b = 1` and
//! `c = s / (1 + s M_bb)` these are the rank-one formulas of [`super`]. A unit's update of the
//! caches is its columns' rank-one steps one after the other (the same `G'`); only the scan
//! needs the block form. This module is one query's step ([`query_block`]: the system
//! [`query_system`], its solve, the residuals [`query_residuals`]), shared with the query
//! shards; the scan over the in-memory caches is [`super::block_scan`].

use super::criterion::CriterionScratch;
use super::lanes::LANES;
use crate::linalg::{axpy, dot4, dot4_many, solve_small, solve_spd_small};

/// One unit to score: its informative columns and the sign (`true`: removal).
pub(crate) struct BlockCandidate {
    pub(crate) cols: Vec<usize>,
    pub(crate) remove: bool,
}

/// Per-unit constants: `K` (row-major), `h` and the sign.
pub(super) struct Prepared {
    pub(super) k: Vec<f64>,
    pub(super) h: Vec<f64>,
    pub(super) sign: f64,
    /// `K`'s Cholesky factor (lower, row-major; None when `K` is not positive definite to
    /// rounding): the pivots of `W_q` are measured against `K` (for `b = 1`, `W_q / K =
    /// 1 - c s1_q`, the rank-one `den`).
    pub(super) kl: Option<Vec<f64>>,
}

/// Per-thread buffers of one query's block step ([`query_block`]).
#[derive(Default)]
pub(crate) struct BlockScratch {
    pub(super) s: Vec<f64>,
    rhs: Vec<f64>,
    /// `Cg_q^T p_q` ([`super::block_tiles::query_dots`]).
    pub(super) cp: Vec<f64>,
    pub(super) w: Vec<f64>,
    wq: Vec<f64>,
    /// The query's new residuals `p'_q`.
    pub(crate) pn: Vec<f64>,
    pub(crate) crit: CriterionScratch,
    /// [`LANES`] queries' systems (`W_q` and right-hand side) and their packed lanes.
    pub(super) lanes: [(Vec<f64>, Vec<f64>); LANES],
    pub(super) packed: (Vec<[f64; LANES]>, Vec<[f64; LANES]>),
}

/// One query's part of a unit's block scan (module docs): from the unit's `b` columns of `C`
/// (`cg(j)`) and `U` (`zg(j)`) on the query's rows, `p_q`, `K` (row-major) and `h`, the new
/// residuals `p'_q` into `sc.pn`; returns the smallest eigenvalue (to a factor) of `W_q` against
/// `K` given `K`'s Cholesky factor `kl` (1 without it). The one definition for the in-memory
/// caches and the query shards: [`query_system`], the solve of `W_q`, [`query_residuals`].
// One argument per quantity of the formula.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn query_block<'a>(
    b: usize,
    cg: impl Fn(usize) -> &'a [f64],
    zg: impl Fn(usize) -> &'a [f64],
    pq: &[f64],
    k: &[f64],
    h: &[f64],
    sign: f64,
    kl: Option<&[f64]>,
    sc: &mut BlockScratch,
) -> f64 {
    query_system(b, &cg, pq, &zg, k, h, sign, &mut sc.s, &mut sc.rhs, &mut sc.wq);
    solve_sym(&sc.wq, b, &mut sc.rhs, 1, &mut sc.w, 0.0);
    let (wq, rhs) = (&sc.wq, &sc.rhs);
    query_residuals(b, zg, pq, k, h, sign, kl, wq, rhs, &mut sc.w, &mut sc.pn)
}

/// The system of one query's block step (module docs): `S_q` into `s`, `W_q = K - s S_q`
/// into `wq` and the right-hand side `Cg_q^T p_q - s S_q h` into `rhs`.
// One argument per quantity of the formula.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn query_system<'a>(
    b: usize,
    cg: &impl Fn(usize) -> &'a [f64],
    pq: &[f64],
    zg: &impl Fn(usize) -> &'a [f64],
    k: &[f64],
    h: &[f64],
    sign: f64,
    s: &mut Vec<f64>,
    rhs: &mut Vec<f64>,
    wq: &mut Vec<f64>,
) {
    // S_q is symmetric (`Cg_q^T B_q Cg_q`): the upper triangle, mirrored
    s.clear();
    s.resize(b * b, 0.0);
    for j in 0..b {
        let mut l = j;
        // four dots side by side (`dot4_many`: the bits of `dot4`)
        while l + 4 <= b {
            let d = dot4_many(cg(j), [zg(l), zg(l + 1), zg(l + 2), zg(l + 3)]);
            for (o, d) in d.into_iter().enumerate() {
                s[j * b + l + o] = d;
                s[(l + o) * b + j] = d;
            }
            l += 4;
        }
        for l in l..b {
            let d = dot4(cg(j), zg(l));
            s[j * b + l] = d;
            s[l * b + j] = d;
        }
    }
    rhs.clear();
    for j in 0..b {
        let mut sh = -0.0; // as `Iterator::sum`
        for (sv, hl) in s[j * b..(j + 1) * b].iter().zip(h) {
            sh += sv * hl;
        }
        rhs.push(dot4(cg(j), pq) - sign * sh);
    }
    wq.clear();
    for (a, sv) in k.iter().zip(s.iter()) {
        wq.push(a - sign * sv);
    }
}

/// The end of one query's block step from `W_q` (`wq`) and the solution `v_q + h` of its
/// system (`rhs`): the new residuals `p'_q` into `pn` and the pivot of `W_q` against `K`
/// ([`query_block`]). `work`: a buffer.
// One argument per quantity of the formula.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn query_residuals<'a>(
    b: usize,
    zg: impl Fn(usize) -> &'a [f64],
    pq: &[f64],
    k: &[f64],
    h: &[f64],
    sign: f64,
    kl: Option<&[f64]>,
    wq: &[f64],
    rhs: &[f64],
    work: &mut Vec<f64>,
    pn: &mut Vec<f64>,
) -> f64 {
    // W_q against K on each column (`W_jj / K_jj`; b = 1: the rank-one den), or the pencil's
    // smallest pivot when a column alone is already close to singular
    let diag = (0..b).map(|j| wq[j * b + j] / k[j * b + j]).fold(1.0f64, f64::min);
    let piv = match kl {
        Some(l) if diag < PENCIL_BELOW => pencil_pivot(wq, l, b, work),
        Some(_) => diag,
        None => 1.0,
    };
    pn.clear();
    pn.extend_from_slice(pq);
    for (j, (r, hj)) in rhs.iter().zip(h).enumerate() {
        axpy(sign * (r - hj), zg(j), pn);
    }
    piv
}

/// Below this per-column ratio `W_jj / K_jj` the block's pivot is the pencil's
/// ([`pencil_pivot`], O(b^3) per query); above it the ratio is the pivot.
const PENCIL_BELOW: f64 = 0.5;

/// The smallest squared Cholesky pivot of `L^-1 W L^-T` (`W`, `L` row-major `b x b`, `L`
/// lower): how close `W` is to singular against `L L^T` (0 when it is not positive definite).
fn pencil_pivot(w: &[f64], l: &[f64], b: usize, work: &mut Vec<f64>) -> f64 {
    // X = L^-1 W (column by column), then Y = X L^-T = L^-1 X^T (X W-symmetric in exact arithmetic)
    let lower = |x: &mut [f64], stride: usize, col: usize| {
        for i in 0..b {
            let mut v = x[i * stride + col];
            for k in 0..i {
                v -= l[i * b + k] * x[k * stride + col];
            }
            x[i * stride + col] = v / l[i * b + i];
        }
    };
    work.clear();
    work.extend_from_slice(w);
    (0..b).for_each(|c| lower(work, b, c));
    let mut y: Vec<f64> = (0..b * b).map(|t| work[(t % b) * b + t / b]).collect(); // X^T
    (0..b).for_each(|c| lower(&mut y, b, c));
    for i in 0..b {
        for j in 0..i {
            let v = 0.5 * (y[i * b + j] + y[j * b + i]);
            y[i * b + j] = v;
            y[j * b + i] = v;
        }
    }
    let mut rhs = vec![0.0; b];
    if !solve_spd_small(&mut y, b, &mut rhs, 1) {
        return 0.0;
    }
    (0..b).map(|i| y[i * b + i] * y[i * b + i]).fold(f64::INFINITY, f64::min)
}

/// `a x = rhs` for a small symmetric `a` (row-major `b x b`): Cholesky, else Gaussian
/// elimination. Returns the smallest squared Cholesky pivot relative to `scale` (`a`'s largest
/// diagonal entry when `scale` is 0): how close `a` is to singular at that scale; 0 when the
/// elimination was needed.
#[inline(always)]
pub(crate) fn solve_sym(a: &[f64], b: usize, rhs: &mut [f64], nrhs: usize, work: &mut Vec<f64>, scale: f64) -> f64 {
    work.clear();
    work.extend_from_slice(a);
    let keep: Vec<f64> = rhs.to_vec(); // small: b x nrhs
    if solve_spd_small(work, b, rhs, nrhs) {
        let top = if scale > 0.0 { scale } else { (0..b).map(|i| a[i * b + i]).fold(0.0f64, f64::max) };
        let low = (0..b).map(|i| work[i * b + i] * work[i * b + i]).fold(f64::INFINITY, f64::min);
        return if top > 0.0 { low / top } else { 1.0 };
    }
    rhs.copy_from_slice(&keep);
    work.clear();
    work.extend_from_slice(a);
    solve_small(work, b, rhs, nrhs);
    0.0
}
