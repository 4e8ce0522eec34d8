//! The weights of an ill-conditioned prefix, solved stably from the data.
//!
//! The path's weights (eq. 5) come from a Cholesky factor of `Xc_S^T Xc_S + alpha I`
//! ([`super::path::PrimalPath`]): fast, and accurate to about `cond * eps` relative. At tiny
//! `alpha` on nearly collinear columns the condition reaches 1e12 and that loses digits (1.4e-5
//! relative at 9e11). Where the factor's pivots show a large condition, the weights of those
//! prefixes are solved again by a Householder QR of the data itself, the ridge problem
//! `min ||Xc_S w - yc||^2 + alpha ||w||^2` as the least-squares problem
//! `[Xc_S; sqrt(alpha) I] w ~ [yc; 0]`, whose error grows with `sqrt(cond)` instead. One QR of
//! the whole selection serves every prefix: the factor of the first `p` columns is the leading
//! `p x p` block of `R`, and `Q^T b`'s first `p` entries are the prefix's. Elsewhere the rows
//! keep the Cholesky solve's bits.

use faer::dyn_stack::MemStack;
use faer::linalg::qr::no_pivoting::factor::{qr_in_place, qr_in_place_scratch};
use faer::Par;
use ndarray::ArrayView2;

use super::path::{Gram, GreedyPath};
use super::units::Units;
use crate::alloc;
use crate::data::groups::{center_exact, QueryOffsets};
use crate::error::Result;

/// Lower bound of `cond(Xc_S^T Xc_S + alpha I)` (the squared ratio of the Cholesky factor's
/// largest and smallest pivots) above which a prefix's weights are solved by QR: the
/// Cholesky solve's error is then above about `1e5 * eps ~ 1e-11` relative.
pub const COND_QR: f64 = 1e5;

/// Squared ratio of the largest and smallest pivot of the Cholesky factor of
/// `Gram[cols, cols] + alpha I`, for every prefix of `cols` (nondecreasing; the path's own
/// factor, pivots floored at `alpha` as there).
pub(crate) fn prefix_conditions(gram: &dyn Gram, cols: &[usize], alpha: f64) -> Result<Vec<f64>> {
    let k = cols.len();
    let mut l = alloc::try_mat_zeros(k, k, "the Cholesky factor of the selected columns")?;
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    let mut out = Vec::with_capacity(k);
    for p in 0..k {
        for q in 0..p {
            let mut s = gram.entry(cols[p], cols[q]);
            for r in 0..q {
                s -= l[(p, r)] * l[(q, r)];
            }
            l[(p, q)] = s / l[(q, q)];
        }
        let ll: f64 = (0..p).map(|r| l[(p, r)] * l[(p, r)]).sum();
        let d = (gram.entry(cols[p], cols[p]) + alpha - ll).max(alpha).sqrt();
        l[(p, p)] = d;
        lo = lo.min(d);
        hi = hi.max(d);
        out.push((hi / lo) * (hi / lo));
    }
    Ok(out)
}

/// Solves again, by QR on the data (module docs), the rows of `path.coef_path` whose prefix
/// has a condition above [`COND_QR`]; `x`, `y`, `offsets` the run's grouped data, `units` its
/// units, `gram` its `Xc^T Xc`. Rows below the bound are left as they are, bit for bit.
pub(crate) fn stabilize_weights(
    path: &mut GreedyPath,
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    units: &Units,
    gram: &dyn Gram,
    alpha: f64,
) -> Result<()> {
    let cols = units.columns_of(&path.selected);
    let k = cols.len();
    let conds = prefix_conditions(gram, &cols, alpha)?;
    // the prefix length of every row: a row per unit step
    let ends: Vec<usize> = path
        .selected
        .iter()
        .scan(0, |acc, &u| {
            *acc += units.members(u).len();
            Some(*acc)
        })
        .collect();
    let Some(first) = ends.iter().position(|&p| conds[p - 1] > COND_QR) else {
        return Ok(());
    };
    let m = x.nrows();
    let queries: Vec<(usize, usize)> = offsets.windows(2).map(|w| (w[0], w[1])).collect();
    let mut a = alloc::try_mat_zeros(m + k, k + 1, "the stable solve's data [Xc_S, yc]")?;
    let mut col = alloc::try_zeroed_vec::<f64>(m, "a centred column")?;
    for (p, &j) in cols.iter().chain(std::iter::once(&usize::MAX)).enumerate() {
        if j == usize::MAX {
            col.copy_from_slice(y);
        } else {
            col.iter_mut().zip(x.column(j)).for_each(|(c, v)| *c = *v);
        }
        center_exact(&mut col, &queries);
        for (i, v) in col.iter().enumerate() {
            a[(i, p)] = *v;
        }
        if p < k {
            a[(m + p, p)] = alpha.sqrt();
        }
    }
    // Householder QR in place (block size 1: column after column, the same operations on
    // every host and thread count); `a`'s upper triangle becomes `R`, its last column `Q^T b`
    alloc::reserve_gemm_workspace()?;
    let mut coeff = alloc::try_mat_zeros(1, k + 1, "the QR's Householder coefficients")?;
    let req = qr_in_place_scratch::<f64>(m + k, k + 1, 1, Par::Seq, Default::default());
    let mut mem = alloc::try_workspace(req, "the stable solve's QR workspace")?;
    qr_in_place(a.as_mut(), coeff.as_mut(), Par::Seq, MemStack::new(&mut mem), Default::default());
    let r = a.as_ref();
    for (row, &p) in ends.iter().enumerate().skip(first) {
        let mut w = alloc::try_mat(p, 1, |i, _| r[(i, k)], "a prefix's weights")?;
        faer::linalg::triangular_solve::solve_upper_triangular_in_place(r.submatrix(0, 0, p, p), w.as_mut(), Par::Seq);
        let mut out = path.coef_path.row_mut(row);
        out.fill(0.0);
        for (i, &j) in cols[..p].iter().enumerate() {
            out[j] = w[(i, 0)];
        }
    }
    Ok(())
}
