//! Bindings of `rankselect_core::pairwise::pairs` and `rankselect_core::pairwise::squared_hinge`.
//!
//! All functions take rows already grouped by query (`offsets`); the Python layer groups
//! and maps indices back to input rows.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::models::ranksvm::InMemoryLoss;
use rankselect_core::pairwise::pairs;
use rankselect_core::pairwise::squared_hinge::{ExplicitSquaredHinge, SquaredHinge};
use rankselect_core::solvers::datafit::pair_sq_norm_sum;
use rankselect_core::solvers::truncated_newton::NewtonLoss;

use crate::arrays::{PyMat, PyVec};
use crate::data::groups::query_offsets;
use crate::errors::{opt_count_arg, IntoPyResult};
use crate::results::fields_repr;

fn check_len(name: &str, got: usize, want: usize) -> PyResult<()> {
    if got != want {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("{name} has {got} entries, expected {want}")));
    }
    Ok(())
}

/// query_pair_counts(y, offsets) -> counts: preference pairs per query.
#[pyfunction]
fn query_pair_counts<'py>(
    py: Python<'py>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
) -> PyResult<PyVec<'py, usize>> {
    let y = crate::arrays::finite(&y, "y")?;
    let offsets = query_offsets(&offsets)?;
    let counts = crate::errors::run_detached(py, || pairs::query_pair_counts(y, &offsets))?;
    Ok(counts.into_pyarray(py))
}

/// PreferencePairs: the preference pairs of grouped rows (read-only, uintp): pair `p` is rows
/// `(i[p], j[p])` with `y[i] > y[j]`, and the pairs of query q are
/// `pair_offsets[q]:pair_offsets[q + 1]`.
#[pyclass(frozen, module = "rankselect._core", name = "PreferencePairs")]
pub struct PreferencePairs {
    #[pyo3(get)]
    i: Py<PyArray1<usize>>,
    #[pyo3(get)]
    j: Py<PyArray1<usize>>,
    #[pyo3(get)]
    pair_offsets: Py<PyArray1<usize>>,
}

#[pymethods]
impl PreferencePairs {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(slf.as_any(), &["i", "j", "pair_offsets"])
    }
}

/// preference_pairs(y, offsets, max_pairs=None, max_memory=None) -> PreferencePairs, of
/// grouped rows. `max_memory`: bytes the pair lists may take (None: no limit).
#[pyfunction]
#[pyo3(signature = (y, offsets, max_pairs=None, max_memory=None))]
fn preference_pairs<'py>(
    py: Python<'py>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    max_pairs: Option<Bound<'py, PyAny>>,
    max_memory: Option<Bound<'py, PyAny>>,
) -> PyResult<PreferencePairs> {
    let y = crate::arrays::finite(&y, "y")?;
    let offsets = query_offsets(&offsets)?;
    let max_pairs = opt_count_arg(max_pairs.as_ref(), "max_pairs")?;
    let max_memory = opt_count_arg(max_memory.as_ref(), "max_memory")?.map_or(u64::MAX, |v| v as u64);
    let p = crate::errors::run_detached(py, || pairs::preference_pairs(y, &offsets, max_pairs, max_memory))?;
    Ok(PreferencePairs {
        i: p.i.into_pyarray(py).unbind(),
        j: p.j.into_pyarray(py).unbind(),
        pair_offsets: p.offsets.into_pyarray(py).unbind(),
    })
}

/// squared_hinge_value_grad(X, y, offsets, w) -> (value, grad): implicit pairs.
#[pyfunction]
fn squared_hinge_value_grad<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    w: PyReadonlyArray1<'py, f64>,
) -> PyResult<(f64, PyVec<'py, f64>)> {
    let x = x.as_array();
    let y = crate::arrays::finite(&y, "y")?;
    let w = w.as_slice()?;
    let offsets = query_offsets(&offsets)?;
    check_len("w", w.len(), x.ncols())?;
    let (v, g) = crate::errors::run_detached(py, || -> rankselect_core::Result<(f64, Vec<f64>)> {
        let loss = SquaredHinge::new(x, y, &offsets)?;
        let mut g = vec![0.0; w.len()];
        let v = loss.value_grad(w, &mut g);
        Ok((v, g))
    })?;
    Ok((v, g.into_pyarray(py)))
}

/// squared_hinge_hessp(X, y, offsets, w, V) -> H V: generalized Hessian of the loss at w
/// applied to the columns of V (n x k), active set computed once.
#[pyfunction]
fn squared_hinge_hessp<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    w: PyReadonlyArray1<'py, f64>,
    v: PyReadonlyArray2<'py, f64>,
) -> PyResult<PyMat<'py, f64>> {
    let x = x.as_array();
    let y = crate::arrays::finite(&y, "y")?;
    let w = w.as_slice()?;
    let v = v.as_array();
    let offsets = query_offsets(&offsets)?;
    check_len("w", w.len(), x.ncols())?;
    check_len("v", v.nrows(), x.ncols())?;
    let out = crate::errors::run_detached(py, || -> rankselect_core::Result<ndarray::Array2<f64>> {
        let loss = SquaredHinge::new(x, y, &offsets)?;
        let h = loss.hessian(w);
        let mut out = ndarray::Array2::zeros(v.raw_dim());
        let mut buf = vec![0.0; v.nrows()];
        for (k, col) in v.columns().into_iter().enumerate() {
            let c = col.to_vec();
            h.apply(&c, &mut buf);
            out.column_mut(k).assign(&ndarray::ArrayView1::from(&buf));
        }
        Ok(out)
    })?;
    Ok(out.into_pyarray(py))
}

/// squared_hinge_line_derivatives(X, y, offsets, w, d, t) -> (grad L(w + t d) . d,
/// d . H(w + t d) d): the derivatives of the loss along a line (RankSVM's exact line
/// search), by the in-memory truncated Newton's own code.
#[pyfunction]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn squared_hinge_line_derivatives<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    w: PyReadonlyArray1<'py, f64>,
    d: PyReadonlyArray1<'py, f64>,
    t: f64,
) -> PyResult<(f64, f64)> {
    let (x, y, w, d) = (x.as_array(), crate::arrays::finite(&y, "y")?, w.as_slice()?, d.as_slice()?);
    let offsets = query_offsets(&offsets)?;
    check_len("w", w.len(), x.ncols())?;
    check_len("d", d.len(), x.ncols())?;
    crate::errors::run_detached(py, || {
        let loss = SquaredHinge::new(x, y, &offsets)?;
        InMemoryLoss::new(&loss).line_derivatives(w, d, t, true)
    })
}

/// squared_hinge_hessian_block(X, y, offsets, w, ws) -> H[ws, ws] (|ws|, |ws|): a block of
/// the generalized Hessian of the loss at w (proximal Newton's working set).
#[pyfunction]
fn squared_hinge_hessian_block<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    w: PyReadonlyArray1<'py, f64>,
    ws: PyReadonlyArray1<'py, usize>,
) -> PyResult<PyMat<'py, f64>> {
    let (x, y, w, ws) = (x.as_array(), crate::arrays::finite(&y, "y")?, w.as_slice()?, ws.as_slice()?);
    let offsets = query_offsets(&offsets)?;
    check_len("w", w.len(), x.ncols())?;
    if let Some(j) = ws.iter().find(|&&j| j >= x.ncols()) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("ws: feature {j} out of range")));
    }
    let k = ws.len();
    let out = crate::errors::run_detached(py, || -> rankselect_core::Result<Vec<f64>> {
        let loss = SquaredHinge::new(x, y, &offsets)?;
        let mut out = vec![0.0; k * k];
        loss.hessian_block(w, ws, &mut out)?;
        Ok(out)
    })?;
    Ok(ndarray::Array2::from_shape_vec((k, k), out).expect("k x k").into_pyarray(py))
}

/// squared_hinge_lipschitz_bound(X, y, offsets) -> float: `2 sum_{(i,j) in P} ||x_i - x_j||^2`,
/// a bound on the Lipschitz constant of the loss gradient (Laporte et al. Proposition 1).
#[pyfunction]
fn squared_hinge_lipschitz_bound<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
) -> PyResult<f64> {
    let (x, y) = (x.as_array(), crate::arrays::finite(&y, "y")?);
    let offsets = query_offsets(&offsets)?;
    check_len("y", y.len(), x.nrows())?;
    offsets.check_rows(x.nrows(), "X").py()?;
    crate::errors::run_detached_infallible(py, || 2.0 * pair_sq_norm_sum(x, y, &offsets))
}

/// explicit_squared_hinge_value_grad(X, offsets, i, j, pair_offsets, w) -> (value, grad).
#[pyfunction]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn explicit_squared_hinge_value_grad<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    i: PyReadonlyArray1<'py, usize>,
    j: PyReadonlyArray1<'py, usize>,
    pair_offsets: PyReadonlyArray1<'py, usize>,
    w: PyReadonlyArray1<'py, f64>,
) -> PyResult<(f64, PyVec<'py, f64>)> {
    let x = x.as_array();
    let w = w.as_slice()?;
    let offsets = query_offsets(&offsets)?;
    check_len("w", w.len(), x.ncols())?;
    // The core's ExplicitSquaredHinge::new checks that the pair list describes these queries.
    let p = pairs::Pairs {
        i: i.as_slice()?.to_vec(),
        j: j.as_slice()?.to_vec(),
        offsets: pair_offsets.as_slice()?.to_vec(),
    };
    let (v, g) = crate::errors::run_detached(py, || -> rankselect_core::Result<(f64, Vec<f64>)> {
        let loss = ExplicitSquaredHinge::new(x, &offsets, &p)?;
        let mut g = vec![0.0; w.len()];
        let v = loss.value_grad(w, &mut g);
        Ok((v, g))
    })?;
    Ok((v, g.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(query_pair_counts, m)?)?;
    m.add_class::<PreferencePairs>()?;
    m.add_function(wrap_pyfunction!(preference_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(squared_hinge_value_grad, m)?)?;
    m.add_function(wrap_pyfunction!(squared_hinge_hessp, m)?)?;
    m.add_function(wrap_pyfunction!(squared_hinge_line_derivatives, m)?)?;
    m.add_function(wrap_pyfunction!(squared_hinge_hessian_block, m)?)?;
    m.add_function(wrap_pyfunction!(squared_hinge_lipschitz_bound, m)?)?;
    m.add_function(wrap_pyfunction!(explicit_squared_hinge_value_grad, m)?)?;
    Ok(())
}
