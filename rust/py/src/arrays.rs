//! The NumPy arrays the bindings hand back to Python (owned by Python once returned).

use numpy::{PyArray1, PyArray2};
use pyo3::Bound;

/// A 1-D NumPy array.
pub type PyVec<'py, T> = Bound<'py, PyArray1<T>>;
/// A 2-D NumPy array.
pub type PyMat<'py, T> = Bound<'py, PyArray2<T>>;
