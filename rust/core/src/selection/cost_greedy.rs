//! Greedy RankRLS under feature costs (ours, not in Pahikkala et al. 2010): the same exact
//! leave-query-out (LQO) candidate scan as [`crate::selection::greedy_rls`] ([`GreedyState::pass`](crate::selection::greedy_rls::GreedyState::pass)),
//! with a different choice rule and a budget.
//!
//! With `v_i` the criterion after adding candidate `i`, `v_prev` the criterion of the
//! current model (at step 0 the empty model, whose LQO residuals are the centred labels)
//! (for a ranking-measure criterion its scores all tie, so queries keep their row order)
//! and `gain_i = v_prev - v_i` (or `v_i - v_prev` when higher is better), a candidate is
//! *affordable* when `spent + cost_i <= budget`. Among affordable candidates:
//!
//! ```text
//! if some gain_i > 0:   choose argmax gain_i / cost_i   (cost 0: +inf)
//!                       ties: larger gain, then better v_i, then lower index
//! else:                 choose the best v_i (the plain greedy rule), lower index on ties
//! ```
//!
//! The run stops after `n_features_to_select` steps, when no candidate is affordable, or
//! (with `min_improvement`) when the chosen step improves by less than
//! `min_improvement · |v_prev|`. Features constant within every query
//! cannot change the model: as in the plain greedy they are never candidates, and the run
//! stops when only they are left. With equal costs and no budget the first branch picks the
//! largest gain, which is the plain rule's choice.

use ndarray::ArrayView2;

use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::selection::greedy_rls::{greedy_rankrls_units, Choice, Criterion, GreedyOptions, GreedyPath, Units};

pub use crate::selection::greedy_rls::choose_per_cost;

/// Greedy RankRLS with feature costs and an optional budget, on grouped `x` (m x n).
///
/// `feature_costs` (length n, finite, >= 0); `budget` (finite, >= 0) caps the sum of the
/// costs of the selected features; `opts.max_memory` (bytes) bounds the caches
/// ([`state_bytes`](crate::selection::greedy_rls::state_bytes)). The result may hold fewer
/// than `opts.n_features_to_select` features (`stop`: budget, `min_improvement`, or only
/// features constant within every query left, which are never candidates). The loop is
/// [`greedy_rankrls_units`] over the features with [`Choice::PerCost`].
// A kernel entry point: one argument per parameter of the method.
#[allow(clippy::too_many_arguments)]
pub fn greedy_rankrls_costs(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    opts: &GreedyOptions,
    feature_costs: &[f64],
    budget: Option<f64>,
    criterion: &dyn Criterion,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<GreedyPath> {
    let choice = Choice::PerCost { feature_costs, budget, shared: None };
    greedy_rankrls_per_cost(x, y, offsets, opts, &choice, criterion, interrupt, progress)
}

/// [`greedy_rankrls_costs`] with any per-cost `choice` ([`Choice::PerCost`]), e.g. with
/// shared group costs ([`SharedCosts`](crate::selection::greedy_rls::SharedCosts)): each
/// step then compares the candidates' current marginal costs (the first member of a group
/// pays its extraction cost) and the budget caps the total.
#[allow(clippy::too_many_arguments)]
pub fn greedy_rankrls_per_cost(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    opts: &GreedyOptions,
    choice: &Choice<'_>,
    criterion: &dyn Criterion,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<GreedyPath> {
    if !matches!(choice, Choice::PerCost { .. }) {
        return invalid!("greedy_rankrls_per_cost needs a per-cost choice rule");
    }
    let units = Units::singletons(x.ncols());
    greedy_rankrls_units(x, y, offsets, &units, opts, choice, criterion, interrupt, progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use crate::selection::greedy_rls::{greedy_rankrls, Squared};
    use crate::testing::problem;
    use ndarray::Array2;

    fn run(x: &Array2<f64>, y: &[f64], off: &QueryOffsets, k: usize, costs: &[f64], budget: Option<f64>) -> GreedyPath {
        let opts = GreedyOptions { n_features_to_select: k, alpha: 0.5, min_improvement: None, max_memory: None };
        greedy_rankrls_costs(x.view(), y, off, &opts, costs, budget, &Squared, &NoInterrupt, &mut |_, _, _| Ok(()))
            .unwrap()
    }

    #[test]
    fn equal_costs_give_the_plain_greedy() {
        for seed in 1..5u64 {
            let (x, y, off) = problem(seed, &[5, 1, 7, 3, 4, 6, 2], 6);
            let off = QueryOffsets::new(off).unwrap();
            let opts = GreedyOptions { n_features_to_select: 6, alpha: 0.5, min_improvement: None, max_memory: None };
            let plain =
                greedy_rankrls(x.view(), &y, &off, &opts, &Squared, &NoInterrupt, &mut |_, _, _| Ok(())).unwrap();
            let costed = run(&x, &y, &off, 6, &[2.5; 6], None);
            assert_eq!(plain.selected, costed.selected);
            assert_eq!(plain.lqo_scores, costed.lqo_scores);
        }
    }

    #[test]
    fn budget_is_never_exceeded() {
        let (x, y, off) = problem(3, &[5, 1, 7, 3, 4, 6, 2], 6);
        let off = QueryOffsets::new(off).unwrap();
        let costs = [1.0, 2.0, 0.5, 3.0, 1.5, 0.25];
        for budget in [0.0, 0.2, 0.5, 1.0, 2.7, 4.0, 100.0] {
            let p = run(&x, &y, &off, 6, &costs, Some(budget));
            let total: f64 = p.selected.iter().map(|&j| costs[j]).sum();
            assert!(total <= budget, "budget {budget}: spent {total}");
            // nothing affordable was left out when the run stopped early
            if p.selected.len() < 6 {
                assert!((0..6).filter(|j| !p.selected.contains(j)).all(|j| total + costs[j] > budget));
            }
        }
    }

    #[test]
    fn choice_rule_by_hand() {
        // lower is better, prev 10: gains 4 (cost 2 -> 2), 3 (cost 1 -> 3), 1 (cost 0 -> inf)
        let v = [Some(6.0), Some(7.0), Some(9.0), None];
        let c = [2.0, 1.0, 0.0, 1.0];
        assert_eq!(choose_per_cost(&v, &[], &c, 10.0, 0.0, false, 0.0, None), Some((2, 9.0)));
        let c = [2.0, 1.0, 5.0, 1.0];
        assert_eq!(choose_per_cost(&v, &[], &c, 10.0, 0.0, false, 0.0, None), Some((1, 7.0)));
        // budget: feature 0 has the best ratio (4 / 1.5) but fits only with room >= 1.5
        let (v2, c2) = ([Some(6.0), Some(9.0)], [1.5, 1.0]);
        assert_eq!(choose_per_cost(&v2, &[], &c2, 10.0, 0.0, false, 1.0, Some(2.5)), Some((0, 6.0)));
        assert_eq!(choose_per_cost(&v2, &[], &c2, 10.0, 0.0, false, 1.0, Some(2.2)), Some((1, 9.0)));
        assert_eq!(choose_per_cost(&v2, &[], &c2, 10.0, 0.0, false, 1.0, Some(1.9)), None);
        // nothing improves: the best value, whatever the cost
        assert_eq!(choose_per_cost(&v, &[], &[1.0, 1.0, 0.0, 1.0], 5.0, 0.0, false, 0.0, None), Some((0, 6.0)));
    }

    #[test]
    fn bad_costs() {
        let (x, y, off) = problem(2, &[3, 4], 3);
        let off = QueryOffsets::new(off).unwrap();
        let call = |c: &[f64], b: Option<f64>, max_memory: u64| {
            let opts = GreedyOptions {
                n_features_to_select: 2,
                alpha: 1.0,
                min_improvement: None,
                max_memory: Some(max_memory),
            };
            greedy_rankrls_costs(x.view(), &y, &off, &opts, c, b, &Squared, &NoInterrupt, &mut |_, _, _| Ok(()))
        };
        assert!(call(&[1.0, 1.0], None, u64::MAX).is_err());
        assert!(call(&[1.0, -1.0, 1.0], None, u64::MAX).is_err());
        assert!(call(&[1.0, f64::NAN, 1.0], None, u64::MAX).is_err());
        assert!(call(&[1.0, 1.0, 1.0], Some(f64::INFINITY), u64::MAX).is_err());
        assert!(matches!(call(&[1.0; 3], None, 10), Err(crate::Error::Memory { .. })));
    }
}
