//! Bindings of `rankselect_core::data::letor`: the LETOR / SVMlight file parser.

use std::path::PathBuf;

use ndarray::Array2;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rankselect_core::data::letor::{read_letor, Element, Letor, LetorOptions};

use crate::errors::{opt_count_arg, python_interrupt};

fn to_python<'py, T: Element + numpy::Element>(py: Python<'py>, d: Letor<T>) -> PyResult<Bound<'py, PyTuple>> {
    let (m, n) = (d.n_rows(), d.n_features);
    let x = Array2::from_shape_vec((m, n), d.x).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    let comments = d.comments.map(|c| c.into_pyobject(py)).transpose()?;
    (x.into_pyarray(py), d.y.into_pyarray(py), d.qid.into_pyarray(py), comments).into_pyobject(py)
}

/// load_letor(path, n_features=None, float32=False, comments=False, allow_nonfinite=False,
///            max_memory=None) -> (X, y, qid, comments)
///
/// Streams a LETOR / SVMlight ranking file, pipe or device (gzip detected by its magic
/// bytes, decompressed as read) and parses it in parallel, with the GIL released. X is
/// dense (m, n) float64 (float32 when asked: the cast of the float64 value), y float64, qid
/// int64, comments a list of str or None. Malformed lines raise ValueError("line N: ..."),
/// unreadable files and corrupt gzip data OSError, a result (or a line) larger than
/// `max_memory` bytes MemoryError.
#[pyfunction]
#[pyo3(signature = (path, n_features=None, float32=false, comments=false, allow_nonfinite=false, max_memory=None))]
fn load_letor<'py>(
    py: Python<'py>,
    path: PathBuf,
    n_features: Option<Bound<'py, PyAny>>,
    float32: bool,
    comments: bool,
    allow_nonfinite: bool,
    max_memory: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let n_features = opt_count_arg(n_features.as_ref(), "n_features")?;
    let max_memory = opt_count_arg(max_memory.as_ref(), "max_memory")?.map(|v| v as u64);
    let opts = LetorOptions { n_features, comments, allow_nonfinite, max_memory };
    if float32 {
        let d = crate::errors::run_detached(py, || read_letor::<f32>(&path, &opts, &python_interrupt()))?;
        to_python(py, d)
    } else {
        let d = crate::errors::run_detached(py, || read_letor::<f64>(&path, &opts, &python_interrupt()))?;
        to_python(py, d)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load_letor, m)?)?;
    Ok(())
}
