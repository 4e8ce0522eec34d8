//! Importance of single features as rankers (GAS, Geng et al. 2007, Section 2.2).
//!
//! Each feature is used alone as the score, in both directions (`x` and `-x`).
//!
//! GAS-E ([`metric_importance`]): the mean over queries of an IR metric
//! ([`crate::metrics`]) with pessimistic ties.
//!
//! Pairwise accuracy (GAS-L, Table 1): over all preference pairs `(i, j)` of the data
//! (same query, `y_i > y_j`), pooled over queries,
//!
//! `acc(s) = 1 - (#{s_i < s_j} + 1/2 #{s_i = s_j}) / #{y_i > y_j}`,
//!
//! i.e. 1 minus the fraction of misordered preference pairs, where a pair the score ties
//! counts as half misordered (the expected error of breaking the tie at random). Hence
//! `acc(-x) = 1 - acc(x)`, and a feature constant within every query scores 1/2 both ways.
//! Counted exactly with the Kendall machinery ([`crate::selection::kendall`]) on the pairs
//! `(y, x_f)`: misordered(`x`) = `D + (T_x - T_xy) / 2`, misordered(`-x`) =
//! `C + (T_x - T_xy) / 2`, preference pairs = `n0 - T_y`.

use ndarray::{ArrayView1, ArrayView2};

use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::metrics::{self, MetricSpec, Ties};
use crate::selection::kendall::{check_grouped, for_each_query_counts, DEFAULT_SHORT_MAX};

/// Pairwise accuracy of every feature used as the score, by `x` and by `-x`.
#[derive(Clone, Debug, PartialEq)]
pub struct PairwiseAccuracy {
    /// `acc(x_f)` for each feature.
    pub ascending: Vec<f64>,
    /// `acc(-x_f)` for each feature (`1 - ascending`, computed from its own counts).
    pub descending: Vec<f64>,
    /// Number of preference pairs (same query, different labels).
    pub preference_pairs: u64,
}

/// Pairwise accuracy of each feature of the grouped matrix `x` (`m x n`) as a ranker for
/// labels `y` (`m`), in both directions. Errors when no query has two documents with
/// different labels.
pub fn pairwise_accuracy<I: Interrupt + ?Sized>(
    x: ArrayView2<f64>,
    y: ArrayView1<f64>,
    offsets: &QueryOffsets,
    short_max: Option<usize>,
    interrupt: &I,
) -> Result<PairwiseAccuracy> {
    let (mis2_asc, mis2_desc, prefs) =
        pairwise_counts(x, y, offsets, short_max.unwrap_or(DEFAULT_SHORT_MAX), interrupt)?;
    if prefs == 0 {
        return invalid!(
            "y: no query has two documents with different labels; pairwise importance needs preference pairs"
        );
    }
    let acc = |mis2: &[u64]| -> Vec<f64> { mis2.iter().map(|&e| 1.0 - e as f64 / (2.0 * prefs as f64)).collect() };
    Ok(PairwiseAccuracy { ascending: acc(&mis2_asc), descending: acc(&mis2_desc), preference_pairs: prefs })
}

/// The exact counts behind [`pairwise_accuracy`]: `(E_asc, E_desc, P)` with `E` twice the
/// number of preference pairs misordered by `x_f` (`-x_f`), a tie counting one (exact
/// integers), and `P` the number of preference pairs (same query, different labels). Sums
/// over queries, so the counts of query shards add up to those of the whole data
/// ([`crate::shards::shard_sums`]): `acc = 1 - E / (2 P)`.
pub fn pairwise_counts<I: Interrupt + ?Sized>(
    x: ArrayView2<f64>,
    y: ArrayView1<f64>,
    offsets: &QueryOffsets,
    short_max: usize,
    interrupt: &I,
) -> Result<(Vec<u64>, Vec<u64>, u64)> {
    let (m, n) = x.dim();
    if y.len() != m {
        return invalid!("y has {} entries but X has {m} rows", y.len());
    }
    if let Some((i, v)) = y.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return invalid!("y contains NaN or infinity (grouped row {i}: {v})");
    }
    // Column 0 is y, columns 1..=n the features; pairs (0, f + 1).
    let mut yx = crate::alloc::try_zeros2(m, n + 1, "the labels and features side by side")?;
    yx.column_mut(0).assign(&y);
    yx.slice_mut(ndarray::s![.., 1..]).assign(&x);
    let pairs: Vec<(u32, u32)> = (1..=n as u32).map(|f| (0, f)).collect();
    let mut mis2_asc = vec![0u64; n];
    let mut mis2_desc = vec![0u64; n];
    let mut prefs = 0u64;
    for_each_query_counts(yx.view(), offsets, &pairs, short_max, interrupt, |_, counts| {
        if let Some(c) = counts.first() {
            prefs += c.pairs - c.ties_a;
        }
        for (f, c) in counts.iter().enumerate() {
            let score_ties = c.ties_b - c.ties_ab;
            mis2_asc[f] += 2 * c.discordant + score_ties;
            mis2_desc[f] += 2 * c.concordant() + score_ties;
        }
    })?;
    Ok((mis2_asc, mis2_desc, prefs))
}

/// Mean IR metric (GAS-E) of every feature of the grouped matrix `x` (`m x n`) used alone
/// as the score for labels `y`, by `x` (`ascending`) and by `-x` (`descending`).
///
/// `spec.ties` is forced to [`Ties::Pessimistic`] (lower labels first among equal scores):
/// a feature that ties many documents must not profit from the order of the rows, which is
/// informative in LETOR files, and the two directions then see the same tie handling.
pub fn metric_importance<I: Interrupt + ?Sized>(
    x: ArrayView2<f64>,
    y: ArrayView1<f64>,
    offsets: &QueryOffsets,
    spec: &MetricSpec,
    interrupt: &I,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let (m, n) = x.dim();
    if y.len() != m {
        return invalid!("y has {} entries but X has {m} rows", y.len());
    }
    check_grouped(x, offsets, "X")?;
    let spec = spec.with_ties(Ties::Pessimistic);
    spec.validate()?;
    let labels = crate::alloc::try_from_fn(m, |i| y[i], "the labels")?;
    let mut ascending = Vec::with_capacity(n);
    let mut descending = Vec::with_capacity(n);
    let mut scores = crate::alloc::try_zeroed_vec::<f64>(m, "the scores of one feature")?;
    for f in 0..n {
        interrupt.check()?;
        scores.iter_mut().zip(x.column(f)).for_each(|(s, &v)| *s = v);
        ascending.push(metrics::mean(&spec, &labels, &scores, offsets)?);
        scores.iter_mut().for_each(|s| *s = -*s);
        descending.push(metrics::mean(&spec, &labels, &scores, offsets)?);
    }
    Ok((ascending, descending))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use crate::testing::qo;
    use ndarray::{array, Array1};

    fn naive(x: &[f64], y: &[f64], offsets: &[usize]) -> f64 {
        let (mut mis, mut prefs) = (0.0, 0.0);
        for w in offsets.windows(2) {
            for i in w[0]..w[1] {
                for j in w[0]..w[1] {
                    if y[i] > y[j] {
                        prefs += 1.0;
                        if x[i] < x[j] {
                            mis += 1.0;
                        } else if x[i] == x[j] {
                            mis += 0.5;
                        }
                    }
                }
            }
        }
        1.0 - mis / prefs
    }

    #[test]
    fn matches_naive_double_loop() {
        let x = array![[1.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 3.0], [5.0, 3.0], [1.0, 3.0], [4.0, 2.0]];
        let y: Array1<f64> = array![0.0, 1.0, 2.0, 1.0, 1.0, 0.0, 2.0];
        let offsets = [0, 3, 4, 7];
        for short_max in [Some(0), None] {
            let r = pairwise_accuracy(x.view(), y.view(), &qo(&offsets), short_max, &NoInterrupt).unwrap();
            for f in 0..2 {
                let col: Vec<f64> = x.column(f).to_vec();
                let neg: Vec<f64> = col.iter().map(|v| -v).collect();
                let ys = y.to_vec();
                assert!((r.ascending[f] - naive(&col, &ys, &offsets)).abs() < 1e-15);
                assert!((r.descending[f] - naive(&neg, &ys, &offsets)).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn no_preference_pairs_is_an_error() {
        let x = array![[1.0], [2.0]];
        let y = array![1.0, 1.0];
        assert!(pairwise_accuracy(x.view(), y.view(), &qo(&[0, 2]), None, &NoInterrupt).is_err());
    }
}
