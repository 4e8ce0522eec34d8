//! Greedy RankRLS over groups of features (feature families, issue 33) with the exact
//! leave-query-out criterion: adding a group of `b` columns `Xg` is a rank-`b` update of `G`
//! (the block form of the rank-one step of [`super`]; Woodbury), so one step scans every
//! candidate group in O(b^2 m) each, and applies the chosen one in O(b m n_live) (`n_live`:
//! the columns not selected yet; [`super::group_state`] holds the caches and the step).
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

use ndarray::ArrayView2;
use rayon::prelude::*;

use super::choice::{choose_best, choose_per_cost};
use super::criterion::Criterion;
use super::driver::{below_min_improvement, check_cache_memory, check_data, check_params, GreedyOptions};
use super::group_state::{GroupState, StepScratch};
use super::path::{GreedyPath, PrimalPath, Stop};
use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;

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
            .map_init(StepScratch::default, |scratch, g| {
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
            state.add(&groups[g])?;
        }
    }
    Ok(GreedyPath::from_rows(selected, lqo_scores, coef_rows, n, stop))
}
