//! The bitset scheme for short queries. Per query and feature, two bitsets over the
//! `n0 = n_q (n_q - 1) / 2` document pairs `(i, j)`: `untied` has `x_j != x_i`, `gt` has
//! `x_j > x_i`. For two features `a`, `b` the pairs untied in both are
//! `U = popcount(untied_a & untied_b)` and the discordant ones
//! `D = popcount(untied_a & untied_b & (gt_a ^ gt_b))`, so `C = U - D`: a feature pair
//! costs `O(n0 / 64)` word operations. The order and orientation of the pairs only have to
//! be the same for every feature of a query: row-major over `i < j`, or, for the AVX2 build
//! of queries up to [`RANKED_MAX`](build::RANKED_MAX) documents, the circular order of
//! [`circular_diagonals`](build::circular_diagonals).
//!
//! [`BitBatch`] holds the bitsets of a batch of queries (built in parallel over queries);
//! [`BitBatch::add_row`] adds, for one feature `a`, every pair `(a, b)`, `b >= a`, of every
//! query of the batch to running sums in query order (rows run in parallel, so the sums do
//! not depend on the number of threads). Both are compiled twice, with and without AVX2.
//!
//! Modules: `build` (a column's bitsets, scalar and AVX2), `count` (pair counts and the
//! rows of the similarity matrix from a batch).

use std::ops::Range;

use ndarray::{ArrayView2, Axis};

use self::build::{build_column, PAD};
use super::{choose2, inv_sqrt, Variant};
use crate::data::groups::QueryOffsets;

mod build;
mod count;
#[cfg(test)]
mod tests;

/// Words per bitset over the `choose2(n)` pairs of a query of length `n`.
#[inline]
pub(super) fn pair_words(n: usize) -> usize {
    (choose2(n) as usize).div_ceil(64)
}

/// Whether the AVX2 kernels run: the SIMD level ([`crate::simd::level`]) is AVX2 or wider
/// (x86-64-v3 includes POPCNT). Both kernels give the same counts and sums.
pub(super) fn has_avx2() -> bool {
    crate::simd::level() >= crate::simd::SimdLevel::Avx2
}

/// Lanes of one vector of feature words ([`BitBatch`] pads the features to a multiple).
pub(super) const LANES: usize = 4;

/// The bitsets of a batch of short queries. Per query, word-major over the features
/// padded to `nfp` (a multiple of [`LANES`]): word `k` of feature `f` is at
/// `start + k * nfp + f`, so one vector load holds word `k` of [`LANES`] features.
/// Padding features are constant (all bits zero).
pub(super) struct BitBatch {
    /// Features held (see [`BitBatch::features`]) and their count padded to [`LANES`].
    nf: usize,
    nfp: usize,
    /// Held feature `c` is column `features[c]` of `x`.
    features: Vec<usize>,
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
        bits.rebuild(x, offsets, batch, avx2, false).expect("test batch fits in memory");
        bits
    }

    fn empty() -> Self {
        BitBatch {
            nf: 0,
            nfp: 0,
            features: Vec::new(),
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
        compact: bool,
    ) -> crate::Result<&'a Self> {
        let bits = slot.get_or_insert_with(Self::empty);
        bits.rebuild(x, offsets, batch, avx2, compact)?;
        Ok(bits)
    }

    /// The columns of `x` this batch holds, in order: every column, or with `compact` only
    /// those that vary in at least one query of the batch (a column constant in every query
    /// has all pairs tied: its tau-b and Geng values are +0, and it takes no bits).
    pub(super) fn features(&self) -> &[usize] {
        &self.features
    }

    /// Bitsets of the queries `batch` (each with `2 <= n_q`) of the grouped `x`, built in
    /// parallel over queries into this batch's buffers (no fresh pages to fault in and zero
    /// for each batch of a long run); with `compact`, of the columns that vary in at least
    /// one query of the batch only ([`BitBatch::features`]).
    pub(super) fn rebuild(
        &mut self,
        x: ArrayView2<f64>,
        offsets: &QueryOffsets,
        batch: &[usize],
        avx2: bool,
        compact: bool,
    ) -> crate::Result<()> {
        use rayon::prelude::*;
        let ncols = x.ncols();
        self.features.clear();
        if compact {
            // A column varies in some query of the batch (usually seen in the first rows of
            // the first query; only columns constant throughout are read whole).
            let varies = |f: usize| {
                let col = x.column(f);
                batch.iter().any(|&q| {
                    let first = col[offsets[q]];
                    col.slice(ndarray::s![offsets[q] + 1..offsets[q + 1]]).iter().any(|&v| v != first)
                })
            };
            self.features.extend((0..ncols).filter(|&f| varies(f)));
        } else {
            self.features.extend(0..ncols);
        }
        let features = &self.features;
        let nf = features.len();
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
        (self.nf, self.nfp) = (nf, nfp);
        if nf == 0 {
            // Every column constant in every query: no bits.
            self.n_untied.clear();
            self.inv_sqrt_untied.clear();
            return Ok(());
        }
        let (untied, gt, n_untied) = (&mut self.untied, &mut self.gt, &mut self.n_untied);
        // Every word is written below (constant and padding features with zeros), so old
        // contents may stay; a larger batch takes fresh zeroed memory (calloc: no memset).
        for v in [&mut *untied, &mut *gt] {
            if v.capacity() < total {
                *v = crate::alloc::try_zeroed_vec(total, "Kendall's bitsets of a batch of queries")?;
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
                let col = &cols[features[f.min(nf - 1)] * stride..][..stride];
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
        self.inv_sqrt_untied.extend(self.n_untied.iter().map(|&u| inv_sqrt(u)));
        Ok(())
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
