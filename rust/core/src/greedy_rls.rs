//! Greedy RankRLS (Pahikkala et al. 2010, Algorithm 1): greedy forward selection by the
//! exact leave-query-out (LQO) error, in O(k m n) time and O(m n) memory.
//!
//! Notation (rows grouped by query, `Xc`/`yc` query-centred, `x_i` the centred column of
//! feature `i`, `S` the selected set, `alpha` the paper's lambda):
//!
//! ```text
//! G   = (Xc_S Xc_S^T + alpha I)^-1          m x m, never formed
//! a   = G yc                                 m        (dual coefficients, eq. 6)
//! C   = G Xc                                 m x n    (column i: G x_i)
//! B_q = (G_qq)^-1                            n_q x n_q, never formed
//! U   = blockdiag(B_q) C                     m x n    (column i, query q: B_q C_qi)
//! p   = blockdiag(B_q) a                     m        (Theorem 3.1: LQO residuals)
//! ```
//!
//! Theorem 3.1: the query-centred hold-out residuals of query `q` are `p_q = B_q a_q`, so the
//! LQO error is `sum_q ||p_q||^2` (eq. 7). Start: `G = I/alpha`, so `a = yc/alpha`,
//! `C = Xc/alpha`, `U = Xc`, `p = yc`.
//!
//! Adding feature `b` (`v = x_b`, `u = C_b`, `z = U_b`) is a rank-one update of `G`
//! (Sherman-Morrison): `G' = G - c u u^T` with `c = 1/(1 + v^T u)`. Then, with
//! `d = c v^T a`, per query `s1_q = u_q^T z_q`, `s2_q = u_q^T p_q` and
//! `f_q = c / (1 - c s1_q)` (Sherman-Morrison on the block, `B'_q = B_q + f_q z_q z_q^T`):
//!
//! ```text
//! a'   = a - d u
//! p'_q = p_q + (f_q (s2_q - d s1_q) - d) z_q
//! t_i  = c v^T C_i                 C'_i  = C_i - t_i u
//! U'_qi = U_qi + (f_q (z_q^T C_qi - t_i s1_q) - t_i) z_q
//! ```
//!
//! Each candidate's LQO error uses the `p'` formula alone: O(m) per candidate, O(m n) per
//! step; the cache update is also O(m n). The selected model's weights are
//! `w_S = Xc_S^T a` (eq. 6). `Xc`, `C`, `U` are stored feature-major (one contiguous length-m
//! column per feature) so the candidate scan and the update read memory sequentially and
//! are parallel over features; every per-feature quantity is computed by one thread in a
//! fixed order, so results do not depend on the number of threads.
//!
//! `1 - c s1_q > 0` whenever `alpha > 0` (`G'_qq` is positive definite), so no block is
//! singular: a single-document query has a zero centred row and contributes nothing, and a
//! constant feature has `x_i = 0`, leaves `p` unchanged and is picked only if nothing helps.

use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;

use crate::error::Result;
use crate::metrics::{query_metric_with, MetricSpec, Scratch};
use crate::groups::{center_vec, QueryOffsets};
use crate::interrupt::Interrupt;
use crate::invalid;

/// How candidates are compared.
pub trait Criterion: Sync {
    /// Value of the criterion for query-centred LQO residuals `p` (grouped, length m);
    /// `yc` are the centred labels, `y` the raw labels. Hold-out predictions are `yc - p`.
    fn value(&self, p: &[f64], yc: &[f64], y: &[f64], offsets: &[usize]) -> f64;
    /// `true` when larger values are better.
    fn higher_is_better(&self) -> bool;
    /// `true` when `value` only needs the sum of squares of `p` (the fast path).
    fn is_squared(&self) -> bool {
        false
    }
}

/// The paper's criterion: the sum of squared query-centred hold-out residuals (eq. 7).
#[derive(Clone, Copy, Debug, Default)]
pub struct Squared;

impl Criterion for Squared {
    fn value(&self, p: &[f64], _yc: &[f64], _y: &[f64], offsets: &[usize]) -> f64 {
        offsets.windows(2).map(|w| p[w[0]..w[1]].iter().map(|v| v * v).sum::<f64>()).sum()
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
#[derive(Clone, Copy, Debug)]
pub struct MetricCriterion(pub MetricSpec);

impl Criterion for MetricCriterion {
    fn value(&self, p: &[f64], yc: &[f64], y: &[f64], offsets: &[usize]) -> f64 {
        let mut scratch = Scratch::new();
        let mut scores = Vec::new();
        let nq = offsets.len() - 1;
        let mut total = 0.0;
        for w in offsets.windows(2) {
            scores.clear();
            scores.extend((w[0]..w[1]).map(|r| yc[r] - p[r]));
            total += query_metric_with(&self.0, &y[w[0]..w[1]], &scores, &mut scratch);
        }
        total / nq as f64
    }
    fn higher_is_better(&self) -> bool {
        true
    }
}

/// Options of [`greedy_rankrls`].
#[derive(Clone, Debug)]
pub struct GreedyOptions {
    /// Number of features to select, 1 <= k <= n.
    pub k: usize,
    /// Ridge parameter (the paper's lambda), > 0.
    pub alpha: f64,
    /// Early stop: after the first step, stop before adding a feature whose criterion
    /// improves on the previous step's by less than `tol * |previous|`.
    pub tol: Option<f64>,
}

/// Result of a greedy run.
#[derive(Clone, Debug)]
pub struct GreedyPath {
    /// Selected features in order (0-based).
    pub selected: Vec<usize>,
    /// Criterion value after each step.
    pub errors: Vec<f64>,
    /// Weights of the model of every prefix, shape (steps, n), zeros outside the prefix.
    pub coef_path: Array2<f64>,
}

/// The caches of Algorithm 1, feature-major (module docs).
pub struct GreedyState {
    m: usize,
    /// Centred features, feature-major: `xt[i*m..(i+1)*m]` is `x_i`.
    xt: Vec<f64>,
    /// `C = G Xc`, feature-major.
    c: Vec<f64>,
    /// `U = blockdiag(B_q) C`, feature-major.
    u: Vec<f64>,
    a: Vec<f64>,
    p: Vec<f64>,
    yc: Vec<f64>,
}

type State = GreedyState;

impl GreedyState {
    /// Caches for `S = {}` (`G = I/alpha`) from grouped, validated `x` (m x n) and `y`.
    pub fn new(x: ArrayView2<f64>, y: &[f64], offsets: &[usize], alpha: f64) -> Self {
        let (m, n) = x.dim();
        let mut xt = vec![0.0; n * m];
        xt.par_chunks_mut(m.max(1)).enumerate().for_each(|(i, col)| {
            for (r, v) in col.iter_mut().enumerate() {
                *v = x[(r, i)];
            }
            center_vec(col, offsets);
        });
        let mut yc = y.to_vec();
        center_vec(&mut yc, offsets);
        let inv = 1.0 / alpha;
        let c: Vec<f64> = xt.par_iter().map(|v| v * inv).collect();
        let u = xt.clone();
        let a: Vec<f64> = yc.iter().map(|v| v * inv).collect();
        let p = yc.clone();
        GreedyState { m, xt, c, u, a, p, yc }
    }

    /// Criterion value after adding each feature (`None` for features in `skip`), in
    /// parallel over features; `y` are the raw grouped labels.
    pub fn scan(&self, y: &[f64], offsets: &[usize], criterion: &dyn Criterion, skip: &[bool]) -> Vec<Option<f64>> {
        let n = skip.len();
        let nq = offsets.len() - 1;
        let m = self.m;
        if criterion.is_squared() {
            (0..n)
                .into_par_iter()
                .map_init(
                    || Vec::with_capacity(nq),
                    |g, i| if skip[i] { None } else { Some(squared_after(self, i, offsets, g)) },
                )
                .collect()
        } else {
            (0..n)
                .into_par_iter()
                .map_init(
                    || (Vec::with_capacity(nq), vec![0.0; m]),
                    |(g, buf), i| {
                        if skip[i] {
                            None
                        } else {
                            residuals_after(self, i, offsets, g, buf);
                            Some(criterion.value(buf, &self.yc, y, offsets))
                        }
                    },
                )
                .collect()
        }
    }

    /// Adds feature `b`: Sherman-Morrison update of `a`, `p`, `C`, `U` (features in `skip`
    /// are not updated: they are never candidates again).
    pub fn add(&mut self, b: usize, offsets: &[usize], skip: &[bool]) {
        update(self, b, offsets, skip);
    }

    /// Weights `w_S = Xc_S^T a` (eq. 6) of the current model on `selected`, length n.
    pub fn coef(&self, selected: &[usize], n: usize) -> Vec<f64> {
        let m = self.m;
        let mut w = vec![0.0; n];
        for &j in selected {
            w[j] = dot(&self.xt[j * m..(j + 1) * m], &self.a);
        }
        w
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    // Four accumulators: vectorisable and still a fixed order.
    let mut acc = [0.0f64; 4];
    let (ca, ra) = a.split_at(a.len() - a.len() % 4);
    let (cb, rb) = b.split_at(ca.len());
    for (x, y) in ca.chunks_exact(4).zip(cb.chunks_exact(4)) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// The effect of adding one feature: `c`, `d` and, per query, the coefficient `g_q` with
/// `p'_q = p_q + g_q z_q`.
fn candidate_step(state: &State, i: usize, offsets: &[usize], g: &mut Vec<f64>) -> (f64, f64) {
    let m = state.m;
    let v = &state.xt[i * m..(i + 1) * m];
    let cu = &state.c[i * m..(i + 1) * m];
    let z = &state.u[i * m..(i + 1) * m];
    let c = 1.0 / (1.0 + dot(v, cu));
    let d = c * dot(v, &state.a);
    g.clear();
    for w in offsets.windows(2) {
        let (s, e) = (w[0], w[1]);
        let s1 = dot(&cu[s..e], &z[s..e]);
        let s2 = dot(&cu[s..e], &state.p[s..e]);
        g.push(c * (s2 - d * s1) / (1.0 - c * s1) - d);
    }
    (c, d)
}

/// Squared LQO error after adding feature `i`: `sum_q ||p_q + g_q z_q||^2`.
fn squared_after(state: &State, i: usize, offsets: &[usize], g: &mut Vec<f64>) -> f64 {
    let m = state.m;
    candidate_step(state, i, offsets, g);
    let z = &state.u[i * m..(i + 1) * m];
    let mut err = 0.0;
    for (q, w) in offsets.windows(2).enumerate() {
        let gq = g[q];
        let mut eq = 0.0;
        for (pv, zv) in state.p[w[0]..w[1]].iter().zip(&z[w[0]..w[1]]) {
            let r = pv + gq * zv;
            eq += r * r;
        }
        err += eq;
    }
    err
}

/// LQO residuals after adding feature `i`, written into `out`.
fn residuals_after(state: &State, i: usize, offsets: &[usize], g: &mut Vec<f64>, out: &mut [f64]) {
    let m = state.m;
    candidate_step(state, i, offsets, g);
    let z = &state.u[i * m..(i + 1) * m];
    for (q, w) in offsets.windows(2).enumerate() {
        for r in w[0]..w[1] {
            out[r] = state.p[r] + g[q] * z[r];
        }
    }
}

/// `true` when `new` is better than `best` (NaN is never better).
fn better(new: f64, best: f64, higher: bool) -> bool {
    if higher {
        new > best
    } else {
        new < best
    }
}

/// Greedy RankRLS on grouped `x` (m x n, rows contiguous per query as in `offsets`).
///
/// `progress(step, feature, value)` is called on the calling thread after every step.
#[allow(clippy::too_many_arguments)]
pub fn greedy_rankrls(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    opts: &GreedyOptions,
    criterion: &dyn Criterion,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<GreedyPath> {
    let (m, n) = x.dim();
    if y.len() != m {
        return invalid!("y has {} entries but X has {m} rows", y.len());
    }
    offsets.check_rows(m, "X")?;
    if offsets.len() < 3 {
        return invalid!("leave-query-out needs at least two queries (qid), got {}", offsets.len() - 1);
    }
    if opts.k < 1 || opts.k > n {
        return invalid!("n_features_to_select must be in [1, n_features = {n}], got {}", opts.k);
    }
    let alpha = opts.alpha;
    if !(alpha.is_finite() && alpha > 0.0) {
        return invalid!("alpha must be > 0 and finite, got {alpha}");
    }
    if let Some(t) = opts.tol {
        if !(t.is_finite() && t >= 0.0) {
            return invalid!("tol must be >= 0 and finite, got {t}");
        }
    }
    if x.iter().any(|v| !v.is_finite()) {
        return invalid!("X contains NaN or infinity");
    }
    if y.iter().any(|v| !v.is_finite()) {
        return invalid!("y contains NaN or infinity");
    }
    if !criterion.is_squared() && y.iter().any(|&v| v < 0.0) {
        return invalid!("y must be >= 0 (relevance grades) for a ranking-measure criterion");
    }

    let mut st = GreedyState::new(x, y, offsets, alpha);

    let higher = criterion.higher_is_better();
    let mut selected: Vec<usize> = Vec::with_capacity(opts.k);
    let mut is_selected = vec![false; n];
    let mut errors: Vec<f64> = Vec::with_capacity(opts.k);
    let mut coef_rows: Vec<Vec<f64>> = Vec::with_capacity(opts.k);
    for step in 0..opts.k {
        interrupt.check()?;
        // Candidate scan, parallel over features; deterministic per feature.
        let values = st.scan(y, offsets, criterion, &is_selected);
        // Best candidate, ties to the lowest index; NaN values never win.
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
        let Some((b, value)) = best else {
            return invalid!("no candidate feature gives a finite leave-query-out criterion");
        };
        if let (Some(t), Some(&prev)) = (opts.tol, errors.last()) {
            let gain = if higher { value - prev } else { prev - value };
            if gain < t * prev.abs() {
                break;
            }
        }
        interrupt.check()?;
        st.add(b, offsets, &is_selected);
        is_selected[b] = true;
        selected.push(b);
        errors.push(value);
        coef_rows.push(st.coef(&selected, n));
        progress(step, b, value)?;
    }
    let mut coef_path = Array2::<f64>::zeros((coef_rows.len(), n));
    for (r, w) in coef_rows.iter().enumerate() {
        coef_path.row_mut(r).iter_mut().zip(w).for_each(|(d, s)| *d = *s);
    }
    Ok(GreedyPath { selected, errors, coef_path })
}

/// Sherman-Morrison update of `a`, `p`, `C`, `U` after adding feature `b` (module docs).
fn update(st: &mut State, b: usize, offsets: &[usize], is_selected: &[bool]) {
    let m = st.m;
    let v = st.xt[b * m..(b + 1) * m].to_vec();
    let ub = st.c[b * m..(b + 1) * m].to_vec();
    let zb = st.u[b * m..(b + 1) * m].to_vec();
    let c = 1.0 / (1.0 + dot(&v, &ub));
    let d = c * dot(&v, &st.a);
    let mut s1 = Vec::with_capacity(offsets.len() - 1);
    let mut f = Vec::with_capacity(offsets.len() - 1);
    for w in offsets.windows(2) {
        let (s, e) = (w[0], w[1]);
        let s1q = dot(&ub[s..e], &zb[s..e]);
        let s2q = dot(&ub[s..e], &st.p[s..e]);
        let fq = c / (1.0 - c * s1q);
        let g = fq * (s2q - d * s1q) - d;
        for r in s..e {
            st.p[r] += g * zb[r];
        }
        s1.push(s1q);
        f.push(fq);
    }
    st.a.iter_mut().zip(&ub).for_each(|(a, u)| *a -= d * u);
    st.c.par_chunks_mut(m)
        .zip(st.u.par_chunks_mut(m))
        .enumerate()
        .for_each(|(i, (ci, ui))| {
            if i == b || is_selected[i] {
                return;
            }
            let t = c * dot(&v, ci);
            for (q, w) in offsets.windows(2).enumerate() {
                let (s, e) = (w[0], w[1]);
                let zc = dot(&zb[s..e], &ci[s..e]);
                let h = f[q] * (zc - t * s1[q]) - t;
                for r in s..e {
                    ui[r] += h * zb[r];
                    ci[r] -= t * ub[r];
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use crate::rankrls::tests::{naive_lqo, problem};

    fn run(x: &Array2<f64>, y: &[f64], off: &[usize], k: usize, alpha: f64) -> GreedyPath {
        let opts = GreedyOptions { k, alpha, tol: None };
        greedy_rankrls(x.view(), y, &crate::groups::QueryOffsets::new((off).to_vec()).unwrap(), &opts, &Squared, &NoInterrupt, &mut |_, _, _| Ok(())).unwrap()
    }

    /// Brute-force greedy: for every candidate set, delete each query, re-centre, solve.
    fn naive_greedy(x: &Array2<f64>, y: &[f64], off: &[usize], k: usize, alpha: f64) -> (Vec<usize>, Vec<f64>) {
        let n = x.ncols();
        let mut sel: Vec<usize> = Vec::new();
        let mut errs = Vec::new();
        for _ in 0..k {
            let mut best: Option<(usize, f64)> = None;
            for i in (0..n).filter(|i| !sel.contains(i)) {
                let mut feats = sel.clone();
                feats.push(i);
                let (e, _) = naive_lqo(x, y, off, &feats, alpha);
                if best.map_or(true, |(_, be)| e < be * (1.0 - 1e-12)) {
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
            for (a, b) in path.errors.iter().zip(&errs) {
                assert!((a - b).abs() <= 1e-9 * b.abs(), "{a} vs {b}");
            }
            // Final model equals the direct solve on the selected features.
            let w = crate::rankrls::fit(x.view(), &y, &crate::groups::QueryOffsets::new((&off).to_vec()).unwrap(), 0.5).unwrap();
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
        assert!(path.errors.iter().all(|e| e.is_finite()));
    }

    #[test]
    fn metric_criterion_matches_brute_force() {
        use crate::metrics::{query_metric, Measure};
        let (x, y, off) = problem(21, &[5, 4, 7, 3, 6, 6], 5);
        let spec = MetricSpec::new(Measure::Ndcg(Some(3)));
        let opts = GreedyOptions { k: 3, alpha: 0.5, tol: None };
        let path = greedy_rankrls(x.view(), &y, &crate::groups::QueryOffsets::new((&off).to_vec()).unwrap(), &opts, &MetricCriterion(spec), &NoInterrupt, &mut |_, _, _| Ok(()))
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
                if best.map_or(true, |(_, bv)| v > bv + 1e-12) {
                    best = Some((i, v));
                }
            }
            let (b, v) = best.unwrap();
            assert!((path.errors[step] - v).abs() < 1e-12, "{} vs {v}", path.errors[step]);
            assert_eq!(path.selected[step], b);
            sel.push(b);
        }
    }

    #[test]
    fn bad_input() {
        let (x, y, off) = problem(2, &[3, 3], 3);
        let mut noop = |_: usize, _: usize, _: f64| Ok(());
        for (k, alpha) in [(0, 1.0), (4, 1.0), (2, 0.0), (2, -1.0)] {
            let opts = GreedyOptions { k, alpha, tol: None };
            assert!(greedy_rankrls(x.view(), &y, &crate::groups::QueryOffsets::new((&off).to_vec()).unwrap(), &opts, &Squared, &NoInterrupt, &mut noop).is_err());
        }
    }
}
