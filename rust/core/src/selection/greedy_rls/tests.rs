use ndarray::Array2;

use super::*;
use crate::interrupt::NoInterrupt;
use crate::metrics::MetricSpec;
use crate::testing::{naive_lqo, problem, qo};

fn run(x: &Array2<f64>, y: &[f64], off: &[usize], k: usize, alpha: f64) -> GreedyPath {
    let opts = GreedyOptions { n_features_to_select: k, alpha, min_improvement: None, max_memory: None };
    greedy_rankrls(x.view(), y, &qo(off), &opts, &Squared, &NoInterrupt, &mut |_, _, _| Ok(())).unwrap()
}

/// Brute-force greedy: for every candidate set, delete each query, re-centre, solve.
fn naive_greedy(x: &Array2<f64>, y: &[f64], off: &[usize], k: usize, alpha: f64) -> (Vec<usize>, Vec<f64>) {
    let n = x.ncols();
    let mut sel: Vec<usize> = Vec::new();
    let mut errs = Vec::new();
    for _ in 0..k {
        let mut best: Option<(usize, f64)> = None;
        for i in (0..n).filter(|i| !sel.contains(i)) {
            let constant = off.windows(2).all(|w| (w[0]..w[1]).all(|r| x[(r, i)] == x[(w[0], i)]));
            if constant {
                continue;
            }
            let mut feats = sel.clone();
            feats.push(i);
            let (e, _) = naive_lqo(x, y, off, &feats, alpha);
            if best.is_none_or(|(_, be)| e < be * (1.0 - 1e-12)) {
                best = Some((i, e));
            }
        }
        let (b, e) = best.unwrap();
        sel.push(b);
        errs.push(e);
    }
    (sel, errs)
}

#[test]
fn matches_brute_force() {
    for seed in 1..6u64 {
        let (x, y, off) = problem(seed, &[5, 1, 7, 3, 4, 6, 2], 6);
        let path = run(&x, &y, &off, 6, 0.5);
        let (sel, errs) = naive_greedy(&x, &y, &off, 6, 0.5);
        assert_eq!(path.selected, sel);
        for (a, b) in path.lqo_scores.iter().zip(&errs) {
            assert!((a - b).abs() <= 1e-9 * b.abs(), "{a} vs {b}");
        }
        // Final model equals the direct solve on the selected features.
        let w = crate::models::rankrls::fit(x.view(), &y, &qo(&off), 0.5).unwrap();
        let last = path.coef_path.row(5);
        for j in 0..6 {
            assert!((last[j] - w[j]).abs() <= 1e-9 * (1.0 + w[j].abs()));
        }
    }
}

#[test]
fn constant_and_duplicate_features() {
    let (mut x, y, off) = problem(7, &[4, 3, 5, 1, 4], 5);
    for r in 0..x.nrows() {
        x[(r, 1)] = 3.0; // constant
        x[(r, 4)] = x[(r, 2)]; // duplicate of 2
    }
    let path = run(&x, &y, &off, 5, 1.0);
    let p2 = path.selected.iter().position(|&f| f == 2).unwrap();
    let p4 = path.selected.iter().position(|&f| f == 4).unwrap();
    assert!(p2 < p4);
    assert!(path.lqo_scores.iter().all(|e| e.is_finite()));
    // The constant feature cannot change the model: never selected, the path stops.
    assert_eq!(path.selected.len(), 4);
    assert!(!path.selected.contains(&1));
    assert_eq!(path.stop, Some(Stop::Uninformative));
    assert_eq!(path.coef_path.nrows(), 4);
}

#[test]
fn constant_within_every_query_only() {
    // Feature 0 varies across queries but is constant within each: zero centred column.
    let (mut x, y, off) = problem(9, &[4, 3, 5, 2], 3);
    for (q, w) in off.windows(2).enumerate() {
        for r in w[0]..w[1] {
            x[(r, 0)] = 0.1 * (q as f64 + 1.0);
        }
    }
    let path = run(&x, &y, &off, 3, 1.0);
    assert_eq!(path.selected.len(), 2);
    assert!(!path.selected.contains(&0));
    // Nothing informative at all: an empty path.
    let x0 = Array2::<f64>::from_elem((off[off.len() - 1], 2), 2.5);
    let path = run(&x0, &y, &off, 2, 1.0);
    assert!(path.selected.is_empty() && path.coef_path.nrows() == 0);
    assert_eq!(path.stop, Some(Stop::Uninformative));
}

#[test]
fn thread_count_does_not_change_results() {
    // Several chunks (queries of 300 rows > CHUNK_ROWS / 8) and several threads.
    let sizes = vec![300usize; 20];
    let (x, y, off) = problem(5, &sizes, 9);
    let a = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| run(&x, &y, &off, 6, 0.3));
    let b = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap().install(|| run(&x, &y, &off, 6, 0.3));
    assert_eq!(a.selected, b.selected);
    assert_eq!(a.lqo_scores, b.lqo_scores);
    assert_eq!(a.coef_path, b.coef_path);
}

#[test]
fn max_memory_refuses_before_allocating() {
    let (x, y, off) = problem(2, &[3, 3], 3);
    let opts = GreedyOptions { n_features_to_select: 2, alpha: 1.0, min_improvement: None, max_memory: Some(100) };
    let e = greedy_rankrls(x.view(), &y, &qo(&off), &opts, &Squared, &NoInterrupt, &mut |_, _, _| Ok(())).unwrap_err();
    assert!(matches!(e, crate::Error::Memory { .. }), "{e}");
}

#[test]
fn metric_criterion_matches_brute_force() {
    use crate::metrics::{query_metric, Measure};
    let (x, y, off) = problem(21, &[5, 4, 7, 3, 6, 6], 5);
    let spec = MetricSpec::new(Measure::Ndcg(Some(3)));
    let opts = GreedyOptions { n_features_to_select: 3, alpha: 0.5, min_improvement: None, max_memory: None };
    let path =
        greedy_rankrls(x.view(), &y, &qo(&off), &opts, &MetricCriterion(spec), &NoInterrupt, &mut |_, _, _| Ok(()))
            .unwrap();
    let mut sel: Vec<usize> = Vec::new();
    for step in 0..3 {
        let mut best: Option<(usize, f64)> = None;
        for i in (0..5).filter(|i| !sel.contains(i)) {
            let mut feats = sel.clone();
            feats.push(i);
            let (_, preds) = naive_lqo(&x, &y, &off, &feats, 0.5);
            let v: f64 = off.windows(2).map(|w| query_metric(&spec, &y[w[0]..w[1]], &preds[w[0]..w[1]])).sum::<f64>()
                / (off.len() - 1) as f64;
            if best.is_none_or(|(_, bv)| v > bv + 1e-12) {
                best = Some((i, v));
            }
        }
        let (b, v) = best.unwrap();
        assert!((path.lqo_scores[step] - v).abs() < 1e-12, "{} vs {v}", path.lqo_scores[step]);
        assert_eq!(path.selected[step], b);
        sel.push(b);
    }
}

#[test]
fn bad_input() {
    let (x, y, off) = problem(2, &[3, 3], 3);
    let mut noop = |_: usize, _: usize, _: f64| Ok(());
    for (k, alpha) in [(0, 1.0), (4, 1.0), (2, 0.0), (2, -1.0), (2, 0.99e-8), (2, 1e-12)] {
        let opts = GreedyOptions { n_features_to_select: k, alpha, min_improvement: None, max_memory: None };
        assert!(greedy_rankrls(x.view(), &y, &qo(&off), &opts, &Squared, &NoInterrupt, &mut noop).is_err());
    }
    let opts = GreedyOptions { n_features_to_select: 2, alpha: 1e-8, min_improvement: None, max_memory: None };
    assert!(greedy_rankrls(x.view(), &y, &qo(&off), &opts, &Squared, &NoInterrupt, &mut noop).is_ok());
}

/// Issue 46: a singleton query and one query of 8: the singleton's centred row is zero, so
/// the model without the query of 8 is zero and every subset scores exactly `||yc||^2`.
/// Every step is an exact tie: the lowest index, whatever rounding favours, at every alpha.
#[test]
fn exact_ties_go_to_the_lowest_index() {
    for seed in 1..40u64 {
        let (x, mut y, off) = problem(seed, &[1, 8], 6);
        let mut r = crate::testing::Rng(seed + 1000);
        y.iter_mut().for_each(|v| *v = (r.next() * 2.0 + 2.0).floor());
        let alpha = 10f64.powf(3.0 * r.next());
        let yc: Vec<f64> = {
            let mean = y[1..].iter().sum::<f64>() / 8.0;
            y[1..].iter().map(|v| v - mean).collect()
        };
        let exact: f64 = yc.iter().map(|v| v * v).sum();
        let path = run(&x, &y, &off, 3, alpha);
        assert_eq!(path.selected, [0, 1, 2], "seed {seed}, alpha {alpha}");
        for v in &path.lqo_scores {
            assert!((v - exact).abs() <= 1e-12 * exact, "{v} vs {exact}");
        }
    }
}
