//! Bindings of `rankselect_core::models::rankrls`: RankRLS, exact LQO predictions, alpha paths.

use faer::Mat;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::models::rankrls;

use crate::arrays::{PyMat, PyVec};
use crate::data::groups::query_offsets;
use crate::errors::{python_interrupt, IntoPyResult};
use crate::results::fields_repr;

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
    let yv = crate::arrays::finite(&y, "y")?;
    let interrupt = python_interrupt();
    let w = crate::errors::run_detached(py, || rankrls::fit_checked(xv, yv, &off, alpha, &interrupt))?;
    Ok(w.into_pyarray(py))
}

/// RankRLSLqo: RankRLS with its exact leave-query-out (LQO) predictions (read-only): `coef`
/// (n,), the weights on all rows; `predictions` (m,), grouped order, each row's by the model
/// trained without its query; `residuals` (m,), the query-centred hold-out residuals; and
/// `lqo_error`, their sum of squares (eq. 7).
#[pyclass(frozen, module = "rankselect._core", name = "RankRLSLqo")]
pub struct RankRLSLqo {
    #[pyo3(get)]
    coef: Py<PyArray1<f64>>,
    #[pyo3(get)]
    predictions: Py<PyArray1<f64>>,
    #[pyo3(get)]
    residuals: Py<PyArray1<f64>>,
    #[pyo3(get)]
    lqo_error: f64,
}

#[pymethods]
impl RankRLSLqo {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(slf.as_any(), &["coef", "predictions", "residuals", "lqo_error"])
    }
}

/// rankrls_lqo(X, y, offsets, alpha) -> RankRLSLqo
#[pyfunction]
fn rankrls_lqo<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    alpha: f64,
) -> PyResult<RankRLSLqo> {
    let off = query_offsets(&offsets)?;
    let xv = x.as_array();
    let yv = crate::arrays::finite(&y, "y")?;
    let interrupt = python_interrupt();
    let r = crate::errors::run_detached(py, || rankrls::fit_lqo(xv, yv, &off, alpha, &interrupt))?;
    Ok(RankRLSLqo {
        coef: r.coef.into_pyarray(py).unbind(),
        predictions: r.predictions.into_pyarray(py).unbind(),
        residuals: r.residuals.into_pyarray(py).unbind(),
        lqo_error: r.lqo_error,
    })
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
    let yv = crate::arrays::finite(&y, "y")?;
    let al = alphas.as_slice()?;
    let interrupt = python_interrupt();
    let r = crate::errors::run_detached(py, || rankrls::lqo_alpha_path(xv, yv, &off, al, &interrupt))?;
    Ok((r.lqo_errors.into_pyarray(py), r.coefs.into_pyarray(py)))
}

/// A (n, n) NumPy array as a faer matrix (square, checked).
fn square(a: &PyReadonlyArray2<'_, f64>, what: &str) -> PyResult<Mat<f64>> {
    let a = a.as_array();
    if a.nrows() != a.ncols() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{what} must be square, got {} x {}",
            a.nrows(),
            a.ncols()
        )));
    }
    Ok(Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)]))
}

fn to_numpy<'py>(py: Python<'py>, m: &Mat<f64>) -> PyMat<'py, f64> {
    let rows: Vec<Vec<f64>> = (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m[(i, j)]).collect()).collect();
    PyArray2::from_vec2(py, &rows).expect("rows of equal length")
}

/// rankrls_gram(X, y, offsets) -> (G (n, n), b (n,)): `Xc^T Xc` and `Xc^T yc` of a shard of
/// whole queries (the alpha path's piece (a); sums over shards give the data's).
#[pyfunction]
fn rankrls_gram<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
) -> PyResult<(PyMat<'py, f64>, PyVec<'py, f64>)> {
    let (off, xv, yv) = (query_offsets(&offsets)?, x.as_array(), crate::arrays::finite(&y, "y")?);
    let interrupt = python_interrupt();
    let (g, b) = crate::errors::run_detached(py, || rankrls::gram_sums(xv, yv, &off, &interrupt))?;
    Ok((to_numpy(py, &g), b.into_pyarray(py)))
}

/// rankrls_eigen(G) -> (s (n,), V (n, n)): `G = V diag(s) V^T`, eigenvalues clamped at 0.
#[pyfunction]
fn rankrls_eigen<'py>(py: Python<'py>, g: PyReadonlyArray2<'py, f64>) -> PyResult<(PyVec<'py, f64>, PyMat<'py, f64>)> {
    let g = square(&g, "G")?;
    let interrupt = python_interrupt();
    let (s, v) = crate::errors::run_detached(py, || rankrls::eigen(g, &interrupt))?;
    Ok((s.into_pyarray(py), to_numpy(py, &v)))
}

/// rankrls_projected_targets(X, y, offsets, V) -> zy (n,): `(Xc V)^T yc` of a shard.
#[pyfunction]
fn rankrls_projected_targets<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    v: PyReadonlyArray2<'py, f64>,
) -> PyResult<PyVec<'py, f64>> {
    let (off, xv, yv, v) = (query_offsets(&offsets)?, x.as_array(), crate::arrays::finite(&y, "y")?, square(&v, "V")?);
    let interrupt = python_interrupt();
    let zy = crate::errors::run_detached(py, || rankrls::projected_targets(xv, yv, &off, v.as_ref(), &interrupt))?;
    Ok(zy.into_pyarray(py))
}

/// rankrls_path_weights(V, s, zy, alphas) -> coefs (n_alphas, n): eq. 5 per alpha.
#[pyfunction]
fn rankrls_path_weights<'py>(
    py: Python<'py>,
    v: PyReadonlyArray2<'py, f64>,
    s: PyReadonlyArray1<'py, f64>,
    zy: PyReadonlyArray1<'py, f64>,
    alphas: PyReadonlyArray1<'py, f64>,
) -> PyResult<PyMat<'py, f64>> {
    let v = square(&v, "V")?;
    let c =
        rankrls::path_weights(v.as_ref(), s.as_slice()?, crate::arrays::finite(&zy, "zy")?, alphas.as_slice()?).py()?;
    Ok(c.into_pyarray(py))
}

/// rankrls_lqo_errors(X, y, offsets, V, s, zy, alphas) -> (n_alphas,): per alpha, the sum
/// over the shard's queries of the squared LQO residuals (eq. 7).
#[pyfunction]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn rankrls_lqo_errors<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    v: PyReadonlyArray2<'py, f64>,
    s: PyReadonlyArray1<'py, f64>,
    zy: PyReadonlyArray1<'py, f64>,
    alphas: PyReadonlyArray1<'py, f64>,
) -> PyResult<PyVec<'py, f64>> {
    let (off, xv, yv, v) = (query_offsets(&offsets)?, x.as_array(), crate::arrays::finite(&y, "y")?, square(&v, "V")?);
    let (s, zy, al) = (s.as_slice()?, crate::arrays::finite(&zy, "zy")?, alphas.as_slice()?);
    let interrupt = python_interrupt();
    let e = crate::errors::run_detached(py, || rankrls::lqo_errors(xv, yv, &off, v.as_ref(), s, zy, al, &interrupt))?;
    Ok(e.into_pyarray(py))
}

/// rankrls_solve(G, b, alpha) -> coef: `(G + alpha I)^-1 b` (eq. 5, Cholesky).
#[pyfunction]
fn rankrls_solve<'py>(
    py: Python<'py>,
    g: PyReadonlyArray2<'py, f64>,
    b: PyReadonlyArray1<'py, f64>,
    alpha: f64,
) -> PyResult<PyVec<'py, f64>> {
    let (g, b) = (square(&g, "G")?, b.as_slice()?);
    let interrupt = python_interrupt();
    let w = crate::errors::run_detached(py, || rankrls::solve_gram(&g, b, alpha, &interrupt))?;
    Ok(w.into_pyarray(py))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for f in [
        wrap_pyfunction!(rankrls_gram, m)?,
        wrap_pyfunction!(rankrls_eigen, m)?,
        wrap_pyfunction!(rankrls_projected_targets, m)?,
        wrap_pyfunction!(rankrls_path_weights, m)?,
        wrap_pyfunction!(rankrls_lqo_errors, m)?,
        wrap_pyfunction!(rankrls_solve, m)?,
    ] {
        m.add_function(f)?;
    }
    m.add_function(wrap_pyfunction!(rankrls_fit, m)?)?;
    m.add_class::<RankRLSLqo>()?;
    m.add_function(wrap_pyfunction!(rankrls_lqo, m)?)?;
    m.add_function(wrap_pyfunction!(rankrls_alpha_path, m)?)?;
    Ok(())
}
