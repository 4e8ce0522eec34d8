//! Group greedy RankRLS against a forward selection over groups that refits RankRLS and
//! computes the exact LQO error from scratch for every candidate group; size-1 groups
//! against the plain greedy; shared group costs in the per-cost rule.

use ndarray::Array2;

use super::*;
use crate::interrupt::NoInterrupt;
use crate::testing::{naive_lqo, problem, qo};

fn opts(k: usize, alpha: f64) -> GreedyOptions {
    GreedyOptions { n_features_to_select: k, alpha, min_improvement: None, max_memory: None }
}

fn run_groups(
    x: &Array2<f64>,
    y: &[f64],
    off: &[usize],
    groups: &[Vec<usize>],
    k: usize,
    choice: &Choice<'_>,
) -> GreedyPath {
    let units = Units::from_lists(groups, x.ncols()).unwrap();
    greedy_rankrls_units(
        x.view(),
        y,
        &qo(off),
        &units,
        &opts(k, 0.7),
        choice,
        &Squared,
        &NoInterrupt,
        &mut |_, _, _| Ok(()),
    )
    .unwrap()
}

/// Forward selection over groups, refitting for every candidate (ties to the lowest index).
fn naive_groups(x: &Array2<f64>, y: &[f64], off: &[usize], groups: &[Vec<usize>], k: usize) -> (Vec<usize>, Vec<f64>) {
    let (mut sel, mut feats, mut errs) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..k {
        let mut best: Option<(usize, f64)> = None;
        for g in (0..groups.len()).filter(|g| !sel.contains(g)) {
            let mut f = feats.clone();
            f.extend_from_slice(&groups[g]);
            let (e, _) = naive_lqo(x, y, off, &f, 0.7);
            if best.is_none_or(|(_, be)| e < be) {
                best = Some((g, e));
            }
        }
        let (g, e) = best.unwrap();
        sel.push(g);
        feats.extend_from_slice(&groups[g]);
        errs.push(e);
    }
    (sel, errs)
}

/// Random groups of sizes 1..=4 over a permutation of the columns.
fn random_groups(seed: u64, n: usize) -> Vec<Vec<usize>> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = |k: usize| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % k
    };
    let mut cols: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        cols.swap(i, next(i + 1));
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < n && out.len() < 6 {
        let b = (1 + next(4)).min(n - i);
        out.push(cols[i..i + b].to_vec());
        i += b;
    }
    out
}

#[test]
fn groups_match_refitting_forward_selection() {
    for seed in 1..9u64 {
        let (x, y, off) = problem(seed, &[5, 1, 7, 3, 4, 6, 2, 5], 14);
        let groups = random_groups(seed, 14);
        let k = groups.len().min(4);
        let path = run_groups(&x, &y, &off, &groups, k, &Choice::Best);
        let (sel, errs) = naive_groups(&x, &y, &off, &groups, k);
        assert_eq!(path.selected, sel, "seed {seed}");
        for (a, b) in path.lqo_scores.iter().zip(&errs) {
            assert!((a - b).abs() <= 1e-8 * b.abs(), "seed {seed}: {a} vs {b}");
        }
        let feats: Vec<usize> = sel.iter().flat_map(|&g| groups[g].clone()).collect();
        let xs = Array2::from_shape_fn((x.nrows(), feats.len()), |(r, j)| x[(r, feats[j])]);
        let w = crate::models::rankrls::fit(xs.view(), &y, &qo(&off), 0.7).unwrap();
        let last = path.coef_path.row(k - 1);
        for (j, &f) in feats.iter().enumerate() {
            assert!((last[f] - w[j]).abs() <= 1e-8 * (1.0 + w[j].abs()));
        }
    }
}

#[test]
fn singleton_groups_equal_the_plain_greedy() {
    for seed in 1..5u64 {
        let (x, y, off) = problem(seed, &[5, 1, 7, 3, 4, 6], 7);
        let groups: Vec<Vec<usize>> = (0..7).map(|j| vec![j]).collect();
        let g = run_groups(&x, &y, &off, &groups, 5, &Choice::Best);
        let p = greedy_rankrls(x.view(), &y, &qo(&off), &opts(5, 0.7), &Squared, &NoInterrupt, &mut |_, _, _| Ok(()))
            .unwrap();
        assert_eq!(g.selected, p.selected);
        // singleton units are the plain run, bit for bit
        assert_eq!(g.lqo_scores, p.lqo_scores);
        assert_eq!(g.coef_path, p.coef_path);
    }
}

#[test]
fn group_budget_and_bad_groups() {
    let (x, y, off) = problem(3, &[5, 4, 6, 3], 6);
    let groups = vec![vec![0, 1], vec![2, 3], vec![4, 5]];
    let costs = [2.0, 2.0, 2.0];
    let choice = Choice::PerCost { feature_costs: &costs, budget: Some(4.0), shared: None };
    let path = run_groups(&x, &y, &off, &groups, 3, &choice);
    assert_eq!(path.selected.len(), 2);
    assert_eq!(path.stop, Some(Stop::Budget));
    let bad = |g: Vec<Vec<usize>>, k: usize| {
        let units = match Units::from_lists(&g, x.ncols()) {
            Ok(u) => u,
            Err(e) => return e.to_string(),
        };
        greedy_rankrls_units(
            x.view(),
            &y,
            &qo(&off),
            &units,
            &opts(k, 1.0),
            &Choice::Best,
            &Squared,
            &NoInterrupt,
            &mut |_, _, _| Ok(()),
        )
        .unwrap_err()
        .to_string()
    };
    assert!(bad(vec![vec![0], vec![0, 1]], 1).contains("two groups"));
    assert!(bad(vec![vec![9]], 1).contains("column 9"));
    assert!(bad(vec![vec![0], vec![]], 1).contains("empty"));
    assert!(bad(vec![vec![0], vec![1]], 3).contains("n_groups"));
}

#[test]
fn shared_costs_are_paid_once() {
    // two members of one group fit a budget that admits the group's cost once, not twice
    let (x, y, off) = problem(5, &[5, 4, 6, 3, 5], 4);
    let fc = [0.0; 4];
    let feature_group = [0, 0, 1, 1];
    let gc = [1.0, 5.0];
    let choice = Choice::PerCost {
        feature_costs: &fc,
        budget: Some(1.5),
        shared: Some(SharedCosts { feature_group: &feature_group, group_costs: &gc }),
    };
    let path = crate::selection::cost_greedy::greedy_rankrls_per_cost(
        x.view(),
        &y,
        &qo(&off),
        &opts(4, 1.0),
        &choice,
        &Squared,
        &NoInterrupt,
        &mut |_, _, _| Ok(()),
    )
    .unwrap();
    let mut s = path.selected.clone();
    s.sort();
    assert_eq!(s, vec![0, 1]);
    assert_eq!(path.stop, Some(Stop::Budget));
}

#[test]
fn with_costs_forms_the_units_and_their_totals() {
    use super::PricedUnits;
    let groups = || Some((vec![0, 2, 3], vec![0, 2, 1]));
    // whole groups: members' costs (in column order) plus the group cost
    let p = Units::with_costs(groups(), 3, Some(vec![0.1, 2.0, 0.2]), Some(vec![1.0, 5.0]), true).unwrap();
    assert_eq!(p.costs, Some(vec![0.1 + 0.2 + 1.0, 2.0 + 5.0]));
    assert_eq!((p.units.len(), p.units.members(0)), (2, &[0usize, 2][..]));
    // no cost at all: the best criterion
    assert_eq!(Units::with_costs(groups(), 3, None, None, true).unwrap().costs, None);
    // features priced with their groups' shared costs (own costs 0 when not given)
    let PricedUnits { units, costs, shared } =
        Units::with_costs(groups(), 3, None, Some(vec![1.0, 5.0]), false).unwrap();
    assert!(units.is_singletons());
    assert_eq!((costs, shared), (Some(vec![0.0; 3]), Some((vec![0, 1, 0], vec![1.0, 5.0]))));
    // without groups, the features at their costs
    let p = Units::with_costs(None, 2, Some(vec![1.0, 2.0]), None, true).unwrap();
    assert!(p.units.is_singletons() && p.costs == Some(vec![1.0, 2.0]) && p.shared.is_none());
    for (g, fc, gc) in [
        (None, None, Some(vec![1.0])),
        (groups(), Some(vec![1.0; 2]), None),
        (groups(), Some(vec![1.0, f64::NAN, 1.0]), None),
        (groups(), None, Some(vec![1.0])),
        (groups(), None, Some(vec![1.0, -1.0])),
        (Some((vec![0, 2], vec![0, 2])), None, None),
    ] {
        assert!(Units::with_costs(g, 3, fc, gc, true).is_err());
    }
}

/// A unit's sweep deferred by `add` and run with the next block scan in one pass gives the
/// values, rounding bounds and caches of the sweep followed by the scan, bit for bit: groups
/// of several columns only (the fused pass) and mixed with single columns (the sweep first),
/// over several chunks and several sweep tasks per chunk, for the squared loss and NDCG@3.
#[test]
fn a_sweep_fused_with_the_scan_equals_the_sweep_then_the_scan() {
    use crate::metrics::{Measure, MetricSpec};
    let sizes: Vec<usize> = (0..400).map(|q| 3 + (q * 7) % 23).collect();
    let (x, y, off) = problem(7, &sizes, 14);
    let off = qo(&off);
    let ndcg = MetricCriterion(MetricSpec::new(Measure::Ndcg(Some(3))));
    let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    let pairs: Vec<Vec<usize>> = (0..7).map(|g| vec![2 * g, 2 * g + 1]).collect();
    for (groups, criterion) in
        [(pairs, &Squared as &dyn Criterion), (random_groups(3, 14), &Squared), (random_groups(5, 14), &ndcg)]
    {
        let units = Units::from_lists(&groups, 14).unwrap();
        let mut fused = InMemory::new(x.view(), &y, &off, 1e-2, &units, criterion).unwrap();
        let mut apart = InMemory::new(x.view(), &y, &off, 1e-2, &units, criterion).unwrap();
        let mut skip: Vec<bool> = fused.informative().unwrap().iter().map(|v| !v).collect();
        let mut values = fused.scan(&skip).unwrap();
        apart.scan(&skip).unwrap();
        for _ in 0..4 {
            let Some(u) = (0..units.len())
                .filter(|&u| !skip[u] && values[u].is_some())
                .min_by(|&a, &b| values[a].unwrap().total_cmp(&values[b].unwrap()))
            else {
                break;
            };
            skip[u] = true;
            fused.add(u, &skip).unwrap();
            apart.add(u, &skip).unwrap();
            let step = apart.take_pending(); // a sweep applied alone (or a column's step left to the pass)
            values = fused.scan(&skip).unwrap();
            let want = apart.pass_units(step.as_ref(), &skip).unwrap();
            let opt = |v: &[Option<f64>]| v.iter().map(|v| v.map(f64::to_bits)).collect::<Vec<_>>();
            assert_eq!(opt(&values), opt(&want), "values after adding unit {u}");
            assert_eq!(bits(fused.bounds()), bits(apart.bounds()), "bounds after adding unit {u}");
            for (a, b) in
                [(&fused.state.c, &apart.state.c), (&fused.state.u, &apart.state.u), (&fused.state.p, &apart.state.p)]
            {
                assert_eq!(bits(a), bits(b), "caches after adding unit {u}");
            }
        }
    }
}
