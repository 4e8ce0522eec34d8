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
//! [`cascade_grid`] takes `n1` phase-1 score columns and `n2` candidates, each a phase-2
//! score column with the index of its phase-1 column and its window, and returns, for every
//! query, the measure of each phase-1 ranker alone and of each candidate cascade. Per query
//! each phase-1 column is sorted once and serves all of its candidates (every window).
//! Parallel over queries (rayon), each value depending on its query only, so the result is
//! the same for any number of threads; the calling thread asks `interrupt` between chunks of
//! queries.

use std::cmp::Ordering;

use rayon::prelude::*;

use super::query::{from_ranked, max_label};
use super::spec::{check_gain_labels, MetricSpec, Ties};
use crate::alloc::try_zeroed_vec;
use crate::data::groups::QueryOffsets;
use crate::error::{check_memory, Result};
use crate::interrupt::Interrupt;
use crate::invalid;

/// The grid: row-major score matrices and the candidates (`phase1[c]`, `windows[c]`).
#[derive(Clone, Copy, Debug)]
pub struct CascadeGrid<'a> {
    /// Labels of the `m` rows, grouped by `offsets`.
    pub labels: &'a [f64],
    pub offsets: &'a QueryOffsets,
    /// `m x n1`, row-major: column `a` holds phase-1 ranker `a`'s scores.
    pub scores1: &'a [f64],
    pub n1: usize,
    /// `m x n2`, row-major: column `c` holds candidate `c`'s phase-2 scores.
    pub scores2: &'a [f64],
    pub n2: usize,
    /// Candidate `c`'s phase-1 column (`< n1`).
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
    order: Vec<usize>,
    top: Vec<usize>,
    ranked: Vec<f64>,
    ideal: Vec<f64>,
}

/// `-0.0 == 0.0`, otherwise IEEE total order (as the metrics' ranking).
#[inline]
fn cmp_f64(a: f64, b: f64) -> Ordering {
    let a = if a == 0.0 { 0.0 } else { a };
    let b = if b == 0.0 { 0.0 } else { b };
    a.total_cmp(&b)
}

impl CascadeGrid<'_> {
    fn check(&self, spec: &MetricSpec) -> Result<f64> {
        spec.validate()?;
        let m = self.labels.len();
        self.offsets.check_rows(m, "labels")?;
        if self.n1 == 0 {
            return invalid!("the grid needs at least one phase-1 score column, got 0");
        }
        if self.scores1.len() != m.saturating_mul(self.n1) {
            return invalid!("scores1 has {} entries, expected {m} rows x {} columns", self.scores1.len(), self.n1);
        }
        if self.scores2.len() != m.saturating_mul(self.n2) {
            return invalid!("scores2 has {} entries, expected {m} rows x {} columns", self.scores2.len(), self.n2);
        }
        if self.phase1.len() != self.n2 || self.windows.len() != self.n2 {
            return invalid!(
                "phase1 ({}) and windows ({}) need one entry per phase-2 column ({})",
                self.phase1.len(),
                self.windows.len(),
                self.n2
            );
        }
        if let Some(c) = self.phase1.iter().position(|&a| a >= self.n1) {
            return invalid!("phase1[{c}] = {} is not a phase-1 column (there are {})", self.phase1[c], self.n1);
        }
        if let Some(c) = self.windows.iter().position(|&w| w == 0) {
            return invalid!("windows must be >= 1; windows[{c}] is 0");
        }
        if let Some(i) = self.labels.iter().position(|r| !r.is_finite() || *r < 0.0) {
            return invalid!("labels must be finite and >= 0; row {i} has {}", self.labels[i]);
        }
        for (name, s, n) in [("scores1", self.scores1, self.n1), ("scores2", self.scores2, self.n2)] {
            if let Some(i) = s.iter().position(|x| !x.is_finite()) {
                return invalid!("{name} must be finite: row {}, column {} is {}", i / n, i % n, s[i]);
            }
        }
        let top = max_label(self.labels);
        check_gain_labels(spec, top)?;
        Ok(top)
    }

    /// Sorts `idx` (row indices) by `score(row)` descending, stably, ties per `ties`.
    fn sort(&self, ties: Ties, idx: &mut [usize], score: impl Fn(usize) -> f64) {
        match ties {
            Ties::Stable => idx.sort_by(|&i, &j| cmp_f64(score(j), score(i))),
            Ties::Pessimistic => {
                idx.sort_by(|&i, &j| cmp_f64(score(j), score(i)).then(cmp_f64(self.labels[i], self.labels[j])))
            }
        }
    }

    /// One query's values into `single` (n1) and `cascade` (n2).
    fn query(
        &self,
        spec: &MetricSpec,
        by_phase1: &[Vec<usize>],
        grade: f64,
        w: (usize, usize),
        s: &mut Scratch,
        single: &mut [f64],
        cascade: &mut [f64],
    ) {
        let (lo, hi) = w;
        let n = hi - lo;
        let (n1, n2) = (self.n1, self.n2);
        s.ideal.clear();
        s.ideal.extend_from_slice(&self.labels[lo..hi]);
        s.ideal.sort_unstable_by(|a, b| cmp_f64(*b, *a));
        for a in 0..n1 {
            s.order.clear();
            s.order.extend(lo..hi);
            self.sort(spec.ties, &mut s.order, |i| self.scores1[i * n1 + a]);
            s.ranked.clear();
            s.ranked.extend(s.order.iter().map(|&i| self.labels[i]));
            single[a] = from_ranked(spec, &s.ranked, &s.ideal, grade);
            for &c in &by_phase1[a] {
                let keep = self.windows[c].min(n);
                s.top.clear();
                s.top.extend_from_slice(&s.order[..keep]);
                self.sort(spec.ties, &mut s.top, |i| self.scores2[i * n2 + c]);
                s.ranked.clear();
                s.ranked.extend(s.top.iter().chain(&s.order[keep..]).map(|&i| self.labels[i]));
                cascade[c] = from_ranked(spec, &s.ranked, &s.ideal, grade);
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
    let mut q0 = 0;
    while q0 < n_q {
        interrupt.check()?;
        let q1 = (q0 + CHUNK_QUERIES).min(n_q);
        let rows1 = single[q0 * n1..q1 * n1].par_chunks_mut(n1);
        // with no candidate, chunks of 1 over an empty slice give no rows: pair by index instead
        if n2 == 0 {
            rows1.enumerate().for_each_init(Scratch::default, |s, (j, r1)| {
                let q = q0 + j;
                grid.query(spec, &by_phase1, grade, (offsets[q], offsets[q + 1]), s, r1, &mut []);
            });
        } else {
            rows1.zip(cascade[q0 * n2..q1 * n2].par_chunks_mut(n2)).enumerate().for_each_init(
                Scratch::default,
                |s, (j, (r1, r2))| {
                    let q = q0 + j;
                    grid.query(spec, &by_phase1, grade, (offsets[q], offsets[q + 1]), s, r1, r2);
                },
            );
        }
        q0 = q1;
    }
    Ok(CascadeValues { single, cascade })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use crate::metrics::{per_query, Measure};

    fn offsets(v: Vec<usize>) -> QueryOffsets {
        QueryOffsets::new(v).unwrap()
    }

    #[test]
    fn window_covering_the_query_is_phase_two_alone_and_window_one_keeps_phase_one_below() {
        let labels = [0.0, 2.0, 1.0, 0.0, 1.0];
        let off = offsets(vec![0, 3, 5]);
        let s1 = [3.0, 2.0, 1.0, 1.0, 2.0];
        let s2 = [1.0, 2.0, 3.0, 5.0, 4.0, 2.0, 0.0, 1.0, 3.0, 1.0]; // 2 candidates, row-major (no tie in column 0)
        let spec = MetricSpec::new(Measure::Ndcg(Some(3)));
        let grid = CascadeGrid {
            labels: &labels,
            offsets: &off,
            scores1: &s1,
            n1: 1,
            scores2: &s2,
            n2: 2,
            phase1: &[0, 0],
            windows: &[100, 1],
        };
        let v = cascade_grid(&spec, &grid, u64::MAX, &NoInterrupt).unwrap();
        let alone = per_query(&spec, &labels, &s1, &off).unwrap();
        assert_eq!(v.single, alone);
        let col0: Vec<f64> = (0..5).map(|i| s2[2 * i]).collect();
        let p2 = per_query(&spec, &labels, &col0, &off).unwrap();
        assert_eq!(vec![v.cascade[0], v.cascade[2]], p2);
        // window 1: phase 1's top document first, then phase 1's order: the phase-1 order
        assert_eq!(vec![v.cascade[1], v.cascade[3]], alone);
    }

    #[test]
    fn bad_arguments_are_errors() {
        let labels = [0.0, 1.0];
        let off = offsets(vec![0, 2]);
        let spec = MetricSpec::new(Measure::Ndcg(Some(1)));
        let ok = CascadeGrid {
            labels: &labels,
            offsets: &off,
            scores1: &[1.0, 0.0],
            n1: 1,
            scores2: &[0.0, 1.0],
            n2: 1,
            phase1: &[0],
            windows: &[1],
        };
        assert!(cascade_grid(&spec, &ok, u64::MAX, &NoInterrupt).is_ok());
        for bad in [
            CascadeGrid { windows: &[0], ..ok },
            CascadeGrid { phase1: &[1], ..ok },
            CascadeGrid { scores2: &[0.0], ..ok },
            CascadeGrid { scores1: &[f64::NAN, 0.0], ..ok },
            CascadeGrid { n1: 0, scores1: &[], ..ok },
        ] {
            assert!(cascade_grid(&spec, &bad, u64::MAX, &NoInterrupt).is_err());
        }
        assert!(cascade_grid(&spec, &ok, 8, &NoInterrupt).is_err());
        assert!(cascade_grid(&spec, &ok, u64::MAX, &|| true).is_err());
    }
}
