//! rankselect-core: pure-Rust kernels for feature selection in learning to rank.
//!
//! No Python here: the PyO3 bindings live in the `rankselect-py` crate beside this one.
//! Every kernel works query by query on rows grouped contiguously per query (see
//! [`data::groups`]) and combines per-query terms with a deterministic reduction, so results
//! do not depend on the number of threads.
//!
//! Layout, by concern:
//! - [`data`]: query grouping and centring, the LETOR / SVMlight reader;
//! - [`metrics`]: IR measures (NDCG, P@k, MAP, MeanNDCG, ERR) and their conventions;
//! - [`pairwise`]: preference pairs and the pairwise squared hinge loss;
//! - [`solvers`]: the solver contract, datafits, penalties, FISTA, proximal Newton,
//!   reweighted L1;
//! - [`models`]: RankRLS, RankSVM, sparse RankSVM, kernel approximation maps;
//! - [`selection`]: greedy RankRLS (plain and cost-aware), GAS's Kendall similarity and
//!   single-feature importance, FSMRank;
//! - [`shards`]: per-shard pieces of the kernels for query shards (Dask);
//! - [`linalg`]: `dot`, `axpy`, `X v`, `Xᵀ c` and the like, each with its reduction order;
//! - [`simd`]: run-time SIMD dispatch, the same results at every level;
//! - [`par`]: parallel maps in which the calling thread takes tasks too;
//! - [`error`], [`interrupt`]: the error type and cooperative cancellation;
//! - [`alloc`]: the one fallible path for data-sized allocations.

pub mod alloc;
pub mod data;
pub mod error;
pub mod interrupt;
pub mod linalg;
pub mod metrics;
pub mod models;
pub mod pairwise;
pub mod par;
pub mod selection;
pub mod shards;
pub mod simd;
pub mod solvers;
#[cfg(test)]
pub(crate) mod testing;

pub use data::groups::{QueryGroups, QueryOffsets};
pub use error::{check_memory, Error, Result};
pub use interrupt::{Interrupt, NoInterrupt};
