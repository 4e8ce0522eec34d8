//! `rankselect._core`: thin PyO3 bindings over `rankselect-core`.
//!
//! Each concept has its own file with a `register` function; arrays cross the boundary
//! zero-copy through rust-numpy, kernels run with the GIL released (`Python::detach`),
//! and core errors become `ValueError` / `OSError` / `KeyboardInterrupt`.

use pyo3::prelude::*;

mod errors;
mod greedy_rls;
mod cost_greedy;
mod groups;
mod importance;
mod kendall;
mod metrics;
mod letor;
mod rankrls;
mod pairwise;
mod ranksvm;
mod kernel_approx;
mod sparse;
mod shards;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
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
    sparse::register(m)?;
    shards::register(m)?;
    Ok(())
}
