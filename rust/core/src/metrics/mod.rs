//! IR metrics of a ranking, query by query: NDCG@k, P@k, AP, MeanNDCG, ERR@k.
//!
//! A query's documents are ranked by score, descending; ties among equal scores are
//! broken by [`Ties`]: `Stable` keeps input order (as LETOR's `Eval-Score-4.0.pl`, which
//! sorts by file line and then stably by score), `Pessimistic` puts lower labels first.
//! Let `r_i` be the label at rank `i` (1-based), `n` the number of documents of the
//! query and `g(r) = 2^r - 1` the gain.
//!
//! Two conventions ([`Convention`]):
//!
//! * `Standard` (trec_eval / the usual literature):
//!   - `DCG@k = sum_{i=1}^{min(k,n)} g(r_i) / log2(i + 1)`,
//!     `NDCG@k = DCG@k / IDCG@k` with `IDCG@k` the DCG@k of the labels sorted
//!     descending, and `NDCG@k = 0` when `IDCG@k = 0` (no relevant document);
//!     `k = None` means `k = n`.
//!   - relevant means `r > 0`.
//! * `Letor` (exactly LETOR 4.0's `Eval-Score-4.0.pl`, which produced the tables of the
//!   papers):
//!   - `DCG@k = g(r_1) + g(r_2) + sum_{i=3}^{k} g(r_i) / log2(i)` (no discount at ranks 1
//!     and 2), ideal DCG on the labels sorted by gain, `NDCG@k = DCG@k / IDCG@k`, `0`
//!     when `IDCG@k = 0`, and `NDCG@k = 0` when the query has fewer than `k`
//!     documents (the script leaves those positions empty and averages them as 0).
//!   - relevant means `r >= 1`.
//!
//! In both conventions:
//! * `P@k = #{relevant documents in the top min(k, n)} / k` (missing positions count as
//!   non-relevant, as trec_eval and the LETOR script do).
//! * `AP = (1 / R) sum_{i: r_i relevant} P@i`, with `R` the number of relevant documents
//!   of the query, and `AP = 0` when `R = 0`; MAP is its mean over queries.
//! * `MeanNDCG = (1 / n) sum_{k=1}^{n} NDCG@k` per query (LETOR's MeanNDCG), then the
//!   mean over queries; `0` for an empty query.
//! * `ERR@k = sum_{i=1}^{min(k,n)} (1 / i) R_i prod_{j<i} (1 - R_j)` with
//!   `R_i = g(r_i) / 2^{g_max}` (Chapelle et al. 2009, "Expected reciprocal rank for graded relevance"; `g_max` the maximum grade,
//!   by default the maximum label over all queries). LETOR's script has no ERR: both
//!   conventions compute the same value.
//!
//! Differences from the Perl script that only matter outside LETOR 4.0 data: the script
//! looks gains and relevance up in tables for labels 0, 1, 2 only (any other label has
//! gain 0 and is non-relevant) and keys documents by docid; here `g(r) = 2^r - 1` for any
//! label `r >= 0`, relevance is `r >= 1`, and every row is a document.
//!
//! Kernels: [`query_metric`] (one query), [`per_query`] (parallel over queries,
//! deterministic), [`mean`] (sequential sum of the per-query values in query order), and
//! [`per_query_many`] which ranks each query once for several metrics.

//!
//! Modules: `spec` (measures, conventions, ties and their names), `query` (one query's
//! value), `drivers` (validated per-query values and means over grouped rows), `cascade`
//! (the measure of every two-phase cascade of a grid, one pass per query).

mod cascade;
mod cascade_measure;
mod cascade_rank;
mod drivers;
mod query;
mod spec;
#[cfg(test)]
mod tests;

pub use self::cascade::{cascade_grid, CascadeGrid, CascadeValues};
pub use self::drivers::{mean, mean_graded, per_query, per_query_graded, per_query_many};
pub use self::query::{gain, is_relevant, query_metric, query_metric_graded, query_metric_with, Scratch};
pub use self::spec::{check_gain_labels, Convention, Measure, MetricSpec, Ties, MAX_GAIN_LABEL};
