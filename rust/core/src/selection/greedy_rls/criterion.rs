//! How candidates are compared: the paper's squared LQO error (eq. 7) or a ranking measure
//! of the exact LQO predictions.

use crate::linalg::sq_norm_axpy4;
use crate::metrics::{query_metric_with, MetricSpec, Scratch};

/// Per-worker scratch of a criterion.
#[derive(Default)]
pub struct CriterionScratch {
    metric: Scratch,
    scores: Vec<f64>,
}

/// How candidates are compared: a sum of per-query terms of the LQO residuals.
pub trait Criterion: Sync {
    /// Term of one query whose query-centred LQO residuals are `p + g z`; `yc` are the
    /// query's centred labels, `y` its raw labels (hold-out scores are `yc - p - g z`).
    fn query_term(&self, p: &[f64], g: f64, z: &[f64], yc: &[f64], y: &[f64], scratch: &mut CriterionScratch) -> f64;
    /// The criterion from the sum of the query terms.
    fn finish(&self, total: f64, n_queries: usize) -> f64;
    /// `true` when larger values are better.
    fn higher_is_better(&self) -> bool;
    /// `true` when the labels must be relevance grades (>= 0).
    fn needs_grades(&self) -> bool {
        false
    }
    /// `true` for [`Squared`] alone: the greedy pass then inlines its term
    /// ([`sq_norm_axpy4`]) into the pass compiled at the SIMD level.
    fn is_squared(&self) -> bool {
        false
    }
}

/// The paper's criterion: the sum of squared query-centred hold-out residuals (eq. 7).
#[derive(Clone, Copy, Debug, Default)]
pub struct Squared;

impl Criterion for Squared {
    fn query_term(&self, p: &[f64], g: f64, z: &[f64], _: &[f64], _: &[f64], _: &mut CriterionScratch) -> f64 {
        sq_norm_axpy4(p, g, z)
    }
    fn finish(&self, total: f64, _: usize) -> f64 {
        total
    }
    fn higher_is_better(&self) -> bool {
        false
    }
    fn is_squared(&self) -> bool {
        true
    }
}

/// A ranking measure on the exact LQO predictions (ours, not in the paper): the mean over
/// queries of `metric(labels_q, yc_q - p_q)`, where `yc_q - p_q = Xc_q w_{-q}` are the
/// hold-out scores up to a per-query constant (which no ranking measure sees). Higher is
/// better. Labels must be >= 0.
#[derive(Clone, Copy, Debug)]
pub struct MetricCriterion(pub MetricSpec);

impl Criterion for MetricCriterion {
    fn query_term(&self, p: &[f64], g: f64, z: &[f64], yc: &[f64], y: &[f64], s: &mut CriterionScratch) -> f64 {
        s.scores.clear();
        s.scores.extend(p.iter().zip(z).zip(yc).map(|((pv, zv), yv)| yv - (pv + g * zv)));
        query_metric_with(&self.0, y, &s.scores, &mut s.metric)
    }
    fn finish(&self, total: f64, n_queries: usize) -> f64 {
        total / n_queries as f64
    }
    fn higher_is_better(&self) -> bool {
        true
    }
    fn needs_grades(&self) -> bool {
        true
    }
}
