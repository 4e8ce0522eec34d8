//! The bitset scheme for short queries. Per query and feature, two bitsets over the
//! `n0 = n_q (n_q - 1) / 2` document pairs `p(i, j)` (`i < j`, row-major over the strict
//! upper triangle): `untied` has `x_j != x_i`, `gt` has `x_j > x_i`. For two features `a`,
//! `b` the pairs untied in both are `U = popcount(untied_a & untied_b)` and the discordant
//! ones `D = popcount(untied_a & untied_b & (gt_a ^ gt_b))`, so `C = U - D`: a feature pair
//! costs `O(n0 / 64)` word operations.
//!
//! [`BitBatch`] holds the bitsets of a batch of queries (built in parallel over queries);
//! [`BitBatch::add_row`] adds, for one feature `a`, every pair `(a, b)`, `b >= a`, of every
//! query of the batch to running sums in query order (rows run in parallel, so the sums do
//! not depend on the number of threads). Both are compiled twice, with and without AVX2.

use std::ops::Range;

use ndarray::{ArrayView2, Axis};

use super::{choose2, PairCounts, Variant};
use crate::groups::QueryOffsets;

/// Words per bitset over the `choose2(n)` pairs of a query of length `n`.
#[inline]
pub(super) fn pair_words(n: usize) -> usize {
    (choose2(n) as usize).div_ceil(64)
}

/// Appends bit strings to two zeroed word slices in step (the `untied` and `gt` bitsets
/// of one column), low bits first.
struct BitWriter<'a> {
    untied: &'a mut [u64],
    gt: &'a mut [u64],
    acc_u: u64,
    acc_g: u64,
    fill: u32,
    pos: usize,
}

impl<'a> BitWriter<'a> {
    fn new(untied: &'a mut [u64], gt: &'a mut [u64]) -> Self {
        BitWriter { untied, gt, acc_u: 0, acc_g: 0, fill: 0, pos: 0 }
    }

    /// Appends the low `len` bits of `u` and `g` (`1 <= len <= 64`, higher bits zero).
    #[inline(always)]
    fn push(&mut self, u: u64, g: u64, len: u32) {
        self.acc_u |= u << self.fill;
        self.acc_g |= g << self.fill;
        let total = self.fill + len;
        if total >= 64 {
            self.untied[self.pos] = self.acc_u;
            self.gt[self.pos] = self.acc_g;
            self.pos += 1;
            let used = 64 - self.fill;
            (self.acc_u, self.acc_g) = if used == 64 { (0, 0) } else { (u >> used, g >> used) };
            self.fill = total - 64;
        } else {
            self.fill = total;
        }
    }

    fn finish(self) {
        if self.fill > 0 {
            self.untied[self.pos] = self.acc_u;
            self.gt[self.pos] = self.acc_g;
        }
    }
}

/// Scalar bitsets of the column `col[..n]` (`untied`, `gt`: `pair_words(n)` words each).
#[inline(always)]
fn build_column_scalar(col: &[f64], n: usize, untied: &mut [u64], gt: &mut [u64]) {
    let mut wr = BitWriter::new(untied, gt);
    let col = &col[..n];
    for i in 0..n.saturating_sub(1) {
        let xi = col[i];
        for chunk in col[i + 1..].chunks(64) {
            let (mut u, mut g) = (0u64, 0u64);
            for (t, &xj) in chunk.iter().enumerate() {
                g |= ((xj > xi) as u64) << t;
                u |= ((xj != xi) as u64) << t;
            }
            wr.push(u, g, chunk.len() as u32);
        }
    }
    wr.finish();
}

/// The same bitsets with 4-wide AVX comparisons (`movemask` gives 4 pair bits at once);
/// `col` holds at least `n + 3` values (padding: the last group of a row is masked).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn build_column_avx2(col: &[f64], n: usize, untied: &mut [u64], gt: &mut [u64]) {
    use std::arch::x86_64::*;
    assert!(col.len() >= n + 3);
    let mut wr = BitWriter::new(untied, gt);
    let p = col.as_ptr();
    for i in 0..n.saturating_sub(1) {
        let vi = _mm256_set1_pd(col[i]);
        let mut j = i + 1;
        let (mut u, mut g, mut len) = (0u64, 0u64, 0u32);
        while j < n {
            // SAFETY: j + 3 < n + 3 <= col.len().
            let v = _mm256_loadu_pd(p.add(j));
            let mut mg = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_GT_OQ>(v, vi)) as u64;
            let mut mu = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_NEQ_OQ>(v, vi)) as u64;
            let take = if j + 4 <= n {
                4
            } else {
                let t = (n - j) as u32;
                mg &= (1 << t) - 1;
                mu &= (1 << t) - 1;
                t
            };
            g |= mg << len;
            u |= mu << len;
            len += take;
            j += 4;
            if len > 60 {
                wr.push(u, g, len);
                (u, g, len) = (0, 0, 0);
            }
        }
        if len > 0 {
            wr.push(u, g, len);
        }
    }
    wr.finish();
}

/// Padding after each column of [`build_column`]'s input.
const PAD: usize = 3;

/// Bitsets of the column `col[..n]` (`col.len() >= n + PAD`), with AVX2 when `avx2`.
fn build_column(col: &[f64], n: usize, untied: &mut [u64], gt: &mut [u64], avx2: bool) {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the CPU supports avx2 and popcnt (checked by the caller with `has_avx2`).
        return unsafe { build_column_avx2(col, n, untied, gt) };
    }
    let _ = avx2;
    build_column_scalar(col, n, untied, gt)
}

/// Whether the CPU has AVX2 and POPCNT.
pub(super) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Pairs untied in `a` and `b` (`U`) and discordant pairs (`D`) over `w` words.
#[inline(always)]
fn pair_bits(ua: &[u64], ga: &[u64], ub: &[u64], gb: &[u64], w: usize) -> (u64, u64) {
    let (ua, ga, ub, gb) = (&ua[..w], &ga[..w], &ub[..w], &gb[..w]);
    let (mut both, mut disc) = (0u64, 0u64);
    for k in 0..w {
        let u = ua[k] & ub[k];
        both += u.count_ones() as u64;
        disc += (u & (ga[k] ^ gb[k])).count_ones() as u64;
    }
    (both, disc)
}

/// `popcount(ga ^ gb)` over `w` words: `D` of two features without ties in the query.
#[inline(always)]
fn xor_bits(ga: &[u64], gb: &[u64], w: usize) -> u64 {
    let (ga, gb) = (&ga[..w], &gb[..w]);
    let mut d = 0u64;
    for k in 0..w {
        d += (ga[k] ^ gb[k]).count_ones() as u64;
    }
    d
}

/// The bitsets of a batch of short queries, feature-major per query.
pub(super) struct BitBatch {
    nf: usize,
    /// Per query: first word of its bitsets, words per feature, `n0`.
    queries: Vec<(usize, usize, u64)>,
    untied: Vec<u64>,
    gt: Vec<u64>,
    /// Pairs untied in each feature, `queries.len() x nf`.
    n_untied: Vec<u64>,
    /// `1 / sqrt(untied)` (tau-b's normalisation), same shape.
    inv_sqrt_untied: Vec<f64>,
}

/// Scratch of [`BitBatch::add_row`]: `U` and `D` of one row of one query.
#[derive(Default)]
pub(super) struct RowScratch {
    both: Vec<u64>,
    disc: Vec<u64>,
}

impl BitBatch {
    /// Bitsets of the queries `batch` (each with `2 <= n_q`) of the grouped `x`, built in
    /// parallel over queries.
    pub(super) fn build(x: ArrayView2<f64>, offsets: &QueryOffsets, batch: &[usize], avx2: bool) -> Self {
        use rayon::prelude::*;
        let nf = x.ncols();
        let mut queries = Vec::with_capacity(batch.len());
        let mut total = 0usize;
        for &q in batch {
            let n = offsets[q + 1] - offsets[q];
            let w = pair_words(n);
            queries.push((total, w, choose2(n)));
            total += w * nf;
        }
        let mut untied = vec![0u64; total];
        let mut gt = vec![0u64; total];
        let mut n_untied = vec![0u64; batch.len() * nf];
        // Disjoint per-query slices, filled in parallel.
        let mut parts = Vec::with_capacity(batch.len());
        let (mut ru, mut rg) = (&mut untied[..], &mut gt[..]);
        for (&(_, w, _), nu) in queries.iter().zip(n_untied.chunks_mut(nf)) {
            let (u, tu) = std::mem::take(&mut ru).split_at_mut(w * nf);
            let (g, tg) = std::mem::take(&mut rg).split_at_mut(w * nf);
            parts.push((u, g, nu));
            ru = tu;
            rg = tg;
        }
        parts.into_par_iter().zip(batch.par_iter()).for_each_init(Vec::new, |cols, ((u, g, nu), &q)| {
            // The query's columns, feature-major, each followed by PAD zeros.
            let rows = x.slice_axis(Axis(0), (offsets[q]..offsets[q + 1]).into());
            let n = rows.nrows();
            let stride = n + PAD;
            super::fill_columns(rows, PAD, cols);
            let w = u.len() / nf;
            for f in 0..nf {
                let col = &cols[f * stride..(f + 1) * stride];
                if col[..n].iter().all(|&v| v == col[0]) {
                    nu[f] = 0; // constant in this query: every pair tied (the bitsets stay zero)
                    continue;
                }
                let (uf, gf) = (&mut u[f * w..(f + 1) * w], &mut g[f * w..(f + 1) * w]);
                build_column(col, n, uf, gf, avx2);
                nu[f] = uf.iter().map(|v| v.count_ones() as u64).sum();
            }
        });
        let inv_sqrt_untied = n_untied.iter().map(|&u| super::inv_sqrt(u)).collect();
        BitBatch { nf, queries, untied, gt, n_untied, inv_sqrt_untied }
    }

    /// Consecutive ranges of the batch's queries whose bitsets take at most `bytes` each
    /// (at least one query per range): a block is read by all rows while it is in cache.
    pub(super) fn blocks(&self, bytes: usize) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let (mut lo, mut size) = (0usize, 0usize);
        for (k, &(_, w, _)) in self.queries.iter().enumerate() {
            let b = 16 * w * self.nf;
            if k > lo && size + b > bytes {
                out.push(lo..k);
                lo = k;
                size = 0;
            }
            size += b;
        }
        if lo < self.queries.len() {
            out.push(lo..self.queries.len());
        }
        out
    }

    /// Exact [`PairCounts`] of every pair of `pairs` in query `k` of the batch.
    pub(super) fn counts(&self, k: usize, pairs: &[(u32, u32)]) -> Vec<PairCounts> {
        let (start, w, n0) = self.queries[k];
        let nf = self.nf;
        let nu = &self.n_untied[k * nf..(k + 1) * nf];
        let bits = |f: usize| {
            let r = start + f * w..start + (f + 1) * w;
            (&self.untied[r.clone()], &self.gt[r])
        };
        pairs
            .iter()
            .map(|&(a, b)| {
                let (a, b) = (a as usize, b as usize);
                let ((ua, ga), (ub, gb)) = (bits(a), bits(b));
                let (both, discordant) = pair_bits(ua, ga, ub, gb, w);
                PairCounts { pairs: n0, ties_a: n0 - nu[a], ties_b: n0 - nu[b], ties_ab: both + n0 - nu[a] - nu[b], discordant }
            })
            .collect()
    }

    /// Adds, for feature `a` and every `b >= a`, the per-query statistic of the queries
    /// `block` of the batch, in query order, to `row` (`width` values per `b`: tau-b, or Geng's
    /// `C / n0` and `D / n0`). The values equal [`PairCounts::tau_b`],
    /// [`PairCounts::geng`] and [`PairCounts::geng_negated`] bit for bit; a query where `a`
    /// or `b` is constant adds nothing (its values are +0).
    pub(super) fn add_row(&self, a: usize, block: Range<usize>, variant: Variant, row: &mut [f64], s: &mut RowScratch, avx2: bool) {
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the CPU supports avx2 and popcnt (checked by the caller with `has_avx2`).
            return unsafe { self.add_row_avx2(a, block, variant, row, s) };
        }
        let _ = avx2;
        self.add_row_impl(a, block, variant, row, s)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn add_row_avx2(&self, a: usize, block: Range<usize>, variant: Variant, row: &mut [f64], s: &mut RowScratch) {
        self.add_row_impl(a, block, variant, row, s)
    }

    #[inline(always)]
    fn add_row_impl(&self, a: usize, block: Range<usize>, variant: Variant, row: &mut [f64], s: &mut RowScratch) {
        let nf = self.nf;
        s.both.resize(nf, 0);
        s.disc.resize(nf, 0);
        for k in block {
            let (start, w, n0) = self.queries[k];
            let nu = &self.n_untied[k * nf..(k + 1) * nf];
            if nu[a] == 0 {
                continue; // a is constant in this query: every value is +0
            }
            let u = &self.untied[start..start + nf * w];
            let g = &self.gt[start..start + nf * w];
            // The word count as a constant for the common short lengths (loops unrolled).
            match w {
                1 => count_row(u, g, nu, a, n0, 1, &mut s.both, &mut s.disc),
                2 => count_row(u, g, nu, a, n0, 2, &mut s.both, &mut s.disc),
                3 => count_row(u, g, nu, a, n0, 3, &mut s.both, &mut s.disc),
                4 => count_row(u, g, nu, a, n0, 4, &mut s.both, &mut s.disc),
                5 => count_row(u, g, nu, a, n0, 5, &mut s.both, &mut s.disc),
                6 => count_row(u, g, nu, a, n0, 6, &mut s.both, &mut s.disc),
                7 => count_row(u, g, nu, a, n0, 7, &mut s.both, &mut s.disc),
                8 => count_row(u, g, nu, a, n0, 8, &mut s.both, &mut s.disc),
                _ => count_row(u, g, nu, a, n0, w, &mut s.both, &mut s.disc),
            }
            match variant {
                Variant::TauB => {
                    let inv = &self.inv_sqrt_untied[k * nf..(k + 1) * nf];
                    let ia = inv[a];
                    for b in a..nf {
                        // C - D with C = U - D; a constant b has U = D = 0 (and adds +0).
                        let (both, disc) = (s.both[b], s.disc[b]);
                        row[b] += super::tau_b_value(both, disc, nu[a], nu[b], ia, inv[b]);
                    }
                }
                Variant::Geng => {
                    let inv_n0 = 1.0 / n0 as f64;
                    for b in a..nf {
                        let (both, disc) = (s.both[b], s.disc[b]);
                        row[2 * b] += (both - disc) as f64 * inv_n0;
                        row[2 * b + 1] += disc as f64 * inv_n0;
                    }
                }
            }
        }
    }
}

/// `U` and `D` of features `a` and `b >= a` of one query over `w` words per feature
/// (`u`, `g`: the query's bitsets, feature-major); a constant `b` gets `U = D = 0`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn count_row(u: &[u64], g: &[u64], nu: &[u64], a: usize, n0: u64, w: usize, both: &mut [u64], disc: &mut [u64]) {
    let nf = nu.len();
    let (ua, ga) = (&u[a * w..(a + 1) * w], &g[a * w..(a + 1) * w]);
    let a_untied = nu[a] == n0;
    for b in a..nf {
        let (ub, gb) = (&u[b * w..(b + 1) * w], &g[b * w..(b + 1) * w]);
        let (bo, di) = if nu[b] == 0 {
            (0, 0)
        } else if a_untied && nu[b] == n0 {
            (n0, xor_bits(ga, gb, w))
        } else {
            pair_bits(ua, ga, ub, gb, w)
        };
        both[b] = bo;
        disc[b] = di;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_packs_bits_across_words() {
        let (mut out, mut other) = (vec![0u64; 3], vec![0u64; 3]);
        let mut w = BitWriter::new(&mut out, &mut other);
        w.push(0b101, 0, 3);
        w.push(u64::MAX, 0, 64);
        w.push(0b1, 0, 1);
        w.push(0, 0, 60);
        w.push(0b11, 0, 2);
        w.finish();
        assert_eq!(other, vec![0; 3]);
        assert_eq!(out[0], 0b101 | (u64::MAX << 3));
        assert_eq!(out[1], 0b111 | (1 << 3));
        assert_eq!(out[2], 0b11);
    }

    #[test]
    fn avx2_and_scalar_bitsets_agree() {
        for n in [0usize, 1, 2, 3, 5, 8, 9, 17, 63, 64, 65, 70, 130] {
            let mut col: Vec<f64> = (0..n).map(|i| ((i * 7919) % 13) as f64 - if i % 5 == 0 { 0.0 } else { 6.0 }).collect();
            col.extend([1.0, -1.0, 7.0]);
            let w = pair_words(n);
            let (mut u1, mut g1, mut u2, mut g2) = (vec![0; w], vec![0; w], vec![0; w], vec![0; w]);
            build_column(&col, n, &mut u1, &mut g1, false);
            build_column(&col, n, &mut u2, &mut g2, has_avx2());
            assert_eq!((&u1, &g1), (&u2, &g2), "n = {n}");
            let mut p = 0;
            for i in 0..n {
                for j in i + 1..n {
                    assert_eq!(u1[p / 64] >> (p % 64) & 1 == 1, col[j] != col[i]);
                    assert_eq!(g1[p / 64] >> (p % 64) & 1 == 1, col[j] > col[i]);
                    p += 1;
                }
            }
        }
    }
}
