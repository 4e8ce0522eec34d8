//! The generalized Hessian of the pairwise squared hinge at fixed scores (Chen et al. 2017,
//! eq. 24-25), its active set cached for repeated products (CG).

use rayon::prelude::*;

use super::active::sweep;
use super::SquaredHinge;
use crate::linalg::{mat_t_vec, mat_vec, split_by_offsets};

/// The generalized Hessian `∇²L = 2 X^T A^T D A X` at fixed scores (eq. 24-25), with the
/// per-query sort order and active prefixes cached: each product costs two passes over X
/// and O(m log levels).
pub struct Hessian<'h, 'a> {
    pub(super) loss: &'h SquaredHinge<'a>,
    pub(super) desc: Vec<u32>,
    pub(super) hi: Vec<u32>,
    pub(super) lo: Vec<u32>,
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
