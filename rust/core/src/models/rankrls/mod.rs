//! RankRLS (Pahikkala et al. 2010, eqs. 3-6) and its exact leave-query-out (LQO) shortcut
//! (Theorem 3.1), in the primal form that is cheap when m >> n; wide data (n > m) are fit in
//! the dual form (module `dual`), the same coefficients from the m x m system.
//!
//! With rows grouped by query and `L` the block-diagonal query-centring matrix
//! (`I - 11^T / n_q` per query), RankRLS minimises `||L (y - X w)||^2 + alpha ||w||^2`,
//! i.e. (eq. 5) `w = (Xc^T Xc + alpha I)^-1 Xc^T yc` with `Xc = L X`, `yc = L y`.
//!
//! LQO: deleting query `q` leaves the other queries' centring unchanged, so the model
//! trained without `q` is the ridge solution on the rows of `Xc` outside `q`. With
//! `A = Xc^T Xc + alpha I`, `H_qq = Xc_q A^-1 Xc_q^T` and `r_q = yc_q - Xc_q w`, Woodbury gives
//!
//! ```text
//! w_{-q} = w - A^-1 Xc_q^T (I - H_qq)^-1 r_q
//! yc_q - Xc_q w_{-q} = (I - H_qq)^-1 r_q          (the query-centred hold-out residual)
//! ```
//!
//! `I - H_qq` is positive definite for `alpha > 0` (`Xc_q^T Xc_q <= Xc^T Xc < A`), so every
//! block solve is well posed; single-document queries have a zero centred row (`H_qq = 0`,
//! `r_q = 0`). The LQO error is `sum_q ||(I - H_qq)^-1 r_q||^2` (eq. 7), the pairwise squared
//! loss of the hold-out predictions.
//!
//! All dense products use fixed row blocks reduced in order and sequential faer kernels, so
//! results are bit-identical for any number of threads.
//! Module `blocked` holds those products and the Cholesky helpers; module `path` the alpha
//! path in pieces that are sums over query shards (the same pieces in memory and on Dask).

use faer::{Accum, Mat, Par};
use ndarray::ArrayView2;

use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::{run_interruptible, Interrupt, NoInterrupt};
use crate::invalid;

use self::blocked::{as_faer, chol_solve, cholesky, rows_times, with_ridge, xt_vec};
pub use self::blocked::{center, gram, gram_checked, spd_solve};
pub use self::path::{eigen, gram_sums, lqo_errors, path_weights, projected_targets, solve_gram, AlphaPath};

mod blocked;
pub mod dual;
mod path;
#[cfg(test)]
mod tests;

/// Checks shapes, offsets, finiteness and `alpha > 0` (every alpha).
pub fn check_problem(x: ArrayView2<f64>, y: &[f64], offsets: &QueryOffsets, alphas: &[f64]) -> Result<()> {
    let (m, _n) = x.dim();
    if y.len() != m {
        return invalid!("y has {} entries but X has {m} rows", y.len());
    }
    offsets.check_rows(m, "X")?;
    if offsets.len() < 3 {
        return invalid!("leave-query-out needs at least two queries (qid), got {}", offsets.len() - 1);
    }
    for &a in alphas {
        if !(a.is_finite() && a > 0.0) {
            return invalid!("alpha must be > 0 and finite, got {a}");
        }
    }
    if x.iter().any(|v| !v.is_finite()) {
        return invalid!("X contains NaN or infinity");
    }
    if y.iter().any(|v| !v.is_finite()) {
        return invalid!("y contains NaN or infinity");
    }
    Ok(())
}

/// RankRLS weights `w = (Xc^T Xc + alpha I)^-1 Xc^T yc` (eq. 5) for grouped `x` (m x n).
pub fn fit(x: ArrayView2<f64>, y: &[f64], offsets: &QueryOffsets, alpha: f64) -> Result<Vec<f64>> {
    fit_checked(x, y, offsets, alpha, &NoInterrupt)
}

/// [`fit`] checking `interrupt` while it forms `Xc^T Xc` (Ctrl-C within a second).
pub fn fit_checked(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    alpha: f64,
    interrupt: &dyn Interrupt,
) -> Result<Vec<f64>> {
    let (m, _) = x.dim();
    if y.len() != m {
        return invalid!("y has {} entries but X has {m} rows", y.len());
    }
    offsets.check_rows(m, "X")?;
    if !(alpha.is_finite() && alpha > 0.0) {
        return invalid!("alpha must be > 0 and finite, got {alpha}");
    }
    let (xc, yc) = center(x, y, offsets)?;
    if dual::use_dual(xc.nrows(), xc.ncols()) {
        return dual::fit_dual(&xc, &yc, alpha, interrupt);
    }
    let g = gram_checked(&xc, interrupt)?;
    interrupt.check()?;
    solve_gram(&g, &xt_vec(&xc, &yc), alpha, interrupt)
}

/// [`AlphaPath`] on grouped `x` (m x n) for every alpha: in the primal form (the n x n
/// eigendecomposition) or, for wide data, the dual one ([`dual::use_dual`]).
pub fn lqo_alpha_path(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    alphas: &[f64],
    interrupt: &dyn Interrupt,
) -> Result<AlphaPath> {
    if alphas.is_empty() {
        return invalid!("alpha must hold at least one value");
    }
    check_problem(x, y, offsets, alphas)?;
    let (xc, yc) = center(x, y, offsets)?;
    if dual::use_dual(xc.nrows(), xc.ncols()) {
        return dual::alpha_path_dual(&xc, &yc, offsets, alphas, interrupt);
    }
    path::alpha_path_primal(&xc, &yc, offsets, alphas, interrupt)
}

/// Full fit with exact leave-query-out results (Theorem 3.1, primal form).
#[derive(Clone, Debug)]
pub struct Lqo {
    /// Weights on all training data, length n.
    pub coef: Vec<f64>,
    /// `X_q w_{-q}` for every grouped row: the prediction of the model trained without the
    /// row's query (raw, uncentred features), length m.
    pub predictions: Vec<f64>,
    /// Query-centred hold-out residuals `yc_q - Xc_q w_{-q} = (I - H_qq)^-1 r_q`, length m.
    pub residuals: Vec<f64>,
    /// The LQO error `sum_q ||residuals_q||^2` (eq. 7).
    pub lqo_error: f64,
}

impl Lqo {
    /// From the weights and each query's `(predictions, residuals)` in query order (primal or
    /// dual): the LQO error summed in that order.
    pub(crate) fn from_queries(coef: Vec<f64>, per_query: Vec<Result<(Vec<f64>, Vec<f64>)>>) -> Result<Self> {
        let m = per_query.iter().map(|q| q.as_ref().map_or(0, |(p, _)| p.len())).sum();
        let (mut predictions, mut residuals) = (Vec::with_capacity(m), Vec::with_capacity(m));
        let mut lqo_error = 0.0;
        for item in per_query {
            let (pred, res) = item?;
            lqo_error += res.iter().map(|v| v * v).sum::<f64>();
            predictions.extend(pred);
            residuals.extend(res);
        }
        Ok(Lqo { coef, predictions, residuals, lqo_error })
    }
}

/// RankRLS on grouped `x` (m x n) with exact LQO predictions, in O(m n^2 + sum_q n_q^2 n); for
/// wide data ([`dual::use_dual`]) in the dual, O(m^2 n + m^3 + Q m n) ([`dual::fit_lqo_dual`]).
pub fn fit_lqo(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    alpha: f64,
    interrupt: &dyn Interrupt,
) -> Result<Lqo> {
    check_problem(x, y, offsets, &[alpha])?;
    crate::alloc::reserve_gemm_workspaces()?; // the per-query products run on the pool's threads
    let (m, n) = x.dim();
    let (xc, yc) = center(x, y, offsets)?;
    if dual::use_dual(m, n) {
        return dual::fit_lqo_dual(x, &xc, &yc, offsets, alpha, interrupt);
    }
    let a = with_ridge(&gram_checked(&xc, interrupt)?, alpha)?;
    let l = run_interruptible(interrupt, "Cholesky factorisation", move || cholesky(a, "Xc^T Xc + alpha I"))??;
    interrupt.check()?;
    let b = xt_vec(&xc, &yc);
    let mut w = Mat::<f64>::from_fn(n, 1, |i, _| b[i]);
    chol_solve(l.as_ref(), w.as_mut())?;
    let coef: Vec<f64> = (0..n).map(|i| w[(i, 0)]).collect();
    let mut ainv = crate::alloc::try_mat(n, n, |i, j| if i == j { 1.0 } else { 0.0 }, "(Xc^T Xc + alpha I)^-1")?;
    chol_solve(l.as_ref(), ainv.as_mut())?;
    // P = Xc A^-1 (m x n): row r is (A^-1 xc_r)^T.
    let p = rows_times(&xc, ainv.as_ref(), interrupt)?;
    interrupt.check()?;
    let xs = x.as_standard_layout();
    let xcs = as_faer(&xc);
    let ps = as_faer(&p);
    let per_query: Vec<Result<(Vec<f64>, Vec<f64>)>> = crate::par::map_range(offsets.len() - 1, |q| {
        let wq = &offsets[q..q + 2];
        let (s, e) = (wq[0], wq[1]);
        let nq = e - s;
        let xq = xcs.subrows(s, nq);
        let pq = ps.subrows(s, nq);
        // I - H_qq
        let mut ih = Mat::<f64>::zeros(nq, nq);
        faer::linalg::matmul::matmul(ih.as_mut(), Accum::Replace, xq, pq.transpose(), -1.0, Par::Seq);
        for i in 0..nq {
            ih[(i, i)] += 1.0;
        }
        // r_q = yc_q - Xc_q w
        let mut r = Mat::<f64>::zeros(nq, 1);
        for i in 0..nq {
            let mut acc = 0.0;
            for j in 0..n {
                acc += xq[(i, j)] * coef[j];
            }
            r[(i, 0)] = yc[s + i] - acc;
        }
        let lq = cholesky(ih, "I - H_qq")?;
        chol_solve(lq.as_ref(), r.as_mut())?;
        let res: Vec<f64> = (0..nq).map(|i| r[(i, 0)]).collect();
        // w_{-q} = w - P_q^T e_q
        let mut wq_ = coef.clone();
        for i in 0..nq {
            let ei = res[i];
            for j in 0..n {
                wq_[j] -= pq[(i, j)] * ei;
            }
        }
        let pred: Vec<f64> = (s..e).map(|row| (0..n).map(|j| xs[(row, j)] * wq_[j]).sum()).collect();
        Ok((pred, res))
    });
    Lqo::from_queries(coef, per_query)
}
