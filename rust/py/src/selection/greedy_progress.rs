//! The plumbing every greedy binding shares (`greedy_rankrls`, with groups or not, and
//! `greedy_rankrls_sharded`): the kernel with the GIL released and a Python progress callback.

use pyo3::prelude::*;
use rankselect_core::interrupt::Interrupt;
use rankselect_core::Error;

use crate::errors::{python_interrupt, IntoPyResult};

/// The plumbing every greedy binding shares: runs `kernel(interrupt, report)` with the GIL
/// released, Ctrl-C as the interrupt, and `report(step, feature, value)` calling the Python
/// `progress` callback (re-attaching briefly); an exception raised by the callback stops the
/// kernel and is re-raised as is.
pub(crate) fn run_with_progress<T, K>(py: Python<'_>, progress: Option<Py<PyAny>>, kernel: K) -> PyResult<T>
where
    T: Send,
    K: Send
        + FnOnce(
            &dyn Interrupt,
            &mut dyn FnMut(usize, usize, f64) -> rankselect_core::Result<()>,
        ) -> rankselect_core::Result<T>,
{
    let interrupt = python_interrupt();
    let (result, callback_error) = crate::errors::run_detached_infallible(py, || {
        let mut callback_error: Option<PyErr> = None;
        let mut report = |step: usize, feature: usize, value: f64| -> rankselect_core::Result<()> {
            if let Some(cb) = &progress {
                Python::attach(|py| cb.call1(py, (step, feature, value)).map(|_| ())).map_err(|e| {
                    callback_error = Some(e);
                    Error::Interrupted
                })?;
            }
            Ok(())
        };
        // faer's products run on the pool's threads (the core's greedy folders call them)
        let result = rankselect_core::alloc::reserve_gemm_workspaces().and_then(|()| kernel(&interrupt, &mut report));
        (result, callback_error)
    })?;
    if let Some(e) = callback_error {
        return Err(e);
    }
    result.py()
}
