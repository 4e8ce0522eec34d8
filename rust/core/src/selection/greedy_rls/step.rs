//! A rank-one step of the caches of greedy RankRLS (module docs of [`super`]): what the pass
//! needs to apply it to every column ([`Step`]), and the per-query update of the residuals `p`
//! that the in-memory caches share with the query shards ([`update_residuals`]).

use crate::linalg::{axpy, dot4};

/// The effect of adding feature `b` on every other feature (module docs).
pub struct Step {
    pub(super) t: Vec<f64>,
    pub(super) s1: Vec<f64>,
    pub(super) f: Vec<f64>,
    pub(super) ub: Vec<f64>,
    pub(super) zb: Vec<f64>,
    /// The accuracy monitor's amplifications of this step ([`super::monitor`]): `rho_b` and
    /// the smallest `1 - c s1_q` over the queries.
    pub(super) rho: f64,
    pub(super) den: f64,
    /// How much the squared residuals changed, relative to their new size.
    pub(super) change: f64,
}

/// The per-query part of adding feature `b` (module docs of [`super`]): with `u = C_b`,
/// `z = U_b`, `c = 1/(1 + M_bb)` and `d = c r_b`, per query `s1_q = u_q^T z_q`,
/// `f_q = c / (1 - c s1_q)` and `p_q += (f_q (u_q^T p_q - d s1_q) - d) z_q`. Returns the
/// `s1_q` and `f_q`. The one definition for the in-memory kernel and the query shards
/// ([`crate::shards::greedy_shard`]).
pub(crate) fn update_residuals(
    ub: &[f64],
    zb: &[f64],
    p: &mut [f64],
    offsets: &[usize],
    c: f64,
    d: f64,
) -> (Vec<f64>, Vec<f64>) {
    crate::simd::dispatch(
        #[inline(always)]
        || update_residuals_body(ub, zb, p, offsets, c, d),
    )
}

#[inline(always)]
pub(crate) fn update_residuals_body(
    ub: &[f64],
    zb: &[f64],
    p: &mut [f64],
    offsets: &[usize],
    c: f64,
    d: f64,
) -> (Vec<f64>, Vec<f64>) {
    let nq = offsets.len() - 1;
    let (mut s1, mut f) = (Vec::with_capacity(nq), Vec::with_capacity(nq));
    for w in offsets.windows(2) {
        let (s, e) = (w[0], w[1]);
        let s1q = dot4(&ub[s..e], &zb[s..e]);
        let s2q = dot4(&ub[s..e], &p[s..e]);
        let fq = c / (1.0 - c * s1q);
        let g = fq * (s2q - d * s1q) - d;
        axpy(g, &zb[s..e], &mut p[s..e]);
        s1.push(s1q);
        f.push(fq);
    }
    (s1, f)
}
