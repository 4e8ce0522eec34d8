//! Bindings of `rankselect_core::models`: RankRLS, RankSVM, sparse RankSVM, kernel maps.

use pyo3::prelude::*;

mod kernel_approx;
mod rankrls;
mod ranksvm;
mod sparse_ranksvm;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    rankrls::register(m)?;
    ranksvm::register(m)?;
    sparse_ranksvm::register(m)?;
    kernel_approx::register(m)
}
