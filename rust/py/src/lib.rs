//! `rankselect._core`: thin PyO3 bindings over `rankselect-core`.
//!
//! The folders mirror the core's concerns (`data/`, `models/`, `selection/`; `metrics`,
//! `pairwise`, `solvers`, `shards`); each binding file has a `register` function; arrays cross the boundary
//! zero-copy through rust-numpy, kernels run with the GIL released (`Python::detach`),
//! and core errors become `ValueError` / `OSError` / `KeyboardInterrupt`.

use pyo3::prelude::*;

mod arrays;
mod callbacks;
mod data;
mod errors;
mod metrics;
mod models;
mod pairwise;
mod results;
mod selection;
mod shards;
mod solvers;
mod threads;

/// The SIMD level the kernels run at (`baseline`, `avx2`, `avx512`): `RANKSELECT_SIMD`'s,
/// else the best the CPU has; fixed at import.
#[pyfunction]
fn simd_level() -> PyResult<&'static str> {
    rankselect_core::simd::active_level().map(|l| l.name()).map_err(errors::to_py)
}

/// The SIMD levels this CPU runs, from the narrowest (values of `RANKSELECT_SIMD`).
#[pyfunction]
fn simd_levels() -> Vec<&'static str> {
    rankselect_core::simd::SimdLevel::available().into_iter().map(|l| l.name()).collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The SIMD level is fixed for the process here: a bad RANKSELECT_SIMD fails the import.
    rankselect_core::simd::active_level().map_err(errors::to_py)?;
    m.add_function(wrap_pyfunction!(simd_level, m)?)?;
    m.add_function(wrap_pyfunction!(simd_levels, m)?)?;
    // rayon's pool must start before any kernel runs: a failed start would otherwise panic in
    // every call (PanicException). Fall back to one thread, with a RuntimeWarning.
    let py = m.py();
    errors::install_panic_hook();
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
    data::register(m)?;
    metrics::register(m)?;
    pairwise::register(m)?;
    solvers::register(m)?;
    models::register(m)?;
    selection::register(m)?;
    shards::register(m)?;
    Ok(())
}
