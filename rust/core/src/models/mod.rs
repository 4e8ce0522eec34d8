//! Rankers: RankRLS ([`rankrls`]), linear RankSVM by truncated Newton ([`ranksvm`]),
//! sparse and non-convex RankSVM ([`sparse_ranksvm`]), and the kernel approximation maps
//! that turn RankSVM into a kernel ranker ([`kernel_approx`]).

pub mod kernel_approx;
pub mod rankrls;
pub mod ranksvm;
pub mod sparse_ranksvm;
