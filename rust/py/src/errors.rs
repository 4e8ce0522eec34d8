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
        Error::Memory { .. } | Error::OutOfMemory { .. } => PyMemoryError::new_err(e.to_string()),
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

/// The last panic's message and place, recorded by the hook that [`install_panic_hook`] sets
/// (the default hook would print it on stderr; [`run_detached`] reports it in the exception).
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Records panics instead of printing them (this extension's own hook: other Rust extensions
/// in the process have their own).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = panic_text(info.payload());
        let place = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        *LAST_PANIC.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!("{msg}{place}"));
    }));
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}

/// Runs a kernel with the GIL released and returns its result as a Python result. The
/// kernels return errors rather than panic; this is the last-resort net: a residual panic (a
/// bug) becomes `MemoryError` when it is an allocation failure ("capacity overflow") and
/// `RuntimeError` naming it otherwise, never `PanicException`.
pub fn run_detached<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    F: FnOnce() -> rankselect_core::Result<T> + Send,
    T: Send,
{
    match py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))) {
        Ok(r) => r.py(),
        Err(payload) => Err(panic_to_py(payload.as_ref())),
    }
}

/// [`run_detached`] for a kernel that cannot fail.
pub fn run_detached_infallible<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    F: FnOnce() -> T + Send,
    T: Send,
{
    run_detached(py, || Ok(f()))
}

/// The Python exception for a caught panic.
pub fn panic_to_py(payload: &(dyn std::any::Any + Send)) -> PyErr {
    let recorded = LAST_PANIC.lock().unwrap_or_else(|p| p.into_inner()).take();
    let msg = recorded.unwrap_or_else(|| panic_text(payload));
    if msg.contains("capacity overflow") || msg.contains("memory allocation") || msg.contains("TryReserveError") {
        PyMemoryError::new_err(format!("out of memory: {msg}"))
    } else {
        PyRuntimeError::new_err(format!("internal error in rankselect (please report it): {msg}"))
    }
}
