//! One query's value of a measure: rank its labels by score (ties per [`Ties`]), then the
//! measure of the ranked labels (formulas in the module docs of [`crate::metrics`]).

use std::cmp::Ordering;
use std::f64::consts::LN_2;

use super::spec::{Convention, Measure, MetricSpec, Ties};

/// Reusable buffers for [`query_metric_with`]: no allocation once they have grown to the
/// largest query.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    pairs: Vec<(f64, f64)>,
    pub(super) ranked: Vec<f64>,
    pub(super) ideal: Vec<f64>,
}

/// `-0.0` and `0.0` compare equal (as Perl's `<=>`); otherwise IEEE total order, so a
/// stray NaN never makes the sort panic.
#[inline]
fn cmp_f64(a: f64, b: f64) -> Ordering {
    let a = if a == 0.0 { 0.0 } else { a };
    let b = if b == 0.0 { 0.0 } else { b };
    a.total_cmp(&b)
}

impl Scratch {
    pub fn new() -> Self {
        Self::default()
    }

    /// Labels in ranked order (score descending, ties per `ties`) into `self.ranked`.
    pub(super) fn rank(&mut self, ties: Ties, labels: &[f64], scores: &[f64]) {
        self.pairs.clear();
        self.pairs.extend(scores.iter().copied().zip(labels.iter().copied()));
        match ties {
            // `sort_by` is stable: equal scores keep input order.
            Ties::Stable => self.pairs.sort_by(|a, b| cmp_f64(b.0, a.0)),
            Ties::Pessimistic => self.pairs.sort_by(|a, b| cmp_f64(b.0, a.0).then(cmp_f64(a.1, b.1))),
        }
        self.ranked.clear();
        self.ranked.extend(self.pairs.iter().map(|p| p.1));
    }

    /// Labels sorted descending into `self.ideal`.
    pub(super) fn ideal(&mut self, labels: &[f64]) {
        self.ideal.clear();
        self.ideal.extend_from_slice(labels);
        self.ideal.sort_unstable_by(|a, b| cmp_f64(*b, *a));
    }
}

/// Exponential gain of a label: `2^r - 1` (ERR's; NDCG's per convention: [`Convention::gain`]).
#[inline]
pub fn gain(r: f64) -> f64 {
    r.exp2() - 1.0
}

/// Whether label `r` counts as relevant: `r > 0` (exponential, lightgbm) or `r >= 1` (trec,
/// LETOR).
#[inline]
pub fn is_relevant(convention: Convention, r: f64) -> bool {
    match convention {
        Convention::Standard | Convention::Lightgbm => r > 0.0,
        Convention::Trec | Convention::Letor => r >= 1.0,
    }
}

/// Discounted gain at 1-based rank `i`: `g / log2(i + 1)` (standard) or `g` for
/// `i <= 2` and `g ln 2 / ln i` after (LETOR, computed as the Perl script does).
#[inline]
fn discounted(convention: Convention, g: f64, i: usize) -> f64 {
    match convention {
        Convention::Standard | Convention::Trec | Convention::Lightgbm => g / ((i + 1) as f64).log2(),
        Convention::Letor => {
            if i <= 2 {
                g
            } else {
                g * LN_2 / (i as f64).ln()
            }
        }
    }
}

/// DCG of the first `k` entries of `ranked` (k <= len), summed in rank order.
#[inline]
fn dcg(convention: Convention, ranked: &[f64], k: usize) -> f64 {
    ranked[..k].iter().enumerate().fold(0.0, |acc, (i, &r)| acc + discounted(convention, convention.gain(r), i + 1))
}

fn ndcg_ranked(convention: Convention, ranked: &[f64], ideal: &[f64], k: Option<usize>) -> f64 {
    let n = ranked.len();
    let k = k.unwrap_or(n);
    if n == 0 || k == 0 || (convention == Convention::Letor && n < k) {
        return 0.0;
    }
    let k = k.min(n);
    let best = dcg(convention, ideal, k);
    if best != 0.0 {
        dcg(convention, ranked, k) / best
    } else if convention == Convention::Lightgbm {
        1.0 // LightGBM's ndcg: a query without relevant documents counts as 1
    } else {
        0.0
    }
}

fn mean_ndcg_ranked(convention: Convention, ranked: &[f64], ideal: &[f64]) -> f64 {
    let n = ranked.len();
    if n == 0 {
        return 0.0;
    }
    let (mut d, mut best, mut sum) = (0.0, 0.0, 0.0);
    for i in 0..n {
        d += discounted(convention, convention.gain(ranked[i]), i + 1);
        best += discounted(convention, convention.gain(ideal[i]), i + 1);
        if best != 0.0 {
            sum += d / best;
        } else if convention == Convention::Lightgbm {
            sum += 1.0;
        }
    }
    sum / n as f64
}

fn precision_ranked(convention: Convention, ranked: &[f64], k: usize) -> f64 {
    if k == 0 {
        return 0.0;
    }
    let hits = ranked.iter().take(k).filter(|&&r| is_relevant(convention, r)).count();
    hits as f64 / k as f64
}

fn average_precision_ranked(convention: Convention, ranked: &[f64]) -> f64 {
    let mut hits = 0usize;
    let mut sum = 0.0;
    for (i, &r) in ranked.iter().enumerate() {
        if is_relevant(convention, r) {
            hits += 1;
            sum += hits as f64 / (i + 1) as f64;
        }
    }
    if hits == 0 {
        0.0
    } else {
        sum / hits as f64
    }
}

fn err_ranked(ranked: &[f64], k: Option<usize>, max_grade: f64) -> f64 {
    let k = k.unwrap_or(ranked.len()).min(ranked.len());
    let scale = max_grade.exp2();
    let mut not_stopped = 1.0;
    let mut err = 0.0;
    for (i, &r) in ranked[..k].iter().enumerate() {
        let p = gain(r) / scale;
        err += not_stopped * p / (i + 1) as f64;
        not_stopped *= 1.0 - p;
    }
    err
}

/// Metric from labels already ranked (and, for NDCG / MeanNDCG, the ideal order).
pub(super) fn from_ranked(spec: &MetricSpec, ranked: &[f64], ideal: &[f64], max_grade: f64) -> f64 {
    let c = spec.convention;
    match spec.measure {
        Measure::Ndcg(k) => ndcg_ranked(c, ranked, ideal, k),
        Measure::Precision(k) => precision_ranked(c, ranked, k),
        Measure::AveragePrecision => average_precision_ranked(c, ranked),
        Measure::MeanNdcg => mean_ndcg_ranked(c, ranked, ideal),
        Measure::Err(k) => err_ranked(ranked, k, max_grade),
    }
}

/// Largest label of a slice (0 when empty or all labels are below 0).
pub(super) fn max_label(labels: &[f64]) -> f64 {
    labels.iter().copied().fold(0.0, f64::max)
}

/// Metric of ONE query: its documents' labels and scores in input order (ties broken per
/// `spec.ties`). Allocates; in loops use [`query_metric_with`].
///
/// For ERR the maximum grade is this query's largest label; use
/// [`query_metric_graded`] to pass the data set's.
/// Expects labels >= 0, no NaN and `k >= 1` (as checked by [`per_query`](super::per_query)).
pub fn query_metric(spec: &MetricSpec, labels: &[f64], scores: &[f64]) -> f64 {
    query_metric_with(spec, labels, scores, &mut Scratch::new())
}

/// [`query_metric`] with reusable buffers.
pub fn query_metric_with(spec: &MetricSpec, labels: &[f64], scores: &[f64], scratch: &mut Scratch) -> f64 {
    query_metric_graded(spec, labels, scores, max_label(labels), scratch)
}

/// [`query_metric`] with reusable buffers and ERR's maximum grade `max_grade`
/// (ignored by the other measures).
pub fn query_metric_graded(
    spec: &MetricSpec,
    labels: &[f64],
    scores: &[f64],
    max_grade: f64,
    scratch: &mut Scratch,
) -> f64 {
    debug_assert_eq!(labels.len(), scores.len());
    scratch.rank(spec.ties, labels, scores);
    if spec.measure.needs_ideal() {
        scratch.ideal(labels);
    }
    from_ranked(spec, &scratch.ranked, &scratch.ideal, max_grade)
}
