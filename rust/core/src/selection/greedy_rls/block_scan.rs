//! The block scan on the in-memory caches of [`GreedyState`]: each candidate unit's criterion
//! from the per-query block step of [`super::block`], [`LANES`] queries' systems solved side by
//! side ([`super::lanes`]: each query's solution the bits of the one-query solve, so the
//! values are those of [`super::query_block`] query by query). A unit's terms are summed per
//! chunk in query order, then over the chunks in order: the same bits for any number of
//! threads.

use std::ops::Range;

use super::block::{query_residuals, solve_sym, BlockCandidate, BlockScratch, Prepared};
use super::block_tiles::query_dots;
use super::criterion::Criterion;
use super::lanes::{solve_spd_lanes, LANES};
use super::state::GreedyState;
use crate::linalg::{solve_spd_small, sq_norm_axpy4};

impl GreedyState {
    /// Each unit's constants (`K`, `h`, `K`'s Cholesky factor) and its starting pivot (1, or
    /// 0 when `K` is not positive definite to rounding).
    pub(super) fn prepare_blocks(&self, units: &[BlockCandidate]) -> Vec<(Prepared, f64)> {
        let mut work = Vec::new();
        units
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
                let mut rhs: Vec<f64> = (0..b).map(|_| 0.0).collect();
                let kl = solve_spd_small(&mut kl, b, &mut rhs, 1).then_some(kl);
                let piv = if kl.is_some() { 1.0 } else { 0.0 };
                (Prepared { k, h, sign, kl }, piv)
            })
            .collect()
    }

    /// The criterion after adding (or removing) each unit of `units` (module docs of
    /// [`super::block`]), and for each the smallest relative pivot of its blocks `K` and `W_q`
    /// (their conditioning: the accuracy monitor of [`super::backend`]).
    pub(crate) fn scan_blocks(
        &self,
        units: &[BlockCandidate],
        y: &[f64],
        criterion: &dyn Criterion,
    ) -> Vec<(f64, f64)> {
        if units.is_empty() {
            return Vec::new();
        }
        let prep = self.prepare_blocks(units);
        let chunks = &self.chunks;
        // one task per (chunk, unit): balanced on few chunks; each unit's shares are then
        // summed in chunk order, as one task per chunk would
        let nu = units.len();
        let tasks: Vec<usize> = (0..chunks.len() * nu).collect();
        let parts: Vec<(f64, f64)> = crate::par::map_tasks(tasks, BlockScratch::default, |sc, t, _| {
            let (k, u) = (t / nu, &units[t % nu]);
            let (r0, len) = (chunks.rows[k], chunks.rows[k + 1] - chunks.rows[k]);
            let base = self.n * r0;
            // rows a..e (from the chunk's start) of the unit's column j (feature-major block)
            let at = |j: usize| base + u.cols[j] * len;
            let (c, uu) = (&self.c[..], &self.u[..]);
            let data = QueryData { offsets: &self.offsets, r0, p: &self.p[r0..r0 + len], yc: &self.yc, y };
            let mut total = 0.0;
            // compiled at the SIMD level (the same bits at every level: `dot4`, `axpy`)
            let low = crate::simd::dispatch(
                #[inline(always)]
                || {
                    let cg = |j: usize, a: usize, e: usize| &c[at(j) + a..at(j) + e];
                    let zg = |j: usize, a: usize, e: usize| &uu[at(j) + a..at(j) + e];
                    let qs = chunks.queries[k]..chunks.queries[k + 1];
                    block_queries(&data, qs, cg, zg, &prep[t % nu].0, criterion, sc, &mut |v| total += v)
                },
            );
            (total, low)
        });
        let nq = self.offsets.len() - 1;
        (0..nu)
            .map(|i| {
                let total = (0..chunks.len()).map(|k| parts[k * nu + i].0).fold(0.0, |a, b| a + b);
                let low = (0..chunks.len()).map(|k| parts[k * nu + i].1).fold(prep[i].1, f64::min);
                (criterion.finish(total, nq), low)
            })
            .collect()
    }
}

/// What the query terms of a run of queries read besides the unit's columns: the offsets,
/// the first row `r0` of the rows held, their residuals `p` (from `r0`), and the centred and
/// raw labels (all rows).
pub(super) struct QueryData<'a> {
    pub(super) offsets: &'a [usize],
    pub(super) r0: usize,
    pub(super) p: &'a [f64],
    pub(super) yc: &'a [f64],
    pub(super) y: &'a [f64],
}

/// The block terms of one unit (`pr`) on the queries `qs`, in query order, each passed to
/// `emit`; returns their blocks' smallest relative pivot. `cg(j, a, e)` and `zg(j, a, e)`: rows
/// `a..e` (counted from `data.r0`) of the unit's column `j` of `C` and of `U`. [`LANES`] queries'
/// systems are solved side by side (each lane the bits of the one-query solve); a query whose
/// `W_q` is not positive definite to rounding is solved alone, as [`super::query_block`] does.
// One argument per input of the terms.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn block_queries<'a>(
    data: &QueryData,
    qs: Range<usize>,
    cg: impl Fn(usize, usize, usize) -> &'a [f64],
    zg: impl Fn(usize, usize, usize) -> &'a [f64],
    pr: &Prepared,
    criterion: &dyn Criterion,
    sc: &mut BlockScratch,
    emit: &mut impl FnMut(f64),
) -> f64 {
    let (offsets, r0) = (data.offsets, data.r0);
    let b = pr.h.len();
    let bb = b * b;
    let (k, h, sign) = (&pr.k[..bb], &pr.h[..b], pr.sign);
    let kl = pr.kl.as_deref();
    let squared = criterion.is_squared();
    let mut low = f64::INFINITY;
    sc.s.resize(bb, 0.0);
    sc.cp.resize(b, 0.0);
    for (wq, rhs) in sc.lanes.iter_mut() {
        wq.resize(bb, 0.0);
        rhs.resize(b, 0.0);
    }
    let (am, r) = &mut sc.packed;
    am.resize(bb, [0.0; LANES]);
    r.resize(b, [0.0; LANES]);
    let mut q = qs.start;
    while q < qs.end {
        let nl = LANES.min(qs.end - q);
        for (l, (wq, rhs)) in sc.lanes.iter_mut().enumerate() {
            if l >= nl {
                // unused lanes: the identity (a system that solves)
                (0..bb).for_each(|t| am[t][l] = if t / b == t % b { 1.0 } else { 0.0 });
                r.iter_mut().for_each(|v| v[l] = 0.0);
                continue;
            }
            let (a, e) = (offsets[q + l] - r0, offsets[q + l + 1] - r0);
            let (cq, zq) = (|j| cg(j, a, e), |j| zg(j, a, e));
            // the system of `query_system`: S_q and Cg_q^T p_q by tiles (the same bits)
            query_dots(b, &cq, &zq, &data.p[a..e], &mut sc.s, &mut sc.cp);
            let s = &sc.s[..bb];
            for j in 0..b {
                let mut sh = -0.0; // as `Iterator::sum`
                for (sv, hl) in s[j * b..(j + 1) * b].iter().zip(h) {
                    sh += sv * hl;
                }
                let v = sc.cp[j] - sign * sh;
                rhs[j] = v;
                r[j][l] = v;
            }
            for (t, (w, (kv, sv))) in wq.iter_mut().zip(k.iter().zip(s)).enumerate() {
                *w = kv - sign * sv;
                am[t][l] = *w;
            }
        }
        let ok = solve_spd_lanes(am, b, r);
        for (l, (wq, rhs)) in sc.lanes.iter_mut().enumerate().take(nl) {
            let (a, e) = (offsets[q + l] - r0, offsets[q + l + 1] - r0);
            if ok[l] {
                rhs.iter_mut().zip(r.iter()).for_each(|(v, x)| *v = x[l]);
            } else {
                // not positive definite to rounding: as one query alone (Gaussian elimination)
                solve_sym(wq, b, rhs, 1, &mut sc.w, 0.0);
            }
            let zq = |j| zg(j, a, e);
            let pq = &data.p[a..e];
            let piv = query_residuals(b, zq, pq, k, h, sign, kl, wq, rhs, &mut sc.w, &mut sc.pn);
            low = low.min(piv);
            let (s, t) = (a + r0, e + r0);
            // Squared's term inlined (compiled at the SIMD level; the same bits)
            emit(if squared {
                sq_norm_axpy4(&sc.pn, 0.0, &sc.pn)
            } else {
                criterion.query_term(&sc.pn, 0.0, &sc.pn, &data.yc[s..t], &data.y[s..t], &mut sc.crit)
            });
        }
        q += nl;
    }
    low
}
