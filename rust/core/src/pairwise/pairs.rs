//! Preference pairs of query-grouped data.
//!
//! The preference set of the pairwise ranking losses (RankSVM eq. 3-5 of Chen et al. 2017):
//! `P = {(i, j) : q_i = q_j, y_i > y_j}`. Rows are grouped contiguously per query
//! (`offsets`, see [`crate::data::groups`]); indices are grouped row indices.
//!
//! Order of the pairs (deterministic, independent of the number of threads): query order,
//! then the preferred row `i` ascending, then the less-preferred row `j` ascending.
//! Pairs of a query are built in parallel over queries directly into the final arrays.

use rayon::prelude::*;

use crate::data::groups::QueryOffsets;
use crate::error::{check_memory, Error, Result};
use crate::invalid;

/// The preference pairs `(i[k], j[k])`, `y[i[k]] > y[j[k]]`, with per-query ranges:
/// the pairs of query `q` are `offsets[q]..offsets[q + 1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairs {
    /// Preferred (more relevant) grouped row of each pair.
    pub i: Vec<usize>,
    /// Less relevant grouped row of each pair.
    pub j: Vec<usize>,
    /// Pair ranges per query, length `n_queries + 1`.
    pub offsets: Vec<usize>,
}

impl Pairs {
    pub fn len(&self) -> usize {
        self.i.len()
    }

    pub fn is_empty(&self) -> bool {
        self.i.is_empty()
    }
}

pub(crate) fn check_labels(y: &[f64], offsets: &QueryOffsets) -> Result<()> {
    offsets.check_rows(y.len(), "y")?;
    if let Some(r) = y.iter().position(|v| !v.is_finite()) {
        return invalid!("y contains NaN or infinity (grouped row {r}: {})", y[r]);
    }
    Ok(())
}

/// Number of pairs of one query: `#{(i, j) : y_i > y_j}` in O(n log n).
fn query_count(y: &[f64]) -> usize {
    let mut sorted = y.to_vec();
    sorted.sort_by(f64::total_cmp);
    // For each row, the number of labels strictly below its own.
    let mut total = 0usize;
    let mut start = 0usize;
    while start < sorted.len() {
        let mut end = start + 1;
        while end < sorted.len() && sorted[end] == sorted[start] {
            end += 1;
        }
        total += (end - start) * start;
        start = end;
    }
    total
}

/// Number of preference pairs of each query, in parallel over queries.
pub fn query_pair_counts(y: &[f64], offsets: &QueryOffsets) -> Result<Vec<usize>> {
    check_labels(y, offsets)?;
    Ok(offsets.par_windows(2).map(|w| query_count(&y[w[0]..w[1]])).collect())
}

/// Total number of preference pairs `|P|`.
pub fn count_pairs(y: &[f64], offsets: &QueryOffsets) -> Result<usize> {
    query_pair_counts(y, offsets)?
        .iter()
        .try_fold(0usize, |a, &c| a.checked_add(c))
        .ok_or_else(|| Error::InvalidInput("the number of preference pairs overflows".into()))
}

/// All preference pairs, query by query (see the module doc for the order).
///
/// `max_pairs`: when the total exceeds it, fails before allocating anything, naming the
/// query (its index in `offsets`) with the most pairs. `max_memory` (bytes, the library's
/// memory rule): the two index arrays (16 bytes a pair) must fit, else `Error::Memory`.
pub fn preference_pairs(y: &[f64], offsets: &QueryOffsets, max_pairs: Option<usize>, max_memory: u64) -> Result<Pairs> {
    let counts = query_pair_counts(y, offsets)?;
    let mut pair_offsets = Vec::with_capacity(counts.len() + 1);
    pair_offsets.push(0usize);
    for &c in &counts {
        let last = *pair_offsets.last().unwrap_or(&0);
        let next = last
            .checked_add(c)
            .ok_or_else(|| Error::InvalidInput("the number of preference pairs overflows".into()))?;
        pair_offsets.push(next);
    }
    let total = *pair_offsets.last().unwrap_or(&0);
    if let Some(limit) = max_pairs {
        if total > limit {
            // counts is non-empty when total > 0.
            let (q, c) = counts
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))
                .map(|(q, &c)| (q, c))
                .unwrap_or((0, 0));
            return invalid!("{total} preference pairs exceed max_pairs={limit}; query {q} has the most ({c} pairs)");
        }
    }
    check_memory(
        &format!("{total} preference pairs (two index arrays)"),
        total as u128 * 2 * std::mem::size_of::<usize>() as u128,
        max_memory,
        "pass a smaller max_pairs, split long queries, or use the implicit pairwise loss, which never lists the pairs",
    )?;
    let mut pi = crate::alloc::try_zeroed_vec::<usize>(total, "the preference pairs' first index")?;
    let mut pj = crate::alloc::try_zeroed_vec::<usize>(total, "the preference pairs' second index")?;
    // Split the output into one disjoint chunk per query, then fill the chunks in parallel.
    let mut chunks = Vec::with_capacity(counts.len());
    {
        let (mut ri, mut rj) = (pi.as_mut_slice(), pj.as_mut_slice());
        for (q, &c) in counts.iter().enumerate() {
            let (ci, ti) = std::mem::take(&mut ri).split_at_mut(c);
            let (cj, tj) = std::mem::take(&mut rj).split_at_mut(c);
            ri = ti;
            rj = tj;
            chunks.push((q, ci, cj));
        }
    }
    chunks.into_par_iter().for_each(|(q, ci, cj)| {
        let (lo, hi) = (offsets[q], offsets[q + 1]);
        let mut k = 0;
        for a in lo..hi {
            for b in lo..hi {
                if y[a] > y[b] {
                    ci[k] = a;
                    cj[k] = b;
                    k += 1;
                }
            }
        }
    });
    Ok(Pairs { i: pi, j: pj, offsets: pair_offsets })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::qo;

    fn brute(y: &[f64], offsets: &[usize]) -> Vec<(usize, usize)> {
        let mut out = vec![];
        for w in offsets.windows(2) {
            for a in w[0]..w[1] {
                for b in w[0]..w[1] {
                    if y[a] > y[b] {
                        out.push((a, b));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn pairs_match_brute_force() {
        let y = [2.0, 0.0, 1.0, 1.0, 0.0, 5.0, 3.0, 3.0, 3.0, 1.0];
        let offsets = [0, 5, 6, 9, 9, 10];
        let p = preference_pairs(&y, &qo(&offsets), None, u64::MAX).unwrap();
        let got: Vec<_> = p.i.iter().copied().zip(p.j.iter().copied()).collect();
        assert_eq!(got, brute(&y, &offsets));
        assert_eq!(count_pairs(&y, &qo(&offsets)).unwrap(), got.len());
        assert_eq!(p.offsets, vec![0, 8, 8, 8, 8, 8]);
        assert_eq!(query_pair_counts(&y, &qo(&offsets)).unwrap(), vec![8, 0, 0, 0, 0]);
    }

    #[test]
    fn max_pairs_names_the_largest_query() {
        let y = [1.0, 0.0, 2.0, 1.0, 0.0];
        let offsets = [0, 2, 5];
        let off = qo(&offsets);
        let err = preference_pairs(&y, &off, Some(2), u64::MAX).unwrap_err().to_string();
        assert!(err.contains("query 1 has the most (3 pairs)"), "{err}");
        assert_eq!(preference_pairs(&y, &off, Some(4), u64::MAX).unwrap().len(), 4);
    }

    #[test]
    fn max_memory_refuses_before_allocating() {
        let y: Vec<f64> = (0..1000).map(|v| v as f64).collect();
        let off = qo(&[0, 1000]);
        let err = preference_pairs(&y, &off, None, 1 << 20).unwrap_err();
        assert!(matches!(err, Error::Memory { .. }), "{err}");
        assert!(err.to_string().contains("499500 preference pairs"), "{err}");
    }

    #[test]
    fn bad_labels_are_rejected() {
        assert!(preference_pairs(&[1.0, f64::NAN], &qo(&[0, 2]), None, u64::MAX).is_err());
        assert!(preference_pairs(&[1.0, 0.0], &qo(&[0, 1]), None, u64::MAX).is_err());
    }
}
