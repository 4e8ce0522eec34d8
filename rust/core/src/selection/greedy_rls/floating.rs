//! Floating greedy RankRLS: sequential floating forward selection (SFFS, Pudil, Novovičová
//! and Kittler 1994) with the exact LQO criterion of Algorithm 1.
//!
//! After each addition (the best candidate, as [`super::select`]), the selected feature whose
//! removal gives the best criterion is removed, as long as the smaller subset beats the best
//! subset of that size seen so far; then the next addition. Removing feature `b` is the
//! rank-one step of an addition with the opposite sign (`K' = K - x_b x_b^T`, so
//! `G' = G + u u^T / (1 - M_bb)`, i.e. `c = -1/(1 - M_bb)` in the update formulas of
//! [`super`]), exact and O(m n) like an addition: [`super::GreedyState::deselect`]. The
//! caches of the selected features are therefore updated by every pass (a plain greedy run
//! skips them), and one pass scores both the additions of the unselected features and the
//! removals of the selected ones.
//!
//! Exact at every alpha: the downdate's pivot `1 - M_bb` tends to 0 with `alpha` (it is
//! `1/(1 + M'_bb)`, `M'_bb` the addition term of `b` to `S \ {b}`, of order `||x_b||^2 / alpha`),
//! and cancellation then costs `log10(1/(1 - M_bb))` digits of `C`, `U`, `p`, `M`, `r` and of the
//! removal values (1.2e-2 relative at `alpha = 1e-6`). Below
//! [`MIN_REMOVAL_PIVOT`](super::backend::MIN_REMOVAL_PIVOT) the in-memory backend refactors
//! instead ([`GreedyBackend::refine_removals`]): a removal rebuilds the caches of `S \ {b}`
//! from `S = {}` by additions in order of entry (O(|S| m n), the caches a fresh run would
//! have), and the removal value of such a `j` is the value of adding the last feature of
//! `S \ {j}` to the rest, computed the same way. Above the threshold (moderate alpha) nothing
//! changes: one O(m n) downdate, the same bits as before.
//!
//! No subset is visited twice: an addition takes the best candidate whose subset has not
//! been visited, and a removal must strictly beat the best subset of its size (so its
//! subset is new). Ties (values within a relative [`REL_TIE`] = 1e-8: the rounding of the
//! caches' up- and downdates, and of the exact values themselves at small alpha, where a
//! held-out query's system is ill-conditioned: up to 3.5e-9 relative at `alpha = 1e-6` on
//! problems where every subset has the same exact value) go to the lowest feature index, and a removal must beat the
//! best of its size by more than that; NaN never wins. The search stops
//! when the current subset has `n_features_to_select` features and no removal improves,
//! when only uninformative features are left ([`Stop::Uninformative`]), or when every
//! addition would give a visited subset ([`Stop::Visited`]).

use std::collections::HashSet;

use ndarray::ArrayView2;

use super::backend::{GreedyBackend, InMemory};
use super::choice::{better, Choice};
use super::criterion::Criterion;
use super::driver::{in_memory_backend, GreedyOptions};
use super::path::{GreedyPath, PrimalPath, Stop};
use super::units::Units;
use crate::alloc;
use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;

/// Result of a floating run.
#[derive(Clone, Debug)]
pub struct FloatingPath {
    /// Per subset size `s = 1..` (in units): `selected` is the best subset of the largest
    /// size (units, in order of entry), `lqo_scores[s - 1]` the best criterion of size `s`,
    /// `coef_path` row `s - 1` the weights of the best subset of size `s`.
    pub path: GreedyPath,
    /// The best subset of every size (units), each in order of entry into the search's subset.
    pub subsets: Vec<Vec<usize>>,
    /// Every step: `(unit, added, criterion after the step)`.
    pub steps: Vec<(usize, bool, f64)>,
}

/// Floating greedy RankRLS over `units` on grouped `x` (m x n), in memory: the prelude of
/// [`super::greedy_rankrls_units`] and [`select_floating`].
// A kernel entry point: one argument per parameter of the method.
#[allow(clippy::too_many_arguments)]
pub fn greedy_rankrls_floating(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    units: &Units,
    opts: &GreedyOptions,
    criterion: &dyn Criterion,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<FloatingPath> {
    let mut backend = in_memory_backend(x, y, offsets, units, opts, &Choice::Best, criterion, interrupt)?;
    select_floating(&mut backend, opts, interrupt, progress)
}

/// What floating search needs beyond [`GreedyBackend`]: the in-memory backend refines the
/// removal values of ill-conditioned downdates ([`InMemory::refine_removals`]).
pub trait FloatingBackend: GreedyBackend {
    /// Makes the removal values in `values` (from the last scan) exact where a downdate is
    /// ill-conditioned; may refresh every value.
    fn refine_removals(&mut self, values: &mut Vec<Option<f64>>, skip: &[bool]) -> Result<()>;
}

impl FloatingBackend for InMemory<'_> {
    fn refine_removals(&mut self, values: &mut Vec<Option<f64>>, skip: &[bool]) -> Result<()> {
        InMemory::refine_removals(self, values, skip)
    }
}

/// Relative tolerance of a tie: values this close are equal (the rounding of the values at
/// small alpha; module docs).
pub const REL_TIE: f64 = 1e-8;

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= REL_TIE * a.abs().max(b.abs())
}

/// The best of `cands` (`(feature, value)`, ascending features, no NaN): the lowest feature
/// whose value is within [`REL_TIE`] of the best value.
fn pick(cands: &[(usize, f64)], higher: bool) -> Option<(usize, f64)> {
    let top = cands.iter().map(|c| c.1).reduce(|a, b| if better(b, a, higher) { b } else { a })?;
    cands.iter().copied().find(|c| c.1 == top || near(c.1, top))
}

fn key(subset: &[usize]) -> Vec<usize> {
    let mut k = subset.to_vec();
    k.sort_unstable();
    k
}

/// The SFFS loop (module docs) over the backend's units, on any backend that can remove a
/// unit. `progress(step, unit, value)` is called after every addition.
pub fn select_floating<B: FloatingBackend + ?Sized>(
    backend: &mut B,
    opts: &GreedyOptions,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<FloatingPath> {
    if opts.min_improvement.is_some() {
        return invalid!("min_improvement is not available with floating search (floating=True)");
    }
    let n = backend.units().len();
    let n_cols = backend.units().n_columns();
    let k = opts.n_features_to_select;
    let higher = backend.higher_is_better();
    // Only features that cannot change the model are skipped: the selected ones stay current.
    let skip: Vec<bool> = backend.informative()?.iter().map(|v| !v).collect();
    let mut in_set = alloc::try_filled(n, false, "floating search's selected-feature flags")?;
    let mut current: Vec<usize> = Vec::with_capacity(k + 1);
    let mut best: Vec<Option<(f64, Vec<usize>)>> = alloc::try_filled(k + 1, None, "floating search's best subsets")?;
    let mut visited: HashSet<Vec<usize>> = HashSet::new();
    let mut steps = Vec::new();
    let mut stop = None;
    let mut additions = 0;
    interrupt.check()?;
    let mut values = backend.scan(&skip)?;
    while current.len() < k {
        // Addition: the best candidate whose subset is new.
        let mut cands: Vec<(usize, f64)> = Vec::new();
        let mut any = false;
        for i in (0..n).filter(|&i| !skip[i] && !in_set[i]) {
            let Some(v) = values[i] else { continue };
            any = true;
            let mut s = current.clone();
            s.push(i);
            if !v.is_nan() && !visited.contains(&key(&s)) {
                cands.push((i, v));
            }
        }
        let Some((b, v)) = pick(&cands, higher) else {
            if !any {
                stop = Some(Stop::Uninformative);
                break;
            }
            if values.iter().flatten().all(|v| v.is_nan()) {
                return invalid!("no candidate feature gives a finite leave-query-out criterion");
            }
            stop = Some(Stop::Visited);
            break;
        };
        interrupt.check()?;
        backend.add(b, &skip)?;
        in_set[b] = true;
        current.push(b);
        visited.insert(key(&current));
        let size = current.len();
        if best[size].as_ref().is_none_or(|(bv, _)| better(v, *bv, higher)) {
            best[size] = Some((v, current.clone()));
        }
        steps.push((b, true, v));
        progress(additions, b, v)?;
        additions += 1;
        values = backend.scan(&skip)?;
        backend.refine_removals(&mut values, &skip)?;
        // Conditional removals, while the smaller subset beats the best of its size.
        while current.len() > 1 {
            let cands: Vec<(usize, f64)> =
                key(&current).into_iter().filter_map(|j| values[j].filter(|v| !v.is_nan()).map(|v| (j, v))).collect();
            let Some((j, v)) = pick(&cands, higher) else { break };
            let size = current.len() - 1;
            // strictly better beyond rounding: the caches' up- and downdates drift by ~1e-13
            let beats = best[size].as_ref().is_none_or(|(bv, _)| better(v, *bv, higher) && !near(v, *bv));
            let mut s: Vec<usize> = current.iter().copied().filter(|&f| f != j).collect();
            if !beats || !visited.insert(key(&s)) {
                break;
            }
            interrupt.check()?;
            backend.remove(j, &skip)?;
            in_set[j] = false;
            std::mem::swap(&mut current, &mut s);
            best[size] = Some((v, current.clone()));
            steps.push((j, false, v));
            values = backend.scan(&skip)?;
            backend.refine_removals(&mut values, &skip)?;
        }
    }
    let (gram, xty) = backend.gram();
    let mut subsets = Vec::new();
    let mut scores = Vec::new();
    let mut rows = Vec::new();
    for (v, s) in best.into_iter().skip(1).flatten() {
        let cols = backend.units().columns_of(&s);
        let mut primal = PrimalPath::new(n_cols, cols.len());
        let mut w = Vec::new();
        for (j, &f) in cols.iter().enumerate() {
            w = primal.push(gram, xty, opts.alpha, &cols[..j], f);
        }
        rows.push(w);
        scores.push(v);
        subsets.push(s);
    }
    let selected = subsets.last().cloned().unwrap_or_default();
    let path = GreedyPath::from_rows(selected, scores, rows, n_cols, stop);
    Ok(FloatingPath { path, subsets, steps })
}
