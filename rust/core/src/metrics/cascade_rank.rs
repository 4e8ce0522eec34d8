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
/// query, `order.len() == scores.len() < 2^32`), exact as far as rank `need` (the rest in
/// some order).
pub(super) fn phase1_order(
    ties: Ties,
    scores: &[f64],
    labels: &[f64],
    need: usize,
    s: &mut RankScratch,
    order: &mut [u32],
) {
    let need = need.min(scores.len());
    match ties {
        Ties::Stable => {
            s.keys.clear();
            s.keys.extend(scores.iter().zip(0u32..).map(|(&x, i)| (desc_key(x) as u128) << 32 | i as u128));
            sort_prefix(&mut s.keys, need);
            for (o, &k) in order.iter_mut().zip(&s.keys) {
                *o = k as u32;
            }
        }
        Ties::Pessimistic => {
            s.keys3.clear();
            s.keys3.extend(scores.iter().zip(labels).zip(0u32..).map(|((&x, &r), i)| (desc_key(x), asc_key(r), i)));
            sort_prefix(&mut s.keys3, need);
            for (o, k) in order.iter_mut().zip(&s.keys3) {
                *o = k.2;
            }
        }
    }
}

/// Sorts `v`'s `need` smallest into `v[..need]` (the rest after them, in some order).
fn sort_prefix<T: Ord>(v: &mut [T], need: usize) {
    if need < v.len() {
        if need == 0 {
            return;
        }
        v.select_nth_unstable(need - 1);
        v[..need - 1].sort_unstable();
    } else {
        v.sort_unstable();
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
    let window = &order[..keep];
    s.head.clear();
    if r == 0 {
        return;
    }
    s.head.resize(r + 1, 0); // the last slot takes the ranks from `r` on
    let room = keep.div_ceil(LANES) * LANES;
    for b in [&mut s.v, &mut s.kv] {
        b.clear();
        b.resize(room, f64::NEG_INFINITY);
    }
    for b in [&mut s.vp, &mut s.kp] {
        b.clear();
        b.resize(room, 0);
    }
    let kept = if r < keep {
        let t = gather_bound(window, scores, r, &mut s.v[..keep]);
        let mut kept = keep_at_least(t, &s.v[..keep], None, &mut s.kv, &mut s.kp);
        // the kept documents' own bound is as valid and tighter: keep again while it pays
        for _ in 0..2 {
            if kept <= r + 8 {
                break;
            }
            let t = lower_bound(&s.kv[..kept], r);
            std::mem::swap(&mut s.kv, &mut s.v);
            std::mem::swap(&mut s.kp, &mut s.vp);
            kept = keep_at_least(t, &s.v[..kept], Some(&s.vp[..kept]), &mut s.kv, &mut s.kp);
        }
        kept
    } else {
        for ((x, p), (&i, j)) in s.kv.iter_mut().zip(s.kp.iter_mut()).zip(window.iter().zip(0u32..)) {
            *x = scores[i as usize];
            *p = j;
        }
        keep
    };
    let exact =
        kept <= RANK_MAX && rank_by_count(&mut s.kv[..kept.div_ceil(LANES) * LANES], &s.kp[..kept], &mut s.head);
    s.head.truncate(r);
    if exact {
        return;
    }
    // ties among the first ranks, or too many kept: sort the kept by the total order
    let (kv, kp) = (&s.kv[..kept], &s.kp[..kept]);
    if ties == Ties::Pessimistic {
        s.keys3.clear();
        s.keys3.extend(kv.iter().zip(kp).map(|(&x, &p)| (desc_key(x), asc_key(labels[order[p as usize] as usize]), p)));
        s.keys3.sort_unstable();
        for (h, k) in s.head.iter_mut().zip(&s.keys3) {
            *h = k.2;
        }
    } else {
        s.keys.clear();
        s.keys.extend(kv.iter().zip(kp).map(|(&x, &p)| (desc_key(x) as u128) << 32 | p as u128));
        s.keys.sort_unstable();
        for (h, &k) in s.head.iter_mut().zip(&s.keys) {
            *h = k as u32;
        }
    }
}

/// `r` disjoint blocks covering `0..n` (`1 <= r <= n`): their ends.
#[inline(always)]
fn blocks(n: usize, r: usize) -> impl Iterator<Item = (usize, usize)> {
    let (size, extra) = (n / r, n % r);
    (0..r).map(move |b| (b * size + b.min(extra), (b + 1) * size + (b + 1).min(extra)))
}

/// The window's scores (`scores` at `window`'s rows) into `v`, and a lower bound of their
/// `r`-th largest (`1 <= r < window.len()`): the smallest of the maxima of `r` disjoint
/// blocks (`r` documents score at least that much).
#[inline(always)]
fn gather_bound(window: &[u32], scores: &[f64], r: usize, v: &mut [f64]) -> f64 {
    let mut t = f64::INFINITY;
    for (lo, hi) in blocks(window.len(), r) {
        let mut top = f64::NEG_INFINITY;
        for (x, &i) in v[lo..hi].iter_mut().zip(&window[lo..hi]) {
            *x = scores[i as usize];
            top = if *x > top { *x } else { top };
        }
        t = if top < t { top } else { t };
    }
    t
}

/// As [`gather_bound`], of `v` itself.
#[inline(always)]
fn lower_bound(v: &[f64], r: usize) -> f64 {
    let mut t = f64::INFINITY;
    for (lo, hi) in blocks(v.len(), r) {
        let mut top = f64::NEG_INFINITY;
        for &x in &v[lo..hi] {
            top = if x > top { x } else { top };
        }
        t = if top < t { top } else { t };
    }
    t
}

/// The documents scoring at least `t` (`v`: scores; their positions `p`, or `0..`) into the
/// front of `kv`, `kp` (as long as `v`), in order; how many.
#[inline(always)]
fn keep_at_least(t: f64, v: &[f64], p: Option<&[u32]>, kv: &mut [f64], kp: &mut [u32]) -> usize {
    let n = v.len();
    let (kv, kp) = (&mut kv[..n], &mut kp[..n]);
    let mut j = 0;
    match p {
        Some(p) => {
            for (&x, &q) in v.iter().zip(&p[..n]) {
                kv[j] = x;
                kp[j] = q;
                j += (x >= t) as usize;
            }
        }
        None => {
            for (&x, q) in v.iter().zip(0u32..) {
                kv[j] = x;
                kp[j] = q;
                j += (x >= t) as usize;
            }
        }
    }
    j
}

/// Lanes of the counting loop.
const LANES: usize = 8;

/// Ranks each kept document (`kv` (padded with `-inf` to whole lanes), `kp`: at most 64) by
/// the number of the others scoring at least as much (a lane per document), and places those below
/// `head.len() - 1` there; whether that was the exact order. It is when each of those ranks
/// went to one document: every count is at least the document's rank in the total order (all
/// before it score at least as much), so `r` counts below `r`, all different, are the `r`
/// first ranks, each its own document's.
#[inline(always)]
fn rank_by_count(kv: &mut [f64], kp: &[u32], head: &mut [u32]) -> bool {
    let n = kp.len();
    let r = head.len() - 1;
    for x in &mut kv[n..] {
        *x = f64::NEG_INFINITY;
    }
    let kv = &*kv;
    let (mut filled, mut writes) = (0u64, 0usize);
    // a lane per document `i`, the others `y` broadcast: one comparison per pair
    for (chunk, xs) in kv.chunks_exact(LANES).enumerate() {
        let mut acc = [0u32; LANES];
        for &y in &kv[..n] {
            for l in 0..LANES {
                acc[l] += (y >= xs[l]) as u32;
            }
        }
        let first = chunk * LANES;
        for (&count, &p) in acc.iter().zip(&kp[first..]) {
            let c = (count as usize).saturating_sub(1);
            let below = c < r;
            head[c.min(r)] = p;
            writes += below as usize;
            filled |= (below as u64) << c.min(63);
        }
    }
    writes == r && filled == (u64::MAX >> (64 - r))
}
