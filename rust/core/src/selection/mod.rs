//! Feature selection: greedy RankRLS by exact leave-query-out error ([`greedy_rls`]) and
//! under feature costs ([`cost_greedy`]); GAS's Kendall similarity ([`kendall`]) and
//! single-feature importance ([`importance`]); FSMRank ([`fsmrank`]).

pub mod cost_greedy;
pub mod fsmrank;
pub mod greedy_rls;
pub mod importance;
pub mod kendall;
