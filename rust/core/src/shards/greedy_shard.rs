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
//! 2. scan:   err_i = sum_s sum_{q in s} ||p_q + g_q(c_i, d_i) z_q||^2   -> best feature b
//! 3. cross:  t_i = c_b sum_s v_b^T C_i
//! 4. add:    every shard applies the Sherman-Morrison update with (b, c_b, d_b, t)
//! ```
//!
//! The formulas are those of the module docs of [`crate::selection::greedy_rls`], with the
//! same per-query step (`update_residuals`) and the same four-lane sums ([`dot4`]); the
//! in-memory kernel keeps `M = Xc^T G Xc` and `r` instead of `Xc`, so its per-feature sums are
//! formed in another order and the two agree to rounding (the same selections). Each shard
//! state is a pure function of its rows and of the broadcast history `(b, c_b, d_b, t)` of
//! the steps so far, so a lost shard is rebuilt exactly by replaying that history.

use ndarray::ArrayView2;
use rayon::prelude::*;

use crate::data::groups::center_exact;
use crate::data::groups::QueryOffsets;
use crate::error::{check_memory, Result};
use crate::invalid;
use crate::linalg::{axpy, dot4, sq_norm_axpy};
use crate::metrics::{query_metric_with, MetricSpec, Scratch};
use crate::selection::greedy_rls::update_residuals;

/// The caches of one shard (feature-major, as in [`crate::selection::greedy_rls::GreedyState`]).
pub struct GreedyShard {
    m: usize,
    n: usize,
    offsets: Vec<usize>,
    y: Vec<f64>,
    yc: Vec<f64>,
    xt: Vec<f64>,
    c: Vec<f64>,
    u: Vec<f64>,
    a: Vec<f64>,
    p: Vec<f64>,
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

    fn col<'s>(&self, v: &'s [f64], i: usize) -> &'s [f64] {
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

    fn check_len(&self, what: &str, len: usize) -> Result<()> {
        if len != self.n {
            return invalid!("{what} has {len} entries but the shard has {} features", self.n);
        }
        Ok(())
    }

    /// Per candidate `i` (not in `skip`), this shard's part of the criterion after adding
    /// `i`, given the global `c_i`, `d_i`: the sum over its queries of `||p'_q||^2`
    /// (`spec = None`) or of the ranking measure of the hold-out scores `yc_q - p'_q`.
    /// Skipped candidates get NaN.
    pub fn scan(&self, c: &[f64], d: &[f64], skip: &[bool], spec: Option<&MetricSpec>) -> Result<Vec<f64>> {
        self.check_len("c", c.len())?;
        self.check_len("d", d.len())?;
        self.check_len("skip", skip.len())?;
        let off = &self.offsets;
        Ok((0..self.n)
            .into_par_iter()
            .map_init(
                || (Scratch::new(), Vec::<f64>::new()),
                |(scratch, scores), i| {
                    if skip[i] {
                        return f64::NAN;
                    }
                    let (ci, di) = (c[i], d[i]);
                    let cu = self.col(&self.c, i);
                    let z = self.col(&self.u, i);
                    let mut total = 0.0;
                    for w in off.windows(2) {
                        let (s, e) = (w[0], w[1]);
                        let s1 = dot4(&cu[s..e], &z[s..e]);
                        let s2 = dot4(&cu[s..e], &self.p[s..e]);
                        let g = ci * (s2 - di * s1) / (1.0 - ci * s1) - di;
                        match spec {
                            None => total += sq_norm_axpy(&self.p[s..e], g, &z[s..e]),
                            Some(spec) => {
                                scores.clear();
                                scores.extend((s..e).map(|r| self.yc[r] - (self.p[r] + g * z[r])));
                                total += query_metric_with(spec, &self.y[s..e], scores, scratch);
                            }
                        }
                    }
                    total
                },
            )
            .collect())
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
    /// are not updated).
    pub fn add(&mut self, b: usize, c: f64, d: f64, t: &[f64], skip: &[bool]) -> Result<()> {
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
        axpy(-d, &ub, &mut self.a);
        self.c.par_chunks_mut(m.max(1)).zip(self.u.par_chunks_mut(m.max(1))).enumerate().for_each(|(i, (ci, ui))| {
            if i == b || skip[i] {
                return;
            }
            let ti = t[i];
            for (q, w) in offsets.windows(2).enumerate() {
                let (s, e) = (w[0], w[1]);
                let zc = dot4(&zb[s..e], &ci[s..e]);
                let h = f[q] * (zc - ti * s1[q]) - ti;
                axpy(h, &zb[s..e], &mut ui[s..e]);
                axpy(-ti, &ub[s..e], &mut ci[s..e]);
            }
        });
        Ok(())
    }

    /// Partial sums `x_j^T a` over this shard's rows for `j` in `features` (the weights of
    /// the current model are their global sums, eq. 6).
    pub fn coef_partial(&self, features: &[usize]) -> Result<Vec<f64>> {
        if let Some(&j) = features.iter().find(|&&j| j >= self.n) {
            return invalid!("feature {j} out of range for {} features", self.n);
        }
        Ok(features.iter().map(|&j| dot4(self.col(&self.xt, j), &self.a)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use crate::selection::greedy_rls::{greedy_rankrls, GreedyOptions, Squared};
    use crate::testing::problem;

    /// Drives shards the way the Python client does; returns (selected, errors, coef).
    fn run_sharded(shards: &mut [GreedyShard], k: usize) -> (Vec<usize>, Vec<f64>, Vec<f64>) {
        let n = shards[0].n_features();
        // Features constant within every query of every shard are never candidates.
        let mut skip: Vec<bool> = (0..n).map(|i| shards.iter().all(|s| !s.informative()[i])).collect();
        let mut sel = Vec::new();
        let mut errs = Vec::new();
        for _ in 0..k {
            let mut e = vec![0.0; n];
            let mut h = vec![0.0; n];
            for s in shards.iter() {
                let (es, hs) = s.dots();
                for i in 0..n {
                    e[i] += es[i];
                    h[i] += hs[i];
                }
            }
            let c: Vec<f64> = e.iter().map(|v| 1.0 / (1.0 + v)).collect();
            let d: Vec<f64> = c.iter().zip(&h).map(|(c, h)| c * h).collect();
            let mut err = vec![0.0; n];
            for s in shards.iter() {
                for (t, v) in err.iter_mut().zip(s.scan(&c, &d, &skip, None).unwrap()) {
                    *t += v;
                }
            }
            let (b, v) = err
                .iter()
                .enumerate()
                .filter(|(i, _)| !skip[*i])
                .fold(None, |best: Option<(usize, f64)>, (i, &v)| match best {
                    Some((_, bv)) if bv <= v => best,
                    _ => Some((i, v)),
                })
                .unwrap();
            let mut t = vec![0.0; n];
            for s in shards.iter() {
                for (ti, v) in t.iter_mut().zip(s.cross(b).unwrap()) {
                    *ti += v;
                }
            }
            t.iter_mut().for_each(|v| *v *= c[b]);
            for s in shards.iter_mut() {
                s.add(b, c[b], d[b], &t, &skip).unwrap();
            }
            skip[b] = true;
            sel.push(b);
            errs.push(v);
        }
        let mut w = vec![0.0; n];
        for s in shards.iter() {
            for (j, v) in sel.iter().zip(s.coef_partial(&sel).unwrap()) {
                w[*j] += v;
            }
        }
        (sel, errs, w)
    }

    #[test]
    fn shards_match_in_memory() {
        let sizes = [5, 1, 7, 3, 4, 6, 2, 5];
        let (x, y, off) = problem(3, &sizes, 6);
        let opts = GreedyOptions { n_features_to_select: 5, alpha: 0.7, min_improvement: None, max_memory: None };
        let path = greedy_rankrls(
            x.view(),
            &y,
            &QueryOffsets::new(off.clone()).unwrap(),
            &opts,
            &Squared,
            &NoInterrupt,
            &mut |_, _, _| Ok(()),
        )
        .unwrap();
        // One shard and three uneven shards: same selection, close numbers (the in-memory kernel
        // keeps M = Xc^T G Xc instead of Xc, so the sums are not formed in the same order).
        for cuts in [vec![0, sizes.len()], vec![0, 1, 5, sizes.len()]] {
            let mut shards: Vec<GreedyShard> = cuts
                .windows(2)
                .map(|w| {
                    let (r0, r1) = (off[w[0]], off[w[1]]);
                    let so: Vec<usize> = off[w[0]..=w[1]].iter().map(|o| o - r0).collect();
                    GreedyShard::new(
                        x.slice(ndarray::s![r0..r1, ..]),
                        &y[r0..r1],
                        &QueryOffsets::new(so).unwrap(),
                        0.7,
                        u64::MAX,
                    )
                    .unwrap()
                })
                .collect();
            let (sel, errs, w) = run_sharded(&mut shards, 5);
            assert_eq!(sel, path.selected);
            for (a, b) in errs.iter().zip(&path.lqo_scores) {
                assert!((a - b).abs() <= 1e-10 * b.abs(), "{a} vs {b}");
            }
            let last = path.coef_path.row(4);
            for j in 0..6 {
                assert!((w[j] - last[j]).abs() <= 1e-10 * (1.0 + last[j].abs()));
            }
        }
    }

    #[test]
    fn memory_rule_and_bad_input() {
        let (x, y, off) = problem(4, &[3, 3], 3);
        let off = QueryOffsets::new(off).unwrap();
        assert!(matches!(GreedyShard::new(x.view(), &y, &off, 1.0, 10), Err(crate::Error::Memory { .. })));
        assert!(GreedyShard::new(x.view(), &y, &off, 0.0, u64::MAX).is_err());
        let s = GreedyShard::new(x.view(), &y, &off, 1.0, u64::MAX).unwrap();
        assert!(s.cross(3).is_err());
        assert!(s.scan(&[1.0], &[1.0], &[false], None).is_err());
    }
}
