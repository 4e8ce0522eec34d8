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
//! - short queries (`n_q <= short_max`): per feature, two bitsets over the `n0` pairs
//!   (`untied`, `x_j > x_i`), built once per query; a feature pair then costs
//!   `O(n0 / 64)` word operations (`D = popcount(untied_a & untied_b & (gt_a ^ gt_b))`),
//!   vectorised with AVX2 when the CPU has it; queries run in parallel.
//! - long queries: Knight's O(n_q log n_q) algorithm. Per feature the stable sort order,
//!   dense ranks and tie groups are computed once per query; a pair orders the documents by
//!   `(a, b)` with a counting sort by `a`'s rank over `b`'s order, counts joint ties, and
//!   counts `D` as the swaps of a merge sort of `b`'s ranks; feature pairs run in parallel.
//!
//! Per-query values are summed in query order, so results do not depend on the number of
//! threads.

use std::cmp::Ordering;

use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;

use crate::error::Result;
use crate::groups::QueryOffsets;
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

    /// `C / n0` (0 for a query with fewer than 2 documents).
    pub fn geng(&self) -> f64 {
        if self.pairs == 0 {
            return 0.0;
        }
        self.concordant() as f64 / self.pairs as f64
    }

    /// `D / n0`: the Geng similarity of `a` with `-b`.
    pub fn geng_negated(&self) -> f64 {
        if self.pairs == 0 {
            return 0.0;
        }
        self.discordant as f64 / self.pairs as f64
    }

    /// Kendall's tau-b; 0 when `a` or `b` is constant.
    pub fn tau_b(&self) -> f64 {
        let untied_a = self.pairs - self.ties_a;
        let untied_b = self.pairs - self.ties_b;
        if untied_a == 0 || untied_b == 0 {
            return 0.0;
        }
        let num = self.concordant() as f64 - self.discordant as f64;
        let tau = num / (untied_a as f64).sqrt() / (untied_b as f64).sqrt();
        tau.clamp(-1.0, 1.0)
    }
}

/// Number of unordered pairs among `n` items.
#[inline]
fn choose2(n: usize) -> u64 {
    let n = n as u64;
    n * n.saturating_sub(1) / 2
}

// ---------------------------------------------------------------------------------------
// Merge-sort (Knight) scheme
// ---------------------------------------------------------------------------------------

/// Per feature and query: stable sort order, dense ranks and tie groups (computed once,
/// reused by every pair).
#[derive(Clone, Debug)]
pub struct FeatureOrder {
    /// Local document indices sorted by value (stable).
    perm: Vec<u32>,
    /// Dense rank of each document (0 = smallest value; equal values share a rank).
    rank: Vec<u32>,
    /// Start of each rank's group in `perm`, length `distinct + 1`.
    start: Vec<u32>,
    /// Pairs tied in this feature.
    ties: u64,
}

impl FeatureOrder {
    /// `values` must be free of NaN (equal values, including -0.0 and 0.0, tie).
    pub fn new(values: &[f64]) -> Self {
        let n = values.len();
        let mut perm: Vec<u32> = (0..n as u32).collect();
        perm.sort_by(|&i, &j| {
            values[i as usize].partial_cmp(&values[j as usize]).unwrap_or(Ordering::Equal)
        });
        let mut rank = vec![0u32; n];
        let mut start = Vec::with_capacity(n + 1);
        let mut ties = 0u64;
        let mut r = 0u32;
        let mut group_start = 0usize;
        for (p, &i) in perm.iter().enumerate() {
            if p > 0 && values[i as usize] != values[perm[p - 1] as usize] {
                ties += choose2(p - group_start);
                start.push(group_start as u32);
                group_start = p;
                r += 1;
            }
            rank[i as usize] = r;
        }
        if n > 0 {
            ties += choose2(n - group_start);
            start.push(group_start as u32);
        }
        start.push(n as u32);
        FeatureOrder { perm, rank, start, ties }
    }

    pub fn len(&self) -> usize {
        self.perm.len()
    }

    pub fn is_empty(&self) -> bool {
        self.perm.is_empty()
    }

    pub fn ties(&self) -> u64 {
        self.ties
    }

    fn distinct(&self) -> usize {
        self.start.len() - 1
    }
}

/// Scratch buffers of the merge-sort scheme (one per worker).
#[derive(Default)]
pub struct MergeScratch {
    seq: Vec<u32>,
    tmp: Vec<u32>,
    next: Vec<u32>,
}

/// Knight's algorithm: exact [`PairCounts`] of `a` and `b` in O(n_q log n_q).
pub fn merge_counts(a: &FeatureOrder, b: &FeatureOrder, s: &mut MergeScratch) -> PairCounts {
    let n = a.len();
    debug_assert_eq!(n, b.len());
    // Documents in (a, b) order: b's sort order, then a stable counting sort by a's rank.
    s.next.clear();
    s.next.extend_from_slice(&a.start[..a.distinct()]);
    s.seq.clear();
    s.seq.resize(n, 0);
    for &doc in &b.perm {
        let r = a.rank[doc as usize] as usize;
        let pos = s.next[r] as usize;
        s.seq[pos] = b.rank[doc as usize];
        s.next[r] += 1;
    }
    // Joint ties: runs of equal b-rank inside each a-group (b-ranks are sorted there).
    let mut ties_ab = 0u64;
    for g in a.start.windows(2) {
        let block = &s.seq[g[0] as usize..g[1] as usize];
        let mut run = 1usize;
        for w in block.windows(2) {
            if w[0] == w[1] {
                run += 1;
            } else {
                ties_ab += choose2(run);
                run = 1;
            }
        }
        ties_ab += choose2(run);
    }
    // Discordant pairs: strict inversions of b's ranks in (a, b) order. Inside an a-group
    // the ranks are non-decreasing, so a-ties contribute none.
    s.tmp.clear();
    s.tmp.resize(n, 0);
    let discordant = count_inversions(&mut s.seq, &mut s.tmp);
    PairCounts { pairs: choose2(n), ties_a: a.ties, ties_b: b.ties, ties_ab, discordant }
}

/// Strict inversions (`i < j`, `v[i] > v[j]`) by a bottom-up merge sort; sorts `v`.
fn count_inversions(v: &mut [u32], tmp: &mut [u32]) -> u64 {
    const RUN: usize = 24;
    let n = v.len();
    let mut inv = 0u64;
    // Insertion sort of short runs: each shift passes one strictly greater element.
    for chunk in v.chunks_mut(RUN) {
        for i in 1..chunk.len() {
            let x = chunk[i];
            let mut j = i;
            while j > 0 && chunk[j - 1] > x {
                chunk[j] = chunk[j - 1];
                j -= 1;
            }
            inv += (i - j) as u64;
            chunk[j] = x;
        }
    }
    let mut width = RUN;
    let mut src_is_v = true;
    while width < n {
        {
            let (src, dst): (&[u32], &mut [u32]) =
                if src_is_v { (&*v, &mut *tmp) } else { (&*tmp, &mut *v) };
            let mut lo = 0;
            while lo < n {
                let mid = (lo + width).min(n);
                let hi = (lo + 2 * width).min(n);
                inv += merge(&src[lo..mid], &src[mid..hi], &mut dst[lo..hi]);
                lo = hi;
            }
        }
        src_is_v = !src_is_v;
        width *= 2;
    }
    if !src_is_v {
        v.copy_from_slice(tmp);
    }
    inv
}

/// Merges two sorted runs; returns the number of (left, right) pairs with left > right.
#[inline]
fn merge(left: &[u32], right: &[u32], out: &mut [u32]) -> u64 {
    let (mut i, mut j, mut k) = (0, 0, 0);
    let mut inv = 0u64;
    while i < left.len() && j < right.len() {
        if right[j] < left[i] {
            out[k] = right[j];
            inv += (left.len() - i) as u64;
            j += 1;
        } else {
            out[k] = left[i];
            i += 1;
        }
        k += 1;
    }
    out[k..k + left.len() - i].copy_from_slice(&left[i..]);
    k += left.len() - i;
    out[k..].copy_from_slice(&right[j..]);
    inv
}

// ---------------------------------------------------------------------------------------
// Bitset scheme (short queries)
// ---------------------------------------------------------------------------------------

/// Words per bitset over the `choose2(n)` pairs of a query of length `n`.
#[inline]
fn pair_words(n: usize) -> usize {
    (choose2(n) as usize).div_ceil(64)
}

/// Bitsets of all features of one query: for pair `p(i, j)` (`i < j`, row-major over the
/// strict upper triangle), `untied` has `x_j != x_i` and `gt` has `x_j > x_i`.
struct PairBits {
    words: usize,
    /// `n_features x words`, feature-major.
    untied: Vec<u64>,
    gt: Vec<u64>,
}

impl PairBits {
    fn feature(&self, f: usize) -> (&[u64], &[u64]) {
        let r = f * self.words..(f + 1) * self.words;
        (&self.untied[r.clone()], &self.gt[r])
    }
}

/// Writes the low `len` bits of `w` at bit offset `off` (the target bits are zero).
#[inline(always)]
fn put_bits(words: &mut [u64], off: usize, len: usize, w: u64) {
    let (k, s) = (off / 64, off % 64);
    words[k] |= w << s;
    if s + len > 64 {
        words[k + 1] |= w >> (64 - s);
    }
}

#[inline(always)]
fn build_bits_generic(col: &[f64], untied: &mut [u64], gt: &mut [u64]) {
    let n = col.len();
    let mut off = 0usize;
    for i in 0..n.saturating_sub(1) {
        let xi = col[i];
        for chunk in col[i + 1..].chunks(64) {
            let mut w_gt = 0u64;
            let mut w_ne = 0u64;
            for (t, &xj) in chunk.iter().enumerate() {
                w_gt |= ((xj > xi) as u64) << t;
                w_ne |= ((xj != xi) as u64) << t;
            }
            put_bits(untied, off, chunk.len(), w_ne);
            put_bits(gt, off, chunk.len(), w_gt);
            off += chunk.len();
        }
    }
}

/// `(popcount(ua & ub), popcount(ua & ub & (ga ^ gb)))`.
#[inline(always)]
fn bit_counts_generic(ua: &[u64], ga: &[u64], ub: &[u64], gb: &[u64]) -> (u64, u64) {
    let mut both = 0u64;
    let mut disc = 0u64;
    for k in 0..ua.len() {
        let u = ua[k] & ub[k];
        both += u.count_ones() as u64;
        disc += (u & (ga[k] ^ gb[k])).count_ones() as u64;
    }
    (both, disc)
}

#[cfg(target_arch = "x86_64")]
mod simd {
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn build_bits(col: &[f64], untied: &mut [u64], gt: &mut [u64]) {
        super::build_bits_generic(col, untied, gt)
    }

    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn bit_counts(ua: &[u64], ga: &[u64], ub: &[u64], gb: &[u64]) -> (u64, u64) {
        super::bit_counts_generic(ua, ga, ub, gb)
    }
}

#[inline]
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn build_bits(col: &[f64], untied: &mut [u64], gt: &mut [u64], avx2: bool) {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the CPU supports avx2 and popcnt (checked by `has_avx2`).
        return unsafe { simd::build_bits(col, untied, gt) };
    }
    let _ = avx2;
    build_bits_generic(col, untied, gt)
}

#[inline]
fn bit_counts(ua: &[u64], ga: &[u64], ub: &[u64], gb: &[u64], avx2: bool) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the CPU supports avx2 and popcnt (checked by `has_avx2`).
        return unsafe { simd::bit_counts(ua, ga, ub, gb) };
    }
    let _ = avx2;
    bit_counts_generic(ua, ga, ub, gb)
}

impl PairBits {
    /// `cols`: the query's values, feature-major (`n_features x n`).
    fn new(cols: &[f64], n: usize, n_features: usize, avx2: bool) -> Self {
        let words = pair_words(n);
        let mut untied = vec![0u64; n_features * words];
        let mut gt = vec![0u64; n_features * words];
        if words > 0 {
            for (f, (u, g)) in untied.chunks_mut(words).zip(gt.chunks_mut(words)).enumerate() {
                build_bits(&cols[f * n..(f + 1) * n], u, g, avx2);
            }
        }
        PairBits { words, untied, gt }
    }
}

/// Bitset counts for the pairs of one query (all pairs of `pairs`), `cols` feature-major.
fn short_query_counts(cols: &[f64], n: usize, n_features: usize, pairs: &[(u32, u32)], avx2: bool) -> Vec<PairCounts> {
    let bits = PairBits::new(cols, n, n_features, avx2);
    // Untied counts per feature, once.
    let untied: Vec<u64> = (0..n_features)
        .map(|f| {
            let (u, g) = bits.feature(f);
            bit_counts(u, g, u, g, avx2).0
        })
        .collect();
    let n0 = choose2(n);
    pairs
        .iter()
        .map(|&(a, b)| {
            let (a, b) = (a as usize, b as usize);
            let (ua, ga) = bits.feature(a);
            let (ub, gb) = bits.feature(b);
            let (untied_ab, discordant) = bit_counts(ua, ga, ub, gb, avx2);
            PairCounts {
                pairs: n0,
                ties_a: n0 - untied[a],
                ties_b: n0 - untied[b],
                ties_ab: untied_ab + n0 - untied[a] - untied[b],
                discordant,
            }
        })
        .collect()
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
    if let Some(((i, j), v)) = x.indexed_iter().find(|(_, v)| !v.is_finite()) {
        return invalid!("{name} contains NaN or infinity (grouped row {i}, column {j}: {v})");
    }
    Ok(())
}

/// Values of query rows `r` of `x`, feature-major (`n_features x len`).
fn query_columns(x: ArrayView2<f64>, r: std::ops::Range<usize>) -> Vec<f64> {
    let n = r.len();
    let nf = x.ncols();
    let mut cols = vec![0.0; nf * n];
    for (i, row) in x.slice(ndarray::s![r, ..]).rows().into_iter().enumerate() {
        for (f, &v) in row.iter().enumerate() {
            cols[f * n + i] = v;
        }
    }
    cols
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
    let batch_cap = ((64usize << 20) / per_query_bytes).clamp(1, 512);
    let mut batch: Vec<usize> = Vec::new();

    let flush = |batch: &mut Vec<usize>, sink: &mut F| -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        interrupt.check()?;
        let results: Vec<Vec<PairCounts>> = batch
            .par_iter()
            .map(|&q| {
                let r = offsets[q]..offsets[q + 1];
                let n = r.len();
                let cols = query_columns(x, r);
                short_query_counts(&cols, n, nf, pairs, avx2)
            })
            .collect();
        for (&q, counts) in batch.iter().zip(&results) {
            sink(q, counts);
        }
        batch.clear();
        Ok(())
    };

    for q in 0..n_queries {
        let n = offsets[q + 1] - offsets[q];
        if n < 2 {
            continue;
        }
        match scheme_for(n, nf, short_max) {
            Scheme::Bitset => {
                batch.push(q);
                if batch.len() >= batch_cap {
                    flush(&mut batch, &mut sink)?;
                }
            }
            Scheme::MergeSort => {
                flush(&mut batch, &mut sink)?;
                interrupt.check()?;
                let cols = query_columns(x, offsets[q]..offsets[q + 1]);
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
    flush(&mut batch, &mut sink)?;
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
    let nf = x.ncols();
    let pairs: Vec<(u32, u32)> =
        (0..nf as u32).flat_map(|a| (a..nf as u32).map(move |b| (a, b))).collect();
    let mut sum = vec![0.0f64; pairs.len()];
    let mut sum_neg = vec![0.0f64; pairs.len()];
    let mut used = 0usize;
    let variant = opts.variant;
    for_each_query_counts(x, offsets, &pairs, opts.short_max, interrupt, |_, counts| {
        used += 1;
        match variant {
            Variant::Geng => {
                for ((s, sn), c) in sum.iter_mut().zip(sum_neg.iter_mut()).zip(counts) {
                    *s += c.geng();
                    *sn += c.geng_negated();
                }
            }
            Variant::TauB => {
                for (s, c) in sum.iter_mut().zip(counts) {
                    *s += c.tau_b();
                }
            }
        }
    })?;
    if used == 0 {
        return invalid!("no query has at least 2 documents: Kendall's tau needs document pairs");
    }
    let mut out = Array2::<f64>::zeros((nf, nf));
    let q = used as f64;
    for (p, &(a, b)) in pairs.iter().enumerate() {
        let v = match (variant, opts.absolute) {
            (_, false) => sum[p] / q,
            (Variant::Geng, true) => sum[p].max(sum_neg[p]) / q,
            (Variant::TauB, true) => (sum[p] / q).abs(),
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
        let flat: Vec<f64> = cols.iter().flatten().copied().collect();
        let pairs: Vec<(u32, u32)> =
            (0..nf as u32).flat_map(|a| (a..nf as u32).map(move |b| (a, b))).collect();
        let naive = pairs.iter().map(|&(a, b)| naive_counts(&cols[a as usize], &cols[b as usize])).collect();
        let short = short_query_counts(&flat, n, nf, &pairs, has_avx2());
        let short_generic = short_query_counts(&flat, n, nf, &pairs, false);
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
            let s = kendall_similarity(x.view(), &crate::groups::QueryOffsets::new((&[0, 4]).to_vec()).unwrap(), &opts, &NoInterrupt).unwrap();
            assert_eq!(s[[0, 0]], 1.0);
            assert_eq!(s[[0, 1]], -1.0);
            let opts = KendallOptions { absolute: true, ..opts };
            let s = kendall_similarity(x.view(), &crate::groups::QueryOffsets::new((&[0, 4]).to_vec()).unwrap(), &opts, &NoInterrupt).unwrap();
            assert_eq!(s[[0, 1]], 1.0);
            let opts = KendallOptions { variant: Variant::Geng, absolute: false, short_max };
            let s = kendall_similarity(x.view(), &crate::groups::QueryOffsets::new((&[0, 4]).to_vec()).unwrap(), &opts, &NoInterrupt).unwrap();
            assert_eq!(s[[0, 1]], 0.0);
            let opts = KendallOptions { absolute: true, ..opts };
            let s = kendall_similarity(x.view(), &crate::groups::QueryOffsets::new((&[0, 4]).to_vec()).unwrap(), &opts, &NoInterrupt).unwrap();
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
            pool.install(|| kendall_similarity(x.view(), &crate::groups::QueryOffsets::new((&offsets).to_vec()).unwrap(), &opts, &NoInterrupt).unwrap())
        };
        let base = run(1, 0);
        assert_eq!(base, run(2, 0));
        assert_eq!(base, run(3, 100));
        assert_eq!(base, run(2, usize::MAX));
    }

    #[test]
    fn errors_are_reported() {
        let x = Array2::from_shape_vec((3, 1), vec![1.0, f64::NAN, 2.0]).unwrap();
        assert!(kendall_similarity(x.view(), &crate::groups::QueryOffsets::new((&[0, 3]).to_vec()).unwrap(), &KendallOptions::default(), &NoInterrupt).is_err());
        let x = Array2::from_shape_vec((2, 1), vec![1.0, 2.0]).unwrap();
        let e = kendall_similarity(x.view(), &crate::groups::QueryOffsets::new((&[0, 1, 2]).to_vec()).unwrap(), &KendallOptions::default(), &NoInterrupt);
        assert!(e.is_err());
        let e = kendall_similarity(x.view(), &crate::groups::QueryOffsets::new((&[0, 3]).to_vec()).unwrap(), &KendallOptions::default(), &NoInterrupt);
        assert!(e.is_err());
        let stop = || true;
        let x = Array2::from_shape_vec((2, 1), vec![1.0, 2.0]).unwrap();
        let e = kendall_similarity(x.view(), &crate::groups::QueryOffsets::new((&[0, 2]).to_vec()).unwrap(), &KendallOptions::default(), &stop);
        assert!(matches!(e, Err(crate::Error::Interrupted)));
    }
}
