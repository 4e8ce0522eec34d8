//! The pairwise squared hinge as a datafit, with its Lipschitz bound and Hessian blocks.

use ndarray::ArrayView2;
use rayon::prelude::*;

use super::{Datafit, SecondOrder};
use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::linalg::dot;
use crate::pairwise::squared_hinge::SquaredHinge;

/// `Σ_{(i,j)∈P} ||x_i − x_j||²` over the preference pairs (same query, `y_i > y_j`),
/// without enumerating pairs: per query, rows are grouped by label level and
/// `Σ ||x_i − x_j||² = Σ_i c_i ||x_i||² − 2 Σ_levels S_l · S_{<l}` where `c_i` counts the
/// pairs row `i` takes part in and `S_l` is the sum of rows at level `l`. Per-query terms
/// are computed in parallel and summed in query order (deterministic).
///
/// `2 · Σ ||x_i − x_j||²` bounds the Lipschitz constant of `∇L` (Laporte et al.
/// Proposition 1: each pair contributes `2||x̃_p||²` to the Hessian bound).
pub fn pair_sq_norm_sum(x: ArrayView2<f64>, y: &[f64], offsets: &[usize]) -> f64 {
    let terms: Vec<f64> = offsets
        .par_windows(2)
        .map(|win| {
            let (a, b) = (win[0], win[1]);
            let mut idx: Vec<usize> = (a..b).collect();
            idx.sort_by(|&i, &j| y[i].total_cmp(&y[j]));
            let n = x.ncols();
            let mut below_sum = vec![0.0; n]; // sum of rows at strictly lower levels
            let mut below_cnt = 0usize;
            let mut total = 0.0;
            let nq = idx.len();
            let mut k = 0;
            while k < nq {
                // A level is a run of equal labels (-0 == +0, adjacent in the sort); `e` starts
                // past `k`, so the loop advances even on NaN (`NaN == NaN` is false: a level
                // of its own).
                let mut e = k + 1;
                while e < nq && y[idx[e]] == y[idx[k]] {
                    e += 1;
                }
                let above_cnt = nq - e;
                let mut level_sum = vec![0.0; n];
                for &i in &idx[k..e] {
                    let r = x.row(i);
                    let sq: f64 = r.iter().map(|v| v * v).sum();
                    total += sq * (below_cnt + above_cnt) as f64;
                    level_sum.iter_mut().zip(r.iter()).for_each(|(s, v)| *s += v);
                }
                let cross = dot(&level_sum, &below_sum);
                total -= 2.0 * cross;
                below_sum.iter_mut().zip(&level_sum).for_each(|(s, v)| *s += v);
                below_cnt += e - k;
                k = e;
            }
            total
        })
        .collect();
    terms.iter().sum::<f64>().max(0.0)
}

/// The pairwise squared hinge `L(w) = Σ_{(i,j)∈P} max(0, 1 − wᵀ(x_i − x_j))²` of
/// [`SquaredHinge`] as a [`Datafit`] (unscaled; wrap it in [`Scaled`](super::Scaled) for `C·L(w)`,
/// Laporte et al. eq. (7), or `(1/|P|)·L(w)`, Lai et al. eq. (2)). Lipschitz bound
/// `2·Σ_p ||x_i − x_j||²` (Laporte et al. Proposition 1 with the factor 2 of the squared
/// hinge; Lai et al. Theorem 1 bounds the same sum by `2d·||·||∞²` per pair).
pub struct PairwiseHinge<'a> {
    loss: SquaredHinge<'a>,
    lipschitz: f64,
}

impl<'a> PairwiseHinge<'a> {
    /// `x` is `m × n` with rows grouped by query (`offsets`), `y` the labels.
    pub fn new(x: ArrayView2<'a, f64>, y: &'a [f64], offsets: &'a QueryOffsets) -> Result<Self> {
        let loss = SquaredHinge::new(x, y, offsets)?;
        let lipschitz = 2.0 * pair_sq_norm_sum(x, y, offsets);
        Ok(Self { loss, lipschitz })
    }

    /// Number of preference pairs `|P|`.
    pub fn n_pairs(&self) -> usize {
        self.loss.n_pairs()
    }
}

impl Datafit for PairwiseHinge<'_> {
    fn n_features(&self) -> usize {
        self.loss.n_features()
    }
    fn value(&self, w: &[f64]) -> Result<f64> {
        Ok(self.loss.value(w))
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        Ok(self.loss.value_grad(w, grad))
    }
    fn lipschitz_bound(&self) -> Result<f64> {
        Ok(self.lipschitz)
    }
}

impl SecondOrder for PairwiseHinge<'_> {
    /// [`SquaredHinge::hessian_block`] (Chen et al. eq. 24-25).
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) -> Result<()> {
        self.loss.hessian_block(w, ws, out)
    }
}
