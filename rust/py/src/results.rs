//! What the result classes share: every binding that hands back more than two values returns
//! a `#[pyclass(frozen)]` with named read-only fields (`SolverResult`, `GreedyResult`, the fit
//! and data classes beside their bindings), never a bare tuple; their `__repr__` lists the
//! fields, arrays by shape and dtype.

use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyList;

/// `Name(field=value, ...)` of the result `obj`, for its `fields` in order: an array as
/// `array(shape=(m, n), dtype=float64)`, a list as `list(len=k)`, anything else by `repr`.
pub(crate) fn fields_repr(obj: &Bound<'_, PyAny>, fields: &[&str]) -> PyResult<String> {
    let mut parts = Vec::with_capacity(fields.len());
    for &name in fields {
        let value = obj.getattr(name)?;
        let shown = if let Ok(a) = value.cast::<PyUntypedArray>() {
            let dims: Vec<String> = a.shape().iter().map(|d| d.to_string()).collect();
            let shape = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
            format!("array(shape={shape}, dtype={})", a.dtype())
        } else if let Ok(l) = value.cast::<PyList>() {
            format!("list(len={})", l.len())
        } else {
            value.repr()?.to_string()
        };
        parts.push(format!("{name}={shown}"));
    }
    Ok(format!("{}({})", obj.get_type().name()?, parts.join(", ")))
}
