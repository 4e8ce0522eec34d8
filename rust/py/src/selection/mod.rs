//! Bindings of `rankselect_core::selection`: greedy RankRLS (plain and cost-aware), Kendall
//! similarity, single-feature importance, FSMRank.

use pyo3::prelude::*;

mod cost_greedy;
mod floating;
mod fsmrank;
pub mod greedy_rls;
mod importance;
mod kendall;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    greedy_rls::register(m)?;
    cost_greedy::register(m)?;
    floating::register(m)?;
    kendall::register(m)?;
    importance::register(m)?;
    fsmrank::register(m)
}
