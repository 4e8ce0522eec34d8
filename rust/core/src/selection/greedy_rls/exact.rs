//! The exact leave-query-out criterion of one set of columns `T`, computed from the data
//! without the caches' shortcut: the recomputation of greedy RankRLS where its updates lose
//! accuracy (small `alpha`; module docs of [`super`], "Exactness").
//!
//! By definition (eq. 7), the model without query `q` is the ridge fit on the other queries'
//! centred rows: `w_{-q} = argmin ||Xc_{-q} w - yc_{-q}||^2 + alpha ||w||^2`, and query `q`'s
//! term is that of its hold-out residuals `e_q = yc_q - Xc_q w_{-q}`. Each fit is solved as the
//! least-squares problem of the stacked matrix `[Xc_{-q} yc_{-q}; sqrt(alpha) I 0]` by a QR
//! factorisation (backward stable: no normal equations, whose rounding `eps ||Xc||^2` would be
//! divided by `alpha`), from R factors of blocks of queries (TSQR): `R_q` of each query's
//! `[Xc_q yc_q]`, the prefixes `P_q = qr([P_{q-1}; R_{q-1}])` (from `P_0 = [sqrt(alpha) I 0]`)
//! and the suffixes `S_q = qr([R_q; S_{q+1}])`, then `qr([P_q; S_{q+1}]) = [R11 r; 0 rho]` and
//! `w_{-q} = R11^-1 r`. With `c = |T| + 1` columns this is `O(m c^2 + Q c^3)` per set, against
//! `O(m)` for a candidate of the shortcut: the selector calls it only where the shortcut's
//! accuracy is in doubt.
//!
//! Wide sets (more columns `t` than rows `m`): the fits only see the set's row space, so the
//! criterion is computed on the coordinates `Z = R^T` (m x m) of the QR factorisation
//! `Xc_T^T = Q R` (`Xc_T = Z Q^T`, `Q` orthonormal: every hold-out ridge fit on `Xc_T` is the
//! one on `Z`, with the same residuals): `O(t m^2 + Q m^3)` instead of `O(Q t^3)`.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::qr::no_pivoting::factor::{qr_in_place, qr_in_place_scratch};
use faer::{MatMut, Par};
use ndarray::ArrayView2;
use rayon::prelude::*;

use super::criterion::{Criterion, CriterionScratch};
use crate::data::groups::center_exact;
use crate::error::Result;

/// Where a set's columns are read: the data's columns, or the set's row-space coordinates
/// `Z = R^T` of a wide set (module docs, "Wide sets"; m x k, column-major).
enum Source<'s> {
    Columns(&'s [usize]),
    Rows(&'s [f64], usize),
}

/// The exact criterion of any set of columns of grouped `x` (module docs).
pub(crate) struct ExactLqo<'a> {
    x: ArrayView2<'a, f64>,
    y: &'a [f64],
    yc: Vec<f64>,
    offsets: &'a [usize],
    alpha: f64,
    criterion: &'a dyn Criterion,
}

/// Per-thread buffers of [`ExactLqo::value`].
#[derive(Default)]
pub(crate) struct ExactScratch {
    /// One query's centred `[Xc_q,T yc_q]` (column-major), then a stack of two R factors.
    block: Vec<f64>,
    /// The suffix R factors `S_q` (c x c, column-major), `q = 0..=Q`.
    suf: Vec<f64>,
    /// The running prefix `P_q` and the current query's `R_q` (c x c).
    pre: Vec<f64>,
    pre2: Vec<f64>,
    rq: Vec<f64>,
    coeff: Vec<f64>,
    mem: Option<(MemBuffer, usize, usize)>,
    w: Vec<f64>,
    e: Vec<f64>,
    /// A wide set's row-space coordinates `Z` (m x m).
    z: Vec<f64>,
    crit: CriterionScratch,
}

impl<'a> ExactLqo<'a> {
    /// For grouped `x` (m x n), labels `y` and `offsets` (validated by the caller).
    pub(crate) fn new(
        x: ArrayView2<'a, f64>,
        y: &'a [f64],
        offsets: &'a [usize],
        alpha: f64,
        criterion: &'a dyn Criterion,
    ) -> Result<Self> {
        let mut yc = crate::alloc::try_copy(y, "the exact criterion's centred labels")?;
        let ranges: Vec<(usize, usize)> = offsets.windows(2).map(|w| (w[0], w[1])).collect();
        center_exact(&mut yc, &ranges);
        Ok(ExactLqo { x, y, yc, offsets, alpha, criterion })
    }

    /// The criterion of the model on the columns `cols` (module docs): on the columns, or,
    /// for a set of more columns than rows, on its row-space coordinates ([`ExactLqo::compress`]).
    pub(crate) fn value(&self, cols: &[usize], sc: &mut ExactScratch) -> Result<f64> {
        let m = self.yc.len();
        if cols.len() <= m {
            return self.value_of(&Source::Columns(cols), cols.len(), sc);
        }
        let mut z = std::mem::take(&mut sc.z);
        let k = self.compress(cols, &mut z, sc)?;
        let v = self.value_of(&Source::Rows(&z, k), k, sc);
        sc.z = z;
        v
    }

    /// `Z = R^T` (m x m, column-major into `z`) from the QR factorisation `Xc_T^T = Q R` of the
    /// set's centred columns: `Xc_T = Z Q^T` with orthonormal `Q`, so every hold-out ridge fit
    /// on `Xc_T` is the one on `Z` (`w = Q v`, `||w|| = ||v||`, `Xc_T w = Z v`). Returns `m`.
    fn compress(&self, cols: &[usize], z: &mut Vec<f64>, sc: &mut ExactScratch) -> Result<usize> {
        let (m, t) = (self.yc.len(), cols.len());
        // Xc_T^T, t x m column-major: column r is row r of the centred set
        let mut a = std::mem::take(&mut sc.block);
        resize(&mut a, t * m);
        for q in 0..self.offsets.len() - 1 {
            let (s, e) = (self.offsets[q], self.offsets[q + 1]);
            for (i, &j) in cols.iter().enumerate() {
                sc.e.clear();
                sc.e.extend((s..e).map(|r| self.x[(r, j)]));
                center_exact(&mut sc.e, &[(0, e - s)]);
                (s..e).zip(&sc.e).for_each(|(r, v)| a[r * t + i] = *v);
            }
        }
        sc.ensure(t, m)?;
        let mut rr = std::mem::take(&mut sc.rq);
        resize(&mut rr, m * m);
        r_factor(&mut a, t, m, &mut rr, &mut sc.coeff, &mut sc.mem);
        // Z = R^T: z[col i][row r] = R[i, r]
        resize(z, m * m);
        for r in 0..m {
            for i in 0..=r {
                z[i * m + r] = rr[r * m + i];
            }
        }
        sc.rq = rr;
        sc.block = a;
        Ok(m)
    }

    /// The criterion of the model on `t` columns of `src` (module docs).
    fn value_of(&self, src: &Source, t: usize, sc: &mut ExactScratch) -> Result<f64> {
        let c = t + 1;
        let nq = self.offsets.len() - 1;
        let cc = c * c;
        let max_rows = self.offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0).max(2 * c);
        sc.ensure(max_rows, c)?;
        // the suffixes, from the last query back
        resize(&mut sc.suf, (nq + 1) * cc);
        for q in (0..nq).rev() {
            self.query_r(q, src, t, sc);
            let (head, tail) = sc.suf.split_at_mut((q + 1) * cc);
            stack_r(&sc.rq, &tail[..cc], &mut head[q * cc..], c, &mut sc.block, &mut sc.coeff, &mut sc.mem);
        }
        // P_0 = [sqrt(alpha) I 0]; the hold-out fit of each query, then the prefix grows by it
        resize(&mut sc.pre, cc);
        sc.pre.iter_mut().for_each(|v| *v = 0.0);
        let ra = self.alpha.sqrt();
        (0..t).for_each(|j| sc.pre[j * c + j] = ra);
        let mut total = 0.0;
        let mut held = std::mem::take(&mut sc.rq);
        for q in 0..nq {
            let (s, e) = (self.offsets[q], self.offsets[q + 1]);
            let next = &sc.suf[(q + 1) * cc..(q + 2) * cc];
            stack_r(&sc.pre, next, &mut held, c, &mut sc.block, &mut sc.coeff, &mut sc.mem);
            // w = R11^-1 r (back substitution)
            sc.w.clear();
            sc.w.extend((0..t).map(|i| held[t * c + i]));
            for i in (0..t).rev() {
                let mut v = sc.w[i];
                for j in i + 1..t {
                    v -= held[j * c + i] * sc.w[j];
                }
                sc.w[i] = v / held[i * c + i];
            }
            // the query's centred block, its hold-out residuals and its term
            self.gather(q, src, &mut sc.block);
            let len = e - s;
            sc.e.clear();
            sc.e.extend((0..len).map(|r| sc.block[t * len + r]));
            for (j, wj) in sc.w.iter().enumerate() {
                sc.e.iter_mut().zip(&sc.block[j * len..(j + 1) * len]).for_each(|(ev, xv)| *ev -= wj * xv);
            }
            let e_q = std::mem::take(&mut sc.e);
            total += self.criterion.query_term(&e_q, 0.0, &e_q, &self.yc[s..e], &self.y[s..e], &mut sc.crit);
            sc.e = e_q;
            // P_{q+1} = qr([P_q; R_q])
            self.query_r(q, src, t, sc);
            resize(&mut sc.pre2, cc);
            stack_r(&sc.pre, &sc.rq, &mut sc.pre2, c, &mut sc.block, &mut sc.coeff, &mut sc.mem);
            std::mem::swap(&mut sc.pre, &mut sc.pre2);
        }
        sc.rq = held;
        Ok(self.criterion.finish(total, nq))
    }

    /// The criterion of each set of columns of `sets` ([`ExactLqo::value`]), in parallel.
    pub(crate) fn values(&self, sets: &[Vec<usize>]) -> Result<Vec<f64>> {
        sets.par_iter().map_init(ExactScratch::default, |sc, cols| self.value(cols, sc)).collect()
    }

    /// Query `q`'s rows of the columns `cols` and of `y`, centred (column-major, `len x c`).
    fn gather(&self, q: usize, src: &Source, out: &mut Vec<f64>) {
        let (s, e) = (self.offsets[q], self.offsets[q + 1]);
        let len = e - s;
        out.clear();
        match *src {
            Source::Columns(cols) => {
                for &j in cols {
                    let start = out.len();
                    out.extend((s..e).map(|r| self.x[(r, j)]));
                    center_exact(&mut out[start..], &[(0, len)]);
                }
            }
            // centred by construction
            Source::Rows(z, k) => {
                let m = self.yc.len();
                (0..k).for_each(|j| out.extend_from_slice(&z[j * m + s..j * m + e]));
            }
        }
        out.extend_from_slice(&self.yc[s..e]);
    }

    /// `R_q` of query `q`'s centred `[Xc_q yc_q]` into `sc.rq` (c x c, zero rows below its rank).
    fn query_r(&self, q: usize, src: &Source, t: usize, sc: &mut ExactScratch) {
        let c = t + 1;
        let len = self.offsets[q + 1] - self.offsets[q];
        self.gather(q, src, &mut sc.block);
        resize(&mut sc.rq, c * c);
        r_factor(&mut sc.block, len, c, &mut sc.rq, &mut sc.coeff, &mut sc.mem);
    }
}

impl ExactScratch {
    /// A workspace for QR factorisations of up to `rows x c`.
    fn ensure(&mut self, rows: usize, c: usize) -> Result<()> {
        if self.mem.as_ref().is_some_and(|(_, r, cc)| *r >= rows && *cc == c) {
            return Ok(());
        }
        let req = qr_in_place_scratch::<f64>(rows, c, 1, Par::Seq, Default::default());
        self.mem = Some((crate::alloc::try_workspace(req, "the exact criterion's QR workspace")?, rows, c));
        Ok(())
    }
}

fn resize(v: &mut Vec<f64>, len: usize) {
    v.clear();
    v.resize(len, 0.0);
}

/// The R factor of `[a; b]` (two c x c factors) into `out` (c x c).
fn stack_r(
    a: &[f64],
    b: &[f64],
    out: &mut [f64],
    c: usize,
    buf: &mut Vec<f64>,
    coeff: &mut Vec<f64>,
    mem: &mut Option<(MemBuffer, usize, usize)>,
) {
    buf.clear();
    for j in 0..c {
        buf.extend_from_slice(&a[j * c..(j + 1) * c]);
        buf.extend_from_slice(&b[j * c..(j + 1) * c]);
    }
    r_factor(buf, 2 * c, c, out, coeff, mem);
}

/// The upper-triangular R factor (c x c, column-major, zero below the diagonal and below the
/// rank) of the column-major `rows x c` matrix `a` (overwritten), by Householder QR.
fn r_factor(
    a: &mut [f64],
    rows: usize,
    c: usize,
    out: &mut [f64],
    coeff: &mut Vec<f64>,
    mem: &mut Option<(MemBuffer, usize, usize)>,
) {
    out.iter_mut().for_each(|v| *v = 0.0);
    let k = rows.min(c);
    if k == 0 {
        return;
    }
    resize(coeff, k);
    let (buf, _, _) = mem.as_mut().expect("ExactScratch::ensure ran");
    let qc = MatMut::from_column_major_slice_mut(coeff, 1, k);
    qr_in_place(
        MatMut::from_column_major_slice_mut(&mut a[..rows * c], rows, c),
        qc,
        Par::Seq,
        MemStack::new(buf),
        Default::default(),
    );
    for j in 0..c {
        for i in 0..k.min(j + 1) {
            out[j * c + i] = a[j * rows + i];
        }
    }
}
