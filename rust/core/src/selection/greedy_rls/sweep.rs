//! A unit's columns added (or removed) in one sweep over the caches (module docs of
//! [`super`]): the `b` rank-one steps of a unit, applied query by query.
//!
//! With `M` kept in full ([`MStore::Full`]), a step's global quantities (`c = 1/(1 + M_bb)`,
//! or `-1/(1 - M_bb)` to remove, `d = c r_b`, `t = c M_b:`, and the updates of `M` and `r`)
//! come from `M` and `r` alone, so the `b` steps' are computed first, one after the other. What
//! is left is per query: `s1_q`, `f_q` and `p_q` of each step from the query's rows of the
//! entering column, then `C_qi`, `U_qi` of every column the step updates. So one sweep applies
//! the `b` steps to a query while its rows are in cache, instead of one pass over the caches
//! per step; every value is computed by the operations of [`super::update_residuals`] and of
//! the pass ([`super::fused`]) in their order, so the caches are those of the step-by-step
//! passes, bit for bit. The accuracy monitor's `den` and the residuals' norms (its `change`)
//! are gathered per chunk and combined in chunk order: the same for any number of threads.

use rayon::prelude::*;

use super::chunks::Chunks;
use super::monitor::relative_change;
use super::state::GreedyState;
use super::step::Step;
use super::store::MStore;
use crate::linalg::{axpy, dot4, dot4_many};

/// The global part of one rank-one step of a sweep (module docs).
struct Global {
    b: usize,
    c: f64,
    d: f64,
    t: Vec<f64>,
}

impl GreedyState {
    /// `true` when [`GreedyState::sweep`] applies (`M` kept in full: `n <= m`).
    pub(super) fn can_sweep(&self) -> bool {
        matches!(self.store, MStore::Full { .. })
    }

    /// Adds (or, with `remove`, removes) the columns `cols` in order, step `j` updating the
    /// columns whose flag `update[j][i]` is set (module docs). Returns the monitor's quantities
    /// of each step (`rho`, `den`, `change`; the pass's vectors empty: nothing is pending).
    pub(super) fn sweep(&mut self, cols: &[usize], remove: bool, update: &[Vec<bool>]) -> Vec<Step> {
        debug_assert!(self.can_sweep(), "the sweep reads rows of M in full");
        let mut glob = Vec::with_capacity(cols.len());
        let mut rhos = Vec::with_capacity(cols.len());
        for &b in cols {
            let mbb = self.store.m(b, b);
            let c = if remove { -1.0 / (1.0 - mbb) } else { 1.0 / (1.0 + mbb) };
            rhos.push(self.rho(b));
            self.in_model[b] = !remove;
            let d = c * self.r[b];
            let mb = self.store.row(b, &[]);
            let t: Vec<f64> = mb.iter().map(|v| c * v).collect();
            self.store.rank_one(&mb, c);
            self.r.iter_mut().zip(&mb).for_each(|(r, m)| *r -= d * m);
            glob.push(Global { b, c, d, t });
        }
        let before = self.model_value();
        let n = self.n;
        let (chunks, offsets) = (&self.chunks, &self.offsets);
        let cs = chunks.split(&mut self.c, n);
        let us = chunks.split(&mut self.u, n);
        let ps = chunks.split(&mut self.p, 1);
        let glob = &glob;
        let parts: Vec<(Vec<f64>, Vec<f64>)> = cs
            .into_par_iter()
            .zip(us)
            .zip(ps)
            .enumerate()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(ub, zb), (k, ((cc, uu), pp))| {
                    let chunk = SweepChunk { chunks, offsets, glob, update, n };
                    crate::simd::dispatch(
                        #[inline(always)]
                        || chunk.run(k, cc, uu, pp, ub, zb),
                    )
                },
            )
            .collect();
        let mut prev = before;
        (0..cols.len())
            .map(|j| {
                let den = parts.iter().map(|p| p.0[j]).fold(1.0f64, f64::min);
                let after = parts.iter().map(|p| p.1[j]).fold(0.0, |a, b| a + b);
                let change = relative_change(prev, after);
                prev = after;
                let none = Vec::new;
                Step { t: none(), s1: none(), f: none(), ub: none(), zb: none(), rho: rhos[j], den, change }
            })
            .collect()
    }
}

/// What one chunk's share of a sweep reads.
struct SweepChunk<'a> {
    chunks: &'a Chunks,
    offsets: &'a [usize],
    glob: &'a [Global],
    update: &'a [Vec<bool>],
    n: usize,
}

impl SweepChunk<'_> {
    /// Chunk `k` (its blocks `cc` of `C`, `uu` of `U` and `pp` of `p`): every step applied to
    /// each query in turn; returns per step the smallest `1 - c s1_q` and the chunk's share
    /// of `||p||^2` after the step. `ub`, `zb`: buffers for the entering column's query rows.
    #[inline(always)]
    fn run(
        &self,
        k: usize,
        cc: &mut [f64],
        uu: &mut [f64],
        pp: &mut [f64],
        ub: &mut Vec<f64>,
        zb: &mut Vec<f64>,
    ) -> (Vec<f64>, Vec<f64>) {
        let r0 = self.chunks.rows[k];
        let len = self.chunks.rows[k + 1] - r0;
        let steps = self.glob.len();
        let mut dens: Vec<f64> = (0..steps).map(|_| 1.0).collect();
        let mut norms: Vec<f64> = (0..steps).map(|_| 0.0).collect();
        for q in self.chunks.queries[k]..self.chunks.queries[k + 1] {
            let (a, e) = (self.offsets[q] - r0, self.offsets[q + 1] - r0);
            let pq = &mut pp[a..e];
            for (j, g) in self.glob.iter().enumerate() {
                // the entering column's rows before its step (a removal may update it too)
                ub.clear();
                ub.extend_from_slice(&cc[g.b * len + a..g.b * len + e]);
                zb.clear();
                zb.extend_from_slice(&uu[g.b * len + a..g.b * len + e]);
                // the residuals (update_residuals_body)
                let s1 = dot4(ub, zb);
                let s2 = dot4(ub, pq);
                let f = g.c / (1.0 - g.c * s1);
                let h0 = f * (s2 - g.d * s1) - g.d;
                axpy(h0, zb, pq);
                dens[j] = dens[j].min(1.0 - g.c * s1);
                norms[j] += dot4(pq, pq);
                // the columns (the pass's update, fused::fused_update), four dots side by side
                let (mut four, mut held) = ([0usize; 4], 0);
                for i in (0..self.n).filter(|&i| self.update[j][i]) {
                    four[held] = i;
                    held += 1;
                    if held == 4 {
                        let r = |i: usize| i * len + a..i * len + e;
                        let dz = dot4_many(zb, [&cc[r(four[0])], &cc[r(four[1])], &cc[r(four[2])], &cc[r(four[3])]]);
                        for (&i, dz) in four.iter().zip(dz) {
                            update_column(cc, uu, r(i), ub, zb, g.t[i], f * (dz - g.t[i] * s1) - g.t[i]);
                        }
                        held = 0;
                    }
                }
                for &i in &four[..held] {
                    let r = i * len + a..i * len + e;
                    let h = f * (dot4(zb, &cc[r.clone()]) - g.t[i] * s1) - g.t[i];
                    update_column(cc, uu, r, ub, zb, g.t[i], h);
                }
            }
        }
        (dens, norms)
    }
}

/// `C_qi -= t ub_q`, `U_qi += h zb_q` on the rows `r` of column `i`'s block.
#[inline(always)]
fn update_column(cc: &mut [f64], uu: &mut [f64], r: std::ops::Range<usize>, ub: &[f64], zb: &[f64], t: f64, h: f64) {
    cc[r.clone()].iter_mut().zip(ub).for_each(|(cv, u)| *cv -= t * u);
    uu[r].iter_mut().zip(zb).for_each(|(uv, z)| *uv += h * z);
}
