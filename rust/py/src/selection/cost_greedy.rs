//! Bindings of `rankselect_core::selection::cost_greedy`: greedy RankRLS under feature costs and a budget.

use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::selection::cost_greedy::greedy_rankrls_costs as kernel;
use rankselect_core::selection::greedy_rls::GreedyOptions;

use crate::data::groups::query_offsets;
use crate::errors::count_arg;
use crate::selection::greedy_rls::{criterion_of, run_greedy, GreedyOut};

/// greedy_rankrls_costs(X, y, offsets, k, alpha, costs, budget, memory_limit, criterion="squared",
///                      tol=None, progress=None, convention="standard")
///     -> (selected, values, coef_path (steps, n), stop)
///
/// Greedy RankRLS choosing by exact LQO improvement per unit cost, never exceeding
/// `budget` (None: no budget). Rows grouped by query (offsets). `stop`: None (k steps),
/// "tol", "uninformative" (only features constant within every query are left) or "budget".
#[pyfunction]
#[pyo3(signature = (x, y, offsets, k, alpha, costs, budget, memory_limit, criterion="squared", tol=None,
                    progress=None, convention="standard"))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn greedy_rankrls_costs<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    k: &Bound<'py, PyAny>,
    alpha: f64,
    costs: PyReadonlyArray1<'py, f64>,
    budget: Option<f64>,
    memory_limit: &Bound<'py, PyAny>,
    criterion: &str,
    tol: Option<f64>,
    progress: Option<Py<PyAny>>,
    convention: &str,
) -> PyResult<GreedyOut<'py>> {
    let off = query_offsets(&offsets)?;
    let xv = x.as_array();
    let yv = y.as_slice()?;
    let crit = criterion_of(criterion, convention, yv)?;
    let k = count_arg(k, "k")?;
    let max_memory = count_arg(memory_limit, "memory_limit")? as u64;
    let feature_costs = costs.as_slice()?;
    // The binding keeps its argument names (`k`, `tol`, `costs`, `memory_limit`); the core
    // uses the public ones.
    let opts = GreedyOptions { n_features_to_select: k, alpha, min_improvement: tol, max_memory: Some(max_memory) };
    run_greedy(py, progress, |interrupt, report| {
        kernel(xv, yv, &off, &opts, feature_costs, budget, crit.as_ref(), interrupt, report)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(greedy_rankrls_costs, m)?)?;
    Ok(())
}
