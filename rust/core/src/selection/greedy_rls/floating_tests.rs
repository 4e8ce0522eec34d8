//! Floating search: the downdate of the caches against recomputation from scratch, and SFFS
//! against a brute-force SFFS on the LQO criterion computed from scratch.

use std::collections::HashSet;

use ndarray::Array2;

use super::state::Caches;
use super::*;
use crate::interrupt::NoInterrupt;
use crate::models::rankrls::center;
use crate::testing::{naive_lqo, naive_solve, problem, qo};

/// `C`, `U`, `p`, `M`, `r` for the selected set `feats`, from their definitions (module docs
/// of [`super`]): `G = (Xc_S Xc_S^T + alpha I)^-1` by dense solves.
fn from_scratch(x: &Array2<f64>, y: &[f64], off: &[usize], feats: &[usize], alpha: f64) -> Caches {
    let (xc, yc) = center(x.view(), y, off).unwrap();
    let (m, n) = xc.dim();
    let k: Vec<Vec<f64>> = (0..m)
        .map(|i| {
            (0..m)
                .map(|j| feats.iter().map(|&f| xc[(i, f)] * xc[(j, f)]).sum::<f64>() + if i == j { alpha } else { 0.0 })
                .collect()
        })
        .collect();
    let g_times = |v: &[f64]| naive_solve(k.clone(), v.to_vec());
    let block = |g: &[f64], q: (usize, usize)| -> Vec<f64> {
        // B_q g_q = (G_qq)^-1 g_q: G_qq from G's columns of the query
        let cols: Vec<Vec<f64>> = (q.0..q.1)
            .map(|r| {
                let mut e = vec![0.0; m];
                e[r] = 1.0;
                g_times(&e)
            })
            .collect();
        let gqq: Vec<Vec<f64>> = (q.0..q.1).map(|r| cols.iter().map(|c| c[r]).collect()).collect();
        naive_solve(gqq, g[q.0..q.1].to_vec())
    };
    let qs: Vec<(usize, usize)> = off.windows(2).map(|w| (w[0], w[1])).filter(|q| q.1 > q.0).collect();
    let blockdiag = |g: &[f64]| -> Vec<f64> {
        let mut out = vec![0.0; m];
        for &q in &qs {
            out[q.0..q.1].copy_from_slice(&block(g, q));
        }
        out
    };
    let cs: Vec<Vec<f64>> = (0..n).map(|i| g_times(&xc.column(i).to_vec())).collect();
    let us: Vec<Vec<f64>> = cs.iter().map(|c| blockdiag(c)).collect();
    let a = g_times(&yc);
    let p = blockdiag(&a);
    let mm = (0..n * n).map(|t| (0..m).map(|r| xc[(r, t / n)] * cs[t % n][r]).sum()).collect();
    let r = (0..n).map(|i| (0..m).map(|row| xc[(row, i)] * a[row]).sum()).collect();
    (cs, us, p, mm, r)
}

fn close(a: &[f64], b: &[f64], what: &str) {
    let scale = b.iter().fold(1.0f64, |s, v| s.max(v.abs()));
    for (i, (u, v)) in a.iter().zip(b).enumerate() {
        assert!((u - v).abs() <= 1e-9 * scale, "{what}[{i}]: {u} vs {v}");
    }
}

#[test]
fn downdate_matches_recomputation() {
    downdate_case(11, &[5, 1, 7, 3, 4, 6], 6);
}

/// Wide data (n > m): `M` kept by its diagonal, its rows computed from `Xc` (`store`).
#[test]
fn wide_downdate_matches_recomputation() {
    downdate_case(12, &[3, 1, 2, 4], 23);
}

fn downdate_case(seed: u64, sizes: &[usize], n: usize) {
    let (x, y, off) = problem(seed, sizes, n);
    let alpha = 0.7;
    let offsets = qo(&off);
    let mut state = GreedyState::new(x.view(), &y, &offsets, alpha).unwrap();
    let none = vec![false; n];
    let crit = Squared;
    let mut values = state.pass(None, &y, &crit, &none).0;
    // add 0, 2, 3, 5; remove 2; add 1; remove 0; remove 3
    let moves: [(usize, bool); 8] =
        [(0, true), (2, true), (3, true), (5, true), (2, false), (1, true), (0, false), (3, false)];
    let mut selected: Vec<usize> = Vec::new();
    for (f, add) in moves {
        // the value the pass predicted for this move equals the criterion from scratch
        let mut after = selected.clone();
        if add {
            after.push(f);
        } else {
            after.retain(|&g| g != f);
        }
        let (err, _) = naive_lqo(&x, &y, &off, &after, alpha);
        let predicted = values[f].unwrap();
        assert!((predicted - err).abs() <= 1e-9 * err.abs(), "move {f} {add}: {predicted} vs {err}");
        let step = if add { state.select(f) } else { state.deselect(f) };
        values = state.pass(Some(&step), &y, &crit, &none).0;
        selected = after;
        let (c, u, p, mm, r) = state.caches();
        let (c0, u0, p0, mm0, r0) = from_scratch(&x, &y, &off, &selected, alpha);
        for i in 0..n {
            close(&c[i], &c0[i], "C");
            close(&u[i], &u0[i], "U");
        }
        close(&p, &p0, "p");
        close(&mm, &mm0, "M");
        close(&r, &r0, "r");
    }
}

fn better_value(a: f64, b: Option<f64>) -> bool {
    b.is_none_or(|b| a < b && (b - a) > floating::REL_TIE * a.abs().max(b.abs()))
}

/// The lowest index among the values within the tie tolerance of the smallest.
fn lowest_near_min(c: &[(usize, f64)]) -> Option<(usize, f64)> {
    let m = c.iter().map(|t| t.1).fold(f64::INFINITY, f64::min);
    c.iter().copied().find(|t| t.1 - m <= floating::REL_TIE * m.abs().max(t.1.abs()))
}

/// Brute-force SFFS (module docs of `floating`) with every criterion value from scratch.
fn naive_sffs(x: &Array2<f64>, y: &[f64], off: &[usize], k: usize, alpha: f64) -> (Vec<Vec<usize>>, Vec<f64>) {
    let n = x.ncols();
    let crit = |s: &[usize]| naive_lqo(x, y, off, s, alpha).0;
    let sorted = |s: &[usize]| {
        let mut v = s.to_vec();
        v.sort_unstable();
        v
    };
    let mut best: Vec<Option<(f64, Vec<usize>)>> = vec![None; k + 1];
    let mut visited: HashSet<Vec<usize>> = HashSet::new();
    let mut cur: Vec<usize> = Vec::new();
    while cur.len() < k {
        let mut cands = Vec::new();
        for i in (0..n).filter(|i| !cur.contains(i)) {
            let mut s = cur.clone();
            s.push(i);
            if !visited.contains(&sorted(&s)) {
                cands.push((i, crit(&s)));
            }
        }
        let (b, v) = lowest_near_min(&cands).unwrap();
        cur.push(b);
        visited.insert(sorted(&cur));
        if best[cur.len()].as_ref().is_none_or(|p| v < p.0) {
            best[cur.len()] = Some((v, cur.clone()));
        }
        while cur.len() > 1 {
            let cands: Vec<(usize, f64)> = sorted(&cur)
                .into_iter()
                .map(|j| (j, crit(&cur.iter().copied().filter(|&f| f != j).collect::<Vec<_>>())))
                .collect();
            let (j, v) = lowest_near_min(&cands).unwrap();
            let s: Vec<usize> = cur.iter().copied().filter(|&f| f != j).collect();
            if !better_value(v, best[s.len()].as_ref().map(|p| p.0)) || !visited.insert(sorted(&s)) {
                break;
            }
            cur = s;
            best[cur.len()] = Some((v, cur.clone()));
        }
    }
    best.into_iter().skip(1).flatten().map(|(v, s)| (s, v)).unzip()
}

#[test]
fn matches_brute_force_sffs() {
    let mut removals = 0;
    for seed in 1..9u64 {
        let (x, y, off) = problem(seed, &[5, 2, 7, 3, 4, 6, 3], 7);
        let opts = GreedyOptions { n_features_to_select: 6, alpha: 0.3, min_improvement: None, max_memory: None };
        let units = Units::singletons(x.ncols());
        let fp =
            greedy_rankrls_floating(x.view(), &y, &qo(&off), &units, &opts, &Squared, &NoInterrupt, &mut |_, _, _| {
                Ok(())
            })
            .unwrap();
        let (subsets, values) = naive_sffs(&x, &y, &off, 6, 0.3);
        assert_eq!(fp.subsets, subsets, "seed {seed}");
        close(&fp.path.lqo_scores, &values, "criterion");
        removals += fp.steps.iter().filter(|s| !s.1).count();
        // the weights of each size's best subset are the direct solve on it
        for (row, s) in subsets.iter().enumerate() {
            let xs = x.select(ndarray::Axis(1), s);
            let w = crate::models::rankrls::fit(xs.view(), &y, &qo(&off), 0.3).unwrap();
            for (j, &f) in s.iter().enumerate() {
                assert!((fp.path.coef_path[(row, f)] - w[j]).abs() <= 1e-9 * (1.0 + w[j].abs()));
            }
        }
    }
    assert!(removals > 0, "the problems exercise at least one removal");
}

#[test]
fn refuses_min_improvement_and_other_backends_refuse() {
    let (x, y, off) = problem(3, &[4, 3, 5], 4);
    let opts = GreedyOptions { n_features_to_select: 2, alpha: 1.0, min_improvement: Some(0.1), max_memory: None };
    let units = Units::singletons(x.ncols());
    let err =
        greedy_rankrls_floating(x.view(), &y, &qo(&off), &units, &opts, &Squared, &NoInterrupt, &mut |_, _, _| Ok(()))
            .unwrap_err();
    assert!(err.to_string().contains("min_improvement"), "{err}");
}
