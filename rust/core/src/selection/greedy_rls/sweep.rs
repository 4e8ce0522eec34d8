//! A unit's columns added (or removed) in one sweep over the caches (module docs of
//! [`super`]): the `b` rank-one steps of a unit, applied query by query.
//!
//! With `M` kept in full ([`MStore::Full`]), a step's global quantities (`c = 1/(1 + M_bb)`,
//! or `-1/(1 - M_bb)` to remove, `d = c r_b`, `t = c M_b:`, and the updates of `M` and `r`)
//! come from `M` and `r` alone, so the `b` steps' are computed first, one after the other. What
//! is left is per query: `s1_q`, `f_q` and `p_q` of each step from the query's rows of the
//! entering column, then `C_qi`, `U_qi` of every column the step updates. So one sweep applies
//! the `b` steps to a query while its rows are in cache, instead of one pass over the caches
//! per step; every value is computed by the operations of [`super::update_residuals`] and of
//! the pass ([`super::fused`]) in their order, so the caches are those of the step-by-step
//! passes, bit for bit. The work is shared out in runs of whole queries of about [`TASK_ROWS`]
//! rows (a chunk's share per task would leave one of two threads idle on MQ2008's five
//! chunks); the accuracy monitor's `den` (a minimum) and the residuals' norms per query (its
//! `change`) are summed per chunk in query order and then in chunk order, as one task per
//! chunk would: the same bits for any number of threads.
//!
//! A unit added by the selection ([`super::backend`]) is swept with the next scan: each task
//! scores the candidate units on its queries' rows right after updating them (the block scan
//! of [`super::block_scan`], its terms summed as that scan sums them), so one parallel section
//! and one read of the caches serve both.

use std::ops::Range;

use super::block::{BlockCandidate, BlockScratch, Prepared};
use super::block_scan::{block_queries, QueryData};
use super::chunks::Chunks;
use super::criterion::Criterion;
use super::monitor::relative_change;
use super::state::GreedyState;
use super::step::Step;
use super::store::MStore;
#[cfg(target_arch = "x86_64")]
use super::sweep_columns::columns_avx2;
use super::sweep_columns::{update_column, update_columns4};
use crate::linalg::{axpy, dot4, dot4_many};

/// Rows (whole queries) per task of a sweep: a chunk is shared out in runs of queries of
/// about this many rows, so that two threads stay busy on a few chunks; the per-query values
/// are then summed per chunk in query order, as one task per chunk would.
const TASK_ROWS: usize = 512;

/// The global part of one rank-one step of a sweep (module docs).
struct Global {
    b: usize,
    c: f64,
    d: f64,
    t: Vec<f64>,
}

impl GreedyState {
    /// `true` when [`GreedyState::sweep`] applies (`M` kept in full: `n <= m`).
    pub(super) fn can_sweep(&self) -> bool {
        matches!(self.store, MStore::Full { .. })
    }

    /// Adds (or, with `remove`, removes) the columns `cols` in order, step `j` updating the
    /// columns whose flag `update[j][i]` is set (module docs). Returns the monitor's quantities
    /// of each step (`rho`, `den`, `change`; the pass's vectors empty: nothing is pending).
    pub(super) fn sweep(&mut self, cols: &[usize], remove: bool, update: &[Vec<bool>]) -> Vec<Step> {
        let plan = self.sweep_globals(cols, remove);
        self.sweep_queries(plan, update, None).0
    }

    /// A sweep's global part (module docs): each step's `c`, `d` and `t`, with `M`, `r` and
    /// the model's flags updated. The caches are not touched until [`GreedyState::sweep_queries`].
    pub(super) fn sweep_globals(&mut self, cols: &[usize], remove: bool) -> SweepPlan {
        debug_assert!(self.can_sweep(), "the sweep reads rows of M in full");
        let mut glob = Vec::with_capacity(cols.len());
        let mut rhos = Vec::with_capacity(cols.len());
        for &b in cols {
            let mbb = self.store.m(b, b);
            let c = if remove { -1.0 / (1.0 - mbb) } else { 1.0 / (1.0 + mbb) };
            rhos.push(self.rho(b));
            self.in_model[b] = !remove;
            let d = c * self.r[b];
            let mb = self.store.row(b, &[]);
            let t: Vec<f64> = mb.iter().map(|v| c * v).collect();
            self.store.rank_one(&mb, c);
            self.r.iter_mut().zip(&mb).for_each(|(r, m)| *r -= d * m);
            glob.push(Global { b, c, d, t });
        }
        SweepPlan { glob, rhos, before: self.model_value() }
    }

    /// A sweep's per-query part (module docs), and with `scan` the block scan of its units on
    /// the updated caches in the same tasks ([`GreedyState::scan_blocks`]'s values, bit for bit:
    /// each query's term is computed from the same rows by the same code, and a unit's terms are
    /// summed per chunk in query order, then over the chunks): each query's rows are scored
    /// while they are in cache, and one parallel section does both. Returns the steps and the
    /// scan's `(value, smallest pivot)` per unit (empty without `scan`).
    pub(super) fn sweep_queries(
        &mut self,
        plan: SweepPlan,
        update: &[Vec<bool>],
        scan: Option<SweepScan>,
    ) -> (Vec<Step>, Vec<(f64, f64)>) {
        let SweepPlan { glob, rhos, before } = plan;
        let n = self.n;
        let (chunks, offsets, yc) = (&self.chunks, &self.offsets[..], &self.yc[..]);
        let tasks = Tasks::new(chunks, offsets);
        // each task's rows of every column of `C` and `U`, and of `p`
        let (mut cs, mut us, mut ps) = (Vec::new(), Vec::new(), Vec::new());
        for ((cc, uu), pp) in
            chunks.split(&mut self.c, n).into_iter().zip(chunks.split(&mut self.u, n)).zip(chunks.split(&mut self.p, 1))
        {
            let k = cs.len();
            let len = chunks.rows[k + 1] - chunks.rows[k];
            cs.push(tasks.cut(k, cc, len, n));
            us.push(tasks.cut(k, uu, len, n));
            ps.push(tasks.cut(k, pp, len, 1));
        }
        let (cs, us, ps): (Vec<_>, Vec<_>, Vec<_>) = (
            cs.into_iter().flatten().collect(),
            us.into_iter().flatten().collect(),
            ps.into_iter().flatten().collect(),
        );
        let glob = &glob;
        let steps = glob.len();
        // the four-column kernel's AVX2 form at the AVX2 and AVX-512 levels (the same bits)
        let avx2 = crate::simd::level() >= crate::simd::SimdLevel::Avx2;
        // the columns each step updates
        let lists: Vec<Vec<usize>> = update.iter().map(|f| (0..n).filter(|&i| f[i]).collect()).collect();
        let lists = &lists[..];
        let scan = scan.as_ref();
        let items: Vec<_> = cs.into_iter().zip(us).zip(ps).collect();
        let parts: Vec<TaskOut> = crate::par::map_tasks(
            items,
            || (Vec::new(), Vec::new(), BlockScratch::default()),
            |(ub, zb, sc), t, ((mut cc, mut uu), mut pp)| {
                let (qs, r0) = (tasks.queries[t].clone(), tasks.rows[t]);
                let task = SweepTask { offsets, glob, lists, r0, avx2 };
                crate::simd::dispatch(
                    #[inline(always)]
                    || {
                        let mut out = task.run(qs.clone(), &mut cc, &mut uu, pp[0], ub, zb);
                        if let Some(s) = scan {
                            let (cc, uu) = (&cc[..], &uu[..]);
                            let data = QueryData { offsets, r0, p: pp[0], yc, y: s.y };
                            for (u, (pr, _)) in s.units.iter().zip(s.prep) {
                                let cg = |j: usize, a: usize, e: usize| &cc[u.cols[j]][a..e];
                                let zg = |j: usize, a: usize, e: usize| &uu[u.cols[j]][a..e];
                                let terms = &mut out.terms;
                                let low = block_queries(&data, qs.clone(), cg, zg, pr, s.criterion, sc, &mut |v| {
                                    terms.push(v)
                                });
                                out.lows.push(low);
                            }
                        }
                        out
                    },
                )
            },
        );
        // per chunk, the tasks' per-query norms (and terms) summed in query order (as one task per chunk)
        let nu = scan.map_or(0, |s| s.units.len());
        let mut chunk_norms = vec_of(chunks.len() * steps, 0.0);
        let mut chunk_terms = vec_of(chunks.len() * nu, 0.0);
        let mut lows: Vec<f64> = scan.map_or(Vec::new(), |s| s.prep.iter().map(|p| p.1).collect());
        let mut dens = vec_of(steps, 1.0f64);
        for (t, part) in parts.iter().enumerate() {
            let (k, nqt) = (tasks.chunk[t], tasks.queries[t].len());
            for j in 0..steps {
                dens[j] = dens[j].min(part.dens[j]);
                for q in 0..nqt {
                    chunk_norms[k * steps + j] += part.norms[q * steps + j];
                }
            }
            for i in 0..nu {
                part.terms[i * nqt..(i + 1) * nqt].iter().for_each(|v| chunk_terms[k * nu + i] += v);
                lows[i] = lows[i].min(part.lows[i]);
            }
        }
        let mut prev = before;
        let done = (0..steps)
            .map(|j| {
                let after = (0..chunks.len()).map(|k| chunk_norms[k * steps + j]).fold(0.0, |a, b| a + b);
                let change = relative_change(prev, after);
                prev = after;
                let none = Vec::new;
                Step { t: none(), s1: none(), f: none(), ub: none(), zb: none(), rho: rhos[j], den: dens[j], change }
            })
            .collect();
        let nq = offsets.len() - 1;
        let scanned = scan.map_or(Vec::new(), |s| {
            (0..nu)
                .map(|i| {
                    let total = (0..chunks.len()).map(|k| chunk_terms[k * nu + i]).fold(0.0, |a, b| a + b);
                    (s.criterion.finish(total, nq), lows[i])
                })
                .collect()
        });
        (done, scanned)
    }
}

/// A sweep's global part ([`GreedyState::sweep_globals`]): each step's constants, the
/// columns' `rho` (the monitor's) and the model's criterion before the sweep.
pub(super) struct SweepPlan {
    glob: Vec<Global>,
    rhos: Vec<f64>,
    before: f64,
}

/// The block scan a sweep runs on its updated rows ([`GreedyState::sweep_queries`]): the
/// units, their constants ([`GreedyState::prepare_blocks`], after the sweep's global part),
/// the raw labels and the criterion.
pub(super) struct SweepScan<'a> {
    pub(super) units: &'a [BlockCandidate],
    pub(super) prep: &'a [(Prepared, f64)],
    pub(super) y: &'a [f64],
    pub(super) criterion: &'a dyn Criterion,
}

/// `len` copies of `v` (small: per chunk and step or unit).
fn vec_of(len: usize, v: f64) -> Vec<f64> {
    (0..len).map(|_| v).collect()
}

/// The tasks of a sweep: runs of whole queries of about [`TASK_ROWS`] rows within a chunk.
struct Tasks {
    /// Each task's chunk, first row and queries.
    chunk: Vec<usize>,
    rows: Vec<usize>,
    queries: Vec<Range<usize>>,
}

impl Tasks {
    fn new(chunks: &Chunks, offsets: &[usize]) -> Self {
        let (mut chunk, mut rows, mut queries) = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..chunks.len() {
            let mut start = chunks.queries[k];
            for q in chunks.queries[k]..chunks.queries[k + 1] {
                if offsets[q + 1] - offsets[start] >= TASK_ROWS || q + 1 == chunks.queries[k + 1] {
                    chunk.push(k);
                    rows.push(offsets[start]);
                    queries.push(start..q + 1);
                    start = q + 1;
                }
            }
        }
        Tasks { chunk, rows, queries }
    }

    /// Chunk `k`'s block `v` (`w` columns of `len` rows, feature-major) cut into its tasks'
    /// rows of every column.
    fn cut<'a>(&self, k: usize, v: &'a mut [f64], len: usize, w: usize) -> Vec<Vec<&'a mut [f64]>> {
        let mine: Vec<usize> = (0..self.chunk.len()).filter(|&t| self.chunk[t] == k).collect();
        let mut out: Vec<Vec<&'a mut [f64]>> = mine.iter().map(|_| Vec::with_capacity(w)).collect();
        let r0 = mine.first().map_or(0, |&t| self.rows[t]);
        for mut column in v.chunks_exact_mut(len.max(1)).take(w) {
            for (o, &t) in mine.iter().enumerate() {
                let end = mine.get(o + 1).map_or(len, |&next| self.rows[next] - r0);
                let (head, tail) = std::mem::take(&mut column).split_at_mut(end - (self.rows[t] - r0));
                out[o].push(head);
                column = tail;
            }
        }
        out
    }
}

/// What one task of a sweep returns: per step its smallest `1 - c s1_q`; per query and step
/// `||p_q||^2` after the step (`norms[q * steps + j]`); with a scan, per unit its queries'
/// terms in order (`terms[i * n_queries + q]`) and its smallest pivot (`lows[i]`).
struct TaskOut {
    dens: Vec<f64>,
    norms: Vec<f64>,
    terms: Vec<f64>,
    lows: Vec<f64>,
}

/// What one task's share of a sweep reads.
struct SweepTask<'a> {
    offsets: &'a [usize],
    glob: &'a [Global],
    /// The columns each step updates, in order.
    lists: &'a [Vec<usize>],
    /// The task's first row.
    r0: usize,
    /// Whether [`columns4_avx2`] runs (the active level is AVX2 or wider).
    avx2: bool,
}

impl SweepTask<'_> {
    /// The task's queries `qs` (its rows of each column `cc[i]` of `C`, `uu[i]` of `U`, and of
    /// `p`): every step applied to each query in turn. `ub`, `zb`: buffers for the entering
    /// column's query rows.
    #[inline(always)]
    fn run(
        &self,
        qs: Range<usize>,
        cc: &mut [&mut [f64]],
        uu: &mut [&mut [f64]],
        pp: &mut [f64],
        ub: &mut Vec<f64>,
        zb: &mut Vec<f64>,
    ) -> TaskOut {
        let steps = self.glob.len();
        let mut dens = vec_of(steps, 1.0);
        let mut norms = Vec::with_capacity(qs.len() * steps);
        for q in qs {
            let (a, e) = (self.offsets[q] - self.r0, self.offsets[q + 1] - self.r0);
            let pq = &mut pp[a..e];
            for (j, g) in self.glob.iter().enumerate() {
                // the entering column's rows before its step (a removal may update it too)
                ub.clear();
                ub.extend_from_slice(&cc[g.b][a..e]);
                zb.clear();
                zb.extend_from_slice(&uu[g.b][a..e]);
                // the residuals (update_residuals_body)
                let s1 = dot4(ub, zb);
                let s2 = dot4(ub, pq);
                let f = g.c / (1.0 - g.c * s1);
                let h0 = f * (s2 - g.d * s1) - g.d;
                axpy(h0, zb, pq);
                dens[j] = dens[j].min(1.0 - g.c * s1);
                norms.push(dot4(pq, pq));
                // the columns (the pass's update, fused::fused_update), four dots side by side
                for cols in self.lists[j].chunks(4) {
                    if let &[i0, i1, i2, i3] = cols {
                        let four = [i0, i1, i2, i3];
                        let t4 = four.map(|i| g.t[i]);
                        // four distinct columns (increasing indices): `get_disjoint_mut` succeeds
                        if let (Ok(c4), Ok(u4)) = (cc.get_disjoint_mut(four), uu.get_disjoint_mut(four)) {
                            let (c4, u4) = (c4.map(|c| &mut c[a..e]), u4.map(|u| &mut u[a..e]));
                            #[cfg(target_arch = "x86_64")]
                            if self.avx2 {
                                // SAFETY: the active level is AVX2 or wider, so the CPU has AVX2.
                                unsafe { columns_avx2(c4, u4, ub, zb, t4, f, s1) };
                                continue;
                            }
                            let dz = dot4_many(zb, [&*c4[0], &*c4[1], &*c4[2], &*c4[3]]);
                            let h4: [f64; 4] = std::array::from_fn(|o| f * (dz[o] - t4[o] * s1) - t4[o]);
                            update_columns4(c4, u4, ub, zb, t4, h4);
                            continue;
                        }
                    }
                    for &i in cols {
                        let (cq, uq) = (&mut cc[i][a..e], &mut uu[i][a..e]);
                        #[cfg(target_arch = "x86_64")]
                        if self.avx2 {
                            // SAFETY: as above.
                            unsafe { columns_avx2([cq], [uq], ub, zb, [g.t[i]], f, s1) };
                            continue;
                        }
                        let h = f * (dot4(zb, cq) - g.t[i] * s1) - g.t[i];
                        update_column(cq, uq, ub, zb, g.t[i], h);
                    }
                }
            }
        }
        TaskOut { dens, norms, terms: Vec::new(), lows: Vec::new() }
    }
}
