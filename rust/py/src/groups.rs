//! Bindings of `rankselect_core::groups`.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use rankselect_core::QueryGroups;

/// group_queries(qid) -> (perm, offsets, ids)
///
/// Stable grouping of rows by qid: rows of query q are perm[offsets[q]:offsets[q+1]],
/// queries in order of first appearance, rows in input order.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn group_queries<'py>(
    py: Python<'py>,
    qid: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Bound<'py, PyArray1<usize>>, Bound<'py, PyArray1<usize>>, Bound<'py, PyArray1<i64>>)> {
    let qid = qid.as_slice()?.to_vec();
    let g = py.detach(move || QueryGroups::from_qid(&qid));
    Ok((g.perm.into_pyarray(py), g.offsets.into_pyarray(py), g.ids.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(group_queries, m)?)?;
    Ok(())
}
