//! Bindings of `rankselect_core::cost_greedy`: greedy RankRLS under feature costs and a budget.

use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::cost_greedy::greedy_rankrls_costs as kernel;
use rankselect_core::greedy_rls::GreedyOptions;
use rankselect_core::Error;

use crate::errors::{count_arg, python_interrupt, IntoPyResult};
use crate::greedy_rls::{criterion_of, stop_name};
use crate::groups::query_offsets;

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
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
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
) -> PyResult<(Bound<'py, PyArray1<usize>>, Bound<'py, PyArray1<f64>>, Bound<'py, PyArray2<f64>>, Option<&'static str>)> {
    let off = query_offsets(&offsets)?;
    let xv = x.as_array();
    let yv = y.as_slice()?;
    let crit = criterion_of(criterion, convention, yv)?;
    let k = count_arg(k, "k")?;
    let memory_limit = count_arg(memory_limit, "memory_limit")? as u64;
    let cv = costs.as_slice()?;
    let opts = GreedyOptions { k, alpha, tol, memory_limit: Some(memory_limit) };
    let interrupt = python_interrupt();
    let (result, callback_error) = py.detach(|| {
        let mut callback_error: Option<PyErr> = None;
        let mut report = |step: usize, feature: usize, value: f64| -> rankselect_core::Result<()> {
            if let Some(cb) = &progress {
                Python::attach(|py| cb.call1(py, (step, feature, value)).map(|_| ())).map_err(|e| {
                    callback_error = Some(e);
                    Error::Interrupted
                })?;
            }
            Ok(())
        };
        let result = kernel(xv, yv, &off, &opts, cv, budget, crit.as_ref(), memory_limit, &interrupt, &mut report);
        (result, callback_error)
    });
    if let Some(e) = callback_error {
        return Err(e);
    }
    let path = result.py()?;
    let stop = path.stop.map(stop_name);
    Ok((path.selected.into_pyarray(py), path.errors.into_pyarray(py), path.coef_path.into_pyarray(py), stop))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(greedy_rankrls_costs, m)?)?;
    Ok(())
}
