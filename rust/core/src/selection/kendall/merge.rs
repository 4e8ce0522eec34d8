//! Knight's O(n_q log n_q) scheme for long queries: per feature the stable sort order,
//! dense ranks and tie groups once per query; per feature pair a counting sort and a merge
//! sort that counts the discordant pairs.

use std::cmp::Ordering;

use super::{choose2, PairCounts};

/// Per feature and query: stable sort order, dense ranks and tie groups (computed once,
/// reused by every pair).
#[derive(Clone, Debug)]
pub struct FeatureOrder {
    /// Local document indices sorted by value (stable).
    perm: Vec<u32>,
    /// Dense rank of each document (0 = smallest value; equal values share a rank).
    rank: Vec<u32>,
    /// Start of each rank's group in `perm`, length `distinct + 1`.
    start: Vec<u32>,
    /// Pairs tied in this feature.
    ties: u64,
}

impl FeatureOrder {
    /// `values` must be free of NaN (equal values, including -0.0 and 0.0, tie).
    pub fn new(values: &[f64]) -> Self {
        let n = values.len();
        let mut perm: Vec<u32> = (0..n as u32).collect();
        perm.sort_by(|&i, &j| values[i as usize].partial_cmp(&values[j as usize]).unwrap_or(Ordering::Equal));
        let mut rank = vec![0u32; n];
        let mut start = Vec::with_capacity(n + 1);
        let mut ties = 0u64;
        let mut r = 0u32;
        let mut group_start = 0usize;
        for (p, &i) in perm.iter().enumerate() {
            if p > 0 && values[i as usize] != values[perm[p - 1] as usize] {
                ties += choose2(p - group_start);
                start.push(group_start as u32);
                group_start = p;
                r += 1;
            }
            rank[i as usize] = r;
        }
        if n > 0 {
            ties += choose2(n - group_start);
            start.push(group_start as u32);
        }
        start.push(n as u32);
        FeatureOrder { perm, rank, start, ties }
    }

    pub fn len(&self) -> usize {
        self.perm.len()
    }

    pub fn is_empty(&self) -> bool {
        self.perm.is_empty()
    }

    pub fn ties(&self) -> u64 {
        self.ties
    }

    fn distinct(&self) -> usize {
        self.start.len() - 1
    }
}

/// Scratch buffers of the merge-sort scheme (one per worker).
#[derive(Default)]
pub struct MergeScratch {
    seq: Vec<u32>,
    tmp: Vec<u32>,
    next: Vec<u32>,
}

/// Knight's algorithm: exact [`PairCounts`] of `a` and `b` in O(n_q log n_q).
pub fn merge_counts(a: &FeatureOrder, b: &FeatureOrder, s: &mut MergeScratch) -> PairCounts {
    let n = a.len();
    debug_assert_eq!(n, b.len());
    // Documents in (a, b) order: b's sort order, then a stable counting sort by a's rank.
    s.next.clear();
    s.next.extend_from_slice(&a.start[..a.distinct()]);
    s.seq.clear();
    s.seq.resize(n, 0);
    for &doc in &b.perm {
        let r = a.rank[doc as usize] as usize;
        let pos = s.next[r] as usize;
        s.seq[pos] = b.rank[doc as usize];
        s.next[r] += 1;
    }
    // Joint ties: runs of equal b-rank inside each a-group (b-ranks are sorted there).
    let mut ties_ab = 0u64;
    for g in a.start.windows(2) {
        let block = &s.seq[g[0] as usize..g[1] as usize];
        let mut run = 1usize;
        for w in block.windows(2) {
            if w[0] == w[1] {
                run += 1;
            } else {
                ties_ab += choose2(run);
                run = 1;
            }
        }
        ties_ab += choose2(run);
    }
    // Discordant pairs: strict inversions of b's ranks in (a, b) order. Inside an a-group
    // the ranks are non-decreasing, so a-ties contribute none.
    s.tmp.clear();
    s.tmp.resize(n, 0);
    let discordant = count_inversions(&mut s.seq, &mut s.tmp);
    PairCounts { pairs: choose2(n), ties_a: a.ties, ties_b: b.ties, ties_ab, discordant }
}

/// Strict inversions (`i < j`, `v[i] > v[j]`) by a bottom-up merge sort; sorts `v`.
fn count_inversions(v: &mut [u32], tmp: &mut [u32]) -> u64 {
    const RUN: usize = 24;
    let n = v.len();
    let mut inv = 0u64;
    // Insertion sort of short runs: each shift passes one strictly greater element.
    for chunk in v.chunks_mut(RUN) {
        for i in 1..chunk.len() {
            let x = chunk[i];
            let mut j = i;
            while j > 0 && chunk[j - 1] > x {
                chunk[j] = chunk[j - 1];
                j -= 1;
            }
            inv += (i - j) as u64;
            chunk[j] = x;
        }
    }
    let mut width = RUN;
    let mut src_is_v = true;
    while width < n {
        {
            let (src, dst): (&[u32], &mut [u32]) = if src_is_v { (&*v, &mut *tmp) } else { (&*tmp, &mut *v) };
            let mut lo = 0;
            while lo < n {
                let mid = (lo + width).min(n);
                let hi = (lo + 2 * width).min(n);
                inv += merge(&src[lo..mid], &src[mid..hi], &mut dst[lo..hi]);
                lo = hi;
            }
        }
        src_is_v = !src_is_v;
        width *= 2;
    }
    if !src_is_v {
        v.copy_from_slice(tmp);
    }
    inv
}

/// Merges two sorted runs; returns the number of (left, right) pairs with left > right.
#[inline]
fn merge(left: &[u32], right: &[u32], out: &mut [u32]) -> u64 {
    let (mut i, mut j, mut k) = (0, 0, 0);
    let mut inv = 0u64;
    while i < left.len() && j < right.len() {
        if right[j] < left[i] {
            out[k] = right[j];
            inv += (left.len() - i) as u64;
            j += 1;
        } else {
            out[k] = left[i];
            i += 1;
        }
        k += 1;
    }
    out[k..k + left.len() - i].copy_from_slice(&left[i..]);
    k += left.len() - i;
    out[k..].copy_from_slice(&right[j..]);
    inv
}
