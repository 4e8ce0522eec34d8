//! Greedy RankRLS over groups of features (feature families, issue 33) with the exact
//! leave-query-out criterion: adding a group of `b` columns `Xg` is a rank-`b` update of `G`
//! (the block form of the rank-one step of [`super`]; Woodbury), so one step scans every
//! candidate group in O(b m) each, O(b m n) in all, and applies the chosen one in O(b m n).
//!
//! With the caches of [`super`] (`C = G Xc`, `U = blockdiag(B_q) C`, `p`, `M`, `r`), the
//! group's columns `Cg = C_:g`, `Zg = U_:g` and
//!
//! ```text
//! K    = I_b + M_gg            h = K^-1 r_g          T = K^-1 M_g:
//! G'   = G - Cg K^-1 Cg^T      (Woodbury)
//! S_q  = Cg_q^T Zg_q           W_q = K - S_q          (b x b, positive definite)
//! B'_q = B_q + Zg_q W_q^-1 Zg_q^T
//! p'_q = p_q + Zg_q v_q,       v_q = W_q^-1 (Cg_q^T p_q - S_q h) - h
//! C'   = C - Cg T              U'_q = U_q + Zg_q (W_q^-1 (Zg_q^T C_q - S_q T) - T)
//! M'   = M - M_:g T            r'   = r - M_:g h
//! ```
//!
//! The criterion of candidate `g` is that of the residuals `p'` (Theorem 3.1 with the block
//! update: `sum_q ||p'_q||^2` for the squared criterion, eq. 7). With `b = 1` every line is
//! the rank-one step of [`super`]. Each candidate's sum runs over the queries in order, so
//! results do not depend on the number of threads. The weights of every prefix are solved in
//! the primal (eq. 5) as in [`super::path`], the group's members appended in order.

use faer::{Accum, Mat, Par};
use ndarray::ArrayView2;
use rayon::prelude::*;

use super::choice::{choose_best, choose_per_cost};
use super::criterion::{Criterion, CriterionScratch};
use super::driver::{below_min_improvement, check_cache_memory, check_data, check_params, GreedyOptions};
use super::path::{GreedyPath, PrimalPath, Stop};
use crate::alloc;
use crate::data::groups::{center_exact, QueryOffsets};
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::linalg::dot4;

/// The per-cost rule over groups: `costs[g]` is the cost of selecting group `g` whole (its
/// members' costs plus its extraction cost), `budget` caps the total.
#[derive(Clone, Copy, Debug)]
pub struct GroupCosts<'c> {
    pub costs: &'c [f64],
    pub budget: Option<f64>,
}

/// Checks `groups` (non-empty lists of distinct columns `< n`, no column in two groups).
pub fn check_groups(groups: &[Vec<usize>], n: usize) -> Result<()> {
    if groups.is_empty() {
        return invalid!("groups is empty: at least one group of columns is needed");
    }
    let mut seen = vec![usize::MAX; n];
    for (g, members) in groups.iter().enumerate() {
        if members.is_empty() {
            return invalid!("group {g} is empty: a group needs at least one column");
        }
        for &j in members {
            if j >= n {
                return invalid!("group {g} holds column {j}, but X has {n} features");
            }
            if seen[j] != usize::MAX {
                return invalid!("column {j} is in two groups ({} and {g})", seen[j]);
            }
            seen[j] = g;
        }
    }
    Ok(())
}

/// Solves `a x = rhs` in place for `nrhs` right-hand sides (`a` row-major `b x b`, `rhs`
/// row-major `b x nrhs`), Gaussian elimination with partial pivoting (b is a group's size).
fn solve(a: &mut [f64], b: usize, rhs: &mut [f64], nrhs: usize) {
    for k in 0..b {
        let piv = (k..b).fold(k, |best, i| if a[i * b + k].abs() > a[best * b + k].abs() { i } else { best });
        if piv != k {
            for j in 0..b {
                a.swap(k * b + j, piv * b + j);
            }
            for j in 0..nrhs {
                rhs.swap(k * nrhs + j, piv * nrhs + j);
            }
        }
        let d = a[k * b + k];
        for i in k + 1..b {
            let f = a[i * b + k] / d;
            if f != 0.0 {
                for j in k..b {
                    a[i * b + j] -= f * a[k * b + j];
                }
                for j in 0..nrhs {
                    rhs[i * nrhs + j] -= f * rhs[k * nrhs + j];
                }
            }
        }
    }
    for k in (0..b).rev() {
        let d = a[k * b + k];
        for j in 0..nrhs {
            let mut s = rhs[k * nrhs + j];
            for l in k + 1..b {
                s -= a[k * b + l] * rhs[l * nrhs + j];
            }
            rhs[k * nrhs + j] = s / d;
        }
    }
}

/// The caches of [`super`], feature-major (column `i` at `i m .. (i + 1) m`).
struct GroupState {
    m: usize,
    n: usize,
    offsets: Vec<usize>,
    c: Vec<f64>,
    u: Vec<f64>,
    p: Vec<f64>,
    yc: Vec<f64>,
    gram: Mat<f64>,
    xty: Vec<f64>,
    mm: Mat<f64>,
    r: Vec<f64>,
    informative: Vec<bool>,
}

/// What one query contributes to a group step: `S_q` (b x b) and `W_q = K - S_q`.
struct QueryBlock {
    s: Vec<f64>,
    w: Vec<f64>,
}

impl GroupState {
    fn new(x: ArrayView2<f64>, y: &[f64], offsets: &QueryOffsets, alpha: f64) -> Result<Self> {
        let (m, n) = x.dim();
        let ranges: Vec<(usize, usize)> = offsets.windows(2).map(|w| (w[0], w[1])).collect();
        let mut yc = alloc::try_copy(y, "group greedy RankRLS's centred labels")?;
        center_exact(&mut yc, &ranges);
        let mut u = alloc::try_zeroed_vec::<f64>(m.saturating_mul(n), "group greedy RankRLS's cache U")?;
        let mut informative = vec![false; n];
        let mut xty = vec![0.0; n];
        for i in 0..n {
            let col = &mut u[i * m..(i + 1) * m];
            col.iter_mut().zip(x.column(i)).for_each(|(d, s)| *d = *s);
            informative[i] = center_exact(col, &ranges);
            xty[i] = dot4(col, &yc);
        }
        let xc = faer::MatRef::from_column_major_slice(&u, m, n);
        let mut gram = alloc::try_mat_zeros(n, n, "group greedy RankRLS's Gram matrix")?;
        faer::linalg::matmul::matmul(gram.as_mut(), Accum::Replace, xc.transpose(), xc, 1.0, Par::Seq);
        for i in 0..n {
            for j in 0..i {
                gram[(j, i)] = gram[(i, j)];
            }
        }
        let inv = 1.0 / alpha;
        let c: Vec<f64> = u.iter().map(|v| v * inv).collect();
        let mm = alloc::try_mat(n, n, |i, j| gram[(i, j)] * inv, "group greedy RankRLS's matrix M")?;
        let r = xty.iter().map(|v| v * inv).collect();
        let p = yc.clone();
        Ok(GroupState { m, n, offsets: offsets.to_vec(), c, u, p, yc, gram, xty, mm, r, informative })
    }

    /// `K = I + M_gg` (row-major) and `h = K^-1 r_g`.
    fn k_and_h(&self, g: &[usize]) -> (Vec<f64>, Vec<f64>) {
        let b = g.len();
        let k: Vec<f64> =
            (0..b * b).map(|t| self.mm[(g[t / b], g[t % b])] + if t / b == t % b { 1.0 } else { 0.0 }).collect();
        let mut h: Vec<f64> = g.iter().map(|&j| self.r[j]).collect();
        solve(&mut k.clone(), b, &mut h, 1);
        (k, h)
    }

    /// `S_q` and `W_q = K - S_q` of query rows `s..e` for group `g`.
    fn block(&self, g: &[usize], k: &[f64], s: usize, e: usize) -> QueryBlock {
        let (b, m) = (g.len(), self.m);
        let mut sq = vec![0.0; b * b];
        for (j, &gj) in g.iter().enumerate() {
            let cj = &self.c[gj * m + s..gj * m + e];
            for (l, &gl) in g.iter().enumerate() {
                sq[j * b + l] = dot4(cj, &self.u[gl * m + s..gl * m + e]);
            }
        }
        let w = k.iter().zip(&sq).map(|(a, b)| a - b).collect();
        QueryBlock { s: sq, w }
    }

    /// `v_q = W_q^-1 (Cg_q^T p_q - S_q h) - h` of query rows `s..e`.
    fn v(&self, g: &[usize], blk: &QueryBlock, h: &[f64], s: usize, e: usize) -> Vec<f64> {
        let (b, m) = (g.len(), self.m);
        let mut rhs: Vec<f64> = (0..b)
            .map(|j| {
                let s2 = dot4(&self.c[g[j] * m + s..g[j] * m + e], &self.p[s..e]);
                s2 - (0..b).map(|l| blk.s[j * b + l] * h[l]).sum::<f64>()
            })
            .collect();
        solve(&mut blk.w.clone(), b, &mut rhs, 1);
        rhs.iter().zip(h).map(|(a, b)| a - b).collect()
    }

    /// The criterion after adding group `g`.
    fn score(&self, g: &[usize], y: &[f64], criterion: &dyn Criterion, scratch: &mut CriterionScratch) -> f64 {
        let m = self.m;
        let (k, h) = self.k_and_h(g);
        let mut total = 0.0;
        let mut pn = Vec::new();
        for w in self.offsets.windows(2) {
            let (s, e) = (w[0], w[1]);
            let blk = self.block(g, &k, s, e);
            let v = self.v(g, &blk, &h, s, e);
            pn.clear();
            pn.extend_from_slice(&self.p[s..e]);
            for (j, &gj) in g.iter().enumerate() {
                crate::linalg::axpy(v[j], &self.u[gj * m + s..gj * m + e], &mut pn);
            }
            total += criterion.query_term(&pn, 0.0, &pn, &self.yc[s..e], &y[s..e], scratch);
        }
        criterion.finish(total, self.offsets.len() - 1)
    }

    /// Adds group `g` to the model: the updates of the module docs.
    fn add(&mut self, g: &[usize]) {
        let (b, m, n) = (g.len(), self.m, self.n);
        let (k, h) = self.k_and_h(g);
        // T = K^-1 M_g: (b x n, row-major)
        let mut t: Vec<f64> = (0..b * n).map(|q| self.mm[(g[q / n], q % n)]).collect();
        solve(&mut k.clone(), b, &mut t, n);
        let nq = self.offsets.len() - 1;
        // per query: W_q^-1 (b x b) and S_q; p' = p + Zg v
        let mut winv = Vec::with_capacity(nq);
        let mut smat = Vec::with_capacity(nq);
        for q in 0..nq {
            let (s, e) = (self.offsets[q], self.offsets[q + 1]);
            let blk = self.block(g, &k, s, e);
            let v = self.v(g, &blk, &h, s, e);
            for (j, &gj) in g.iter().enumerate() {
                let (zs, ps) = (gj * m + s, gj * m + e);
                for (pv, zv) in self.p[s..e].iter_mut().zip(&self.u[zs..ps]) {
                    *pv += v[j] * zv;
                }
            }
            let mut id: Vec<f64> = (0..b * b).map(|t| if t / b == t % b { 1.0 } else { 0.0 }).collect();
            solve(&mut blk.w.clone(), b, &mut id, b);
            winv.push(id);
            smat.push(blk.s);
        }
        let cg: Vec<Vec<f64>> = g.iter().map(|&j| self.c[j * m..(j + 1) * m].to_vec()).collect();
        let zg: Vec<Vec<f64>> = g.iter().map(|&j| self.u[j * m..(j + 1) * m].to_vec()).collect();
        let offsets = &self.offsets;
        self.c.par_chunks_mut(m.max(1)).zip(self.u.par_chunks_mut(m.max(1))).enumerate().for_each(|(i, (ci, ui))| {
            let ti: Vec<f64> = (0..b).map(|j| t[j * n + i]).collect();
            let mut rhs = vec![0.0; b];
            for q in 0..nq {
                let (s, e) = (offsets[q], offsets[q + 1]);
                for j in 0..b {
                    let ztc = dot4(&zg[j][s..e], &ci[s..e]);
                    rhs[j] = ztc - (0..b).map(|l| smat[q][j * b + l] * ti[l]).sum::<f64>();
                }
                for j in 0..b {
                    let coef = (0..b).map(|l| winv[q][j * b + l] * rhs[l]).sum::<f64>() - ti[j];
                    crate::linalg::axpy(coef, &zg[j][s..e], &mut ui[s..e]);
                }
            }
            for j in 0..b {
                crate::linalg::axpy(-ti[j], &cg[j], ci);
            }
        });
        // M' = M - M_:g T, r' = r - M_:g h
        let mg: Vec<f64> = (0..n * b).map(|q| self.mm[(q / b, g[q % b])]).collect();
        for i in 0..n {
            for jj in 0..n {
                let d: f64 = (0..b).map(|l| mg[i * b + l] * t[l * n + jj]).sum();
                self.mm[(i, jj)] -= d;
            }
            self.r[i] -= (0..b).map(|l| mg[i * b + l] * h[l]).sum::<f64>();
        }
    }

    /// The criterion of the empty model.
    fn baseline(&self, y: &[f64], criterion: &dyn Criterion) -> f64 {
        let mut scratch = CriterionScratch::default();
        let total = self
            .offsets
            .windows(2)
            .map(|w| {
                let q = &self.yc[w[0]..w[1]];
                criterion.query_term(q, 0.0, q, q, &y[w[0]..w[1]], &mut scratch)
            })
            .fold(0.0, |a, b| a + b);
        criterion.finish(total, self.offsets.len() - 1)
    }
}

/// Greedy RankRLS over `groups` (lists of 0-based columns) on grouped `x` (m x n): each step
/// adds the group whose addition gives the best exact LQO criterion (ties to the lowest
/// group index), or with `costs` the largest improvement per unit of the group's cost under
/// the budget (the rule of [`super::choose_per_cost`]). `opts.n_features_to_select` counts
/// groups. The path's `selected` are group indices; `lqo_scores` and `coef_path` one row per
/// group step. `progress(step, group, value)` is called after every step.
#[allow(clippy::too_many_arguments)]
pub fn greedy_rankrls_groups(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    groups: &[Vec<usize>],
    opts: &GreedyOptions,
    costs: Option<GroupCosts<'_>>,
    criterion: &dyn Criterion,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<GreedyPath> {
    let (m, n) = x.dim();
    check_groups(groups, n)?;
    let ng = groups.len();
    let k = opts.n_features_to_select;
    if k < 1 || k > ng {
        return invalid!("n_features_to_select counts groups: it must be in [1, n_groups = {ng}], got {k}");
    }
    check_params(x, y, offsets, opts)?;
    if let Some(gc) = costs {
        if gc.costs.len() != ng {
            return invalid!("the group costs have {} entries but there are {ng} groups", gc.costs.len());
        }
        if let Some(g) = gc.costs.iter().position(|c| !(c.is_finite() && *c >= 0.0)) {
            return invalid!("group costs must be finite and >= 0; group {g} has {}", gc.costs[g]);
        }
        if let Some(b) = gc.budget {
            if !(b.is_finite() && b >= 0.0) {
                return invalid!("budget must be finite and >= 0, got {b}");
            }
        }
    }
    check_data(x, y, criterion)?;
    check_cache_memory(
        m,
        n,
        opts.max_memory,
        "select on fewer rows or features, or raise rankselect.set_config(max_memory=...)",
    )?;
    interrupt.check()?;
    let mut state = GroupState::new(x, y, offsets, opts.alpha)?;
    let higher = criterion.higher_is_better();
    let mut skip: Vec<bool> = groups.iter().map(|g| !g.iter().any(|&j| state.informative[j])).collect();
    let mut prev = if costs.is_some() { state.baseline(y, criterion) } else { f64::NAN };
    let (mut selected, mut lqo_scores, mut coef_rows) = (Vec::new(), Vec::new(), Vec::new());
    let mut primal = PrimalPath::new(n);
    let mut features: Vec<usize> = Vec::new();
    let (mut spent, mut stop) = (0.0, None);
    for step in 0..k {
        interrupt.check()?;
        let st = &state;
        let values: Vec<Option<f64>> = (0..ng)
            .into_par_iter()
            .map_init(CriterionScratch::default, |scratch, g| {
                (!skip[g]).then(|| st.score(&groups[g], y, criterion, scratch))
            })
            .collect();
        let picked = match costs {
            None => choose_best(&values, higher),
            Some(gc) => choose_per_cost(&values, gc.costs, prev, higher, spent, gc.budget),
        };
        let Some((g, value)) = picked else {
            if values.iter().all(|v| v.is_none()) {
                stop = Some(Stop::Uninformative);
                break;
            }
            if costs.is_some() && values.iter().any(|v| v.is_some_and(|v| v.is_finite())) {
                stop = Some(Stop::Budget);
                break;
            }
            return invalid!("no candidate group gives a finite leave-query-out criterion");
        };
        if below_min_improvement(opts.min_improvement, lqo_scores.last().copied(), value, higher) {
            stop = Some(Stop::MinImprovement);
            break;
        }
        let mut w = Vec::new();
        for &j in &groups[g] {
            w = primal.push(&state.gram, &state.xty, opts.alpha, &features, j);
            features.push(j);
        }
        coef_rows.push(w);
        selected.push(g);
        lqo_scores.push(value);
        skip[g] = true;
        if let Some(gc) = costs {
            spent += gc.costs[g];
        }
        prev = value;
        progress(step, g, value)?;
        if step + 1 < k {
            state.add(&groups[g]);
        }
    }
    Ok(GreedyPath::from_rows(selected, lqo_scores, coef_rows, n, stop))
}
