//! Bindings of `rankselect_core::selection`: greedy RankRLS (plain, per cost, floating: one binding), Kendall
//! similarity, single-feature importance, FSMRank.

use pyo3::prelude::*;

mod fsmrank;
pub(crate) mod greedy_plan;
mod greedy_progress;
pub mod greedy_rls;
mod importance;
mod kendall;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    greedy_rls::register(m)?;
    greedy_plan::register(m)?;
    kendall::register(m)?;
    importance::register(m)?;
    fsmrank::register(m)
}
