//! Bindings of `rankselect_core::selection::greedy_rls`: greedy RankRLS with exact LQO selection.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankselect_core::interrupt::Interrupt;
use rankselect_core::metrics::{Convention, Measure, MetricSpec};
use rankselect_core::selection::greedy_rls::{
    greedy_rankrls as kernel, Criterion, GreedyOptions, GreedyPath, MetricCriterion, Squared, Stop,
};
use rankselect_core::Error;

use crate::arrays::{PyMat, PyVec};
use crate::data::groups::query_offsets;
use crate::errors::{count_arg, opt_count_arg, python_interrupt, IntoPyResult};

/// The greedy criterion named `name`: `None` for the squared LQO criterion, else the ranking
/// measure's spec with `convention` (labels `y` whose gain `2^r - 1` overflows, which would
/// make every criterion value NaN, are refused). The one parser of a greedy criterion, for
/// the in-memory bindings and the Dask shards (`shards::GreedyShard`).
pub(crate) fn criterion_spec(name: &str, convention: &str, y: &[f64]) -> PyResult<Option<MetricSpec>> {
    // checked even where the squared criterion does not use it
    let convention: Convention = convention.parse().py()?;
    if name.eq_ignore_ascii_case("squared") {
        return Ok(None);
    }
    let measure: Measure = name.parse().map_err(|e| {
        PyValueError::new_err(format!(
            "criterion must be 'squared' or a ranking measure such as 'ndcg@10' or 'map': {e}"
        ))
    })?;
    let spec = MetricSpec::new(measure).with_convention(convention);
    spec.validate().map_err(|e| PyValueError::new_err(format!("criterion: {e}")))?;
    let top = y.iter().copied().filter(|v| v.is_finite()).fold(0.0, f64::max);
    rankselect_core::metrics::check_gain_labels(&spec, top).py()?;
    Ok(Some(spec))
}

/// [`criterion_spec`] as the core's [`Criterion`].
pub(crate) fn criterion_of(name: &str, convention: &str, y: &[f64]) -> PyResult<Box<dyn Criterion + Send + Sync>> {
    Ok(match criterion_spec(name, convention, y)? {
        None => Box::new(Squared),
        Some(spec) => Box::new(MetricCriterion(spec)),
    })
}

/// greedy_rankrls(X, y, offsets, n_features_to_select, alpha, criterion="squared",
///                min_improvement=None, progress=None, convention="standard", max_memory=None)
///     -> (selected, values, coef_path (steps, n), stop)
///
/// Rows grouped by query (offsets). `progress(step, feature, value)` is called after every
/// step (with the GIL); an exception it raises stops the run and propagates. `stop` is None
/// (`n_features_to_select` steps), "min_improvement" or "uninformative" (every remaining
/// feature is constant within every query: such features are never candidates).
/// `max_memory` (bytes): MemoryError before allocating caches larger than that (None: no
/// limit). The leading arguments are those of `greedy_rankrls_costs`, in the same order.
#[pyfunction]
#[pyo3(signature = (x, y, offsets, n_features_to_select, alpha, criterion="squared", min_improvement=None,
                    progress=None, convention="standard", max_memory=None))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn greedy_rankrls<'py>(
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
) -> PyResult<GreedyOut<'py>> {
    let off = query_offsets(&offsets)?;
    let xv = x.as_array();
    let yv = y.as_slice()?;
    let crit = criterion_of(criterion, convention, yv)?;
    let opts = greedy_options(n_features_to_select, alpha, min_improvement, max_memory)?;
    run_greedy(py, progress, |interrupt, report| kernel(xv, yv, &off, &opts, crit.as_ref(), interrupt, report))
}

/// The core's [`GreedyOptions`] from the arguments every greedy binding takes, named as in
/// Python (integers checked by [`count_arg`], which names them).
pub(crate) fn greedy_options(
    n_features_to_select: &Bound<'_, PyAny>,
    alpha: f64,
    min_improvement: Option<f64>,
    max_memory: Option<Bound<'_, PyAny>>,
) -> PyResult<GreedyOptions> {
    Ok(GreedyOptions {
        n_features_to_select: count_arg(n_features_to_select, "n_features_to_select")?,
        alpha,
        min_improvement,
        max_memory: opt_count_arg(max_memory.as_ref(), "max_memory")?.map(|v| v as u64),
    })
}

/// What a greedy binding returns: `(selected, values, coef_path (steps, n), stop)`.
pub(crate) type GreedyOut<'py> = (PyVec<'py, usize>, PyVec<'py, f64>, PyMat<'py, f64>, Option<&'static str>);

/// The plumbing every greedy binding shares: runs `kernel(interrupt, report)` with the GIL
/// released, Ctrl-C as the interrupt, and `report(step, feature, value)` calling the Python
/// `progress` callback (re-attaching briefly); an exception raised by the callback stops the
/// kernel and is re-raised as is. The path is converted to [`GreedyOut`].
pub(crate) fn run_greedy<'py, K>(py: Python<'py>, progress: Option<Py<PyAny>>, kernel: K) -> PyResult<GreedyOut<'py>>
where
    K: Send
        + FnOnce(
            &dyn Interrupt,
            &mut dyn FnMut(usize, usize, f64) -> rankselect_core::Result<()>,
        ) -> rankselect_core::Result<GreedyPath>,
{
    let path = run_with_progress(py, progress, kernel)?;
    Ok(greedy_out(py, path))
}

/// [`GreedyOut`] of a core path.
pub(crate) fn greedy_out(py: Python<'_>, path: GreedyPath) -> GreedyOut<'_> {
    let stop = path.stop.map(stop_name);
    (path.selected.into_pyarray(py), path.lqo_scores.into_pyarray(py), path.coef_path.into_pyarray(py), stop)
}

/// The GIL, interrupt and progress plumbing of [`run_greedy`] for a kernel returning any `T`.
pub(crate) fn run_with_progress<T, K>(py: Python<'_>, progress: Option<Py<PyAny>>, kernel: K) -> PyResult<T>
where
    T: Send,
    K: Send
        + FnOnce(
            &dyn Interrupt,
            &mut dyn FnMut(usize, usize, f64) -> rankselect_core::Result<()>,
        ) -> rankselect_core::Result<T>,
{
    let interrupt = python_interrupt();
    let (result, callback_error) = crate::errors::run_detached_infallible(py, || {
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
        let result = kernel(&interrupt, &mut report);
        (result, callback_error)
    })?;
    if let Some(e) = callback_error {
        return Err(e);
    }
    result.py()
}

/// Python name of a [`Stop`] reason: `stop_reason_` of `GreedyRankRLS` as is.
pub(crate) fn stop_name(s: Stop) -> &'static str {
    match s {
        Stop::MinImprovement => "min_improvement",
        Stop::Uninformative => "uninformative",
        Stop::Budget => "budget",
        Stop::Visited => "visited",
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(greedy_rankrls, m)?)?;
    Ok(())
}
