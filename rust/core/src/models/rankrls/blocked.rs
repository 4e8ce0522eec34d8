//! The dense products of RankRLS over fixed row blocks reduced in order (sequential faer
//! kernels inside a block), so results are bit-identical for any number of threads, with
//! interrupt checks between waves of blocks; Cholesky factorisation and solves.

use faer::dyn_stack::MemStack;
use faer::prelude::ReborrowMut;
use faer::{Accum, Mat, MatMut, MatRef, Par};
use ndarray::{Array2, ArrayView2};

use crate::data::groups::{center_rows, center_vec};
use crate::error::{Error, Result};
use crate::interrupt::{Interrupt, NoInterrupt};

/// Rows per block in the deterministic blocked products.
pub(super) const BLOCK: usize = 2048;

/// Query-centred copies `(Xc, yc)` of grouped `x` (m x n, any layout) and `y`.
pub fn center(x: ArrayView2<f64>, y: &[f64], offsets: &[usize]) -> Result<(Array2<f64>, Vec<f64>)> {
    let mut xc = crate::alloc::try_zeros2(x.nrows(), x.ncols(), "RankRLS's query-centred copy of X")?;
    xc.assign(&x);
    center_rows(xc.view_mut(), offsets);
    let mut yc = crate::alloc::try_copy(y, "RankRLS's centred labels")?;
    center_vec(&mut yc, offsets);
    Ok((xc, yc))
}

pub(super) fn as_faer(x: &Array2<f64>) -> MatRef<'_, f64> {
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

pub(super) fn gram_waves(xc: &Array2<f64>, blocks_per_wave: usize, interrupt: &dyn Interrupt) -> Result<Mat<f64>> {
    let (m, n) = xc.dim();
    crate::alloc::reserve_gemm_workspaces()?; // the products run on the pool's threads
    let x = as_faer(xc);
    let starts: Vec<usize> = (0..m).step_by(BLOCK).collect();
    let mut g = crate::alloc::try_mat_zeros(n, n, "the Gram matrix X^T X (features x features)")?;
    for wave in starts.chunks(blocks_per_wave.max(1)) {
        interrupt.check()?;
        let parts: Vec<Result<Mat<f64>>> = crate::par::map_range(wave.len(), |i| {
            let s = wave[i];
            let e = (s + BLOCK).min(m);
            let b = x.subrows(s, e - s);
            let mut g = crate::alloc::try_mat_zeros(n, n, "a block's part of the Gram matrix")?;
            faer::linalg::matmul::matmul(g.as_mut(), Accum::Replace, b.transpose(), b, 1.0, Par::Seq);
            Ok(g)
        });
        let parts = parts.into_iter().collect::<Result<Vec<_>>>()?;
        for p in &parts {
            g += p;
        }
    }
    Ok(g)
}

/// `Xc^T v` (n), summed over fixed row blocks in order.
pub(super) fn xt_vec(xc: &Array2<f64>, v: &[f64]) -> Vec<f64> {
    let (m, n) = xc.dim();
    let s = xc.as_slice().expect("standard layout");
    let starts: Vec<usize> = (0..m).step_by(BLOCK).collect();
    let parts: Vec<Vec<f64>> = crate::par::map_range(starts.len(), |b| {
        let st = starts[b];
        let mut acc = vec![0.0; n];
        for r in st..(st + BLOCK).min(m) {
            let vr = v[r];
            for (a, &xv) in acc.iter_mut().zip(&s[r * n..(r + 1) * n]) {
                *a += xv * vr;
            }
        }
        acc
    });
    let mut out = vec![0.0; n];
    for p in &parts {
        out.iter_mut().zip(p).for_each(|(o, v)| *o += v);
    }
    out
}

/// `x @ b` for row-major `x` (m x n) and `b` (n x p), by row blocks (rows are independent).
pub(super) fn rows_times(x: &Array2<f64>, b: MatRef<'_, f64>, interrupt: &dyn Interrupt) -> Result<Array2<f64>> {
    rows_times_waves(x, b, wave_blocks(x.ncols(), b.ncols()), interrupt)
}

pub(super) fn rows_times_waves(
    x: &Array2<f64>,
    b: MatRef<'_, f64>,
    blocks_per_wave: usize,
    interrupt: &dyn Interrupt,
) -> Result<Array2<f64>> {
    let (m, n) = x.dim();
    let p = b.ncols();
    crate::alloc::reserve_gemm_workspaces()?; // the products run on the pool's threads
    let xs = x.as_slice().expect("standard layout");
    let mut out = crate::alloc::try_zeros2(m, p, "a blocked product (rows x columns)")?;
    let os = out.as_slice_mut().expect("standard layout");
    // Waves of row blocks, interrupt checked in between; each output row depends on its own
    // input row only.
    let wave_rows = blocks_per_wave.max(1) * BLOCK;
    if n == 0 || p == 0 {
        return Ok(out);
    }
    for (ow, xw) in os.chunks_mut(wave_rows * p).zip(xs.chunks(wave_rows * n)) {
        interrupt.check()?;
        let blocks: Vec<_> = ow.chunks_mut(BLOCK * p).zip(xw.chunks(BLOCK * n)).collect();
        crate::par::map_tasks(
            blocks,
            || (),
            |_, _, (o, xb)| {
                let r = xb.len() / n;
                let dst = MatMut::from_row_major_slice_mut(o, r, p);
                let lhs = MatRef::from_row_major_slice(xb, r, n);
                faer::linalg::matmul::matmul(dst, Accum::Replace, lhs, b, 1.0, Par::Seq);
            },
        );
    }
    Ok(out)
}

/// In-place Cholesky factor (lower) of an SPD matrix, sequential.
pub(super) fn cholesky(mut a: Mat<f64>, what: &str) -> Result<Mat<f64>> {
    let n = a.nrows();
    crate::alloc::reserve_gemm_workspace()?;
    let req = faer::linalg::cholesky::llt::factor::cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default());
    let mut mem = crate::alloc::try_workspace(req, "the Cholesky factorisation's workspace")?;
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
pub(super) fn chol_solve(l: MatRef<'_, f64>, mut rhs: MatMut<'_, f64>) -> Result<()> {
    crate::alloc::reserve_gemm_workspace()?;
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(l, rhs.rb_mut(), Par::Seq);
    faer::linalg::triangular_solve::solve_upper_triangular_in_place(l.transpose(), rhs, Par::Seq);
    Ok(())
}

/// Solves the SPD system `A x = b` (one right-hand side).
pub fn spd_solve(a: Mat<f64>, b: &[f64], what: &str) -> Result<Vec<f64>> {
    let l = cholesky(a, what)?;
    let mut rhs = Mat::<f64>::from_fn(b.len(), 1, |i, _| b[i]);
    chol_solve(l.as_ref(), rhs.as_mut())?;
    Ok((0..b.len()).map(|i| rhs[(i, 0)]).collect())
}

pub(super) fn with_ridge(g: &Mat<f64>, alpha: f64) -> Result<Mat<f64>> {
    let n = g.nrows();
    crate::alloc::try_mat(n, g.ncols(), |i, j| if i == j { g[(i, j)] + alpha } else { g[(i, j)] }, "G + alpha I")
}
