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

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self_adjoint_evd, self_adjoint_evd_scratch, ComputeEigenvectors};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};
use ndarray::{Array2, ArrayView1, ArrayView2};
use rayon::prelude::*;

use crate::error::Result;
use crate::interrupt::{run_interruptible, Interrupt};
use crate::invalid;

/// Rows per parallel work item (fixed, so that results do not depend on the thread count).
/// Large enough that each sequential faer product amortises the packing of its right-hand
/// side (`Zᵀ`, `Nᵀ` or `Ω`, repacked on every call), small enough to keep the per-block
/// buffers modest (1024 x 2000 doubles = 16 MB at m = 2000).
const CHUNK_ROWS: usize = 1024;
/// Chunks processed between two interrupt checks.
const CHUNKS_PER_CHECK: usize = 16;
/// scikit-learn's floor on the singular values of `W` in the full-rank Nyström map.
pub const SKLEARN_SINGULAR_FLOOR: f64 = 1e-12;

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

    fn needs_norms(&self) -> bool {
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
fn row_sq_norms(x: &[f64], n: usize, d: usize) -> Vec<f64> {
    if d == 0 {
        return vec![0.0; n];
    }
    x.chunks_exact(d).map(|r| r.iter().map(|v| v * v).sum()).collect()
}

fn row_major(a: &[f64], nrows: usize, ncols: usize) -> MatRef<'_, f64> {
    MatRef::from_row_major_slice(a, nrows, ncols)
}

fn row_major_mut(a: &mut [f64], nrows: usize, ncols: usize) -> MatMut<'_, f64> {
    MatMut::from_row_major_slice_mut(a, nrows, ncols)
}

/// Owned contiguous row-major copy (or borrow) of a 2-D view.
fn contiguous<'a>(a: &'a ArrayView2<'a, f64>) -> std::borrow::Cow<'a, [f64]> {
    match a.as_slice() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(a.iter().copied().collect()),
    }
}

/// Runs `f(chunk_index, out_chunk)` over fixed-size row chunks of a row-major `n x width`
/// output in parallel, checking `interrupt` on the calling thread between batches.
fn par_row_chunks<F>(out: &mut [f64], width: usize, interrupt: &dyn Interrupt, f: F) -> Result<()>
where
    F: Fn(usize, &mut [f64]) + Sync,
{
    if width == 0 || out.is_empty() {
        return Ok(());
    }
    let chunk_len = CHUNK_ROWS * width;
    let batch_len = chunk_len * CHUNKS_PER_CHECK;
    for (b, batch) in out.chunks_mut(batch_len).enumerate() {
        interrupt.check()?;
        batch.par_chunks_mut(chunk_len).enumerate().for_each(|(i, chunk)| f(b * CHUNKS_PER_CHECK + i, chunk));
    }
    interrupt.check()
}

fn check_cols(x: &ArrayView2<f64>, z: &ArrayView2<f64>, xname: &str, zname: &str) -> Result<()> {
    if x.ncols() != z.ncols() {
        return invalid!("{xname} has {} features but {zname} has {}", x.ncols(), z.ncols());
    }
    Ok(())
}

/// Refuses NaN / infinity in an input matrix (the kernels would silently give finite nonsense,
/// e.g. RBF of infinite rows is 1).
fn check_finite(a: &ArrayView2<f64>, name: &str) -> Result<()> {
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
    let mut out = vec![0.0; n * c];
    par_row_chunks(&mut out, c, interrupt, |ci, chunk| {
        let r0 = ci * CHUNK_ROWS;
        let rows = chunk.len() / c;
        let xc = row_major(&xs[r0 * d..(r0 + rows) * d], rows, d);
        matmul(row_major_mut(chunk, rows, c), Accum::Replace, xc, zt, 1.0, Par::Seq);
        let xnc = if kernel.needs_norms() { &xn[r0..r0 + rows] } else { &[][..] };
        kernel.finish(chunk, xnc, &zn);
    })?;
    Array2::from_shape_vec((n, c), out).or_else(|e| invalid!("internal shape error: {e}"))
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

/// Eigendecomposition of a symmetric matrix (sequential, deterministic): eigenvalues in
/// nondecreasing order and the eigenvectors as the columns of `U`. faer's decomposition is
/// one call that cannot check for Ctrl-C: it runs on a helper thread while this thread polls
/// `interrupt` ([`crate::interrupt::run_interruptible`]).
fn symmetric_eigen(w: &Array2<f64>, interrupt: &dyn Interrupt) -> Result<(Vec<f64>, Mat<f64>)> {
    let c = w.nrows();
    let a = Mat::<f64>::from_fn(c, c, |i, j| w[[i, j]]);
    run_interruptible(interrupt, "eigendecomposition", move || {
        let mut s = Diag::<f64>::zeros(c);
        let mut u = Mat::<f64>::zeros(c, c);
        let par = Par::Seq;
        let mut mem =
            MemBuffer::new(self_adjoint_evd_scratch::<f64>(c, ComputeEigenvectors::Yes, par, Default::default()));
        self_adjoint_evd(a.as_ref(), s.as_mut(), Some(u.as_mut()), par, MemStack::new(&mut mem), Default::default())
            .map(|_| ((0..c).map(|i| s[i]).collect::<Vec<f64>>(), u))
            .map_err(|e| format!("{e:?}"))
    })?
    .or_else(|e| invalid!("eigendecomposition of the landmark kernel matrix failed: {e}"))
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
            let us = Mat::<f64>::from_fn(c, c, |i, j| u[(i, j)] * scale[j]);
            let mut n = vec![0.0; c * c];
            matmul(row_major_mut(&mut n, c, c), Accum::Replace, us.as_ref(), u.transpose(), 1.0, Par::Seq);
            // Symmetrise exactly.
            for i in 0..c {
                for j in 0..i {
                    let v = 0.5 * (n[i * c + j] + n[j * c + i]);
                    n[i * c + j] = v;
                    n[j * c + i] = v;
                }
            }
            Array2::from_shape_vec((c, c), n).or_else(|e| invalid!("internal shape error: {e}"))
        }
        Some(k) => {
            let top = vals.last().copied().unwrap_or(0.0).max(0.0);
            let tol = top * c as f64 * f64::EPSILON;
            let mut n = Array2::<f64>::zeros((k, c));
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
    let mut out = vec![0.0; n * k];
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
    Array2::from_shape_vec((n, k), out).or_else(|e| invalid!("internal shape error: {e}"))
}

/// Random Fourier features `z(X) = sqrt(2/D) cos(X Ω + b)` (eq. 21), shape `(n, D)`;
/// `weights` is Ω (d x D), `offset` is b (D).
pub fn random_fourier_transform(
    x: ArrayView2<f64>,
    weights: ArrayView2<f64>,
    offset: ArrayView1<f64>,
    interrupt: &dyn Interrupt,
) -> Result<Array2<f64>> {
    let (n, d) = (x.nrows(), x.ncols());
    if weights.nrows() != d {
        return invalid!("X has {d} features but random_weights_ has {} rows", weights.nrows());
    }
    let m = weights.ncols();
    if offset.len() != m {
        return invalid!("random_offset_ has {} entries but random_weights_ has {m} columns", offset.len());
    }
    check_finite(&x, "X")?;
    check_finite(&weights, "random_weights_")?;
    if let Some(j) = offset.iter().position(|v| !v.is_finite()) {
        return invalid!("random_offset_ contains NaN or infinity (entry {j})");
    }
    let xs = contiguous(&x);
    let ws = contiguous(&weights);
    let b: Vec<f64> = offset.iter().copied().collect();
    let wm = row_major(&ws, d, m);
    let scale = (2.0 / m as f64).sqrt();
    let mut out = vec![0.0; n * m];
    par_row_chunks(&mut out, m, interrupt, |ci, chunk| {
        let r0 = ci * CHUNK_ROWS;
        let rows = chunk.len() / m;
        let xc = row_major(&xs[r0 * d..(r0 + rows) * d], rows, d);
        matmul(row_major_mut(chunk, rows, m), Accum::Replace, xc, wm, 1.0, Par::Seq);
        for row in chunk.chunks_exact_mut(m) {
            fastmath::cos_shift_scale_in_place(row, &b, scale);
        }
    })?;
    Array2::from_shape_vec((n, m), out).or_else(|e| invalid!("internal shape error: {e}"))
}

/// Vectorisable `exp` and `cos` for the element-wise passes of the maps.
///
/// `f64::exp` / `f64::cos` call libm one element at a time, which made those passes
/// dominate (numpy, used by scikit-learn, has SIMD versions). These are branch-free
/// (Cody-Waite range reduction + polynomial, the fdlibm coefficients for sin/cos), so the
/// compiler vectorises the loops; they are compiled twice, for the baseline target and with
/// AVX2+FMA enabled (picked at run time). Only IEEE `+ - * /` are used (no fused
/// multiply-add), so both versions give bit-identical results. Accuracy: a few ulp
/// (checked against libm in the tests). Elements outside the reduced range (non-finite,
/// `exp` arguments below -708 or above 0, `cos` arguments beyond ±1e5) fall back to libm.
#[allow(clippy::excessive_precision)] // fdlibm constants, kept as published
mod fastmath {
    const MAGIC: f64 = 6755399441055744.0; // 1.5 * 2^52: adding it rounds to an integer
    const COS_LIMIT: f64 = 1.0e5; // |n| < 2^17: the 3-term Cody-Waite reduction is exact enough

    /// exp(x) for x in [-708, 0] (anything else: libm).
    #[inline(always)]
    fn exp_kernel(x: f64) -> f64 {
        const LOG2E: f64 = std::f64::consts::LOG2_E;
        const LN2_HI: f64 = 6.93147180369123816490e-01;
        const LN2_LO: f64 = 1.90821492927058770002e-10;
        let t = x * LOG2E + MAGIC;
        let n = t - MAGIC;
        let k = (t.to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
        let r = (x - n * LN2_HI) - n * LN2_LO; // |r| <= ln2/2
                                               // Taylor polynomial of degree 13 on |r| <= 0.347 (truncation < 1e-17 relative).
        let mut p = 1.0 / 6227020800.0;
        p = p * r + 1.0 / 479001600.0;
        p = p * r + 1.0 / 39916800.0;
        p = p * r + 1.0 / 3628800.0;
        p = p * r + 1.0 / 362880.0;
        p = p * r + 1.0 / 40320.0;
        p = p * r + 1.0 / 5040.0;
        p = p * r + 1.0 / 720.0;
        p = p * r + 1.0 / 120.0;
        p = p * r + 1.0 / 24.0;
        p = p * r + 1.0 / 6.0;
        p = p * r + 0.5;
        p = p * r + 1.0;
        p = p * r + 1.0;
        let scale = f64::from_bits((k.wrapping_add(1023) as u64) << 52);
        p * scale
    }

    /// cos(x) for |x| < COS_LIMIT.
    #[inline(always)]
    fn cos_kernel(x: f64) -> f64 {
        const FRAC_2_PI: f64 = std::f64::consts::FRAC_2_PI;
        const PIO2_1: f64 = 1.57079632673412561417e+00;
        const PIO2_2: f64 = 6.07710050630396597660e-11;
        const PIO2_3: f64 = 2.02226624871116645580e-21;
        let t = x * FRAC_2_PI + MAGIC;
        let n = t - MAGIC;
        let q = t.to_bits() & 3; // n mod 4
        let r = ((x - n * PIO2_1) - n * PIO2_2) - n * PIO2_3; // |r| <= pi/4
        let z = r * r;
        let c = {
            let p = z
                * (4.16666666666666019037e-02
                    + z * (-1.38888888888741095749e-03
                        + z * (2.48015872894767294178e-05
                            + z * (-2.75573143513906633035e-07
                                + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
            let hz = 0.5 * z;
            let w = 1.0 - hz;
            w + (((1.0 - w) - hz) + z * p)
        };
        let s = {
            let p = 8.33333333332248946124e-03
                + z * (-1.98412698298579493134e-04
                    + z * (2.75573137070700676789e-06
                        + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)));
            r + z * r * (-1.66666666666666324348e-01 + z * p)
        };
        // cos(n pi/2 + r) = cos r, -sin r, -cos r, sin r for n mod 4 = 0, 1, 2, 3.
        let odd = (q & 1).wrapping_neg();
        let v = (c.to_bits() & !odd) | (s.to_bits() & odd);
        f64::from_bits(v ^ (((q + 1) & 2) << 62))
    }

    #[inline(always)]
    fn exp_body(v: &mut [f64]) {
        for x in v.iter_mut() {
            *x = exp_kernel(*x);
        }
    }

    #[inline(always)]
    fn cos_body(v: &mut [f64], b: &[f64], scale: f64) {
        for (x, &bj) in v.iter_mut().zip(b) {
            *x = cos_kernel(*x + bj) * scale;
        }
    }

    #[cfg(target_arch = "x86_64")]
    mod avx2 {
        #[target_feature(enable = "avx2,fma")]
        pub(super) unsafe fn exp_body(v: &mut [f64]) {
            super::exp_body(v)
        }
        #[target_feature(enable = "avx2,fma")]
        pub(super) unsafe fn cos_body(v: &mut [f64], b: &[f64], scale: f64) {
            super::cos_body(v, b, scale)
        }
    }

    fn has_avx2() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// `v[i] = exp(v[i])`.
    pub(super) fn exp_in_place(v: &mut [f64]) {
        if !v.iter().all(|&x| (-708.0..=0.0).contains(&x)) {
            v.iter_mut().for_each(|x| *x = x.exp());
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU supports the enabled features (checked at run time).
            unsafe { avx2::exp_body(v) };
            return;
        }
        exp_body(v)
    }

    /// `v[i] = cos(v[i] + b[i]) * scale`.
    pub(super) fn cos_shift_scale_in_place(v: &mut [f64], b: &[f64], scale: f64) {
        if !v.iter().zip(b).all(|(&x, &bj)| (x + bj).abs() < COS_LIMIT) {
            v.iter_mut().zip(b).for_each(|(x, &bj)| *x = (*x + bj).cos() * scale);
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU supports the enabled features (checked at run time).
            unsafe { avx2::cos_body(v, b, scale) };
            return;
        }
        cos_body(v, b, scale)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn exp_matches_libm() {
            let mut worst = 0.0f64;
            for i in 0..200_001 {
                let x = -708.0 * i as f64 / 200_000.0;
                let (got, want) = (exp_kernel(x), x.exp());
                worst = worst.max(((got - want) / want).abs());
            }
            assert!(worst < 1e-15, "{worst}");
            let mut v = vec![-1.0, 0.0, -700.0, 1.0, -800.0, f64::NAN];
            exp_in_place(&mut v);
            assert_eq!(v[3], 1f64.exp());
            assert_eq!(v[4], 0.0);
            assert!(v[5].is_nan());
        }

        #[test]
        fn cos_matches_libm() {
            let mut worst = 0.0f64;
            for i in -200_000..=200_000 {
                let x = i as f64 * 0.4567891;
                worst = worst.max((cos_kernel(x) - x.cos()).abs());
            }
            assert!(worst < 1e-15, "{worst}");
            let n = 37;
            let b: Vec<f64> = (0..n).map(|j| j as f64 * 0.3).collect();
            let mut v: Vec<f64> = (0..n).map(|j| j as f64 * -1.7).collect();
            let want: Vec<f64> = v.iter().zip(&b).map(|(x, y)| (x + y).cos() * 0.5).collect();
            cos_shift_scale_in_place(&mut v, &b, 0.5);
            for (g, w) in v.iter().zip(&want) {
                assert!((g - w).abs() < 1e-15);
            }
            let mut big = vec![1e6, 0.0];
            cos_shift_scale_in_place(&mut big, &[0.0, 0.0], 1.0);
            assert_eq!(big[0], 1e6f64.cos());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoInterrupt;
    use ndarray::{array, Array1};

    fn lcg(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    fn mat(n: usize, d: usize, seed: u64) -> Array2<f64> {
        Array2::from_shape_vec((n, d), lcg(n * d, seed)).unwrap()
    }

    fn naive(x: &Array2<f64>, z: &Array2<f64>, k: Kernel) -> Array2<f64> {
        Array2::from_shape_fn((x.nrows(), z.nrows()), |(i, j)| {
            let xi = x.row(i);
            let zj = z.row(j);
            let dot: f64 = xi.iter().zip(zj.iter()).map(|(a, b)| a * b).sum();
            match k {
                Kernel::Rbf { gamma } => {
                    let d2: f64 = xi.iter().zip(zj.iter()).map(|(a, b)| (a - b) * (a - b)).sum();
                    (-gamma * d2).exp()
                }
                Kernel::Linear => dot,
                Kernel::Polynomial { gamma, coef0, degree } => (gamma * dot + coef0).powf(degree),
                Kernel::Sigmoid { gamma, coef0 } => (gamma * dot + coef0).tanh(),
            }
        })
    }

    #[test]
    fn kernel_block_matches_naive() {
        let x = mat(300, 7, 1);
        let z = mat(13, 7, 2);
        for k in [
            Kernel::Rbf { gamma: 0.3 },
            Kernel::Linear,
            Kernel::Polynomial { gamma: 0.5, coef0: 1.0, degree: 3.0 },
            Kernel::Sigmoid { gamma: 0.2, coef0: 0.1 },
        ] {
            let got = kernel_block(x.view(), z.view(), k, &NoInterrupt).unwrap();
            let want = naive(&x, &z, k);
            let err = (&got - &want).iter().fold(0.0f64, |a, v| a.max(v.abs()));
            assert!(err < 1e-12, "{k:?}: {err}");
        }
    }

    #[test]
    fn nystroem_full_rank_reproduces_kernel_on_landmarks() {
        // With all points as landmarks and a well-conditioned W, φ(X)φ(X)ᵀ = K.
        let x = mat(20, 3, 3);
        let k = Kernel::Rbf { gamma: 2.0 };
        let n = nystroem_normalization(x.view(), k, None, &crate::NoInterrupt).unwrap();
        let z = nystroem_transform(x.view(), x.view(), n.view(), k, &NoInterrupt).unwrap();
        let approx = z.dot(&z.t());
        let exact = naive(&x, &x, k);
        let err = (&approx - &exact).iter().fold(0.0f64, |a, v| a.max(v.abs()));
        assert!(err < 1e-8, "{err}");
    }

    #[test]
    fn nystroem_rank_k_is_best_rank_k_pseudo_inverse() {
        let x = mat(30, 4, 4);
        let k = Kernel::Rbf { gamma: 0.7 };
        let nk = nystroem_normalization(x.view(), k, Some(5), &crate::NoInterrupt).unwrap();
        assert_eq!(nk.dim(), (5, 30));
        // Rows are orthogonal with squared norms 1/σ_i (decreasing σ => increasing norms).
        let g = nk.dot(&nk.t());
        let norms: Vec<f64> = (0..5).map(|i| g[[i, i]]).collect();
        for w in norms.windows(2) {
            assert!(w[0] <= w[1] * (1.0 + 1e-12));
        }
        for i in 0..5 {
            for j in 0..5 {
                if i != j {
                    assert!(g[[i, j]].abs() < 1e-8 * norms[4]);
                }
            }
        }
        // W N_kᵀ N_k W = W_k (rank-k approximation): its trace is the sum of the top-5 eigenvalues.
        let w = kernel_gram(x.view(), k).unwrap();
        let wk = w.dot(&nk.t()).dot(&nk).dot(&w);
        let tr: f64 = (0..30).map(|i| wk[[i, i]]).sum();
        let tr_sum_inv: f64 = norms.iter().map(|v| 1.0 / v).sum();
        assert!((tr - tr_sum_inv).abs() < 1e-8 * tr);
    }

    #[test]
    fn rff_matches_naive_and_is_thread_independent() {
        // 2500 rows: several row chunks, so the 1-thread and default pools split differently.
        let x = mat(2500, 5, 5);
        let w = mat(5, 17, 6);
        let b = Array1::from(lcg(17, 7));
        let z = random_fourier_transform(x.view(), w.view(), b.view(), &NoInterrupt).unwrap();
        let p = x.dot(&w);
        let s = (2.0f64 / 17.0).sqrt();
        let want = Array2::from_shape_fn((2500, 17), |(i, j)| (p[[i, j]] + b[j]).cos() * s);
        let err = (&z - &want).iter().fold(0.0f64, |a, v| a.max(v.abs()));
        assert!(err < 1e-12);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let z1 = pool.install(|| random_fourier_transform(x.view(), w.view(), b.view(), &NoInterrupt)).unwrap();
        assert_eq!(z, z1);
    }

    #[test]
    fn nystroem_transform_is_thread_independent() {
        let x = mat(2500, 6, 21);
        let z = mat(40, 6, 22);
        let k = Kernel::Rbf { gamma: 0.4 };
        let n = nystroem_normalization(z.view(), k, None, &crate::NoInterrupt).unwrap();
        let run = || nystroem_transform(x.view(), z.view(), n.view(), k, &NoInterrupt).unwrap();
        let many = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert_eq!(many.install(run), one.install(run));
        let kb = kernel_block(x.view(), z.view(), k, &NoInterrupt).unwrap();
        let want = naive(&x, &z, k);
        let err = (&kb - &want).iter().fold(0.0f64, |a, v| a.max(v.abs()));
        assert!(err < 1e-12, "{err}");
    }

    #[test]
    fn bad_inputs_are_errors() {
        let x = mat(4, 3, 8);
        let z = mat(4, 2, 9);
        assert!(kernel_block(x.view(), z.view(), Kernel::Linear, &NoInterrupt).is_err());
        assert!(nystroem_normalization(x.view(), Kernel::Linear, Some(0), &crate::NoInterrupt).is_err());
        assert!(nystroem_normalization(x.view(), Kernel::Linear, Some(5), &crate::NoInterrupt).is_err());
        assert!(Kernel::from_name("rbf", -1.0, 0.0, 3.0).is_err());
        assert!(Kernel::from_name("laplace", 1.0, 0.0, 3.0).is_err());
        let w = mat(2, 3, 10);
        let b = array![0.0, 1.0, 2.0];
        assert!(random_fourier_transform(x.view(), w.view(), b.view(), &NoInterrupt).is_err());
        let stop = || true;
        assert!(matches!(
            random_fourier_transform(x.view(), mat(3, 3, 11).view(), b.view(), &stop),
            Err(crate::Error::Interrupted)
        ));
    }
}
