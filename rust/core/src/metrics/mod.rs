//! IR metrics of a ranking, query by query: NDCG@k, P@k, AP, MeanNDCG, ERR@k.
//!
//! A query's documents are ranked by score, descending; ties among equal scores are
//! broken by [`Ties`]: `Stable` keeps input order (as LETOR's `Eval-Score-4.0.pl`, which
//! sorts by file line and then stably by score), `Pessimistic` puts lower labels first.
//! Let `r_i` be the label at rank `i` (1-based), `n` the number of documents of the
//! query and `g(r) = 2^r - 1` the gain.
//!
//! Two conventions ([`Convention`]):
//!
//! * `Standard` (trec_eval / the usual literature):
//!   - `DCG@k = sum_{i=1}^{min(k,n)} g(r_i) / log2(i + 1)`,
//!     `NDCG@k = DCG@k / IDCG@k` with `IDCG@k` the DCG@k of the labels sorted
//!     descending, and `NDCG@k = 0` when `IDCG@k = 0` (no relevant document);
//!     `k = None` means `k = n`.
//!   - relevant means `r > 0`.
//! * `Letor` (exactly LETOR 4.0's `Eval-Score-4.0.pl`, which produced the tables of the
//!   papers):
//!   - `DCG@k = g(r_1) + g(r_2) + sum_{i=3}^{k} g(r_i) / log2(i)` (no discount at ranks 1
//!     and 2), ideal DCG on the labels sorted by gain, `NDCG@k = DCG@k / IDCG@k`, `0`
//!     when `IDCG@k = 0`, and `NDCG@k = 0` when the query has fewer than `k`
//!     documents (the script leaves those positions empty and averages them as 0).
//!   - relevant means `r >= 1`.
//!
//! In both conventions:
//! * `P@k = #{relevant documents in the top min(k, n)} / k` (missing positions count as
//!   non-relevant, as trec_eval and the LETOR script do).
//! * `AP = (1 / R) sum_{i: r_i relevant} P@i`, with `R` the number of relevant documents
//!   of the query, and `AP = 0` when `R = 0`; MAP is its mean over queries.
//! * `MeanNDCG = (1 / n) sum_{k=1}^{n} NDCG@k` per query (LETOR's MeanNDCG), then the
//!   mean over queries; `0` for an empty query.
//! * `ERR@k = sum_{i=1}^{min(k,n)} (1 / i) R_i prod_{j<i} (1 - R_j)` with
//!   `R_i = g(r_i) / 2^{g_max}` (Chapelle et al. 2009, "Expected reciprocal rank for graded relevance"; `g_max` the maximum grade,
//!   by default the maximum label over all queries). LETOR's script has no ERR: both
//!   conventions compute the same value.
//!
//! Differences from the Perl script that only matter outside LETOR 4.0 data: the script
//! looks gains and relevance up in tables for labels 0, 1, 2 only (any other label has
//! gain 0 and is non-relevant) and keys documents by docid; here `g(r) = 2^r - 1` for any
//! label `r >= 0`, relevance is `r >= 1`, and every row is a document.
//!
//! Kernels: [`query_metric`] (one query), [`per_query`] (parallel over queries,
//! deterministic), [`mean`] (sequential sum of the per-query values in query order), and
//! [`per_query_many`] which ranks each query once for several metrics.

use std::cmp::Ordering;
use std::f64::consts::LN_2;
use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;

use crate::data::groups::QueryOffsets;
use crate::error::{Error, Result};
use crate::invalid;

/// Discount and relevance conventions; see the module documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Convention {
    /// Gain `2^r - 1`, discount `1/log2(i+1)`, k truncated to the query, relevant = `r > 0`.
    #[default]
    Standard,
    /// LETOR 4.0's `Eval-Score-4.0.pl`: discount 1 at ranks 1-2 and `1/log2(i)` after,
    /// NDCG@k = 0 when the query has fewer than k documents, relevant = `r >= 1`.
    Letor,
}

/// How documents with equal scores are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ties {
    /// Input order (a stable sort by score, descending), as LETOR's script.
    #[default]
    Stable,
    /// Lower labels first among equal scores (the worst case for the ranker).
    Pessimistic,
}

/// What to measure. `k = None` means the whole query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Measure {
    Ndcg(Option<usize>),
    Precision(usize),
    AveragePrecision,
    MeanNdcg,
    Err(Option<usize>),
}

/// A metric: measure, convention and tie handling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MetricSpec {
    pub measure: Measure,
    pub convention: Convention,
    pub ties: Ties,
}

impl MetricSpec {
    /// `measure` with the standard convention and stable ties.
    pub fn new(measure: Measure) -> Self {
        MetricSpec { measure, convention: Convention::Standard, ties: Ties::Stable }
    }

    /// `measure` with LETOR's conventions and stable ties (as `Eval-Score-4.0.pl`).
    pub fn letor(measure: Measure) -> Self {
        MetricSpec { measure, convention: Convention::Letor, ties: Ties::Stable }
    }

    pub fn with_convention(self, convention: Convention) -> Self {
        MetricSpec { convention, ..self }
    }

    pub fn with_ties(self, ties: Ties) -> Self {
        MetricSpec { ties, ..self }
    }

    /// Checks the cutoff: `k >= 1` when given.
    pub fn validate(&self) -> Result<()> {
        match self.measure {
            Measure::Ndcg(Some(0)) | Measure::Precision(0) | Measure::Err(Some(0)) => {
                invalid!("k must be >= 1 ({})", self.measure)
            }
            _ => Ok(()),
        }
    }
}

/// Labels from this value on overflow the gain `2^r - 1` (and ERR's `2^max_grade`) in f64.
pub const MAX_GAIN_LABEL: f64 = 1024.0;

/// Refuses labels whose gain `2^r - 1` overflows (`r >= 1024`) for the measures that use it
/// (NDCG, MeanNDCG, ERR): their value would be NaN. `top` is the largest label (or ERR's
/// `max_grade`).
pub fn check_gain_labels(spec: &MetricSpec, top: f64) -> Result<()> {
    if spec.measure.uses_gain() && top >= MAX_GAIN_LABEL {
        return invalid!(
            "{}: label {top} is too large for the gain 2^r - 1 (it overflows float64 from r = 1024 on); \
             use graded labels below 1024 (e.g. the rank of each label value)",
            spec.measure
        );
    }
    Ok(())
}

impl Measure {
    /// Whether the metric uses the gain `2^r - 1` of the labels.
    pub fn uses_gain(self) -> bool {
        matches!(self, Measure::Ndcg(_) | Measure::MeanNdcg | Measure::Err(_))
    }

    /// Whether the metric needs the ideal ranking (labels sorted descending).
    fn needs_ideal(self) -> bool {
        matches!(self, Measure::Ndcg(_) | Measure::MeanNdcg)
    }
}

impl fmt::Display for Measure {
    /// `NDCG`, `NDCG@10`, `P@5`, `MAP`, `MeanNDCG`, `ERR`, `ERR@10`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Measure::Ndcg(None) => write!(f, "NDCG"),
            Measure::Ndcg(Some(k)) => write!(f, "NDCG@{k}"),
            Measure::Precision(k) => write!(f, "P@{k}"),
            Measure::AveragePrecision => write!(f, "MAP"),
            Measure::MeanNdcg => write!(f, "MeanNDCG"),
            Measure::Err(None) => write!(f, "ERR"),
            Measure::Err(Some(k)) => write!(f, "ERR@{k}"),
        }
    }
}

impl FromStr for Measure {
    type Err = Error;

    /// Case-insensitive: `ndcg`, `ndcg@10`, `p@5` / `precision@5`, `map` / `ap`,
    /// `meanndcg` / `mean_ndcg`, `err`, `err@10`.
    fn from_str(s: &str) -> Result<Measure> {
        let t = s.trim().to_ascii_lowercase();
        let (name, k) = match t.split_once('@') {
            Some((name, k)) => {
                let k: usize = match k.trim().parse() {
                    Ok(k) if k >= 1 => k,
                    _ => return invalid!("invalid metric {s:?}: the cutoff after '@' must be an integer >= 1"),
                };
                (name.trim().to_string(), Some(k))
            }
            None => (t.clone(), None),
        };
        match (name.as_str(), k) {
            ("ndcg", k) => Ok(Measure::Ndcg(k)),
            ("p" | "precision", Some(k)) => Ok(Measure::Precision(k)),
            ("map" | "ap", None) => Ok(Measure::AveragePrecision),
            ("meanndcg" | "mean_ndcg", None) => Ok(Measure::MeanNdcg),
            ("err", k) => Ok(Measure::Err(k)),
            ("p" | "precision", None) => invalid!("invalid metric {s:?}: precision needs a cutoff, e.g. 'p@10'"),
            _ => invalid!(
                "invalid metric {s:?}: expected one of ndcg, ndcg@K, p@K, precision@K, map, ap, meanndcg, err, err@K"
            ),
        }
    }
}

impl FromStr for Convention {
    type Err = Error;

    /// `standard` or `letor` (case-insensitive).
    fn from_str(s: &str) -> Result<Convention> {
        match s.trim().to_ascii_lowercase().as_str() {
            "standard" => Ok(Convention::Standard),
            "letor" => Ok(Convention::Letor),
            _ => invalid!("convention must be 'standard' or 'letor', got {s:?}"),
        }
    }
}

impl FromStr for Ties {
    type Err = Error;

    /// `stable` or `pessimistic` (case-insensitive).
    fn from_str(s: &str) -> Result<Ties> {
        match s.trim().to_ascii_lowercase().as_str() {
            "stable" => Ok(Ties::Stable),
            "pessimistic" => Ok(Ties::Pessimistic),
            _ => invalid!("ties must be 'stable' or 'pessimistic', got {s:?}"),
        }
    }
}

/// Reusable buffers for [`query_metric_with`]: no allocation once they have grown to the
/// largest query.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    pairs: Vec<(f64, f64)>,
    ranked: Vec<f64>,
    ideal: Vec<f64>,
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
    fn rank(&mut self, ties: Ties, labels: &[f64], scores: &[f64]) {
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
    fn ideal(&mut self, labels: &[f64]) {
        self.ideal.clear();
        self.ideal.extend_from_slice(labels);
        self.ideal.sort_unstable_by(|a, b| cmp_f64(*b, *a));
    }
}

/// Gain of a label: `2^r - 1`.
#[inline]
pub fn gain(r: f64) -> f64 {
    r.exp2() - 1.0
}

/// Whether label `r` counts as relevant: `r > 0` (standard) or `r >= 1` (LETOR).
#[inline]
pub fn is_relevant(convention: Convention, r: f64) -> bool {
    match convention {
        Convention::Standard => r > 0.0,
        Convention::Letor => r >= 1.0,
    }
}

/// Discounted gain at 1-based rank `i`: `g / log2(i + 1)` (standard) or `g` for
/// `i <= 2` and `g ln 2 / ln i` after (LETOR, computed as the Perl script does).
#[inline]
fn discounted(convention: Convention, g: f64, i: usize) -> f64 {
    match convention {
        Convention::Standard => g / ((i + 1) as f64).log2(),
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
    ranked[..k].iter().enumerate().fold(0.0, |acc, (i, &r)| acc + discounted(convention, gain(r), i + 1))
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
        d += discounted(convention, gain(ranked[i]), i + 1);
        best += discounted(convention, gain(ideal[i]), i + 1);
        if best != 0.0 {
            sum += d / best;
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
fn from_ranked(spec: &MetricSpec, ranked: &[f64], ideal: &[f64], max_grade: f64) -> f64 {
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
fn max_label(labels: &[f64]) -> f64 {
    labels.iter().copied().fold(0.0, f64::max)
}

/// Metric of ONE query: its documents' labels and scores in input order (ties broken per
/// `spec.ties`). Allocates; in loops use [`query_metric_with`].
///
/// For ERR the maximum grade is this query's largest label; use
/// [`query_metric_graded`] to pass the data set's.
/// Expects labels >= 0, no NaN and `k >= 1` (as checked by [`per_query`]).
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

/// Checks lengths, offsets, labels (finite, >= 0) and scores (no NaN); returns ERR's
/// maximum grade (`max_grade`, or the largest label).
fn check_inputs(labels: &[f64], scores: &[f64], offsets: &QueryOffsets, max_grade: Option<f64>) -> Result<f64> {
    if labels.len() != scores.len() {
        return invalid!("labels have {} entries but scores have {}", labels.len(), scores.len());
    }
    offsets.check_rows(labels.len(), "labels")?;
    if let Some(i) = labels.iter().position(|r| !r.is_finite() || *r < 0.0) {
        return invalid!("labels must be finite and >= 0; row {i} has {}", labels[i]);
    }
    if let Some(i) = scores.iter().position(|s| s.is_nan()) {
        return invalid!("scores contain NaN (row {i})");
    }
    let top = max_label(labels);
    match max_grade {
        None => Ok(top),
        Some(g) if !g.is_finite() || g < top => {
            invalid!("max_grade must be finite and >= the largest label ({top}), got {g}")
        }
        Some(g) => Ok(g),
    }
}

/// Per-query values for rows grouped contiguously by `offsets` (length `n_queries + 1`),
/// parallel over queries, deterministic.
pub fn per_query(spec: &MetricSpec, labels: &[f64], scores: &[f64], offsets: &QueryOffsets) -> Result<Vec<f64>> {
    per_query_graded(spec, labels, scores, offsets, None)
}

/// [`per_query`] with ERR's maximum grade (`None`: the largest label over all queries).
pub fn per_query_graded(
    spec: &MetricSpec,
    labels: &[f64],
    scores: &[f64],
    offsets: &QueryOffsets,
    max_grade: Option<f64>,
) -> Result<Vec<f64>> {
    spec.validate()?;
    let g = check_inputs(labels, scores, offsets, max_grade)?;
    check_gain_labels(spec, g)?;
    Ok(map_queries(offsets, |s, w| query_metric_graded(spec, &labels[w[0]..w[1]], &scores[w[0]..w[1]], g, s)))
}

/// Below this many rows the per-query loop runs on the calling thread: ranking ~20k
/// documents takes well under a millisecond, less than waking a thread pool.
const PARALLEL_MIN_ROWS: usize = 32_768;

/// `f(scratch, [start, end])` for every query, in query order; parallel over chunks of
/// queries for large inputs. Each value depends on its query only, so the result is the
/// same for any number of threads.
fn map_queries<T, F>(offsets: &[usize], f: F) -> Vec<T>
where
    T: Send,
    F: Fn(&mut Scratch, &[usize]) -> T + Sync + Send,
{
    let m = offsets.last().copied().unwrap_or(0);
    if m < PARALLEL_MIN_ROWS {
        let mut s = Scratch::new();
        offsets.windows(2).map(|w| f(&mut s, w)).collect()
    } else {
        offsets.par_windows(2).with_min_len(64).map_init(Scratch::new, |s, w| f(s, w)).collect()
    }
}

/// Several metrics at once, each query ranked once per tie mode: `out[s][q]` is metric
/// `specs[s]` of query `q`. Parallel over queries, deterministic.
pub fn per_query_many(
    specs: &[MetricSpec],
    labels: &[f64],
    scores: &[f64],
    offsets: &QueryOffsets,
    max_grade: Option<f64>,
) -> Result<Vec<Vec<f64>>> {
    for s in specs {
        s.validate()?;
    }
    let g = check_inputs(labels, scores, offsets, max_grade)?;
    for s in specs {
        check_gain_labels(s, g)?;
    }
    let needs_ideal = specs.iter().any(|s| s.measure.needs_ideal());
    let rows: Vec<Vec<f64>> = map_queries(offsets, |s, w| {
        let (lab, sc) = (&labels[w[0]..w[1]], &scores[w[0]..w[1]]);
        if needs_ideal {
            s.ideal(lab);
        }
        let mut ranked_by: Option<Ties> = None;
        specs
            .iter()
            .map(|spec| {
                if ranked_by != Some(spec.ties) {
                    s.rank(spec.ties, lab, sc);
                    ranked_by = Some(spec.ties);
                }
                from_ranked(spec, &s.ranked, &s.ideal, g)
            })
            .collect()
    });
    Ok((0..specs.len()).map(|j| rows.iter().map(|r| r[j]).collect()).collect())
}

/// Mean over queries: the sequential sum of [`per_query`] in query order, divided by the
/// number of queries.
pub fn mean(spec: &MetricSpec, labels: &[f64], scores: &[f64], offsets: &QueryOffsets) -> Result<f64> {
    mean_graded(spec, labels, scores, offsets, None)
}

/// [`mean`] with ERR's maximum grade.
pub fn mean_graded(
    spec: &MetricSpec,
    labels: &[f64],
    scores: &[f64],
    offsets: &QueryOffsets,
    max_grade: Option<f64>,
) -> Result<f64> {
    if offsets.len() < 2 {
        return invalid!("no queries: the mean of a metric needs at least one query");
    }
    let v = per_query_graded(spec, labels, scores, offsets, max_grade)?;
    Ok(v.iter().sum::<f64>() / v.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_overflowing_the_gain_are_refused() {
        let y = [1024.0, 0.0, 3.0];
        let s = [0.3, 0.2, 0.1];
        let qo = |o: &[usize]| crate::data::groups::QueryOffsets::new(o.to_vec()).unwrap();
        for m in [Measure::Ndcg(Some(10)), Measure::MeanNdcg, Measure::Err(None)] {
            let e = per_query(&MetricSpec::new(m), &y, &s, &qo(&[0, 3])).unwrap_err().to_string();
            assert!(e.contains("label 1024") && e.contains("overflows"), "{e}");
        }
        // 1023 still works, and measures without the gain accept any label.
        let v = per_query(&MetricSpec::new(Measure::Ndcg(None)), &[1023.0, 0.0], &[0.0, 1.0], &qo(&[0, 2])).unwrap();
        assert!(v[0].is_finite());
        assert!(per_query(&MetricSpec::new(Measure::AveragePrecision), &y, &s, &qo(&[0, 3])).is_ok());
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn parse_measures() {
        assert_eq!("ndcg".parse::<Measure>().unwrap(), Measure::Ndcg(None));
        assert_eq!("NDCG@10".parse::<Measure>().unwrap(), Measure::Ndcg(Some(10)));
        assert_eq!("p@5".parse::<Measure>().unwrap(), Measure::Precision(5));
        assert_eq!("Precision@5".parse::<Measure>().unwrap(), Measure::Precision(5));
        assert_eq!("MAP".parse::<Measure>().unwrap(), Measure::AveragePrecision);
        assert_eq!("ap".parse::<Measure>().unwrap(), Measure::AveragePrecision);
        assert_eq!("MeanNDCG".parse::<Measure>().unwrap(), Measure::MeanNdcg);
        assert_eq!("mean_ndcg".parse::<Measure>().unwrap(), Measure::MeanNdcg);
        assert_eq!("err".parse::<Measure>().unwrap(), Measure::Err(None));
        assert_eq!("ERR@3".parse::<Measure>().unwrap(), Measure::Err(Some(3)));
        for bad in ["", "p", "p@0", "ndcg@x", "map@3", "foo", "ndcg@-1"] {
            assert!(matches!(bad.parse::<Measure>(), Err(Error::InvalidInput(_))), "{bad}");
        }
        for m in ["NDCG@10", "P@5", "MAP", "MeanNDCG", "ERR", "ERR@2", "NDCG"] {
            assert_eq!(m.parse::<Measure>().unwrap().to_string(), m);
        }
    }

    /// Hand-checked LETOR example: labels in ranked order 0, 2, 1, 0 (scores distinct).
    /// gains 0, 3, 1, 0; ideal 3, 1, 0, 0.
    /// DCG@1..4 = 0, 3, 3 + 1/log2 3, same; IDCG@1..4 = 3, 4, 4, 4.
    #[test]
    fn letor_hand_example() {
        let labels = [0.0, 2.0, 1.0, 0.0];
        let scores = [4.0, 3.0, 2.0, 1.0];
        let l = |m| query_metric(&MetricSpec::letor(m), &labels, &scores);
        let d3 = 3.0 + 1.0 / 3f64.log2();
        assert_eq!(l(Measure::Ndcg(Some(1))), 0.0);
        assert!(close(l(Measure::Ndcg(Some(2))), 0.75));
        assert!(close(l(Measure::Ndcg(Some(3))), d3 / 4.0));
        assert!(close(l(Measure::Ndcg(Some(4))), d3 / 4.0));
        assert_eq!(l(Measure::Ndcg(Some(5))), 0.0);
        assert!(close(l(Measure::MeanNdcg), (0.0 + 0.75 + 2.0 * d3 / 4.0) / 4.0));
        assert!(close(l(Measure::Precision(1)), 0.0));
        assert!(close(l(Measure::Precision(3)), 2.0 / 3.0));
        assert!(close(l(Measure::Precision(10)), 0.2));
        assert!(close(l(Measure::AveragePrecision), (0.5 + 2.0 / 3.0) / 2.0));
    }

    #[test]
    fn ties_and_conventions() {
        let labels = [0.0, 1.0, 0.5];
        let scores = [1.0, 1.0, 0.0];
        let p1 = |c, t| {
            query_metric(&MetricSpec { measure: Measure::Precision(1), convention: c, ties: t }, &labels, &scores)
        };
        assert_eq!(p1(Convention::Standard, Ties::Stable), 0.0);
        let spec = MetricSpec::new(Measure::Precision(2)).with_ties(Ties::Pessimistic);
        assert_eq!(query_metric(&spec, &[1.0, 0.0], &[1.0, 1.0]), 0.5);
        // 0.5 is relevant in the standard convention only.
        let ap = |c| query_metric(&MetricSpec::new(Measure::AveragePrecision).with_convention(c), &[0.5], &[0.0]);
        assert_eq!(ap(Convention::Standard), 1.0);
        assert_eq!(ap(Convention::Letor), 0.0);
    }

    #[test]
    fn per_query_mean_and_errors() {
        let labels = [1.0, 0.0, 0.0, 2.0, 0.0];
        let scores = [0.3, 0.2, 0.9, 0.1, 0.5];
        let offsets = [0, 2, 5];
        let spec = MetricSpec::new(Measure::AveragePrecision);
        let v =
            per_query(&spec, &labels, &scores, &crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap())
                .unwrap();
        assert_eq!(v, vec![1.0, 1.0 / 3.0]);
        assert!(close(
            mean(&spec, &labels, &scores, &crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap())
                .unwrap(),
            2.0 / 3.0
        ));
        let many = per_query_many(
            &[
                spec,
                MetricSpec::new(Measure::Ndcg(Some(1))),
                MetricSpec::new(Measure::AveragePrecision).with_ties(Ties::Pessimistic),
            ],
            &labels,
            &scores,
            &crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap(),
            None,
        )
        .unwrap();
        assert_eq!(many[0], v);
        assert_eq!(many[1], vec![1.0, 0.0]);
        assert_eq!(many[2], v);
        assert!(per_query(
            &spec,
            &labels,
            &scores[..4],
            &crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap()
        )
        .is_err());
        assert!(per_query(
            &spec,
            &labels,
            &scores,
            &crate::data::groups::QueryOffsets::new((&[0, 2, 4]).to_vec()).unwrap()
        )
        .is_err());
        assert!(per_query(
            &spec,
            &[-1.0, 0.0, 0.0, 0.0, 0.0],
            &scores,
            &crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap()
        )
        .is_err());
        assert!(per_query(
            &MetricSpec::new(Measure::Precision(0)),
            &labels,
            &scores,
            &crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap()
        )
        .is_err());
        assert!(per_query(
            &spec,
            &labels,
            &[f64::NAN, 0.0, 0.0, 0.0, 0.0],
            &crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap()
        )
        .is_err());
        assert!(mean(&spec, &[], &[], &crate::data::groups::QueryOffsets::new((&[0]).to_vec()).unwrap()).is_err());
        assert!(per_query_graded(
            &MetricSpec::new(Measure::Err(None)),
            &labels,
            &scores,
            &crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap(),
            Some(1.0)
        )
        .is_err());
    }

    #[test]
    fn parallel_path_equals_query_by_query() {
        // > PARALLEL_MIN_ROWS rows: the rayon path must give exactly the sequential values.
        let mut state = 12345u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        let mut offsets = vec![0usize];
        while *offsets.last().unwrap() < 40_000 {
            let len = 1 + next() % 60;
            offsets.push(offsets.last().unwrap() + len);
        }
        let m = *offsets.last().unwrap();
        let labels: Vec<f64> = (0..m).map(|_| (next() % 3) as f64).collect();
        let scores: Vec<f64> = (0..m).map(|_| (next() % 7) as f64).collect();
        for spec in [
            MetricSpec::letor(Measure::Ndcg(Some(10))),
            MetricSpec::new(Measure::MeanNdcg).with_ties(Ties::Pessimistic),
            MetricSpec::new(Measure::Err(None)),
        ] {
            let par = per_query(
                &spec,
                &labels,
                &scores,
                &crate::data::groups::QueryOffsets::new((&offsets).to_vec()).unwrap(),
            )
            .unwrap();
            let seq: Vec<f64> = offsets
                .windows(2)
                .map(|w| query_metric_graded(&spec, &labels[w[0]..w[1]], &scores[w[0]..w[1]], 2.0, &mut Scratch::new()))
                .collect();
            assert_eq!(par, seq);
        }
    }

    #[test]
    fn err_definition() {
        // ranked labels 2, 1 with g_max = 2: R = 3/4, 1/4.
        let spec = MetricSpec::new(Measure::Err(None));
        let v = query_metric(&spec, &[2.0, 1.0], &[1.0, 0.0]);
        assert!(close(v, 0.75 + 0.25 * 0.25 / 2.0));
        let v = per_query_graded(
            &spec,
            &[2.0, 1.0],
            &[1.0, 0.0],
            &crate::data::groups::QueryOffsets::new((&[0, 2]).to_vec()).unwrap(),
            Some(4.0),
        )
        .unwrap()[0];
        assert!(close(v, 3.0 / 16.0 + (13.0 / 16.0) * (1.0 / 16.0) / 2.0));
    }
}
