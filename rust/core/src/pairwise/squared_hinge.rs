//! Pairwise squared hinge loss of query-grouped data, without materialising the pairs.
//!
//! `L(w) = sum_{(i,j) in P} max(0, 1 - w·(x_i - x_j))^2` (Chen et al. 2017, eq. 4-5:
//! `L = (1 - AXw)^T D (1 - AXw)`), with `P = {(i, j) : q_i = q_j, y_i > y_j}`.
//! With scores `s = Xw` and margins `m_ij = 1 - (s_i - s_j)`, a pair is *active* when
//! `m_ij > 0`, evaluated in floating point as `s_i - s_j < 1`.
//!
//! * gradient (eq. 24): `dL/dw = X^T c`, `c = dL/ds`:
//!   `c_k = -2 sum_{j:(k,j) active} m_kj + 2 sum_{i:(i,k) active} m_ik`;
//! * generalized Hessian (eq. 24-25): `∇²L v = 2 X^T A^T D A X v`, and
//!   `(A^T D A u)_k = sum_{j:(k,j) active} (u_k - u_j) + sum_{i:(i,k) active} (u_k - u_i)`.
//!
//! Order statistics (Airola et al. 2011; Lee & Lin 2014): per query, sort the documents by
//! score once; for a preferred row `i`, its active partners are the rows of lower relevance
//! among a prefix of the documents sorted by decreasing score, and this prefix grows as `s_i`
//! decreases. One sweep with a Fenwick tree over the relevance levels accumulates counts,
//! sums and sums of squares per level, so every per-row sum above costs O(log levels):
//! O(n_q log n_q) per query instead of O(|P_q|). The active-set structure (the order and the
//! prefix lengths) depends only on `s`, so [`Hessian`] caches it for the CG iterations.
//!
//! Parallel over queries (rayon); per-query terms are collected and summed in query order,
//! so results are bit-identical for any number of threads. [`ExplicitSquaredHinge`]
//! computes the same quantities over the explicit pair list (reference and benchmark).

use ndarray::{ArrayView1, ArrayView2, Axis};
use rayon::prelude::*;

use crate::data::groups::{check_offsets, QueryOffsets};
use crate::error::{Error, Result};
use crate::invalid;
use crate::pairwise::pairs::{check_labels, query_pair_counts, Pairs};

/// Splits `buf` into one mutable chunk per query.
pub(crate) fn split_by_offsets<'b, T>(mut buf: &'b mut [T], offsets: &[usize]) -> Vec<&'b mut [T]> {
    let mut out = Vec::with_capacity(offsets.len().saturating_sub(1));
    for w in offsets.windows(2) {
        let (head, tail) = std::mem::take(&mut buf).split_at_mut(w[1] - w[0]);
        out.push(head);
        buf = tail;
    }
    out
}

/// `X v` for grouped `X` (m x n), in parallel over queries.
pub fn mat_vec(x: ArrayView2<f64>, v: &[f64], offsets: &[usize]) -> Vec<f64> {
    let mut out = vec![0.0; x.nrows()];
    let v = ArrayView1::from(v);
    split_by_offsets(&mut out, offsets).into_par_iter().enumerate().for_each(|(q, chunk)| {
        let rows = x.slice(ndarray::s![offsets[q]..offsets[q + 1], ..]);
        for (o, r) in chunk.iter_mut().zip(rows.axis_iter(Axis(0))) {
            *o = r.dot(&v);
        }
    });
    out
}

/// `X^T c = sum_q X_q^T c_q`: per-query terms in parallel, summed in query order.
pub fn mat_t_vec(x: ArrayView2<f64>, c: &[f64], offsets: &[usize], out: &mut [f64]) {
    let parts: Vec<Option<ndarray::Array1<f64>>> = offsets
        .par_windows(2)
        .map(|w| {
            let cq = &c[w[0]..w[1]];
            if cq.iter().all(|&v| v == 0.0) {
                return None;
            }
            let rows = x.slice(ndarray::s![w[0]..w[1], ..]);
            Some(rows.t().dot(&ArrayView1::from(cq)))
        })
        .collect();
    out.iter_mut().for_each(|o| *o = 0.0);
    for p in parts.into_iter().flatten() {
        for (o, v) in out.iter_mut().zip(p.iter()) {
            *o += v;
        }
    }
}

/// Fenwick tree over relevance levels holding (count, sum, sum of squares).
struct Fenwick {
    cnt: Vec<f64>,
    s1: Vec<f64>,
    s2: Vec<f64>,
}

impl Fenwick {
    fn new(n: usize) -> Self {
        Fenwick { cnt: vec![0.0; n + 1], s1: vec![0.0; n + 1], s2: vec![0.0; n + 1] }
    }

    #[inline]
    fn add(&mut self, level: usize, v: f64) {
        let mut k = level + 1;
        while k < self.cnt.len() {
            self.cnt[k] += 1.0;
            self.s1[k] += v;
            self.s2[k] += v * v;
            k += k & k.wrapping_neg();
        }
    }

    /// Sums over levels `< level`.
    #[inline]
    fn prefix(&self, level: usize) -> (f64, f64, f64) {
        let (mut c, mut a, mut b) = (0.0, 0.0, 0.0);
        let mut k = level;
        while k > 0 {
            c += self.cnt[k];
            a += self.s1[k];
            b += self.s2[k];
            k &= k - 1;
        }
        (c, a, b)
    }
}

/// Active-set structure of one query at fixed scores: `desc` lists the local rows by
/// decreasing score (ties by row); for the preferred row `desc[t]`, its candidate partners
/// are `desc[..hi[t]]`; for the less relevant row `asc[t] = desc[n-1-t]`, its candidate
/// partners are `asc[..lo[t]]`. Candidates with the right relevance are exactly the active ones.
fn build_active(s: &[f64], desc: &mut [u32], hi: &mut [u32], lo: &mut [u32]) {
    let n = s.len();
    for (k, d) in desc.iter_mut().enumerate() {
        *d = k as u32;
    }
    desc.sort_by(|&a, &b| s[b as usize].total_cmp(&s[a as usize]).then(a.cmp(&b)));
    let mut p = 0usize;
    for t in 0..n {
        let si = s[desc[t] as usize];
        while p < n && si - s[desc[p] as usize] < 1.0 {
            p += 1;
        }
        hi[t] = p as u32;
    }
    p = 0;
    for t in 0..n {
        let sk = s[desc[n - 1 - t] as usize];
        while p < n && s[desc[n - 1 - p] as usize] - sk < 1.0 {
            p += 1;
        }
        lo[t] = p as u32;
    }
}

/// The two sweeps over one query. `level[k]` in `0..n_levels`, `vals[k]` is accumulated.
/// `upper(k, cnt, sum, sumsq)` receives the sums over the active partners below row `k`,
/// `lower(k, cnt, sum, sumsq)` those over the active partners above it.
#[allow(clippy::too_many_arguments)]
fn sweep(
    desc: &[u32],
    hi: &[u32],
    lo: &[u32],
    level: &[u32],
    n_levels: usize,
    vals: &[f64],
    mut upper: impl FnMut(usize, f64, f64, f64),
    lower: Option<&mut dyn FnMut(usize, f64, f64, f64)>,
) {
    let n = desc.len();
    if n_levels < 2 {
        return;
    }
    let mut fw = Fenwick::new(n_levels);
    let mut p = 0usize;
    for t in 0..n {
        while p < hi[t] as usize {
            let r = desc[p] as usize;
            fw.add(level[r] as usize, vals[r]);
            p += 1;
        }
        let k = desc[t] as usize;
        let (c, a, b) = fw.prefix(level[k] as usize);
        if c > 0.0 {
            upper(k, c, a, b);
        }
    }
    if let Some(lower) = lower {
        // Reversed levels: the partners above row k are levels > level[k].
        let top = n_levels - 1;
        let mut fw = Fenwick::new(n_levels);
        let mut p = 0usize;
        for t in 0..n {
            while p < lo[t] as usize {
                let r = desc[n - 1 - p] as usize;
                fw.add(top - level[r] as usize, vals[r]);
                p += 1;
            }
            let k = desc[n - 1 - t] as usize;
            let (c, a, b) = fw.prefix(top - level[k] as usize);
            if c > 0.0 {
                lower(k, c, a, b);
            }
        }
    }
}

/// The pairwise squared hinge loss on grouped rows (see the module doc).
pub struct SquaredHinge<'a> {
    x: ArrayView2<'a, f64>,
    y: &'a [f64],
    offsets: &'a QueryOffsets,
    /// Rank of `y` among the distinct labels of its query, per grouped row.
    level: Vec<u32>,
    /// Number of distinct labels per query.
    n_levels: Vec<usize>,
    n_pairs: usize,
}

impl<'a> SquaredHinge<'a> {
    /// `x`: m x n grouped rows; `y`: m finite labels; `offsets`: query boundaries.
    pub fn new(x: ArrayView2<'a, f64>, y: &'a [f64], offsets: &'a QueryOffsets) -> Result<Self> {
        if x.nrows() != y.len() {
            return invalid!("X has {} rows but y has {} entries", x.nrows(), y.len());
        }
        check_labels(y, offsets)?;
        let n_pairs = query_pair_counts(y, offsets)?.iter().sum();
        let mut level = vec![0u32; y.len()];
        let n_levels: Vec<usize> = split_by_offsets(&mut level, offsets)
            .into_par_iter()
            .enumerate()
            .map(|(q, lev)| {
                let yq = &y[offsets[q]..offsets[q + 1]];
                let mut distinct = yq.to_vec();
                distinct.sort_by(f64::total_cmp);
                distinct.dedup();
                for (l, v) in lev.iter_mut().zip(yq) {
                    *l = distinct.partition_point(|d| d < v) as u32;
                }
                distinct.len()
            })
            .collect();
        Ok(SquaredHinge { x, y, offsets, level, n_levels, n_pairs })
    }

    /// Number of preference pairs `|P|`.
    pub fn n_pairs(&self) -> usize {
        self.n_pairs
    }

    pub fn n_rows(&self) -> usize {
        self.x.nrows()
    }

    pub fn n_features(&self) -> usize {
        self.x.ncols()
    }

    pub fn offsets(&self) -> &[usize] {
        self.offsets
    }

    pub fn labels(&self) -> &[f64] {
        self.y
    }

    pub fn x(&self) -> ArrayView2<'a, f64> {
        self.x
    }

    fn check_w(&self, w: &[f64]) {
        assert_eq!(w.len(), self.x.ncols(), "w must have one entry per column of X");
    }

    /// Scores `s = X w`, grouped order.
    pub fn scores(&self, w: &[f64]) -> Vec<f64> {
        self.check_w(w);
        mat_vec(self.x, w, self.offsets)
    }

    /// `L(w)`.
    pub fn value(&self, w: &[f64]) -> f64 {
        self.value_scores(&self.scores(w), None)
    }

    /// `L(w)`; writes `dL/dw` into `grad` (length n).
    pub fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        assert_eq!(grad.len(), self.x.ncols(), "grad must have one entry per column of X");
        let s = self.scores(w);
        let mut c = vec![0.0; s.len()];
        let v = self.value_scores(&s, Some(&mut c));
        mat_t_vec(self.x, &c, self.offsets, grad);
        v
    }

    /// The loss as a function of the scores: returns `L(s)` and, when `coef` is given,
    /// writes `dL/ds` (length m) into it. Used by line searches along `s + t·Δ`.
    pub fn value_scores(&self, s: &[f64], coef: Option<&mut [f64]>) -> f64 {
        assert_eq!(s.len(), self.y.len(), "one score per row");
        let offsets = self.offsets;
        let per_query = |q: usize, cq: Option<&mut [f64]>| -> f64 {
            let (lo_r, hi_r) = (offsets[q], offsets[q + 1]);
            let n = hi_r - lo_r;
            if self.n_levels[q] < 2 {
                return 0.0;
            }
            let sq = &s[lo_r..hi_r];
            let lev = &self.level[lo_r..hi_r];
            // Shift by the query mean: the loss depends on score differences only, and the
            // expanded sums below lose less precision on centred values.
            let mu = sq.iter().sum::<f64>() / n as f64;
            let t: Vec<f64> = sq.iter().map(|v| v - mu).collect();
            let (mut desc, mut hi, mut lo) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
            build_active(sq, &mut desc, &mut hi, &mut lo);
            let mut loss = 0.0;
            match cq {
                None => sweep(
                    &desc,
                    &hi,
                    &lo,
                    lev,
                    self.n_levels[q],
                    &t,
                    |k, c, a, b| {
                        let e = 1.0 - t[k];
                        loss += (c * e * e + 2.0 * e * a + b).max(0.0);
                    },
                    None,
                ),
                Some(cq) => {
                    cq.iter_mut().for_each(|v| *v = 0.0);
                    let mut up = vec![0.0; n];
                    sweep(
                        &desc,
                        &hi,
                        &lo,
                        lev,
                        self.n_levels[q],
                        &t,
                        |k, c, a, b| {
                            let e = 1.0 - t[k];
                            loss += (c * e * e + 2.0 * e * a + b).max(0.0);
                            up[k] = -2.0 * (c * e + a);
                        },
                        Some(&mut |k, c, a, _b| {
                            cq[k] = 2.0 * (c * (1.0 + t[k]) - a);
                        }),
                    );
                    for (o, u) in cq.iter_mut().zip(&up) {
                        *o += u;
                    }
                }
            }
            loss
        };
        let losses: Vec<f64> = match coef {
            None => (0..self.n_levels.len()).into_par_iter().map(|q| per_query(q, None)).collect(),
            Some(coef) => {
                assert_eq!(coef.len(), s.len(), "one coefficient per row");
                split_by_offsets(coef, offsets)
                    .into_par_iter()
                    .enumerate()
                    .map(|(q, cq)| per_query(q, Some(cq)))
                    .collect()
            }
        };
        losses.iter().sum()
    }

    /// Generalized Hessian at `w`, with its active set cached for repeated products.
    pub fn hessian(&self, w: &[f64]) -> Hessian<'_, 'a> {
        self.hessian_scores(&self.scores(w))
    }

    /// Generalized Hessian at scores `s` (grouped order).
    pub fn hessian_scores(&self, s: &[f64]) -> Hessian<'_, 'a> {
        assert_eq!(s.len(), self.y.len(), "one score per row");
        let m = s.len();
        let (mut desc, mut hi, mut lo) = (vec![0u32; m], vec![0u32; m], vec![0u32; m]);
        let d = split_by_offsets(&mut desc, self.offsets);
        let h = split_by_offsets(&mut hi, self.offsets);
        let l = split_by_offsets(&mut lo, self.offsets);
        d.into_par_iter().zip(h).zip(l).enumerate().for_each(|(q, ((d, h), l))| {
            build_active(&s[self.offsets[q]..self.offsets[q + 1]], d, h, l);
        });
        Hessian { loss: self, desc, hi, lo }
    }
}

/// The generalized Hessian `∇²L = 2 X^T A^T D A X` at fixed scores (eq. 24-25), with the
/// per-query sort order and active prefixes cached: each product costs two passes over X
/// and O(m log levels).
pub struct Hessian<'h, 'a> {
    loss: &'h SquaredHinge<'a>,
    desc: Vec<u32>,
    hi: Vec<u32>,
    lo: Vec<u32>,
}

impl Hessian<'_, '_> {
    /// `r = A^T D A u` for a score-space vector `u` (grouped order, length m).
    pub fn apply_scores(&self, u: &[f64], r: &mut [f64]) {
        let lf = self.loss;
        let off = lf.offsets;
        assert_eq!(u.len(), lf.y.len(), "one entry per row");
        assert_eq!(r.len(), lf.y.len(), "one entry per row");
        split_by_offsets(r, off).into_par_iter().enumerate().for_each(|(q, rq)| {
            let (a, b) = (off[q], off[q + 1]);
            rq.iter_mut().for_each(|v| *v = 0.0);
            let uq = &u[a..b];
            let mut up = vec![0.0; b - a];
            sweep(
                &self.desc[a..b],
                &self.hi[a..b],
                &self.lo[a..b],
                &lf.level[a..b],
                lf.n_levels[q],
                uq,
                |k, c, s1, _| up[k] = c * uq[k] - s1,
                Some(&mut |k, c, s1, _| rq[k] = c * uq[k] - s1),
            );
            for (o, v) in rq.iter_mut().zip(&up) {
                *o += v;
            }
        });
    }

    /// `out = ∇²L v = 2 X^T A^T D A X v` (length n).
    pub fn apply(&self, v: &[f64], out: &mut [f64]) {
        let lf = self.loss;
        lf.check_w(v);
        let u = mat_vec(lf.x, v, lf.offsets);
        let mut r = vec![0.0; u.len()];
        self.apply_scores(&u, &mut r);
        r.iter_mut().for_each(|v| *v *= 2.0);
        mat_t_vec(lf.x, &r, lf.offsets, out);
    }
}

/// The same loss over an explicit pair list (O(|P|) per evaluation): the reference the
/// implicit version is tested against, and the baseline of the benchmarks.
pub struct ExplicitSquaredHinge<'a> {
    x: ArrayView2<'a, f64>,
    offsets: &'a QueryOffsets,
    pairs: &'a Pairs,
}

impl<'a> ExplicitSquaredHinge<'a> {
    /// `pairs` must come from [`crate::pairwise::pairs::preference_pairs`] on the same `offsets`.
    pub fn new(x: ArrayView2<'a, f64>, offsets: &'a QueryOffsets, pairs: &'a Pairs) -> Result<Self> {
        offsets.check_rows(x.nrows(), "X")?;
        if pairs.offsets.len() != offsets.len() {
            return invalid!("pairs and offsets describe different numbers of queries");
        }
        // The kernel indexes rows by the pair list: check that it describes these queries.
        let n_pairs = pairs.i.len();
        if pairs.j.len() != n_pairs {
            return invalid!("pairs: i has {n_pairs} entries but j has {}", pairs.j.len());
        }
        check_offsets(&pairs.offsets, n_pairs).map_err(|e| Error::InvalidInput(format!("pair offsets: {e}")))?;
        for q in 0..offsets.len().saturating_sub(1) {
            let (a, b) = (pairs.offsets[q], pairs.offsets[q + 1]);
            if let Some(&r) =
                pairs.i[a..b].iter().chain(&pairs.j[a..b]).find(|&&r| r < offsets[q] || r >= offsets[q + 1])
            {
                return invalid!(
                    "pairs of query {q} refer to row {r}, outside the query's rows {}..{}",
                    offsets[q],
                    offsets[q + 1]
                );
            }
        }
        Ok(ExplicitSquaredHinge { x, offsets, pairs })
    }

    /// Per query: `f(q, rows range start, pairs of q, chunk of the row vector)`.
    fn per_query(&self, out: &mut [f64], f: impl Fn(usize, usize, &mut [f64]) -> f64 + Sync) -> f64 {
        let parts: Vec<f64> = split_by_offsets(out, self.offsets)
            .into_par_iter()
            .enumerate()
            .map(|(q, c)| f(q, self.offsets[q], c))
            .collect();
        parts.iter().sum()
    }

    /// `L(w)`; writes `dL/dw` into `grad`.
    pub fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let s = mat_vec(self.x, w, self.offsets);
        let mut c = vec![0.0; s.len()];
        let p = self.pairs;
        let v = self.per_query(&mut c, |q, base, cq| {
            cq.iter_mut().for_each(|v| *v = 0.0);
            let mut loss = 0.0;
            for k in p.offsets[q]..p.offsets[q + 1] {
                let (i, j) = (p.i[k], p.j[k]);
                let d = s[i] - s[j];
                if d < 1.0 {
                    let mg = 1.0 - d;
                    loss += mg * mg;
                    cq[i - base] -= 2.0 * mg;
                    cq[j - base] += 2.0 * mg;
                }
            }
            loss
        });
        mat_t_vec(self.x, &c, self.offsets, grad);
        v
    }

    /// `out = ∇²L(w) v = 2 X^T A^T D A X v`.
    pub fn hessp(&self, w: &[f64], v: &[f64], out: &mut [f64]) {
        let s = mat_vec(self.x, w, self.offsets);
        let u = mat_vec(self.x, v, self.offsets);
        let mut r = vec![0.0; s.len()];
        let p = self.pairs;
        self.per_query(&mut r, |q, base, rq| {
            rq.iter_mut().for_each(|v| *v = 0.0);
            for k in p.offsets[q]..p.offsets[q + 1] {
                let (i, j) = (p.i[k], p.j[k]);
                if s[i] - s[j] < 1.0 {
                    let du = 2.0 * (u[i] - u[j]);
                    rq[i - base] += du;
                    rq[j - base] -= du;
                }
            }
            0.0
        });
        mat_t_vec(self.x, &r, self.offsets, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairwise::pairs::preference_pairs;
    use ndarray::Array2;

    /// Small deterministic pseudo-random generator (tests only).
    fn lcg(state: &mut u64) -> f64 {
        *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((*state >> 11) as f64) / ((1u64 << 53) as f64)
    }

    fn data(seed: u64, integer: bool) -> (Array2<f64>, Vec<f64>, Vec<usize>, Vec<f64>) {
        let mut st = seed;
        let sizes = [1usize, 7, 4, 12, 3, 9, 5];
        let m: usize = sizes.iter().sum();
        let n = 4;
        let x = Array2::from_shape_fn((m, n), |_| {
            let v = lcg(&mut st) * 4.0 - 2.0;
            if integer {
                v.round()
            } else {
                v
            }
        });
        let mut y: Vec<f64> = (0..m).map(|_| (lcg(&mut st) * 3.0).floor()).collect();
        // query 4: all labels equal
        y[1 + 7 + 4 + 12..1 + 7 + 4 + 12 + 3].iter_mut().for_each(|v| *v = 1.0);
        let mut offsets = vec![0];
        for s in sizes {
            offsets.push(offsets.last().unwrap() + s);
        }
        let w: Vec<f64> = (0..n)
            .map(|_| {
                let v = lcg(&mut st) * 2.0 - 1.0;
                if integer {
                    v.round()
                } else {
                    v
                }
            })
            .collect();
        (x, y, offsets, w)
    }

    fn close(a: f64, b: f64, scale: f64) -> bool {
        (a - b).abs() <= 1e-10 * (1.0 + scale)
    }

    #[test]
    fn implicit_equals_explicit() {
        for seed in 0..20u64 {
            for &integer in &[false, true] {
                let (x, y, offsets, w) = data(seed, integer);
                let qo_ = crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap();
                let pairs = preference_pairs(&y, &qo_, None, u64::MAX).unwrap();
                let imp = SquaredHinge::new(x.view(), &y, &qo_).unwrap();
                let exp = ExplicitSquaredHinge::new(x.view(), &qo_, &pairs).unwrap();
                assert_eq!(imp.n_pairs(), pairs.len());
                let n = x.ncols();
                let (mut g1, mut g2) = (vec![0.0; n], vec![0.0; n]);
                let v1 = imp.value_grad(&w, &mut g1);
                let v2 = exp.value_grad(&w, &mut g2);
                assert!(close(v1, v2, v2.abs()), "{v1} {v2}");
                assert!(close(imp.value(&w), v2, v2.abs()));
                for (a, b) in g1.iter().zip(&g2) {
                    assert!(close(*a, *b, b.abs()), "{g1:?} {g2:?}");
                }
                let dir: Vec<f64> = (0..n).map(|k| (k as f64) - 1.5).collect();
                let (mut h1, mut h2) = (vec![0.0; n], vec![0.0; n]);
                imp.hessian(&w).apply(&dir, &mut h1);
                exp.hessp(&w, &dir, &mut h2);
                for (a, b) in h1.iter().zip(&h2) {
                    assert!(close(*a, *b, b.abs()), "{h1:?} {h2:?}");
                }
            }
        }
    }

    #[test]
    fn zero_pairs_and_single_documents() {
        let x = Array2::from_shape_vec((3, 1), vec![1.0, 2.0, 3.0]).unwrap();
        let y = [1.0, 1.0, 0.0];
        let offsets = [0, 2, 3];
        let qo_ = crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap();
        let l = SquaredHinge::new(x.view(), &y, &qo_).unwrap();
        assert_eq!(l.n_pairs(), 0);
        let mut g = [1.0];
        assert_eq!(l.value_grad(&[0.5], &mut g), 0.0);
        assert_eq!(g, [0.0]);
        let mut h = [1.0];
        l.hessian(&[0.5]).apply(&[1.0], &mut h);
        assert_eq!(h, [0.0]);
    }

    #[test]
    fn hand_computed() {
        // one query, rows (y=2, s=0.5), (y=1, s=0), (y=0, s=1): pairs (0,1) m=0.5,
        // (0,2) m=1.5, (1,2) m=2 -> L = 0.25 + 2.25 + 4 = 6.5
        let x = Array2::from_shape_vec((3, 1), vec![0.5, 0.0, 1.0]).unwrap();
        let y = [2.0, 1.0, 0.0];
        let offsets = [0, 3];
        let qo_ = crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap();
        let l = SquaredHinge::new(x.view(), &y, &qo_).unwrap();
        let mut g = [0.0];
        let v = l.value_grad(&[1.0], &mut g);
        assert!((v - 6.5).abs() < 1e-12);
        // dL/ds = [-2(0.5+1.5), 2*0.5 - 2*2, 2*1.5 + 2*2] = [-4, -3, 7]; grad = -4*0.5 + 7
        assert!((g[0] - 5.0).abs() < 1e-12);
    }

    #[test]
    fn bad_input() {
        let x = Array2::<f64>::zeros((2, 1));
        assert!(SquaredHinge::new(
            x.view(),
            &[1.0],
            &crate::data::groups::QueryOffsets::new((&[0, 1]).to_vec()).unwrap()
        )
        .is_err());
        assert!(SquaredHinge::new(
            x.view(),
            &[1.0, f64::NAN],
            &crate::data::groups::QueryOffsets::new((&[0, 2]).to_vec()).unwrap()
        )
        .is_err());
        assert!(SquaredHinge::new(
            x.view(),
            &[1.0, 0.0],
            &crate::data::groups::QueryOffsets::new((&[0, 3]).to_vec()).unwrap()
        )
        .is_err());
    }
}
