//! Kendall-tau similarity between features, per query, averaged over queries
//! (GAS, Geng et al. 2007, Section 2.3).
//!
//! For one query with `n_q` documents and two features `a`, `b`, every unordered pair of
//! documents is *concordant* (both features order it strictly the same way), *discordant*
//! (strictly opposite ways) or tied in `a` and/or `b`. With `n0 = n_q (n_q - 1) / 2`,
//! `T_a`, `T_b` the pairs tied in `a`, in `b`, `T_ab` those tied in both, and `D` the
//! discordant pairs, the concordant pairs are `C = n0 - D - T_a - T_b + T_ab`, and
//!
//! - `Geng`  (Section 2.3): `tau_q(a, b) = C / n0`, the fraction of all document pairs that
//!   both features order strictly the same way;
//! - `TauB`: Kendall's tau-b, `(C - D) / sqrt((n0 - T_a)(n0 - T_b))`, as
//!   `scipy.stats.kendalltau`; a query where `a` or `b` is constant contributes 0.
//!
//! Both are averaged over the queries with at least 2 documents. `absolute` compares each
//! feature with the other one *or its negation*, whichever is closer, after averaging:
//! `|mean tau_b|` and, for `Geng`, `max(mean C / n0, mean D / n0)` (the Geng similarity of
//! `a` with `-b` is `D / n0`).
//!
//! Two exact schemes give bit-identical counts, chosen per query by its length:
//! - short queries (`n_q <= short_max`, module `bitset`): per feature, two bitsets over
//!   the `n0` pairs (`untied`, `x_j > x_i`), built once per query (with AVX2: from byte
//!   ranks compared 32 at a time for `n_q <= 128`, else 4-wide comparisons of the values);
//!   a feature pair then costs `O(n0 / 64)` word operations
//!   (`D = popcount(untied_a & untied_b & (gt_a ^ gt_b))`, 4 features per AVX2 vector).
//!   Queries are taken in batches: the bitsets of a batch are built in parallel over
//!   queries, then, one cache-sized block of queries at a time, the rows of the matrix run
//!   in parallel, each adding the block's queries in query order.
//! - long queries (module `merge`): Knight's O(n_q log n_q) algorithm. Per feature the stable sort order,
//!   dense ranks and tie groups are computed once per query; a pair orders the documents by
//!   `(a, b)` with a counting sort by `a`'s rank over `b`'s order, counts joint ties, and
//!   counts `D` as the swaps of a merge sort of `b`'s ranks; feature pairs run in parallel.
//!
//! Per-query values are summed in query order, so results do not depend on the number of
//! threads.

//!
//! Modules: `drivers` (the query loop of both schemes and the similarity matrix),
//! `bitset` and `merge` (the two exact schemes).

mod bitset;
mod drivers;
mod merge;
#[cfg(test)]
mod tests;

pub(crate) use self::drivers::check_grouped;
pub use self::drivers::{for_each_query_counts, kendall_similarity, scheme_for, Scheme};
pub use self::merge::{merge_counts, FeatureOrder, MergeScratch};
use ndarray::ArrayView2;

use crate::error::Result;
use crate::invalid;

/// Which per-query Kendall statistic to average.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Geng et al. (2007), Section 2.3: concordant pairs / all pairs.
    Geng,
    /// Kendall's tau-b (0 when a feature is constant in the query).
    TauB,
}

impl Variant {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "geng" => Ok(Variant::Geng),
            "tau_b" => Ok(Variant::TauB),
            other => invalid!("variant must be 'geng' or 'tau_b', got {other:?}"),
        }
    }
}

/// Queries up to this length use the bitset scheme by default; longer ones use
/// Knight's merge-sort scheme. Measured in `benches/kendall_bench.py` (crossover of the
/// per-pair cost, see `benches/RESULTS.md`).
pub const DEFAULT_SHORT_MAX: usize = 1024;

/// The bitset scheme is used only while one query's bitsets for all features fit in this
/// many bytes (per worker thread); otherwise the query falls back to the merge-sort scheme.
pub const SHORT_PATH_MAX_BYTES: usize = 64 << 20;

#[derive(Clone, Copy, Debug)]
pub struct KendallOptions {
    pub variant: Variant,
    pub absolute: bool,
    /// Longest query handled by the bitset scheme (`0`: always merge sort).
    pub short_max: usize,
}

impl Default for KendallOptions {
    fn default() -> Self {
        KendallOptions { variant: Variant::Geng, absolute: false, short_max: DEFAULT_SHORT_MAX }
    }
}

/// Exact pair counts of one query for two features `a` and `b`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairCounts {
    /// `n0 = n_q (n_q - 1) / 2`.
    pub pairs: u64,
    /// Pairs tied in `a`.
    pub ties_a: u64,
    /// Pairs tied in `b`.
    pub ties_b: u64,
    /// Pairs tied in both.
    pub ties_ab: u64,
    /// Pairs ordered strictly in opposite ways.
    pub discordant: u64,
}

impl PairCounts {
    /// Pairs ordered strictly the same way: `n0 - D - T_a - T_b + T_ab`.
    pub fn concordant(&self) -> u64 {
        self.pairs + self.ties_ab - self.discordant - self.ties_a - self.ties_b
    }

    /// `C / n0`, as `C * (1 / n0)` (0 for a query with fewer than 2 documents).
    pub fn geng(&self) -> f64 {
        if self.pairs == 0 {
            return 0.0;
        }
        self.concordant() as f64 * (1.0 / self.pairs as f64)
    }

    /// `D / n0` (as `D * (1 / n0)`): the Geng similarity of `a` with `-b`.
    pub fn geng_negated(&self) -> f64 {
        if self.pairs == 0 {
            return 0.0;
        }
        self.discordant as f64 * (1.0 / self.pairs as f64)
    }

    /// Kendall's tau-b; 0 when `a` or `b` is constant.
    pub fn tau_b(&self) -> f64 {
        let (untied_a, untied_b) = (self.pairs - self.ties_a, self.pairs - self.ties_b);
        // Pairs untied in both, `n0 - |T_a u T_b|`; `n0 + T_ab >= T_a + T_b` keeps it in range.
        let both = self.pairs + self.ties_ab - self.ties_a - self.ties_b;
        tau_b_value(both, self.discordant, untied_a, untied_b, inv_sqrt(untied_a), inv_sqrt(untied_b))
    }
}

/// `1 / sqrt(u)` (infinite for `u = 0`, never used then).
#[inline]
pub(crate) fn inv_sqrt(u: u64) -> f64 {
    1.0 / (u as f64).sqrt()
}

/// Tau-b from the pairs untied in both features (`both`, so `C = both - D`), the discordant
/// pairs `D`, the untied pairs of each feature and their `1 / sqrt`:
/// `(C - D) / sqrt(U_a U_b)`, exactly ±1 when `|C - D| = U_a = U_b` (e.g. a feature with
/// itself), 0 when a feature is constant. The one formula of both schemes (bit-identical).
#[inline(always)]
pub(crate) fn tau_b_value(both: u64, disc: u64, untied_a: u64, untied_b: u64, inv_a: f64, inv_b: f64) -> f64 {
    let num = (both - disc) as f64 - disc as f64;
    if untied_a == 0 || untied_b == 0 {
        0.0
    } else if untied_a == untied_b && num.abs() == untied_a as f64 {
        num.signum()
    } else {
        (num * inv_a * inv_b).clamp(-1.0, 1.0)
    }
}

/// Number of unordered pairs among `n` items.
#[inline]
pub(crate) fn choose2(n: usize) -> u64 {
    let n = n as u64;
    n * n.saturating_sub(1) / 2
}

/// The rows `rows` (`len x n_features`) feature-major into `out`, each column followed by
/// `pad` zeros (`n_features x (len + pad)`); `out` is reused between queries. Both schemes read
/// their columns so (here, in their parent, so that neither driver nor scheme uses the other).
fn fill_columns(rows: ArrayView2<f64>, pad: usize, out: &mut Vec<f64>) {
    let (n, nf) = rows.dim();
    let stride = n + pad;
    out.clear();
    out.resize(nf * stride, 0.0);
    match rows.as_slice() {
        // Row-major rows: read them whole, write each value to its column.
        Some(flat) => {
            for (i, row) in flat.chunks_exact(nf).enumerate() {
                for (o, &v) in out[i..].iter_mut().step_by(stride).zip(row) {
                    *o = v;
                }
            }
        }
        None => {
            for (i, row) in rows.rows().into_iter().enumerate() {
                for (f, &v) in row.iter().enumerate() {
                    out[f * stride + i] = v;
                }
            }
        }
    }
}
