//! `rankselect._core`: thin PyO3 bindings over `rankselect-core`.
//!
//! Each concept has its own file with a `register` function; arrays cross the boundary
//! zero-copy through rust-numpy, kernels run with the GIL released (`Python::detach`),
//! and core errors become `ValueError` / `OSError` / `KeyboardInterrupt`.

use pyo3::prelude::*;

mod cost_greedy;
mod errors;
mod greedy_rls;
mod groups;
mod importance;
mod kendall;
mod kernel_approx;
mod letor;
mod metrics;
mod pairwise;
mod rankrls;
mod ranksvm;
mod shards;
mod solver;
mod sparse;
mod threads;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // rayon's pool must start before any kernel runs: a failed start would otherwise panic in
    // every call (PanicException). Fall back to one thread, with a RuntimeWarning.
    let py = m.py();
    match threads::start_global_pool() {
        Ok(threads::PoolStart::Configured) => m.add("THREAD_POOL_FALLBACK", py.None())?,
        Ok(threads::PoolStart::FellBack { reason }) => {
            let msg = format!(
                "rankselect could not start its thread pool ({reason}); running on one thread. \
                 Lower RAYON_NUM_THREADS or raise the process's thread/memory limits."
            );
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyRuntimeWarning>(),
                &std::ffi::CString::new(msg.clone()).unwrap_or_default(),
                0,
            )?;
            m.add("THREAD_POOL_FALLBACK", msg)?;
        }
        Err(reason) => {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "rankselect could not start a worker thread: {reason}"
            )))
        }
    }
    groups::register(m)?;
    importance::register(m)?;
    kendall::register(m)?;
    metrics::register(m)?;
    letor::register(m)?;
    rankrls::register(m)?;
    greedy_rls::register(m)?;
    cost_greedy::register(m)?;
    pairwise::register(m)?;
    ranksvm::register(m)?;
    kernel_approx::register(m)?;
    solver::register(m)?;
    sparse::register(m)?;
    shards::register(m)?;
    Ok(())
}
