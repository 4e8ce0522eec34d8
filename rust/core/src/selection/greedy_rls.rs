//! Greedy RankRLS (Pahikkala et al. 2010, Algorithm 1): greedy forward selection by the
//! exact leave-query-out (LQO) error, in O(k m n) time and two m x n caches.
//!
//! Notation (rows grouped by query, `Xc`/`yc` query-centred, `x_i` the centred column of
//! feature `i`, `S` the selected set, `alpha` the paper's lambda):
//!
//! ```text
//! G   = (Xc_S Xc_S^T + alpha I)^-1          m x m, never formed
//! a   = G yc                                 m        (dual coefficients, eq. 6), never formed
//! C   = G Xc                                 m x n    (column i: G x_i)
//! B_q = (G_qq)^-1                            n_q x n_q, never formed
//! U   = blockdiag(B_q) C                     m x n    (column i, query q: B_q C_qi)
//! p   = blockdiag(B_q) a                     m        (Theorem 3.1: LQO residuals)
//! M   = Xc^T G Xc = Xc^T C                   n x n    (M_ij = x_i^T C_j)
//! r   = Xc^T a                               n
//! ```
//!
//! Theorem 3.1: the query-centred hold-out residuals of query `q` are `p_q = B_q a_q`, so the
//! LQO error is `sum_q ||p_q||^2` (eq. 7). Start: `G = I/alpha`, so `C = Xc/alpha`, `U = Xc`,
//! `p = yc`, `M = Xc^T Xc / alpha`, `r = Xc^T yc / alpha`.
//!
//! Adding feature `b` (`u = C_b`, `z = U_b`) is a rank-one update of `G` (Sherman-Morrison):
//! `G' = G - c u u^T` with `c = 1/(1 + M_bb)`. Then, with `d = c r_b`, per query
//! `s1_q = u_q^T z_q`, `s2_q = u_q^T p_q` and `f_q = c / (1 - c s1_q)` (Sherman-Morrison on
//! the block, `B'_q = B_q + f_q z_q z_q^T`):
//!
//! ```text
//! p'_q  = p_q + (f_q (s2_q - d s1_q) - d) z_q
//! t_i   = c M_bi                   C'_i  = C_i - t_i u
//! U'_qi = U_qi + (f_q (z_q^T C_qi - t_i s1_q) - t_i) z_q
//! M'    = M - c M_:b M_b:          r'    = r - d M_:b
//! ```
//!
//! Candidate `i` then gives `p''_q = p'_q + g_qi U'_qi` with `c_i = 1/(1 + M'_ii)`,
//! `d_i = c_i r'_i`, `g_qi = c_i (C'_qi^T p'_q - d_i C'_qi^T U'_qi) / (1 - c_i C'_qi^T U'_qi)
//! - d_i`. Keeping `M` and `r` (n x n, n) instead of `Xc` is what makes one step a single
//! pass: the update of this step and the candidate scan of the next read every `C_qi` and
//! `U_qi` once and write them once (~4 m n doubles per step), query by query while the
//! query's block is in L1. Memory: `X` plus `C` and `U` (2 m n doubles).
//!
//! Layout: rows are cut into query-aligned chunks of about [`CHUNK_ROWS`] rows, fixed by the
//! offsets alone; within a chunk, `C` and `U` are feature-major. A pass is parallel over
//! chunks and each chunk's per-feature terms are summed in chunk order, so results do not
//! depend on the number of threads.
//!
//! Weights: the model on `S` is solved in the primal, `w_S = (Xc_S^T Xc_S + alpha I)^-1
//! Xc_S^T yc` (eq. 5), from the Gram matrix `Xc^T Xc` computed once and a Cholesky factor
//! grown by one row per step; this stays accurate for tiny `alpha`, where the dual
//! `Xc_S^T a` (eq. 6) loses digits.
//!
//! `1 - c s1_q > 0` whenever `alpha > 0` (`G'_qq` is positive definite), so no block is
//! singular: a single-document query has a zero centred row and contributes nothing.
//! Features constant within every query (zero centred column) cannot change the model:
//! they are never candidates, and the path stops when only such features are left.

use faer::{Accum, Mat, MatRef, Par};
use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;

use crate::data::groups::QueryOffsets;
use crate::error::{check_memory, Result};
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::metrics::{query_metric_with, MetricSpec, Scratch};

/// Target number of rows per chunk (whole queries; a longer query is a chunk of its own).
pub const CHUNK_ROWS: usize = 2048;
/// Number of fixed chunk groups the set-up (centring, Gram matrix) is parallel over.
const SETUP_GROUPS: usize = 16;

/// Per-worker scratch of a criterion.
#[derive(Default)]
pub struct CriterionScratch {
    metric: Scratch,
    scores: Vec<f64>,
}

/// How candidates are compared: a sum of per-query terms of the LQO residuals.
pub trait Criterion: Sync {
    /// Term of one query whose query-centred LQO residuals are `p + g z`; `yc` are the
    /// query's centred labels, `y` its raw labels (hold-out scores are `yc - p - g z`).
    fn query_term(&self, p: &[f64], g: f64, z: &[f64], yc: &[f64], y: &[f64], scratch: &mut CriterionScratch) -> f64;
    /// The criterion from the sum of the query terms.
    fn finish(&self, total: f64, n_queries: usize) -> f64;
    /// `true` when larger values are better.
    fn higher_is_better(&self) -> bool;
    /// `true` when the labels must be relevance grades (>= 0).
    fn needs_grades(&self) -> bool {
        false
    }
}

/// The paper's criterion: the sum of squared query-centred hold-out residuals (eq. 7).
#[derive(Clone, Copy, Debug, Default)]
pub struct Squared;

impl Criterion for Squared {
    fn query_term(&self, p: &[f64], g: f64, z: &[f64], _: &[f64], _: &[f64], _: &mut CriterionScratch) -> f64 {
        sq_norm_axpy(p, g, z)
    }
    fn finish(&self, total: f64, _: usize) -> f64 {
        total
    }
    fn higher_is_better(&self) -> bool {
        false
    }
}

/// A ranking measure on the exact LQO predictions (ours, not in the paper): the mean over
/// queries of `metric(labels_q, yc_q - p_q)`, where `yc_q - p_q = Xc_q w_{-q}` are the
/// hold-out scores up to a per-query constant (which no ranking measure sees). Higher is
/// better. Labels must be >= 0.
#[derive(Clone, Copy, Debug)]
pub struct MetricCriterion(pub MetricSpec);

impl Criterion for MetricCriterion {
    fn query_term(&self, p: &[f64], g: f64, z: &[f64], yc: &[f64], y: &[f64], s: &mut CriterionScratch) -> f64 {
        s.scores.clear();
        s.scores.extend(p.iter().zip(z).zip(yc).map(|((pv, zv), yv)| yv - (pv + g * zv)));
        query_metric_with(&self.0, y, &s.scores, &mut s.metric)
    }
    fn finish(&self, total: f64, n_queries: usize) -> f64 {
        total / n_queries as f64
    }
    fn higher_is_better(&self) -> bool {
        true
    }
    fn needs_grades(&self) -> bool {
        true
    }
}

/// Options of [`greedy_rankrls`].
#[derive(Clone, Debug)]
pub struct GreedyOptions {
    /// Number of features to select, 1 <= k <= n.
    pub k: usize,
    /// Ridge parameter (the paper's lambda), > 0.
    pub alpha: f64,
    /// Early stop: after the first step, stop before adding a feature whose criterion
    /// improves on the previous step's by less than `tol * |previous|`.
    pub tol: Option<f64>,
    /// Memory limit in bytes for the caches (`None`: unchecked).
    pub memory_limit: Option<u64>,
}

/// Why a path has fewer than `k` steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The `tol` rule.
    Tol,
    /// Every remaining feature is constant within every query: none can change the model.
    Uninformative,
    /// No remaining candidate fits the budget ([`crate::selection::cost_greedy`]).
    Budget,
}

/// Result of a greedy run.
#[derive(Clone, Debug)]
pub struct GreedyPath {
    /// Selected features in order (0-based).
    pub selected: Vec<usize>,
    /// Criterion value after each step.
    pub errors: Vec<f64>,
    /// Weights of the model of every prefix, shape (steps, n), zeros outside the prefix.
    pub coef_path: Array2<f64>,
    /// Why the path stopped before `k` steps (`None`: it has `k`).
    pub stop: Option<Stop>,
}

impl GreedyPath {
    /// The path from the weights of every prefix (`coef_rows`, each of length `n`).
    pub(crate) fn from_rows(
        selected: Vec<usize>,
        errors: Vec<f64>,
        coef_rows: Vec<Vec<f64>>,
        n: usize,
        stop: Option<Stop>,
    ) -> Self {
        let steps = coef_rows.len();
        let coef_path = Array2::from_shape_vec((steps, n), coef_rows.concat()).expect("every prefix has n weights");
        GreedyPath { selected, errors, coef_path, stop }
    }
}

/// Query-aligned row chunks, fixed by the offsets alone.
struct Chunks {
    /// Row starts, length `n_chunks + 1`.
    rows: Vec<usize>,
    /// Query index starts, length `n_chunks + 1`.
    queries: Vec<usize>,
}

impl Chunks {
    fn new(offsets: &[usize]) -> Self {
        let nq = offsets.len() - 1;
        let (mut rows, mut queries) = (vec![0], vec![0]);
        for q in 0..nq {
            if offsets[q + 1] - rows[rows.len() - 1] >= CHUNK_ROWS || q + 1 == nq {
                rows.push(offsets[q + 1]);
                queries.push(q + 1);
            }
        }
        Chunks { rows, queries }
    }

    fn len(&self) -> usize {
        self.rows.len() - 1
    }

    /// `v` (chunk-major, n values per row) cut into one mutable block per chunk.
    fn split<'a>(&self, mut v: &'a mut [f64], n: usize) -> Vec<&'a mut [f64]> {
        let mut out = Vec::with_capacity(self.len());
        for k in 0..self.len() {
            let (head, tail) = v.split_at_mut(n * (self.rows[k + 1] - self.rows[k]));
            out.push(head);
            v = tail;
        }
        out
    }
}

/// The effect of adding feature `b` on every other feature (module docs).
pub struct Step {
    t: Vec<f64>,
    s1: Vec<f64>,
    f: Vec<f64>,
    ub: Vec<f64>,
    zb: Vec<f64>,
}

/// The caches of Algorithm 1 (module docs).
pub struct GreedyState {
    n: usize,
    offsets: Vec<usize>,
    chunks: Chunks,
    /// `C = G Xc`, chunk-major, feature-major within a chunk.
    c: Vec<f64>,
    /// `U = blockdiag(B_q) C`, same layout.
    u: Vec<f64>,
    p: Vec<f64>,
    yc: Vec<f64>,
    /// `Xc^T Xc` and `Xc^T yc`.
    gram: Mat<f64>,
    xty: Vec<f64>,
    /// `M = Xc^T G Xc` and `r = Xc^T a`.
    mm: Mat<f64>,
    r: Vec<f64>,
    /// `false` for features constant within every query.
    informative: Vec<bool>,
    alpha: f64,
}

/// Bytes [`GreedyState::new`] allocates for `m` rows and `n` features.
pub fn state_bytes(m: usize, n: usize) -> u128 {
    let (m, n) = (m as u128, n as u128);
    let chunks = m / CHUNK_ROWS as u128 + 2;
    8 * (2 * m * n + (SETUP_GROUPS as u128 + 4) * n * n + chunks * n + 6 * m)
}

/// Centres `col` per query (the offsets relative to `col`); a query whose values are all
/// equal becomes exactly zero. Returns whether any value is non-zero.
pub(crate) fn center_exact(col: &mut [f64], local: &[(usize, usize)]) -> bool {
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

impl GreedyState {
    /// Caches for `S = {}` (`G = I/alpha`) from grouped, validated `x` (m x n) and `y`.
    pub fn new(x: ArrayView2<f64>, y: &[f64], offsets: &QueryOffsets, alpha: f64) -> Self {
        let (m, n) = x.dim();
        let chunks = Chunks::new(offsets);
        let nc = chunks.len();
        let mut yc = y.to_vec();
        let all: Vec<(usize, usize)> = offsets.windows(2).map(|w| (w[0], w[1])).collect();
        center_exact(&mut yc, &all);
        let mut c = vec![0.0; m * n];
        let mut u = vec![0.0; m * n];
        let inv = 1.0 / alpha;
        // Fixed groups of whole chunks (contiguous rows): centring, `C`, and the group's
        // share of `Xc^T Xc` and `Xc^T yc` while its block is hot.
        let groups = SETUP_GROUPS.min(nc);
        let bounds: Vec<usize> = (0..=groups).map(|g| g * nc / groups).collect();
        let (mut cs, mut us) = (Vec::with_capacity(groups), Vec::with_capacity(groups));
        {
            let (mut cr, mut ur): (&mut [f64], &mut [f64]) = (&mut c, &mut u);
            for g in 0..groups {
                let len = n * (chunks.rows[bounds[g + 1]] - chunks.rows[bounds[g]]);
                let (ch, ct) = std::mem::take(&mut cr).split_at_mut(len);
                let (uh, ut) = std::mem::take(&mut ur).split_at_mut(len);
                cs.push(ch);
                us.push(uh);
                cr = ct;
                ur = ut;
            }
        }
        let chunks_ref = &chunks;
        let yc_ref = &yc;
        let parts: Vec<(Mat<f64>, Vec<f64>, Vec<bool>)> = cs
            .into_par_iter()
            .zip(us)
            .enumerate()
            .map(|(g, (cg, ug))| {
                let mut gram = Mat::<f64>::zeros(n, n);
                let mut xty = vec![0.0; n];
                let mut nonzero = vec![false; n];
                let (mut cg, mut ug) = (cg, ug);
                for k in bounds[g]..bounds[g + 1] {
                    let (r0, r1) = (chunks_ref.rows[k], chunks_ref.rows[k + 1]);
                    let len = r1 - r0;
                    let (cb, ct) = std::mem::take(&mut cg).split_at_mut(n * len);
                    let (ub, ut) = std::mem::take(&mut ug).split_at_mut(n * len);
                    cg = ct;
                    ug = ut;
                    for r in 0..len {
                        let row = x.row(r0 + r);
                        for (i, v) in row.iter().enumerate() {
                            ub[i * len + r] = *v;
                        }
                    }
                    let local: Vec<(usize, usize)> = (chunks_ref.queries[k]..chunks_ref.queries[k + 1])
                        .map(|q| (offsets[q] - r0, offsets[q + 1] - r0))
                        .collect();
                    for i in 0..n {
                        let col = &mut ub[i * len..(i + 1) * len];
                        nonzero[i] |= center_exact(col, &local);
                        xty[i] += dot(col, &yc_ref[r0..r1]);
                        cb[i * len..(i + 1) * len].iter_mut().zip(col.iter()).for_each(|(cv, xv)| *cv = xv * inv);
                    }
                    let a = MatRef::from_row_major_slice(ub, n, len);
                    faer::linalg::matmul::matmul(gram.as_mut(), Accum::Add, a, a.transpose(), 1.0, Par::Seq);
                }
                (gram, xty, nonzero)
            })
            .collect();
        let mut gram = Mat::<f64>::zeros(n, n);
        let mut xty = vec![0.0; n];
        let mut informative = vec![false; n];
        for (g, v, nz) in &parts {
            gram += g;
            xty.iter_mut().zip(v).for_each(|(a, b)| *a += b);
            informative.iter_mut().zip(nz).for_each(|(a, b)| *a |= b);
        }
        // Exactly symmetric (the lower triangle is kept).
        for i in 0..n {
            for j in 0..i {
                gram[(j, i)] = gram[(i, j)];
            }
        }
        let mm = Mat::<f64>::from_fn(n, n, |i, j| gram[(i, j)] * inv);
        let r = xty.iter().map(|v| v * inv).collect();
        let p = yc.clone();
        GreedyState { n, offsets: offsets.to_vec(), chunks, c, u, p, yc, gram, xty, mm, r, informative, alpha }
    }

    /// `false` for the features constant within every query (zero centred column).
    pub fn informative(&self) -> &[bool] {
        &self.informative
    }

    /// Column `i` of a chunk-major cache, gathered into one length-m vector.
    fn column(&self, v: &[f64], i: usize) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.p.len());
        for k in 0..self.chunks.len() {
            let (r0, r1) = (self.chunks.rows[k], self.chunks.rows[k + 1]);
            let len = r1 - r0;
            out.extend_from_slice(&v[n_off(self.n, r0) + i * len..n_off(self.n, r0) + (i + 1) * len]);
        }
        out
    }

    /// Adds feature `b` to `S`: updates `p`, `M`, `r` and returns what the pass needs to
    /// update `C` and `U` ([`GreedyState::pass`]).
    pub fn select(&mut self, b: usize) -> Step {
        let n = self.n;
        let ub = self.column(&self.c, b);
        let zb = self.column(&self.u, b);
        let c = 1.0 / (1.0 + self.mm[(b, b)]);
        let d = c * self.r[b];
        let nq = self.offsets.len() - 1;
        let (mut s1, mut f) = (Vec::with_capacity(nq), Vec::with_capacity(nq));
        for w in self.offsets.windows(2) {
            let (s, e) = (w[0], w[1]);
            let s1q = dot(&ub[s..e], &zb[s..e]);
            let s2q = dot(&ub[s..e], &self.p[s..e]);
            let fq = c / (1.0 - c * s1q);
            let g = fq * (s2q - d * s1q) - d;
            self.p[s..e].iter_mut().zip(&zb[s..e]).for_each(|(p, z)| *p += g * z);
            s1.push(s1q);
            f.push(fq);
        }
        let mb: Vec<f64> = (0..n).map(|i| self.mm[(b, i)]).collect();
        let t: Vec<f64> = mb.iter().map(|v| c * v).collect();
        for j in 0..n {
            for i in 0..n {
                self.mm[(i, j)] -= c * mb[i] * mb[j];
            }
        }
        self.r.iter_mut().zip(&mb).for_each(|(r, m)| *r -= d * m);
        Step { t, s1, f, ub, zb }
    }

    /// One pass over `C` and `U`: applies `step` (if any) to every feature not in `skip`,
    /// then returns the criterion after adding each such feature (`None` for `skip`).
    /// Parallel over chunks; `y` are the raw grouped labels.
    pub fn pass(
        &mut self,
        step: Option<&Step>,
        y: &[f64],
        criterion: &dyn Criterion,
        skip: &[bool],
    ) -> Vec<Option<f64>> {
        let n = self.n;
        let coefs: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let ci = 1.0 / (1.0 + self.mm[(i, i)]);
                (ci, ci * self.r[i])
            })
            .collect();
        let chunks = &self.chunks;
        let (offsets, p, yc) = (&self.offsets, &self.p, &self.yc);
        let cb = chunks.split(&mut self.c, n);
        let ubl = chunks.split(&mut self.u, n);
        let parts: Vec<Vec<f64>> = cb
            .into_par_iter()
            .zip(ubl)
            .enumerate()
            .map_init(CriterionScratch::default, |scratch, (k, (cc, uu))| {
                let r0 = chunks.rows[k];
                let len = chunks.rows[k + 1] - r0;
                let mut out = vec![0.0; n];
                for i in (0..n).filter(|&i| !skip[i]) {
                    let ci_ = &mut cc[i * len..(i + 1) * len];
                    let ui_ = &mut uu[i * len..(i + 1) * len];
                    let (cf, df) = coefs[i];
                    let mut total = 0.0;
                    for q in chunks.queries[k]..chunks.queries[k + 1] {
                        let (s, e) = (offsets[q], offsets[q + 1]);
                        let cq = &mut ci_[s - r0..e - r0];
                        let uq = &mut ui_[s - r0..e - r0];
                        let pq = &p[s..e];
                        let (s1, s2) = match step {
                            Some(st) => {
                                let (ubq, zbq) = (&st.ub[s..e], &st.zb[s..e]);
                                let t = st.t[i];
                                let h = st.f[q] * (dot(zbq, cq) - t * st.s1[q]) - t;
                                fused_update(cq, uq, ubq, zbq, pq, t, h)
                            }
                            None => (dot(cq, uq), dot(cq, pq)),
                        };
                        let g = cf * (s2 - df * s1) / (1.0 - cf * s1) - df;
                        total += criterion.query_term(pq, g, uq, &yc[s..e], &y[s..e], scratch);
                    }
                    out[i] = total;
                }
                out
            })
            .collect();
        let nq = offsets.len() - 1;
        (0..n)
            .map(|i| {
                if skip[i] {
                    None
                } else {
                    Some(criterion.finish(parts.iter().map(|v| v[i]).fold(0.0, |a, b| a + b), nq))
                }
            })
            .collect()
    }
}

/// Offset of row `r0`'s chunk block in a chunk-major cache.
fn n_off(n: usize, r0: usize) -> usize {
    n * r0
}

/// `C_q -= t u_q`, `U_q += h z_q`, returning `(C'_q^T U'_q, C'_q^T p_q)` in the lane order
/// of [`dot`].
#[inline]
fn fused_update(c: &mut [f64], u: &mut [f64], ub: &[f64], zb: &[f64], p: &[f64], t: f64, h: f64) -> (f64, f64) {
    let n4 = c.len() - c.len() % 4;
    let (mut a1, mut a2) = ([0.0f64; 4], [0.0f64; 4]);
    let (c4, cr) = c.split_at_mut(n4);
    let (u4, ur) = u.split_at_mut(n4);
    for ((((cv, uv), ubv), zbv), pv) in c4
        .chunks_exact_mut(4)
        .zip(u4.chunks_exact_mut(4))
        .zip(ub.chunks_exact(4))
        .zip(zb.chunks_exact(4))
        .zip(p.chunks_exact(4))
    {
        for l in 0..4 {
            let cn = cv[l] - t * ubv[l];
            let un = uv[l] + h * zbv[l];
            cv[l] = cn;
            uv[l] = un;
            a1[l] += cn * un;
            a2[l] += cn * pv[l];
        }
    }
    let mut s1 = (a1[0] + a1[1]) + (a1[2] + a1[3]);
    let mut s2 = (a2[0] + a2[1]) + (a2[2] + a2[3]);
    for (j, (cv, uv)) in cr.iter_mut().zip(ur.iter_mut()).enumerate() {
        let k = n4 + j;
        *cv -= t * ub[k];
        *uv += h * zb[k];
        s1 += *cv * *uv;
        s2 += *cv * p[k];
    }
    (s1, s2)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    // Four accumulators: vectorisable and still a fixed order.
    let mut acc = [0.0f64; 4];
    let (ca, ra) = a.split_at(a.len() - a.len() % 4);
    let (cb, rb) = b.split_at(ca.len());
    for (x, y) in ca.chunks_exact(4).zip(cb.chunks_exact(4)) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// `||p + g z||^2` with four accumulators.
#[inline]
fn sq_norm_axpy(p: &[f64], g: f64, z: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let n4 = p.len() - p.len() % 4;
    for (pv, zv) in p[..n4].chunks_exact(4).zip(z[..n4].chunks_exact(4)) {
        for l in 0..4 {
            let r = pv[l] + g * zv[l];
            acc[l] += r * r;
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (pv, zv) in p[n4..].iter().zip(&z[n4..]) {
        let r = pv + g * zv;
        s += r * r;
    }
    s
}

/// `true` when `new` is better than `best` (NaN is never better).
fn better(new: f64, best: f64, higher: bool) -> bool {
    if higher {
        new > best
    } else {
        new < best
    }
}

/// Primal weights of the selected prefix (module docs): a Cholesky factor of
/// `Xc_S^T Xc_S + alpha I` grown by one row per step.
pub(crate) struct PrimalPath {
    l: Mat<f64>,
    k: usize,
}

impl PrimalPath {
    pub(crate) fn new(n: usize) -> Self {
        PrimalPath { l: Mat::zeros(n, n), k: 0 }
    }

    /// Appends feature `b` (after `selected`) and returns the weights on `selected + [b]`.
    pub(crate) fn push(&mut self, st: &GreedyState, selected: &[usize], b: usize) -> Vec<f64> {
        let k = self.k;
        // Row k of L: solve L_kk l = Gram[S, b]; pivot = Gram_bb + alpha - l^T l (>= alpha
        // in exact arithmetic).
        let mut l = Mat::<f64>::from_fn(k, 1, |j, _| st.gram[(selected[j], b)]);
        faer::linalg::triangular_solve::solve_lower_triangular_in_place(
            self.l.as_ref().submatrix(0, 0, k, k),
            l.as_mut(),
            Par::Seq,
        );
        let ll: f64 = (0..k).map(|j| l[(j, 0)] * l[(j, 0)]).sum();
        let pivot = (st.gram[(b, b)] + st.alpha - ll).max(st.alpha);
        for j in 0..k {
            self.l[(k, j)] = l[(j, 0)];
        }
        self.l[(k, k)] = pivot.sqrt();
        self.k = k + 1;
        let lk = self.l.as_ref().submatrix(0, 0, k + 1, k + 1);
        let mut w = Mat::<f64>::from_fn(k + 1, 1, |j, _| {
            let f = if j < k { selected[j] } else { b };
            st.xty[f]
        });
        faer::linalg::triangular_solve::solve_lower_triangular_in_place(lk, w.as_mut(), Par::Seq);
        faer::linalg::triangular_solve::solve_upper_triangular_in_place(lk.transpose(), w.as_mut(), Par::Seq);
        let mut out = vec![0.0; st.n];
        for j in 0..=k {
            out[if j < k { selected[j] } else { b }] = w[(j, 0)];
        }
        out
    }
}

/// Greedy RankRLS on grouped `x` (m x n, rows contiguous per query as in `offsets`).
///
/// `progress(step, feature, value)` is called on the calling thread after every step.
#[allow(clippy::too_many_arguments)]
pub fn greedy_rankrls(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    opts: &GreedyOptions,
    criterion: &dyn Criterion,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<GreedyPath> {
    let (m, n) = x.dim();
    if y.len() != m {
        return invalid!("y has {} entries but X has {m} rows", y.len());
    }
    offsets.check_rows(m, "X")?;
    if offsets.len() < 3 {
        return invalid!("leave-query-out needs at least two queries (qid), got {}", offsets.len() - 1);
    }
    if opts.k < 1 || opts.k > n {
        return invalid!("n_features_to_select must be in [1, n_features = {n}], got {}", opts.k);
    }
    let alpha = opts.alpha;
    if !(alpha.is_finite() && alpha > 0.0) {
        return invalid!("alpha must be > 0 and finite, got {alpha}");
    }
    if let Some(t) = opts.tol {
        if !(t.is_finite() && t >= 0.0) {
            return invalid!("tol must be >= 0 and finite, got {t}");
        }
    }
    if x.iter().any(|v| !v.is_finite()) {
        return invalid!("X contains NaN or infinity");
    }
    if y.iter().any(|v| !v.is_finite()) {
        return invalid!("y contains NaN or infinity");
    }
    if criterion.needs_grades() && y.iter().any(|&v| v < 0.0) {
        return invalid!("y must be >= 0 (relevance grades) for a ranking-measure criterion");
    }
    if let Some(limit) = opts.memory_limit {
        check_memory(
            &format!("the greedy RankRLS caches C and U for {m} rows x {n} features (2 x {m} x {n} float64)"),
            state_bytes(m, n),
            limit,
            "select on fewer rows or features (e.g. a sample of the queries), or raise the limit with \
             rankselect.set_config(max_memory=...)",
        )?;
    }

    interrupt.check()?;
    let mut st = GreedyState::new(x, y, offsets, alpha);
    let higher = criterion.higher_is_better();
    let mut selected: Vec<usize> = Vec::with_capacity(opts.k);
    // Selected features and features that cannot change the model are never candidates.
    let mut skip: Vec<bool> = st.informative().iter().map(|v| !v).collect();
    let mut errors: Vec<f64> = Vec::with_capacity(opts.k);
    let mut coef_rows: Vec<Vec<f64>> = Vec::with_capacity(opts.k);
    let mut primal = PrimalPath::new(n);
    let mut stop = None;
    interrupt.check()?;
    let mut values = st.pass(None, y, criterion, &skip);
    for step in 0..opts.k {
        // Best candidate, ties to the lowest index; NaN values never win.
        let mut best: Option<(usize, f64)> = None;
        let mut any = false;
        for (i, v) in values.iter().enumerate() {
            if let Some(v) = *v {
                any = true;
                match best {
                    None if !v.is_nan() => best = Some((i, v)),
                    Some((_, bv)) if better(v, bv, higher) => best = Some((i, v)),
                    _ => {}
                }
            }
        }
        if !any {
            stop = Some(Stop::Uninformative);
            break;
        }
        let Some((b, value)) = best else {
            return invalid!("no candidate feature gives a finite leave-query-out criterion");
        };
        if let (Some(t), Some(&prev)) = (opts.tol, errors.last()) {
            let gain = if higher { value - prev } else { prev - value };
            if gain < t * prev.abs() {
                stop = Some(Stop::Tol);
                break;
            }
        }
        coef_rows.push(primal.push(&st, &selected, b));
        selected.push(b);
        errors.push(value);
        skip[b] = true;
        progress(step, b, value)?;
        if step + 1 < opts.k {
            interrupt.check()?;
            // The update of this step fused with the candidate scan of the next.
            let upd = st.select(b);
            values = st.pass(Some(&upd), y, criterion, &skip);
        }
    }
    Ok(GreedyPath::from_rows(selected, errors, coef_rows, n, stop))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use crate::models::rankrls::tests::{naive_lqo, problem};

    fn qo(off: &[usize]) -> QueryOffsets {
        QueryOffsets::new(off.to_vec()).unwrap()
    }

    fn run(x: &Array2<f64>, y: &[f64], off: &[usize], k: usize, alpha: f64) -> GreedyPath {
        let opts = GreedyOptions { k, alpha, tol: None, memory_limit: None };
        greedy_rankrls(x.view(), y, &qo(off), &opts, &Squared, &NoInterrupt, &mut |_, _, _| Ok(())).unwrap()
    }

    /// Brute-force greedy: for every candidate set, delete each query, re-centre, solve.
    fn naive_greedy(x: &Array2<f64>, y: &[f64], off: &[usize], k: usize, alpha: f64) -> (Vec<usize>, Vec<f64>) {
        let n = x.ncols();
        let mut sel: Vec<usize> = Vec::new();
        let mut errs = Vec::new();
        for _ in 0..k {
            let mut best: Option<(usize, f64)> = None;
            for i in (0..n).filter(|i| !sel.contains(i)) {
                let constant = off.windows(2).all(|w| (w[0]..w[1]).all(|r| x[(r, i)] == x[(w[0], i)]));
                if constant {
                    continue;
                }
                let mut feats = sel.clone();
                feats.push(i);
                let (e, _) = naive_lqo(x, y, off, &feats, alpha);
                if best.map_or(true, |(_, be)| e < be * (1.0 - 1e-12)) {
                    best = Some((i, e));
                }
            }
            let (b, e) = best.unwrap();
            sel.push(b);
            errs.push(e);
        }
        (sel, errs)
    }

    #[test]
    fn matches_brute_force() {
        for seed in 1..6u64 {
            let (x, y, off) = problem(seed, &[5, 1, 7, 3, 4, 6, 2], 6);
            let path = run(&x, &y, &off, 6, 0.5);
            let (sel, errs) = naive_greedy(&x, &y, &off, 6, 0.5);
            assert_eq!(path.selected, sel);
            for (a, b) in path.errors.iter().zip(&errs) {
                assert!((a - b).abs() <= 1e-9 * b.abs(), "{a} vs {b}");
            }
            // Final model equals the direct solve on the selected features.
            let w = crate::models::rankrls::fit(x.view(), &y, &qo(&off), 0.5).unwrap();
            let last = path.coef_path.row(5);
            for j in 0..6 {
                assert!((last[j] - w[j]).abs() <= 1e-9 * (1.0 + w[j].abs()));
            }
        }
    }

    #[test]
    fn constant_and_duplicate_features() {
        let (mut x, y, off) = problem(7, &[4, 3, 5, 1, 4], 5);
        for r in 0..x.nrows() {
            x[(r, 1)] = 3.0; // constant
            x[(r, 4)] = x[(r, 2)]; // duplicate of 2
        }
        let path = run(&x, &y, &off, 5, 1.0);
        let p2 = path.selected.iter().position(|&f| f == 2).unwrap();
        let p4 = path.selected.iter().position(|&f| f == 4).unwrap();
        assert!(p2 < p4);
        assert!(path.errors.iter().all(|e| e.is_finite()));
        // The constant feature cannot change the model: never selected, the path stops.
        assert_eq!(path.selected.len(), 4);
        assert!(!path.selected.contains(&1));
        assert_eq!(path.stop, Some(Stop::Uninformative));
        assert_eq!(path.coef_path.nrows(), 4);
    }

    #[test]
    fn constant_within_every_query_only() {
        // Feature 0 varies across queries but is constant within each: zero centred column.
        let (mut x, y, off) = problem(9, &[4, 3, 5, 2], 3);
        for (q, w) in off.windows(2).enumerate() {
            for r in w[0]..w[1] {
                x[(r, 0)] = 0.1 * (q as f64 + 1.0);
            }
        }
        let path = run(&x, &y, &off, 3, 1.0);
        assert_eq!(path.selected.len(), 2);
        assert!(!path.selected.contains(&0));
        // Nothing informative at all: an empty path.
        let x0 = Array2::<f64>::from_elem((off[off.len() - 1], 2), 2.5);
        let path = run(&x0, &y, &off, 2, 1.0);
        assert!(path.selected.is_empty() && path.coef_path.nrows() == 0);
        assert_eq!(path.stop, Some(Stop::Uninformative));
    }

    #[test]
    fn thread_count_does_not_change_results() {
        // Several chunks (queries of 300 rows > CHUNK_ROWS / 8) and several threads.
        let sizes = vec![300usize; 20];
        let (x, y, off) = problem(5, &sizes, 9);
        let a = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| run(&x, &y, &off, 6, 0.3));
        let b = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap().install(|| run(&x, &y, &off, 6, 0.3));
        assert_eq!(a.selected, b.selected);
        assert_eq!(a.errors, b.errors);
        assert_eq!(a.coef_path, b.coef_path);
    }

    #[test]
    fn memory_limit_refuses_before_allocating() {
        let (x, y, off) = problem(2, &[3, 3], 3);
        let opts = GreedyOptions { k: 2, alpha: 1.0, tol: None, memory_limit: Some(100) };
        let e =
            greedy_rankrls(x.view(), &y, &qo(&off), &opts, &Squared, &NoInterrupt, &mut |_, _, _| Ok(())).unwrap_err();
        assert!(matches!(e, crate::Error::Memory { .. }), "{e}");
    }

    #[test]
    fn metric_criterion_matches_brute_force() {
        use crate::metrics::{query_metric, Measure};
        let (x, y, off) = problem(21, &[5, 4, 7, 3, 6, 6], 5);
        let spec = MetricSpec::new(Measure::Ndcg(Some(3)));
        let opts = GreedyOptions { k: 3, alpha: 0.5, tol: None, memory_limit: None };
        let path =
            greedy_rankrls(x.view(), &y, &qo(&off), &opts, &MetricCriterion(spec), &NoInterrupt, &mut |_, _, _| Ok(()))
                .unwrap();
        let mut sel: Vec<usize> = Vec::new();
        for step in 0..3 {
            let mut best: Option<(usize, f64)> = None;
            for i in (0..5).filter(|i| !sel.contains(i)) {
                let mut feats = sel.clone();
                feats.push(i);
                let (_, preds) = naive_lqo(&x, &y, &off, &feats, 0.5);
                let v: f64 =
                    off.windows(2).map(|w| query_metric(&spec, &y[w[0]..w[1]], &preds[w[0]..w[1]])).sum::<f64>()
                        / (off.len() - 1) as f64;
                if best.map_or(true, |(_, bv)| v > bv + 1e-12) {
                    best = Some((i, v));
                }
            }
            let (b, v) = best.unwrap();
            assert!((path.errors[step] - v).abs() < 1e-12, "{} vs {v}", path.errors[step]);
            assert_eq!(path.selected[step], b);
            sel.push(b);
        }
    }

    #[test]
    fn bad_input() {
        let (x, y, off) = problem(2, &[3, 3], 3);
        let mut noop = |_: usize, _: usize, _: f64| Ok(());
        for (k, alpha) in [(0, 1.0), (4, 1.0), (2, 0.0), (2, -1.0)] {
            let opts = GreedyOptions { k, alpha, tol: None, memory_limit: None };
            assert!(greedy_rankrls(x.view(), &y, &qo(&off), &opts, &Squared, &NoInterrupt, &mut noop).is_err());
        }
    }
}
