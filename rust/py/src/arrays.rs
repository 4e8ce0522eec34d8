//! The NumPy arrays the bindings hand back to Python (owned by Python once returned).

use numpy::{PyArray1, PyArray2};
use pyo3::Bound;

/// A 1-D NumPy array.
pub type PyVec<'py, T> = Bound<'py, PyArray1<T>>;
/// A 2-D NumPy array.
pub type PyMat<'py, T> = Bound<'py, PyArray2<T>>;

/// The contiguous values of `v`, refused with a `ValueError` naming `name` and the first row
/// holding NaN or +-inf: labels and scores are ordered and grouped into levels (runs of
/// equal values), which a non-finite value would break (`NaN == NaN` is false). The one
/// check of every `_core` entry point that orders labels or scores.
pub fn finite<'a>(v: &'a numpy::PyReadonlyArray1<'_, f64>, name: &str) -> pyo3::PyResult<&'a [f64]> {
    let s = v.as_slice()?;
    if let Some(r) = s.iter().position(|x| !x.is_finite()) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("{name} must be finite: row {r} is {}", s[r])));
    }
    Ok(s)
}
