//! Bindings of `rankselect_core::models::rankrls`: RankRLS, exact LQO predictions, alpha paths.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::models::rankrls;

use crate::arrays::{PyMat, PyVec};
use crate::data::groups::query_offsets;
use crate::errors::{python_interrupt, IntoPyResult};

/// rankrls_fit(X, y, offsets, alpha) -> coef
///
/// RankRLS weights on rows grouped by query (offsets): (Xc^T Xc + alpha I)^-1 Xc^T yc.
#[pyfunction]
fn rankrls_fit<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    alpha: f64,
) -> PyResult<PyVec<'py, f64>> {
    let off = query_offsets(&offsets)?;
    let xv = x.as_array();
    let yv = y.as_slice()?;
    let interrupt = python_interrupt();
    let w = py.detach(|| rankrls::fit_checked(xv, yv, &off, alpha, &interrupt)).py()?;
    Ok(w.into_pyarray(py))
}

/// What `rankrls_lqo` returns: `(coef, predictions, residuals, lqo_error)`.
type LqoOut<'py> = (PyVec<'py, f64>, PyVec<'py, f64>, PyVec<'py, f64>, f64);

/// rankrls_lqo(X, y, offsets, alpha) -> (coef, predictions, residuals, error)
///
/// Exact leave-query-out predictions (grouped order) of the model trained without each
/// row's query, and the query-centred hold-out residuals.
#[pyfunction]
fn rankrls_lqo<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    alpha: f64,
) -> PyResult<LqoOut<'py>> {
    let off = query_offsets(&offsets)?;
    let xv = x.as_array();
    let yv = y.as_slice()?;
    let interrupt = python_interrupt();
    let r = py.detach(|| rankrls::fit_lqo(xv, yv, &off, alpha, &interrupt)).py()?;
    Ok((r.coef.into_pyarray(py), r.predictions.into_pyarray(py), r.residuals.into_pyarray(py), r.lqo_error))
}

/// rankrls_alpha_path(X, y, offsets, alphas) -> (lqo_errors, coefs (n_alphas, n))
#[pyfunction]
fn rankrls_alpha_path<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    alphas: PyReadonlyArray1<'py, f64>,
) -> PyResult<(PyVec<'py, f64>, PyMat<'py, f64>)> {
    let off = query_offsets(&offsets)?;
    let xv = x.as_array();
    let yv = y.as_slice()?;
    let al = alphas.as_slice()?;
    let interrupt = python_interrupt();
    let r = py.detach(|| rankrls::lqo_alpha_path(xv, yv, &off, al, &interrupt)).py()?;
    Ok((r.lqo_errors.into_pyarray(py), r.coefs.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rankrls_fit, m)?)?;
    m.add_function(wrap_pyfunction!(rankrls_lqo, m)?)?;
    m.add_function(wrap_pyfunction!(rankrls_alpha_path, m)?)?;
    Ok(())
}
