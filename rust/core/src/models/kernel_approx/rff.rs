//! Random Fourier features (Chen et al. 2017, eq. 21, Alg. 2) for the RBF kernel.

use faer::linalg::matmul::matmul;
use faer::{Accum, Par};
use ndarray::{Array2, ArrayView1, ArrayView2};

use super::{check_finite, contiguous, fastmath, par_row_chunks, row_major, row_major_mut, CHUNK_ROWS};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::invalid;

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
    let mut out = crate::alloc::try_zeroed_rows(n, m, "the random Fourier features (rows x n_components)")?;
    par_row_chunks(&mut out, m, interrupt, |ci, chunk| {
        let r0 = ci * CHUNK_ROWS;
        let rows = chunk.len() / m;
        let xc = row_major(&xs[r0 * d..(r0 + rows) * d], rows, d);
        matmul(row_major_mut(chunk, rows, m), Accum::Replace, xc, wm, 1.0, Par::Seq);
        for row in chunk.chunks_exact_mut(m) {
            fastmath::cos_shift_scale_in_place(row, &b, scale);
        }
    })?;
    Array2::from_shape_vec((n, m), out).map_err(|e| Error::InvalidInput(format!("internal shape error: {e}")))
}
