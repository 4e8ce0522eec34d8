//! The drivers of both exact schemes: per query the scheme by its length, short queries in
//! batches of bitsets, long ones by merge sort; per-query counts streamed in query order, and
//! the similarity matrix summed from them.

use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;

use super::bitset::{has_avx2, pair_words, row_index, row_len, BitBatch};
use super::merge::{merge_counts, FeatureOrder, MergeScratch};
use super::{fill_columns, KendallOptions, PairCounts, Variant, SHORT_PATH_MAX_BYTES};
use crate::alloc;
use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::linalg::all_finite;

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
        let bits = BitBatch::build_in(&mut bits, x, offsets, &batch, avx2, false)?;
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
    let mut sums = alloc::try_zeroed_vec::<f64>(nf.saturating_mul(width), "Kendall similarity's running sums")?;
    let mut used = 0usize;
    let avx2 = has_avx2();
    let n_pairs = nf * (nf + 1) / 2;
    let mut batcher = Batcher::new(usize::MAX);
    // A batch of short queries: bitsets built in parallel over queries, then block by block
    // (cache-sized runs of queries) the rows of the matrix in parallel, each adding the
    // block's queries in query order.
    // The batch holds only the features that vary in at least one of its queries (the
    // others add +0 everywhere): their running sums are copied into `held` (rows and
    // columns of the held features, the same layout for that count), added to there, and
    // copied back, so every sum still takes the same additions in the same order.
    let mut bits: Option<BitBatch> = None; // buffers reused from batch to batch
    let mut held: Vec<f64> = Vec::new();
    let parts = width / super::bitset::padded_features(nf);
    let mut flush = |batch: Vec<usize>, sums: &mut [f64]| -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        interrupt.check()?;
        let bits = BitBatch::build_in(&mut bits, x, offsets, &batch, avx2, true)?;
        let features = bits.features();
        let nh = features.len();
        if nh == 0 {
            return Ok(());
        }
        let hw = bits.row_len(variant);
        if nh == nf {
            // Every feature held: the same layout, add in place.
            for block in bits.blocks(BLOCK_BYTES) {
                sums.par_chunks_mut(width)
                    .enumerate()
                    .for_each(|(a, row)| bits.add_row(a, block.clone(), variant, row, avx2));
            }
            return Ok(());
        }
        held.clear();
        held.resize(nh * hw, 0.0);
        let copy = |held: &mut [f64], sums: &mut [f64], to_held: bool| {
            for (ca, &a) in features.iter().enumerate() {
                for part in 0..parts {
                    for (cb, &b) in features.iter().enumerate().skip(ca) {
                        let (h, s) = (ca * hw + row_index(nh, cb, part), a * width + row_index(nf, b, part));
                        if to_held {
                            held[h] = sums[s];
                        } else {
                            sums[s] = held[h];
                        }
                    }
                }
            }
        };
        copy(&mut held, sums, true);
        for block in bits.blocks(BLOCK_BYTES) {
            held.par_chunks_mut(hw).enumerate().for_each(|(a, row)| bits.add_row(a, block.clone(), variant, row, avx2));
        }
        copy(&mut held, sums, false);
        Ok(())
    };
    let mut pairs = alloc::try_with_capacity::<(u32, u32)>(n_pairs, "Kendall similarity's feature pairs")?;
    pairs.extend((0..nf as u32).flat_map(|a| (a..nf as u32).map(move |b| (a, b))));
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
    let mut out = alloc::try_zeros2(nf, nf, "the Kendall similarity matrix")?;
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
