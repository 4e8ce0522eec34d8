use super::*;
use crate::data::groups::QueryOffsets;
use crate::interrupt::NoInterrupt;
use crate::metrics::{Measure, MetricSpec};
use crate::selection::cost_greedy::greedy_rankrls_costs;
use crate::selection::greedy_rls::{greedy_rankrls, greedy_rankrls_units, MetricCriterion, Squared, Units};
use crate::shards::greedy_shard::GreedyShard;
use crate::testing::problem;
use ndarray::Array2;

/// The shards in this process (what the Dask actors do, without Dask).
struct Local<'a> {
    shards: Vec<GreedyShard>,
    criterion: &'a dyn Criterion,
}

impl ShardCalls for Local<'_> {
    fn informative(&mut self) -> Result<Vec<Vec<bool>>> {
        Ok(self.shards.iter().map(|s| s.informative().to_vec()).collect())
    }
    fn gram(&mut self) -> Result<Vec<(Vec<f64>, Vec<f64>)>> {
        Ok(self.shards.iter().map(|s| s.gram()).collect())
    }
    fn baseline(&mut self) -> Result<Vec<f64>> {
        Ok(self.shards.iter().map(|s| s.baseline(self.criterion)).collect())
    }
    fn dots(&mut self) -> Result<Vec<ShardDots>> {
        Ok(self
            .shards
            .iter()
            .map(|s| {
                let (e, h) = s.dots();
                (e, h, s.model_value())
            })
            .collect())
    }
    fn scan(&mut self, c: &[f64], d: &[f64], skip: &[bool]) -> Result<Vec<(Vec<f64>, Vec<f64>)>> {
        self.shards.iter().map(|s| s.scan(c, d, skip, self.criterion)).collect()
    }
    fn cross(&mut self, b: usize) -> Result<Vec<Vec<f64>>> {
        self.shards.iter().map(|s| s.cross(b)).collect()
    }
    fn add(&mut self, b: usize, c: f64, d: f64, t: &[f64], skip: &[bool]) -> Result<Vec<(f64, ShardDots)>> {
        let dens = self.shards.iter_mut().map(|s| s.add(b, c, d, t, skip)).collect::<Result<Vec<f64>>>()?;
        Ok(dens.into_iter().zip(self.dots()?).collect())
    }
    fn unit_dots(&mut self, offsets: &[usize], columns: &[usize]) -> Result<Vec<Vec<f64>>> {
        self.shards.iter().map(|s| s.unit_dots(offsets, columns)).collect()
    }
    fn scan_units(&mut self, offsets: &[usize], columns: &[usize], k: &[f64], h: &[f64]) -> Result<Vec<Vec<f64>>> {
        self.shards.iter().map(|s| s.scan_units(offsets, columns, k, h, self.criterion)).collect()
    }
    fn rows(&mut self) -> Result<Vec<(usize, usize)>> {
        Ok(self.shards.iter().map(|s| s.rows()).collect())
    }
}

fn shards(x: &Array2<f64>, y: &[f64], off: &[usize], cuts: &[usize], alpha: f64) -> Vec<GreedyShard> {
    cuts.windows(2)
        .map(|w| {
            let (r0, r1) = (off[w[0]], off[w[1]]);
            let so: Vec<usize> = off[w[0]..=w[1]].iter().map(|o| o - r0).collect();
            GreedyShard::new(
                x.slice(ndarray::s![r0..r1, ..]),
                &y[r0..r1],
                &QueryOffsets::new(so).unwrap(),
                alpha,
                u64::MAX,
            )
            .unwrap()
        })
        .collect()
}

fn close_paths(a: &GreedyPath, b: &GreedyPath) {
    assert_eq!(a.selected, b.selected);
    assert_eq!(a.stop, b.stop);
    for (u, v) in a.lqo_scores.iter().zip(&b.lqo_scores) {
        assert!((u - v).abs() <= 1e-10 * v.abs().max(1e-300), "{u} vs {v}");
    }
    let scale = b.coef_path.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (u, v) in a.coef_path.iter().zip(b.coef_path.iter()) {
        assert!((u - v).abs() <= 1e-10 * scale, "{u} vs {v}");
    }
}

#[test]
fn shards_match_in_memory() {
    let sizes = [5, 1, 7, 3, 4, 6, 2, 5];
    let (x, y, off) = problem(3, &sizes, 6);
    let y: Vec<f64> = y.iter().map(|v| (v.abs() * 2.0).floor()).collect();
    let qo = QueryOffsets::new(off.clone()).unwrap();
    let ndcg = MetricCriterion(MetricSpec::new(Measure::Ndcg(Some(3))));
    let criteria: [&dyn Criterion; 2] = [&Squared, &ndcg];
    let costs = [1.0, 2.0, 0.5, 3.0, 1.5, 0.25];
    for criterion in criteria {
        for min_improvement in [None, Some(0.05)] {
            let opts = GreedyOptions { n_features_to_select: 5, alpha: 0.7, min_improvement, max_memory: None };
            let plain =
                greedy_rankrls(x.view(), &y, &qo, &opts, criterion, &NoInterrupt, &mut |_, _, _| Ok(())).unwrap();
            let costed = greedy_rankrls_costs(
                x.view(),
                &y,
                &qo,
                &opts,
                &costs,
                Some(4.0),
                criterion,
                &NoInterrupt,
                &mut |_, _, _| Ok(()),
            )
            .unwrap();
            // One shard, three uneven shards, a shard per query.
            let per_query: Vec<usize> = (0..=sizes.len()).collect();
            for cuts in [vec![0, sizes.len()], vec![0, 1, 5, sizes.len()], per_query] {
                let mut local = Local { shards: shards(&x, &y, &off, &cuts, 0.7), criterion };
                let got = greedy_rankrls_sharded(
                    &mut local,
                    &Units::singletons(6),
                    sizes.len(),
                    &opts,
                    &Choice::Best,
                    criterion,
                    &NoInterrupt,
                    &mut |_, _, _| Ok(()),
                )
                .unwrap();
                close_paths(&got, &plain);
                let mut local = Local { shards: shards(&x, &y, &off, &cuts, 0.7), criterion };
                let choice = Choice::PerCost { feature_costs: &costs, budget: Some(4.0), shared: None };
                let got = greedy_rankrls_sharded(
                    &mut local,
                    &Units::singletons(6),
                    sizes.len(),
                    &opts,
                    &choice,
                    criterion,
                    &NoInterrupt,
                    &mut |_, _, _| Ok(()),
                )
                .unwrap();
                close_paths(&got, &costed);
            }
        }
    }
}

#[test]
fn bad_answers_and_options_are_errors() {
    let (x, y, off) = problem(2, &[3, 4, 2], 3);
    let mut local = Local { shards: shards(&x, &y, &off, &[0, 3], 1.0), criterion: &Squared };
    let opts = GreedyOptions { n_features_to_select: 4, alpha: 1.0, min_improvement: None, max_memory: None };
    let run = |local: &mut Local, n: usize, nq: usize, opts: &GreedyOptions| {
        let units = Units::singletons(n);
        greedy_rankrls_sharded(local, &units, nq, opts, &Choice::Best, &Squared, &NoInterrupt, &mut |_, _, _| Ok(()))
    };
    assert!(run(&mut local, 3, 3, &opts).is_err()); // 4 features of 3
    let opts = GreedyOptions { n_features_to_select: 2, ..opts };
    assert!(run(&mut local, 3, 1, &opts).is_err()); // one query
    assert!(run(&mut local, 4, 3, &opts).is_err()); // the shards have 3 features
    let stop = || true;
    let units = Units::singletons(3);
    let r = greedy_rankrls_sharded(&mut local, &units, 3, &opts, &Choice::Best, &Squared, &stop, &mut |_, _, _| Ok(()));
    assert!(matches!(r, Err(Error::Interrupted)));
}

#[test]
fn groups_over_shards_match_in_memory() {
    let sizes = [5, 1, 7, 3, 4, 6, 2, 5];
    let (x, y, off) = problem(8, &sizes, 7);
    let qo = QueryOffsets::new(off.clone()).unwrap();
    let units = Units::from_lists(&[vec![0, 3], vec![1], vec![2, 5, 6], vec![4]], 7).unwrap();
    let costs = [2.0, 1.0, 3.0, 1.0];
    for choice in [Choice::Best, Choice::PerCost { feature_costs: &costs, budget: Some(5.0), shared: None }] {
        let opts = GreedyOptions { n_features_to_select: 4, alpha: 0.7, min_improvement: None, max_memory: None };
        let mem =
            greedy_rankrls_units(x.view(), &y, &qo, &units, &opts, &choice, &Squared, &NoInterrupt, &mut |_, _, _| {
                Ok(())
            })
            .unwrap();
        for cuts in [vec![0, sizes.len()], vec![0, 3, 6, sizes.len()]] {
            let mut local = Local { shards: shards(&x, &y, &off, &cuts, 0.7), criterion: &Squared };
            let got = greedy_rankrls_sharded(
                &mut local,
                &units,
                sizes.len(),
                &opts,
                &choice,
                &Squared,
                &NoInterrupt,
                &mut |_, _, _| Ok(()),
            )
            .unwrap();
            close_paths(&got, &mem);
        }
    }
}

/// Issue 38: with a duplicated column and a tiny `alpha` the accuracy monitor doubts the
/// values that decide a step; the shards cannot recompute them, so the run refuses (the
/// in-memory run recomputes them exactly). Or, where nothing doubtful decides, it gives the
/// in-memory (exact) selection.
#[test]
fn doubtful_values_are_refused_or_harmless() {
    let sizes = [4, 3, 5, 2, 4];
    let mut refused = 0;
    for (seed, alpha) in (0..12).zip([1e-8, 1e-7, 1e-6, 1e-5].into_iter().cycle()) {
        let (mut x, y, off) = problem(seed, &sizes, 5);
        let y: Vec<f64> = y.iter().map(|v| (v.abs() * 2.0).floor()).collect();
        for r in 0..x.nrows() {
            x[(r, 2)] = x[(r, 0)];
            x[(r, 1)] = x[(r, 0)] + 1e-7 * x[(r, 3)];
        }
        let qo = QueryOffsets::new(off.clone()).unwrap();
        let opts = GreedyOptions { n_features_to_select: 4, alpha, min_improvement: None, max_memory: None };
        let mem = greedy_rankrls(x.view(), &y, &qo, &opts, &Squared, &NoInterrupt, &mut |_, _, _| Ok(())).unwrap();
        let mut local = Local { shards: shards(&x, &y, &off, &[0, 2, sizes.len()], alpha), criterion: &Squared };
        let units = Units::singletons(5);
        let got = greedy_rankrls_sharded(
            &mut local,
            &units,
            sizes.len(),
            &opts,
            &Choice::Best,
            &Squared,
            &NoInterrupt,
            &mut |_, _, _| Ok(()),
        );
        match got {
            Ok(got) => {
                assert_eq!(got.selected, mem.selected);
                for (u, v) in got.lqo_scores.iter().zip(&mem.lqo_scores) {
                    assert!((u - v).abs() <= 1e-8 * v.abs(), "{u} vs {v}");
                }
            }
            Err(Error::InvalidInput(msg)) => {
                assert!(msg.contains("cannot be certified exact on query shards"), "{msg}");
                refused += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(refused > 0);
}

/// Issue 46: features varying within one query only (every subset has the same exact LQO
/// value): the lowest indices over shards as in memory, for any cut of the queries.
#[test]
fn exact_ties_go_to_the_lowest_index_over_shards() {
    let sizes = [1, 8, 3, 2];
    for seed in 1..20u64 {
        let (mut x, y, off) = problem(seed, &sizes, 6);
        // rows constant within every query but the second
        for q in [0, 2, 3] {
            for r in off[q] + 1..off[q + 1] {
                for j in 0..6 {
                    x[(r, j)] = x[(off[q], j)];
                }
            }
        }
        let qo = QueryOffsets::new(off.clone()).unwrap();
        let alpha = [0.1, 1.0, 30.0][seed as usize % 3];
        let opts = GreedyOptions { n_features_to_select: 3, alpha, min_improvement: None, max_memory: None };
        let mem = greedy_rankrls(x.view(), &y, &qo, &opts, &Squared, &NoInterrupt, &mut |_, _, _| Ok(())).unwrap();
        assert_eq!(mem.selected, [0, 1, 2], "seed {seed}");
        for cuts in [vec![0, 2, 4], vec![0, 1, 2, 3, 4]] {
            let mut local = Local { shards: shards(&x, &y, &off, &cuts, alpha), criterion: &Squared };
            let got = greedy_rankrls_sharded(
                &mut local,
                &Units::singletons(6),
                sizes.len(),
                &opts,
                &Choice::Best,
                &Squared,
                &NoInterrupt,
                &mut |_, _, _| Ok(()),
            )
            .unwrap();
            assert_eq!(got.selected, [0, 1, 2], "seed {seed}, cuts {cuts:?}");
        }
    }
}
