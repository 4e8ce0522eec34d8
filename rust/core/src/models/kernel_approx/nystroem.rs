//! Nyström (Chen et al. 2017, eq. 16-18, Alg. 1): the normalization `N` from the landmarks'
//! kernel matrix and the map `φ(X) = K(X, landmarks) Nᵀ`.

use faer::diag::Diag;
use faer::dyn_stack::MemStack;
use faer::linalg::evd::{self_adjoint_evd, self_adjoint_evd_scratch, ComputeEigenvectors};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};
use ndarray::{Array2, ArrayView2};

use super::{
    check_cols, check_finite, contiguous, kernel_gram, par_row_chunks, row_major, row_major_mut, row_sq_norms, Kernel,
    CHUNK_ROWS,
};
use crate::alloc;
use crate::error::{Error, Result};
use crate::interrupt::{run_interruptible, Interrupt};
use crate::invalid;

/// scikit-learn's floor on the singular values of `W` in the full-rank Nyström map.
pub const SKLEARN_SINGULAR_FLOOR: f64 = 1e-12;

/// Eigendecomposition of a symmetric matrix (sequential, deterministic): eigenvalues in
/// nondecreasing order and the eigenvectors as the columns of `U`. faer's decomposition is
/// one call that cannot check for Ctrl-C: it runs on a helper thread while this thread polls
/// `interrupt` ([`crate::interrupt::run_interruptible`]).
fn symmetric_eigen(w: &Array2<f64>, interrupt: &dyn Interrupt) -> Result<(Vec<f64>, Mat<f64>)> {
    let c = w.nrows();
    let a = alloc::try_mat(c, c, |i, j| w[[i, j]], "the landmark kernel matrix")?;
    let mut u = alloc::try_mat_zeros(c, c, "the landmark kernel matrix's eigenvectors")?;
    let par = Par::Seq;
    let req = self_adjoint_evd_scratch::<f64>(c, ComputeEigenvectors::Yes, par, Default::default());
    let mut mem = alloc::try_workspace(req, "the eigendecomposition's workspace")?;
    run_interruptible(interrupt, "eigendecomposition", move || {
        let mut s = Diag::<f64>::zeros(c);
        self_adjoint_evd(a.as_ref(), s.as_mut(), Some(u.as_mut()), par, MemStack::new(&mut mem), Default::default())
            .map(|_| ((0..c).map(|i| s[i]).collect::<Vec<f64>>(), u))
            .map_err(|e| format!("{e:?}"))
    })?
    .map_err(|e| Error::InvalidInput(format!("eigendecomposition of the landmark kernel matrix failed: {e}")))
}

/// Nyström normalization matrix from the landmarks (eq. 16-18).
///
/// `rank = None`: `N = U sign(Σ) max(|Σ|, 1e-12)^{-1/2} Uᵀ`, shape `(c, c)` — exactly the
/// `normalization_` of scikit-learn's `Nystroem` (the SVD of a symmetric `W` has singular
/// values `|λ|` and right vectors `sign(λ) uᵀ`).
/// `rank = Some(k)`: `N = Σ_k^{-1/2} U_kᵀ`, shape `(k, c)`, rows ordered by decreasing
/// eigenvalue; eigenvalues `<= c·ε·max(σ₁, 0)` give a zero row (pseudo-inverse).
/// The map is `φ(X) = K(X, landmarks) Nᵀ`.
pub fn nystroem_normalization(
    landmarks: ArrayView2<f64>,
    kernel: Kernel,
    rank: Option<usize>,
    interrupt: &dyn Interrupt,
) -> Result<Array2<f64>> {
    let c = landmarks.nrows();
    if c == 0 {
        return invalid!("landmarks must have at least one row");
    }
    if let Some(k) = rank {
        if k == 0 || k > c {
            return invalid!("rank must be in [1, n_components = {c}], got {k}");
        }
    }
    let w = kernel_gram(landmarks, kernel)?;
    if w.iter().any(|v| !v.is_finite()) {
        return invalid!("the landmark kernel matrix is not finite (check gamma, coef0, degree)");
    }
    let (vals, u) = symmetric_eigen(&w, interrupt)?;
    match rank {
        None => {
            // N = sum_i s_i u_i u_iᵀ, s_i = sign(λ_i) / sqrt(max(|λ_i|, 1e-12)).
            let scale: Vec<f64> = vals
                .iter()
                .map(|&l| {
                    let s = 1.0 / l.abs().max(SKLEARN_SINGULAR_FLOOR).sqrt();
                    if l < 0.0 {
                        -s
                    } else {
                        s
                    }
                })
                .collect();
            let us = alloc::try_mat(c, c, |i, j| u[(i, j)] * scale[j], "the scaled eigenvectors")?;
            let mut n = alloc::try_zeroed_rows(c, c, "the Nystroem normalization")?;
            alloc::reserve_gemm_workspace()?;
            matmul(row_major_mut(&mut n, c, c), Accum::Replace, us.as_ref(), u.transpose(), 1.0, Par::Seq);
            // Symmetrise exactly.
            for i in 0..c {
                for j in 0..i {
                    let v = 0.5 * (n[i * c + j] + n[j * c + i]);
                    n[i * c + j] = v;
                    n[j * c + i] = v;
                }
            }
            Array2::from_shape_vec((c, c), n).map_err(|e| Error::InvalidInput(format!("internal shape error: {e}")))
        }
        Some(k) => {
            let top = vals.last().copied().unwrap_or(0.0).max(0.0);
            let tol = top * c as f64 * f64::EPSILON;
            let mut n = alloc::try_zeros2(k, c, "the Nystroem normalization")?;
            for r in 0..k {
                let j = c - 1 - r; // eigenvalues are nondecreasing
                let l = vals[j];
                if l > tol && l > 0.0 {
                    let s = 1.0 / l.sqrt();
                    for i in 0..c {
                        n[[r, i]] = u[(i, j)] * s;
                    }
                }
            }
            Ok(n)
        }
    }
}

/// Nyström feature map `φ(X) = K(X, landmarks) Nᵀ`, shape `(n, N.nrows())` (eq. 18).
pub fn nystroem_transform(
    x: ArrayView2<f64>,
    landmarks: ArrayView2<f64>,
    normalization: ArrayView2<f64>,
    kernel: Kernel,
    interrupt: &dyn Interrupt,
) -> Result<Array2<f64>> {
    check_cols(&x, &landmarks, "X", "components_")?;
    check_finite(&x, "X")?;
    check_finite(&landmarks, "components_")?;
    check_finite(&normalization, "normalization_")?;
    let (n, d, c) = (x.nrows(), x.ncols(), landmarks.nrows());
    if c == 0 {
        return invalid!("components_ must have at least one landmark row");
    }
    if normalization.ncols() != c {
        return invalid!("normalization_ has {} columns but there are {c} landmarks", normalization.ncols());
    }
    let k = normalization.nrows();
    let xs = contiguous(&x);
    let zs = contiguous(&landmarks);
    let ns = contiguous(&normalization);
    let xn = if kernel.needs_norms() { row_sq_norms(&xs, n, d) } else { Vec::new() };
    let zn = if kernel.needs_norms() { row_sq_norms(&zs, c, d) } else { vec![0.0; c] };
    let zt = row_major(&zs, c, d).transpose();
    let nt = row_major(&ns, k, c).transpose();
    let mut out = alloc::try_zeroed_rows(n, k, "the Nystroem features (rows x n_components)")?;
    par_row_chunks(&mut out, k, interrupt, |ci, chunk| {
        let r0 = ci * CHUNK_ROWS;
        let rows = chunk.len() / k;
        let xc = row_major(&xs[r0 * d..(r0 + rows) * d], rows, d);
        let mut kb = vec![0.0; rows * c];
        matmul(row_major_mut(&mut kb, rows, c), Accum::Replace, xc, zt, 1.0, Par::Seq);
        let xnc = if kernel.needs_norms() { &xn[r0..r0 + rows] } else { &[][..] };
        kernel.finish(&mut kb, xnc, &zn);
        matmul(row_major_mut(chunk, rows, k), Accum::Replace, row_major(&kb, rows, c), nt, 1.0, Par::Seq);
    })?;
    Array2::from_shape_vec((n, k), out).map_err(|e| Error::InvalidInput(format!("internal shape error: {e}")))
}
