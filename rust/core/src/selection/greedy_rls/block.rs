//! The criterion after adding or removing a unit of `b > 1` columns, from the caches of
//! [`GreedyState`] (module docs of [`super`]): the block form of the rank-one scan.
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
//! needs the block form. The sum over queries runs per chunk in query order, then over the
//! chunks in order: the same bits for any number of threads.

use rayon::prelude::*;

use super::criterion::{Criterion, CriterionScratch};
use super::state::GreedyState;
use crate::linalg::{axpy, dot4, dot4_many, solve_small, solve_spd_small};

/// One unit to score: its informative columns and the sign (`true`: removal).
pub(crate) struct BlockCandidate {
    pub(crate) cols: Vec<usize>,
    pub(crate) remove: bool,
}

/// Per-unit constants: `K` (row-major), `h` and the sign.
struct Prepared {
    k: Vec<f64>,
    h: Vec<f64>,
    sign: f64,
    /// `K`'s Cholesky factor (lower, row-major; None when `K` is not positive definite to
    /// rounding): the pivots of `W_q` are measured against `K` (for `b = 1`, `W_q / K =
    /// 1 - c s1_q`, the rank-one `den`).
    kl: Option<Vec<f64>>,
}

/// Per-thread buffers of one query's block step ([`query_block`]).
#[derive(Default)]
pub(crate) struct BlockScratch {
    s: Vec<f64>,
    rhs: Vec<f64>,
    w: Vec<f64>,
    wq: Vec<f64>,
    /// The query's new residuals `p'_q`.
    pub(crate) pn: Vec<f64>,
    pub(crate) crit: CriterionScratch,
}

/// One query's part of a unit's block scan (module docs): from the unit's `b` columns of `C`
/// (`cg(j)`) and `U` (`zg(j)`) on the query's rows, `p_q`, `K` (row-major) and `h`, the new
/// residuals `p'_q` into `sc.pn`; returns the smallest eigenvalue (to a factor) of `W_q` against
/// `K` given `K`'s Cholesky factor `kl` (1 without it). The one definition for the in-memory
/// caches and the query shards.
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
    // S_q is symmetric (`Cg_q^T B_q Cg_q`): the upper triangle, mirrored
    sc.s.clear();
    sc.s.resize(b * b, 0.0);
    for j in 0..b {
        let mut l = j;
        // four dots side by side (`dot4_many`: the bits of `dot4`)
        while l + 4 <= b {
            let d = dot4_many(cg(j), [zg(l), zg(l + 1), zg(l + 2), zg(l + 3)]);
            for (o, d) in d.into_iter().enumerate() {
                sc.s[j * b + l + o] = d;
                sc.s[(l + o) * b + j] = d;
            }
            l += 4;
        }
        for l in l..b {
            let d = dot4(cg(j), zg(l));
            sc.s[j * b + l] = d;
            sc.s[l * b + j] = d;
        }
    }
    sc.rhs.clear();
    for j in 0..b {
        let mut sh = -0.0; // as `Iterator::sum`
        for (sv, hl) in sc.s[j * b..(j + 1) * b].iter().zip(h) {
            sh += sv * hl;
        }
        sc.rhs.push(dot4(cg(j), pq) - sign * sh);
    }
    sc.wq.clear();
    for (a, s) in k.iter().zip(&sc.s) {
        sc.wq.push(a - sign * s);
    }
    solve_sym(&sc.wq, b, &mut sc.rhs, 1, &mut sc.w, 0.0);
    // W_q against K on each column (`W_jj / K_jj`; b = 1: the rank-one den), or the pencil's
    // smallest pivot when a column alone is already close to singular
    let diag = (0..b).map(|j| sc.wq[j * b + j] / k[j * b + j]).fold(1.0f64, f64::min);
    let piv = match kl {
        Some(l) if diag < PENCIL_BELOW => pencil_pivot(&sc.wq, l, b, &mut sc.w),
        Some(_) => diag,
        None => 1.0,
    };
    sc.pn.clear();
    sc.pn.extend_from_slice(pq);
    for (j, (r, hj)) in sc.rhs.iter().zip(h).enumerate() {
        axpy(sign * (r - hj), zg(j), &mut sc.pn);
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

impl GreedyState {
    /// The criterion after adding (or removing) each unit of `units` (module docs), and for
    /// each the smallest relative pivot of its blocks `K` and `W_q` (their conditioning:
    /// the accuracy monitor of [`super::backend`]).
    pub(crate) fn scan_blocks(
        &self,
        units: &[BlockCandidate],
        y: &[f64],
        criterion: &dyn Criterion,
    ) -> Vec<(f64, f64)> {
        if units.is_empty() {
            return Vec::new();
        }
        let mut work = Vec::new();
        let prep: Vec<(Prepared, f64)> = units
            .iter()
            .map(|u| {
                let b = u.cols.len();
                let sign = if u.remove { -1.0 } else { 1.0 };
                let k: Vec<f64> = (0..b * b)
                    .map(|t| sign * self.store.m(u.cols[t / b], u.cols[t % b]) + if t / b == t % b { 1.0 } else { 0.0 })
                    .collect();
                let mut h: Vec<f64> = u.cols.iter().map(|&j| self.r[j]).collect();
                solve_sym(&k, b, &mut h, 1, &mut work, 0.0);
                let mut kl = k.clone();
                let mut rhs = vec![0.0; b];
                let kl = solve_spd_small(&mut kl, b, &mut rhs, 1).then_some(kl);
                let piv = if kl.is_some() { 1.0 } else { 0.0 };
                (Prepared { k, h, sign, kl }, piv)
            })
            .collect();
        let chunks = &self.chunks;
        // one task per (chunk, unit): balanced on few chunks; each unit's shares are then
        // summed in chunk order, as one task per chunk would
        let nu = units.len();
        let parts: Vec<(f64, f64)> = (0..chunks.len() * nu)
            .into_par_iter()
            .map_init(BlockScratch::default, |sc, t| {
                // compiled at the SIMD level (the same bits at every level: `dot4`, `axpy`)
                crate::simd::dispatch(
                    #[inline(always)]
                    || self.block_chunk(t / nu, &units[t % nu], &prep[t % nu].0, y, criterion, sc),
                )
            })
            .collect();
        let nq = self.offsets.len() - 1;
        (0..nu)
            .map(|i| {
                let total = (0..chunks.len()).map(|k| parts[k * nu + i].0).fold(0.0, |a, b| a + b);
                let low = (0..chunks.len()).map(|k| parts[k * nu + i].1).fold(prep[i].1, f64::min);
                (criterion.finish(total, nq), low)
            })
            .collect()
    }

    /// Chunk `k`'s share of [`GreedyState::scan_blocks`] for unit `u` (`pr`: its constants):
    /// its sum of query terms and its blocks' smallest relative pivot.
    #[inline(always)]
    fn block_chunk(
        &self,
        k: usize,
        u: &BlockCandidate,
        pr: &Prepared,
        y: &[f64],
        criterion: &dyn Criterion,
        sc: &mut BlockScratch,
    ) -> (f64, f64) {
        let chunks = &self.chunks;
        let r0 = chunks.rows[k];
        let len = chunks.rows[k + 1] - r0;
        let base = self.n * r0;
        let b = u.cols.len();
        // rows s..e of the unit's column j in the chunk's block (feature-major)
        let col = |j: usize, s: usize, e: usize| base + u.cols[j] * len + (s - r0)..base + u.cols[j] * len + (e - r0);
        let (mut total, mut low) = (0.0, f64::INFINITY);
        for q in chunks.queries[k]..chunks.queries[k + 1] {
            let (s, e) = (self.offsets[q], self.offsets[q + 1]);
            let cg = |j: usize| &self.c[col(j, s, e)];
            let zg = |j: usize| &self.u[col(j, s, e)];
            let kl = pr.kl.as_deref();
            let piv = query_block(b, cg, zg, &self.p[s..e], &pr.k, &pr.h, pr.sign, kl, sc);
            low = low.min(piv);
            total += criterion.query_term(&sc.pn, 0.0, &sc.pn, &self.yc[s..e], &y[s..e], &mut sc.crit);
        }
        (total, low)
    }
}
