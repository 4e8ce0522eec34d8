//! The measure of every two-phase cascade of a grid, one pass per query.
//!
//! A cascade ranks a query's documents with a phase-1 ranker, keeps its top `N` (the
//! window, `min(N, n_q)`) and orders them by a phase-2 ranker above the rest, which keep
//! their phase-1 order: the composition Vespa (`second-phase { rerank-count: N }`), Solr
//! (`reRankDocs`) and the rescore windows of OpenSearch / Elasticsearch apply. Each phase
//! sorts by its score, descending, ties per the metric's [`Ties`] (`Stable`: the order the
//! phase receives, so input order in phase 1 and phase-1 order in phase 2; `Pessimistic`:
//! lower labels first).
//!
//! [`cascade_grid`] takes `n1` phase-1 rankers' scores and `n2` candidates, each a phase-2
//! ranker's scores with the index of its phase-1 ranker and its window, and returns, for
//! every query, the measure of each phase-1 ranker alone and of each candidate cascade. Per
//! query each phase-1 ranker's order is sorted once and serves all of its candidates (every
//! window); a measure with a cut-off `k` (NDCG@k, P@k, ERR@k) orders only the window's first
//! `k` (a partial selection by a total order: the stable sort's prefix).
//! Parallel over queries (rayon), each value depending on its query only, so the result is
//! the same for any number of threads; the calling thread asks `interrupt` between chunks of
//! queries.

use std::cmp::Ordering;
use std::f64::consts::LN_2;

use rayon::prelude::*;

use super::query::{from_ranked, max_label};
use super::spec::{check_gain_labels, Convention, Measure, MetricSpec, Ties};
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

#[derive(Default)]
struct Scratch {
    /// Phase 1's order: (score, row within the query), sorted.
    order: Vec<(f64, usize)>,
    /// The window: (phase-2 score, position in phase 1's order, label).
    top: Vec<(f64, usize, f64)>,
    ranked: Vec<f64>,
    ideal: Vec<f64>,
    /// NDCG@k: each document's gain (by row within the query).
    gains: Vec<f64>,
}

/// The denominators of the discounts at ranks `1..=k` (`den[i - 1]`): `log2(i + 1)`, or LETOR's
/// `ln i` (unused at ranks 1 and 2), so that [`discount`] is `query::discounted`, bit for bit.
fn denominators(convention: Convention, k: usize) -> Vec<f64> {
    (1..=k)
        .map(|i| match convention {
            Convention::Letor => (i as f64).ln(),
            _ => ((i + 1) as f64).log2(),
        })
        .collect()
}

/// `query::discounted(convention, g, i)` with its denominator from the table.
#[inline]
fn discount(convention: Convention, g: f64, i: usize, den: &[f64]) -> f64 {
    match convention {
        Convention::Letor if i <= 2 => g,
        Convention::Letor => g * LN_2 / den[i - 1],
        _ => g / den[i - 1],
    }
}

/// NDCG@k of one query, the same arithmetic as the metrics' (`query::ndcg_ranked`: the
/// gains discounted in rank order, summed from 0, over the ideal DCG), from gains in rank
/// order: `n` documents, `best` the ideal DCG@min(k, n).
#[inline]
fn ndcg_of(
    convention: Convention,
    k: usize,
    n: usize,
    ranked_gains: impl Iterator<Item = f64>,
    best: f64,
    den: &[f64],
) -> f64 {
    if n == 0 || k == 0 || (convention == Convention::Letor && n < k) {
        return 0.0;
    }
    if best != 0.0 {
        let kk = k.min(n);
        ranked_gains.take(kk).enumerate().fold(0.0, |acc, (i, g)| acc + discount(convention, g, i + 1, den)) / best
    } else if convention == Convention::Lightgbm {
        1.0
    } else {
        0.0
    }
}

/// `-0.0 == 0.0`, otherwise IEEE total order (as the metrics' ranking).
#[inline]
fn cmp_f64(a: f64, b: f64) -> Ordering {
    let a = if a == 0.0 { 0.0 } else { a };
    let b = if b == 0.0 { 0.0 } else { b };
    a.total_cmp(&b)
}

/// The window's order: phase-2 score descending, ties per `ties` (`Pessimistic`: lower label
/// first), then phase-1 position: a total order, so a partial selection by it equals the
/// stable sort's prefix.
#[inline]
fn cmp_top(ties: Ties, a: &(f64, usize, f64), b: &(f64, usize, f64)) -> Ordering {
    let by_score = cmp_f64(b.0, a.0);
    let by_label = if ties == Ties::Pessimistic { cmp_f64(a.2, b.2) } else { Ordering::Equal };
    by_score.then(by_label).then(a.1.cmp(&b.1))
}

/// The first ranks a measure reads (`None`: the whole ranking): NDCG@k, P@k, ERR@k read the
/// first `k` labels (and the query's length).
fn cutoff(spec: &MetricSpec) -> Option<usize> {
    match spec.measure {
        Measure::Ndcg(k) | Measure::Err(k) => k,
        Measure::Precision(k) => Some(k),
        Measure::AveragePrecision | Measure::MeanNdcg => None,
    }
}

impl CascadeGrid<'_> {
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
        if let Some(i) = self.labels.iter().position(|r| !r.is_finite() || *r < 0.0) {
            return invalid!("labels must be finite and >= 0; row {i} has {}", self.labels[i]);
        }
        for (name, s) in [("scores1", self.scores1), ("scores2", self.scores2)] {
            if let Some(i) = s.iter().position(|x| !x.is_finite()) {
                return invalid!("{name} must be finite: ranker {}, row {} is {}", i / m, i % m, s[i]);
            }
        }
        let top = max_label(self.labels);
        check_gain_labels(spec, top)?;
        Ok(top)
    }

    /// One query's values into `single` (n1) and `cascade` (n2).
    #[allow(clippy::too_many_arguments)]
    fn query(
        &self,
        spec: &MetricSpec,
        by_phase1: &[Vec<usize>],
        grade: f64,
        den: &[f64],
        (lo, hi): (usize, usize),
        s: &mut Scratch,
        single: &mut [f64],
        cascade: &mut [f64],
    ) {
        let (n, m) = (hi - lo, self.labels.len());
        let labels = &self.labels[lo..hi];
        let ties = spec.ties;
        // the ranks the measure reads: the window is only ordered as far as them
        let reads = cutoff(spec).map_or(n, |k| k.min(n));
        s.ideal.clear();
        s.ideal.extend_from_slice(labels);
        s.ideal.sort_unstable_by(|a, b| cmp_f64(*b, *a));
        // NDCG@k (the usual grid measure): gains once per query, no ranked labels
        let ndcg_k = match spec.measure {
            Measure::Ndcg(Some(k)) => Some(k),
            _ => None,
        };
        let conv = spec.convention;
        let best = match ndcg_k {
            Some(k) => {
                s.gains.clear();
                s.gains.extend(labels.iter().map(|&r| conv.gain(r)));
                let kk = k.min(n);
                s.ideal[..kk]
                    .iter()
                    .enumerate()
                    .fold(0.0, |acc, (i, &r)| acc + discount(conv, conv.gain(r), i + 1, den))
            }
            None => 0.0,
        };
        for a in 0..self.n1 {
            let s1 = &self.scores1[a * m + lo..a * m + hi];
            s.order.clear();
            s.order.extend(s1.iter().copied().zip(0..n));
            // stable: ties in row order (Pessimistic: lower labels first, then row order); a
            // total order, so the unstable sort gives the stable sort's result
            match ties {
                Ties::Stable => s.order.sort_unstable_by(|x, y| cmp_f64(y.0, x.0).then(x.1.cmp(&y.1))),
                Ties::Pessimistic => s.order.sort_unstable_by(|x, y| {
                    cmp_f64(y.0, x.0).then(cmp_f64(labels[x.1], labels[y.1])).then(x.1.cmp(&y.1))
                }),
            }
            single[a] = match ndcg_k {
                Some(k) => ndcg_of(conv, k, n, s.order.iter().map(|&(_, i)| s.gains[i]), best, den),
                None => {
                    s.ranked.clear();
                    s.ranked.extend(s.order.iter().map(|&(_, i)| labels[i]));
                    from_ranked(spec, &s.ranked, &s.ideal, grade)
                }
            };
            for &c in &by_phase1[a] {
                let keep = self.windows[c].min(n);
                let s2 = &self.scores2[c * m + lo..c * m + hi];
                let cmp = |x: &(f64, usize, f64), y: &(f64, usize, f64)| cmp_top(ties, x, y);
                s.top.clear();
                s.top.extend(s.order[..keep].iter().enumerate().map(|(p, &(_, i))| (s2[i], p, labels[i])));
                if reads < keep {
                    // only the first `reads` ranks matter: select them, then order them
                    s.top.select_nth_unstable_by(reads - 1, cmp);
                    s.top.truncate(reads);
                }
                s.top.sort_unstable_by(cmp);
                // the ranking: the ordered head, then the rest of phase 1's order (whose ranks
                // past `reads` a cut-off measure reads only through the query's length)
                let head = s.top.len();
                cascade[c] = match ndcg_k {
                    Some(k) => {
                        let (order, gains) = (&s.order, &s.gains);
                        let top = s.top.iter().map(|t| gains[order[t.1].1]);
                        let rest = order[head..].iter().map(|&(_, i)| gains[i]);
                        ndcg_of(conv, k, n, top.chain(rest), best, den)
                    }
                    None => {
                        s.ranked.clear();
                        s.ranked.extend(s.top.iter().map(|t| t.2));
                        s.ranked.extend(s.order[head..].iter().map(|&(_, i)| labels[i]));
                        from_ranked(spec, &s.ranked, &s.ideal, grade)
                    }
                };
            }
        }
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
    let mut q0 = 0;
    while q0 < n_q {
        interrupt.check()?;
        let q1 = (q0 + CHUNK_QUERIES).min(n_q);
        let rows1 = single[q0 * n1..q1 * n1].par_chunks_mut(n1);
        // with no candidate, chunks of 1 over an empty slice give no rows: pair by index instead
        if n2 == 0 {
            rows1.enumerate().for_each_init(Scratch::default, |s, (j, r1)| {
                let q = q0 + j;
                grid.query(spec, &by_phase1, grade, &den, (offsets[q], offsets[q + 1]), s, r1, &mut []);
            });
        } else {
            rows1.zip(cascade[q0 * n2..q1 * n2].par_chunks_mut(n2)).enumerate().for_each_init(
                Scratch::default,
                |s, (j, (r1, r2))| {
                    let q = q0 + j;
                    grid.query(spec, &by_phase1, grade, &den, (offsets[q], offsets[q + 1]), s, r1, r2);
                },
            );
        }
        q0 = q1;
    }
    Ok(CascadeValues { single, cascade })
}
