//! The pass's kernels for `K` features at once in AVX registers (one `__m256d` = the four
//! lanes of one feature's sum): each feature's operations and order are those of
//! [`crate::linalg::dot4`], [`super::fused::fused_update`] and [`crate::linalg::sq_norm_axpy4`]
//! (module docs of [`super::fused`]). The columns are raw pointers, each
//! valid for the length of the shared slices (`z`, `p`) and distinct from every other
//! argument; callers must run on a CPU with AVX (inlined into an AVX2 function).

use core::arch::x86_64::{
    __m256d, _mm256_add_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_set1_pd, _mm256_setzero_pd, _mm256_storeu_pd,
    _mm256_sub_pd,
};

/// `(l0 + l1) + (l2 + l3)`.
#[inline(always)]
unsafe fn lanes(v: __m256d) -> f64 {
    let mut a = [0.0f64; 4];
    _mm256_storeu_pd(a.as_mut_ptr(), v);
    (a[0] + a[1]) + (a[2] + a[3])
}

/// `[dot4(z, c_f)]`.
///
/// # Safety
/// AVX; each `c[f]` valid for `z.len()` reads.
#[inline(always)]
pub(crate) unsafe fn dot4_k<const K: usize>(z: &[f64], c: [*const f64; K]) -> [f64; K] {
    let len = z.len();
    let n4 = len - len % 4;
    let zp = z.as_ptr();
    let mut acc = [_mm256_setzero_pd(); K];
    let mut j = 0;
    while j < n4 {
        let zv = _mm256_loadu_pd(zp.add(j));
        for f in 0..K {
            acc[f] = _mm256_add_pd(acc[f], _mm256_mul_pd(zv, _mm256_loadu_pd(c[f].add(j))));
        }
        j += 4;
    }
    let mut s: [f64; K] = std::array::from_fn(|f| lanes(acc[f]));
    for f in 0..K {
        for (r, zv) in z.iter().enumerate().skip(n4) {
            s[f] += zv * *c[f].add(r);
        }
    }
    s
}

/// `[fused_update(c_f, u_f, ub, zb, p, t_f, h_f)]`, returned as `([s1_f], [s2_f])`.
///
/// # Safety
/// AVX; `ub`, `zb` as long as `p`; each `c[f]`, `u[f]` valid for `p.len()` reads and
/// writes, all distinct.
#[inline(always)]
pub(crate) unsafe fn fused_update_k<const K: usize>(
    c: [*mut f64; K],
    u: [*mut f64; K],
    ub: &[f64],
    zb: &[f64],
    p: &[f64],
    t: &[f64; K],
    h: &[f64; K],
) -> ([f64; K], [f64; K]) {
    let len = p.len();
    assert!(ub.len() == len && zb.len() == len, "ub, zb and p of the query's length");
    let n4 = len - len % 4;
    let (ubp, zbp, pp) = (ub.as_ptr(), zb.as_ptr(), p.as_ptr());
    let tv: [__m256d; K] = std::array::from_fn(|f| _mm256_set1_pd(t[f]));
    let hv: [__m256d; K] = std::array::from_fn(|f| _mm256_set1_pd(h[f]));
    let (mut a1, mut a2) = ([_mm256_setzero_pd(); K], [_mm256_setzero_pd(); K]);
    let mut j = 0;
    while j < n4 {
        let (ubv, zbv, pv) = (_mm256_loadu_pd(ubp.add(j)), _mm256_loadu_pd(zbp.add(j)), _mm256_loadu_pd(pp.add(j)));
        for f in 0..K {
            let cn = _mm256_sub_pd(_mm256_loadu_pd(c[f].add(j)), _mm256_mul_pd(tv[f], ubv));
            let un = _mm256_add_pd(_mm256_loadu_pd(u[f].add(j)), _mm256_mul_pd(hv[f], zbv));
            _mm256_storeu_pd(c[f].add(j), cn);
            _mm256_storeu_pd(u[f].add(j), un);
            a1[f] = _mm256_add_pd(a1[f], _mm256_mul_pd(cn, un));
            a2[f] = _mm256_add_pd(a2[f], _mm256_mul_pd(cn, pv));
        }
        j += 4;
    }
    let mut s1: [f64; K] = std::array::from_fn(|f| lanes(a1[f]));
    let mut s2: [f64; K] = std::array::from_fn(|f| lanes(a2[f]));
    for f in 0..K {
        for r in n4..len {
            let cv = *c[f].add(r) - t[f] * ub[r];
            let uv = *u[f].add(r) + h[f] * zb[r];
            *c[f].add(r) = cv;
            *u[f].add(r) = uv;
            s1[f] += cv * uv;
            s2[f] += cv * p[r];
        }
    }
    (s1, s2)
}

/// `[sq_norm_axpy4(p, g_f, z_f)]`.
///
/// # Safety
/// AVX; each `z[f]` valid for `p.len()` reads.
#[inline(always)]
pub(crate) unsafe fn sq_norm_axpy4_k<const K: usize>(p: &[f64], g: &[f64; K], z: [*const f64; K]) -> [f64; K] {
    let len = p.len();
    let n4 = len - len % 4;
    let pp = p.as_ptr();
    let gv: [__m256d; K] = std::array::from_fn(|f| _mm256_set1_pd(g[f]));
    let mut acc = [_mm256_setzero_pd(); K];
    let mut j = 0;
    while j < n4 {
        let pv = _mm256_loadu_pd(pp.add(j));
        for f in 0..K {
            let r = _mm256_add_pd(pv, _mm256_mul_pd(gv[f], _mm256_loadu_pd(z[f].add(j))));
            acc[f] = _mm256_add_pd(acc[f], _mm256_mul_pd(r, r));
        }
        j += 4;
    }
    let mut s: [f64; K] = std::array::from_fn(|f| lanes(acc[f]));
    for f in 0..K {
        for (r, pv) in p.iter().enumerate().skip(n4) {
            let v = pv + g[f] * *z[f].add(r);
            s[f] += v * v;
        }
    }
    s
}
