//! Bindings of `rankselect_core::data::letor`: the LETOR / SVMlight file parser.

use std::path::PathBuf;

use ndarray::Array2;
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::PyList;
use rankselect_core::data::letor::{read_letor, Element, Letor, LetorOptions};

use crate::errors::{opt_count_arg, python_interrupt};
use crate::results::fields_repr;

/// LetorData: a parsed LETOR file (read-only): `x` (m, n) float64 (or float32), `y` (m,)
/// float64, `qid` (m,) int64, and `comments`, each line's text after `#` (a list of str),
/// or None when not asked for.
#[pyclass(frozen, module = "rankselect._core", name = "LetorData")]
pub struct LetorData {
    #[pyo3(get)]
    x: Py<PyAny>,
    #[pyo3(get)]
    y: Py<PyArray1<f64>>,
    #[pyo3(get)]
    qid: Py<PyArray1<i64>>,
    #[pyo3(get)]
    comments: Option<Py<PyList>>,
}

#[pymethods]
impl LetorData {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(slf.as_any(), &["x", "y", "qid", "comments"])
    }
}

impl LetorData {
    /// The one conversion of the core's parsed file.
    fn from_core<T: Element + numpy::Element>(py: Python<'_>, d: Letor<T>) -> PyResult<Self> {
        let (m, n) = (d.n_rows(), d.n_features);
        let x =
            Array2::from_shape_vec((m, n), d.x).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        let comments = d.comments.map(|c| PyList::new(py, c).map(Bound::unbind)).transpose()?;
        Ok(LetorData {
            x: x.into_pyarray(py).into_any().unbind(),
            y: d.y.into_pyarray(py).unbind(),
            qid: d.qid.into_pyarray(py).unbind(),
            comments,
        })
    }
}

/// load_letor(path, n_features=None, float32=False, comments=False, allow_nonfinite=False,
///            max_memory=None) -> LetorData
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
) -> PyResult<LetorData> {
    let n_features = opt_count_arg(n_features.as_ref(), "n_features")?;
    let max_memory = opt_count_arg(max_memory.as_ref(), "max_memory")?.map(|v| v as u64);
    let opts = LetorOptions { n_features, comments, allow_nonfinite, max_memory };
    if float32 {
        let d = crate::errors::run_detached(py, || read_letor::<f32>(&path, &opts, &python_interrupt()))?;
        LetorData::from_core(py, d)
    } else {
        let d = crate::errors::run_detached(py, || read_letor::<f64>(&path, &opts, &python_interrupt()))?;
        LetorData::from_core(py, d)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<LetorData>()?;
    m.add_function(wrap_pyfunction!(load_letor, m)?)?;
    Ok(())
}
