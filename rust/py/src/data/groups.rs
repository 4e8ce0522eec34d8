//! Bindings of `rankselect_core::data::groups`.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::data::groups::center_rows;
use rankselect_core::{QueryGroups, QueryOffsets};

use crate::arrays::{PyMat, PyVec};
use crate::errors::IntoPyResult;

/// The binding's one check of query offsets: every `_core` entry point that takes `offsets`
/// (np.uintp, length n_queries + 1) builds the validated core type here, once; the kernels
/// borrow it and compare only their own row counts with it.
pub fn query_offsets(offsets: &PyReadonlyArray1<'_, usize>) -> PyResult<QueryOffsets> {
    QueryOffsets::new(offsets.as_slice()?.to_vec()).py()
}

/// group_queries(qid) -> (perm, offsets, ids)
///
/// Stable grouping of rows by qid: rows of query q are perm[offsets[q]:offsets[q+1]],
/// queries in order of first appearance, rows in input order.
#[pyfunction]
fn group_queries<'py>(
    py: Python<'py>,
    qid: PyReadonlyArray1<'py, i64>,
) -> PyResult<(PyVec<'py, usize>, PyVec<'py, usize>, PyVec<'py, i64>)> {
    let qid = qid.as_slice()?;
    let g = crate::errors::run_detached(py, || QueryGroups::from_qid(qid))?;
    Ok((g.perm.into_pyarray(py), g.offsets.into_vec().into_pyarray(py), g.ids.into_pyarray(py)))
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
    m.add_function(wrap_pyfunction!(group_queries, m)?)?;
    m.add_function(wrap_pyfunction!(center_by_query, m)?)?;
    Ok(())
}
