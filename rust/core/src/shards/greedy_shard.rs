//! Greedy RankRLS over query shards (Pahikkala et al. 2010, Algorithm 1, split by rows).
//!
//! Every quantity of [`crate::selection::greedy_rls`] is either per row (the caches `Xc`,
//! `C = G Xc`, `U = blockdiag(B_q) C`, `a`, `p`), per query (`s1_q`, `s2_q`, `f_q`, `g_q`:
//! they only read the rows of query `q`) or a sum over rows (`v^T C_i`, `v^T a`, `v_b^T C_i`,
//! the LQO error `sum_q ||p'_q||^2`). A shard holding whole queries therefore keeps the caches of its own
//! rows, and a step needs only sums of per-shard partial sums, O(n) numbers per shard:
//!
//! ```text
//! 1. dots:   e_i = sum_s v_i^T C_i,  h_i = sum_s v_i^T a       c_i = 1/(1 + e_i), d_i = c_i h_i
//! 2. scan:   err_i = sum_s sum_{q in s} term_q(p_q + g_q(c_i, d_i) z_q)   -> best feature b
//! 3. cross:  t_i = c_b sum_s v_b^T C_i
//! 4. add:    every shard applies the Sherman-Morrison update with (b, c_b, d_b, t)
//! ```
//!
//! The arithmetic between the rounds (`c`, `d`, `t`, the sums in shard order) and the
//! selection itself are the core's ([`crate::shards::greedy_sharded`]); a shard answers the
//! rounds. The formulas are those of the module docs of [`crate::selection::greedy_rls`], with
//! the same per-query step (`update_residuals`), the same criterion terms
//! ([`Criterion::query_term`]) and the same four-lane sums ([`dot4`]); the in-memory kernel
//! keeps `M = Xc^T G Xc` and `r` instead of `Xc`, so its per-feature sums are formed in
//! another order and the two agree to rounding (the same selections). Each shard state is a
//! pure function of its rows and of the broadcast history `(b, c_b, d_b, t)` of the steps so
//! far, so a lost shard is rebuilt exactly by replaying that history.

use faer::{Accum, MatRef, Par};
use ndarray::ArrayView2;
use rayon::prelude::*;

use crate::data::groups::center_exact;
use crate::data::groups::QueryOffsets;
use crate::error::{check_memory, Result};
use crate::invalid;
use crate::linalg::{axpy, dot4, sq_norm_axpy4};
use crate::selection::greedy_rls::{update_residuals, Criterion, CriterionScratch};

/// The caches of one shard (feature-major, as in [`crate::selection::greedy_rls::GreedyState`]).
pub struct GreedyShard {
    pub(super) m: usize,
    pub(super) n: usize,
    pub(super) offsets: Vec<usize>,
    pub(super) y: Vec<f64>,
    pub(super) yc: Vec<f64>,
    pub(super) xt: Vec<f64>,
    pub(super) c: Vec<f64>,
    pub(super) u: Vec<f64>,
    a: Vec<f64>,
    pub(super) p: Vec<f64>,
    /// `false` for features constant within every query of this shard.
    informative: Vec<bool>,
}

impl GreedyShard {
    /// Caches for `S = {}` (`G = I/alpha`) of the shard's grouped rows `x` (m x n), labels
    /// `y`, query `offsets`. Refuses (memory rule) when the three m x n caches exceed `max_memory`
    /// bytes.
    pub fn new(x: ArrayView2<f64>, y: &[f64], offsets: &QueryOffsets, alpha: f64, max_memory: u64) -> Result<Self> {
        let (m, n) = x.dim();
        if y.len() != m {
            return invalid!("y has {} entries but X has {m} rows", y.len());
        }
        offsets.check_rows(m, "the shard's X")?;
        if !(alpha.is_finite() && alpha > 0.0) {
            return invalid!("alpha must be > 0 and finite, got {alpha}");
        }
        if let Some(((r, j), v)) = x.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return invalid!("X contains NaN or infinity (shard row {r}, column {j}: {v})");
        }
        if let Some((r, v)) = y.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return invalid!("y contains NaN or infinity (shard row {r}: {v})");
        }
        check_memory(
            &format!("greedy RankRLS shard caches (3 x {m} x {n} float64)"),
            3 * (m as u128) * (n as u128) * 8,
            max_memory,
            "split the data into more shards (more, smaller chunks of whole queries)",
        )?;
        // Centred as in the in-memory kernel (a query constant in a column becomes exactly 0).
        let local: Vec<(usize, usize)> = offsets.windows(2).map(|w| (w[0], w[1])).collect();
        let mut xt = vec![0.0; n * m];
        let informative: Vec<bool> = xt
            .par_chunks_mut(m.max(1))
            .enumerate()
            .map(|(i, col)| {
                for (r, v) in col.iter_mut().enumerate() {
                    *v = x[(r, i)];
                }
                center_exact(col, &local)
            })
            .collect();
        let informative = if m == 0 { vec![false; n] } else { informative };
        let mut yc = y.to_vec();
        center_exact(&mut yc, &local);
        let inv = 1.0 / alpha;
        let c: Vec<f64> = xt.par_iter().map(|v| v * inv).collect();
        let u = xt.clone();
        let a: Vec<f64> = yc.iter().map(|v| v * inv).collect();
        let p = yc.clone();
        Ok(GreedyShard { m, n, offsets: offsets.to_vec(), y: y.to_vec(), yc, xt, c, u, a, p, informative })
    }

    /// Number of features n.
    pub fn n_features(&self) -> usize {
        self.n
    }

    /// `false` for the features constant within every query of this shard; a feature is a
    /// candidate when it is informative in some shard (the in-memory kernel's rule).
    pub fn informative(&self) -> &[bool] {
        &self.informative
    }

    pub(super) fn col<'s>(&self, v: &'s [f64], i: usize) -> &'s [f64] {
        &v[i * self.m..(i + 1) * self.m]
    }

    /// Partial sums over this shard's rows: `(v_i^T C_i, v_i^T a)` for every feature `i`.
    pub fn dots(&self) -> (Vec<f64>, Vec<f64>) {
        (0..self.n)
            .into_par_iter()
            .map(|i| {
                let v = self.col(&self.xt, i);
                (dot4(v, self.col(&self.c, i)), dot4(v, &self.a))
            })
            .unzip()
    }

    pub(super) fn check_len(&self, what: &str, len: usize) -> Result<()> {
        if len != self.n {
            return invalid!("{what} has {len} entries but the shard has {} features", self.n);
        }
        Ok(())
    }

    /// Per candidate `i` (not in `skip`), this shard's part of the criterion after adding
    /// `i`, given the global `c_i`, `d_i`: the sum over its queries of the criterion's query
    /// term ([`Criterion::query_term`]: `||p'_q||^2`, or the ranking measure of the hold-out
    /// scores `yc_q - p'_q`). Skipped candidates get NaN.
    /// Beside each value, the accuracy monitor's `den_i`: the smallest `1 - c_i s1_qi` over the
    /// shard's queries (1 for a skipped candidate or a shard without queries).
    pub fn scan(&self, c: &[f64], d: &[f64], skip: &[bool], criterion: &dyn Criterion) -> Result<(Vec<f64>, Vec<f64>)> {
        self.check_len("c", c.len())?;
        self.check_len("d", d.len())?;
        self.check_len("skip", skip.len())?;
        let off = &self.offsets;
        Ok((0..self.n)
            .into_par_iter()
            .map_init(CriterionScratch::default, |scratch, i| {
                if skip[i] {
                    return (f64::NAN, 1.0);
                }
                let (ci, di) = (c[i], d[i]);
                let cu = self.col(&self.c, i);
                let z = self.col(&self.u, i);
                let squared = criterion.is_squared();
                crate::simd::dispatch(
                    #[inline(always)]
                    || {
                        let (mut total, mut den) = (0.0, 1.0f64);
                        for w in off.windows(2) {
                            let (s, e) = (w[0], w[1]);
                            let (pq, zq) = (&self.p[s..e], &z[s..e]);
                            let s1 = dot4(&cu[s..e], zq);
                            let s2 = dot4(&cu[s..e], pq);
                            den = den.min(1.0 - ci * s1);
                            let g = ci * (s2 - di * s1) / (1.0 - ci * s1) - di;
                            total += if squared {
                                sq_norm_axpy4(pq, g, zq)
                            } else {
                                criterion.query_term(pq, g, zq, &self.yc[s..e], &self.y[s..e], scratch)
                            };
                        }
                        (total, den)
                    },
                )
            })
            .unzip())
    }

    /// The shard's rows and its largest query's ([`super::greedy_sharded::ShardCalls::rows`]).
    pub fn rows(&self) -> (usize, usize) {
        (self.m, self.offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0))
    }

    /// This shard's part of the current model's `||p||^2` (the accuracy monitor's scale).
    pub fn model_value(&self) -> f64 {
        dot4(&self.p, &self.p)
    }

    /// This shard's part of the empty model's criterion: the sum over its queries of the
    /// query term of the centred labels (the LQO residuals of the model that predicts 0).
    pub fn baseline(&self, criterion: &dyn Criterion) -> f64 {
        let mut scratch = CriterionScratch::default();
        self.offsets
            .windows(2)
            .map(|w| {
                let q = &self.yc[w[0]..w[1]];
                criterion.query_term(q, 0.0, q, q, &self.y[w[0]..w[1]], &mut scratch)
            })
            .fold(0.0, |a, b| a + b)
    }

    /// This shard's `Xc^T Xc` (n x n, row-major) and `Xc^T yc` (n): summed over the shards,
    /// the Gram matrix of the primal weights of every prefix (eq. 5).
    pub fn gram(&self) -> (Vec<f64>, Vec<f64>) {
        let (m, n) = (self.m, self.n);
        let mut g = vec![0.0; n * n];
        if m > 0 && n > 0 {
            let xt = MatRef::from_row_major_slice(&self.xt, n, m);
            let out = faer::MatMut::from_row_major_slice_mut(&mut g, n, n);
            faer::linalg::matmul::matmul(out, Accum::Replace, xt, xt.transpose(), 1.0, Par::Seq);
        }
        let xty = (0..n).map(|i| dot4(self.col(&self.xt, i), &self.yc)).collect();
        (g, xty)
    }

    /// Partial sums `v_b^T C_i` over this shard's rows, for every feature `i`.
    pub fn cross(&self, b: usize) -> Result<Vec<f64>> {
        if b >= self.n {
            return invalid!("feature {b} out of range for {} features", self.n);
        }
        let v = self.col(&self.xt, b);
        Ok((0..self.n).into_par_iter().map(|i| dot4(v, self.col(&self.c, i))).collect())
    }

    /// Adds feature `b` with the global `c = c_b`, `d = d_b` and `t_i = c v_b^T C_i`:
    /// Sherman-Morrison update of `a`, `p`, `C`, `U` (features in `skip`, the selected ones,
    /// are not updated). Returns the step's smallest `1 - c s1_q` over the shard's queries (the
    /// accuracy monitor's `den`; 1 without queries).
    pub fn add(&mut self, b: usize, c: f64, d: f64, t: &[f64], skip: &[bool]) -> Result<f64> {
        if b >= self.n {
            return invalid!("feature {b} out of range for {} features", self.n);
        }
        self.check_len("t", t.len())?;
        self.check_len("skip", skip.len())?;
        let m = self.m;
        let offsets = &self.offsets;
        let ub = self.c[b * m..(b + 1) * m].to_vec();
        let zb = self.u[b * m..(b + 1) * m].to_vec();
        let (s1, f) = update_residuals(&ub, &zb, &mut self.p, offsets, c, d);
        let den = s1.iter().map(|s| 1.0 - c * s).fold(1.0f64, f64::min);
        axpy(-d, &ub, &mut self.a);
        self.c.par_chunks_mut(m.max(1)).zip(self.u.par_chunks_mut(m.max(1))).enumerate().for_each(|(i, (ci, ui))| {
            if i == b || skip[i] {
                return;
            }
            let ti = t[i];
            crate::simd::dispatch(
                #[inline(always)]
                || {
                    for (q, w) in offsets.windows(2).enumerate() {
                        let (s, e) = (w[0], w[1]);
                        let zc = dot4(&zb[s..e], &ci[s..e]);
                        let h = f[q] * (zc - ti * s1[q]) - ti;
                        axpy(h, &zb[s..e], &mut ui[s..e]);
                        axpy(-ti, &ub[s..e], &mut ci[s..e]);
                    }
                },
            )
        });
        Ok(den)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selection::greedy_rls::Squared;
    use crate::testing::problem;

    #[test]
    fn memory_rule_and_bad_input() {
        let (x, y, off) = problem(4, &[3, 3], 3);
        let off = QueryOffsets::new(off).unwrap();
        assert!(matches!(GreedyShard::new(x.view(), &y, &off, 1.0, 10), Err(crate::Error::Memory { .. })));
        assert!(GreedyShard::new(x.view(), &y, &off, 0.0, u64::MAX).is_err());
        let s = GreedyShard::new(x.view(), &y, &off, 1.0, u64::MAX).unwrap();
        assert!(s.cross(3).is_err());
        assert!(s.scan(&[1.0], &[1.0], &[false], &Squared).is_err());
    }
}
