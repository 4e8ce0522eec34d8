//! Greedy RankRLS (Pahikkala et al. 2010, Algorithm 1): greedy forward selection by the
//! exact leave-query-out (LQO) error, in O(k m n) time and two m x n caches.
//!
//! Notation (rows grouped by query, `Xc`/`yc` query-centred, `x_i` the centred column of
//! feature `i`, `S` the selected set, `alpha` the paper's lambda):
//!
//! ```text
//! G   = (Xc_S Xc_S^T + alpha I)^-1          m x m, never formed
//! a   = G yc                                 m        (dual coefficients, eq. 6), never formed
//! C   = G Xc                                 m x n    (column i: G x_i)
//! B_q = (G_qq)^-1                            n_q x n_q, never formed
//! U   = blockdiag(B_q) C                     m x n    (column i, query q: B_q C_qi)
//! p   = blockdiag(B_q) a                     m        (Theorem 3.1: LQO residuals)
//! M   = Xc^T G Xc = Xc^T C                   n x n    (M_ij = x_i^T C_j)
//! r   = Xc^T a                               n
//! ```
//!
//! Theorem 3.1: the query-centred hold-out residuals of query `q` are `p_q = B_q a_q`, so the
//! LQO error is `sum_q ||p_q||^2` (eq. 7). Start: `G = I/alpha`, so `C = Xc/alpha`, `U = Xc`,
//! `p = yc`, `M = Xc^T Xc / alpha`, `r = Xc^T yc / alpha`.
//!
//! Adding feature `b` (`u = C_b`, `z = U_b`) is a rank-one update of `G` (Sherman-Morrison):
//! `G' = G - c u u^T` with `c = 1/(1 + M_bb)`. Then, with `d = c r_b`, per query
//! `s1_q = u_q^T z_q`, `s2_q = u_q^T p_q` and `f_q = c / (1 - c s1_q)` (Sherman-Morrison on
//! the block, `B'_q = B_q + f_q z_q z_q^T`):
//!
//! ```text
//! p'_q  = p_q + (f_q (s2_q - d s1_q) - d) z_q
//! t_i   = c M_bi                   C'_i  = C_i - t_i u
//! U'_qi = U_qi + (f_q (z_q^T C_qi - t_i s1_q) - t_i) z_q
//! M'    = M - c M_:b M_b:          r'    = r - d M_:b
//! ```
//!
//! Candidate `i` then gives `p''_q = p'_q + g_qi U'_qi` with `c_i = 1/(1 + M'_ii)`,
//! `d_i = c_i r'_i`, `g_qi = c_i (C'_qi^T p'_q - d_i C'_qi^T U'_qi) / (1 - c_i C'_qi^T U'_qi)
//! - d_i`. Keeping `M` and `r` (n x n, n) instead of `Xc` is what makes one step a single
//! pass: the update of this step and the candidate scan of the next read every `C_qi` and
//! `U_qi` once and write them once (~4 m n doubles per step), query by query while the
//! query's block is in L1. Memory: `X` plus `C` and `U` (2 m n doubles).
//!
//! Layout: rows are cut into query-aligned chunks of about [`CHUNK_ROWS`] rows, fixed by the
//! offsets alone; within a chunk, `C` and `U` are feature-major. A pass is parallel over
//! chunks and each chunk's per-feature terms are summed in chunk order, so results do not
//! depend on the number of threads.
//!
//! Weights: the model on `S` is solved in the primal, `w_S = (Xc_S^T Xc_S + alpha I)^-1
//! Xc_S^T yc` (eq. 5), from the Gram matrix `Xc^T Xc` computed once and a Cholesky factor
//! grown by one row per step; this stays accurate for tiny `alpha`, where the dual
//! `Xc_S^T a` (eq. 6) loses digits.
//!
//! `1 - c s1_q > 0` whenever `alpha > 0` (`G'_qq` is positive definite), so no block is
//! singular: a single-document query has a zero centred row and contributes nothing.
//! Features constant within every query (zero centred column) cannot change the model:
//! they are never candidates, and the path stops when only such features are left.
//!
//! Units: the selection runs over units (`units`), a unit being a set of columns added or
//! removed together; a feature is a unit of one (plain greedy RankRLS is the run over the
//! singletons), a feature family a larger one. A unit of one column is scored by the fused
//! rank-one pass; a unit of `b` columns by the block (Woodbury) form of the same step
//! (`block`), and added or removed by its columns' rank-one steps one after the other (the
//! same `G`; with `M` in full, in one sweep over the caches, `sweep`).
//!
//! Exactness: the caches are updated by differences and start at the scale of `1/alpha`, so
//! at small `alpha`, with nearly collinear columns or on wide data an update can lose digits.
//! The accuracy monitor (`monitor`) estimates each value's rounding from the pass's quantities
//! and the values it doubts are recomputed from the definition (`exact`: a QR refit per
//! held-out query); on well-conditioned data nothing is recomputed and a run is the
//! shortcut's, bit for bit.
//!
//! Wide data (`n > m`, [`is_wide`]): `M` and `Xc^T Xc` are not kept in full (`store`). A step
//! reads `M_ii` (a unit's block `M_gg`) and row `M_b:` of the entering column only, so the
//! state keeps the unit-diagonal blocks of `M`, updated like the full matrix, and computes
//! `M_b: = Xc^T C_b` from the centred data when `b` enters or leaves (O(m n), the pass's
//! order); the path's Gram entries are dots of centred columns. Memory O(m n + sum_g b_g^2)
//! ([`units_state_bytes`]) instead of O(n^2); with `n <= m` the full matrices are kept (the
//! update is O(n^2), cheaper than `Xc^T C_b`).
//!
//! Modules: `units`, `criterion` (how candidates compare), `chunks` (the query-aligned row
//! chunks), `state` (the caches and the fused update-and-scan pass, `fused`, `fused_avx2`),
//! `step` and `update` (a rank-one step: adding or removing a column), `block` (a unit's block
//! scan: one query's step; `block_scan` the scan over the caches, `lanes` four queries' systems solved
//! side by side), `sweep` (a unit's rank-one steps in one pass over the caches, run with the next
//! block scan; its column kernels in `sweep_columns`), `monitor` and `exact` (exactness), `path` (the selected prefix's weights and the
//! result), `stable` (an ill-conditioned prefix's weights by QR on the data), `store` (`M` in full or by unit blocks), `choice` (the best candidate, or the best per unit cost), `backend` (where the
//! candidates' values come from: the in-memory caches, or query shards in
//! [`crate::shards::greedy_sharded`]), `driver` (options, checks and the selection loop, once
//! for every backend and rule), `floating` (floating search, SFFS over units: a removal is the
//! addition's step with the opposite sign, `c = -1/(1 - M_bb)` per column).

mod backend;
mod block;
mod block_scan;
mod block_tiles;
mod choice;
mod chunks;
mod criterion;
mod driver;
mod exact;
#[cfg(test)]
mod exact_tests;
mod floating;
#[cfg(test)]
mod floating_tests;
mod fused;
#[cfg(target_arch = "x86_64")]
pub(crate) mod fused_avx2;
#[cfg(test)]
mod group_tests;
mod lanes;
mod monitor;
#[cfg(test)]
mod monitor_tests;
mod path;
mod setup;
mod stable;
mod state;
mod step;
mod store;
mod sweep;
mod sweep_columns;
#[cfg(all(test, target_arch = "x86_64"))]
mod sweep_tests;
#[cfg(test)]
mod tests;
mod units;
mod update;

pub use self::backend::{GreedyBackend, InMemory, MIN_REMOVAL_PIVOT};
pub(crate) use self::block::{query_block, solve_sym, BlockScratch};
pub use self::choice::{choose_best, choose_per_cost, Choice, SharedCosts};
pub use self::chunks::CHUNK_ROWS;
pub use self::criterion::{Criterion, CriterionScratch, MetricCriterion, Squared};
pub use self::driver::{check_options, greedy_rankrls, greedy_rankrls_units, select, GreedyOptions, MIN_ALPHA};
pub use self::floating::{greedy_rankrls_floating, select_floating, FloatingBackend, FloatingPath, REL_TIE};
#[cfg(test)]
pub(crate) use self::fused::fused_update;
pub use self::monitor::RECOMPUTED_RTOL;
pub(crate) use self::monitor::{relative_change, rho as monitor_rho, Monitor};
pub use self::path::{Gram, GreedyPath, Stop};
pub use self::stable::COND_QR;
pub use self::state::{is_wide, state_bytes, units_state_bytes, GreedyState};
pub(crate) use self::step::update_residuals;
#[cfg(test)]
pub(crate) use self::step::update_residuals_body;
pub use self::step::Step;
pub use self::units::{PricedUnits, Units};
