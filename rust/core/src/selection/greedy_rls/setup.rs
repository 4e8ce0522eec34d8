//! The greedy set-up's kernels on a block of rows ([`super::GreedyState::with_units`],
//! [`super::GreedyState::reset`]): the rows transposed feature-major and centred per query, and
//! the block's share of the Gram matrix `Xc^T Xc` (its lower triangle).

use std::mem::MaybeUninit;

use faer::{Accum, Mat, MatRef, Par};
use ndarray::ArrayView2;

use crate::data::groups::center_exact;

/// `gram += a a^T` (`a`: n x len) on the lower triangle, which the set-up keeps (the upper one
/// may be left as it was): faer's lower-triangular product, half the multiply-adds, where faer
/// computes the full product with the same private-gemm kernels (the bits of the full product,
/// entry by entry: `tests::lower_gram_has_the_full_products_bits`); faer's full product
/// elsewhere (its small-size and single-column paths, and CPUs without AVX2 and FMA).
pub(super) fn gram_lower_add(gram: &mut Mat<f64>, a: MatRef<'_, f64>) {
    use faer::linalg::matmul::triangular::{matmul, BlockStructure};
    if same_kernels_lower_and_full(a.nrows(), a.ncols()) {
        let full = BlockStructure::Rectangular;
        matmul(gram.as_mut(), BlockStructure::TriangularLower, Accum::Add, a, full, a.transpose(), full, 1.0, Par::Seq);
    } else {
        faer::linalg::matmul::matmul(gram.as_mut(), Accum::Add, a, a.transpose(), 1.0, Par::Seq);
    }
}

/// Whether faer (0.24) sends both the full product `a a^T` of an `n x len` block and its
/// lower-triangular form to private-gemm's kernels: on x86-64 with AVX-512 or AVX2 and FMA,
/// with more than one row and one column in every factor and more than `16^3` multiply-adds
/// (below that the full product takes nano-gemm, a column `matvec` or a rank-one update).
fn same_kernels_lower_and_full(n: usize, len: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let simd = std::arch::is_x86_feature_detected!("avx512f")
            || (std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"));
        simd && n >= 2 && len >= 2 && n.saturating_mul(n).saturating_mul(len) > 16 * 16 * 16
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (n, len);
        false
    }
}

/// Per-thread buffers of [`transpose_centred`]: each column's running sum over a query's rows
/// and whether a value differs from the query's first.
#[derive(Default)]
pub(super) struct Centring {
    sum: Vec<f64>,
    differs: Vec<u64>,
}

/// Rows `r0..r0 + len` of `x`, centred per query (`local`: each query's rows from `r0`), into
/// `out` feature-major (column `i` at `out[i * len..]`): each column the bits of
/// [`center_exact`] on it (the query's sum left to right from `-0.0`, as `Iterator::sum`, the
/// mean `sum / n_q`, the differences; a query whose values are all equal exactly 0), but for
/// row-major `x` the sums and comparisons of all columns run side by side along each row
/// (vectorised) instead of one column's dependent chain at a time. `nonzero[i]` is set when a
/// value of column `i` is non-zero.
pub(super) fn transpose_centred<'o>(
    x: ArrayView2<f64>,
    r0: usize,
    len: usize,
    local: &[(usize, usize)],
    out: &'o mut [MaybeUninit<f64>],
    nonzero: &mut [bool],
    work: &mut Centring,
) -> &'o mut [f64] {
    let n = x.ncols();
    let out = &mut out[..n * len];
    let block = x.slice(ndarray::s![r0..r0 + len, ..]);
    let Some(v) = block.as_slice() else {
        out.iter_mut().for_each(|o| {
            o.write(0.0);
        });
        // SAFETY: every value was written just above.
        let out = unsafe { &mut *(out as *mut [MaybeUninit<f64>] as *mut [f64]) };
        transpose_rows(x, r0, len, out);
        for (i, nz) in nonzero.iter_mut().enumerate() {
            *nz |= center_exact(&mut out[i * len..(i + 1) * len], local);
        }
        return out;
    };
    work.sum.resize(n, 0.0);
    work.differs.resize(n, 0);
    let (sum, differs) = (&mut work.sum[..n], &mut work.differs[..n]);
    crate::simd::dispatch(
        #[inline(always)]
        || {
            for &(s, e) in local {
                if s == e {
                    continue;
                }
                sum.fill(-0.0);
                differs.fill(0);
                let rows = &v[s * n..e * n];
                let first = &rows[..n];
                for row in rows.chunks_exact(n) {
                    for (((a, d), &xv), &f) in sum.iter_mut().zip(differs.iter_mut()).zip(row).zip(first) {
                        *a += xv;
                        *d |= u64::from(xv != f);
                    }
                }
                let count = (e - s) as f64;
                for (i, nz) in nonzero.iter_mut().enumerate() {
                    let col = &mut out[i * len + s..i * len + e];
                    if differs[i] == 0 {
                        col.iter_mut().for_each(|o| {
                            o.write(0.0);
                        });
                        continue;
                    }
                    let mean = sum[i] / count;
                    for (o, row) in col.iter_mut().zip(rows.chunks_exact(n)) {
                        let c = row[i] - mean;
                        o.write(c);
                        *nz |= c != 0.0;
                    }
                }
            }
        },
    );
    // SAFETY: the queries of `local` partition the rows `0..len` (whole queries of a chunk),
    // and the loop wrote rows `s..e` of every column for each query.
    unsafe { &mut *(out as *mut [MaybeUninit<f64>] as *mut [f64]) }
}

/// Rows `r0..r0 + len` of `x` into `out` feature-major (column `i` at `out[i * len..]`): for
/// row-major `x`, [`TRANSPOSE_ROWS`] rows at a time, so that each column's cache line is
/// written by consecutive rows instead of one value per row.
fn transpose_rows(x: ArrayView2<f64>, r0: usize, len: usize, out: &mut [f64]) {
    let n = x.ncols();
    let block = x.slice(ndarray::s![r0..r0 + len, ..]);
    match block.as_slice() {
        Some(v) => {
            let mut r = 0;
            while r < len {
                let e = (r + TRANSPOSE_ROWS).min(len);
                for i in 0..n {
                    for (o, rr) in out[i * len + r..i * len + e].iter_mut().zip(r..e) {
                        *o = v[rr * n + i];
                    }
                }
                r = e;
            }
        }
        None => {
            for r in 0..len {
                block.row(r).iter().enumerate().for_each(|(i, v)| out[i * len + r] = *v);
            }
        }
    }
}

/// Rows per block of [`transpose_rows`] (one cache line of a column).
const TRANSPOSE_ROWS: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;
    use ndarray::Array2;

    /// The lower triangle of [`gram_lower_add`] has the bits of faer's full product `a a^T`,
    /// summed over several blocks as the set-up sums its chunks: shapes of MQ2008's chunks, of
    /// single queries, wider than faer's kernels, and the small and thin shapes that take the
    /// full product (where the triangular one differs: 1 x 1 by one ulp).
    #[test]
    fn lower_gram_has_the_full_products_bits() {
        let mut rng = Rng(0x853C49E6748FEA9B);
        let shapes = [(46usize, 1926usize), (46, 1917), (46, 20), (46, 2), (8, 500), (8, 65), (137, 2048), (17, 15)];
        let small = [(3usize, 7usize), (1, 1), (1, 300), (46, 1), (2, 1024), (16, 16)];
        for (n, len) in shapes.into_iter().chain(small) {
            let mut full = Mat::<f64>::zeros(n, n);
            let mut lower = Mat::<f64>::zeros(n, n);
            for _ in 0..3 {
                let v: Vec<f64> = (0..n * len).map(|_| rng.next() * 3.0).collect();
                let a = MatRef::from_row_major_slice(&v, n, len);
                faer::linalg::matmul::matmul(full.as_mut(), Accum::Add, a, a.transpose(), 1.0, Par::Seq);
                gram_lower_add(&mut lower, a);
            }
            for i in 0..n {
                for j in 0..=i {
                    assert_eq!(lower[(i, j)].to_bits(), full[(i, j)].to_bits(), "n={n} len={len} ({i}, {j})");
                }
            }
        }
    }

    /// `transpose_centred` gives, column by column, the bits of `transpose_rows` followed by
    /// `center_exact`, and the same non-zero flags: row-major and strided `x`, queries of
    /// 0 to 9 rows, columns constant within some queries, `-0.0` and repeated values.
    #[test]
    fn transpose_centred_equals_center_exact() {
        let mut rng = Rng(0x2545F4914F6CDD1D);
        for n in [1usize, 3, 7, 12] {
            let sizes: Vec<usize> = (0..40).map(|q| (q * 7 + n) % 10).collect();
            let m: usize = sizes.iter().sum();
            let mut full = Array2::<f64>::zeros((m, 2 * n));
            for v in full.iter_mut() {
                *v = (rng.next() * 8.0).round() / 4.0 - 1.0; // repeated values, exact zeros
            }
            let mut r = 0;
            for (q, &s) in sizes.iter().enumerate() {
                for i in 0..s {
                    full[[r + i, q % (2 * n)]] = 1.5; // a column constant within the query
                    if q % 3 == 0 {
                        full[[r + i, (q + 1) % (2 * n)]] = -0.0;
                    }
                }
                r += s;
            }
            let contiguous = full.slice(ndarray::s![.., ..n]).to_owned();
            let strided = full.slice(ndarray::s![.., ..;2]);
            let offsets: Vec<usize> = std::iter::once(0)
                .chain(sizes.iter().scan(0, |a, &s| {
                    *a += s;
                    Some(*a)
                }))
                .collect();
            for x in [contiguous.view(), strided] {
                // rows 5.. of the data: a block that starts inside the data
                let q0 = offsets.iter().position(|&o| o >= 5).unwrap();
                let (r0, len) = (offsets[q0], m - offsets[q0]);
                let local: Vec<(usize, usize)> =
                    (q0..sizes.len()).map(|q| (offsets[q] - r0, offsets[q + 1] - r0)).collect();
                let mut want = vec![0.0; n * len];
                transpose_rows(x, r0, len, &mut want);
                let want_nz: Vec<bool> =
                    (0..n).map(|i| center_exact(&mut want[i * len..(i + 1) * len], &local)).collect();
                let mut out = vec![MaybeUninit::<f64>::uninit(); n * len];
                let mut nz = vec![false; n];
                let got = transpose_centred(x, r0, len, &local, &mut out, &mut nz, &mut Centring::default());
                let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(got), bits(&want), "n={n}, contiguous={}", x.is_standard_layout());
                assert_eq!(nz, want_nz, "n={n}");
            }
        }
    }
}
