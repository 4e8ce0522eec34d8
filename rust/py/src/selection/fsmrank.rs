//! Bindings of `rankselect_core::selection::fsmrank`: FSMRank (Lai et al. 2013), solved by
//! FISTA on the doubled features; the result is the solver contract's `SolverResult`.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankselect_core::selection::fsmrank::fsmrank as kernel;
use rankselect_core::solvers::fista::FistaOptions;

use crate::data::groups::query_offsets;
use crate::errors::{count_arg, python_interrupt, IntoPyResult};
use crate::results::fields_repr;
use crate::solvers::SolverResult;

/// FSMRankFit: what FSMRank returns (read-only): `result`, the solver contract's
/// `SolverResult` on the doubled problem (its `coef` is `w = [w+, w-]`, 2d; FISTA's best
/// iterate), `coef = w+ - w-` (d) and `n_pairs`, the preference pairs.
#[pyclass(frozen, module = "rankselect._core", name = "FSMRankFit")]
pub struct FSMRankFit {
    #[pyo3(get)]
    result: Py<SolverResult>,
    #[pyo3(get)]
    coef: Py<PyArray1<f64>>,
    #[pyo3(get)]
    n_pairs: usize,
}

#[pymethods]
impl FSMRankFit {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(slf.as_any(), &["result", "coef", "n_pairs"])
    }
}

/// fsmrank(x, y, offsets, similarity, importance, lambda1, lambda2, w0, max_iter, tol,
/// accelerate=True) -> FSMRankFit
///
/// Lai et al. eq. (2) on the doubled features, by Alg. 1 (`accelerate=False`: plain
/// projected proximal gradient, for comparison).
#[pyfunction]
#[pyo3(signature = (x, y, offsets, similarity, importance, lambda1, lambda2, w0, max_iter, tol, accelerate=true))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn fsmrank<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    similarity: PyReadonlyArray2<'py, f64>,
    importance: PyReadonlyArray1<'py, f64>,
    lambda1: f64,
    lambda2: f64,
    w0: Option<PyReadonlyArray1<'py, f64>>,
    max_iter: &Bound<'py, PyAny>,
    tol: f64,
    accelerate: bool,
) -> PyResult<FSMRankFit> {
    let max_iter = count_arg(max_iter, "max_iter")?;
    let xv = x.as_array();
    let m = xv.nrows();
    let y = crate::arrays::finite(&y, "y")?;
    let offsets = query_offsets(&offsets)?;
    if y.len() != m {
        return Err(PyValueError::new_err(format!("y has {} entries but x has {m} rows", y.len())));
    }
    offsets.check_rows(m, "x").py()?;
    let sim = similarity.as_array();
    let imp = importance.as_slice()?;
    let w0 = w0.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    // Lai et al. Alg. 1: no restart; stop on the relative objective change (and KKT).
    let opts = FistaOptions { max_iter, tol, kkt_tol: tol, accelerate, restart: false, ..Default::default() };
    let interrupt = python_interrupt();
    let r = crate::errors::run_detached(py, || {
        kernel(xv, y, &offsets, sim, imp, lambda1, lambda2, w0.as_deref(), &opts, &interrupt)
    })?;
    let result = Py::new(py, SolverResult::from_core(py, r.solver.into()))?;
    Ok(FSMRankFit { result, coef: r.coef.into_pyarray(py).unbind(), n_pairs: r.n_pairs })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FSMRankFit>()?;
    m.add_function(wrap_pyfunction!(fsmrank, m)?)?;
    Ok(())
}
