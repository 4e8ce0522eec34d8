//! Bindings of `rankselect_core::models::ranksvm`.

use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::models::ranksvm::{fit, RankSvmFit, RankSvmParams};
use rankselect_core::solvers::truncated_newton::truncated_newton;
use rankselect_core::solvers::SolverResult as CoreResult;

use crate::callbacks::PySource;
use crate::data::groups::query_offsets;
use crate::errors::{count_arg, python_interrupt};
use crate::results::fields_repr;
use crate::solvers::SolverResult;

/// RankSVMFit: what RankSVM's truncated Newton returns (read-only): `result`, the solver
/// contract's `SolverResult` (`kkt_residual` the relative gradient norm `||g|| / ||g_0||`,
/// `n_iter` the Newton steps), `n_cg_iter`, the CG iterations (Hessian-vector products), and
/// `n_pairs`, the preference pairs.
#[pyclass(frozen, module = "rankselect._core", name = "RankSVMFit")]
pub struct RankSVMFit {
    #[pyo3(get)]
    result: Py<SolverResult>,
    #[pyo3(get)]
    n_cg_iter: usize,
    #[pyo3(get)]
    n_pairs: usize,
}

impl RankSVMFit {
    /// The one conversion of the core's fit.
    fn from_core(py: Python<'_>, f: &RankSvmFit) -> PyResult<Self> {
        let result = Py::new(py, SolverResult::from_core(py, CoreResult::from(f)))?;
        Ok(RankSVMFit { result, n_cg_iter: f.n_cg_iter, n_pairs: f.n_pairs })
    }
}

#[pymethods]
impl RankSVMFit {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(slf.as_any(), &["result", "n_cg_iter", "n_pairs"])
    }
}

/// ranksvm_fit(X, y, offsets, C, tol, max_iter, max_cg_iter, w0=None) -> RankSVMFit
///
/// Rows grouped by query (offsets). Runs with the GIL released; Ctrl-C interrupts.
#[pyfunction]
#[pyo3(signature = (x, y, offsets, c, tol, max_iter, max_cg_iter, w0=None))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn ranksvm_fit<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    c: f64,
    tol: f64,
    max_iter: &Bound<'py, PyAny>,
    max_cg_iter: &Bound<'py, PyAny>,
    w0: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<RankSVMFit> {
    let max_iter = count_arg(max_iter, "max_iter")?;
    let max_cg_iter = count_arg(max_cg_iter, "max_cg_iter")?;
    let x = x.as_array();
    let y = crate::arrays::finite(&y, "y")?;
    let offsets = query_offsets(&offsets)?;
    let w0 = match &w0 {
        Some(a) => Some(a.as_slice()?),
        None => None,
    };
    if x.nrows() != y.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "X has {} rows but y has {} entries",
            x.nrows(),
            y.len()
        )));
    }
    let params = RankSvmParams { c, tol, max_iter, max_cg_iter };
    let f = crate::errors::run_detached(py, || {
        let interrupt = python_interrupt();
        fit(x, y, &offsets, &params, w0, &interrupt)
    })?;
    RankSVMFit::from_core(py, &f)
}

/// ranksvm_fit_with(loss, n_features, C, tol, max_iter, max_cg_iter, w0=None, max_memory=None)
///     -> RankSVMFit
///
/// The truncated Newton of `ranksvm_fit` with the pairwise loss `L` answered by `loss`, an
/// object with `value_grad(w) -> (L, grad)`, `hessp(w, v) -> H v`,
/// `line_derivatives(w, d, t, second) -> (grad L(w + t d) . d, d . H(w + t d) d)` and
/// `n_pairs()` (e.g. sums over Dask shards). Runs with the GIL released; an exception raised
/// by `loss` stops the fit and is re-raised as is; Ctrl-C interrupts. `max_memory` (bytes):
/// MemoryError before the solver's n-vectors would exceed it.
#[pyfunction]
#[pyo3(signature = (loss, n_features, c, tol, max_iter, max_cg_iter, w0=None, max_memory=None))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn ranksvm_fit_with<'py>(
    py: Python<'py>,
    loss: Py<PyAny>,
    n_features: &Bound<'py, PyAny>,
    c: f64,
    tol: f64,
    max_iter: &Bound<'py, PyAny>,
    max_cg_iter: &Bound<'py, PyAny>,
    w0: Option<PyReadonlyArray1<'py, f64>>,
    max_memory: Option<u64>,
) -> PyResult<RankSVMFit> {
    let n = count_arg(n_features, "n_features")?;
    let max_iter = count_arg(max_iter, "max_iter")?;
    let max_cg_iter = count_arg(max_cg_iter, "max_cg_iter")?;
    let w0 = w0.map(|a| a.as_slice().map(|s| s.to_vec())).transpose()?;
    let params = RankSvmParams { c, tol, max_iter, max_cg_iter };
    let mut source = PySource::new(loss, n, 16, 0, max_memory)?;
    let result = crate::errors::run_detached_infallible(py, || {
        let interrupt = python_interrupt();
        truncated_newton(&mut source, &params, w0.as_deref(), &interrupt)
    })?;
    let f = source.finish(result)?;
    RankSVMFit::from_core(py, &f)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RankSVMFit>()?;
    m.add_function(wrap_pyfunction!(ranksvm_fit, m)?)?;
    m.add_function(wrap_pyfunction!(ranksvm_fit_with, m)?)?;
    Ok(())
}
