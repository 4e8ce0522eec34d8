//! Greedy RankRLS: options, argument checks and the selection loop (Algorithm 1), written
//! once over a [`GreedyBackend`] (in memory or query shards) and a [`Choice`] rule.

use ndarray::ArrayView2;

use super::backend::{GreedyBackend, InMemory};
use super::choice::{Choice, Chooser};
use super::criterion::Criterion;
use super::path::{GreedyPath, PrimalPath, Stop};
use super::stable::stabilize_weights;
use super::state::{is_wide, units_state_bytes};
use super::units::Units;
use crate::data::groups::QueryOffsets;
use crate::error::{check_memory, Result};
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::linalg::all_finite;

/// Options of [`greedy_rankrls`].
#[derive(Clone, Debug)]
pub struct GreedyOptions {
    /// Number of features to select `k`, `1 <= k <= n` (the paper's stopping size).
    pub n_features_to_select: usize,
    /// Ridge parameter `alpha` (the paper's `λ`, eq. 5), `> 0`.
    pub alpha: f64,
    /// Early stop: after the first step, stop before adding a feature whose criterion `v`
    /// improves on the previous step's `v_prev` by less than `min_improvement · |v_prev|`
    /// ([`Stop::MinImprovement`]); `None`: never.
    pub min_improvement: Option<f64>,
    /// The memory rule: the most bytes the caches may take ([`state_bytes`]); `None`: no limit.
    pub max_memory: Option<u64>,
}

/// The checks of the arguments every greedy run shares (shapes, queries,
/// `n_features_to_select`, `alpha`, `min_improvement`), before any pass over the data.
pub(crate) fn check_params(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    units: &Units,
    opts: &GreedyOptions,
) -> Result<()> {
    let (m, n) = x.dim();
    if y.len() != m {
        return invalid!("y has {} entries but X has {m} rows", y.len());
    }
    if units.n_columns() != n {
        return invalid!("the groups are over {} columns but X has {n} features", units.n_columns());
    }
    offsets.check_rows(m, "X")?;
    check_options(units, offsets.len() - 1, opts)
}

/// The smallest `alpha` a greedy run takes (in memory, floating, with costs, with groups,
/// over query shards): the range in which its selection and criteria are proven exact (the
/// brute-force tests of the units engine cover `1e-8 ..= 1e4`). Below it the accuracy monitor
/// does not bound the criteria of removals (floating search) nor of degenerate queries and
/// duplicated columns, so a run is refused rather than answered wrongly.
pub const MIN_ALPHA: f64 = 1e-8;

/// The checks of the options on the candidate `units` and `n_queries` queries (in memory or
/// over query shards): `n_features_to_select` counts units (features, or groups).
pub fn check_options(units: &Units, n_queries: usize, opts: &GreedyOptions) -> Result<()> {
    if n_queries < 2 {
        return invalid!("leave-query-out needs at least two queries (qid), got {n_queries}");
    }
    let (k, n) = (opts.n_features_to_select, units.len());
    if (k < 1 || k > n) && units.is_singletons() {
        return invalid!("n_features_to_select must be in [1, n_features = {n}], got {k}");
    }
    if k < 1 || k > n {
        return invalid!("n_features_to_select counts groups: it must be in [1, n_groups = {n}], got {k}");
    }
    if !(opts.alpha.is_finite() && opts.alpha > 0.0) {
        return invalid!("alpha must be > 0 and finite, got {}", opts.alpha);
    }
    if opts.alpha < MIN_ALPHA {
        return invalid!(
            "alpha={:e} is below {MIN_ALPHA:e}, the smallest alpha at which greedy RankRLS's selection is \
             proven exact (brute-force tests cover alpha 1e-8 to 1e4; below, the criteria of \
             duplicated, collinear or degenerate columns and of floating search's removals lose the \
             digits that decide a step): use alpha >= {MIN_ALPHA:e}, or rankselect.RankRLS for one \
             fit at a smaller alpha",
            opts.alpha
        );
    }
    if let Some(t) = opts.min_improvement {
        if !(t.is_finite() && t >= 0.0) {
            return invalid!("min_improvement must be >= 0 and finite, got {t}");
        }
    }
    Ok(())
}

/// The checks of the data every greedy run shares: finite `x` and `y`, and relevance grades
/// (`y >= 0`) for a ranking-measure criterion.
pub(crate) fn check_data(x: ArrayView2<f64>, y: &[f64], criterion: &dyn Criterion) -> Result<()> {
    let finite = match x.as_slice_memory_order() {
        Some(s) => {
            crate::par::map_tasks(s.chunks(1 << 16).collect(), || (), |_, _, c| all_finite(c)).into_iter().all(|ok| ok)
        }
        None => x.iter().all(|v| v.is_finite()),
    };
    if !finite {
        return invalid!("X contains NaN or infinity");
    }
    if y.iter().any(|v| !v.is_finite()) {
        return invalid!("y contains NaN or infinity");
    }
    if criterion.needs_grades() && y.iter().any(|&v| v < 0.0) {
        return invalid!("y must be >= 0 (relevance grades) for a ranking-measure criterion");
    }
    Ok(())
}

/// The memory rule for the caches of [`GreedyState`](super::GreedyState) on `m` rows over
/// `units` ([`units_state_bytes`]: the n x n matrices when `n <= m`, none for wide data).
pub(crate) fn check_cache_memory(
    m: usize,
    units: &Units,
    k: usize,
    max_memory: Option<u64>,
    remedy: &str,
) -> Result<()> {
    let Some(max_memory) = max_memory else { return Ok(()) };
    let n = units.n_columns();
    // the n x n matrices (a partial Gram matrix per set-up group, Xc^T Xc, M) or the caches
    let square = 8 * (super::state::setup_groups(m) + 2) * (n as u128) * (n as u128);
    let what = if is_wide(m, n) {
        format!(
            "greedy RankRLS on {m} rows x {n} features (wide data: the caches C, U and the centred data, \
             3 x {m} x {n} float64, and the groups' blocks of M)"
        )
    } else if square > 16 * (m as u128) * (n as u128) {
        format!(
            "greedy RankRLS on {m} rows x {n} features: the {n} x {n} matrices Xc^T Xc and M (float64) dominate, \
             so the number of features is what to reduce"
        )
    } else {
        format!("the greedy RankRLS caches C and U for {m} rows x {n} features (2 x {m} x {n} float64)")
    };
    check_memory(&what, units_state_bytes(m, units, k), max_memory, remedy)
}

/// The `min_improvement` rule: `true` when the step to `value` improves on the previous
/// step's `prev` (`None` at the first step, which is always taken) by less than
/// `min_improvement · |prev|`.
pub(crate) fn below_min_improvement(min_improvement: Option<f64>, prev: Option<f64>, value: f64, higher: bool) -> bool {
    match (min_improvement, prev) {
        (Some(t), Some(prev)) => {
            let gain = if higher { value - prev } else { prev - value };
            gain < t * prev.abs()
        }
        _ => false,
    }
}

/// Greedy RankRLS on grouped `x` (m x n, rows contiguous per query as in `offsets`): the
/// plain run over the features ([`greedy_rankrls_units`] with every feature a unit and the
/// best criterion).
///
/// `progress(step, feature, value)` is called on the calling thread after every step.
pub fn greedy_rankrls(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    opts: &GreedyOptions,
    criterion: &dyn Criterion,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<GreedyPath> {
    let units = Units::singletons(x.ncols());
    greedy_rankrls_units(x, y, offsets, &units, opts, &Choice::Best, criterion, interrupt, progress)
}

/// Greedy RankRLS over `units` (a feature is a unit of one) with the choice rule `choice`
/// (costs per unit): [`select`] on the in-memory caches. The path's `selected` are unit
/// indices, `lqo_scores` and `coef_path` one row per unit step; `progress(step, unit, value)`
/// is called after every step.
// A kernel entry point: one argument per parameter of the method.
#[allow(clippy::too_many_arguments)]
pub fn greedy_rankrls_units(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    units: &Units,
    opts: &GreedyOptions,
    choice: &Choice,
    criterion: &dyn Criterion,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<GreedyPath> {
    let mut backend = in_memory_backend(x, y, offsets, units, opts, choice, criterion, interrupt)?;
    let mut path = select(&mut backend, opts, choice, interrupt, progress)?;
    // the weights of ill-conditioned prefixes, solved again by QR on the data
    stabilize_weights(&mut path, x, y, offsets, units, backend.gram().0, opts.alpha)?;
    Ok(path)
}

/// The prelude of every in-memory run ([`greedy_rankrls_units`],
/// [`super::greedy_rankrls_floating`]): the argument and data checks, the memory rule for
/// the caches, an interrupt check, then the caches for `S = {}`.
// One argument per input of a run.
#[allow(clippy::too_many_arguments)]
pub(crate) fn in_memory_backend<'a>(
    x: ArrayView2<'a, f64>,
    y: &'a [f64],
    offsets: &'a QueryOffsets,
    units: &'a Units,
    opts: &GreedyOptions,
    choice: &Choice,
    criterion: &'a dyn Criterion,
    interrupt: &dyn Interrupt,
) -> Result<InMemory<'a>> {
    check_params(x, y, offsets, units, opts)?;
    choice.check(units.len())?;
    check_data(x, y, criterion)?;
    check_cache_memory(
        x.nrows(),
        units,
        opts.n_features_to_select,
        opts.max_memory,
        "select on fewer rows or features (e.g. a sample of the queries), or raise the limit with \
         rankselect.set_config(max_memory=...)",
    )?;
    interrupt.check()?;
    InMemory::new(x, y, offsets, opts.alpha, units, criterion)
}

/// The selection loop of Algorithm 1 on any backend, over its units: each step takes the
/// candidate unit that `choice` picks (units whose columns are all constant within every
/// query, and selected units, are never candidates), stops early by the `min_improvement`
/// rule ([`Stop::MinImprovement`]), when only uninformative units are left
/// ([`Stop::Uninformative`]) or nothing affordable is ([`Stop::Budget`]), and solves the
/// primal weights of every prefix (eq. 5; a unit's columns appended in order).
/// `progress(step, unit, value)` is called after every step.
pub fn select<B: GreedyBackend + ?Sized>(
    backend: &mut B,
    opts: &GreedyOptions,
    choice: &Choice,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<GreedyPath> {
    let n = backend.units().n_columns();
    let k = opts.n_features_to_select;
    let higher = backend.higher_is_better();
    let mut rule = Chooser::new(*choice, higher, || backend.baseline())?;
    // Selected units and units that cannot change the model are never candidates.
    let mut skip: Vec<bool> = backend.informative()?.iter().map(|v| !v).collect();
    let mut selected: Vec<usize> = Vec::with_capacity(k);
    let mut columns: Vec<usize> = Vec::new();
    let mut lqo_scores: Vec<f64> = Vec::with_capacity(k);
    let mut coef_rows: Vec<Vec<f64>> = Vec::with_capacity(k);
    let mut primal = PrimalPath::new(n, backend.units().largest_total(k));
    let mut stop = None;
    interrupt.check()?;
    let mut values = backend.scan(&skip)?;
    for step in 0..k {
        let picked = rule.pick(&values, backend.bounds());
        let Some((b, value)) = picked else {
            if values.iter().all(|v| v.is_none()) {
                stop = Some(Stop::Uninformative);
                break;
            }
            if rule.is_per_cost() && values.iter().any(|v| v.is_some_and(|v| v.is_finite())) {
                stop = Some(Stop::Budget); // nothing affordable is left
                break;
            }
            return invalid!("no candidate gives a finite leave-query-out criterion");
        };
        if below_min_improvement(opts.min_improvement, lqo_scores.last().copied(), value, higher) {
            stop = Some(Stop::MinImprovement);
            break;
        }
        let (gram, xty) = backend.gram();
        let mut row = Vec::new();
        for &j in backend.units().members(b) {
            row = primal.push(gram, xty, opts.alpha, &columns, j);
            columns.push(j);
        }
        coef_rows.push(row);
        selected.push(b);
        lqo_scores.push(value);
        skip[b] = true;
        rule.take(b, value, backend.bounds().get(b).copied().unwrap_or(0.0));
        progress(step, b, value)?;
        if step + 1 < k {
            interrupt.check()?;
            backend.add(b, &skip)?;
            values = backend.scan(&skip)?;
        }
    }
    Ok(GreedyPath::from_rows(selected, lqo_scores, coef_rows, n, stop))
}
