//! Kernel approximation maps for RankSVM with kernel approximation (Chen et al. 2017, §3.2).
//!
//! * Kernel blocks `K[i, j] = k(x_i, z_j)` computed from one matrix product `X Zᵀ`:
//!   RBF `exp(-γ ||x - z||²)` with `||x - z||² = ||x||² + ||z||² - 2 x·z` clamped at 0,
//!   linear `x·z`, polynomial `(γ x·z + c₀)^d`, sigmoid `tanh(γ x·z + c₀)`.
//! * Nyström (eq. 16-18, Alg. 1): landmarks `x̂₁..x̂_c`, `W = [k(x̂_i, x̂_j)]` (c x c),
//!   `W = U Σ Uᵀ`; the map is `φ(x) = N [k(x, x̂₁), ..., k(x, x̂_c)]ᵀ` with
//!   - full rank (scikit-learn's convention): `N = U sign(Σ) max(|Σ|, 1e-12)^{-1/2} Uᵀ`
//!     (c x c, the SVD-based `W^{-1/2}` of `sklearn.kernel_approximation.Nystroem`);
//!   - rank k (eq. 17-18): `N = Σ_k^{-1/2} U_kᵀ` (k x c) over the k largest eigenvalues, so
//!     `φ(x)ᵀφ(z) = k(x)ᵀ W_k⁺ k(z)`; eigenvalues `<= c·ε·σ₁` are dropped (their row is 0,
//!     the pseudo-inverse convention).
//! * Random Fourier features (eq. 21, Alg. 2): `z(x) = sqrt(2/D) cos(Ωᵀx + b)` with
//!   `Ω` (d x D) and `b` (D), drawn by the caller.
//!
//! All maps run over fixed-size row chunks in parallel (rayon); each chunk is computed by
//! the same sequential code whatever the thread count, so results are bit-identical for
//! any number of threads. The eigendecomposition runs sequentially for the same reason.
//! The element-wise `exp` (RBF) and `cos` (random features) passes use the vectorised
//! `fastmath` routines below (a few ulp from libm).
//!
//! Modules: `nystroem`, `rff` (random Fourier features), `fastmath` (the vectorised
//! `exp` and `cos`).

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::linalg::dot;

pub use self::nystroem::{nystroem_normalization, nystroem_transform, SKLEARN_SINGULAR_FLOOR};
pub use self::rff::random_fourier_transform;

mod fastmath;
#[cfg(test)]
pub(crate) use fastmath::{cos_body, exp_body};
mod nystroem;
mod rff;
#[cfg(test)]
mod tests;

/// Rows per parallel work item (fixed, so that results do not depend on the thread count).
/// Large enough that each sequential faer product amortises the packing of its right-hand
/// side (`Zᵀ`, `Nᵀ` or `Ω`, repacked on every call), small enough to keep the per-block
/// buffers modest (1024 x 2000 doubles = 16 MB at m = 2000).
pub(super) const CHUNK_ROWS: usize = 1024;
/// Chunks processed between two interrupt checks.
const CHUNKS_PER_CHECK: usize = 16;

/// A positive (semi-)definite kernel evaluated from inner products / squared distances.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kernel {
    /// `exp(-gamma ||x - z||²)`
    Rbf { gamma: f64 },
    /// `x·z`
    Linear,
    /// `(gamma x·z + coef0)^degree`
    Polynomial { gamma: f64, coef0: f64, degree: f64 },
    /// `tanh(gamma x·z + coef0)` (not positive definite in general)
    Sigmoid { gamma: f64, coef0: f64 },
}

impl Kernel {
    /// Builds a kernel from its scikit-learn name and parameters, validating them.
    pub fn from_name(name: &str, gamma: f64, coef0: f64, degree: f64) -> Result<Self> {
        let finite = |v: f64, what: &str| -> Result<()> {
            if v.is_finite() {
                Ok(())
            } else {
                invalid!("{what} must be finite, got {v}")
            }
        };
        match name {
            "rbf" => {
                finite(gamma, "gamma")?;
                if gamma <= 0.0 {
                    return invalid!("gamma must be > 0 for the rbf kernel, got {gamma}");
                }
                Ok(Kernel::Rbf { gamma })
            }
            "linear" => Ok(Kernel::Linear),
            "poly" | "polynomial" => {
                finite(gamma, "gamma")?;
                finite(coef0, "coef0")?;
                finite(degree, "degree")?;
                if degree < 0.0 {
                    return invalid!("degree must be >= 0, got {degree}");
                }
                Ok(Kernel::Polynomial { gamma, coef0, degree })
            }
            "sigmoid" => {
                finite(gamma, "gamma")?;
                finite(coef0, "coef0")?;
                Ok(Kernel::Sigmoid { gamma, coef0 })
            }
            other => invalid!("kernel must be one of 'rbf', 'linear', 'poly', 'sigmoid', got {other:?}"),
        }
    }

    pub(super) fn needs_norms(&self) -> bool {
        matches!(self, Kernel::Rbf { .. })
    }

    /// Turns the block `G = X Zᵀ` (row-major, `nrows x zn.len()`) into the kernel block;
    /// `xn`, `zn` are the squared row norms (used by RBF only).
    fn finish(&self, g: &mut [f64], xn: &[f64], zn: &[f64]) {
        let c = zn.len();
        match *self {
            Kernel::Rbf { gamma } => {
                for (row, &xi) in g.chunks_exact_mut(c).zip(xn) {
                    for (v, &zj) in row.iter_mut().zip(zn) {
                        let d2 = (xi + zj - 2.0 * *v).max(0.0);
                        *v = -gamma * d2;
                    }
                    fastmath::exp_in_place(row);
                }
            }
            Kernel::Linear => {}
            Kernel::Polynomial { gamma, coef0, degree } => {
                for v in g.iter_mut() {
                    *v = (gamma * *v + coef0).powf(degree);
                }
            }
            Kernel::Sigmoid { gamma, coef0 } => {
                for v in g.iter_mut() {
                    *v = (gamma * *v + coef0).tanh();
                }
            }
        }
    }
}

/// Squared Euclidean norm of every row of a row-major `n x d` slice.
pub(super) fn row_sq_norms(x: &[f64], n: usize, d: usize) -> Vec<f64> {
    if d == 0 {
        return vec![0.0; n];
    }
    x.chunks_exact(d).map(|r| dot(r, r)).collect()
}

pub(super) fn row_major(a: &[f64], nrows: usize, ncols: usize) -> MatRef<'_, f64> {
    MatRef::from_row_major_slice(a, nrows, ncols)
}

pub(super) fn row_major_mut(a: &mut [f64], nrows: usize, ncols: usize) -> MatMut<'_, f64> {
    MatMut::from_row_major_slice_mut(a, nrows, ncols)
}

/// Owned contiguous row-major copy (or borrow) of a 2-D view.
pub(super) fn contiguous<'a>(a: &'a ArrayView2<'a, f64>) -> std::borrow::Cow<'a, [f64]> {
    match a.as_slice() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(a.iter().copied().collect()), // a strided view: rare
    }
}

/// Runs `f(chunk_index, out_chunk)` over fixed-size row chunks of a row-major `n x width`
/// output in parallel, checking `interrupt` on the calling thread between batches.
pub(super) fn par_row_chunks<F>(out: &mut [f64], width: usize, interrupt: &dyn Interrupt, f: F) -> Result<()>
where
    F: Fn(usize, &mut [f64]) + Sync,
{
    if width == 0 || out.is_empty() {
        return Ok(());
    }
    crate::alloc::reserve_gemm_workspaces()?; // each chunk's product runs on a pool thread
    let chunk_len = CHUNK_ROWS * width;
    let batch_len = chunk_len * CHUNKS_PER_CHECK;
    for (b, batch) in out.chunks_mut(batch_len).enumerate() {
        interrupt.check()?;
        batch.par_chunks_mut(chunk_len).enumerate().for_each(|(i, chunk)| f(b * CHUNKS_PER_CHECK + i, chunk));
    }
    interrupt.check()
}

pub(super) fn check_cols(x: &ArrayView2<f64>, z: &ArrayView2<f64>, xname: &str, zname: &str) -> Result<()> {
    if x.ncols() != z.ncols() {
        return invalid!("{xname} has {} features but {zname} has {}", x.ncols(), z.ncols());
    }
    Ok(())
}

/// Refuses NaN / infinity in an input matrix (the kernels would silently give finite nonsense,
/// e.g. RBF of infinite rows is 1).
pub(super) fn check_finite(a: &ArrayView2<f64>, name: &str) -> Result<()> {
    match a.indexed_iter().find(|(_, v)| !v.is_finite()) {
        Some(((i, j), v)) => invalid!("{name} contains NaN or infinity (row {i}, column {j}: {v})"),
        None => Ok(()),
    }
}

/// Kernel block `K[i, j] = k(x_i, z_j)`, shape `(n, c)`.
pub fn kernel_block(
    x: ArrayView2<f64>,
    z: ArrayView2<f64>,
    kernel: Kernel,
    interrupt: &dyn Interrupt,
) -> Result<Array2<f64>> {
    check_cols(&x, &z, "X", "Y")?;
    check_finite(&x, "X")?;
    check_finite(&z, "Y")?;
    let (n, d, c) = (x.nrows(), x.ncols(), z.nrows());
    let xs = contiguous(&x);
    let zs = contiguous(&z);
    let xn = if kernel.needs_norms() { row_sq_norms(&xs, n, d) } else { Vec::new() };
    let zn = if kernel.needs_norms() { row_sq_norms(&zs, c, d) } else { vec![0.0; c] };
    let zt = row_major(&zs, c, d).transpose();
    let mut out = crate::alloc::try_zeroed_rows(n, c, "the kernel matrix (rows of X x rows of Y)")?;
    par_row_chunks(&mut out, c, interrupt, |ci, chunk| {
        let r0 = ci * CHUNK_ROWS;
        let rows = chunk.len() / c;
        let xc = row_major(&xs[r0 * d..(r0 + rows) * d], rows, d);
        matmul(row_major_mut(chunk, rows, c), Accum::Replace, xc, zt, 1.0, Par::Seq);
        let xnc = if kernel.needs_norms() { &xn[r0..r0 + rows] } else { &[][..] };
        kernel.finish(chunk, xnc, &zn);
    })?;
    Array2::from_shape_vec((n, c), out).map_err(|e| Error::InvalidInput(format!("internal shape error: {e}")))
}

/// Symmetric Gram matrix `W[i, j] = k(z_i, z_j)` (c x c); for RBF the diagonal distance
/// is exactly 0, as in scikit-learn's `euclidean_distances(Z, Z)`.
pub fn kernel_gram(z: ArrayView2<f64>, kernel: Kernel) -> Result<Array2<f64>> {
    let mut w = kernel_block(z, z, kernel, &crate::NoInterrupt)?;
    let c = w.nrows();
    if let Kernel::Rbf { .. } = kernel {
        for i in 0..c {
            w[[i, i]] = 1.0;
        }
    }
    // Exact symmetry (the product X Zᵀ may differ by rounding in the two triangles).
    for i in 0..c {
        for j in 0..i {
            let v = w[[i, j]];
            w[[j, i]] = v;
        }
    }
    Ok(w)
}
