//! rankselect-core: pure-Rust kernels for feature selection in learning to rank.
//!
//! No Python here: the PyO3 bindings live in the `rankselect-py` crate beside this one.
//! Every kernel works query by query on rows grouped contiguously per query (see
//! [`groups`]) and combines per-query terms with a deterministic reduction, so results do
//! not depend on the number of threads.

pub mod cost_greedy;
pub mod error;
pub mod greedy_rls;
pub mod greedy_shard;
pub mod groups;
pub mod importance;
pub mod interrupt;
pub mod kendall;
pub mod kernel_approx;
pub mod letor;
pub mod metrics;
pub mod pairs;
pub mod rankrls;
pub mod ranksvm;
pub mod shard_sums;
pub mod squared_hinge;

pub use error::{check_memory, Error, Result};
pub use groups::{QueryGroups, QueryOffsets};
pub use interrupt::{Interrupt, NoInterrupt};
pub mod datafit;
pub mod fista;
pub mod fsmrank;
pub mod penalty;
pub mod prox_newton;
pub mod reweighted;
pub mod solver;
pub mod sparse_ranksvm;
