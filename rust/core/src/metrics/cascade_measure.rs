//! The arithmetic of the cascade grid ([`super::cascade`]): NDCG@k from per-query gains
//! and a table of discount denominators, the same operations in the same order as the
//! metrics' (`query::ndcg_ranked`), so bit for bit their values; and the reads of the
//! phase-2 scores (a finiteness check that vectorises, a cache hint).

use std::cmp::Ordering;
use std::f64::consts::LN_2;

use super::spec::{Convention, Measure, MetricSpec};

/// The largest NDCG cut-off whose discounted gains are tabled per query and rank.
pub(super) const TABLE_K: usize = 32;

/// The denominators of the discounts at ranks `1..=k` (`den[i - 1]`): `log2(i + 1)`, or LETOR's
/// `ln i` (unused at ranks 1 and 2), so that [`discount`] is `query::discounted`, bit for bit.
pub(super) fn denominators(convention: Convention, k: usize) -> Vec<f64> {
    (1..=k)
        .map(|i| match convention {
            Convention::Letor => (i as f64).ln(),
            _ => ((i + 1) as f64).log2(),
        })
        .collect()
}

/// `query::discounted(convention, g, i)` with its denominator from the table.
#[inline(always)]
pub(super) fn discount(convention: Convention, g: f64, i: usize, den: &[f64]) -> f64 {
    match convention {
        Convention::Letor if i <= 2 => g,
        Convention::Letor => g * LN_2 / den[i - 1],
        _ => g / den[i - 1],
    }
}

/// NDCG@k of one query, the same arithmetic as the metrics' (`query::ndcg_ranked`: the
/// gains discounted in rank order, summed from 0, over the ideal DCG), from the documents in
/// rank order (rows within the query) and `dcg(i, d)`, document `d`'s gain discounted at rank
/// `i + 1`: `n` documents, `best` the ideal DCG@min(k, n).
#[inline(always)]
pub(super) fn ndcg_of(
    convention: Convention,
    k: usize,
    n: usize,
    ranked: impl Iterator<Item = u32>,
    dcg: impl Fn(usize, usize) -> f64,
    best: f64,
) -> f64 {
    if n == 0 || k == 0 || (convention == Convention::Letor && n < k) {
        return 0.0;
    }
    if best != 0.0 {
        let kk = k.min(n);
        ranked.take(kk).enumerate().fold(0.0, |acc, (i, d)| acc + dcg(i, d as usize)) / best
    } else if convention == Convention::Lightgbm {
        1.0
    } else {
        0.0
    }
}

/// Each query's discounted gains: `table[at + i * n + d]` is `discount(gain(d), i + 1)` for
/// ranks `i < min(k, n)` (NDCG@k with `k <=` [`TABLE_K`]), else `gains[d]` discounted on use.
pub(super) struct Dcg<'a> {
    pub(super) conv: Convention,
    pub(super) gains: &'a [f64],
    pub(super) table: Option<(&'a [f64], usize)>,
    pub(super) den: &'a [f64],
    pub(super) n: usize,
}

impl Dcg<'_> {
    #[inline(always)]
    pub(super) fn at(&self, i: usize, d: usize) -> f64 {
        match self.table {
            Some((t, at)) => t[at + i * self.n + d],
            None => discount(self.conv, self.gains[d], i + 1, self.den),
        }
    }
}

/// `-0.0 == 0.0`, otherwise IEEE total order (as the metrics' ranking).
#[inline]
pub(super) fn cmp_f64(a: f64, b: f64) -> Ordering {
    let a = if a == 0.0 { 0.0 } else { a };
    let b = if b == 0.0 { 0.0 } else { b };
    a.total_cmp(&b)
}

/// The first ranks a measure reads (`None`: the whole ranking): NDCG@k, P@k, ERR@k read the
/// first `k` labels (and the query's length).
pub(super) fn cutoff(spec: &MetricSpec) -> Option<usize> {
    match spec.measure {
        Measure::Ndcg(k) | Measure::Err(k) => k,
        Measure::Precision(k) => Some(k),
        Measure::AveragePrecision | Measure::MeanNdcg => None,
    }
}

/// Asks the cache for `x`'s lines (a hint: no effect on any value).
#[inline(always)]
pub(super) fn prefetch(x: &[f64]) {
    #[cfg(target_arch = "x86_64")]
    for line in x.chunks(8) {
        // SAFETY: a prefetch reads nothing into the program and faults on no address; this
        // one is inside `x`.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(line.as_ptr().cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Whether every entry is finite (branch-free, so that it vectorises).
#[inline(always)]
pub(super) fn all_finite(x: &[f64]) -> bool {
    x.iter().fold(0u64, |bad, v| bad | (v.abs() <= f64::MAX) as u64 ^ 1) == 0
}
