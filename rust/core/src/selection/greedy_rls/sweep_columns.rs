//! The sweep's column kernels ([`super::sweep`]): one step's update of a query's rows of a
//! column of `C` and `U`, `C_qi -= t u_q`, `U_qi += h z_q` with `h = f (z_q^T C_qi - t s1_q) - t`,
//! one column at a time, four at a time, and four rows per instruction with AVX2: the same
//! operations in the same order (no fused multiply-add), so the same bits.

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
