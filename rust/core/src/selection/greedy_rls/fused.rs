//! One chunk's share of greedy RankRLS's fused pass ([`GreedyState::pass`]): apply the
//! step to the chunk's blocks of `C` and `U` and add up each feature's query terms, compiled
//! at the SIMD level ([`crate::simd::dispatch`]; every level gives the same bits).

use super::criterion::{Criterion, CriterionScratch};
use super::state::{Chunks, Step};
#[cfg(doc)]
use super::GreedyState;
use crate::linalg::{dot4, sq_norm_axpy4};

/// What one chunk's share of [`GreedyState::pass`] reads.
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
    pub(super) fn run(&self, k: usize, cc: &mut [f64], uu: &mut [f64], scratch: &mut CriterionScratch) -> Vec<f64> {
        let (chunks, offsets, p) = (self.chunks, self.offsets, self.p);
        let r0 = chunks.rows[k];
        let len = chunks.rows[k + 1] - r0;
        let n = self.coefs.len();
        let mut out = vec![0.0; n];
        for i in (0..n).filter(|&i| !self.skip[i]) {
            let ci_ = &mut cc[i * len..(i + 1) * len];
            let ui_ = &mut uu[i * len..(i + 1) * len];
            let (cf, df) = self.coefs[i];
            let mut total = 0.0;
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
                let g = cf * (s2 - df * s1) / (1.0 - cf * s1) - df;
                total += if self.squared {
                    sq_norm_axpy4(pq, g, uq)
                } else {
                    self.criterion.query_term(pq, g, uq, &self.yc[s..e], &self.y[s..e], scratch)
                };
            }
            out[i] = total;
        }
        out
    }
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
