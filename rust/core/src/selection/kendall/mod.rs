//! Kendall-tau similarity between features, per query, averaged over queries
//! (GAS, Geng et al. 2007, Section 2.3).
//!
//! For one query with `n_q` documents and two features `a`, `b`, every unordered pair of
//! documents is *concordant* (both features order it strictly the same way), *discordant*
//! (strictly opposite ways) or tied in `a` and/or `b`. With `n0 = n_q (n_q - 1) / 2`,
//! `T_a`, `T_b` the pairs tied in `a`, in `b`, `T_ab` those tied in both, and `D` the
//! discordant pairs, the concordant pairs are `C = n0 - D - T_a - T_b + T_ab`, and
//!
//! - `Geng`  (Section 2.3): `tau_q(a, b) = C / n0`, the fraction of all document pairs that
//!   both features order strictly the same way;
//! - `TauB`: Kendall's tau-b, `(C - D) / sqrt((n0 - T_a)(n0 - T_b))`, as
//!   `scipy.stats.kendalltau`; a query where `a` or `b` is constant contributes 0.
//!
//! Both are averaged over the queries with at least 2 documents. `absolute` compares each
//! feature with the other one *or its negation*, whichever is closer, after averaging:
//! `|mean tau_b|` and, for `Geng`, `max(mean C / n0, mean D / n0)` (the Geng similarity of
//! `a` with `-b` is `D / n0`).
//!
//! Two exact schemes give bit-identical counts, chosen per query by its length:
//! - short queries (`n_q <= short_max`, module `bitset`): per feature, two bitsets over
//!   the `n0` pairs (`untied`, `x_j > x_i`), built once per query (with AVX2: from byte
//!   ranks compared 32 at a time for `n_q <= 128`, else 4-wide comparisons of the values);
//!   a feature pair then costs `O(n0 / 64)` word operations
//!   (`D = popcount(untied_a & untied_b & (gt_a ^ gt_b))`, 4 features per AVX2 vector).
//!   Queries are taken in batches: the bitsets of a batch are built in parallel over
//!   queries, then, one cache-sized block of queries at a time, the rows of the matrix run
//!   in parallel, each adding the block's queries in query order.
//! - long queries (module `merge`): Knight's O(n_q log n_q) algorithm. Per feature the stable sort order,
//!   dense ranks and tie groups are computed once per query; a pair orders the documents by
//!   `(a, b)` with a counting sort by `a`'s rank over `b`'s order, counts joint ties, and
//!   counts `D` as the swaps of a merge sort of `b`'s ranks; feature pairs run in parallel.
//!
//! Per-query values are summed in query order, so results do not depend on the number of
//! threads.

mod bitset;
mod merge;

use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;

use self::bitset::{has_avx2, pair_words, row_index, row_len, BitBatch};
pub use self::merge::{merge_counts, FeatureOrder, MergeScratch};
use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;

/// Which per-query Kendall statistic to average.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Geng et al. (2007), Section 2.3: concordant pairs / all pairs.
    Geng,
    /// Kendall's tau-b (0 when a feature is constant in the query).
    TauB,
}

impl Variant {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "geng" => Ok(Variant::Geng),
            "tau_b" => Ok(Variant::TauB),
            other => invalid!("variant must be 'geng' or 'tau_b', got {other:?}"),
        }
    }
}

/// Queries up to this length use the bitset scheme by default; longer ones use
/// Knight's merge-sort scheme. Measured in `benches/kendall_bench.py` (crossover of the
/// per-pair cost, see `benches/RESULTS.md`).
pub const DEFAULT_SHORT_MAX: usize = 1024;

/// The bitset scheme is used only while one query's bitsets for all features fit in this
/// many bytes (per worker thread); otherwise the query falls back to the merge-sort scheme.
pub const SHORT_PATH_MAX_BYTES: usize = 64 << 20;

#[derive(Clone, Copy, Debug)]
pub struct KendallOptions {
    pub variant: Variant,
    pub absolute: bool,
    /// Longest query handled by the bitset scheme (`0`: always merge sort).
    pub short_max: usize,
}

impl Default for KendallOptions {
    fn default() -> Self {
        KendallOptions { variant: Variant::Geng, absolute: false, short_max: DEFAULT_SHORT_MAX }
    }
}

/// Exact pair counts of one query for two features `a` and `b`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairCounts {
    /// `n0 = n_q (n_q - 1) / 2`.
    pub pairs: u64,
    /// Pairs tied in `a`.
    pub ties_a: u64,
    /// Pairs tied in `b`.
    pub ties_b: u64,
    /// Pairs tied in both.
    pub ties_ab: u64,
    /// Pairs ordered strictly in opposite ways.
    pub discordant: u64,
}

impl PairCounts {
    /// Pairs ordered strictly the same way: `n0 - D - T_a - T_b + T_ab`.
    pub fn concordant(&self) -> u64 {
        self.pairs + self.ties_ab - self.discordant - self.ties_a - self.ties_b
    }

    /// `C / n0`, as `C * (1 / n0)` (0 for a query with fewer than 2 documents).
    pub fn geng(&self) -> f64 {
        if self.pairs == 0 {
            return 0.0;
        }
        self.concordant() as f64 * (1.0 / self.pairs as f64)
    }

    /// `D / n0` (as `D * (1 / n0)`): the Geng similarity of `a` with `-b`.
    pub fn geng_negated(&self) -> f64 {
        if self.pairs == 0 {
            return 0.0;
        }
        self.discordant as f64 * (1.0 / self.pairs as f64)
    }

    /// Kendall's tau-b; 0 when `a` or `b` is constant.
    pub fn tau_b(&self) -> f64 {
        let (untied_a, untied_b) = (self.pairs - self.ties_a, self.pairs - self.ties_b);
        // Pairs untied in both, `n0 - |T_a u T_b|`; `n0 + T_ab >= T_a + T_b` keeps it in range.
        let both = self.pairs + self.ties_ab - self.ties_a - self.ties_b;
        tau_b_value(both, self.discordant, untied_a, untied_b, inv_sqrt(untied_a), inv_sqrt(untied_b))
    }
}

/// `1 / sqrt(u)` (infinite for `u = 0`, never used then).
#[inline]
pub(crate) fn inv_sqrt(u: u64) -> f64 {
    1.0 / (u as f64).sqrt()
}

/// Tau-b from the pairs untied in both features (`both`, so `C = both - D`), the discordant
/// pairs `D`, the untied pairs of each feature and their `1 / sqrt`:
/// `(C - D) / sqrt(U_a U_b)`, exactly ±1 when `|C - D| = U_a = U_b` (e.g. a feature with
/// itself), 0 when a feature is constant. The one formula of both schemes (bit-identical).
#[inline(always)]
pub(crate) fn tau_b_value(both: u64, disc: u64, untied_a: u64, untied_b: u64, inv_a: f64, inv_b: f64) -> f64 {
    let num = (both - disc) as f64 - disc as f64;
    if untied_a == 0 || untied_b == 0 {
        0.0
    } else if untied_a == untied_b && num.abs() == untied_a as f64 {
        num.signum()
    } else {
        (num * inv_a * inv_b).clamp(-1.0, 1.0)
    }
}

/// Number of unordered pairs among `n` items.
#[inline]
pub(crate) fn choose2(n: usize) -> u64 {
    let n = n as u64;
    n * n.saturating_sub(1) / 2
}

// ---------------------------------------------------------------------------------------
// Drivers
// ---------------------------------------------------------------------------------------

/// Which exact scheme a query of `n` documents uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    Bitset,
    MergeSort,
}

/// Scheme for a query of `n` documents and `n_features` features under `short_max`.
pub fn scheme_for(n: usize, n_features: usize, short_max: usize) -> Scheme {
    let bytes = 2 * 8 * pair_words(n) * n_features;
    if n <= short_max && bytes <= SHORT_PATH_MAX_BYTES {
        Scheme::Bitset
    } else {
        Scheme::MergeSort
    }
}

/// Checks the grouped matrix and offsets shared by the kernels.
pub(crate) fn check_grouped(x: ArrayView2<f64>, offsets: &QueryOffsets, name: &str) -> Result<()> {
    offsets.check_rows(x.nrows(), name)?;
    if x.ncols() == 0 {
        return invalid!("{name} has no features (columns)");
    }
    let all_finite = match x.as_slice() {
        Some(s) => s.par_chunks(1 << 16).all(all_finite),
        None => x.iter().all(|v| v.is_finite()),
    };
    if !all_finite {
        if let Some(((i, j), v)) = x.indexed_iter().find(|(_, v)| !v.is_finite()) {
            return invalid!("{name} contains NaN or infinity (grouped row {i}, column {j}: {v})");
        }
    }
    Ok(())
}

/// Whether every value is finite: `v * 0` is `±0` for a finite `v` and NaN otherwise, summed
/// in 8 independent lanes (one pass the compiler vectorises, no early exit).
fn all_finite(s: &[f64]) -> bool {
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

/// The rows `rows` (`len x n_features`) feature-major into `out`, each column followed by
/// `pad` zeros (`n_features x (len + pad)`); `out` is reused between queries.
pub(super) fn fill_columns(rows: ArrayView2<f64>, pad: usize, out: &mut Vec<f64>) {
    let (n, nf) = rows.dim();
    let stride = n + pad;
    out.clear();
    out.resize(nf * stride, 0.0);
    match rows.as_slice() {
        // Row-major rows: read them whole, write each value to its column.
        Some(flat) => {
            for (i, row) in flat.chunks_exact(nf).enumerate() {
                for (o, &v) in out[i..].iter_mut().step_by(stride).zip(row) {
                    *o = v;
                }
            }
        }
        None => {
            for (i, row) in rows.rows().into_iter().enumerate() {
                for (f, &v) in row.iter().enumerate() {
                    out[f * stride + i] = v;
                }
            }
        }
    }
}

/// Bitset memory of one batch of short queries: built once per batch, into buffers reused
/// between batches, and small enough to stay in the last-level cache until it is read.
const BATCH_BYTES: usize = 4 << 20;

/// Bitsets of one block of a batch, read by every row of the matrix while in cache.
const BLOCK_BYTES: usize = 512 << 10;

/// Word operations of one batch (`sum over its queries of words x pairs of features`), so that
/// a batch takes well under a second on one thread (interrupt checks are between batches).
const BATCH_WORK: usize = 1 << 28;

/// Short queries gathered into batches, flushed when a cap is reached.
struct Batcher {
    queries: Vec<usize>,
    bytes: usize,
    work: usize,
    max_queries: usize,
}

impl Batcher {
    fn new(max_queries: usize) -> Self {
        Batcher { queries: Vec::new(), bytes: 0, work: 0, max_queries }
    }

    /// Adds query `q` of `n` documents; true when the batch is full.
    fn push(&mut self, q: usize, n: usize, n_features: usize, n_pairs: usize) -> bool {
        let w = pair_words(n);
        self.queries.push(q);
        self.bytes += 16 * w * n_features;
        self.work += w * n_pairs;
        self.queries.len() >= self.max_queries || self.bytes >= BATCH_BYTES || self.work >= BATCH_WORK
    }

    fn take(&mut self) -> Vec<usize> {
        self.bytes = 0;
        self.work = 0;
        std::mem::take(&mut self.queries)
    }
}

/// Exact [`PairCounts`] of every feature pair in `pairs` for every query, streamed to
/// `sink(query, counts)` in query order (queries with fewer than 2 documents are skipped).
/// `x` is grouped (`m x n`, rows of query `q` are `offsets[q]..offsets[q + 1]`).
pub fn for_each_query_counts<I, F>(
    x: ArrayView2<f64>,
    offsets: &QueryOffsets,
    pairs: &[(u32, u32)],
    short_max: usize,
    interrupt: &I,
    mut sink: F,
) -> Result<()>
where
    I: Interrupt + ?Sized,
    F: FnMut(usize, &[PairCounts]),
{
    check_grouped(x, offsets, "X")?;
    let nf = x.ncols();
    if let Some(&(a, b)) = pairs.iter().find(|&&(a, b)| a as usize >= nf || b as usize >= nf) {
        return invalid!("feature pair ({a}, {b}) out of range for {nf} features");
    }
    let avx2 = has_avx2();
    let n_queries = offsets.len() - 1;
    // Per-query results of a batch of short queries: at most ~64 MiB at once.
    let per_query_bytes = pairs.len().max(1) * std::mem::size_of::<PairCounts>();
    let mut batcher = Batcher::new(((64usize << 20) / per_query_bytes).clamp(1, 512));
    let mut bits: Option<BitBatch> = None; // buffers reused from batch to batch
    let mut flush = |batch: Vec<usize>, sink: &mut F| -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        interrupt.check()?;
        let bits = BitBatch::build_in(&mut bits, x, offsets, &batch, avx2);
        let results: Vec<Vec<PairCounts>> = (0..batch.len()).into_par_iter().map(|k| bits.counts(k, pairs)).collect();
        for (&q, counts) in batch.iter().zip(&results) {
            sink(q, counts);
        }
        Ok(())
    };

    for q in 0..n_queries {
        let n = offsets[q + 1] - offsets[q];
        if n < 2 {
            continue;
        }
        match scheme_for(n, nf, short_max) {
            Scheme::Bitset => {
                if batcher.push(q, n, nf, pairs.len()) {
                    flush(batcher.take(), &mut sink)?;
                }
            }
            Scheme::MergeSort => {
                flush(batcher.take(), &mut sink)?;
                interrupt.check()?;
                let mut cols = Vec::new();
                fill_columns(x.slice(ndarray::s![offsets[q]..offsets[q + 1], ..]), 0, &mut cols);
                let orders: Vec<FeatureOrder> =
                    (0..nf).into_par_iter().map(|f| FeatureOrder::new(&cols[f * n..(f + 1) * n])).collect();
                // Chunks of pairs of roughly equal work, with an interrupt check between them.
                let chunk = (((1usize << 24) / n).max(16)).min(pairs.len().max(1));
                let mut counts = Vec::with_capacity(pairs.len());
                for ch in pairs.chunks(chunk) {
                    interrupt.check()?;
                    let part: Vec<PairCounts> = ch
                        .par_iter()
                        .map_init(MergeScratch::default, |s, &(a, b)| {
                            merge_counts(&orders[a as usize], &orders[b as usize], s)
                        })
                        .collect();
                    counts.extend(part);
                }
                sink(q, &counts);
            }
        }
    }
    flush(batcher.take(), &mut sink)?;
    Ok(())
}

/// Kendall similarity matrix (`n x n`, symmetric) of the features of the grouped matrix
/// `x` (`m x n`): the per-query statistic of `opts.variant`, averaged over the queries with
/// at least 2 documents (see the module docs).
pub fn kendall_similarity<I: Interrupt + ?Sized>(
    x: ArrayView2<f64>,
    offsets: &QueryOffsets,
    opts: &KendallOptions,
    interrupt: &I,
) -> Result<Array2<f64>> {
    check_grouped(x, offsets, "X")?;
    let nf = x.ncols();
    let variant = opts.variant;
    // Row a of the running sums holds, for every b >= a, the sum over queries, in query
    // order, of the statistic (and, for Geng, of D / n0) at `row_index(nf, b, part)`.
    let width = row_len(nf, variant);
    let mut sums = vec![0.0f64; nf * width];
    let mut used = 0usize;
    let avx2 = has_avx2();
    let n_pairs = nf * (nf + 1) / 2;
    let mut batcher = Batcher::new(usize::MAX);
    // A batch of short queries: bitsets built in parallel over queries, then block by block
    // (cache-sized runs of queries) the rows of the matrix in parallel, each adding the
    // block's queries in query order.
    let mut bits: Option<BitBatch> = None; // buffers reused from batch to batch
    let mut flush = |batch: Vec<usize>, sums: &mut [f64]| -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        interrupt.check()?;
        let bits = BitBatch::build_in(&mut bits, x, offsets, &batch, avx2);
        for block in bits.blocks(BLOCK_BYTES) {
            sums.par_chunks_mut(width)
                .enumerate()
                .for_each(|(a, row)| bits.add_row(a, block.clone(), variant, row, avx2));
        }
        Ok(())
    };
    let pairs: Vec<(u32, u32)> = (0..nf as u32).flat_map(|a| (a..nf as u32).map(move |b| (a, b))).collect();
    let at = |a: u32, b: u32, part: usize| a as usize * width + row_index(nf, b as usize, part);
    for q in 0..offsets.len() - 1 {
        let n = offsets[q + 1] - offsets[q];
        if n < 2 {
            continue;
        }
        used += 1;
        match scheme_for(n, nf, opts.short_max) {
            Scheme::Bitset => {
                if batcher.push(q, n, nf, n_pairs) {
                    flush(batcher.take(), &mut sums)?;
                }
            }
            Scheme::MergeSort => {
                flush(batcher.take(), &mut sums)?;
                let xq = x.slice(ndarray::s![offsets[q]..offsets[q + 1], ..]);
                for_each_query_counts(xq, &QueryOffsets::from_sizes(&[n]), &pairs, 0, interrupt, |_, counts| {
                    for (&(a, b), c) in pairs.iter().zip(counts) {
                        match variant {
                            Variant::Geng => {
                                sums[at(a, b, 0)] += c.geng();
                                sums[at(a, b, 1)] += c.geng_negated();
                            }
                            Variant::TauB => sums[at(a, b, 0)] += c.tau_b(),
                        }
                    }
                })?;
            }
        }
    }
    flush(batcher.take(), &mut sums)?;
    if used == 0 {
        return invalid!("no query has at least 2 documents: Kendall's tau needs document pairs");
    }
    let mut out = Array2::<f64>::zeros((nf, nf));
    let q = used as f64;
    for &(a, b) in &pairs {
        let sum = sums[at(a, b, 0)];
        let v = match (variant, opts.absolute) {
            (_, false) => sum / q,
            (Variant::Geng, true) => sum.max(sums[at(a, b, 1)]) / q,
            (Variant::TauB, true) => (sum / q).abs(),
        };
        out[[a as usize, b as usize]] = v;
        out[[b as usize, a as usize]] = v;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use ndarray::Array2;
    use proptest::prelude::*;

    fn naive_counts(a: &[f64], b: &[f64]) -> PairCounts {
        let n = a.len();
        let mut c = PairCounts { pairs: choose2(n), ..Default::default() };
        for i in 0..n {
            for j in i + 1..n {
                let ta = a[i] == a[j];
                let tb = b[i] == b[j];
                c.ties_a += ta as u64;
                c.ties_b += tb as u64;
                c.ties_ab += (ta && tb) as u64;
                if !ta && !tb && ((a[i] < a[j]) != (b[i] < b[j])) {
                    c.discordant += 1;
                }
            }
        }
        c
    }

    fn both_schemes(cols: &[Vec<f64>]) -> (Vec<PairCounts>, Vec<PairCounts>, Vec<PairCounts>) {
        let n = cols[0].len();
        let nf = cols.len();
        let pairs: Vec<(u32, u32)> = (0..nf as u32).flat_map(|a| (a..nf as u32).map(move |b| (a, b))).collect();
        let naive: Vec<PairCounts> =
            pairs.iter().map(|&(a, b)| naive_counts(&cols[a as usize], &cols[b as usize])).collect();
        let x = Array2::from_shape_fn((n, nf), |(i, f)| cols[f][i]);
        let offsets = QueryOffsets::from_sizes(&[n]);
        let short = if n >= 2 {
            BitBatch::build(x.view(), &offsets, &[0], has_avx2()).counts(0, &pairs)
        } else {
            naive.clone()
        };
        let short_generic =
            if n >= 2 { BitBatch::build(x.view(), &offsets, &[0], false).counts(0, &pairs) } else { naive.clone() };
        assert_eq!(short, short_generic);
        let orders: Vec<FeatureOrder> = cols.iter().map(|c| FeatureOrder::new(c)).collect();
        let mut s = MergeScratch::default();
        let merge =
            pairs.iter().map(|&(a, b)| merge_counts(&orders[a as usize], &orders[b as usize], &mut s)).collect();
        (naive, short, merge)
    }

    proptest! {
        #[test]
        fn schemes_match_naive(n in 0usize..200, nf in 1usize..4, levels in 1u32..8, seed in 0u64..1000) {
            // Values from a few levels, so ties are frequent.
            let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let mut next = || {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((state >> 33) % levels as u64) as f64 - 1.0
            };
            let cols: Vec<Vec<f64>> = (0..nf).map(|_| (0..n).map(|_| next()).collect()).collect();
            let (naive, short, merge) = both_schemes(&cols);
            prop_assert_eq!(&naive, &short);
            prop_assert_eq!(&naive, &merge);
        }
    }

    #[test]
    fn signed_zero_ties_in_both_schemes() {
        let cols = vec![vec![0.0, -0.0, 1.0, -0.0, 0.0], vec![1.0, 2.0, 2.0, 0.0, -0.0]];
        let (naive, short, merge) = both_schemes(&cols);
        assert_eq!(naive, short);
        assert_eq!(naive, merge);
    }

    #[test]
    fn long_runs_cross_word_boundaries() {
        let n = 150;
        let a: Vec<f64> = (0..n).map(|i| ((i * 37) % 11) as f64).collect();
        let b: Vec<f64> = (0..n).map(|i| ((i * 13) % 7) as f64).collect();
        let (naive, short, merge) = both_schemes(&[a, b]);
        assert_eq!(naive, short);
        assert_eq!(naive, merge);
    }

    #[test]
    fn tau_b_of_perfect_and_reversed_orders() {
        let x = Array2::from_shape_vec((4, 2), vec![1.0, 4.0, 2.0, 3.0, 3.0, 2.0, 4.0, 1.0]).unwrap();
        for short_max in [0, 100] {
            let opts = KendallOptions { variant: Variant::TauB, absolute: false, short_max };
            let s = kendall_similarity(
                x.view(),
                &crate::data::groups::QueryOffsets::new((&[0, 4]).to_vec()).unwrap(),
                &opts,
                &NoInterrupt,
            )
            .unwrap();
            assert_eq!(s[[0, 0]], 1.0);
            assert_eq!(s[[0, 1]], -1.0);
            let opts = KendallOptions { absolute: true, ..opts };
            let s = kendall_similarity(
                x.view(),
                &crate::data::groups::QueryOffsets::new((&[0, 4]).to_vec()).unwrap(),
                &opts,
                &NoInterrupt,
            )
            .unwrap();
            assert_eq!(s[[0, 1]], 1.0);
            let opts = KendallOptions { variant: Variant::Geng, absolute: false, short_max };
            let s = kendall_similarity(
                x.view(),
                &crate::data::groups::QueryOffsets::new((&[0, 4]).to_vec()).unwrap(),
                &opts,
                &NoInterrupt,
            )
            .unwrap();
            assert_eq!(s[[0, 1]], 0.0);
            let opts = KendallOptions { absolute: true, ..opts };
            let s = kendall_similarity(
                x.view(),
                &crate::data::groups::QueryOffsets::new((&[0, 4]).to_vec()).unwrap(),
                &opts,
                &NoInterrupt,
            )
            .unwrap();
            assert_eq!(s[[0, 1]], 1.0);
        }
    }

    #[test]
    fn same_result_for_any_thread_count_and_scheme() {
        let (m, nf) = (900, 5);
        let data: Vec<f64> = (0..m * nf).map(|i| ((i * 7919) % 23) as f64).collect();
        let x = Array2::from_shape_vec((m, nf), data).unwrap();
        let offsets = vec![0, 1, 40, 41, 300, 310, 900];
        let run = |threads: usize, short_max: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let opts = KendallOptions { variant: Variant::TauB, absolute: false, short_max };
            pool.install(|| {
                kendall_similarity(
                    x.view(),
                    &crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap(),
                    &opts,
                    &NoInterrupt,
                )
                .unwrap()
            })
        };
        let base = run(1, 0);
        assert_eq!(base, run(2, 0));
        assert_eq!(base, run(3, 100));
        assert_eq!(base, run(2, usize::MAX));
    }

    #[test]
    fn all_finite_finds_every_non_finite_position() {
        for len in [0usize, 1, 7, 8, 9, 17, 40] {
            let base: Vec<f64> = (0..len).map(|i| if i % 3 == 0 { -f64::MAX } else { i as f64 * 1e300 }).collect();
            assert!(all_finite(&base));
            for at in 0..len {
                for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                    let mut v = base.clone();
                    v[at] = bad;
                    assert!(!all_finite(&v), "len {len}, position {at}, {bad}");
                }
            }
        }
    }

    #[test]
    fn errors_are_reported() {
        let x = Array2::from_shape_vec((3, 1), vec![1.0, f64::NAN, 2.0]).unwrap();
        assert!(kendall_similarity(
            x.view(),
            &crate::data::groups::QueryOffsets::new((&[0, 3]).to_vec()).unwrap(),
            &KendallOptions::default(),
            &NoInterrupt
        )
        .is_err());
        let x = Array2::from_shape_vec((2, 1), vec![1.0, 2.0]).unwrap();
        let e = kendall_similarity(
            x.view(),
            &crate::data::groups::QueryOffsets::new((&[0, 1, 2]).to_vec()).unwrap(),
            &KendallOptions::default(),
            &NoInterrupt,
        );
        assert!(e.is_err());
        let e = kendall_similarity(
            x.view(),
            &crate::data::groups::QueryOffsets::new((&[0, 3]).to_vec()).unwrap(),
            &KendallOptions::default(),
            &NoInterrupt,
        );
        assert!(e.is_err());
        let stop = || true;
        let x = Array2::from_shape_vec((2, 1), vec![1.0, 2.0]).unwrap();
        let e = kendall_similarity(
            x.view(),
            &crate::data::groups::QueryOffsets::new((&[0, 2]).to_vec()).unwrap(),
            &KendallOptions::default(),
            &stop,
        );
        assert!(matches!(e, Err(crate::Error::Interrupted)));
    }
}
