//! RankRLS for several ridge parameters from one eigendecomposition, in three pieces that are
//! sums over query shards (Pahikkala et al. 2010, eq. 5 and Theorem 3.1 / eq. 7):
//!
//! ```text
//! (a) per shard:  G_s = Xc_s^T Xc_s,  b_s = Xc_s^T yc_s            G = sum_s G_s, b = sum_s b_s
//! (b) once:       G = V diag(s) V^T                                   [`eigen`]
//!     per shard:  zy_s = Z_s^T yc_s, Z_s = Xc_s V                     zy = sum_s zy_s
//!     once:       w(alpha) = V diag(1/(s + alpha)) zy                 [`path_weights`] (eq. 5)
//! (c) per shard:  sum_{q in s} ||(I - H_qq)^-1 r_q||^2 per alpha,     [`lqo_errors`] (eq. 7)
//!                 H_qq = Z_q diag(1/(s + alpha)) Z_q^T, r_q = yc_q - Z_q diag(1/(s + alpha)) zy
//! ```
//!
//! Centring is per query, so per shard of whole queries. In memory, [`lqo_alpha_path`] runs
//! the same pieces on one shard (the data), keeping `Xc` and `Z` between them; over Dask
//! shards, `rankselect.dask.RankRLS` adds the per-shard parts in shard order. Per alpha, (c)
//! costs O(m n + sum_q n_q^2 n).

use faer::diag::Diag;
use faer::dyn_stack::MemStack;
use faer::linalg::evd::ComputeEigenvectors;
use faer::{Accum, Mat, MatRef, Par};
use ndarray::{Array2, ArrayView2};

use super::blocked::{as_faer, center, chol_solve, cholesky, gram_checked, rows_times, spd_solve, with_ridge, xt_vec};
use crate::data::groups::QueryOffsets;
use crate::error::{Error, Result};
use crate::interrupt::{run_interruptible, Interrupt};
use crate::invalid;

/// LQO error and weights for several `alphas` from one eigendecomposition of `Xc^T Xc`.
#[derive(Clone, Debug)]
pub struct AlphaPath {
    /// LQO error (eq. 7) per alpha (`lqo_errors_` in Python).
    pub lqo_errors: Vec<f64>,
    /// Weights per alpha, shape (n_alphas, n).
    pub coefs: Array2<f64>,
}

/// The checks of a shard: shapes, offsets, finite values (a shard may hold one query).
fn check_shard(x: ArrayView2<f64>, y: &[f64], offsets: &QueryOffsets) -> Result<()> {
    let m = x.nrows();
    if y.len() != m {
        return invalid!("y has {} entries but X has {m} rows", y.len());
    }
    offsets.check_rows(m, "X")?;
    if x.iter().any(|v| !v.is_finite()) {
        return invalid!("X contains NaN or infinity");
    }
    if y.iter().any(|v| !v.is_finite()) {
        return invalid!("y contains NaN or infinity");
    }
    Ok(())
}

fn check_alphas(alphas: &[f64]) -> Result<()> {
    if alphas.is_empty() {
        return invalid!("alpha must hold at least one value");
    }
    if let Some(a) = alphas.iter().find(|a| !(a.is_finite() && **a > 0.0)) {
        return invalid!("alpha must be > 0 and finite, got {a}");
    }
    Ok(())
}

/// (a) `(Xc^T Xc, Xc^T yc)` of one shard of whole queries (grouped `x`, m x n).
pub fn gram_sums(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    interrupt: &dyn Interrupt,
) -> Result<(Mat<f64>, Vec<f64>)> {
    check_shard(x, y, offsets)?;
    let (xc, yc) = center(x, y, offsets)?;
    Ok((gram_checked(&xc, interrupt)?, xt_vec(&xc, &yc)))
}

/// (b) `G = V diag(s) V^T` for the symmetric `g` (n x n), eigenvalues clamped at 0
/// (rounding). One faer call, on a helper thread while `interrupt` is polled.
pub fn eigen(g: Mat<f64>, interrupt: &dyn Interrupt) -> Result<(Vec<f64>, Mat<f64>)> {
    let n = g.nrows();
    if g.ncols() != n {
        return invalid!("the Gram matrix must be square, got {n} x {}", g.ncols());
    }
    if (0..n).any(|i| (0..n).any(|j| !g[(i, j)].is_finite())) {
        return invalid!("the Gram matrix contains NaN or infinity");
    }
    let mut v = crate::alloc::try_mat_zeros(n, n, "the eigenvectors of Xc^T Xc")?;
    let req =
        faer::linalg::evd::self_adjoint_evd_scratch::<f64>(n, ComputeEigenvectors::Yes, Par::Seq, Default::default());
    let mut mem = crate::alloc::try_workspace(req, "the eigendecomposition's workspace")?;
    let (s, v) = run_interruptible(interrupt, "eigendecomposition", move || {
        let mut s = Diag::<f64>::zeros(n);
        faer::linalg::evd::self_adjoint_evd(
            g.as_ref(),
            s.as_mut(),
            Some(v.as_mut()),
            Par::Seq,
            MemStack::new(&mut mem),
            Default::default(),
        )
        .map(|_| (s, v))
        .map_err(|_| Error::InvalidInput("eigendecomposition of Xc^T Xc did not converge".into()))
    })??;
    Ok(((0..n).map(|i| s[i].max(0.0)).collect(), v))
}

/// The weights of eq. 5 for one `alpha` from `(G, b)`: `(G + alpha I)^-1 b` (Cholesky).
pub fn solve_gram(g: &Mat<f64>, b: &[f64], alpha: f64, interrupt: &dyn Interrupt) -> Result<Vec<f64>> {
    if !(alpha.is_finite() && alpha > 0.0) {
        return invalid!("alpha must be > 0 and finite, got {alpha}");
    }
    if g.nrows() != b.len() || g.ncols() != b.len() {
        return invalid!("the Gram matrix is {} x {} but b has {} entries", g.nrows(), g.ncols(), b.len());
    }
    let (a, b) = (with_ridge(g, alpha)?, b.to_vec());
    // One faer call: on a helper thread while this thread polls `interrupt`.
    run_interruptible(interrupt, "Cholesky factorisation", move || spd_solve(a, &b, "Xc^T Xc + alpha I"))?
}

fn check_basis(n: usize, v: MatRef<'_, f64>, s: &[f64], zy: Option<&[f64]>) -> Result<()> {
    if v.nrows() != n || v.ncols() != n {
        return invalid!("V must be {n} x {n}, got {} x {}", v.nrows(), v.ncols());
    }
    if s.len() != n || zy.is_some_and(|z| z.len() != n) {
        return invalid!("s and zy must have {n} entries");
    }
    Ok(())
}

/// (b) per shard: `Z_s^T yc_s` with `Z_s = Xc_s V`.
pub fn projected_targets(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    v: MatRef<'_, f64>,
    interrupt: &dyn Interrupt,
) -> Result<Vec<f64>> {
    check_shard(x, y, offsets)?;
    check_basis(x.ncols(), v, &vec![0.0; x.ncols()], None)?;
    let (xc, yc) = center(x, y, offsets)?;
    Ok(xt_vec(&rows_times(&xc, v, interrupt)?, &yc))
}

/// (b) the weights `V diag(1/(s + alpha)) zy` per alpha (eq. 5), shape (n_alphas, n).
pub fn path_weights(v: MatRef<'_, f64>, s: &[f64], zy: &[f64], alphas: &[f64]) -> Result<Array2<f64>> {
    check_alphas(alphas)?;
    let n = s.len();
    check_basis(n, v, s, Some(zy))?;
    let mut coefs = crate::alloc::try_zeros2(alphas.len(), n, "the coefficient path (alphas x features)")?;
    for (ai, &alpha) in alphas.iter().enumerate() {
        let beta: Vec<f64> = zy.iter().zip(s).map(|(a, si)| a * (1.0 / (si + alpha))).collect();
        for j in 0..n {
            coefs[(ai, j)] = (0..n).map(|l| v[(j, l)] * beta[l]).sum();
        }
    }
    Ok(coefs)
}

/// (c) per shard: per alpha, the sum over the shard's queries of `||(I - H_qq)^-1 r_q||^2`.
// A shard kernel: the shard's rows and the broadcast pieces of (b).
#[allow(clippy::too_many_arguments)]
pub fn lqo_errors(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    v: MatRef<'_, f64>,
    s: &[f64],
    zy: &[f64],
    alphas: &[f64],
    interrupt: &dyn Interrupt,
) -> Result<Vec<f64>> {
    check_shard(x, y, offsets)?;
    check_alphas(alphas)?;
    check_basis(x.ncols(), v, s, Some(zy))?;
    let (xc, yc) = center(x, y, offsets)?;
    let z = rows_times(&xc, v, interrupt)?;
    projected_lqo_errors(&z, &yc, offsets, s, zy, alphas, interrupt)
}

/// (c) from `Z = Xc V` and `yc`: per alpha, the sum over queries of the squared LQO
/// residuals (eq. 7). Queries in parallel, summed in query order.
pub(super) fn projected_lqo_errors(
    z: &Array2<f64>,
    yc: &[f64],
    offsets: &[usize],
    s: &[f64],
    zy: &[f64],
    alphas: &[f64],
    interrupt: &dyn Interrupt,
) -> Result<Vec<f64>> {
    let n = s.len();
    crate::alloc::reserve_gemm_workspaces()?; // the per-query products run on the pool's threads
    let zf = as_faer(z);
    let mut out = Vec::with_capacity(alphas.len());
    for &alpha in alphas {
        interrupt.check()?;
        let d: Vec<f64> = s.iter().map(|&si| 1.0 / (si + alpha)).collect();
        let beta: Vec<f64> = zy.iter().zip(&d).map(|(a, b)| a * b).collect();
        let per_query: Vec<Result<f64>> = crate::par::map_range(offsets.len() - 1, |q| {
            let wq = &offsets[q..q + 2];
            let (st, e) = (wq[0], wq[1]);
            let nq = e - st;
            let zq = zf.subrows(st, nq);
            let zd = crate::alloc::try_mat(nq, n, |i, l| zq[(i, l)] * d[l], "a query's scaled projections")?;
            let mut ih = crate::alloc::try_mat_zeros(nq, nq, "a query's I - H_qq (documents x documents)")?;
            faer::linalg::matmul::matmul(ih.as_mut(), Accum::Replace, zd.as_ref(), zq.transpose(), -1.0, Par::Seq);
            let mut r = Mat::<f64>::zeros(nq, 1);
            for i in 0..nq {
                ih[(i, i)] += 1.0;
                r[(i, 0)] = yc[st + i] - (0..n).map(|l| zq[(i, l)] * beta[l]).sum::<f64>();
            }
            let lq = cholesky(ih, "I - H_qq")?;
            chol_solve(lq.as_ref(), r.as_mut())?;
            Ok((0..nq).map(|i| r[(i, 0)] * r[(i, 0)]).sum())
        });
        let mut err = 0.0;
        for e in per_query {
            err += e?;
        }
        out.push(err);
    }
    Ok(out)
}

/// [`AlphaPath`] in the primal (n x n) form on the centred `xc` (m x n), `yc`: the pieces
/// (a), (b), (c) on one shard, the data ([`super::lqo_alpha_path`] picks the form).
pub(super) fn alpha_path_primal(
    xc: &Array2<f64>,
    yc: &[f64],
    offsets: &QueryOffsets,
    alphas: &[f64],
    interrupt: &dyn Interrupt,
) -> Result<AlphaPath> {
    let (s, v) = eigen(gram_checked(xc, interrupt)?, interrupt)?;
    interrupt.check()?;
    let z = rows_times(xc, v.as_ref(), interrupt)?;
    let zy = xt_vec(&z, yc);
    let coefs = path_weights(v.as_ref(), &s, &zy, alphas)?;
    let lqo_errors = projected_lqo_errors(&z, yc, offsets, &s, &zy, alphas, interrupt)?;
    Ok(AlphaPath { lqo_errors, coefs })
}
