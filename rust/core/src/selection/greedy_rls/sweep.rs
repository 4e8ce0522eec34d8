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

use std::ops::Range;

use super::chunks::Chunks;
use super::monitor::relative_change;
use super::state::GreedyState;
use super::step::Step;
use super::store::MStore;
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
        let before = self.model_value();
        let n = self.n;
        let (chunks, offsets) = (&self.chunks, &self.offsets[..]);
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
        let steps = cols.len();
        // the four-column kernel's AVX2 form at the AVX2 and AVX-512 levels (the same bits)
        let avx2 = crate::simd::level() >= crate::simd::SimdLevel::Avx2;
        // the columns each step updates
        let lists: Vec<Vec<usize>> = update.iter().map(|f| (0..n).filter(|&i| f[i]).collect()).collect();
        let lists = &lists[..];
        let items: Vec<_> = cs.into_iter().zip(us).zip(ps).collect();
        let parts: Vec<TaskOut> = crate::par::map_tasks(
            items,
            || (Vec::new(), Vec::new()),
            |(ub, zb), t, ((mut cc, mut uu), mut pp)| {
                let (qs, r0) = (tasks.queries[t].clone(), tasks.rows[t]);
                let task = SweepTask { offsets, glob, lists, r0, avx2 };
                crate::simd::dispatch(
                    #[inline(always)]
                    || task.run(qs, &mut cc, &mut uu, pp[0], ub, zb),
                )
            },
        );
        // per chunk, the tasks' per-query norms summed in query order (as one task per chunk)
        let mut chunk_norms = vec_of(chunks.len() * steps, 0.0);
        let mut dens = vec_of(steps, 1.0f64);
        for (t, part) in parts.iter().enumerate() {
            let (k, nqt) = (tasks.chunk[t], tasks.queries[t].len());
            for j in 0..steps {
                dens[j] = dens[j].min(part.dens[j]);
                for q in 0..nqt {
                    chunk_norms[k * steps + j] += part.norms[q * steps + j];
                }
            }
        }
        let mut prev = before;
        (0..steps)
            .map(|j| {
                let after = (0..chunks.len()).map(|k| chunk_norms[k * steps + j]).fold(0.0, |a, b| a + b);
                let change = relative_change(prev, after);
                prev = after;
                let none = Vec::new;
                Step { t: none(), s1: none(), f: none(), ub: none(), zb: none(), rho: rhos[j], den: dens[j], change }
            })
            .collect()
    }
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
/// `||p_q||^2` after the step (`norms[q * steps + j]`).
struct TaskOut {
    dens: Vec<f64>,
    norms: Vec<f64>,
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
        TaskOut { dens, norms }
    }
}

/// [`update_column`] on four columns at once (each element's operations unchanged: the same
/// bits), loading `ub` and `zb` once for the four.
#[inline(always)]
pub(super) fn update_columns4(
    c: [&mut [f64]; 4],
    u: [&mut [f64]; 4],
    ub: &[f64],
    zb: &[f64],
    t: [f64; 4],
    h: [f64; 4],
) {
    let len = ub.len();
    let [c0, c1, c2, c3] = c;
    let [u0, u1, u2, u3] = u;
    let (c0, c1, c2, c3) = (&mut c0[..len], &mut c1[..len], &mut c2[..len], &mut c3[..len]);
    let (u0, u1, u2, u3) = (&mut u0[..len], &mut u1[..len], &mut u2[..len], &mut u3[..len]);
    let zb = &zb[..len];
    for r in 0..len {
        let (x, z) = (ub[r], zb[r]);
        c0[r] -= t[0] * x;
        c1[r] -= t[1] * x;
        c2[r] -= t[2] * x;
        c3[r] -= t[3] * x;
        u0[r] += h[0] * z;
        u1[r] += h[1] * z;
        u2[r] += h[2] * z;
        u3[r] += h[3] * z;
    }
}

/// `K` columns' step with AVX2, one query: `dz = dot4(zb, c)` per column, `h = f (dz - t s1) - t`
/// and [`update_column`], four rows per instruction: the same operations in the same order as
/// the portable code (the lanes of [`dot4`], each element's update), so the same bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn columns_avx2<const K: usize>(
    c: [&mut [f64]; K],
    u: [&mut [f64]; K],
    ub: &[f64],
    zb: &[f64],
    t: [f64; K],
    f: f64,
    s1: f64,
) {
    use std::arch::x86_64::*;
    let len = ub.len();
    assert!(zb.len() == len && c.iter().chain(u.iter()).all(|v| v.len() == len), "one query's rows");
    let n4 = len - len % 4;
    // SAFETY (loads and stores): every slice holds `len` values (asserted above) and `r + 4 <=
    // n4 <= len`, so the four values from `r` are in the slice (no bounds check per load).
    let load = |v: &[f64], r: usize| unsafe { _mm256_loadu_pd(v.as_ptr().add(r)) };
    let store = |v: &mut [f64], r: usize, x: __m256d| unsafe { _mm256_storeu_pd(v.as_mut_ptr().add(r), x) };
    let mut acc = [_mm256_setzero_pd(); K];
    for r in (0..n4).step_by(4) {
        let z = load(zb, r);
        for o in 0..K {
            acc[o] = _mm256_add_pd(acc[o], _mm256_mul_pd(z, load(c[o], r)));
        }
    }
    let h: [f64; K] = std::array::from_fn(|o| {
        let mut l = [0.0f64; 4];
        store(&mut l, 0, acc[o]);
        let mut dz = (l[0] + l[1]) + (l[2] + l[3]);
        for r in n4..len {
            dz += zb[r] * c[o][r];
        }
        f * (dz - t[o] * s1) - t[o]
    });
    let (tv, hv) = (t.map(|v| _mm256_set1_pd(v)), h.map(|v| _mm256_set1_pd(v)));
    let (c, u) = (c, u);
    for r in (0..n4).step_by(4) {
        let (x, z) = (load(ub, r), load(zb, r));
        for o in 0..K {
            let cv = _mm256_sub_pd(load(c[o], r), _mm256_mul_pd(tv[o], x));
            store(c[o], r, cv);
            let uv = _mm256_add_pd(load(u[o], r), _mm256_mul_pd(hv[o], z));
            store(u[o], r, uv);
        }
    }
    for r in n4..len {
        for o in 0..K {
            c[o][r] -= t[o] * ub[r];
            u[o][r] += h[o] * zb[r];
        }
    }
}

/// `C_qi -= t ub_q`, `U_qi += h zb_q` on one query's rows of column `i`.
#[inline(always)]
pub(super) fn update_column(cq: &mut [f64], uq: &mut [f64], ub: &[f64], zb: &[f64], t: f64, h: f64) {
    cq.iter_mut().zip(ub).for_each(|(cv, u)| *cv -= t * u);
    uq.iter_mut().zip(zb).for_each(|(uv, z)| *uv += h * z);
}
