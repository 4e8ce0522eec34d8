//! Bindings of `rankselect_core::selection::greedy_rls::greedy_rankrls_floating`: floating
//! greedy RankRLS (SFFS with the exact LQO criterion).

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::selection::greedy_rls::greedy_rankrls_floating as kernel;

use crate::arrays::PyVec;
use crate::data::groups::query_offsets;
use crate::selection::greedy_rls::{criterion_of, greedy_options, greedy_out, run_with_progress, GreedyOut};

/// What the floating binding returns: the path of [`GreedyOut`] (per subset size: the best
/// subset of the largest size, the best criterion of each size, the weights of each size's
/// best subset), the best subset of every size, and the steps (feature, added, criterion).
type FloatingOut<'py> = (GreedyOut<'py>, Vec<PyVec<'py, usize>>, PyVec<'py, usize>, PyVec<'py, bool>, PyVec<'py, f64>);

/// greedy_rankrls_floating(X, y, offsets, n_features_to_select, alpha, criterion="squared",
///                         progress=None, convention="standard", max_memory=None)
///     -> ((selected, values, coef_path (sizes, n), stop), subsets, step_features,
///         step_added, step_values)
///
/// Sequential floating forward selection with the exact LQO criterion. Per subset size
/// s = 1..: `values[s - 1]` the best criterion of size s, `subsets[s - 1]` that subset,
/// `coef_path[s - 1]` its weights; `selected` = the best subset of the largest size.
/// `stop`: None, "uninformative" or "visited" (every addition gives a subset already visited).
/// `progress(step, feature, value)` after every addition.
#[pyfunction]
#[pyo3(signature = (x, y, offsets, n_features_to_select, alpha, criterion="squared", progress=None,
                    convention="standard", max_memory=None))]
#[allow(clippy::too_many_arguments)]
fn greedy_rankrls_floating<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    n_features_to_select: &Bound<'py, PyAny>,
    alpha: f64,
    criterion: &str,
    progress: Option<Py<PyAny>>,
    convention: &str,
    max_memory: Option<Bound<'py, PyAny>>,
) -> PyResult<FloatingOut<'py>> {
    let off = query_offsets(&offsets)?;
    let xv = x.as_array();
    let yv = y.as_slice()?;
    let crit = criterion_of(criterion, convention, yv)?;
    let opts = greedy_options(n_features_to_select, alpha, None, max_memory)?;
    let fp = run_with_progress(py, progress, |interrupt, report| {
        kernel(xv, yv, &off, &opts, crit.as_ref(), interrupt, report)
    })?;
    let subsets = fp.subsets.into_iter().map(|s| s.into_pyarray(py)).collect();
    let features: Vec<usize> = fp.steps.iter().map(|s| s.0).collect();
    let added: Vec<bool> = fp.steps.iter().map(|s| s.1).collect();
    let values: Vec<f64> = fp.steps.iter().map(|s| s.2).collect();
    Ok((greedy_out(py, fp.path), subsets, features.into_pyarray(py), added.into_pyarray(py), values.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(greedy_rankrls_floating, m)?)?;
    Ok(())
}
