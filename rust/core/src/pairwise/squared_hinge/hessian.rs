//! The generalized Hessian of the pairwise squared hinge at fixed scores (Chen et al. 2017,
//! eq. 24-25), its active set cached for repeated products (CG).

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};
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
        let per_query = |q: usize, rq: &mut [f64]| {
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
        };
        split_by_offsets(r, off).into_par_iter().enumerate().for_each(|(q, rq)| {
            crate::simd::dispatch(
                #[inline(always)]
                || per_query(q, rq),
            )
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

impl SquaredHinge<'_> {
    /// The block `H[ws, ws] = 2 X_Wᵀ AᵀDA X_W` of the generalized Hessian at `w` (Chen et al.
    /// eq. 24-25), row-major into `out` (`|ws|²`): the active set is sorted out once, one
    /// implicit product `AᵀDA u` per column of `X_W`, then one dense product `X_Wᵀ R`
    /// (sequential GEMM: the same bits for any thread count), symmetrised.
    /// O(|ws| · m log n_q + m |ws|²) time, O(m |ws|) memory; `OutOfMemory` when the product's
    /// workspace cannot be had ([`crate::alloc::reserve_gemm_workspace`]).
    pub fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) -> crate::error::Result<()> {
        let k = ws.len();
        assert_eq!(out.len(), k * k, "out must hold |ws|² entries");
        if k == 0 {
            return Ok(());
        }
        crate::alloc::reserve_gemm_workspace()?;
        let x = self.x();
        let m = x.nrows();
        let hess = self.hessian(w);
        // X_W and R = AᵀDA X_W, column-major (m × k).
        let mut xw = vec![0.0; m * k];
        for (col, &j) in xw.chunks_mut(m).zip(ws) {
            col.iter_mut().zip(x.column(j)).for_each(|(o, v)| *o = *v);
        }
        let mut r = vec![0.0; m * k];
        for (u, rc) in xw.chunks(m).zip(r.chunks_mut(m)) {
            hess.apply_scores(u, rc);
        }
        let xw = MatRef::from_column_major_slice(&xw, m, k);
        let r = MatRef::from_column_major_slice(&r, m, k);
        let mut h = Mat::<f64>::zeros(k, k);
        matmul(h.as_mut(), Accum::Replace, xw.transpose(), r, 2.0, Par::Seq);
        // Symmetrise the round-off.
        for a in 0..k {
            for b in 0..k {
                out[a * k + b] = 0.5 * (h[(a, b)] + h[(b, a)]);
            }
        }
        Ok(())
    }
}
