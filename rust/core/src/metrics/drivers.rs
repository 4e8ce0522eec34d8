//! Measures over rows grouped by query: validated inputs, per-query values (parallel over
//! queries, deterministic) and means in query order.

use rayon::prelude::*;

use super::query::{from_ranked, max_label, query_metric_graded, Scratch};
use super::spec::{check_gain_labels, MetricSpec, Ties};
use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::invalid;

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
