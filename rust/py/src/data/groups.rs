//! Bindings of `rankselect_core::data::groups`.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::data::groups::center_rows;
use rankselect_core::{QueryGroups, QueryOffsets};

use crate::arrays::PyMat;
use crate::errors::IntoPyResult;
use crate::results::fields_repr;

/// The binding's one check of query offsets: every `_core` entry point that takes `offsets`
/// (np.uintp, length n_queries + 1) builds the validated core type here, once; the kernels
/// borrow it and compare only their own row counts with it.
pub fn query_offsets(offsets: &PyReadonlyArray1<'_, usize>) -> PyResult<QueryOffsets> {
    QueryOffsets::new(offsets.as_slice()?.to_vec()).py()
}

/// QueryGrouping: rows grouped by query (read-only, the core's `QueryGroups`): the rows of
/// query q are `perm[offsets[q]:offsets[q + 1]]` (uintp), its id `ids[q]` (int64).
#[pyclass(frozen, module = "rankselect._core", name = "QueryGrouping")]
pub struct QueryGrouping {
    #[pyo3(get)]
    perm: Py<PyArray1<usize>>,
    #[pyo3(get)]
    offsets: Py<PyArray1<usize>>,
    #[pyo3(get)]
    ids: Py<PyArray1<i64>>,
}

#[pymethods]
impl QueryGrouping {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(slf.as_any(), &["perm", "offsets", "ids"])
    }
}

/// group_queries(qid) -> QueryGrouping
///
/// Stable grouping of rows by qid: queries in order of first appearance, rows in input order.
#[pyfunction]
fn group_queries(py: Python<'_>, qid: PyReadonlyArray1<'_, i64>) -> PyResult<QueryGrouping> {
    let qid = qid.as_slice()?;
    let g = crate::errors::run_detached(py, || QueryGroups::from_qid(qid))?;
    Ok(QueryGrouping {
        perm: g.perm.into_pyarray(py).unbind(),
        offsets: g.offsets.into_vec().into_pyarray(py).unbind(),
        ids: g.ids.into_pyarray(py).unbind(),
    })
}

/// center_by_query(x, offsets) -> (m, n)
///
/// Rows of `x` grouped by query (`offsets`, np.uintp): each column minus its query mean
/// (the centring of RankRLS, `x_i - mean_{j in q(i)} x_j`).
#[pyfunction]
fn center_by_query<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
) -> PyResult<PyMat<'py, f64>> {
    let off = query_offsets(&offsets)?;
    off.check_rows(x.as_array().nrows(), "x").py()?;
    let x = x.as_array();
    let mut a = rankselect_core::alloc::try_zeros2(x.nrows(), x.ncols(), "center_by_query's output").py()?;
    crate::errors::run_detached_infallible(py, || {
        a.assign(&x);
        center_rows(a.view_mut(), &off)
    })?;
    Ok(a.into_pyarray(py))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<QueryGrouping>()?;
    m.add_function(wrap_pyfunction!(group_queries, m)?)?;
    m.add_function(wrap_pyfunction!(center_by_query, m)?)?;
    Ok(())
}
