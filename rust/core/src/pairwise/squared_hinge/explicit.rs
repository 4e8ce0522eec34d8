//! The pairwise squared hinge over an explicit pair list: the reference of the implicit
//! kernel and the baseline of the benchmarks.

use ndarray::ArrayView2;
use rayon::prelude::*;

use crate::data::groups::{check_offsets, QueryOffsets};
use crate::error::{Error, Result};
use crate::invalid;
use crate::linalg::{mat_t_vec, mat_vec, split_by_offsets};
use crate::pairwise::pairs::Pairs;

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
