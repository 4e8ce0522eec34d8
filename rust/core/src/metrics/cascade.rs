//! The measure of every two-phase cascade of a grid, one pass per query.
//!
//! A cascade ranks a query's documents with a phase-1 ranker, keeps its top `N` (the
//! window, `min(N, n_q)`) and orders them by a phase-2 ranker above the rest, which keep
//! their phase-1 order: the composition Vespa (`second-phase { rerank-count: N }`), Solr
//! (`reRankDocs`) and the rescore windows of OpenSearch / Elasticsearch apply. Each phase
//! sorts by its score, descending, ties per the metric's [`Ties`](super::Ties) (`Stable`: the order the
//! phase receives, so input order in phase 1 and phase-1 order in phase 2; `Pessimistic`:
//! lower labels first).
//!
//! [`cascade_grid`] takes `n1` phase-1 rankers' scores and `n2` candidates, each a phase-2
//! ranker's scores with the index of its phase-1 ranker and its window, and returns, for
//! every query, the measure of each phase-1 ranker alone and of each candidate cascade.
//! Queries go in tiles (about [`TILE_ROWS`] rows): per tile the labels' gains, ideal DCG and
//! discounted gains are computed once per query; per phase-1 ranker each query's order is
//! sorted once, as far as it is read ([`cascade_rank`](super::cascade_rank)), and serves all of
//! its candidates (every window); each candidate's scores of the tile are read as one
//! contiguous segment (checked finite there, the next candidate's prefetched meanwhile), and
//! a measure with a cut-off `k` (NDCG@k, P@k, ERR@k) orders only the window's first `k` (the
//! stable sort's prefix, found by a bound, a branch-free filter and counting, compiled at
//! the active SIMD level). Parallel over tiles (rayon), each value depending on its query
//! only, so the result is the same for any number of threads and any tiling; the calling
//! thread asks `interrupt` between chunks of queries.

use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

use rayon::prelude::*;

use super::cascade_measure::{all_finite, cmp_f64, cutoff, denominators, discount, ndcg_of, prefetch, Dcg, TABLE_K};
use super::cascade_rank::{phase1_order, window_head, RankScratch};
use super::query::{from_ranked, max_label};
use super::spec::{check_gain_labels, Measure, MetricSpec};
use crate::alloc::try_zeroed_vec;
use crate::data::groups::QueryOffsets;
use crate::error::{check_memory, Result};
use crate::interrupt::Interrupt;
use crate::invalid;

/// The grid: one row of scores per ranker (`n1 x m` and `n2 x m`, row-major, so each
/// ranker's scores of a query are contiguous) and the candidates (`phase1[c]`, `windows[c]`).
#[derive(Clone, Copy, Debug)]
pub struct CascadeGrid<'a> {
    /// Labels of the `m` rows, grouped by `offsets`.
    pub labels: &'a [f64],
    pub offsets: &'a QueryOffsets,
    /// `n1 x m`, row-major: row `a` holds phase-1 ranker `a`'s scores.
    pub scores1: &'a [f64],
    pub n1: usize,
    /// `n2 x m`, row-major: row `c` holds candidate `c`'s phase-2 scores.
    pub scores2: &'a [f64],
    pub n2: usize,
    /// Candidate `c`'s phase-1 row (`< n1`).
    pub phase1: &'a [usize],
    /// Candidate `c`'s window `N >= 1` (the phase-1 documents phase 2 re-ranks).
    pub windows: &'a [usize],
}

/// Per-query values: `single[q * n1 + a]` of phase-1 ranker `a` alone, `cascade[q * n2 + c]`
/// of candidate `c`.
#[derive(Clone, Debug)]
pub struct CascadeValues {
    pub single: Vec<f64>,
    pub cascade: Vec<f64>,
}

/// Queries per interrupt check.
const CHUNK_QUERIES: usize = 256;

/// Rows a tile of queries aims at (its phase-2 segments, `8 x` that many bytes each, stay in
/// the core's cache while its queries read them).
const TILE_ROWS: usize = 2048;

#[derive(Default)]
struct Scratch {
    rank: RankScratch,
    /// Phase 1's order of each query of the tile (rows within the query), concatenated.
    order: Vec<u32>,
    ranked: Vec<f64>,
    /// Each query's labels sorted descending, concatenated.
    ideal: Vec<f64>,
    /// NDCG@k: each row's gain, each query's ideal DCG@k and discounted gains ([`Dcg`]).
    gains: Vec<f64>,
    best: Vec<f64>,
    table: Vec<f64>,
    table_at: Vec<usize>,
}

impl Scratch {
    /// Query `j` of the tile (rows `lo..hi` of it)'s discounted gains.
    #[inline(always)]
    fn dcg<'a>(&'a self, sh: &Shared<'a>, j: usize, (lo, hi): (usize, usize)) -> Dcg<'a> {
        let table = self.table_at.get(j).map(|&at| (&self.table[..], at));
        Dcg { conv: sh.spec.convention, gains: &self.gains[lo..hi], table, den: sh.den, n: hi - lo }
    }
}

/// What every tile shares.
struct Shared<'a> {
    spec: &'a MetricSpec,
    by_phase1: &'a [Vec<usize>],
    grade: f64,
    den: &'a [f64],
    /// Rows per tile of queries.
    tile: usize,
    /// Each phase-1 ranker's longest window.
    longest: Vec<usize>,
}

impl CascadeGrid<'_> {
    /// Every argument but `scores2`'s values (checked as the tiles read them: [`all_finite`],
    /// [`Self::check_scores2`]); the labels' largest grade.
    fn check(&self, spec: &MetricSpec) -> Result<f64> {
        spec.validate()?;
        let m = self.labels.len();
        self.offsets.check_rows(m, "labels")?;
        if self.n1 == 0 {
            return invalid!("the grid needs at least one phase-1 ranker, got 0");
        }
        if self.scores1.len() != m.saturating_mul(self.n1) {
            return invalid!("scores1 has {} entries, expected {} rankers x {m} rows", self.scores1.len(), self.n1);
        }
        if self.scores2.len() != m.saturating_mul(self.n2) {
            return invalid!("scores2 has {} entries, expected {} rankers x {m} rows", self.scores2.len(), self.n2);
        }
        if self.phase1.len() != self.n2 || self.windows.len() != self.n2 {
            return invalid!(
                "phase1 ({}) and windows ({}) need one entry per phase-2 ranker ({})",
                self.phase1.len(),
                self.windows.len(),
                self.n2
            );
        }
        if let Some(c) = self.phase1.iter().position(|&a| a >= self.n1) {
            return invalid!("phase1[{c}] = {} is not a phase-1 ranker (there are {})", self.phase1[c], self.n1);
        }
        if let Some(c) = self.windows.iter().position(|&w| w == 0) {
            return invalid!("windows must be >= 1; windows[{c}] is 0");
        }
        if let Some(q) = self.offsets.windows(2).position(|w| w[1] - w[0] > u32::MAX as usize) {
            return invalid!("query {q} has more than {} documents", u32::MAX);
        }
        if let Some(i) = self.labels.iter().position(|r| !r.is_finite() || *r < 0.0) {
            return invalid!("labels must be finite and >= 0; row {i} has {}", self.labels[i]);
        }
        if let Some(i) = self.scores1.iter().position(|x| !x.is_finite()) {
            return invalid!("scores1 must be finite: ranker {}, row {} is {}", i / m, i % m, self.scores1[i]);
        }
        let top = max_label(self.labels);
        check_gain_labels(spec, top)?;
        Ok(top)
    }

    /// The error naming `scores2`'s first non-finite entry.
    fn check_scores2(&self) -> Result<()> {
        let m = self.labels.len();
        match self.scores2.iter().position(|x| !x.is_finite()) {
            Some(i) => invalid!("scores2 must be finite: ranker {}, row {} is {}", i / m, i % m, self.scores2[i]),
            None => Ok(()),
        }
    }

    /// The values of the queries `q0..q1` into `single` (`(q1 - q0) x n1`) and `cascade`
    /// (`(q1 - q0) x n2`); whether every `scores2` entry of these queries is finite (a
    /// candidate with one is left at 0).
    fn tile(
        &self,
        sh: &Shared<'_>,
        (q0, q1): (usize, usize),
        s: &mut Scratch,
        single: &mut [f64],
        cascade: &mut [f64],
    ) -> bool {
        let offsets: &[usize] = self.offsets;
        let (spec, m, base) = (sh.spec, self.labels.len(), offsets[q0]);
        let rows = base..offsets[q1];
        let (ties, conv) = (spec.ties, spec.convention);
        let ndcg_k = match spec.measure {
            Measure::Ndcg(Some(k)) => Some(k),
            _ => None,
        };
        let span = |q: usize| (offsets[q] - base, offsets[q + 1] - base);
        // per query: the ideal order, NDCG@k's gains and ideal DCG
        s.ideal.clear();
        s.ideal.extend_from_slice(&self.labels[rows.clone()]);
        s.best.clear();
        s.gains.clear();
        if ndcg_k.is_some() {
            s.gains.extend(self.labels[rows.clone()].iter().map(|&r| conv.gain(r)));
        }
        for q in q0..q1 {
            let (lo, hi) = span(q);
            let ideal = &mut s.ideal[lo..hi];
            ideal.sort_unstable_by(|a, b| cmp_f64(*b, *a));
            if let Some(k) = ndcg_k {
                let kk = k.min(hi - lo);
                s.best.push(
                    ideal[..kk]
                        .iter()
                        .enumerate()
                        .fold(0.0, |acc, (i, &r)| acc + discount(conv, conv.gain(r), i + 1, sh.den)),
                );
            }
        }
        s.table.clear();
        s.table_at.clear();
        if let Some(k) = ndcg_k.filter(|&k| k <= TABLE_K) {
            for q in q0..q1 {
                let (lo, hi) = span(q);
                s.table_at.push(s.table.len());
                for i in 0..k.min(hi - lo) {
                    s.table.extend(s.gains[lo..hi].iter().map(|&g| discount(conv, g, i + 1, sh.den)));
                }
            }
        }
        s.order.clear();
        s.order.resize(rows.len(), 0);
        let n1 = self.n1;
        let mut finite = true;
        for a in 0..n1 {
            let s1 = &self.scores1[a * m + base..a * m + rows.end];
            for q in q0..q1 {
                let (lo, hi) = span(q);
                let labels = &self.labels[base + lo..base + hi];
                // NDCG@k reads phase 1's order as far as rank k and the longest window
                let need = ndcg_k.map_or(hi - lo, |k| k.max(sh.longest[a]));
                phase1_order(ties, &s1[lo..hi], labels, need, &mut s.rank, &mut s.order[lo..hi]);
                let order = &s.order[lo..hi];
                let j = q - q0;
                single[j * n1 + a] = match ndcg_k {
                    Some(k) => {
                        let dcg = s.dcg(sh, j, (lo, hi));
                        ndcg_of(conv, k, hi - lo, order.iter().copied(), |i, d| dcg.at(i, d), s.best[j])
                    }
                    None => {
                        s.ranked.clear();
                        s.ranked.extend(order.iter().map(|&i| labels[i as usize]));
                        from_ranked(spec, &s.ranked, &s.ideal[lo..hi], sh.grade)
                    }
                };
            }
            let cands = &sh.by_phase1[a];
            let ok = crate::simd::dispatch(
                #[inline(always)]
                || self.cascades(sh, cands, (q0, q1), s, cascade),
            );
            finite &= ok;
        }
        finite
    }

    /// The values of the candidates `cands` (of one phase-1 ranker, whose order of each query
    /// is in `s.order`) on the queries `q0..q1` into `cascade`; whether their scores are
    /// finite there. Compiled at the active SIMD level (the counting in [`window_head`]).
    #[inline(always)]
    fn cascades(
        &self,
        sh: &Shared<'_>,
        cands: &[usize],
        (q0, q1): (usize, usize),
        s: &mut Scratch,
        cascade: &mut [f64],
    ) -> bool {
        let offsets: &[usize] = self.offsets;
        let (spec, m, base, end) = (sh.spec, self.labels.len(), offsets[q0], offsets[q1]);
        let (ties, conv, n2) = (spec.ties, spec.convention, self.n2);
        let ndcg_k = match spec.measure {
            Measure::Ndcg(Some(k)) => Some(k),
            _ => None,
        };
        let mut finite = true;
        for (ci, &c) in cands.iter().enumerate() {
            let seg = &self.scores2[c * m + base..c * m + end];
            // the next candidate's scores come into the cache while this one is ranked
            let next = cands.get(ci + 1).map(|&d| &self.scores2[d * m + base..d * m + end]);
            if !all_finite(seg) {
                finite = false;
                continue;
            }
            for q in q0..q1 {
                let (lo, hi) = (offsets[q] - base, offsets[q + 1] - base);
                if let Some(next) = next {
                    prefetch(&next[lo..hi]);
                }
                let n = hi - lo;
                let labels = &self.labels[base + lo..base + hi];
                let order = &s.order[lo..hi];
                let keep = self.windows[c].min(n);
                // the ranks the measure reads: the window is only ordered as far as them
                let reads = cutoff(spec).map_or(n, |k| k.min(n));
                window_head(ties, order, keep, reads, &seg[lo..hi], labels, &mut s.rank);
                // the ranking: the ordered head, then the rest of phase 1's order (whose
                // ranks past `reads` a cut-off measure reads only through the query's length)
                let head = &s.rank.head;
                let rest = &order[head.len()..];
                let j = q - q0;
                cascade[j * n2 + c] = match ndcg_k {
                    Some(k) => {
                        let dcg = s.dcg(sh, j, (lo, hi));
                        let top = head.iter().map(|&p| order[p as usize]);
                        ndcg_of(conv, k, n, top.chain(rest.iter().copied()), |i, d| dcg.at(i, d), s.best[j])
                    }
                    None => {
                        s.ranked.clear();
                        s.ranked.extend(head.iter().map(|&p| labels[order[p as usize] as usize]));
                        s.ranked.extend(rest.iter().map(|&i| labels[i as usize]));
                        from_ranked(spec, &s.ranked, &s.ideal[lo..hi], sh.grade)
                    }
                };
            }
        }
        finite
    }
}

/// The measure `spec` of every phase-1 ranker and every candidate cascade of `grid`, per
/// query (module docs). The two outputs (`8 n_q (n1 + n2)` bytes) are checked against
/// `max_memory` before they are allocated.
pub fn cascade_grid(
    spec: &MetricSpec,
    grid: &CascadeGrid<'_>,
    max_memory: u64,
    interrupt: &dyn Interrupt,
) -> Result<CascadeValues> {
    let grade = grid.check(spec)?;
    let n_q = grid.offsets.len().saturating_sub(1);
    let (n1, n2) = (grid.n1, grid.n2);
    let bytes = 8 * n_q as u128 * (n1 as u128 + n2 as u128);
    check_memory(
        "the per-query values of the cascade grid",
        bytes,
        max_memory,
        "use fewer candidates (phase sizes or windows) or fewer queries",
    )?;
    let mut single = try_zeroed_vec::<f64>(n_q * n1, "the per-query values of the phase-1 rankers")?;
    let mut cascade = try_zeroed_vec::<f64>(n_q * n2, "the per-query values of the cascades")?;
    let mut by_phase1: Vec<Vec<usize>> = (0..n1).map(|_| Vec::new()).collect();
    for (c, &a) in grid.phase1.iter().enumerate() {
        by_phase1[a].push(c);
    }
    let offsets: &[usize] = grid.offsets;
    // NDCG@k's discount denominators, up to the largest query's k
    let largest = offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    let den = match spec.measure {
        Measure::Ndcg(Some(k)) => denominators(spec.convention, k.min(largest)),
        _ => Vec::new(),
    };
    // tiles of about TILE_ROWS rows, at least four per thread when there are enough queries
    // (the values do not depend on the tiling)
    let per_query = grid.labels.len() / n_q.max(1);
    let spread = n_q.div_ceil(4 * rayon::current_num_threads());
    let tile = (TILE_ROWS / per_query.max(1)).clamp(1, spread.max(1));
    let longest = by_phase1.iter().map(|c| c.iter().map(|&c| grid.windows[c]).max().unwrap_or(0)).collect();
    let sh = Shared { spec, by_phase1: &by_phase1, grade, den: &den, tile, longest };
    let finite = AtomicBool::new(true);
    let mut q0 = 0;
    while q0 < n_q {
        interrupt.check()?;
        let q1 = (q0 + CHUNK_QUERIES).min(n_q);
        let run = |s: &mut Scratch, j: usize, r1: &mut [f64], r2: &mut [f64]| {
            let a = q0 + j * sh.tile;
            if !grid.tile(&sh, (a, (a + sh.tile).min(q1)), s, r1, r2) {
                finite.store(false, AtomicOrdering::Relaxed);
            }
        };
        let rows1 = single[q0 * n1..q1 * n1].par_chunks_mut(tile * n1);
        // with no candidate, chunks over an empty slice give no tiles: pair by index instead
        if n2 == 0 {
            rows1.enumerate().for_each_init(Scratch::default, |s, (j, r1)| run(s, j, r1, &mut []));
        } else {
            rows1
                .zip(cascade[q0 * n2..q1 * n2].par_chunks_mut(tile * n2))
                .enumerate()
                .for_each_init(Scratch::default, |s, (j, (r1, r2))| run(s, j, r1, r2));
        }
        q0 = q1;
    }
    if !finite.load(AtomicOrdering::Relaxed) {
        grid.check_scores2()?;
    }
    Ok(CascadeValues { single, cascade })
}
