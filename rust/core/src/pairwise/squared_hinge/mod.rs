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
//!
//! Modules: `active` (the active-set sweeps), `hessian` (the cached generalized Hessian),
//! `explicit` (the explicit-pairs reference).

use ndarray::ArrayView2;
use rayon::prelude::*;

use self::active::{build_active, sweep};
use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::invalid;
use crate::linalg::{mat_t_vec, mat_vec, split_by_offsets};
use crate::pairwise::pairs::{check_labels, query_pair_counts};

pub use self::explicit::ExplicitSquaredHinge;
pub use self::hessian::Hessian;

mod active;
mod explicit;
mod hessian;
#[cfg(test)]
mod tests;

/// The pairwise squared hinge loss on grouped rows (see the module doc).
pub struct SquaredHinge<'a> {
    pub(super) x: ArrayView2<'a, f64>,
    pub(super) y: &'a [f64],
    pub(super) offsets: &'a QueryOffsets,
    /// Rank of `y` among the distinct labels of its query, per grouped row.
    pub(super) level: Vec<u32>,
    /// Number of distinct labels per query.
    pub(super) n_levels: Vec<usize>,
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

    pub(super) fn check_w(&self, w: &[f64]) {
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
            None => (0..self.n_levels.len())
                .into_par_iter()
                .map(|q| {
                    crate::simd::dispatch(
                        #[inline(always)]
                        || per_query(q, None),
                    )
                })
                .collect(),
            Some(coef) => {
                assert_eq!(coef.len(), s.len(), "one coefficient per row");
                split_by_offsets(coef, offsets)
                    .into_par_iter()
                    .enumerate()
                    .map(|(q, cq)| {
                        crate::simd::dispatch(
                            #[inline(always)]
                            || per_query(q, Some(cq)),
                        )
                    })
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
