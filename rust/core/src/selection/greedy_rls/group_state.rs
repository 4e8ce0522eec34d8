//! The caches of greedy RankRLS over groups ([`super::group`]) and their rank-`b` step:
//! each candidate group's criterion ([`GroupState::score`]) and the update that adds a group
//! ([`GroupState::add`]), with the formulas of [`super::group`]'s module docs.

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatMut, MatRef, Par};
use ndarray::ArrayView2;
use rayon::prelude::*;

use super::criterion::{Criterion, CriterionScratch};
use crate::alloc;
use crate::data::groups::{center_exact, QueryOffsets};
use crate::error::Result;
use crate::linalg::{dot4, solve_small, solve_spd_small, split_by_offsets};

/// A small matrix of one query or one group (at most a query's rows x n): bounded by the
/// m x n caches already allocated fallibly.
fn small_mat(rows: usize, cols: usize, f: impl FnMut(usize, usize) -> f64) -> Mat<f64> {
    Mat::from_fn(rows, cols, f)
}

/// `Xc^T Xc` (n x n) of the centred columns `xc` (column-major m x n): the lower triangle
/// by blocks of [`GRAM_BLOCK`] columns, in parallel, then mirrored (each block's arithmetic
/// is the same whatever the number of threads).
fn gram_matrix(xc: &[f64], m: usize, n: usize) -> Result<Mat<f64>> {
    let xc = MatRef::from_column_major_slice(xc, m, n);
    let mut gram = alloc::try_mat_zeros(n, n, "group greedy RankRLS's Gram matrix")?;
    let blocks: Vec<(usize, Mat<f64>)> = (0..n)
        .step_by(GRAM_BLOCK)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|j0| {
            let w = GRAM_BLOCK.min(n - j0);
            let mut blk = small_mat(n - j0, w, |_, _| 0.0);
            matmul(blk.as_mut(), Accum::Replace, xc.subcols(j0, n - j0).transpose(), xc.subcols(j0, w), 1.0, Par::Seq);
            (j0, blk)
        })
        .collect();
    for (j0, blk) in blocks {
        for l in 0..blk.ncols() {
            for i in l..blk.nrows() {
                gram[(j0 + i, j0 + l)] = blk[(i, l)];
                gram[(j0 + l, j0 + i)] = blk[(i, l)];
            }
        }
    }
    Ok(gram)
}

/// Columns per block of [`gram_matrix`].
const GRAM_BLOCK: usize = 8;

/// Per-thread buffers of [`query_step`] (b x b and b), reused from query to query.
#[derive(Default)]
pub(super) struct StepScratch {
    s: Vec<f64>,
    r: Vec<f64>,
    w: Vec<f64>,
    v: Vec<f64>,
    pn: Vec<f64>,
    criterion: CriterionScratch,
}

/// One query's part of a group step (module docs), from the query's rows of the group's
/// columns of `C` (`cg(j)`) and `U` (`zg(j)`) and `p_q`: `S_q = Cg_q^T Zg_q` in `sc.s`
/// (row-major) and `v_q = W_q^-1 (Cg_q^T p_q - S_q h) - h` in `sc.v`, `W_q = K - S_q`.
fn query_step<'a>(
    cg: impl Fn(usize) -> &'a [f64],
    zg: impl Fn(usize) -> &'a [f64],
    pq: &[f64],
    k: &[f64],
    h: &[f64],
    sc: &mut StepScratch,
) {
    let b = h.len();
    // S_q is symmetric (`Cg_q^T B_q Cg_q`): the upper triangle, mirrored
    sc.s.clear();
    sc.s.resize(b * b, 0.0);
    for j in 0..b {
        for l in j..b {
            let d = dot4(cg(j), zg(l));
            sc.s[j * b + l] = d;
            sc.s[l * b + j] = d;
        }
    }
    sc.r.clear();
    sc.r.extend((0..b).map(|j| dot4(cg(j), pq) - (0..b).map(|l| sc.s[j * b + l] * h[l]).sum::<f64>()));
    sc.v.clone_from(&sc.r);
    sc.w.clear();
    sc.w.extend(k.iter().zip(&sc.s).map(|(a, s)| a - s));
    if !solve_spd_small(&mut sc.w, b, &mut sc.v, 1) {
        sc.v.clone_from(&sc.r);
        sc.w.clear();
        sc.w.extend(k.iter().zip(&sc.s).map(|(a, s)| a - s));
        solve_small(&mut sc.w, b, &mut sc.v, 1);
    }
    sc.v.iter_mut().zip(h).for_each(|(v, h)| *v -= h);
}

/// The caches of [`super`], feature-major (column `i` at `i m .. (i + 1) m`).
pub(super) struct GroupState {
    m: usize,
    n: usize,
    offsets: Vec<usize>,
    c: Vec<f64>,
    u: Vec<f64>,
    p: Vec<f64>,
    yc: Vec<f64>,
    pub(super) gram: Mat<f64>,
    pub(super) xty: Vec<f64>,
    mm: Mat<f64>,
    r: Vec<f64>,
    pub(super) informative: Vec<bool>,
    /// The columns whose caches `C`, `U` are kept, in their order there (column `cols[p]`
    /// at `p m .. (p + 1) m`): a selected group's columns are never read again, so `add`
    /// drops them (the later updates cost O(b m n_live), not O(b m n)).
    cols: Vec<usize>,
    /// `pos[j]`: where column `j`'s caches are (`usize::MAX` once dropped).
    pos: Vec<usize>,
}

impl GroupState {
    pub(super) fn new(x: ArrayView2<f64>, y: &[f64], offsets: &QueryOffsets, alpha: f64) -> Result<Self> {
        let (m, n) = x.dim();
        let ranges: Vec<(usize, usize)> = offsets.windows(2).map(|w| (w[0], w[1])).collect();
        let mut yc = alloc::try_copy(y, "group greedy RankRLS's centred labels")?;
        center_exact(&mut yc, &ranges);
        let mut u = alloc::try_zeroed_vec::<f64>(m.saturating_mul(n), "group greedy RankRLS's cache U")?;
        // the centred columns, their flags and `Xc^T yc`, column by column (in parallel)
        let facts: Vec<(bool, f64)> = u
            .par_chunks_mut(m.max(1))
            .enumerate()
            .map(|(i, col)| {
                col.iter_mut().zip(x.column(i)).for_each(|(d, s)| *d = *s);
                (center_exact(col, &ranges), dot4(col, &yc))
            })
            .collect();
        let (informative, xty): (Vec<bool>, Vec<f64>) =
            facts.into_iter().chain(std::iter::repeat((false, 0.0))).take(n).unzip();
        let gram = gram_matrix(&u, m, n)?;
        let inv = 1.0 / alpha;
        let c = alloc::try_from_fn(u.len(), |t| u[t] * inv, "group greedy RankRLS's cache C")?;
        let mm = alloc::try_mat(n, n, |i, j| gram[(i, j)] * inv, "group greedy RankRLS's matrix M")?;
        let r = xty.iter().map(|v| v * inv).collect();
        let p = yc.clone();
        let (cols, pos) = ((0..n).collect(), (0..n).collect());
        Ok(GroupState { m, n, offsets: offsets.to_vec(), c, u, p, yc, gram, xty, mm, r, informative, cols, pos })
    }

    /// `K = I + M_gg` (row-major) and `h = K^-1 r_g`.
    fn k_and_h(&self, g: &[usize]) -> (Vec<f64>, Vec<f64>) {
        let b = g.len();
        let k: Vec<f64> =
            (0..b * b).map(|t| self.mm[(g[t / b], g[t % b])] + if t / b == t % b { 1.0 } else { 0.0 }).collect();
        let mut h: Vec<f64> = g.iter().map(|&j| self.r[j]).collect();
        solve_small(&mut k.clone(), b, &mut h, 1);
        (k, h)
    }

    /// Drops the caches of `g`'s columns: the kept ones move left, in their order.
    fn drop_columns(&mut self, g: &[usize]) {
        let m = self.m;
        g.iter().for_each(|&j| self.pos[j] = usize::MAX);
        let kept: Vec<usize> = self.cols.iter().copied().filter(|&j| self.pos[j] != usize::MAX).collect();
        for (p, &j) in kept.iter().enumerate() {
            let old = self.pos[j];
            if old != p {
                self.c.copy_within(old * m..(old + 1) * m, p * m);
                self.u.copy_within(old * m..(old + 1) * m, p * m);
            }
            self.pos[j] = p;
        }
        self.cols = kept;
    }

    /// The criterion after adding group `g`.
    pub(super) fn score(&self, g: &[usize], y: &[f64], criterion: &dyn Criterion, sc: &mut StepScratch) -> f64 {
        let m = self.m;
        let (k, h) = self.k_and_h(g);
        let gp: Vec<usize> = g.iter().map(|&j| self.pos[j] * m).collect();
        let mut total = 0.0;
        for w in self.offsets.windows(2) {
            let (s, e) = (w[0], w[1]);
            let (c, u) = (&self.c, &self.u);
            query_step(|j| &c[gp[j] + s..gp[j] + e], |j| &u[gp[j] + s..gp[j] + e], &self.p[s..e], &k, &h, sc);
            let mut pn = std::mem::take(&mut sc.pn);
            pn.clear();
            pn.extend_from_slice(&self.p[s..e]);
            for (j, &o) in gp.iter().enumerate() {
                crate::linalg::axpy(sc.v[j], &u[o + s..o + e], &mut pn);
            }
            total += criterion.query_term(&pn, 0.0, &pn, &self.yc[s..e], &y[s..e], &mut sc.criterion);
            sc.pn = pn;
        }
        criterion.finish(total, self.offsets.len() - 1)
    }

    /// Adds group `g` to the model: the updates of the module docs. One pass over the
    /// queries (in parallel, each query's rows of `U` and `p` its own): `S_q`, `v_q`, `p'_q`,
    /// `W_q^-1` and `U'_q = U_q + Zg_q (W_q^-1 (Zg_q^T C_q - S_q T) - T)` as three small
    /// matrix products per query; then `C' = C - Cg T` column by column. Each query's and
    /// each column's arithmetic is the same whatever the number of threads.
    pub(super) fn add(&mut self, g: &[usize]) -> Result<()> {
        let (b, m, n) = (g.len(), self.m, self.n);
        let (k, h) = self.k_and_h(g);
        // T = K^-1 M_g: (b x n, row-major)
        let mut t: Vec<f64> = (0..b * n).map(|q| self.mm[(g[q / n], q % n)]).collect();
        solve_small(&mut k.clone(), b, &mut t, n);
        let (nl, gp): (usize, Vec<usize>) = (self.cols.len(), g.iter().map(|&j| self.pos[j]).collect());
        let tm = small_mat(b, nl, |j, p| t[j * n + self.cols[p]]);
        let cg: Vec<Vec<f64>> = gp.iter().map(|&p| self.c[p * m..(p + 1) * m].to_vec()).collect();
        {
            let offsets = &self.offsets;
            let c = MatRef::from_column_major_slice(&self.c[..m * nl], m, nl);
            let mut blocks = alloc::try_with_capacity(offsets.len() - 1, "group greedy RankRLS's query blocks")?;
            let mut rest = MatMut::from_column_major_slice_mut(&mut self.u[..m * nl], m, nl);
            for w in offsets.windows(2) {
                let (head, tail) = rest.split_at_row_mut(w[1] - w[0]);
                blocks.push(head);
                rest = tail;
            }
            let ps = split_by_offsets(&mut self.p, offsets);
            let cdata = &self.c;
            blocks.into_par_iter().zip(ps).enumerate().for_each_init(StepScratch::default, |sc, (q, (mut uq, pq))| {
                let (s, len) = (offsets[q], offsets[q + 1] - offsets[q]);
                let cq = c.subrows(s, len);
                let zbuf: Vec<f64> = (0..len * b).map(|t| uq[(t % len, gp[t / len])]).collect();
                let zgq = MatRef::from_column_major_slice(&zbuf, len, b);
                let cg = |j: usize| &cdata[gp[j] * m + s..gp[j] * m + s + len];
                query_step(cg, |j| &zbuf[j * len..(j + 1) * len], pq, &k, &h, sc);
                for (j, zj) in zbuf.chunks_exact(len.max(1)).enumerate() {
                    crate::linalg::axpy(sc.v[j], zj, pq);
                }
                let w: Vec<f64> = k.iter().zip(&sc.s).map(|(a, s)| a - s).collect();
                let eye = |_: ()| (0..b * b).map(|t| if t / b == t % b { 1.0 } else { 0.0 }).collect::<Vec<f64>>();
                let mut winv = eye(());
                if !solve_spd_small(&mut w.clone(), b, &mut winv, b) {
                    winv = eye(());
                    solve_small(&mut w.clone(), b, &mut winv, b);
                }
                let sq = MatRef::from_row_major_slice(&sc.s, b, b);
                // R = Zg_q^T C_q - S_q T; coef = W_q^-1 R - T; U'_q = U_q + Zg_q coef
                let mut rm = small_mat(b, nl, |_, _| 0.0);
                matmul(rm.as_mut(), Accum::Replace, zgq.transpose(), cq, 1.0, Par::Seq);
                matmul(rm.as_mut(), Accum::Add, sq, tm.as_ref(), -1.0, Par::Seq);
                let wm = MatRef::from_row_major_slice(&winv, b, b);
                let mut coef = small_mat(b, nl, |j, p| -tm[(j, p)]);
                matmul(coef.as_mut(), Accum::Add, wm, rm.as_ref(), 1.0, Par::Seq);
                matmul(uq.as_mut(), Accum::Add, zgq, coef.as_ref(), 1.0, Par::Seq);
            });
        }
        self.c[..m * nl].par_chunks_mut(m.max(1)).enumerate().for_each(|(p, cp)| {
            for j in 0..b {
                crate::linalg::axpy(-tm[(j, p)], &cg[j], cp);
            }
        });
        self.drop_columns(g);
        // M' = M - M_:g T, r' = r - M_:g h
        let mg: Vec<f64> = (0..n * b).map(|q| self.mm[(q / b, g[q % b])]).collect();
        for i in 0..n {
            for jj in 0..n {
                let d: f64 = (0..b).map(|l| mg[i * b + l] * t[l * n + jj]).sum();
                self.mm[(i, jj)] -= d;
            }
            self.r[i] -= (0..b).map(|l| mg[i * b + l] * h[l]).sum::<f64>();
        }
        Ok(())
    }

    /// The criterion of the empty model.
    pub(super) fn baseline(&self, y: &[f64], criterion: &dyn Criterion) -> f64 {
        let mut scratch = CriterionScratch::default();
        let total = self
            .offsets
            .windows(2)
            .map(|w| {
                let q = &self.yc[w[0]..w[1]];
                criterion.query_term(q, 0.0, q, q, &y[w[0]..w[1]], &mut scratch)
            })
            .fold(0.0, |a, b| a + b);
        criterion.finish(total, self.offsets.len() - 1)
    }
}
