//! The accuracy monitor of the in-memory greedy run: an estimate of each candidate value's
//! relative rounding error from the quantities the pass has at hand, so that the values it
//! doubts are recomputed by the exact criterion ([`super::exact`]) and the others, which keep
//! the shortcut's bits, are trusted (module docs of [`super`], "Exactness").
//!
//! The shortcut's caches are updated by differences. Their values start at the scale of
//! `1/alpha` (`C = Xc/alpha`, `M = Xc^T Xc/alpha`) and shrink as the model grows, so each keeps
//! an absolute error of about `eps` times its starting size: column `i`'s caches are accurate
//! to about `eps rho_i`, `rho_i = M_ii(0) / min(M_ii, 1 + s M_ii)` (`M_ii(0) = ||x_i||^2 /
//! alpha`; `s = +1` to add `i`, `-1` to remove it, where `1 - M_ii` is the downdate's pivot).
//! A step divides by `1 - c s1_q` per query (`den`, Theorem 3.1's block update, small when the
//! model would explain a direction of query `q` that no other query has), which multiplies the
//! error of the caches it writes (`p`, `U`, shared by every later value) by `1 / den`: the
//! monitor keeps that shared level `E` (in units of `eps`; `E <- E / den_b + rho_b` per step). A candidate's value is then accurate to about
//!
//! ```text
//! est_i = eps (E + rho_i) / den_i * max(1, v_model / v_i)
//! ```
//!
//! (the last factor: a value far below the current model's `v_model` loses the digits of the
//! difference); a unit of `b` columns uses its members' largest `rho`, and its blocks' smallest
//! relative pivot for `den`. A value is recomputed when `SAFETY * est_i > TOL`. On
//! well-conditioned data (moderate `alpha`) no value is, and the run is the shortcut's, bit for
//! bit; at small `alpha`, with nearly collinear columns or more columns than the other queries
//! span, the doubtful values are the exact ones.

use super::state::GreedyState;
use super::step::Step;

/// Relative error above which a value is recomputed exactly.
pub const TOL: f64 = 1e-11;
/// The relative rounding bound of a recomputed value: the exact criterion's own rounding
/// (up to a few 1e-9 at `alpha = 1e-6`, where a held-out query's system is ill-conditioned;
/// the accuracy the reported values are tested to, and floating search's tie,
/// [`super::REL_TIE`]).
pub const RECOMPUTED_RTOL: f64 = 1e-8;
/// Slack of the estimate (measured: the largest ratio of the actual error to the estimate on
/// random problems with the hard cases was below 1/SAFETY).
const SAFETY: f64 = 64.0;

/// The monitor's state (module docs).
#[derive(Clone, Debug)]
pub(crate) struct Monitor {
    /// `E`: the shared caches' error level, in units of `eps`.
    level: f64,
    /// `||yc||^2`: the residuals' starting size (`p = yc` at `S = {}`).
    start: f64,
    /// The criterion is the squared LQO error (its values are `||p'||^2`).
    squared: bool,
}

impl Monitor {
    pub(crate) fn new(state: &GreedyState, squared: bool) -> Self {
        Monitor { level: 1.0, start: state.model_value(), squared }
    }

    /// A monitor for residuals that start at `||yc||^2 = start`, for a backend without a
    /// [`GreedyState`] (the query shards, [`crate::shards::greedy_sharded`]).
    pub(crate) fn starting_at(start: f64, squared: bool) -> Self {
        Monitor { level: 1.0, start, squared }
    }

    /// Back to the caches of `S = {}`.
    pub(crate) fn reset(&mut self, state: &GreedyState) {
        *self = Monitor::new(state, self.squared);
    }

    /// The residuals' cancellation so far: `||yc||^2 / ||p||^2`.
    fn shrink(&self, model: f64) -> f64 {
        if !self.squared {
            1.0
        } else if model > 0.0 {
            (self.start / model).max(1.0)
        } else if self.start > 0.0 {
            f64::INFINITY
        } else {
            1.0
        }
    }

    /// A rank-one step was applied: the shared level grows by its amplification.
    pub(crate) fn record(&mut self, step: &Step) {
        self.record_parts(step.rho, step.change, step.den);
    }

    /// [`Monitor::record`] from a step's `rho_b`, relative change of `||p||^2` ([`relative_change`])
    /// and smallest `1 - c s1_q` (`den`).
    pub(crate) fn record_parts(&mut self, rho: f64, change: f64, den: f64) {
        self.level += (1.0 + rho * change.max(change.sqrt())) / den;
    }

    /// `true` when a value with estimated relative error `est` must be recomputed.
    pub(crate) fn doubts(&self, est: f64) -> bool {
        est.is_nan() || SAFETY * est > TOL
    }

    /// How far an estimate `est` is above the tolerance (`> 1`: doubted).
    pub(crate) fn excess(&self, est: f64) -> f64 {
        SAFETY * est / TOL
    }

    /// The relative error bound of a value whose estimate is `est` (`SAFETY est`).
    pub(crate) fn bound(&self, est: f64) -> f64 {
        SAFETY * est
    }

    /// The share of a candidate's value that its own column(s) change (a ranking measure's
    /// values are not on the scale of `||p||^2`: all of it).
    fn change(&self, value: f64, model: f64) -> f64 {
        if self.squared {
            // the change `2 p^T w + ||w||^2` of `||p + w||^2` may be far smaller than the
            // part `w` that carries the column's error: `||w|| / ||p||` is about its square root
            let c = relative_change(model, value);
            c.max(c.sqrt())
        } else {
            1.0
        }
    }

    fn scale(&self, value: f64, model: f64) -> f64 {
        if !self.squared {
            return 1.0;
        }
        let ratio = if value != 0.0 { model.abs() / value.abs() } else { f64::INFINITY };
        ratio.max(1.0)
    }

    /// Per column: the estimate of its value (`0` for the columns without one).
    pub(crate) fn singleton_estimates(&self, state: &GreedyState, values: &[Option<f64>], dens: &[f64]) -> Vec<f64> {
        let model = state.model_value();
        let shared = self.level + self.shrink(model);
        values
            .iter()
            .zip(dens)
            .enumerate()
            .map(|(i, (v, &den))| match v {
                Some(v) => self.estimate_with(shared, model, state.rho(i), *v, den),
                None => 0.0,
            })
            .collect()
    }

    /// The estimate of one column's value `value` (module docs) with the model's `||p||^2 =
    /// model`, the column's `rho` and its smallest `1 - c s1_q` (`den`).
    pub(crate) fn estimate(&self, model: f64, rho: f64, value: f64, den: f64) -> f64 {
        self.estimate_with(self.level + self.shrink(model), model, rho, value, den)
    }

    fn estimate_with(&self, shared: f64, model: f64, rho: f64, value: f64, den: f64) -> f64 {
        let own = (1.0 + rho * self.change(value, model)) / den;
        f64::EPSILON * (shared * self.scale(value, model) + own)
    }

    /// The estimate of a unit's block value `value` (`piv`: its blocks' smallest relative pivot).
    pub(crate) fn block_estimate(
        &self,
        state: &GreedyState,
        cols: &[usize],
        _remove: bool,
        value: f64,
        piv: f64,
    ) -> f64 {
        let rho = cols.iter().map(|&j| state.rho(j)).fold(0.0, f64::max);
        self.unit_estimate(state.model_value(), rho, cols.len(), value, piv)
    }

    /// The estimate of the block value `value` of a unit of `b` columns whose largest `rho` is
    /// `rho` (`piv`: its blocks' smallest relative pivot), with the model's `||p||^2 = model`.
    pub(crate) fn unit_estimate(&self, model: f64, rho: f64, b: usize, value: f64, piv: f64) -> f64 {
        let den = if piv > 0.0 { piv } else { 0.0 };
        let own = (1.0 + rho * b as f64 * self.change(value, model)) / den;
        f64::EPSILON * ((self.level + self.shrink(model)) * self.scale(value, model) + own)
    }
}

/// The accuracy monitor's `rho_i` of a column (module docs): `M_ii(0) / min(M_ii, 1 + s M_ii)`
/// with `M_ii(0) = ||x_i||^2 / alpha = m0` (`s = -1` while it is in the model), 0 for a zero
/// column.
pub(crate) fn rho(m0: f64, mii: f64, in_model: bool) -> f64 {
    if m0 == 0.0 {
        return 0.0;
    }
    let pivot = if in_model { 1.0 - mii } else { 1.0 + mii };
    m0 / mii.abs().min(pivot.abs())
}

/// `|before - after| / |after|`: how much of a value is a change (its digits lost to a
/// difference); infinite when `after` is 0 and `before` is not.
pub(crate) fn relative_change(before: f64, after: f64) -> f64 {
    let d = (before - after).abs();
    if d == 0.0 {
        0.0
    } else {
        d / after.abs()
    }
}
