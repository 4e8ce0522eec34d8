//! Kernels over query shards (rows split into blocks of whole queries, e.g. the chunks of a
//! Dask array): each shard computes its part, and sums of the parts give the in-memory
//! result. Greedy RankRLS step by step ([`greedy_shard`]), Kendall similarity and pairwise
//! importance ([`shard_sums`]).

pub mod greedy_shard;
pub mod shard_sums;
