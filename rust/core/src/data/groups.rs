//! Query grouping: every ranking kernel works query by query on rows that are
//! contiguous per query, and combines per-query terms with a reduction.
//!
//! `QueryGroups::from_qid` groups rows stably by qid: queries appear in the order of
//! their first row, and rows keep their input order inside a query. Non-contiguous
//! queries are gathered, never split.

use std::collections::HashMap;
use std::ops::Range;

use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis};

use crate::error::Result;
use crate::invalid;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryGroups {
    /// Input row of each grouped row: the rows of query `q` are
    /// `perm[offsets[q]..offsets[q + 1]]`, in input order.
    pub perm: Vec<usize>,
    /// Query boundaries in grouped order, length `n_queries + 1`, `offsets[0] = 0`.
    pub offsets: QueryOffsets,
    /// qid of each query, in order of first appearance.
    pub ids: Vec<i64>,
    /// `perm` is the identity: the input is already grouped.
    pub identity: bool,
}

impl QueryGroups {
    /// Stable grouping of `qid` in O(m).
    pub fn from_qid(qid: &[i64]) -> Result<Self> {
        let mut index: HashMap<i64, usize> = HashMap::new();
        let mut ids = Vec::new();
        let mut group_of = crate::alloc::try_with_capacity(qid.len(), "the query of each row")?;
        let mut counts: Vec<usize> = Vec::new();
        for &q in qid {
            let g = *index.entry(q).or_insert_with(|| {
                ids.push(q);
                counts.push(0);
                ids.len() - 1
            });
            counts[g] += 1;
            group_of.push(g);
        }
        let mut offsets = Vec::with_capacity(ids.len() + 1);
        offsets.push(0);
        for c in &counts {
            offsets.push(offsets.last().copied().unwrap_or(0) + c);
        }
        let mut next: Vec<usize> = offsets[..ids.len()].to_vec();
        let mut perm = crate::alloc::try_zeroed_vec::<usize>(qid.len(), "the grouping permutation")?;
        for (row, &g) in group_of.iter().enumerate() {
            perm[next[g]] = row;
            next[g] += 1;
        }
        let identity = perm.iter().enumerate().all(|(i, &r)| i == r);
        Ok(QueryGroups { perm, offsets: QueryOffsets(offsets), ids, identity })
    }

    pub fn n_queries(&self) -> usize {
        self.ids.len()
    }

    pub fn n_rows(&self) -> usize {
        self.perm.len()
    }

    /// Grouped-row range of query `q`.
    pub fn range(&self, q: usize) -> Range<usize> {
        self.offsets[q]..self.offsets[q + 1]
    }

    /// Input rows of query `q`, in input order.
    pub fn rows(&self, q: usize) -> &[usize] {
        &self.perm[self.range(q)]
    }

    /// Copy of `v` in grouped order.
    pub fn gather<T: Copy>(&self, v: &[T]) -> Vec<T> {
        self.perm.iter().map(|&r| v[r]).collect()
    }

    /// Copy of the rows of `a` in grouped order.
    pub fn gather_rows<T: Copy + Default>(&self, a: ArrayView2<T>) -> Array2<T> {
        a.select(Axis(0), &self.perm)
    }

    /// Inverse of `gather`: a grouped-order vector back in input order.
    pub fn scatter<T: Copy + Default>(&self, grouped: &[T]) -> Vec<T> {
        let mut out = vec![T::default(); grouped.len()];
        for (i, &r) in self.perm.iter().enumerate() {
            out[r] = grouped[i];
        }
        out
    }
}

/// Query boundaries of rows grouped contiguously by query, validated once.
///
/// `offsets[q]..offsets[q + 1]` are the (grouped) rows of query `q`; `offsets[0] = 0`,
/// non-decreasing, `offsets[n_queries] = n_rows`. The constructor is the only place that
/// checks this; every kernel borrows a `&QueryOffsets` and only compares its own row count
/// with [`QueryOffsets::n_rows`] ([`QueryOffsets::check_rows`]). Dereferences to `[usize]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryOffsets(Vec<usize>);

impl QueryOffsets {
    /// Validates `offsets` (starts at 0, non-decreasing); the last entry is the number of rows.
    pub fn new(offsets: Vec<usize>) -> Result<Self> {
        if offsets.first() != Some(&0) {
            return invalid!("query offsets must start at 0");
        }
        if let Some(q) = offsets.windows(2).position(|w| w[1] < w[0]) {
            return invalid!("query offsets must be non-decreasing (entry {} < entry {q})", q + 1);
        }
        Ok(QueryOffsets(offsets))
    }

    /// [`QueryOffsets::new`] plus the check that the offsets cover exactly `m` rows.
    pub fn with_rows(offsets: Vec<usize>, m: usize) -> Result<Self> {
        let o = Self::new(offsets)?;
        o.check_rows(m, "the data")?;
        Ok(o)
    }

    /// One query per entry of `sizes`.
    pub fn from_sizes(sizes: &[usize]) -> Self {
        let mut o = Vec::with_capacity(sizes.len() + 1);
        o.push(0usize);
        for &s in sizes {
            o.push(o[o.len() - 1] + s);
        }
        QueryOffsets(o)
    }

    /// Number of grouped rows, `offsets[n_queries]`.
    pub fn n_rows(&self) -> usize {
        self.0[self.0.len() - 1]
    }

    pub fn n_queries(&self) -> usize {
        self.0.len() - 1
    }

    /// Fails unless an array with `len` rows (named `what`) matches these offsets.
    pub fn check_rows(&self, len: usize, what: &str) -> Result<()> {
        if len != self.n_rows() {
            return invalid!("query offsets end at {} but {what} has {len} rows", self.n_rows());
        }
        Ok(())
    }

    pub fn as_slice(&self) -> &[usize] {
        &self.0
    }

    pub fn into_vec(self) -> Vec<usize> {
        self.0
    }
}

impl std::ops::Deref for QueryOffsets {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        &self.0
    }
}

/// Checks that `offsets` describes contiguous queries covering `m` rows.
pub fn check_offsets(offsets: &[usize], m: usize) -> Result<()> {
    QueryOffsets::with_rows(offsets.to_vec(), m).map(|_| ())
}

/// Per-query centring of a vector: `v_i <- v_i - mean_{j in q(i)} v_j`.
pub fn center_vec(v: &mut [f64], offsets: &[usize]) {
    crate::simd::dispatch(
        #[inline(always)]
        || center_vec_body(v, offsets),
    )
}

#[inline(always)]
pub(crate) fn center_vec_body(v: &mut [f64], offsets: &[usize]) {
    for w in offsets.windows(2) {
        let s = &mut v[w[0]..w[1]];
        if s.is_empty() {
            continue;
        }
        let mean = s.iter().sum::<f64>() / s.len() as f64;
        s.iter_mut().for_each(|x| *x -= mean);
    }
}

/// Per-query centring of the rows of `x` (grouped, m x n): each column minus its query mean.
pub fn center_rows(mut x: ArrayViewMut2<f64>, offsets: &[usize]) {
    for w in offsets.windows(2) {
        if w[1] == w[0] {
            continue;
        }
        let mut block = x.slice_mut(ndarray::s![w[0]..w[1], ..]);
        let mean = block.mean_axis(Axis(0)).expect("non-empty block");
        block -= &mean;
    }
}

/// Centres `col` per query (the offsets relative to `col`): `v_i <- v_i - mean_{j in q(i)} v_j`,
/// except that a query whose values are all equal becomes exactly zero (no rounding residue,
/// so a feature constant within a query is recognised as such). Returns whether any value is
/// non-zero.
pub fn center_exact(col: &mut [f64], local: &[(usize, usize)]) -> bool {
    crate::simd::dispatch(
        #[inline(always)]
        || center_exact_body(col, local),
    )
}

#[inline(always)]
pub(crate) fn center_exact_body(col: &mut [f64], local: &[(usize, usize)]) -> bool {
    let mut any = false;
    for &(s, e) in local {
        let q = &mut col[s..e];
        if q.is_empty() {
            continue;
        }
        if q.iter().all(|v| *v == q[0]) {
            q.iter_mut().for_each(|v| *v = 0.0);
            continue;
        }
        let mean = q.iter().sum::<f64>() / q.len() as f64;
        q.iter_mut().for_each(|v| *v -= mean);
        any |= q.iter().any(|v| *v != 0.0);
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn groups_are_stable_and_not_split() {
        let g = QueryGroups::from_qid(&[7, 3, 7, 3, 9, 7]).unwrap();
        assert_eq!(g.ids, vec![7, 3, 9]);
        assert_eq!(g.offsets.as_slice(), &[0, 3, 5, 6]);
        assert_eq!(g.perm, vec![0, 2, 5, 1, 3, 4]);
        assert!(!g.identity);
        let v = [0, 1, 2, 3, 4, 5];
        assert_eq!(g.scatter(&g.gather(&v)), v.to_vec());
    }

    #[test]
    fn contiguous_input_is_identity() {
        let g = QueryGroups::from_qid(&[1, 1, 5, 5, 5, 2]).unwrap();
        assert!(g.identity);
        assert_eq!(g.rows(1), &[2, 3, 4]);
        check_offsets(&g.offsets, 6).unwrap();
        assert!(check_offsets(&[0, 2, 1, 6], 6).is_err());
        assert!(QueryOffsets::new(vec![1, 2]).is_err());
        let o = QueryOffsets::from_sizes(&[2, 0, 3]);
        assert_eq!(o.as_slice(), &[0, 2, 2, 5]);
        assert!(o.check_rows(5, "X").is_ok() && o.check_rows(4, "X").is_err());
    }

    #[test]
    fn centering() {
        let mut x = array![[1.0, 2.0], [3.0, 6.0], [5.0, 5.0]];
        center_rows(x.view_mut(), &[0, 2, 3]);
        assert_eq!(x, array![[-1.0, -2.0], [1.0, 2.0], [0.0, 0.0]]);
        let mut v = vec![1.0, 3.0, 5.0];
        center_vec(&mut v, &[0, 2, 3]);
        assert_eq!(v, vec![-1.0, 1.0, 0.0]);
    }
}
