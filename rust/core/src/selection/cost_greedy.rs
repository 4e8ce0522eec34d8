//! Greedy RankRLS under feature costs (ours, not in Pahikkala et al. 2010): the same exact
//! leave-query-out (LQO) candidate scan as [`crate::selection::greedy_rls`] ([`GreedyState::pass`]),
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

use crate::data::groups::{center_vec, QueryOffsets};
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::selection::greedy_rls::{
    below_min_improvement, better, check_cache_memory, check_data, check_params, Criterion, CriterionScratch,
    GreedyOptions, GreedyPath, GreedyState, PrimalPath, Stop,
};

/// The cost-aware choice rule (module docs) over the candidates' criterion values
/// (`None`: not a candidate). Returns `(feature, value)` or `None` when no candidate is
/// affordable and finite.
pub fn choose_per_cost(
    values: &[Option<f64>],
    feature_costs: &[f64],
    prev: f64,
    higher: bool,
    spent: f64,
    budget: Option<f64>,
) -> Option<(usize, f64)> {
    let affordable = |i: usize| budget.map_or(true, |b| spent + feature_costs[i] <= b);
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
        if best.map_or(true, |(_, bv)| better(v, bv, higher)) {
            best = Some((i, v));
        }
    }
    best
}

/// Greedy RankRLS with feature costs and an optional budget, on grouped `x` (m x n).
///
/// `feature_costs` (length n, finite, >= 0); `budget` (finite, >= 0) caps the sum of the
/// costs of the selected features; `opts.max_memory` (bytes) bounds the caches
/// ([`state_bytes`](crate::selection::greedy_rls::state_bytes)). The result may hold fewer
/// than `opts.n_features_to_select` features (`stop`: budget, `min_improvement`, or only
/// features constant within every query left, which are never candidates).
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
    check_params(x, y, offsets, opts)?;
    let (m, n) = x.dim();
    if feature_costs.len() != n {
        return invalid!("feature_costs has {} entries but X has {n} features", feature_costs.len());
    }
    if let Some(j) = feature_costs.iter().position(|c| !(c.is_finite() && *c >= 0.0)) {
        return invalid!("feature_costs must be finite and >= 0; feature {j} has {}", feature_costs[j]);
    }
    if let Some(b) = budget {
        if !(b.is_finite() && b >= 0.0) {
            return invalid!("budget must be finite and >= 0, got {b}");
        }
    }
    check_data(x, y, criterion)?;
    check_cache_memory(
        m,
        n,
        opts.max_memory,
        "select on fewer rows or features, or raise rankselect.set_config(max_memory=...)",
    )?;
    let k = opts.n_features_to_select;

    interrupt.check()?;
    let mut st = GreedyState::new(x, y, offsets, opts.alpha);
    let higher = criterion.higher_is_better();
    // The empty model predicts 0: its query-centred LQO residuals are the centred labels.
    let mut yc = y.to_vec();
    center_vec(&mut yc, offsets);
    let mut scratch = CriterionScratch::default();
    let total: f64 = offsets
        .windows(2)
        .map(|w| {
            let q = &yc[w[0]..w[1]];
            criterion.query_term(q, 0.0, q, q, &y[w[0]..w[1]], &mut scratch)
        })
        .fold(0.0, |a, b| a + b);
    let mut prev = criterion.finish(total, offsets.n_queries());
    let mut selected: Vec<usize> = Vec::with_capacity(k);
    // Selected features and features that cannot change the model (constant within every
    // query) are never candidates, as in the plain greedy.
    let mut skip: Vec<bool> = st.informative().iter().map(|v| !v).collect();
    let mut lqo_scores: Vec<f64> = Vec::with_capacity(k);
    let mut coef_rows: Vec<Vec<f64>> = Vec::with_capacity(k);
    let mut primal = PrimalPath::new(n);
    let mut spent = 0.0;
    let mut stop = None;
    interrupt.check()?;
    let mut values = st.pass(None, y, criterion, &skip);
    for step in 0..k {
        let Some((b, value)) = choose_per_cost(&values, feature_costs, prev, higher, spent, budget) else {
            if values.iter().all(|v| v.is_none()) {
                stop = Some(Stop::Uninformative);
                break;
            }
            if values.iter().any(|v| v.is_some_and(|v| v.is_finite())) {
                stop = Some(Stop::Budget); // nothing affordable is left
                break;
            }
            return invalid!("no candidate feature gives a finite leave-query-out criterion");
        };
        // `prev` is the last selected step's value once there is one.
        if below_min_improvement(opts.min_improvement, lqo_scores.last().copied(), value, higher) {
            stop = Some(Stop::MinImprovement);
            break;
        }
        coef_rows.push(primal.push(&st, &selected, b));
        skip[b] = true;
        selected.push(b);
        lqo_scores.push(value);
        spent += feature_costs[b];
        prev = value;
        progress(step, b, value)?;
        if step + 1 < k {
            interrupt.check()?;
            let upd = st.select(b);
            values = st.pass(Some(&upd), y, criterion, &skip);
        }
    }
    Ok(GreedyPath::from_rows(selected, lqo_scores, coef_rows, n, stop))
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
        assert_eq!(choose_per_cost(&v, &c, 10.0, false, 0.0, None), Some((2, 9.0)));
        let c = [2.0, 1.0, 5.0, 1.0];
        assert_eq!(choose_per_cost(&v, &c, 10.0, false, 0.0, None), Some((1, 7.0)));
        // budget: feature 0 has the best ratio (4 / 1.5) but fits only with room >= 1.5
        let (v2, c2) = ([Some(6.0), Some(9.0)], [1.5, 1.0]);
        assert_eq!(choose_per_cost(&v2, &c2, 10.0, false, 1.0, Some(2.5)), Some((0, 6.0)));
        assert_eq!(choose_per_cost(&v2, &c2, 10.0, false, 1.0, Some(2.2)), Some((1, 9.0)));
        assert_eq!(choose_per_cost(&v2, &c2, 10.0, false, 1.0, Some(1.9)), None);
        // nothing improves: the best value, whatever the cost
        assert_eq!(choose_per_cost(&v, &[1.0, 1.0, 0.0, 1.0], 5.0, false, 0.0, None), Some((0, 6.0)));
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
