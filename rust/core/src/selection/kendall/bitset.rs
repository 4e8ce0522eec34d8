//! The bitset scheme for short queries. Per query and feature, two bitsets over the
//! `n0 = n_q (n_q - 1) / 2` document pairs `(i, j)`: `untied` has `x_j != x_i`, `gt` has
//! `x_j > x_i`. For two features `a`, `b` the pairs untied in both are
//! `U = popcount(untied_a & untied_b)` and the discordant ones
//! `D = popcount(untied_a & untied_b & (gt_a ^ gt_b))`, so `C = U - D`: a feature pair
//! costs `O(n0 / 64)` word operations. The order and orientation of the pairs only have to
//! be the same for every feature of a query: row-major over `i < j`, or, for the AVX2 build
//! of queries up to [`RANKED_MAX`] documents, the circular order of [`circular_diagonals`].
//!
//! [`BitBatch`] holds the bitsets of a batch of queries (built in parallel over queries);
//! [`BitBatch::add_row`] adds, for one feature `a`, every pair `(a, b)`, `b >= a`, of every
//! query of the batch to running sums in query order (rows run in parallel, so the sums do
//! not depend on the number of threads). Both are compiled twice, with and without AVX2.

use std::ops::Range;

use ndarray::{ArrayView2, Axis};

use super::{choose2, PairCounts, Variant};
use crate::data::groups::QueryOffsets;

/// Words per bitset over the `choose2(n)` pairs of a query of length `n`.
#[inline]
pub(super) fn pair_words(n: usize) -> usize {
    (choose2(n) as usize).div_ceil(64)
}

/// Appends bit strings to two word slices in step (the `untied` and `gt` bitsets of one
/// column), low bits first; word `k` goes to index `k * stride`. Every word up to the last
/// bit is written (no zeroed input needed), and the set bits of `untied` are counted.
struct BitWriter<'a> {
    untied: &'a mut [u64],
    gt: &'a mut [u64],
    stride: usize,
    acc_u: u64,
    acc_g: u64,
    fill: u32,
    pos: usize,
    n_untied: u64,
}

impl<'a> BitWriter<'a> {
    fn new(untied: &'a mut [u64], gt: &'a mut [u64], stride: usize) -> Self {
        BitWriter { untied, gt, stride, acc_u: 0, acc_g: 0, fill: 0, pos: 0, n_untied: 0 }
    }

    #[inline(always)]
    fn store(&mut self, u: u64, g: u64) {
        self.untied[self.pos * self.stride] = u;
        self.gt[self.pos * self.stride] = g;
        self.n_untied += u.count_ones() as u64;
        self.pos += 1;
    }

    /// Appends the low `len` bits of `u` and `g` (`1 <= len <= 64`, higher bits zero).
    #[inline(always)]
    fn push(&mut self, u: u64, g: u64, len: u32) {
        self.acc_u |= u << self.fill;
        self.acc_g |= g << self.fill;
        let total = self.fill + len;
        if total >= 64 {
            self.store(self.acc_u, self.acc_g);
            let used = 64 - self.fill;
            (self.acc_u, self.acc_g) = if used == 64 { (0, 0) } else { (u >> used, g >> used) };
            self.fill = total - 64;
        } else {
            self.fill = total;
        }
    }

    /// Writes the last partial word; returns the set bits of `untied`.
    fn finish(mut self) -> u64 {
        if self.fill > 0 {
            self.store(self.acc_u, self.acc_g);
        }
        self.n_untied
    }
}

/// Scalar bitsets of the column `col[..n]` (`pair_words(n)` words at stride `stride` in
/// `untied` and `gt`); returns the untied pairs.
#[inline(always)]
fn build_column_scalar(col: &[f64], n: usize, untied: &mut [u64], gt: &mut [u64], stride: usize) -> u64 {
    let mut wr = BitWriter::new(untied, gt, stride);
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
    wr.finish()
}

/// The same bitsets with 4-wide AVX comparisons (`movemask` gives 4 pair bits at once);
/// `col` holds at least `n + 3` values (padding: the last group of a row is masked).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn build_column_avx2(col: &[f64], n: usize, untied: &mut [u64], gt: &mut [u64], stride: usize) -> u64 {
    use std::arch::x86_64::*;
    assert!(col.len() >= n + 3);
    let mut wr = BitWriter::new(untied, gt, stride);
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
    wr.finish()
}

/// Longest query whose bitsets are built from ranks ([`build_column_ranked_avx2`]).
const RANKED_MAX: usize = 128;

/// The same bitsets through ranks, for `n <= RANKED_MAX` (`col.len() >= n + 3`).
///
/// 1. `r_i = #{j : x_j < x_i}`, the competition rank: equal values share it and distinct
///    values keep their order, so `x_j > x_i <=> r_j > r_i` and `x_j == x_i <=> r_j == r_i`.
///    Documents `i` sit in the lanes (4 vectors of 4) and every `x_j` is broadcast once:
///    `n^2` comparisons at 3 vector operations per 4, with no horizontal sums.
/// 2. With `r < 128` as bytes, the pairs are taken in the circular order of
///    [`circular_diagonals`]: diagonal `d` compares the ranks with themselves rotated by
///    `d`, 32 pairs per instruction, and its `n` bits are stored whole (no per-row shifts).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn build_column_ranked_avx2(col: &[f64], n: usize, untied: &mut [u64], gt: &mut [u64], stride: usize) -> u64 {
    use std::arch::x86_64::*;
    assert!(n <= RANKED_MAX && col.len() >= n + 3);
    let p = col.as_ptr();
    // Ranks, as bytes, followed by at least 31 bytes of padding for the 32-wide loads.
    let mut rank = [0i8; RANKED_MAX + 32];
    let n4 = n.div_ceil(4);
    let mut i4 = 0;
    while i4 < n4 {
        let k = (n4 - i4).min(4);
        // SAFETY: 4 * (i4 + k) <= 4 * n4 <= n + 3 <= col.len().
        let xi = [0, 1, 2, 3].map(|t| if t < k { _mm256_loadu_pd(p.add(4 * (i4 + t))) } else { _mm256_setzero_pd() });
        let mut acc = [_mm256_setzero_si256(); 4];
        for j in 0..n {
            let xj = _mm256_broadcast_sd(&*p.add(j));
            for t in 0..4 {
                // all ones (-1) where x_j < x_i
                let lt = _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_LT_OQ>(xj, xi[t]));
                acc[t] = _mm256_sub_epi64(acc[t], lt);
            }
        }
        for (t, a) in acc.iter().enumerate().take(k) {
            let mut r = [0i64; 4];
            _mm256_storeu_si256(r.as_mut_ptr() as *mut __m256i, *a);
            for (l, &v) in r.iter().enumerate() {
                rank[4 * (i4 + t) + l] = v as i8; // v < n <= 128; lanes past n are unused
            }
        }
        i4 += k;
    }
    // The ranks twice over, so that `rr[i + d] = r_{(i + d) mod n}`.
    let mut rr = [0i8; 2 * RANKED_MAX + 32];
    rr[..n].copy_from_slice(&rank[..n]);
    rr[n..2 * n].copy_from_slice(&rank[..n]);
    let rp = rr.as_ptr();
    let mut wr = BitWriter::new(untied, gt, stride);
    // Diagonal d: pairs (i, (i + d) mod n), i < len, as bit i of the masks.
    let chunk = |d: usize, c: usize| {
        // SAFETY: d + 32 * c + 32 <= n / 2 + n + 32 <= rr.len() for 32 * c < len <= n.
        let ri = _mm256_loadu_si256(rp.add(32 * c) as *const __m256i);
        let rj = _mm256_loadu_si256(rp.add(d + 32 * c) as *const __m256i);
        let g = _mm256_movemask_epi8(_mm256_cmpgt_epi8(rj, ri)) as u32 as u64;
        let e = _mm256_movemask_epi8(_mm256_cmpeq_epi8(rj, ri)) as u32 as u64;
        (g, e)
    };
    if n <= 32 {
        for (d, len) in circular_diagonals(n) {
            let keep = (1u64 << len) - 1;
            let (g, e) = chunk(d, 0);
            wr.push(!e & keep, g & keep, len as u32);
        }
    } else {
        for (d, len) in circular_diagonals(n) {
            let mut c = 0;
            let mut left = len;
            while left > 0 {
                // 64 pairs at a time: two chunks of 32.
                let (g0, e0) = chunk(d, c);
                let (g1, e1) = if left > 32 { chunk(d, c + 1) } else { (0, !0) };
                let take = left.min(64);
                let keep = if take == 64 { u64::MAX } else { (1u64 << take) - 1 };
                let (g, e) = (g0 | g1 << 32, e0 | e1 << 32);
                wr.push(!e & keep, g & keep, take as u32);
                left -= take;
                c += 2;
            }
        }
    }
    wr.finish()
}

/// The circular order of the `n (n - 1) / 2` pairs of [`build_column_ranked_avx2`]:
/// diagonals `d = 1, 2, .., floor(n / 2)` of `len` pairs `(i, (i + d) mod n)`, `i < len`,
/// with `len = n` except `len = n / 2` for `d = n / 2`, `n` even (its other half repeats the
/// same pairs). Every unordered pair appears once; a pair with `i + d >= n` is oriented
/// from the larger index, the same way for every feature, which leaves `U` and `D` as they
/// are.
fn circular_diagonals(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (1..=n / 2).map(move |d| (d, if 2 * d == n { d } else { n }))
}

/// Padding after each column of [`build_column`]'s input.
const PAD: usize = 3;

/// Bitsets of the column `col[..n]` (`col.len() >= n + PAD`), with AVX2 when `avx2`: its
/// `pair_words(n)` words at stride `stride` in `untied` and `gt`, all written; returns the
/// untied pairs.
fn build_column(col: &[f64], n: usize, untied: &mut [u64], gt: &mut [u64], stride: usize, avx2: bool) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the CPU supports avx2 and popcnt (checked by the caller with `has_avx2`).
        return unsafe {
            if n <= RANKED_MAX {
                build_column_ranked_avx2(col, n, untied, gt, stride)
            } else {
                build_column_avx2(col, n, untied, gt, stride)
            }
        };
    }
    let _ = avx2;
    build_column_scalar(col, n, untied, gt, stride)
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

/// Lanes of one vector of feature words ([`BitBatch`] pads the features to a multiple).
pub(super) const LANES: usize = 4;

/// The bitsets of a batch of short queries. Per query, word-major over the features
/// padded to `nfp` (a multiple of [`LANES`]): word `k` of feature `f` is at
/// `start + k * nfp + f`, so one vector load holds word `k` of [`LANES`] features.
/// Padding features are constant (all bits zero).
pub(super) struct BitBatch {
    nf: usize,
    nfp: usize,
    /// Per query: first word of its bitsets, words per feature, `n0`.
    queries: Vec<(usize, usize, u64)>,
    untied: Vec<u64>,
    gt: Vec<u64>,
    /// Pairs untied in each feature, `queries.len() x nfp` (0 for padding).
    n_untied: Vec<u64>,
    /// `1 / sqrt(untied)` (tau-b's normalisation), same shape.
    inv_sqrt_untied: Vec<f64>,
}

impl BitBatch {
    /// A new batch holding the bitsets of `batch` (tests; the drivers use [`BitBatch::build_in`]).
    #[cfg(test)]
    pub(super) fn build(x: ArrayView2<f64>, offsets: &QueryOffsets, batch: &[usize], avx2: bool) -> Self {
        let mut bits = Self::empty();
        bits.rebuild(x, offsets, batch, avx2);
        bits
    }

    fn empty() -> Self {
        BitBatch {
            nf: 0,
            nfp: 0,
            queries: Vec::new(),
            untied: Vec::new(),
            gt: Vec::new(),
            n_untied: Vec::new(),
            inv_sqrt_untied: Vec::new(),
        }
    }

    /// The bitsets of `batch`, built in `slot`'s buffers (allocated on first use and reused
    /// by every later batch of a run).
    pub(super) fn build_in<'a>(
        slot: &'a mut Option<Self>,
        x: ArrayView2<f64>,
        offsets: &QueryOffsets,
        batch: &[usize],
        avx2: bool,
    ) -> &'a Self {
        let bits = slot.get_or_insert_with(Self::empty);
        bits.rebuild(x, offsets, batch, avx2);
        bits
    }

    /// Bitsets of the queries `batch` (each with `2 <= n_q`) of the grouped `x`, built in
    /// parallel over queries into this batch's buffers (no fresh pages to fault in and zero
    /// for each batch of a long run).
    pub(super) fn rebuild(&mut self, x: ArrayView2<f64>, offsets: &QueryOffsets, batch: &[usize], avx2: bool) {
        use rayon::prelude::*;
        let nf = x.ncols();
        let nfp = padded_features(nf);
        let queries = &mut self.queries;
        queries.clear();
        let mut total = 0usize;
        for &q in batch {
            let n = offsets[q + 1] - offsets[q];
            let w = pair_words(n);
            queries.push((total, w, choose2(n)));
            total += w * nfp;
        }
        let (untied, gt, n_untied) = (&mut self.untied, &mut self.gt, &mut self.n_untied);
        // Every word is written below (constant and padding features with zeros), so old
        // contents may stay; a larger batch takes fresh zeroed memory (calloc: no memset).
        for v in [&mut *untied, &mut *gt] {
            if v.capacity() < total {
                *v = vec![0; total];
            } else {
                v.resize(total, 0);
            }
        }
        n_untied.clear();
        n_untied.resize(batch.len() * nfp, 0);
        // Disjoint per-query slices, filled in parallel.
        let mut parts = Vec::with_capacity(batch.len());
        let (mut ru, mut rg) = (&mut untied[..], &mut gt[..]);
        for (&(_, w, _), nu) in queries.iter().zip(n_untied.chunks_mut(nfp)) {
            let (u, tu) = std::mem::take(&mut ru).split_at_mut(w * nfp);
            let (g, tg) = std::mem::take(&mut rg).split_at_mut(w * nfp);
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
            for f in 0..nfp {
                let col = &cols[f.min(nf - 1) * stride..][..stride];
                if f >= nf || col[..n].iter().all(|&v| v == col[0]) {
                    // Padding, or constant in this query: every pair tied.
                    u[f..].iter_mut().step_by(nfp).for_each(|v| *v = 0);
                    g[f..].iter_mut().step_by(nfp).for_each(|v| *v = 0);
                    nu[f] = 0;
                    continue;
                }
                nu[f] = build_column(col, n, &mut u[f..], &mut g[f..], nfp, avx2);
            }
        });
        self.inv_sqrt_untied.clear();
        self.inv_sqrt_untied.extend(self.n_untied.iter().map(|&u| super::inv_sqrt(u)));
        (self.nf, self.nfp) = (nf, nfp);
    }

    /// Consecutive ranges of the batch's queries whose bitsets take at most `bytes` each
    /// (at least one query per range): a block is read by all rows while it is in cache.
    pub(super) fn blocks(&self, bytes: usize) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let (mut lo, mut size) = (0usize, 0usize);
        for (k, &(_, w, _)) in self.queries.iter().enumerate() {
            let b = 16 * w * self.nfp;
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
        let nfp = self.nfp;
        let nu = &self.n_untied[k * nfp..(k + 1) * nfp];
        let (u, g) = (&self.untied[start..start + w * nfp], &self.gt[start..start + w * nfp]);
        pairs
            .iter()
            .map(|&(a, b)| {
                let (a, b) = (a as usize, b as usize);
                let (mut both, mut discordant) = (0u64, 0u64);
                for kw in 0..w {
                    let (i, j) = (kw * nfp + a, kw * nfp + b);
                    let common = u[i] & u[j];
                    both += common.count_ones() as u64;
                    discordant += (common & (g[i] ^ g[j])).count_ones() as u64;
                }
                PairCounts {
                    pairs: n0,
                    ties_a: n0 - nu[a],
                    ties_b: n0 - nu[b],
                    ties_ab: both + n0 - nu[a] - nu[b],
                    discordant,
                }
            })
            .collect()
    }

    /// Values per feature `b` in a row of the running sums of [`BitBatch::add_row`].
    pub(super) fn row_len(&self, variant: Variant) -> usize {
        row_len(self.nf, variant)
    }

    /// Adds, for feature `a` and every `b >= a`, the per-query statistic of the queries
    /// `block` of the batch, in query order, to `row` (laid out by [`row_index`]: tau-b, or
    /// Geng's `C / n0` and `D / n0`). The values equal [`PairCounts::tau_b`],
    /// [`PairCounts::geng`] and [`PairCounts::geng_negated`] bit for bit; a query where `a`
    /// or `b` is constant adds nothing (its values are +0). Entries `b < a` in `a`'s
    /// first group of [`LANES`] features are written too and are never read.
    pub(super) fn add_row(&self, a: usize, block: Range<usize>, variant: Variant, row: &mut [f64], avx2: bool) {
        assert!(a < self.nf && row.len() == self.row_len(variant));
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the CPU supports avx2 and popcnt (checked by the caller with `has_avx2`).
            return unsafe { self.add_row_avx2(a, block, variant, row) };
        }
        let _ = avx2;
        self.add_row_scalar(a, block, variant, row)
    }

    /// Query `k` of the batch: `n0`, the untied pairs of each (padded) feature and their
    /// `1 / sqrt`, or `None` when feature `a` is constant in it (then every value is +0).
    #[inline(always)]
    fn query_stats(&self, k: usize, a: usize) -> Option<(u64, &[u64], &[f64])> {
        let nfp = self.nfp;
        let nu = &self.n_untied[k * nfp..(k + 1) * nfp];
        (nu[a] != 0).then(|| (self.queries[k].2, nu, &self.inv_sqrt_untied[k * nfp..(k + 1) * nfp]))
    }

    /// `U` (pairs untied in both) and `D` of `a` with the features `b0 .. b0 + LANES` in
    /// query `k` of the batch, one word at a time.
    #[inline(always)]
    fn group_counts_scalar(&self, k: usize, a: usize, b0: usize) -> ([u64; LANES], [u64; LANES]) {
        let (start, w, _) = self.queries[k];
        let nfp = self.nfp;
        let (mut both, mut disc) = ([0u64; LANES], [0u64; LANES]);
        for kw in 0..w {
            let at = start + kw * nfp;
            let (ua, ga) = (self.untied[at + a], self.gt[at + a]);
            for l in 0..LANES {
                let common = ua & self.untied[at + b0 + l];
                both[l] += common.count_ones() as u64;
                disc[l] += (common & (ga ^ self.gt[at + b0 + l])).count_ones() as u64;
            }
        }
        (both, disc)
    }

    fn add_row_scalar(&self, a: usize, block: Range<usize>, variant: Variant, row: &mut [f64]) {
        let nfp = self.nfp;
        for k in block {
            let Some((n0, nu, inv)) = self.query_stats(k, a) else { continue };
            for b0 in (a - a % LANES..nfp).step_by(LANES) {
                let (both, disc) = self.group_counts_scalar(k, a, b0);
                for l in 0..LANES.min(self.nf - b0) {
                    let b = b0 + l;
                    match variant {
                        Variant::TauB => {
                            row[row_index(self.nf, b, 0)] +=
                                super::tau_b_value(both[l], disc[l], nu[a], nu[b], inv[a], inv[b]);
                        }
                        Variant::Geng => {
                            let inv_n0 = 1.0 / n0 as f64;
                            row[row_index(self.nf, b, 0)] += (both[l] - disc[l]) as f64 * inv_n0;
                            row[row_index(self.nf, b, 1)] += disc[l] as f64 * inv_n0;
                        }
                    }
                }
            }
        }
    }

    /// [`BitBatch::add_row`] with AVX2: [`LANES`] features `b` per vector, popcounts by
    /// nibble lookup (`vpshufb`) summed per byte over up to 31 words and then per lane
    /// (`vpsadbw`), and the statistic computed in the lanes with the same operations, in
    /// the same order, as [`super::tau_b_value`] (bit-identical).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn add_row_avx2(&self, a: usize, block: Range<usize>, variant: Variant, row: &mut [f64]) {
        use std::arch::x86_64::*;
        let (nf, nfp) = (self.nf, self.nfp);
        // u64 -> f64, exact below 2^52 (counts of pairs are).
        let magic = _mm256_set1_epi64x(0x4330_0000_0000_0000);
        let to_f64 =
            |v: __m256i| _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v, magic)), _mm256_castsi256_pd(magic));
        let zero = _mm256_setzero_si256();
        let rp = row.as_mut_ptr();
        for k in block {
            let Some((n0, nu, inv)) = self.query_stats(k, a) else { continue };
            let (start, w, _) = self.queries[k];
            let (u, g) = (&self.untied[start..start + w * nfp], &self.gt[start..start + w * nfp]);
            let (nua, ia) = (_mm256_set1_epi64x(nu[a] as i64), _mm256_set1_pd(inv[a]));
            let nua_f = _mm256_set1_pd(nu[a] as f64);
            let inv_n0 = _mm256_set1_pd(1.0 / n0 as f64);
            let mut b0 = a - a % LANES;
            while b0 < nfp {
                // Up to 4 vectors of features at once, reading each word row once.
                let (counts, n_groups) = match (nfp - b0) / LANES {
                    1 => (group_counts_avx2::<1>(u, g, a, b0, w, nfp), 1),
                    2 => (group_counts_avx2::<2>(u, g, a, b0, w, nfp), 2),
                    3 => (group_counts_avx2::<3>(u, g, a, b0, w, nfp), 3),
                    _ => (group_counts_avx2::<4>(u, g, a, b0, w, nfp), 4),
                };
                for (t, &(both, disc)) in counts.iter().enumerate().take(n_groups) {
                    let b0 = b0 + t * LANES;
                    // C = U - D, exact in f64 (as the scalar `(both - disc) as f64`).
                    let conc = to_f64(_mm256_sub_epi64(both, disc));
                    let disc_f = to_f64(disc);
                    match variant {
                        Variant::TauB => {
                            let nub = _mm256_loadu_si256(nu.as_ptr().add(b0) as *const __m256i);
                            let ib = _mm256_loadu_pd(inv.as_ptr().add(b0));
                            let num = _mm256_sub_pd(conc, disc_f);
                            let scaled = _mm256_mul_pd(_mm256_mul_pd(num, ia), ib);
                            let clamped =
                                _mm256_min_pd(_mm256_max_pd(scaled, _mm256_set1_pd(-1.0)), _mm256_set1_pd(1.0));
                            // Exactly ±1 when U_a = U_b and |C - D| = U_a.
                            let abs = _mm256_andnot_pd(_mm256_set1_pd(-0.0), num);
                            let exact = _mm256_and_pd(
                                _mm256_castsi256_pd(_mm256_cmpeq_epi64(nub, nua)),
                                _mm256_cmp_pd::<_CMP_EQ_OQ>(abs, nua_f),
                            );
                            let sign = _mm256_or_pd(_mm256_and_pd(num, _mm256_set1_pd(-0.0)), _mm256_set1_pd(1.0));
                            let value = _mm256_blendv_pd(clamped, sign, exact);
                            // 0 where b is constant.
                            let value = _mm256_andnot_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(nub, zero)), value);
                            let at = rp.add(row_index(nf, b0, 0));
                            _mm256_storeu_pd(at, _mm256_add_pd(_mm256_loadu_pd(at), value));
                        }
                        Variant::Geng => {
                            let at = rp.add(row_index(nf, b0, 0));
                            _mm256_storeu_pd(at, _mm256_add_pd(_mm256_loadu_pd(at), _mm256_mul_pd(conc, inv_n0)));
                            let at = rp.add(row_index(nf, b0, 1));
                            _mm256_storeu_pd(at, _mm256_add_pd(_mm256_loadu_pd(at), _mm256_mul_pd(disc_f, inv_n0)));
                        }
                    }
                }
                b0 += n_groups * LANES;
            }
        }
    }
}

/// `U` and `D` (per lane: pairs untied in both, discordant pairs) of feature `a` with the
/// `G` vectors of features from `b0`, over the `w` word rows of one query (`u`, `g`:
/// `w x nfp`, word-major). Popcounts by nibble lookup (`vpshufb`) are summed per byte over
/// up to 31 words (at most 8 per word), then per lane (`vpsadbw`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn group_counts_avx2<const G: usize>(
    u: &[u64],
    g: &[u64],
    a: usize,
    b0: usize,
    w: usize,
    nfp: usize,
) -> [(std::arch::x86_64::__m256i, std::arch::x86_64::__m256i); 4] {
    use std::arch::x86_64::*;
    assert!(b0 + G * LANES <= nfp && u.len() == w * nfp && g.len() == w * nfp);
    let lut = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
    );
    let low = _mm256_set1_epi8(0x0f);
    let popcount_bytes = |v: __m256i| {
        let lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(v, low));
        let hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16::<4>(v), low));
        _mm256_add_epi8(lo, hi)
    };
    let zero = _mm256_setzero_si256();
    let mut out = [(zero, zero); 4];
    let (up, gp) = (u.as_ptr(), g.as_ptr());
    let mut kw = 0;
    while kw < w {
        let end = (kw + 31).min(w);
        let mut cb = [zero; G];
        let mut cd = [zero; G];
        while kw < end {
            let at = kw * nfp;
            let ua = _mm256_set1_epi64x(u[at + a] as i64);
            let ga = _mm256_set1_epi64x(g[at + a] as i64);
            for t in 0..G {
                // SAFETY: at + b0 + (t + 1) * LANES <= at + nfp <= u.len() (asserted).
                let ub = _mm256_loadu_si256(up.add(at + b0 + t * LANES) as *const __m256i);
                let gb = _mm256_loadu_si256(gp.add(at + b0 + t * LANES) as *const __m256i);
                let common = _mm256_and_si256(ua, ub);
                let d = _mm256_and_si256(common, _mm256_xor_si256(ga, gb));
                cb[t] = _mm256_add_epi8(cb[t], popcount_bytes(common));
                cd[t] = _mm256_add_epi8(cd[t], popcount_bytes(d));
            }
            kw += 1;
        }
        for t in 0..G {
            out[t].0 = _mm256_add_epi64(out[t].0, _mm256_sad_epu8(cb[t], zero));
            out[t].1 = _mm256_add_epi64(out[t].1, _mm256_sad_epu8(cd[t], zero));
        }
    }
    out
}

/// Features padded to a multiple of [`LANES`].
pub(super) fn padded_features(nf: usize) -> usize {
    nf.div_ceil(LANES) * LANES
}

/// Length of one row of the running sums of [`BitBatch::add_row`] for `nf` features:
/// one value per padded feature for tau-b, two (`C / n0`, then `D / n0`) for Geng.
pub(super) fn row_len(nf: usize, variant: Variant) -> usize {
    let width = match variant {
        Variant::Geng => 2,
        Variant::TauB => 1,
    };
    width * padded_features(nf)
}

/// Where value `part` (0: the statistic, 1: Geng's `D / n0`) of feature `b` sits in a row.
#[inline(always)]
pub(super) fn row_index(nf: usize, b: usize, part: usize) -> usize {
    part * padded_features(nf) + b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_packs_bits_across_words() {
        let (mut out, mut other) = (vec![0u64; 3], vec![0u64; 3]);
        let mut w = BitWriter::new(&mut out, &mut other, 1);
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
    fn avx2_and_scalar_rows_agree_with_pair_counts() {
        use ndarray::Array2;
        // 7 features (one padding lane), queries of 2 to 140 documents (1 to 152 words),
        // a constant feature and heavy ties.
        let sizes = [2usize, 5, 8, 12, 40, 70, 140];
        let m: usize = sizes.iter().sum();
        let nf = 7;
        let x = Array2::from_shape_fn((m, nf), |(i, f)| match f {
            3 => 1.5,
            _ => ((i * (7 + 3 * f) + f * f) % (3 + 4 * f)) as f64 - 2.0,
        });
        let offsets = QueryOffsets::from_sizes(&sizes);
        let batch: Vec<usize> = (0..sizes.len()).collect();
        let pairs: Vec<(u32, u32)> = (0..nf as u32).flat_map(|a| (a..nf as u32).map(move |b| (a, b))).collect();
        for variant in [Variant::TauB, Variant::Geng] {
            let mut rows = Vec::new();
            for avx2 in [false, has_avx2()] {
                let bits = BitBatch::build(x.view(), &offsets, &batch, avx2);
                let mut sums = vec![0.0; nf * bits.row_len(variant)];
                for (a, row) in sums.chunks_mut(bits.row_len(variant)).enumerate() {
                    bits.add_row(a, 0..batch.len(), variant, row, avx2);
                }
                rows.push(sums);
            }
            assert_eq!(rows[0], rows[1], "{variant:?}");
            // Each value is the sum over queries, in order, of the PairCounts statistic.
            let bits = BitBatch::build(x.view(), &offsets, &batch, false);
            let width = bits.row_len(variant);
            let mut expect = vec![0.0; nf * width];
            for k in 0..batch.len() {
                for (&(a, b), c) in pairs.iter().zip(bits.counts(k, &pairs)) {
                    let (a, b) = (a as usize, b as usize);
                    match variant {
                        Variant::TauB => expect[a * width + row_index(nf, b, 0)] += c.tau_b(),
                        Variant::Geng => {
                            expect[a * width + row_index(nf, b, 0)] += c.geng();
                            expect[a * width + row_index(nf, b, 1)] += c.geng_negated();
                        }
                    }
                }
            }
            for &(a, b) in &pairs {
                for part in 0..width / padded_features(nf) {
                    let i = a as usize * width + row_index(nf, b as usize, part);
                    assert_eq!(rows[0][i].to_bits(), expect[i].to_bits(), "{variant:?} ({a}, {b}) part {part}");
                }
            }
        }
    }

    #[test]
    fn rebuilt_batch_equals_a_fresh_one() {
        use ndarray::Array2;
        let sizes = [3usize, 40, 9, 130, 64, 2];
        let m: usize = sizes.iter().sum();
        let nf = 5;
        let x = Array2::from_shape_fn((m, nf), |(i, f)| ((i * (5 + 2 * f) + 3 * f) % (2 + 3 * f)) as f64);
        let offsets = QueryOffsets::from_sizes(&sizes);
        let pairs: Vec<(u32, u32)> = (0..nf as u32).flat_map(|a| (a..nf as u32).map(move |b| (a, b))).collect();
        for avx2 in [false, has_avx2()] {
            // Garbage from a larger batch first: every word must be overwritten.
            let mut bits = BitBatch::build(x.view(), &offsets, &[3, 1, 4, 0], avx2);
            for batch in [vec![5usize, 2, 0], vec![1, 3]] {
                bits.rebuild(x.view(), &offsets, &batch, avx2);
                let fresh = BitBatch::build(x.view(), &offsets, &batch, avx2);
                for k in 0..batch.len() {
                    assert_eq!(bits.counts(k, &pairs), fresh.counts(k, &pairs), "avx2 {avx2}, batch {batch:?}");
                }
                assert_eq!((&bits.untied, &bits.gt, &bits.n_untied), (&fresh.untied, &fresh.gt, &fresh.n_untied));
            }
        }
    }

    /// The pair `(i, j)` (bit = `x_j > x_i`) at each bit position of `build_column`'s
    /// bitsets: row-major over `i < j`, or the circular order of the ranked AVX2 build.
    fn pair_order(n: usize, circular: bool) -> Vec<(usize, usize)> {
        if circular {
            circular_diagonals(n).flat_map(|(d, len)| (0..len).map(move |i| (i, (i + d) % n))).collect()
        } else {
            (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect()
        }
    }

    #[test]
    fn bitsets_hold_every_pair_once_in_their_order() {
        for n in [0usize, 1, 2, 3, 4, 5, 6, 8, 9, 17, 63, 64, 65, 70, 127, 128, 129, 130] {
            let mut col: Vec<f64> =
                (0..n).map(|i| ((i * 7919) % 13) as f64 - if i % 5 == 0 { 0.0 } else { 6.0 }).collect();
            col.extend([1.0, -1.0, 7.0]);
            let w = pair_words(n);
            for avx2 in [false, has_avx2()] {
                let circular = avx2 && n <= RANKED_MAX;
                let order = pair_order(n, circular);
                let mut seen: Vec<(usize, usize)> = order.iter().map(|&(i, j)| (i.min(j), i.max(j))).collect();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len() as u64, choose2(n), "n = {n}: every pair once");
                assert_eq!(order.len() as u64, choose2(n));
                let (mut u, mut g) = (vec![0; w], vec![0; w]);
                let n_untied = build_column(&col, n, &mut u, &mut g, 1, avx2);
                assert_eq!(n_untied, u.iter().map(|v| v.count_ones() as u64).sum::<u64>());
                for (p, &(i, j)) in order.iter().enumerate() {
                    assert_eq!(u[p / 64] >> (p % 64) & 1 == 1, col[j] != col[i], "n = {n}, avx2 = {avx2}, pair {p}");
                    assert_eq!(g[p / 64] >> (p % 64) & 1 == 1, col[j] > col[i], "n = {n}, avx2 = {avx2}, pair {p}");
                }
                let used = choose2(n) as usize;
                for p in used..64 * w {
                    assert_eq!((u[p / 64] >> (p % 64) & 1, g[p / 64] >> (p % 64) & 1), (0, 0), "padding bit {p}");
                }
            }
        }
    }
}
