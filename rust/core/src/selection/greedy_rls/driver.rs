//! Greedy RankRLS: options, argument checks and the selection loop (Algorithm 1).

use ndarray::ArrayView2;

use super::criterion::Criterion;
use super::path::{GreedyPath, PrimalPath, Stop};
use super::state::{state_bytes, GreedyState};
use crate::data::groups::QueryOffsets;
use crate::error::{check_memory, Result};
use crate::interrupt::Interrupt;
use crate::invalid;

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

/// `true` when `new` is better than `best` (NaN is never better).
pub(crate) fn better(new: f64, best: f64, higher: bool) -> bool {
    if higher {
        new > best
    } else {
        new < best
    }
}

/// The checks of the arguments every greedy run shares (shapes, queries,
/// `n_features_to_select`, `alpha`, `min_improvement`), before any pass over the data.
pub(crate) fn check_params(x: ArrayView2<f64>, y: &[f64], offsets: &QueryOffsets, opts: &GreedyOptions) -> Result<()> {
    let (m, n) = x.dim();
    if y.len() != m {
        return invalid!("y has {} entries but X has {m} rows", y.len());
    }
    offsets.check_rows(m, "X")?;
    if offsets.len() < 3 {
        return invalid!("leave-query-out needs at least two queries (qid), got {}", offsets.len() - 1);
    }
    let k = opts.n_features_to_select;
    if k < 1 || k > n {
        return invalid!("n_features_to_select must be in [1, n_features = {n}], got {k}");
    }
    if !(opts.alpha.is_finite() && opts.alpha > 0.0) {
        return invalid!("alpha must be > 0 and finite, got {}", opts.alpha);
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
    if x.iter().any(|v| !v.is_finite()) {
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

/// The memory rule for the caches of [`GreedyState`] on `m` rows and `n` features.
pub(crate) fn check_cache_memory(m: usize, n: usize, max_memory: Option<u64>, remedy: &str) -> Result<()> {
    match max_memory {
        Some(max_memory) => check_memory(
            &format!("the greedy RankRLS caches C and U for {m} rows x {n} features (2 x {m} x {n} float64)"),
            state_bytes(m, n),
            max_memory,
            remedy,
        ),
        None => Ok(()),
    }
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

/// Greedy RankRLS on grouped `x` (m x n, rows contiguous per query as in `offsets`).
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
    check_params(x, y, offsets, opts)?;
    check_data(x, y, criterion)?;
    let (m, n) = x.dim();
    let (alpha, k) = (opts.alpha, opts.n_features_to_select);
    check_cache_memory(
        m,
        n,
        opts.max_memory,
        "select on fewer rows or features (e.g. a sample of the queries), or raise the limit with \
         rankselect.set_config(max_memory=...)",
    )?;

    interrupt.check()?;
    let mut st = GreedyState::new(x, y, offsets, alpha);
    let higher = criterion.higher_is_better();
    let mut selected: Vec<usize> = Vec::with_capacity(k);
    // Selected features and features that cannot change the model are never candidates.
    let mut skip: Vec<bool> = st.informative().iter().map(|v| !v).collect();
    let mut lqo_scores: Vec<f64> = Vec::with_capacity(k);
    let mut coef_rows: Vec<Vec<f64>> = Vec::with_capacity(k);
    let mut primal = PrimalPath::new(n);
    let mut stop = None;
    interrupt.check()?;
    let mut values = st.pass(None, y, criterion, &skip);
    for step in 0..k {
        // Best candidate, ties to the lowest index; NaN values never win.
        let mut best: Option<(usize, f64)> = None;
        let mut any = false;
        for (i, v) in values.iter().enumerate() {
            if let Some(v) = *v {
                any = true;
                match best {
                    None if !v.is_nan() => best = Some((i, v)),
                    Some((_, bv)) if better(v, bv, higher) => best = Some((i, v)),
                    _ => {}
                }
            }
        }
        if !any {
            stop = Some(Stop::Uninformative);
            break;
        }
        let Some((b, value)) = best else {
            return invalid!("no candidate feature gives a finite leave-query-out criterion");
        };
        if below_min_improvement(opts.min_improvement, lqo_scores.last().copied(), value, higher) {
            stop = Some(Stop::MinImprovement);
            break;
        }
        coef_rows.push(primal.push(&st, &selected, b));
        selected.push(b);
        lqo_scores.push(value);
        skip[b] = true;
        progress(step, b, value)?;
        if step + 1 < k {
            interrupt.check()?;
            // The update of this step fused with the candidate scan of the next.
            let upd = st.select(b);
            values = st.pass(Some(&upd), y, criterion, &skip);
        }
    }
    Ok(GreedyPath::from_rows(selected, lqo_scores, coef_rows, n, stop))
}
