//! One chunk's share of greedy RankRLS's fused pass
//! ([`GreedyState::pass`](super::GreedyState::pass)): apply the step to the chunk's blocks of
//! `C` and `U` and add up each feature's query terms, compiled at the SIMD level
//! ([`crate::simd::dispatch`]; every level gives the same bits).
//!
//! Per (feature, query) the pass is a chain: `dot4(zb, C)`, then `h`, the update of `C` and
//! `U` with its two sums, then `g` (a division) and the criterion's term. One feature at a
//! time, that chain's latency (each 4-lane sum waits on its previous add) and the per-query
//! scalar work bound the pass, not memory. At the AVX2 and AVX-512 levels (x86-64) the pass
//! therefore runs [`INTERLEAVE`] features through each query together ([`avx2`]): one loop
//! per kernel carries the features' independent chains side by side and loads the shared
//! `ub`, `zb`, `p` once. Each feature's operations and their order are exactly those of one
//! feature alone ([`dot4`], [`fused_update`], [`sq_norm_axpy4`]: lane `i % 4` of the first
//! `len - len % 4` rows, lanes combined as `(l0 + l1) + (l2 + l3)`, then the tail left to
//! right; no fused multiply-add), so the results are the same bits at every level; the
//! baseline runs one feature at a time.

use super::chunks::Chunks;
use super::criterion::{Criterion, CriterionScratch};
#[cfg(target_arch = "x86_64")]
use super::fused_avx2 as avx2;
use super::step::Step;
use crate::linalg::{dot4, sq_norm_axpy4};

/// Features a chunk's pass runs through one query loop together at the AVX2 and AVX-512
/// levels (module docs).
pub(super) const INTERLEAVE: usize = 4;

/// What one chunk's share of [`GreedyState::pass`](super::GreedyState::pass) reads.
pub(super) struct ChunkPass<'a> {
    pub(super) chunks: &'a Chunks,
    pub(super) offsets: &'a [usize],
    pub(super) p: &'a [f64],
    pub(super) yc: &'a [f64],
    pub(super) y: &'a [f64],
    pub(super) step: Option<&'a Step>,
    pub(super) coefs: &'a [(f64, f64)],
    pub(super) skip: &'a [bool],
    /// The criterion is [`super::criterion::Squared`]: its term is inlined (SIMD level).
    pub(super) squared: bool,
    pub(super) criterion: &'a dyn Criterion,
}

impl ChunkPass<'_> {
    /// Chunk `k` (its blocks `cc` of `C` and `uu` of `U`): applies the step and returns each
    /// feature's sum of query terms. Compiled at the SIMD level ([`crate::simd::dispatch`]).
    #[inline(always)]
    ///
    /// Also returns, per feature, the smallest `1 - c_i s1_q` over the chunk's queries (the
    /// accuracy monitor's `den`, [`super::monitor`]; 1 for a chunk without rows).
    pub(super) fn run(
        &self,
        k: usize,
        cc: &mut [f64],
        uu: &mut [f64],
        scratch: &mut CriterionScratch,
    ) -> (Vec<f64>, Vec<f64>) {
        let mut out = vec![0.0; 2 * self.coefs.len()];
        let (sums, dens) = out.split_at_mut(self.coefs.len());
        dens.iter_mut().for_each(|d| *d = 1.0);
        #[cfg(target_arch = "x86_64")]
        {
            if crate::simd::level() >= crate::simd::SimdLevel::Avx2 && crate::simd::SimdLevel::Avx2.is_available() {
                // SAFETY: the CPU has AVX2 (checked just above).
                unsafe { self.run_avx2(k, cc, uu, scratch, sums, dens) };
                let dens = out.split_off(self.coefs.len());
                return (out, dens);
            }
        }
        self.run_one_by_one(k, cc, uu, scratch, sums, dens);
        let dens = out.split_off(self.coefs.len());
        (out, dens)
    }

    /// [`ChunkPass::run`] one feature at a time (the baseline level).
    #[inline(always)]
    fn run_one_by_one(
        &self,
        k: usize,
        cc: &mut [f64],
        uu: &mut [f64],
        scratch: &mut CriterionScratch,
        out: &mut [f64],
        dens: &mut [f64],
    ) {
        let (chunks, offsets, p) = (self.chunks, self.offsets, self.p);
        let r0 = chunks.rows[k];
        let len = chunks.rows[k + 1] - r0;
        let n = self.coefs.len();
        for i in (0..n).filter(|&i| !self.skip[i]) {
            let ci_ = &mut cc[i * len..(i + 1) * len];
            let ui_ = &mut uu[i * len..(i + 1) * len];
            let (cf, df) = self.coefs[i];
            let (mut total, mut low) = (0.0, 1.0f64);
            for q in chunks.queries[k]..chunks.queries[k + 1] {
                let (s, e) = (offsets[q], offsets[q + 1]);
                let cq = &mut ci_[s - r0..e - r0];
                let uq = &mut ui_[s - r0..e - r0];
                let pq = &p[s..e];
                let (s1, s2) = match self.step {
                    Some(st) => {
                        let (ubq, zbq) = (&st.ub[s..e], &st.zb[s..e]);
                        let t = st.t[i];
                        let h = st.f[q] * (dot4(zbq, cq) - t * st.s1[q]) - t;
                        fused_update(cq, uq, ubq, zbq, pq, t, h)
                    }
                    None => (dot4(cq, uq), dot4(cq, pq)),
                };
                let den = 1.0 - cf * s1;
                let g = cf * (s2 - df * s1) / den - df;
                low = low.min(den);
                total += if self.squared {
                    sq_norm_axpy4(pq, g, uq)
                } else {
                    self.criterion.query_term(pq, g, uq, &self.yc[s..e], &self.y[s..e], scratch)
                };
            }
            out[i] = total;
            dens[i] = low;
        }
    }

    /// [`ChunkPass::run`] with the features [`INTERLEAVE`] at a time through the AVX2
    /// kernels of [`avx2`] (module docs).
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn run_avx2(
        &self,
        k: usize,
        cc: &mut [f64],
        uu: &mut [f64],
        scratch: &mut CriterionScratch,
        out: &mut [f64],
        dens: &mut [f64],
    ) {
        let len = self.chunks.rows[k + 1] - self.chunks.rows[k];
        if len == 0 {
            return;
        }
        let cols: Vec<(usize, &mut [f64], &mut [f64])> = cc
            .chunks_exact_mut(len)
            .zip(uu.chunks_exact_mut(len))
            .enumerate()
            .filter(|(i, _)| !self.skip[*i])
            .map(|(i, (c, u))| (i, c, u))
            .collect();
        let mut cols = cols.into_iter();
        loop {
            // SAFETY (each call): the CPU has AVX2 (this function's contract).
            match cols.len() {
                0 => break,
                1 => self.group_avx2::<1>(k, &mut cols, out, dens, scratch),
                2 => self.group_avx2::<2>(k, &mut cols, out, dens, scratch),
                3 => self.group_avx2::<3>(k, &mut cols, out, dens, scratch),
                _ => self.group_avx2::<INTERLEAVE>(k, &mut cols, out, dens, scratch),
            }
        }
    }

    /// The next `K` columns of `cols` (feature, its block of `C`, of `U`) through chunk `k`'s
    /// queries together; their sums of query terms go to `out`.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn group_avx2<'c, const K: usize>(
        &self,
        k: usize,
        cols: &mut std::vec::IntoIter<(usize, &'c mut [f64], &'c mut [f64])>,
        out: &mut [f64],
        dens: &mut [f64],
        scratch: &mut CriterionScratch,
    ) {
        let (chunks, offsets, p) = (self.chunks, self.offsets, self.p);
        let r0 = chunks.rows[k];
        let mut feats = [0usize; K];
        let mut cs: [&mut [f64]; K] = std::array::from_fn(|_| <&mut [f64]>::default());
        let mut us: [&mut [f64]; K] = std::array::from_fn(|_| <&mut [f64]>::default());
        for f in 0..K {
            let (i, c, u) = cols.next().expect("a column per member of the group");
            (feats[f], cs[f], us[f]) = (i, c, u);
        }
        let cf: [f64; K] = std::array::from_fn(|f| self.coefs[feats[f]].0);
        let df: [f64; K] = std::array::from_fn(|f| self.coefs[feats[f]].1);
        let t: [f64; K] = std::array::from_fn(|f| self.step.map_or(0.0, |st| st.t[feats[f]]));
        let mut total = [0.0f64; K];
        let mut low = [1.0f64; K];
        for q in chunks.queries[k]..chunks.queries[k + 1] {
            let (s, e) = (offsets[q], offsets[q + 1]);
            let (a, b) = (s - r0, e - r0);
            let pq = &p[s..e];
            // Rows a..b of the group's columns: each valid for `e - s` values, and distinct
            // (disjoint blocks of the chunk), as the kernels require.
            let cp: [*mut f64; K] = std::array::from_fn(|f| cs[f][a..b].as_mut_ptr());
            let up: [*mut f64; K] = std::array::from_fn(|f| us[f][a..b].as_mut_ptr());
            let (s1, s2) = match self.step {
                Some(st) => {
                    let (ubq, zbq) = (&st.ub[s..e], &st.zb[s..e]);
                    let (fq, s1q) = (st.f[q], st.s1[q]);
                    // SAFETY: AVX2 (the contract); the pointers as said above.
                    let dz = unsafe { avx2::dot4_k(zbq, cp.map(|v| v.cast_const())) };
                    let h: [f64; K] = std::array::from_fn(|f| fq * (dz[f] - t[f] * s1q) - t[f]);
                    unsafe { avx2::fused_update_k(cp, up, ubq, zbq, pq, &t, &h) }
                }
                None => {
                    let (mut s1, mut s2) = ([0.0; K], [0.0; K]);
                    for f in 0..K {
                        // SAFETY: the pointers as said above.
                        let (cq, uq) = unsafe { (col(cp[f], pq.len()), col(up[f], pq.len())) };
                        (s1[f], s2[f]) = (dot4(cq, uq), dot4(cq, pq));
                    }
                    (s1, s2)
                }
            };
            let den: [f64; K] = std::array::from_fn(|f| 1.0 - cf[f] * s1[f]);
            let g: [f64; K] = std::array::from_fn(|f| cf[f] * (s2[f] - df[f] * s1[f]) / den[f] - df[f]);
            for f in 0..K {
                low[f] = low[f].min(den[f]);
            }
            if self.squared {
                // SAFETY: AVX2 (the contract); the pointers as said above.
                let terms = unsafe { avx2::sq_norm_axpy4_k(pq, &g, up.map(|v| v.cast_const())) };
                for f in 0..K {
                    total[f] += terms[f];
                }
            } else {
                for f in 0..K {
                    // SAFETY: the pointers as said above.
                    let uq = unsafe { col(up[f], pq.len()) };
                    total[f] += self.criterion.query_term(pq, g[f], uq, &self.yc[s..e], &self.y[s..e], scratch);
                }
            }
        }
        for f in 0..K {
            out[feats[f]] = total[f];
            dens[feats[f]] = low[f];
        }
    }
}

/// The `len` values at `v` (rows of one column of the group, [`ChunkPass::group_avx2`]).
///
/// # Safety
/// `v` valid for `len` reads, and not written while the slice lives.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn col<'v>(v: *mut f64, len: usize) -> &'v [f64] {
    std::slice::from_raw_parts(v, len)
}

/// `C_q -= t u_q`, `U_q += h z_q`, returning `(C'_q^T U'_q, C'_q^T p_q)` in the lane order
/// of [`dot4`].
#[inline(always)]
pub(crate) fn fused_update(
    c: &mut [f64],
    u: &mut [f64],
    ub: &[f64],
    zb: &[f64],
    p: &[f64],
    t: f64,
    h: f64,
) -> (f64, f64) {
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
