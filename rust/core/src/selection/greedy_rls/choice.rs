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

/// The best candidate: the first value that is not NaN, then any strictly better one (ties
/// to the lowest index; NaN never wins). `None` when no candidate has a value.
pub fn choose_best(values: &[Option<f64>], higher: bool) -> Option<(usize, f64)> {
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
    best
}

/// The cost-aware choice rule (module docs of [`crate::selection::cost_greedy`]) over the
/// candidates' criterion values. Returns `(feature, value)` or `None` when no candidate is
/// affordable and finite.
pub fn choose_per_cost(
    values: &[Option<f64>],
    feature_costs: &[f64],
    prev: f64,
    higher: bool,
    spent: f64,
    budget: Option<f64>,
) -> Option<(usize, f64)> {
    let affordable = |i: usize| budget.is_none_or(|b| spent + feature_costs[i] <= b * (1.0 + BUDGET_RTOL));
    let gain = |v: f64| if higher { v - prev } else { prev - v };
    let candidates: Vec<(usize, f64)> = values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.filter(|v| v.is_finite()).map(|v| (i, v)))
        .filter(|&(i, _)| affordable(i))
        .collect();
    if candidates.iter().any(|&(_, v)| gain(v) > 0.0) {
        let ratio = |i: usize, v: f64| if feature_costs[i] > 0.0 { gain(v) / feature_costs[i] } else { f64::INFINITY };
        let mut best: Option<(usize, f64, f64)> = None; // (feature, value, ratio)
        for &(i, v) in candidates.iter().filter(|&&(_, v)| gain(v) > 0.0) {
            let r = ratio(i, v);
            let take = match best {
                None => true,
                Some((_, bv, br)) => {
                    r > br || (r == br && (gain(v) > gain(bv) || (gain(v) == gain(bv) && better(v, bv, higher))))
                }
            };
            if take {
                best = Some((i, v, r));
            }
        }
        return best.map(|(i, v, _)| (i, v));
    }
    let mut best: Option<(usize, f64)> = None;
    for &(i, v) in &candidates {
        if best.is_none_or(|(_, bv)| better(v, bv, higher)) {
            best = Some((i, v));
        }
    }
    best
}
