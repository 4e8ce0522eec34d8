//! RankRLS (Pahikkala et al. 2010, eqs. 3-6) and its exact leave-query-out (LQO) shortcut
//! (Theorem 3.1), in the primal form that is cheap when m >> n.
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

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::ComputeEigenvectors;
use faer::prelude::ReborrowMut;
use faer::{Accum, Mat, MatMut, MatRef, Par};
use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;

use crate::data::groups::{center_rows, center_vec, QueryOffsets};
use crate::error::{Error, Result};
use crate::interrupt::{run_interruptible, Interrupt, NoInterrupt};
use crate::invalid;

/// Rows per block in the deterministic blocked products.
const BLOCK: usize = 2048;

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

/// Query-centred copies `(Xc, yc)` of grouped `x` (m x n, any layout) and `y`.
pub fn center(x: ArrayView2<f64>, y: &[f64], offsets: &[usize]) -> (Array2<f64>, Vec<f64>) {
    let mut xc = x.as_standard_layout().into_owned();
    center_rows(xc.view_mut(), offsets);
    let mut yc = y.to_vec();
    center_vec(&mut yc, offsets);
    (xc, yc)
}

fn as_faer(x: &Array2<f64>) -> MatRef<'_, f64> {
    let (m, n) = x.dim();
    // `center` and `Array2::zeros` give standard (row-major) layout.
    MatRef::from_row_major_slice(x.as_slice().expect("standard layout"), m, n)
}

/// `Xc^T Xc` (n x n), summed over fixed row blocks in order.
pub fn gram(xc: &Array2<f64>) -> Mat<f64> {
    match gram_checked(xc, &NoInterrupt) {
        Ok(g) => g,
        Err(_) => unreachable!("NoInterrupt never interrupts"),
    }
}

/// Row blocks per wave of a blocked `m x n` by `n x p` product: about 1e9 multiply-adds (well
/// under a second), and at least one block per thread. Interrupts are checked between waves.
fn wave_blocks(n: usize, p: usize) -> usize {
    let per_block = (BLOCK * n.max(1) * p.max(1)) as f64;
    ((1e9 / per_block) as usize).max(rayon::current_num_threads()).max(1)
}

/// [`gram`] checking `interrupt` between waves of blocks (same blocks, same order of the sum:
/// the result does not depend on the waves or the number of threads).
pub fn gram_checked(xc: &Array2<f64>, interrupt: &dyn Interrupt) -> Result<Mat<f64>> {
    gram_waves(xc, wave_blocks(xc.ncols(), xc.ncols()), interrupt)
}

fn gram_waves(xc: &Array2<f64>, blocks_per_wave: usize, interrupt: &dyn Interrupt) -> Result<Mat<f64>> {
    let (m, n) = xc.dim();
    let x = as_faer(xc);
    let starts: Vec<usize> = (0..m).step_by(BLOCK).collect();
    let mut g = Mat::<f64>::zeros(n, n);
    for wave in starts.chunks(blocks_per_wave.max(1)) {
        interrupt.check()?;
        let parts: Vec<Mat<f64>> = wave
            .par_iter()
            .map(|&s| {
                let e = (s + BLOCK).min(m);
                let b = x.subrows(s, e - s);
                let mut g = Mat::<f64>::zeros(n, n);
                faer::linalg::matmul::matmul(g.as_mut(), Accum::Replace, b.transpose(), b, 1.0, Par::Seq);
                g
            })
            .collect();
        for p in &parts {
            g += p;
        }
    }
    Ok(g)
}

/// `Xc^T v` (n), summed over fixed row blocks in order.
fn xt_vec(xc: &Array2<f64>, v: &[f64]) -> Vec<f64> {
    let (m, n) = xc.dim();
    let s = xc.as_slice().expect("standard layout");
    let starts: Vec<usize> = (0..m).step_by(BLOCK).collect();
    let parts: Vec<Vec<f64>> = starts
        .par_iter()
        .map(|&st| {
            let mut acc = vec![0.0; n];
            for r in st..(st + BLOCK).min(m) {
                let vr = v[r];
                for (a, &xv) in acc.iter_mut().zip(&s[r * n..(r + 1) * n]) {
                    *a += xv * vr;
                }
            }
            acc
        })
        .collect();
    let mut out = vec![0.0; n];
    for p in &parts {
        out.iter_mut().zip(p).for_each(|(o, v)| *o += v);
    }
    out
}

/// `x @ b` for row-major `x` (m x n) and `b` (n x p), by row blocks (rows are independent).
fn rows_times(x: &Array2<f64>, b: MatRef<'_, f64>, interrupt: &dyn Interrupt) -> Result<Array2<f64>> {
    rows_times_waves(x, b, wave_blocks(x.ncols(), b.ncols()), interrupt)
}

fn rows_times_waves(
    x: &Array2<f64>,
    b: MatRef<'_, f64>,
    blocks_per_wave: usize,
    interrupt: &dyn Interrupt,
) -> Result<Array2<f64>> {
    let (m, n) = x.dim();
    let p = b.ncols();
    let xs = x.as_slice().expect("standard layout");
    let mut out = Array2::<f64>::zeros((m, p));
    let os = out.as_slice_mut().expect("standard layout");
    // Waves of row blocks, interrupt checked in between; each output row depends on its own
    // input row only.
    let wave_rows = blocks_per_wave.max(1) * BLOCK;
    if n == 0 || p == 0 {
        return Ok(out);
    }
    for (ow, xw) in os.chunks_mut(wave_rows * p).zip(xs.chunks(wave_rows * n)) {
        interrupt.check()?;
        ow.par_chunks_mut(BLOCK * p).zip(xw.par_chunks(BLOCK * n)).for_each(|(o, xb)| {
            let r = xb.len() / n;
            let dst = MatMut::from_row_major_slice_mut(o, r, p);
            let lhs = MatRef::from_row_major_slice(xb, r, n);
            faer::linalg::matmul::matmul(dst, Accum::Replace, lhs, b, 1.0, Par::Seq);
        });
    }
    Ok(out)
}

/// In-place Cholesky factor (lower) of an SPD matrix, sequential.
fn cholesky(mut a: Mat<f64>, what: &str) -> Result<Mat<f64>> {
    let n = a.nrows();
    let mut mem = MemBuffer::new(faer::linalg::cholesky::llt::factor::cholesky_in_place_scratch::<f64>(
        n,
        Par::Seq,
        Default::default(),
    ));
    faer::linalg::cholesky::llt::factor::cholesky_in_place(
        a.as_mut(),
        Default::default(),
        Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|_| Error::InvalidInput(format!("{what} is not positive definite (numerically)")))?;
    Ok(a)
}

/// Solves `L L^T x = rhs` in place with the lower factor `l` (only its lower triangle is read).
fn chol_solve(l: MatRef<'_, f64>, mut rhs: MatMut<'_, f64>) {
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(l, rhs.rb_mut(), Par::Seq);
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(l.transpose(), rhs, Par::Seq);
}

/// Solves the SPD system `A x = b` (one right-hand side).
pub fn spd_solve(a: Mat<f64>, b: &[f64], what: &str) -> Result<Vec<f64>> {
    let l = cholesky(a, what)?;
    let mut rhs = Mat::<f64>::from_fn(b.len(), 1, |i, _| b[i]);
    chol_solve(l.as_ref(), rhs.as_mut());
    Ok((0..b.len()).map(|i| rhs[(i, 0)]).collect())
}

fn with_ridge(g: &Mat<f64>, alpha: f64) -> Mat<f64> {
    let mut a = g.clone();
    for i in 0..a.nrows() {
        a[(i, i)] += alpha;
    }
    a
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
    let (xc, yc) = center(x, y, offsets);
    let g = gram_checked(&xc, interrupt)?;
    interrupt.check()?;
    let (a, b) = (with_ridge(&g, alpha), xt_vec(&xc, &yc));
    // One faer call: on a helper thread while this thread polls `interrupt`.
    run_interruptible(interrupt, "Cholesky factorisation", move || spd_solve(a, &b, "Xc^T Xc + alpha I"))?
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
    /// `sum_q ||residuals_q||^2` (eq. 7).
    pub error: f64,
}

/// RankRLS on grouped `x` (m x n) with exact LQO predictions, in O(m n^2 + sum_q n_q^2 n).
pub fn fit_lqo(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    alpha: f64,
    interrupt: &dyn Interrupt,
) -> Result<Lqo> {
    check_problem(x, y, offsets, &[alpha])?;
    let (m, n) = x.dim();
    let (xc, yc) = center(x, y, offsets);
    let a = with_ridge(&gram_checked(&xc, interrupt)?, alpha);
    let l = run_interruptible(interrupt, "Cholesky factorisation", move || cholesky(a, "Xc^T Xc + alpha I"))??;
    interrupt.check()?;
    let b = xt_vec(&xc, &yc);
    let mut w = Mat::<f64>::from_fn(n, 1, |i, _| b[i]);
    chol_solve(l.as_ref(), w.as_mut());
    let coef: Vec<f64> = (0..n).map(|i| w[(i, 0)]).collect();
    let mut ainv = Mat::<f64>::identity(n, n);
    chol_solve(l.as_ref(), ainv.as_mut());
    // P = Xc A^-1 (m x n): row r is (A^-1 xc_r)^T.
    let p = rows_times(&xc, ainv.as_ref(), interrupt)?;
    interrupt.check()?;
    let xs = x.as_standard_layout();
    let xcs = as_faer(&xc);
    let ps = as_faer(&p);
    let per_query: Vec<Result<(Vec<f64>, Vec<f64>)>> = offsets
        .par_windows(2)
        .map(|wq| {
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
            chol_solve(lq.as_ref(), r.as_mut());
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
        })
        .collect();
    let mut predictions = Vec::with_capacity(m);
    let mut residuals = Vec::with_capacity(m);
    let mut error = 0.0;
    for item in per_query {
        let (pred, res) = item?;
        error += res.iter().map(|v| v * v).sum::<f64>();
        predictions.extend(pred);
        residuals.extend(res);
    }
    Ok(Lqo { coef, predictions, residuals, error })
}

/// LQO error and weights for several `alphas` from one eigendecomposition of `Xc^T Xc`.
#[derive(Clone, Debug)]
pub struct AlphaPath {
    /// LQO error (eq. 7) per alpha.
    pub errors: Vec<f64>,
    /// Weights per alpha, shape (n_alphas, n).
    pub coefs: Array2<f64>,
}

/// With `Xc^T Xc = V diag(s) V^T` and `Z = Xc V`: `w(alpha) = V diag(1/(s+alpha)) Z^T yc` and
/// `H_qq(alpha) = Z_q diag(1/(s+alpha)) Z_q^T`, so each alpha costs O(m n + sum_q n_q^2 n).
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
    let (_m, n) = x.dim();
    let (xc, yc) = center(x, y, offsets);
    let g = gram_checked(&xc, interrupt)?;
    // faer's eigendecomposition is one call: run it on a helper thread, polling `interrupt`.
    let (s, v) = run_interruptible(interrupt, "eigendecomposition", move || {
        let mut s = Diag::<f64>::zeros(n);
        let mut v = Mat::<f64>::zeros(n, n);
        let mut mem = MemBuffer::new(faer::linalg::evd::self_adjoint_evd_scratch::<f64>(
            n,
            ComputeEigenvectors::Yes,
            Par::Seq,
            Default::default(),
        ));
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
    let sv: Vec<f64> = (0..n).map(|i| s[i].max(0.0)).collect();
    interrupt.check()?;
    let z = rows_times(&xc, v.as_ref(), interrupt)?;
    let zy = xt_vec(&z, &yc);
    let zf = as_faer(&z);
    let mut errors = Vec::with_capacity(alphas.len());
    let mut coefs = Array2::<f64>::zeros((alphas.len(), n));
    for (ai, &alpha) in alphas.iter().enumerate() {
        interrupt.check()?;
        let d: Vec<f64> = sv.iter().map(|&si| 1.0 / (si + alpha)).collect();
        let beta: Vec<f64> = zy.iter().zip(&d).map(|(a, b)| a * b).collect();
        for j in 0..n {
            coefs[(ai, j)] = (0..n).map(|l| v[(j, l)] * beta[l]).sum();
        }
        let per_query: Vec<Result<f64>> = offsets
            .par_windows(2)
            .map(|wq| {
                let (st, e) = (wq[0], wq[1]);
                let nq = e - st;
                let zq = zf.subrows(st, nq);
                let zd = Mat::<f64>::from_fn(nq, n, |i, l| zq[(i, l)] * d[l]);
                let mut ih = Mat::<f64>::zeros(nq, nq);
                faer::linalg::matmul::matmul(ih.as_mut(), Accum::Replace, zd.as_ref(), zq.transpose(), -1.0, Par::Seq);
                let mut r = Mat::<f64>::zeros(nq, 1);
                for i in 0..nq {
                    ih[(i, i)] += 1.0;
                    r[(i, 0)] = yc[st + i] - (0..n).map(|l| zq[(i, l)] * beta[l]).sum::<f64>();
                }
                let lq = cholesky(ih, "I - H_qq")?;
                chol_solve(lq.as_ref(), r.as_mut());
                Ok((0..nq).map(|i| r[(i, 0)] * r[(i, 0)]).sum())
            })
            .collect();
        let mut err = 0.0;
        for e in per_query {
            err += e?;
        }
        errors.push(err);
    }
    Ok(AlphaPath { errors, coefs })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;

    /// Small deterministic pseudo-random generator for tests (xorshift).
    pub(crate) struct Rng(pub u64);
    impl Rng {
        pub(crate) fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    }

    pub(crate) fn problem(seed: u64, sizes: &[usize], n: usize) -> (Array2<f64>, Vec<f64>, Vec<usize>) {
        let mut rng = Rng(seed);
        let m: usize = sizes.iter().sum();
        let x = Array2::from_shape_fn((m, n), |_| rng.next());
        let y: Vec<f64> = (0..m).map(|_| (rng.next() * 2.0 + 2.0).floor()).collect();
        let mut offsets = vec![0];
        for s in sizes {
            offsets.push(offsets.last().unwrap() + s);
        }
        (x, y, offsets)
    }

    /// Naive solve of a small dense system by Gaussian elimination with partial pivoting.
    pub(crate) fn naive_solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
        let n = b.len();
        for c in 0..n {
            let piv = (c..n).max_by(|&i, &j| a[i][c].abs().partial_cmp(&a[j][c].abs()).unwrap()).unwrap();
            a.swap(c, piv);
            b.swap(c, piv);
            for r in c + 1..n {
                let f = a[r][c] / a[c][c];
                for k in c..n {
                    a[r][k] -= f * a[c][k];
                }
                b[r] -= f * b[c];
            }
        }
        let mut x = vec![0.0; n];
        for r in (0..n).rev() {
            let s: f64 = (r + 1..n).map(|k| a[r][k] * x[k]).sum();
            x[r] = (b[r] - s) / a[r][r];
        }
        x
    }

    /// Brute force: ridge on centred rows `rows` of (xc, yc) with feature subset `feats`.
    pub(crate) fn naive_ridge(xc: &Array2<f64>, yc: &[f64], rows: &[usize], feats: &[usize], alpha: f64) -> Vec<f64> {
        let k = feats.len();
        let mut a = vec![vec![0.0; k]; k];
        let mut b = vec![0.0; k];
        for &r in rows {
            for i in 0..k {
                b[i] += xc[(r, feats[i])] * yc[r];
                for j in 0..k {
                    a[i][j] += xc[(r, feats[i])] * xc[(r, feats[j])];
                }
            }
        }
        for (i, row) in a.iter_mut().enumerate() {
            row[i] += alpha;
        }
        naive_solve(a, b)
    }

    /// Brute-force LQO: delete each query, re-centre (slicing is exact), solve from scratch.
    pub(crate) fn naive_lqo(
        x: &Array2<f64>,
        y: &[f64],
        offsets: &[usize],
        feats: &[usize],
        alpha: f64,
    ) -> (f64, Vec<f64>) {
        let (xc, yc) = center(x.view(), y, offsets);
        let m = x.nrows();
        let mut err = 0.0;
        let mut preds = vec![0.0; m];
        for w in offsets.windows(2) {
            let rows: Vec<usize> = (0..m).filter(|&r| r < w[0] || r >= w[1]).collect();
            let wq = naive_ridge(&xc, &yc, &rows, feats, alpha);
            let raw: Vec<f64> =
                (w[0]..w[1]).map(|r| feats.iter().zip(&wq).map(|(&f, c)| x[(r, f)] * c).sum()).collect();
            let mean = raw.iter().sum::<f64>() / raw.len().max(1) as f64;
            for (i, r) in (w[0]..w[1]).enumerate() {
                preds[r] = raw[i];
                let res = yc[r] - (raw[i] - mean);
                err += res * res;
            }
        }
        (err, preds)
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn fit_matches_naive() {
        let (x, y, off) = problem(3, &[4, 1, 6, 3, 5], 4);
        let w = fit(x.view(), &y, &crate::data::groups::QueryOffsets::new((&off).to_vec()).unwrap(), 0.7).unwrap();
        let (xc, yc) = center(x.view(), &y, &off);
        let all: Vec<usize> = (0..x.nrows()).collect();
        let wn = naive_ridge(&xc, &yc, &all, &[0, 1, 2, 3], 0.7);
        for (a, b) in w.iter().zip(&wn) {
            assert!(close(*a, *b, 1e-12));
        }
    }

    #[test]
    fn lqo_matches_brute_force() {
        let (x, y, off) = problem(11, &[4, 1, 6, 3, 5, 2], 3);
        let lqo =
            fit_lqo(x.view(), &y, &crate::data::groups::QueryOffsets::new((&off).to_vec()).unwrap(), 0.3, &NoInterrupt)
                .unwrap();
        let (err, preds) = naive_lqo(&x, &y, &off, &[0, 1, 2], 0.3);
        assert!(close(lqo.error, err, 1e-10), "{} vs {}", lqo.error, err);
        for (a, b) in lqo.predictions.iter().zip(&preds) {
            assert!(close(*a, *b, 1e-10));
        }
        let path = lqo_alpha_path(
            x.view(),
            &y,
            &crate::data::groups::QueryOffsets::new((&off).to_vec()).unwrap(),
            &[0.3, 2.0],
            &NoInterrupt,
        )
        .unwrap();
        assert!(close(path.errors[0], err, 1e-10));
        let (err2, _) = naive_lqo(&x, &y, &off, &[0, 1, 2], 2.0);
        assert!(close(path.errors[1], err2, 1e-10));
        for (a, b) in path.coefs.row(0).iter().zip(&lqo.coef) {
            assert!(close(*a, *b, 1e-10));
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        let (x, y, off) = problem(1, &[3, 3], 2);
        assert!(fit_lqo(
            x.view(),
            &y,
            &crate::data::groups::QueryOffsets::new((&off).to_vec()).unwrap(),
            0.0,
            &NoInterrupt
        )
        .is_err());
        assert!(fit_lqo(
            x.view(),
            &y[..5],
            &crate::data::groups::QueryOffsets::new((&off).to_vec()).unwrap(),
            1.0,
            &NoInterrupt
        )
        .is_err());
        assert!(fit_lqo(
            x.view(),
            &y,
            &crate::data::groups::QueryOffsets::new((&[0, 6]).to_vec()).unwrap(),
            1.0,
            &NoInterrupt
        )
        .is_err());
    }

    #[test]
    fn long_products_stop_on_interrupt_and_match_uninterrupted_results() {
        // Enough rows for several waves: the interrupt is asked between them.
        let (m, n) = (3 * BLOCK + 5, 8);
        let mut rng = Rng(7);
        let xc = Array2::from_shape_fn((m, n), |_| rng.next());
        let calls = std::cell::Cell::new(0usize);
        let stop_second = || {
            calls.set(calls.get() + 1);
            calls.get() > 1
        };
        assert!(matches!(gram_waves(&xc, 1, &stop_second), Err(Error::Interrupted)));
        calls.set(0);
        assert!(matches!(rows_times_waves(&xc, gram(&xc).as_ref(), 1, &stop_second), Err(Error::Interrupted)));
        let v = gram(&xc);
        let full = rows_times_waves(&xc, v.as_ref(), 100, &NoInterrupt).unwrap();
        assert_eq!(rows_times_waves(&xc, v.as_ref(), 1, &NoInterrupt).unwrap(), full);
        // Waves do not change the result: the blocks are summed in the same order.
        let g = gram_waves(&xc, 1, &NoInterrupt).unwrap();
        let mut naive = Mat::<f64>::zeros(n, n);
        for s in (0..m).step_by(BLOCK) {
            let b = as_faer(&xc).subrows(s, (s + BLOCK).min(m) - s);
            let mut p = Mat::<f64>::zeros(n, n);
            faer::linalg::matmul::matmul(p.as_mut(), Accum::Replace, b.transpose(), b, 1.0, Par::Seq);
            naive += &p;
        }
        assert!((0..n).all(|i| (0..n).all(|j| g[(i, j)] == naive[(i, j)])));
    }
}
