//! The two orders of a cascade's query ([`super::cascade`]): phase 1's order of the query's
//! documents and phase 2's order of a window, as far as the ranks a measure reads.
//!
//! Both are the stable sort's order by a total order: score descending (`-0.0 == 0.0`), then
//! per [`Ties`] (`Pessimistic`: lower label first), then input position (phase 1: the row in
//! the query; phase 2: the position in phase 1's order). Scores are finite (checked by the
//! caller before a ranking reads them; a non-finite one gives some order, never a panic).
//!
//! Phase 1 sorts integer keys (the score's order-preserving bits, the row). Phase 2 reads only
//! the window's first `r` ranks: it gathers the window's scores, takes a lower bound of the
//! `r`-th largest (the smallest of the maxima of `r` disjoint blocks: `r` documents score at
//! least that much), keeps the documents at or above it (branch-free) and ranks each of them
//! by counting the kept documents before it (branch-free; those ranked below `r` are the head,
//! exactly the sort's prefix since every document left out ranks after every one kept). Many
//! ties (more than [`RANK_MAX`] kept) fall back to a sort.

use super::spec::Ties;

/// The most kept documents ranked by counting (quadratic); beyond, they are sorted.
const RANK_MAX: usize = 64;

/// Order-preserving bits of a score, ascending, with `-0.0` as `0.0`.
#[inline]
fn asc_key(x: f64) -> u64 {
    let b = (x + 0.0).to_bits(); // -0.0 + 0.0 == +0.0
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// Order-preserving bits of a score, descending.
#[inline]
fn desc_key(x: f64) -> u64 {
    !asc_key(x)
}

/// Reusable buffers: no allocation once grown to the largest query.
#[derive(Default)]
pub(super) struct RankScratch {
    keys: Vec<u128>,
    keys3: Vec<(u64, u64, u32)>,
    /// The window's phase-2 scores, by position in phase 1's order (then the kept ones'
    /// scores and positions before they are kept again).
    v: Vec<f64>,
    vp: Vec<u32>,
    /// The kept documents: score, position.
    kv: Vec<f64>,
    kp: Vec<u32>,
    /// The window's first ranks: positions in phase 1's order.
    pub(super) head: Vec<u32>,
}

/// Phase 1's order of a query (`scores`, `labels`: its rows) into `order` (rows within the
/// query, `order.len() == scores.len() < 2^32`).
pub(super) fn phase1_order(ties: Ties, scores: &[f64], labels: &[f64], s: &mut RankScratch, order: &mut [u32]) {
    match ties {
        Ties::Stable => {
            s.keys.clear();
            s.keys.extend(scores.iter().zip(0u32..).map(|(&x, i)| (desc_key(x) as u128) << 32 | i as u128));
            s.keys.sort_unstable();
            for (o, &k) in order.iter_mut().zip(&s.keys) {
                *o = k as u32;
            }
        }
        Ties::Pessimistic => {
            s.keys3.clear();
            s.keys3.extend(scores.iter().zip(labels).zip(0u32..).map(|((&x, &r), i)| (desc_key(x), asc_key(r), i)));
            s.keys3.sort_unstable();
            for (o, k) in order.iter_mut().zip(&s.keys3) {
                *o = k.2;
            }
        }
    }
}

/// Phase 2's order of the window `order[..keep]` (phase 1's first `keep` rows of the query),
/// as far as rank `reads`: `s.head` gets the positions (in `order`) of its first
/// `min(reads, keep)` documents. `scores`, `labels`: the query's rows.
#[inline(always)]
pub(super) fn window_head(
    ties: Ties,
    order: &[u32],
    keep: usize,
    reads: usize,
    scores: &[f64],
    labels: &[f64],
    s: &mut RankScratch,
) {
    let r = reads.min(keep);
    s.head.clear();
    s.head.resize(r + 1, 0); // the last slot takes the ranks from `r` on
    s.kv.clear();
    s.kp.clear();
    if r == 0 {
        s.head.clear();
        return;
    }
    if r < keep {
        let t = gather_bound(&order[..keep], scores, r, &mut s.v);
        keep_at_least(t, &s.v, 0..keep as u32, &mut s.kv, &mut s.kp);
        // the kept documents' own bound is as valid and tighter: keep again while it pays
        for _ in 0..2 {
            if s.kv.len() <= r + 8 {
                break;
            }
            let t = lower_bound(&s.kv, r);
            std::mem::swap(&mut s.kv, &mut s.v);
            std::mem::swap(&mut s.kp, &mut s.vp);
            keep_at_least_from(t, &s.v, &s.vp, &mut s.kv, &mut s.kp);
        }
    } else {
        s.kv.extend(order[..keep].iter().map(|&i| scores[i as usize]));
        s.kp.extend(0..keep as u32);
    }
    let exact = s.kv.len() <= RANK_MAX && rank_by_count(&mut s.kv, &s.kp, &mut s.head);
    s.head.truncate(r);
    if exact {
        return;
    }
    // ties among the first ranks, or too many kept: sort the kept by the total order
    let n = s.kp.len();
    if ties == Ties::Pessimistic {
        s.keys3.clear();
        s.keys3.extend(
            s.kv[..n].iter().zip(&s.kp).map(|(&x, &p)| (desc_key(x), asc_key(labels[order[p as usize] as usize]), p)),
        );
        s.keys3.sort_unstable();
        for (h, k) in s.head.iter_mut().zip(&s.keys3) {
            *h = k.2;
        }
    } else {
        s.keys.clear();
        s.keys.extend(s.kv[..n].iter().zip(&s.kp).map(|(&x, &p)| (desc_key(x) as u128) << 32 | p as u128));
        s.keys.sort_unstable();
        for (h, &k) in s.head.iter_mut().zip(&s.keys) {
            *h = k as u32;
        }
    }
}

/// The window's scores (`scores` at `window`'s rows) into `v`, and a lower bound of their
/// `r`-th largest (`1 <= r < window.len()`): the smallest of the maxima of `r` disjoint
/// blocks (`r` documents score at least that much).
#[inline(always)]
fn gather_bound(window: &[u32], scores: &[f64], r: usize, v: &mut Vec<f64>) -> f64 {
    let n = window.len();
    v.clear();
    let mut t = f64::INFINITY;
    for b in 0..r {
        let block = &window[b * n / r..(b + 1) * n / r];
        let mut top = f64::NEG_INFINITY;
        for &i in block {
            let x = scores[i as usize];
            v.push(x);
            top = if x > top { x } else { top };
        }
        t = if top < t { top } else { t };
    }
    t
}

/// As [`gather_bound`], of `v` itself.
#[inline(always)]
fn lower_bound(v: &[f64], r: usize) -> f64 {
    let n = v.len();
    let mut t = f64::INFINITY;
    for b in 0..r {
        let mut top = f64::NEG_INFINITY;
        for &x in &v[b * n / r..(b + 1) * n / r] {
            top = if x > top { x } else { top };
        }
        t = if top < t { top } else { t };
    }
    t
}

/// The documents scoring at least `t` (`v`: scores, positions `0..`) into `kv`, `kp`, in order.
#[inline(always)]
fn keep_at_least(t: f64, v: &[f64], positions: std::ops::Range<u32>, kv: &mut Vec<f64>, kp: &mut Vec<u32>) {
    let n = v.len();
    kv.clear();
    kp.clear();
    kv.resize(n, 0.0);
    kp.resize(n, 0);
    let mut j = 0;
    for (x, p) in v.iter().zip(positions) {
        kv[j] = *x;
        kp[j] = p;
        j += (*x >= t) as usize;
    }
    kv.truncate(j);
    kp.truncate(j);
}

/// As [`keep_at_least`], with the documents' positions `p`.
#[inline(always)]
fn keep_at_least_from(t: f64, v: &[f64], p: &[u32], kv: &mut Vec<f64>, kp: &mut Vec<u32>) {
    let n = v.len();
    kv.clear();
    kp.clear();
    kv.resize(n, 0.0);
    kp.resize(n, 0);
    let mut j = 0;
    for (x, &q) in v.iter().zip(p) {
        kv[j] = *x;
        kp[j] = q;
        j += (*x >= t) as usize;
    }
    kv.truncate(j);
    kp.truncate(j);
}

/// Lanes of the counting loop.
const LANES: usize = 8;

/// Ranks each kept document (`kv`, `kp`: at most 64) by the number of the others scoring at
/// least as much, and places those below `head.len() - 1` there; whether that was the exact
/// order. It is when each of those ranks went to one document: every count is at least the
/// document's rank in the total order (all before it score at least as much), so `r` counts
/// below `r`, all different, are the `r` first ranks, each its own document's. `kv` is padded
/// with `-inf` to whole lanes (left so).
#[inline(always)]
fn rank_by_count(kv: &mut Vec<f64>, kp: &[u32], head: &mut [u32]) -> bool {
    let n = kp.len();
    let r = head.len() - 1;
    kv.resize(n.div_ceil(LANES) * LANES, f64::NEG_INFINITY);
    let (mut filled, mut writes) = (0u64, 0usize);
    for i in 0..n {
        let x = kv[i];
        let mut acc = [0u32; LANES];
        for ch in kv.chunks_exact(LANES) {
            for l in 0..LANES {
                acc[l] += (ch[l] >= x) as u32;
            }
        }
        let c = (acc.iter().sum::<u32>() as usize).saturating_sub(1);
        let below = c < r;
        head[c.min(r)] = kp[i];
        writes += below as usize;
        filled |= (below as u64) << c.min(63);
    }
    writes == r && filled == (u64::MAX >> (64 - r))
}
