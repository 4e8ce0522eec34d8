//! How a step chooses its feature from the candidates' criterion values (`None`: not a
//! candidate): the best value (Algorithm 1), or the largest improvement per unit cost under a
//! budget ([`crate::selection::cost_greedy`]).

use crate::error::Result;
use crate::invalid;

/// The choice rule of a greedy run.
#[derive(Clone, Copy, Debug)]
pub enum Choice<'c> {
    /// The best criterion value; ties to the lowest index; NaN never wins ([`choose_best`]).
    Best,
    /// The largest improvement per unit cost among the affordable candidates
    /// ([`choose_per_cost`]); `budget` caps the total cost of the selection.
    /// With `shared`, a feature's cost is its marginal cost: its own plus its group's
    /// extraction cost while no member of the group is selected (the first member pays it).
    PerCost { feature_costs: &'c [f64], budget: Option<f64>, shared: Option<SharedCosts<'c>> },
}

/// Shared extraction costs of feature groups: `feature_group[j]` is the group of feature
/// `j`, `group_costs[g]` the cost paid once by the first selected member of group `g`.
#[derive(Clone, Copy, Debug)]
pub struct SharedCosts<'c> {
    pub feature_group: &'c [usize],
    pub group_costs: &'c [f64],
}

impl SharedCosts<'_> {
    /// The marginal cost of every feature given which groups are `paid`:
    /// `c_j + C_{g(j)} [g(j) not paid]`.
    pub fn marginal(&self, feature_costs: &[f64], paid: &[bool]) -> Vec<f64> {
        feature_costs
            .iter()
            .zip(self.feature_group)
            .map(|(c, &g)| if paid[g] { *c } else { c + self.group_costs[g] })
            .collect()
    }
}

impl Choice<'_> {
    /// Checks the costs (`n` finite values >= 0) and the budget (finite, >= 0).
    pub fn check(&self, n: usize) -> Result<()> {
        let Choice::PerCost { feature_costs, budget, shared } = self else {
            return Ok(());
        };
        if feature_costs.len() != n {
            return invalid!("feature_costs has {} entries but X has {n} features", feature_costs.len());
        }
        if let Some(j) = feature_costs.iter().position(|c| !(c.is_finite() && *c >= 0.0)) {
            return invalid!("feature_costs must be finite and >= 0; feature {j} has {}", feature_costs[j]);
        }
        if !feature_costs.iter().sum::<f64>().is_finite() {
            return invalid!("feature_costs sum to more than the largest float64 (their sum overflows): rescale them");
        }
        if let Some(b) = budget {
            if !(b.is_finite() && *b >= 0.0) {
                return invalid!("budget must be finite and >= 0, got {b}");
            }
        }
        if let Some(sh) = shared {
            if sh.feature_group.len() != n {
                return invalid!("feature_group has {} entries but X has {n} features", sh.feature_group.len());
            }
            let ng = sh.group_costs.len();
            if let Some(j) = sh.feature_group.iter().position(|&g| g >= ng) {
                return invalid!("feature {j} is in group {}, but there are {ng} group costs", sh.feature_group[j]);
            }
            if let Some(g) = sh.group_costs.iter().position(|c| !(c.is_finite() && *c >= 0.0)) {
                return invalid!("group_costs must be finite and >= 0; group {g} has {}", sh.group_costs[g]);
            }
        }
        Ok(())
    }
}

/// Relative rounding tolerance of a budget: a selection costing at most `budget (1 + 1e-9)`
/// fits (three features of cost 0.1 fit a budget of 0.3, whose float sum is
/// 0.30000000000000004).
pub const BUDGET_RTOL: f64 = 1e-9;

/// `true` when `new` is better than `best` (NaN is never better).
pub(crate) fn better(new: f64, best: f64, higher: bool) -> bool {
    if higher {
        new > best
    } else {
        new < best
    }
}

/// The absolute rounding bound of value `i` (`bounds` empty: every value exact).
fn bound_of(bounds: &[f64], i: usize) -> f64 {
    bounds.get(i).copied().unwrap_or(0.0)
}

/// `true` when `a` and `b`, with absolute rounding bounds `ba` and `bb`, may be equal: equal
/// values, or within their joint bound (a tie in exact terms).
fn may_tie(a: f64, ba: f64, b: f64, bb: f64) -> bool {
    a == b || (a - b).abs() <= ba + bb
}

/// The best candidate: the best value (NaN never wins), then the lowest index whose value
/// ties it within their joint rounding bound (`bounds[i]`: the absolute bound of value `i`,
/// the accuracy monitor's; empty: the values are exact, a tie is equality). `None` when no
/// candidate has a value.
pub fn choose_best(values: &[Option<f64>], bounds: &[f64], higher: bool) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for (i, v) in values.iter().enumerate() {
        if let Some(v) = *v {
            match best {
                None if !v.is_nan() => best = Some((i, v)),
                Some((_, bv)) if better(v, bv, higher) => best = Some((i, v)),
                _ => {}
            }
        }
    }
    let (b, vb) = best?;
    let bb = bound_of(bounds, b);
    values
        .iter()
        .enumerate()
        .take(b)
        .find_map(|(i, v)| v.filter(|&v| may_tie(v, bound_of(bounds, i), vb, bb)).map(|v| (i, v)))
        .or(best)
}

/// The cost-aware choice rule (module docs of [`crate::selection::cost_greedy`]) over the
/// candidates' criterion values: the largest improvement on `prev` per unit cost among the
/// affordable candidates that improve (a free one first), then the larger improvement, then
/// the lowest index; without an improving candidate, the best value ([`choose_best`]).
/// Values within their joint rounding bound tie (`bounds`, absolute, as for [`choose_best`];
/// `prev_bound`: that of `prev`), and an improvement within the bound of the value and of
/// `prev` is none. Returns `(feature, value)` or `None` when no candidate is affordable and
/// finite.
// The rule's inputs, one argument each.
#[allow(clippy::too_many_arguments)]
pub fn choose_per_cost(
    values: &[Option<f64>],
    bounds: &[f64],
    feature_costs: &[f64],
    prev: f64,
    prev_bound: f64,
    higher: bool,
    spent: f64,
    budget: Option<f64>,
) -> Option<(usize, f64)> {
    let affordable = |i: usize| budget.is_none_or(|b| spent + feature_costs[i] <= b * (1.0 + BUDGET_RTOL));
    let gain = |v: f64| if higher { v - prev } else { prev - v };
    let bound = |i: usize| bound_of(bounds, i);
    let candidates: Vec<(usize, f64)> = values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.filter(|v| v.is_finite()).map(|v| (i, v)))
        .filter(|&(i, _)| affordable(i))
        .collect();
    let improving: Vec<(usize, f64)> =
        candidates.iter().copied().filter(|&(i, v)| gain(v) > 0.0 && gain(v) > bound(i) + prev_bound).collect();
    if improving.is_empty() {
        let mut only: Vec<Option<f64>> = vec![None; values.len()];
        candidates.iter().for_each(|&(i, v)| only[i] = Some(v));
        return choose_best(&only, bounds, higher);
    }
    // per candidate: (feature, value, ratio, the ratio's bound); a free feature's ratio is infinite
    let ratios: Vec<(usize, f64, f64, f64)> = improving
        .iter()
        .map(|&(i, v)| {
            let c = feature_costs[i];
            if c > 0.0 {
                (i, v, gain(v) / c, (bound(i) + prev_bound) / c)
            } else {
                (i, v, f64::INFINITY, 0.0)
            }
        })
        .collect();
    let top = ratios.iter().copied().reduce(|a, b| if b.2 > a.2 { b } else { a })?;
    let tied: Vec<(usize, f64)> =
        ratios.iter().filter(|r| may_tie(r.2, r.3, top.2, top.3)).map(|r| (r.0, r.1)).collect();
    // among the ratios that tie, the larger improvement (the better value), then the lowest index
    let (g, vg) = tied.iter().copied().reduce(|a, b| if better(b.1, a.1, higher) { b } else { a })?;
    tied.iter().copied().find(|&(i, v)| may_tie(v, bound(i), vg, bound(g)))
}

/// A choice rule during a run: the rule and its bookkeeping (the criterion of the current
/// model, and with costs what the selection has spent and which groups it has paid for).
pub(crate) struct Chooser<'c> {
    choice: Choice<'c>,
    higher: bool,
    /// The criterion of the current model (the empty model's first, for the cost-aware rule)
    /// and its absolute rounding bound.
    prev: f64,
    prev_bound: f64,
    /// The total cost of the selection so far.
    spent: f64,
    /// Shared group costs: the groups paid for so far (their first member paid).
    paid: Vec<bool>,
}

impl<'c> Chooser<'c> {
    /// The rule `choice` before the first step; `baseline` gives the empty model's criterion
    /// (asked only by the cost-aware rule).
    pub(crate) fn new(choice: Choice<'c>, higher: bool, baseline: impl FnOnce() -> Result<f64>) -> Result<Self> {
        let (prev, paid) = match choice {
            Choice::Best => (f64::NAN, Vec::new()),
            Choice::PerCost { shared, .. } => {
                (baseline()?, shared.map_or_else(Vec::new, |sh| vec![false; sh.group_costs.len()]))
            }
        };
        Ok(Chooser { choice, higher, prev, prev_bound: 0.0, spent: 0.0, paid })
    }

    /// `true` for the cost-aware rule.
    pub(crate) fn is_per_cost(&self) -> bool {
        matches!(self.choice, Choice::PerCost { .. })
    }

    /// The candidate the rule picks from `values` (their absolute rounding bounds `bounds`):
    /// `(unit, value)`, or `None` when none is finite and affordable.
    pub(crate) fn pick(&self, values: &[Option<f64>], bounds: &[f64]) -> Option<(usize, f64)> {
        let (prev, pb, spent, higher) = (self.prev, self.prev_bound, self.spent, self.higher);
        match self.choice {
            Choice::Best => choose_best(values, bounds, higher),
            Choice::PerCost { feature_costs, budget, shared: None } => {
                choose_per_cost(values, bounds, feature_costs, prev, pb, higher, spent, budget)
            }
            // the current marginal costs: each step sees the groups paid so far
            Choice::PerCost { feature_costs, budget, shared: Some(sh) } => {
                let costs = sh.marginal(feature_costs, &self.paid);
                choose_per_cost(values, bounds, &costs, prev, pb, higher, spent, budget)
            }
        }
    }

    /// Unit `b` was selected with criterion `value` (absolute rounding bound `bound`): the
    /// new current model, and with costs its cost spent (and its group's, paid once).
    pub(crate) fn take(&mut self, b: usize, value: f64, bound: f64) {
        if let Choice::PerCost { feature_costs, shared, .. } = self.choice {
            self.spent += feature_costs[b];
            if let Some(sh) = shared {
                let g = sh.feature_group[b];
                if !self.paid[g] {
                    self.spent += sh.group_costs[g];
                    self.paid[g] = true;
                }
            }
        }
        self.prev = value;
        self.prev_bound = bound;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_within_the_joint_bound_go_to_the_lowest_index() {
        // 5.875 up to rounding: without bounds the smallest wins, with them the lowest index
        let v = [Some(5.875 + 4e-15), Some(5.875), Some(5.875 - 2e-15), Some(6.0)];
        assert_eq!(choose_best(&v, &[], false), Some((2, 5.875 - 2e-15)));
        let b = [1e-14; 4];
        assert_eq!(choose_best(&v, &b, false), Some((0, 5.875 + 4e-15)));
        // beyond the joint bound: no tie
        let b = [1e-15; 4];
        assert_eq!(choose_best(&v, &b, false), Some((1, 5.875)));
        // NaN never wins, nor ties
        let v = [Some(f64::NAN), None, Some(1.0), Some(1.0)];
        assert_eq!(choose_best(&v, &[f64::INFINITY; 4], true), Some((2, 1.0)));
    }

    #[test]
    fn per_cost_ties_and_gains_within_the_bound() {
        // prev 10 (lower is better), equal costs: gains 2 up to rounding tie to the lowest index
        let v = [Some(8.0 + 1e-14), Some(8.0), Some(9.0)];
        let c = [1.0; 3];
        assert_eq!(choose_per_cost(&v, &[], &c, 10.0, 0.0, false, 0.0, None), Some((1, 8.0)));
        assert_eq!(choose_per_cost(&v, &[1e-14; 3], &c, 10.0, 0.0, false, 0.0, None), Some((0, 8.0 + 1e-14)));
        // an improvement within the bound of the value and of `prev` is none: the best value
        let v = [Some(10.0 + 1e-15), Some(10.0 - 1e-15)];
        assert_eq!(choose_per_cost(&v, &[], &[1.0, 1.0], 10.0, 0.0, false, 0.0, None), Some((1, 10.0 - 1e-15)));
        assert_eq!(choose_per_cost(&v, &[1e-14; 2], &[1.0, 5.0], 10.0, 0.0, false, 0.0, None), Some((0, 10.0 + 1e-15)));
    }

    #[test]
    fn chooser_keeps_the_cost_bookkeeping() {
        let (fc, gc, fg) = ([1.0, 1.0, 1.0], [2.0, 0.5], [0, 0, 1]);
        let shared = SharedCosts { feature_group: &fg, group_costs: &gc };
        let choice = Choice::PerCost { feature_costs: &fc, budget: Some(4.0), shared: Some(shared) };
        let mut rule = Chooser::new(choice, false, || Ok(10.0)).unwrap();
        // marginal costs 3, 3, 1.5: feature 2 gains 1 per 1.5, feature 0 4 per 3
        let v = [Some(6.0), Some(7.0), Some(9.0)];
        assert_eq!(rule.pick(&v, &[]), Some((0, 6.0)));
        rule.take(0, 6.0, 0.0);
        // group 0 paid (spent 3): feature 1 costs 1 and fits the budget 4, feature 2 costs 1.5 and does not
        let v = [None, Some(5.0), Some(1.0)];
        assert_eq!(rule.pick(&v, &[]), Some((1, 5.0)));
        assert!(rule.is_per_cost());
        assert!(!Chooser::new(Choice::Best, true, || unreachable!()).unwrap().is_per_cost());
    }
}
