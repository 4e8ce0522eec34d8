//! Mapping of core errors to Python exceptions, and the Ctrl-C hook for long kernels.

use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rankselect_core::Error;

/// Converts a core error into the Python exception users should see.
pub fn to_py(e: Error) -> PyErr {
    match e {
        Error::InvalidInput(msg) => PyValueError::new_err(msg),
        Error::Parse { .. } => PyValueError::new_err(e.to_string()),
        Error::Io(err) => PyOSError::new_err(err.to_string()),
        Error::Memory { .. } => PyMemoryError::new_err(e.to_string()),
        Error::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
        // The adapters of `callbacks` re-raise the Python exception itself; this is the fallback.
        Error::Callback(msg) => PyRuntimeError::new_err(msg),
    }
}

/// Extension trait: `result.py()?` inside binding functions.
pub trait IntoPyResult<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for rankselect_core::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// Interrupt for kernels running under `py.detach`: re-attaches briefly and asks Python
/// whether a signal (Ctrl-C) is pending. Call only from the thread that detached.
pub fn python_interrupt() -> impl Fn() -> bool {
    || Python::attach(|py| py.check_signals().is_err())
}

/// A non-negative integer argument (a count, an iteration limit) as `usize`. PyO3's own
/// conversion raises OverflowError for negative or huge values; this names the argument:
/// ValueError when the value is out of range, TypeError when it is not an integer.
pub fn count_arg(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<usize> {
    use pyo3::exceptions::{PyOverflowError, PyTypeError};
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!("{name} must be an integer, got a bool")));
    }
    match obj.extract::<u64>() {
        Ok(v) => usize::try_from(v)
            .map_err(|_| PyValueError::new_err(format!("{name} must be at most {}, got {v}", usize::MAX))),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
            Err(PyValueError::new_err(format!("{name} must be a non-negative integer below 2**64, got {obj}")))
        }
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name} must be an integer, got {}",
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))),
    }
}

/// [`count_arg`] for an optional argument (None stays None).
pub fn opt_count_arg(obj: Option<&Bound<'_, PyAny>>, name: &str) -> PyResult<Option<usize>> {
    match obj {
        Some(o) if !o.is_none() => count_arg(o, name).map(Some),
        _ => Ok(None),
    }
}
