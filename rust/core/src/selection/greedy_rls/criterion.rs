//! How candidates are compared: the paper's squared LQO error (eq. 7) or a ranking measure
//! of the exact LQO predictions.

use crate::linalg::sq_norm_axpy4;
use crate::metrics::{query_metric_with, MetricSpec, Scratch};

/// Per-worker scratch of a criterion.
#[derive(Default)]
pub struct CriterionScratch {
    metric: Scratch,
    scores: Vec<f64>,
    order: Vec<usize>,
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
///
/// The scores are differences of the residuals' caches, whose rounding is up to the
/// accuracy monitor's tolerance ([`PRED_RTOL`]) of the query's scale: scores within it of
/// each other are ties ([`tie_within`]), ranked by the metric's tie convention. So a
/// held-out query whose other queries teach nothing (constant labels, or features constant
/// within them: its exact scores are all 0) is scored as all ties, not by rounding residue.
#[derive(Clone, Copy, Debug)]
pub struct MetricCriterion(pub MetricSpec);

impl Criterion for MetricCriterion {
    fn query_term(&self, p: &[f64], g: f64, z: &[f64], yc: &[f64], y: &[f64], s: &mut CriterionScratch) -> f64 {
        s.scores.clear();
        let mut scale = 0.0f64;
        s.scores.extend(p.iter().zip(z).zip(yc).map(|((pv, zv), yv)| {
            let r = pv + g * zv;
            scale = scale.max(yv.abs()).max(r.abs());
            yv - r
        }));
        tie_within(&mut s.scores, PRED_RTOL * scale, &mut s.order);
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

/// Relative rounding bound of a held-out score `yc_i - r_i` against the query's scale
/// `max_i max(|yc_i|, |r_i|)`: the accuracy monitor's tolerance of a value the run trusts
/// (its `TOL`, the same 1e-11, `monitor_tests`; a doubted value is recomputed exactly).
pub const PRED_RTOL: f64 = 1e-11;

/// Scores within `tol` of each other are ties: sorted, each run whose consecutive gaps are at
/// most `tol` takes the run's smallest score (exactly equal scores then rank by the metric's
/// tie convention). `order`: a buffer. Nothing changes when every gap exceeds `tol`.
pub(crate) fn tie_within(scores: &mut [f64], tol: f64, order: &mut Vec<usize>) {
    if scores.len() < 2 || tol.is_nan() || tol <= 0.0 {
        return;
    }
    order.clear();
    order.extend(0..scores.len());
    order.sort_unstable_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(a.cmp(&b)));
    let (mut run, mut last) = (scores[order[0]], scores[order[0]]);
    for &i in &order[1..] {
        let v = scores[i];
        // (NaN or infinite gaps start a run: such a score is left as it is)
        let gap = v - last;
        if gap.is_nan() || gap > tol {
            run = v;
        }
        last = v;
        scores[i] = run;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_within_the_bound_tie() {
        let mut order = Vec::new();
        let mut s = [3e-16, -1e-16, 0.5, 2e-16, 0.5 + 1e-13];
        tie_within(&mut s, 1e-11, &mut order);
        assert_eq!(s, [-1e-16, -1e-16, 0.5, -1e-16, 0.5]);
        let mut s = [1.0, 0.0, 2.0];
        tie_within(&mut s, 1e-11, &mut order);
        assert_eq!(s, [1.0, 0.0, 2.0]);
    }
}
