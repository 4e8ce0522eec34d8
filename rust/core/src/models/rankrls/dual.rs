//! RankRLS in the dual for wide data (n > m): the m x m system instead of the n x n one.
//!
//! With `Xc = L X`, `yc = L y` (`L` the block-diagonal query-centring matrix, which is
//! symmetric and idempotent, so `Xc^T L = Xc^T`), the push-through identity
//! `(Xc^T Xc + alpha I)^-1 Xc^T = Xc^T (Xc Xc^T + alpha I)^-1` turns eq. 5 into
//!
//! ```text
//! w = Xc^T c,   (K + alpha I) c = yc,   K = Xc Xc^T  (m x m)          (the dual form, eq. 6)
//! ```
//!
//! the same coefficients to rounding in O(m^2 n + m^3) instead of O(m n^2 + n^3). For the
//! alpha path, `K = U diag(s) U^T` plays the role of `Xc^T Xc = V diag(s) V^T`: the nonzero
//! eigenvalues are shared and `Xc V = U diag(sqrt(s))`, so the projections of
//! [`super::path`] are `Z = U diag(sqrt(s))` (m x m), `zy = Z^T yc`, the LQO blocks
//! `H_qq = Z_q diag(1/(s + alpha)) Z_q^T = [K (K + alpha I)^-1]_qq` (Theorem 3.1) as in the
//! primal, and the weights `w(alpha) = Xc^T U diag(1/(s + alpha)) U^T yc`.
//!
//! The exact LQO fit ([`fit_lqo_dual`], Theorem 3.1 in the dual): with `A = K + alpha I`,
//! `a = A^-1 yc` and `I - H = alpha A^-1`, the hold-out residuals are
//! `e_q = (I - H_qq)^-1 r_q = (A^-1)_qq^-1 a_q` (eq. 6's `r = alpha a`), and the model without
//! query `q` is `w_{-q} = Xc^T (a - (A^-1)_{:,q} e_q)` (the push-through identity on the
//! primal's `A_p^-1 Xc_q^T e_q`): O(m^2 n + m^3 + Q m n) instead of O(m n^2 + n^3).

use faer::Mat;
use ndarray::{Array2, ArrayView2};

use super::blocked::{chol_solve, cholesky, gram_checked, with_ridge, xt_vec};
use super::path::{eigen, projected_lqo_errors, solve_gram, AlphaPath};
use super::Lqo;
use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;

/// `true` when the dual (m x m) system is the smaller one: more features than rows.
pub fn use_dual(m: usize, n: usize) -> bool {
    n > m
}

/// `K = Xc Xc^T` (m x m): the Gram matrix of `Xc^T`, summed over fixed blocks of features.
pub fn kernel(xc: &Array2<f64>, interrupt: &dyn Interrupt) -> Result<Mat<f64>> {
    let (m, n) = xc.dim();
    let mut xt = crate::alloc::try_zeros2(n, m, "RankRLS's transposed centred X (features x rows)")?;
    xt.assign(&xc.t());
    gram_checked(&xt, interrupt)
}

/// Bytes of the dual fit or path on `m x n` data with `n_alphas` ridge values: `X`'s centred
/// copy and its transpose (2 m n), `K`, its eigenvectors and `Z` (3 m^2), the weights.
pub fn dual_bytes(m: usize, n: usize, n_alphas: usize) -> u128 {
    let (m, n, a) = (m as u128, n as u128, n_alphas as u128);
    8 * (2 * m * n + 3 * m * m + a * n)
}

/// The weights of eq. 5 through the dual: `w = Xc^T (K + alpha I)^-1 yc`.
pub fn fit_dual(xc: &Array2<f64>, yc: &[f64], alpha: f64, interrupt: &dyn Interrupt) -> Result<Vec<f64>> {
    let k = kernel(xc, interrupt)?;
    interrupt.check()?;
    let c = solve_gram(&k, yc, alpha, interrupt)?;
    Ok(xt_vec(xc, &c))
}

/// [`AlphaPath`] through the dual (module docs).
pub fn alpha_path_dual(
    xc: &Array2<f64>,
    yc: &[f64],
    offsets: &QueryOffsets,
    alphas: &[f64],
    interrupt: &dyn Interrupt,
) -> Result<AlphaPath> {
    let (m, n) = xc.dim();
    let (s, u) = eigen(kernel(xc, interrupt)?, interrupt)?;
    interrupt.check()?;
    let mut z = crate::alloc::try_zeros2(m, m, "RankRLS's dual projections (rows x rows)")?;
    let mut uy = crate::alloc::try_zeroed_vec::<f64>(m, "RankRLS's dual targets U^T yc")?;
    for i in 0..m {
        for l in 0..m {
            z[(i, l)] = u[(i, l)] * s[l].sqrt();
            uy[l] += u[(i, l)] * yc[i];
        }
    }
    let zy = xt_vec(&z, yc);
    let lqo_errors = projected_lqo_errors(&z, yc, offsets, &s, &zy, alphas, interrupt)?;
    let mut coefs = crate::alloc::try_zeros2(alphas.len(), n, "the coefficient path (alphas x features)")?;
    for (ai, &alpha) in alphas.iter().enumerate() {
        let beta: Vec<f64> = uy.iter().zip(&s).map(|(v, si)| v / (si + alpha)).collect();
        let c: Vec<f64> = (0..m).map(|i| (0..m).map(|l| u[(i, l)] * beta[l]).sum()).collect();
        coefs.row_mut(ai).iter_mut().zip(xt_vec(xc, &c)).for_each(|(w, v)| *w = v);
    }
    Ok(AlphaPath { lqo_errors, coefs })
}

/// [`Lqo`] of RankRLS through the dual (module docs) from grouped raw `x`, its centred copy
/// `xc` and `yc`; the hold-out predictions are `X_q w_{-q}` on the raw rows.
pub fn fit_lqo_dual(
    x: ArrayView2<f64>,
    xc: &Array2<f64>,
    yc: &[f64],
    offsets: &QueryOffsets,
    alpha: f64,
    interrupt: &dyn Interrupt,
) -> Result<Lqo> {
    let m = xc.nrows();
    let l = cholesky(with_ridge(&kernel(xc, interrupt)?, alpha)?, "Xc Xc^T + alpha I")?;
    interrupt.check()?;
    let mut a = crate::alloc::try_mat(m, 1, |i, _| yc[i], "RankRLS's dual coefficients")?;
    chol_solve(l.as_ref(), a.as_mut())?;
    let a: Vec<f64> = (0..m).map(|i| a[(i, 0)]).collect();
    let coef = xt_vec(xc, &a);
    let mut ainv = crate::alloc::try_mat(m, m, |i, j| if i == j { 1.0 } else { 0.0 }, "(Xc Xc^T + alpha I)^-1")?;
    chol_solve(l.as_ref(), ainv.as_mut())?;
    interrupt.check()?;
    let per_query: Vec<Result<(Vec<f64>, Vec<f64>)>> = crate::par::map_range(offsets.len() - 1, |q| {
        let wq = &offsets[q..q + 2];
        let (s, e) = (wq[0], wq[1]);
        let nq = e - s;
        let gqq = crate::alloc::try_mat(nq, nq, |i, j| ainv[(s + i, s + j)], "a query's block of A^-1")?;
        let mut r = crate::alloc::try_mat(nq, 1, |i, _| a[s + i], "a query's hold-out residuals")?;
        chol_solve(cholesky(gqq, "(Xc Xc^T + alpha I)^-1_qq")?.as_ref(), r.as_mut())?;
        let res: Vec<f64> = (0..nq).map(|i| r[(i, 0)]).collect();
        // w_{-q} = Xc^T beta, beta = a - A^-1_{:,q} e_q
        let beta: Vec<f64> = (0..m).map(|i| a[i] - (0..nq).map(|j| ainv[(i, s + j)] * res[j]).sum::<f64>()).collect();
        let wq = xt_vec(xc, &beta);
        let pred = (s..e).map(|row| x.row(row).iter().zip(&wq).map(|(xv, wv)| xv * wv).sum()).collect();
        Ok((pred, res))
    });
    Lqo::from_queries(coef, per_query)
}
