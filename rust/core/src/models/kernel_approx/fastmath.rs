//! Vectorisable `exp` and `cos` for the element-wise passes of the maps.
//!
//! `f64::exp` / `f64::cos` call libm one element at a time, which made those passes
//! dominate (numpy, used by scikit-learn, has SIMD versions). These are branch-free
//! (Cody-Waite range reduction + polynomial, the fdlibm coefficients for sin/cos), so the
//! compiler vectorises the loops; they are compiled twice, for the baseline target and with
//! AVX2+FMA enabled (picked at run time). Only IEEE `+ - * /` are used (no fused
//! multiply-add), so both versions give bit-identical results. Accuracy: a few ulp
//! (checked against libm in the tests). Elements outside the reduced range (non-finite,
//! `exp` arguments below -708 or above 0, `cos` arguments beyond ±1e5) fall back to libm.

// fdlibm constants, kept as published.
#![allow(clippy::excessive_precision)]

const MAGIC: f64 = 6755399441055744.0; // 1.5 * 2^52: adding it rounds to an integer
const COS_LIMIT: f64 = 1.0e5; // |n| < 2^17: the 3-term Cody-Waite reduction is exact enough

/// exp(x) for x in [-708, 0] (anything else: libm).
#[inline(always)]
fn exp_kernel(x: f64) -> f64 {
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    const LN2_HI: f64 = 6.93147180369123816490e-01;
    const LN2_LO: f64 = 1.90821492927058770002e-10;
    let t = x * LOG2E + MAGIC;
    let n = t - MAGIC;
    let k = (t.to_bits() as i64).wrapping_sub(MAGIC.to_bits() as i64);
    let r = (x - n * LN2_HI) - n * LN2_LO; // |r| <= ln2/2
                                           // Taylor polynomial of degree 13 on |r| <= 0.347 (truncation < 1e-17 relative).
    let mut p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    let scale = f64::from_bits((k.wrapping_add(1023) as u64) << 52);
    p * scale
}

/// cos(x) for |x| < COS_LIMIT.
#[inline(always)]
fn cos_kernel(x: f64) -> f64 {
    const FRAC_2_PI: f64 = std::f64::consts::FRAC_2_PI;
    const PIO2_1: f64 = 1.57079632673412561417e+00;
    const PIO2_2: f64 = 6.07710050630396597660e-11;
    const PIO2_3: f64 = 2.02226624871116645580e-21;
    let t = x * FRAC_2_PI + MAGIC;
    let n = t - MAGIC;
    let q = t.to_bits() & 3; // n mod 4
    let r = ((x - n * PIO2_1) - n * PIO2_2) - n * PIO2_3; // |r| <= pi/4
    let z = r * r;
    let c = {
        let p = z
            * (4.16666666666666019037e-02
                + z * (-1.38888888888741095749e-03
                    + z * (2.48015872894767294178e-05
                        + z * (-2.75573143513906633035e-07
                            + z * (2.08757232129817482790e-09 + z * -1.13596475577881948265e-11)))));
        let hz = 0.5 * z;
        let w = 1.0 - hz;
        w + (((1.0 - w) - hz) + z * p)
    };
    let s = {
        let p = 8.33333333332248946124e-03
            + z * (-1.98412698298579493134e-04
                + z * (2.75573137070700676789e-06
                    + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)));
        r + z * r * (-1.66666666666666324348e-01 + z * p)
    };
    // cos(n pi/2 + r) = cos r, -sin r, -cos r, sin r for n mod 4 = 0, 1, 2, 3.
    let odd = (q & 1).wrapping_neg();
    let v = (c.to_bits() & !odd) | (s.to_bits() & odd);
    f64::from_bits(v ^ (((q + 1) & 2) << 62))
}

#[inline(always)]
pub(crate) fn exp_body(v: &mut [f64]) {
    for x in v.iter_mut() {
        *x = exp_kernel(*x);
    }
}

#[inline(always)]
pub(crate) fn cos_body(v: &mut [f64], b: &[f64], scale: f64) {
    for (x, &bj) in v.iter_mut().zip(b) {
        *x = cos_kernel(*x + bj) * scale;
    }
}

/// `v[i] = exp(v[i])`.
pub(super) fn exp_in_place(v: &mut [f64]) {
    if !v.iter().all(|&x| (-708.0..=0.0).contains(&x)) {
        v.iter_mut().for_each(|x| *x = x.exp());
        return;
    }
    // At the SIMD level (no `mul_add` here: the same bits at every level).
    crate::simd::dispatch(
        #[inline(always)]
        || exp_body(v),
    )
}

/// `v[i] = cos(v[i] + b[i]) * scale`.
pub(super) fn cos_shift_scale_in_place(v: &mut [f64], b: &[f64], scale: f64) {
    if !v.iter().zip(b).all(|(&x, &bj)| (x + bj).abs() < COS_LIMIT) {
        v.iter_mut().zip(b).for_each(|(x, &bj)| *x = (*x + bj).cos() * scale);
        return;
    }
    crate::simd::dispatch(
        #[inline(always)]
        || cos_body(v, b, scale),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_libm() {
        let mut worst = 0.0f64;
        for i in 0..200_001 {
            let x = -708.0 * i as f64 / 200_000.0;
            let (got, want) = (exp_kernel(x), x.exp());
            worst = worst.max(((got - want) / want).abs());
        }
        assert!(worst < 1e-15, "{worst}");
        let mut v = vec![-1.0, 0.0, -700.0, 1.0, -800.0, f64::NAN];
        exp_in_place(&mut v);
        assert_eq!(v[3], 1f64.exp());
        assert_eq!(v[4], 0.0);
        assert!(v[5].is_nan());
    }

    #[test]
    fn cos_matches_libm() {
        let mut worst = 0.0f64;
        for i in -200_000..=200_000 {
            let x = i as f64 * 0.4567891;
            worst = worst.max((cos_kernel(x) - x.cos()).abs());
        }
        assert!(worst < 1e-15, "{worst}");
        let n = 37;
        let b: Vec<f64> = (0..n).map(|j| j as f64 * 0.3).collect();
        let mut v: Vec<f64> = (0..n).map(|j| j as f64 * -1.7).collect();
        let want: Vec<f64> = v.iter().zip(&b).map(|(x, y)| (x + y).cos() * 0.5).collect();
        cos_shift_scale_in_place(&mut v, &b, 0.5);
        for (g, w) in v.iter().zip(&want) {
            assert!((g - w).abs() < 1e-15);
        }
        let mut big = vec![1e6, 0.0];
        cos_shift_scale_in_place(&mut big, &[0.0, 0.0], 1.0);
        assert_eq!(big[0], 1e6f64.cos());
    }
}
