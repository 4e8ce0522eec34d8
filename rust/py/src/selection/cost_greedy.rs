//! Bindings of `rankselect_core::selection::cost_greedy`: greedy RankRLS under feature costs and a budget.

use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::selection::cost_greedy::greedy_rankrls_costs as kernel;

use crate::data::groups::query_offsets;
use crate::selection::greedy_rls::{criterion_of, greedy_options, run_greedy, GreedyOut};

/// greedy_rankrls_costs(X, y, offsets, n_features_to_select, alpha, criterion="squared",
///                      min_improvement=None, progress=None, convention="standard",
///                      max_memory=None, *, feature_costs, budget=None)
///     -> (selected, values, coef_path (steps, n), stop)
///
/// Greedy RankRLS choosing by exact LQO improvement per unit cost, never exceeding
/// `budget` (None: no budget). The arguments before `feature_costs` are `greedy_rankrls`'s,
/// in the same order. Rows grouped by query (offsets). `stop`: None
/// (`n_features_to_select` steps), "min_improvement", "uninformative" (only features
/// constant within every query are left) or "budget".
#[pyfunction]
#[pyo3(signature = (x, y, offsets, n_features_to_select, alpha, criterion="squared", min_improvement=None,
                    progress=None, convention="standard", max_memory=None, *, feature_costs, budget=None))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn greedy_rankrls_costs<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    n_features_to_select: &Bound<'py, PyAny>,
    alpha: f64,
    criterion: &str,
    min_improvement: Option<f64>,
    progress: Option<Py<PyAny>>,
    convention: &str,
    max_memory: Option<Bound<'py, PyAny>>,
    feature_costs: PyReadonlyArray1<'py, f64>,
    budget: Option<f64>,
) -> PyResult<GreedyOut<'py>> {
    let off = query_offsets(&offsets)?;
    let xv = x.as_array();
    let yv = y.as_slice()?;
    let crit = criterion_of(criterion, convention, yv)?;
    let opts = greedy_options(n_features_to_select, alpha, min_improvement, max_memory)?;
    let feature_costs = feature_costs.as_slice()?;
    run_greedy(py, progress, |interrupt, report| {
        kernel(xv, yv, &off, &opts, feature_costs, budget, crit.as_ref(), interrupt, report)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(greedy_rankrls_costs, m)?)?;
    Ok(())
}
