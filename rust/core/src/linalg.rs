//! The small dense helpers every kernel shares, each with a fixed order of operations (so a
//! result is the same for any number of threads and wherever it is computed):
//!
//! - [`dot`], [`norm`]: `Σ_i a_i b_i` summed left to right (one accumulator);
//! - [`dot4`], [`sq_norm_axpy4`]: the same sums over four interleaved accumulators `acc[i % 4]`
//!   (vectorisable), combined as `(acc0 + acc1) + (acc2 + acc3)`, then the `len % 4` tail
//!   left to right. Greedy RankRLS in memory and on query shards use these, so both compute
//!   every per-query sum in the same order;
//! - [`all_finite`]: whether every value of a slice is finite, in one vectorised pass;
//! - [`sq_norm_axpy`]: `||p + g z||²` left to right; [`axpy`]: `y += α x`; [`inf_norm`];
//! - [`solve_small`]: a small `b x b` system by Gaussian elimination with partial pivoting;
//!   [`solve_spd_small`] by Cholesky when it is symmetric positive definite;
//! - [`mat_vec`], [`mat_t_vec`]: `X v` and `Xᵀ c` for rows grouped by query, parallel over
//!   queries, `Xᵀ c` summed in query order; [`split_by_offsets`].
//!
//! Two reduction orders give different last bits: a kernel keeps the one it was validated
//! with (changing it changes its results).

use ndarray::{ArrayView1, ArrayView2, Axis};
use rayon::prelude::*;

/// `Σ_i a_i b_i`, summed left to right.
#[inline(always)]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `||a||₂ = sqrt(dot(a, a))`.
#[inline(always)]
pub fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// `max_i |v_i|` (0 for an empty `v`).
#[inline]
pub fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// `Σ_i a_i b_i` with four accumulators (module docs: the lane order of [`dot4`]).
#[inline(always)]
pub fn dot4(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (ca, ra) = a.split_at(a.len() - a.len() % 4);
    let (cb, rb) = b.split_at(ca.len());
    for (x, y) in ca.chunks_exact(4).zip(cb.chunks_exact(4)) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// `[dot4(z, c_f)]` for `K` columns at once (each `c_f` as long as `z`): the same lanes and
/// order as [`dot4`] per column, so the same bits; `K` independent chains side by side.
#[inline(always)]
pub fn dot4_many<const K: usize>(z: &[f64], c: [&[f64]; K]) -> [f64; K] {
    let n4 = z.len() - z.len() % 4;
    let mut acc = [[0.0f64; 4]; K];
    let mut j = 0;
    while j < n4 {
        for f in 0..K {
            for l in 0..4 {
                acc[f][l] += z[j + l] * c[f][j + l];
            }
        }
        j += 4;
    }
    let mut s: [f64; K] = std::array::from_fn(|f| (acc[f][0] + acc[f][1]) + (acc[f][2] + acc[f][3]));
    for (f, sf) in s.iter_mut().enumerate() {
        for r in n4..z.len() {
            *sf += z[r] * c[f][r];
        }
    }
    s
}

/// `||p + g z||²` in the lane order of [`dot4`].
#[inline(always)]
pub fn sq_norm_axpy4(p: &[f64], g: f64, z: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let n4 = p.len() - p.len() % 4;
    for (pv, zv) in p[..n4].chunks_exact(4).zip(z[..n4].chunks_exact(4)) {
        for l in 0..4 {
            let r = pv[l] + g * zv[l];
            acc[l] += r * r;
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (pv, zv) in p[n4..].iter().zip(&z[n4..]) {
        let r = pv + g * zv;
        s += r * r;
    }
    s
}

/// `||p + g z||²`, summed left to right.
#[inline(always)]
pub fn sq_norm_axpy(p: &[f64], g: f64, z: &[f64]) -> f64 {
    let mut s = 0.0;
    for (pv, zv) in p.iter().zip(z) {
        let r = pv + g * zv;
        s += r * r;
    }
    s
}

/// `y_i += alpha x_i`.
#[inline(always)]
pub fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    y.iter_mut().zip(x).for_each(|(yi, xi)| *yi += alpha * xi);
}

/// Splits `buf` into one mutable chunk per query (`offsets`, length `n_queries + 1`).
pub fn split_by_offsets<'b, T>(mut buf: &'b mut [T], offsets: &[usize]) -> Vec<&'b mut [T]> {
    let mut out = Vec::with_capacity(offsets.len().saturating_sub(1));
    for w in offsets.windows(2) {
        let (head, tail) = std::mem::take(&mut buf).split_at_mut(w[1] - w[0]);
        out.push(head);
        buf = tail;
    }
    out
}

/// `X v` for grouped `X` (m x n), in parallel over queries.
pub fn mat_vec(x: ArrayView2<f64>, v: &[f64], offsets: &[usize]) -> Vec<f64> {
    let mut out = vec![0.0; x.nrows()];
    let v = ArrayView1::from(v);
    split_by_offsets(&mut out, offsets).into_par_iter().enumerate().for_each(|(q, chunk)| {
        let rows = x.slice(ndarray::s![offsets[q]..offsets[q + 1], ..]);
        for (o, r) in chunk.iter_mut().zip(rows.axis_iter(Axis(0))) {
            *o = r.dot(&v);
        }
    });
    out
}

/// `X^T c = sum_q X_q^T c_q` into `out`: per-query terms in parallel, summed in query order
/// (queries whose `c_q` is all zero are skipped).
pub fn mat_t_vec(x: ArrayView2<f64>, c: &[f64], offsets: &[usize], out: &mut [f64]) {
    let parts: Vec<Option<ndarray::Array1<f64>>> = offsets
        .par_windows(2)
        .map(|w| {
            let cq = &c[w[0]..w[1]];
            if cq.iter().all(|&v| v == 0.0) {
                return None;
            }
            let rows = x.slice(ndarray::s![w[0]..w[1], ..]);
            Some(rows.t().dot(&ArrayView1::from(cq)))
        })
        .collect();
    out.iter_mut().for_each(|o| *o = 0.0);
    for p in parts.into_iter().flatten() {
        for (o, v) in out.iter_mut().zip(p.iter()) {
            *o += v;
        }
    }
}

/// Solves `a x = rhs` in place for `nrhs` right-hand sides (`a` row-major `b x b`, `rhs`
/// row-major `b x nrhs`), Gaussian elimination with partial pivoting, for small `b` (a
/// feature group's size).
pub fn solve_small(a: &mut [f64], b: usize, rhs: &mut [f64], nrhs: usize) {
    for k in 0..b {
        let piv = (k..b).fold(k, |best, i| if a[i * b + k].abs() > a[best * b + k].abs() { i } else { best });
        if piv != k {
            for j in 0..b {
                a.swap(k * b + j, piv * b + j);
            }
            for j in 0..nrhs {
                rhs.swap(k * nrhs + j, piv * nrhs + j);
            }
        }
        let d = a[k * b + k];
        for i in k + 1..b {
            let f = a[i * b + k] / d;
            if f != 0.0 {
                for j in k..b {
                    a[i * b + j] -= f * a[k * b + j];
                }
                for j in 0..nrhs {
                    rhs[i * nrhs + j] -= f * rhs[k * nrhs + j];
                }
            }
        }
    }
    for k in (0..b).rev() {
        let d = a[k * b + k];
        for j in 0..nrhs {
            let mut s = rhs[k * nrhs + j];
            for l in k + 1..b {
                s -= a[k * b + l] * rhs[l * nrhs + j];
            }
            rhs[k * nrhs + j] = s / d;
        }
    }
}

/// Solves `a x = rhs` in place (`a` row-major `b x b` symmetric, `rhs` row-major
/// `b x nrhs`) by Cholesky, `a = L L^T` (`L` left in the lower triangle). Returns `false`,
/// with `a` and `rhs` spoilt, when a pivot is not positive (`a` not positive definite to
/// rounding): the caller then uses [`solve_small`] on the original system.
#[inline]
pub fn solve_spd_small(a: &mut [f64], b: usize, rhs: &mut [f64], nrhs: usize) -> bool {
    for j in 0..b {
        let (done, rest) = a.split_at_mut(j * b);
        let row = &mut rest[..b];
        for k in 0..j {
            let lk = &done[k * b..k * b + k];
            row[k] = (row[k] - dot(&row[..k], lk)) / done[k * b + k];
        }
        let d = row[j] - dot(&row[..j], &row[..j]);
        if d.is_nan() || d <= 0.0 {
            return false;
        }
        row[j] = d.sqrt();
    }
    if nrhs == 1 {
        // L z = rhs, then L^T x = z (one right-hand side: plain loops)
        for i in 0..b {
            rhs[i] = (rhs[i] - dot(&a[i * b..i * b + i], &rhs[..i])) / a[i * b + i];
        }
        for i in (0..b).rev() {
            let xi = rhs[i] / a[i * b + i];
            rhs[i] = xi;
            for (r, l) in rhs[..i].iter_mut().zip(&a[i * b..i * b + i]) {
                *r -= l * xi;
            }
        }
        return true;
    }
    // L z = rhs, then L^T x = z, row by row (each row of `rhs` is contiguous)
    for i in 0..b {
        let (done, rest) = rhs.split_at_mut(i * nrhs);
        let row = &mut rest[..nrhs];
        for (k, rk) in done.chunks_exact(nrhs.max(1)).enumerate().take(i) {
            axpy(-a[i * b + k], rk, row);
        }
        row.iter_mut().for_each(|v| *v /= a[i * b + i]);
    }
    for i in (0..b).rev() {
        let (before, rest) = rhs.split_at_mut(i * nrhs);
        let row = &mut rest[..nrhs];
        row.iter_mut().for_each(|v| *v /= a[i * b + i]);
        for (k, rk) in before.chunks_exact_mut(nrhs.max(1)).enumerate() {
            axpy(-a[i * b + k], row, rk);
        }
    }
    true
}

/// Whether every value is finite: `v * 0` is `±0` for a finite `v` and NaN otherwise, summed
/// in 8 independent lanes (one pass the compiler vectorises, no early exit).
pub fn all_finite(s: &[f64]) -> bool {
    let mut acc = [0.0f64; 8];
    let chunks = s.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a += v * 0.0;
        }
    }
    acc.iter().all(|a| *a == 0.0) && tail.iter().all(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_in_their_documented_order() {
        let a: Vec<f64> = (0..11).map(|i| 0.1 * i as f64 - 0.37).collect();
        let b: Vec<f64> = (0..11).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let seq = a.iter().zip(&b).fold(0.0, |s, (x, y)| s + x * y);
        assert_eq!(dot(&a, &b).to_bits(), seq.to_bits());
        let mut acc = [0.0; 4];
        for i in 0..8 {
            acc[i % 4] += a[i] * b[i];
        }
        let lanes = (8..11).fold((acc[0] + acc[1]) + (acc[2] + acc[3]), |s, i| s + a[i] * b[i]);
        assert_eq!(dot4(&a, &b).to_bits(), lanes.to_bits());
        let r: Vec<f64> = a.iter().zip(&b).map(|(p, z)| p + 0.5 * z).collect();
        assert_eq!(sq_norm_axpy4(&a, 0.5, &b).to_bits(), dot4(&r, &r).to_bits());
        assert_eq!(sq_norm_axpy(&a, 0.5, &b).to_bits(), r.iter().fold(0.0, |s, v| s + v * v).to_bits());
        assert_eq!(inf_norm(&a), a[10].abs());
        let mut y = b.clone();
        axpy(-2.0, &a, &mut y);
        assert!(y.iter().zip(a.iter().zip(&b)).all(|(v, (x, w))| *v == w - 2.0 * x));
    }

    /// `a x = rhs` by Cholesky equals Gaussian elimination on an SPD system (1 and 3
    /// right-hand sides), and a matrix that is not positive definite is refused.
    #[test]
    fn small_solves_agree() {
        let b = 6;
        let g: Vec<f64> = (0..b * b).map(|t| ((t * 7 + 3) % 11) as f64 / 11.0 - 0.4).collect();
        let spd: Vec<f64> = (0..b * b)
            .map(|t| {
                (0..b).map(|l| g[t / b * b + l] * g[t % b * b + l]).sum::<f64>()
                    + if t / b == t % b { 0.5 } else { 0.0 }
            })
            .collect();
        for nrhs in [1, 3] {
            let rhs: Vec<f64> = (0..b * nrhs).map(|t| (t as f64).sin()).collect();
            let (mut x1, mut x2) = (rhs.clone(), rhs.clone());
            assert!(solve_spd_small(&mut spd.clone(), b, &mut x1, nrhs));
            solve_small(&mut spd.clone(), b, &mut x2, nrhs);
            for (p, q) in x1.iter().zip(&x2) {
                assert!((p - q).abs() <= 1e-12 * (1.0 + q.abs()), "{p} vs {q}");
            }
            for i in 0..b {
                for c in 0..nrhs {
                    let ax: f64 = (0..b).map(|k| spd[i * b + k] * x1[k * nrhs + c]).sum();
                    assert!((ax - rhs[i * nrhs + c]).abs() <= 1e-12);
                }
            }
        }
        let mut indefinite = vec![1.0, 2.0, 2.0, 1.0];
        assert!(!solve_spd_small(&mut indefinite, 2, &mut [1.0, 1.0], 1));
    }

    #[test]
    fn grouped_products() {
        let x = ndarray::Array2::from_shape_fn((5, 2), |(i, j)| (i * 2 + j) as f64);
        let offsets = [0, 2, 2, 5];
        assert_eq!(mat_vec(x.view(), &[1.0, -1.0], &offsets), vec![-1.0; 5]);
        let mut out = [0.0; 2];
        mat_t_vec(x.view(), &[1.0, 0.0, 0.0, 0.0, 2.0], &offsets, &mut out);
        assert_eq!(out, [16.0, 19.0]);
        let mut buf = [1, 2, 3, 4, 5];
        let parts = split_by_offsets(&mut buf, &offsets);
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), vec![2, 0, 3]);
    }
}
