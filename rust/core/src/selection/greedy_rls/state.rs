//! The caches of Algorithm 1 (`C`, `U`, `p`, `M`, `r`; module docs of [`super`]) and the
//! pass that applies a step and scans every candidate in one sweep over the caches.

use std::mem::MaybeUninit;

use faer::{Mat, MatRef};
use ndarray::ArrayView2;

use super::chunks::{Chunks, CHUNK_ROWS};
use super::criterion::{Criterion, CriterionScratch};
use super::fused::ChunkPass;
use super::setup::{gram_lower_add, transpose_centred, Centring};
use super::step::Step;
use super::store::{blocks_bytes, sum_b2, Blocks, MStore};
use super::units::Units;
use crate::alloc;
use crate::data::groups::{center_exact, QueryOffsets};
use crate::error::Result;
use crate::linalg::dot4;

/// Number of fixed chunk groups the set-up (centring, Gram matrix) is parallel over.
const SETUP_GROUPS: usize = 16;

/// The caches of Algorithm 1 (module docs).
pub struct GreedyState {
    pub(super) n: usize,
    pub(super) offsets: Vec<usize>,
    pub(super) chunks: Chunks,
    /// `C = G Xc`, chunk-major, feature-major within a chunk.
    pub(super) c: Vec<f64>,
    /// `U = blockdiag(B_q) C`, same layout.
    pub(super) u: Vec<f64>,
    pub(super) p: Vec<f64>,
    pub(super) yc: Vec<f64>,
    /// `Xc^T Xc` and `M = Xc^T G Xc`, in full or by unit blocks (wide data, [`MStore`]).
    pub(super) store: MStore,
    /// `Xc^T yc` and `r = Xc^T a`.
    pub(super) xty: Vec<f64>,
    pub(super) r: Vec<f64>,
    /// `false` for features constant within every query.
    informative: Vec<bool>,
    /// `true` for the features in the model `S`: a pass scores their removal.
    pub(super) in_model: Vec<bool>,
    pub(super) alpha: f64,
}

/// The caches gathered for the tests: `C`, `U` (n columns of length m), `p`, `M` (row-major), `r`.
#[cfg(test)]
pub(super) type Caches = (Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<f64>, Vec<f64>, Vec<f64>);

/// Bytes [`GreedyState::new`] allocates for `m` rows and `n` features, at its peak: the
/// caches `C`, `U` (2 m n), one partial `Xc^T Xc` per set-up group (at most one group per
/// chunk of [`CHUNK_ROWS`] rows: one for 60 rows, 16 for 33,000 and more) while the sum
/// `Xc^T Xc` and `M` (2 n^2) are formed, the per-group and final `Xc^T yc` and flags, and the
/// O(m) vectors.
pub fn state_bytes(m: usize, n: usize) -> u128 {
    let (m, n, g) = (m as u128, n as u128, setup_groups(m));
    8 * (2 * m * n + (g + 2) * n * n + 2 * (g + 2) * n + 6 * m)
}

/// The most set-up groups (partial Gram matrices) for `m` rows.
pub(super) fn setup_groups(m: usize) -> u128 {
    SETUP_GROUPS.min(m / CHUNK_ROWS + 1) as u128
}

/// One setup group's share: its part of `Xc^T Xc`, of `Xc^T yc`, and which columns are not
/// constant within its queries.
type GroupSums = (Mat<f64>, Vec<f64>, Vec<bool>);

/// Bytes of the caches of a run over `units` on `m` rows: [`state_bytes`] when `n <= m`; for
/// wide data (`n > m`, [`MStore::Blocks`]) `C`, `U` and `Xc` (3 m n), the unit-diagonal
/// blocks of `M` and, for units of more than one column, each unit's `K` and its factor in a
/// block scan (`3 sum_g b_g^2`), the length-n vectors of the set-up and of a pass (about 24
/// per feature and chunk group) and the O(m) vectors: no n x n matrix. Both paths add the
/// path of `k` steps: the primal factor of the `c` columns `k` units can hold (c x c) and the
/// weights of every prefix (2 k n: the rows and the result).
pub fn units_state_bytes(m: usize, units: &Units, k: usize) -> u128 {
    let n = units.n_columns();
    let c = units.largest_total(k) as u128;
    let path = 8 * (c * c + 2 * (k as u128) * (n as u128));
    if !is_wide(m, n) {
        return state_bytes(m, n) + path;
    }
    let (mu, nu, g) = (m as u128, n as u128, setup_groups(m));
    let scan = if units.is_singletons() { 0 } else { 2 * sum_b2(units) as u128 };
    8 * (2 * mu * nu + 6 * mu + scan) + blocks_bytes(m, n, sum_b2(units)) + 8 * (2 * g + 22) * nu + path
}

/// The shape rule: wide data (more features than rows) keeps `M` by unit blocks ([`MStore`]).
pub fn is_wide(m: usize, n: usize) -> bool {
    n > m
}

impl GreedyState {
    /// Caches for `S = {}` (`G = I/alpha`) from grouped, validated `x` (m x n) and `y`, for
    /// a run over the features ([`GreedyState::with_units`]).
    pub fn new(x: ArrayView2<f64>, y: &[f64], offsets: &QueryOffsets, alpha: f64) -> Result<Self> {
        Self::with_units(x, y, offsets, alpha, &Units::singletons(x.ncols()))
    }

    /// Caches for `S = {}` of a run over `units`: `M` in full, or by the units' blocks for
    /// wide data ([`is_wide`]).
    pub fn with_units(
        x: ArrayView2<f64>,
        y: &[f64],
        offsets: &QueryOffsets,
        alpha: f64,
        units: &Units,
    ) -> Result<Self> {
        let (m, n) = x.dim();
        let wide = is_wide(m, n);
        let gn = if wide { 0 } else { n };
        let chunks = Chunks::new(offsets);
        let nc = chunks.len();
        let mut yc = alloc::try_copy(y, "greedy RankRLS's centred labels")?;
        let all: Vec<(usize, usize)> = offsets.windows(2).map(|w| (w[0], w[1])).collect();
        center_exact(&mut yc, &all);
        let mn = m.saturating_mul(n);
        // written in full by the set-up's tasks below (no zeroing pass first)
        let mut c = alloc::try_with_capacity::<f64>(mn, "greedy RankRLS's cache C (rows x features)")?;
        let mut u = alloc::try_with_capacity::<f64>(mn, "greedy RankRLS's cache U (rows x features)")?;
        let inv = 1.0 / alpha;
        // Fixed groups of whole chunks (contiguous rows): centring, `C`, and the group's
        // share of `Xc^T Xc` and `Xc^T yc` while its block is hot.
        let groups = SETUP_GROUPS.min(nc);
        let bounds: Vec<usize> = (0..=groups).map(|g| g * nc / groups).collect();
        let (mut cs, mut us) = (Vec::with_capacity(groups), Vec::with_capacity(groups));
        {
            let (mut cr, mut ur) = (&mut c.spare_capacity_mut()[..mn], &mut u.spare_capacity_mut()[..mn]);
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
        let items: Vec<_> = cs.into_iter().zip(us).collect();
        let parts: Vec<Result<GroupSums>> = crate::par::map_tasks(items, Centring::default, |work, g, (cg, ug)| {
            let mut gram = alloc::try_mat_zeros(gn, gn, "greedy RankRLS's partial Gram matrix")?;
            let mut xty = alloc::try_zeroed_vec::<f64>(n, "greedy RankRLS's X^T y")?;
            let mut nonzero = alloc::try_zeroed_vec::<bool>(n, "greedy RankRLS's informative features")?;
            let (mut cg, mut ug) = (cg, ug);
            for k in bounds[g]..bounds[g + 1] {
                let (r0, r1) = (chunks_ref.rows[k], chunks_ref.rows[k + 1]);
                let len = r1 - r0;
                let (cb, ct) = std::mem::take(&mut cg).split_at_mut(n * len);
                let (ub, ut) = std::mem::take(&mut ug).split_at_mut(n * len);
                cg = ct;
                ug = ut;
                let local: Vec<(usize, usize)> = (chunks_ref.queries[k]..chunks_ref.queries[k + 1])
                    .map(|q| (offsets[q] - r0, offsets[q + 1] - r0))
                    .collect();
                let ub = transpose_centred(x, r0, len, &local, ub, &mut nonzero, work);
                for i in 0..n {
                    let col = &ub[i * len..(i + 1) * len];
                    xty[i] += dot4(col, &yc_ref[r0..r1]);
                    cb[i * len..(i + 1) * len].iter_mut().zip(col).for_each(|(cv, xv)| {
                        cv.write(xv * inv);
                    });
                }
                if !wide {
                    gram_lower_add(&mut gram, MatRef::from_row_major_slice(ub, n, len));
                }
            }
            Ok((gram, xty, nonzero))
        });
        let parts = parts.into_iter().collect::<Result<Vec<_>>>()?;
        // SAFETY: every task succeeded, so every value of `c` and `u` was written: the groups'
        // blocks cover the `m n` values (the chunks partition the rows), and in each chunk
        // block `transpose_centred` writes every row of every column (the chunk's queries
        // partition its rows) and the loop above every value of `C`'s block.
        unsafe {
            c.set_len(mn);
            u.set_len(mn);
        }
        let mut gram = alloc::try_mat_zeros(gn, gn, "greedy RankRLS's Gram matrix")?;
        let mut xty = alloc::try_zeroed_vec::<f64>(n, "greedy RankRLS's X^T y")?;
        let mut informative = alloc::try_zeroed_vec::<bool>(n, "greedy RankRLS's informative features")?;
        for (g, v, nz) in &parts {
            gram += g;
            xty.iter_mut().zip(v).for_each(|(a, b)| *a += b);
            informative.iter_mut().zip(nz).for_each(|(a, b)| *a |= b);
        }
        drop(parts);
        let store = if wide {
            // `Xc` column-major from `U` (= Xc at `S = {}`)
            let mut xc = alloc::try_zeroed_vec::<f64>(mn, "greedy RankRLS's centred data Xc (wide data)")?;
            for k in 0..chunks.len() {
                let (r0, len) = (chunks.rows[k], chunks.rows[k + 1] - chunks.rows[k]);
                for i in 0..n {
                    xc[i * m + r0..i * m + r0 + len].copy_from_slice(&u[n * r0 + i * len..n * r0 + (i + 1) * len]);
                }
            }
            MStore::Blocks(Blocks::new(xc, m, units, alpha)?)
        } else {
            // Exactly symmetric (the lower triangle is kept).
            for i in 0..n {
                for j in 0..i {
                    gram[(j, i)] = gram[(i, j)];
                }
            }
            let mm = alloc::try_mat(n, n, |i, j| gram[(i, j)] * inv, "greedy RankRLS's matrix M")?;
            MStore::Full { gram, mm }
        };
        let r = xty.iter().map(|v| v * inv).collect();
        let p = alloc::try_copy(&yc, "greedy RankRLS's residuals")?;
        let offsets = alloc::try_copy(offsets, "the query offsets")?;
        let in_model = alloc::try_filled(n, false, "greedy RankRLS's selected-feature flags")?;
        Ok(GreedyState { n, offsets, chunks, c, u, p, yc, store, xty, r, informative, in_model, alpha })
    }

    /// `false` for the features constant within every query (zero centred column).
    pub fn informative(&self) -> &[bool] {
        &self.informative
    }

    /// Column `i` of a chunk-major cache, gathered into one length-m vector.
    pub(super) fn column(&self, v: &[f64], i: usize) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.p.len());
        for k in 0..self.chunks.len() {
            let (r0, r1) = (self.chunks.rows[k], self.chunks.rows[k + 1]);
            let len = r1 - r0;
            out.extend_from_slice(&v[n_off(self.n, r0) + i * len..n_off(self.n, r0) + (i + 1) * len]);
        }
        out
    }

    /// Back to `S = {}` (`G = I/alpha`: `C = Xc/alpha`, `U = Xc`, `p = yc`, `M = Xc^T Xc/alpha`,
    /// `r = Xc^T yc/alpha`) from the same `x`, bit for bit the caches of [`GreedyState::new`],
    /// without recomputing `Xc^T Xc`: O(m n + n^2). Floating search's refactorisation.
    pub fn reset(&mut self, x: ArrayView2<f64>) {
        let (n, inv) = (self.n, 1.0 / self.alpha);
        let (chunks, offsets) = (&self.chunks, &self.offsets);
        let (cs, us) = (chunks.split(&mut self.c, n), chunks.split(&mut self.u, n));
        let items: Vec<_> = cs.into_iter().zip(us).collect();
        crate::par::map_tasks(items, Centring::default, |work, k, (cb, ub)| {
            let (r0, len) = (chunks.rows[k], chunks.rows[k + 1] - chunks.rows[k]);
            let local: Vec<(usize, usize)> =
                (chunks.queries[k]..chunks.queries[k + 1]).map(|q| (offsets[q] - r0, offsets[q + 1] - r0)).collect();
            let mut nonzero = vec![false; n];
            // SAFETY: `MaybeUninit<f64>` has the layout of `f64`, and only initialised
            // values are written through the view.
            let uninit = unsafe { &mut *(ub as *mut [f64] as *mut [MaybeUninit<f64>]) };
            let ub = transpose_centred(x, r0, len, &local, uninit, &mut nonzero, work);
            cb.iter_mut().zip(ub.iter()).for_each(|(cv, xv)| *cv = xv * inv);
        });
        self.store.reset(self.alpha);
        self.r.iter_mut().zip(&self.xty).for_each(|(r, v)| *r = v * inv);
        self.p.copy_from_slice(&self.yc);
        self.in_model.fill(false);
    }

    /// The caches gathered feature by feature (`C`, `U` as n columns of length m), `p`, `M`
    /// (row-major) and `r`: for the tests against recomputation from scratch.
    #[cfg(test)]
    pub(super) fn caches(&self) -> Caches {
        let cols = |v: &[f64]| (0..self.n).map(|i| self.column(v, i)).collect::<Vec<_>>();
        let mm = (0..self.n * self.n)
            .map(|k| match &self.store {
                MStore::Full { .. } => self.store.m(k / self.n, k % self.n),
                MStore::Blocks(s) => dot4(s.xc(k / self.n), &self.column(&self.c, k % self.n)),
            })
            .collect();
        (cols(&self.c), cols(&self.u), self.p.clone(), mm, self.r.clone())
    }

    /// One pass over `C` and `U`: applies `step` (if any) to every feature not in `skip`,
    /// then returns the criterion after adding each such feature, or after removing it for
    /// a feature in the model (`None` for `skip`), and each feature's smallest `1 - c_i s1_q`
    /// (the accuracy monitor's `den`, [`super::monitor`]).
    /// Parallel over chunks; `y` are the raw grouped labels.
    pub fn pass(
        &mut self,
        step: Option<&Step>,
        y: &[f64],
        criterion: &dyn Criterion,
        skip: &[bool],
    ) -> (Vec<Option<f64>>, Vec<f64>) {
        let n = self.n;
        let coefs: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                // adding i: c_i = 1/(1 + M_ii); removing a selected i: c_i = -1/(1 - M_ii)
                let mii = self.store.m(i, i);
                let ci = if self.in_model[i] { -1.0 / (1.0 - mii) } else { 1.0 / (1.0 + mii) };
                (ci, ci * self.r[i])
            })
            .collect();
        let chunks = &self.chunks;
        let (offsets, p, yc) = (&self.offsets, &self.p, &self.yc);
        let cb = chunks.split(&mut self.c, n);
        let ubl = chunks.split(&mut self.u, n);
        let squared = criterion.is_squared();
        let items: Vec<_> = cb.into_iter().zip(ubl).collect();
        let parts: Vec<(Vec<f64>, Vec<f64>)> =
            crate::par::map_tasks(items, CriterionScratch::default, |scratch, k, (cc, uu)| {
                let pass = ChunkPass { chunks, offsets, p, yc, y, step, coefs: &coefs, skip, squared, criterion };
                crate::simd::dispatch(
                    #[inline(always)]
                    || pass.run(k, cc, uu, scratch),
                )
            });
        let nq = offsets.len() - 1;
        let values = (0..n)
            .map(|i| {
                if skip[i] {
                    None
                } else {
                    Some(criterion.finish(parts.iter().map(|v| v.0[i]).fold(0.0, |a, b| a + b), nq))
                }
            })
            .collect();
        let dens = (0..n).map(|i| parts.iter().map(|v| v.1[i]).fold(1.0f64, f64::min)).collect();
        (values, dens)
    }
}

/// Offset of row `r0`'s chunk block in a chunk-major cache.
fn n_off(n: usize, r0: usize) -> usize {
    n * r0
}
