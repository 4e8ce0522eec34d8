//! Kernels over query shards (rows split into blocks of whole queries, e.g. the chunks of a
//! Dask array): each shard computes its part, and sums of the parts give the in-memory
//! result. Greedy RankRLS step by step ([`greedy_shard`]: one shard's caches and rounds;
//! [`greedy_sharded`]: the core's selection loop on the shards' sums), Kendall similarity
//! and pairwise importance ([`shard_sums`]). The other solvers (RankSVM's truncated Newton,
//! sparse RankSVM's proximal Newton / FISTA, RankRLS's alpha path) take the shards' sums
//! through their own traits or per-shard functions.

pub mod greedy_shard;
pub mod greedy_sharded;
mod greedy_units;
pub mod shard_sums;
