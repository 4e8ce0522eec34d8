//! Mapping of core errors to Python exceptions, and the Ctrl-C hook for long kernels.

use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyOSError, PyValueError};
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
