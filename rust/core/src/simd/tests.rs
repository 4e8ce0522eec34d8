use super::*;

#[test]
fn levels_parse_and_refuse() {
    assert_eq!(SimdLevel::parse("baseline").unwrap(), SimdLevel::Baseline);
    let err = SimdLevel::parse("sse9").unwrap_err().to_string();
    assert!(err.contains("RANKSELECT_SIMD") && err.contains("sse9") && err.contains("baseline"), "{err}");
    for level in SimdLevel::ALL {
        match SimdLevel::parse(level.name()) {
            Ok(l) => assert!(l.is_available() && l == level),
            Err(e) => assert!(!level.is_available() && e.to_string().contains("lacks"), "{e}"),
        }
    }
    assert_eq!(SimdLevel::available()[0], SimdLevel::Baseline);
    assert!(SimdLevel::best().is_available());
}

// Each kernel body run at every level this CPU has, compared bit for bit with a scalar
// reference that spells out its lanes and reduction order.
mod kernels {
    use proptest::prelude::*;

    use super::super::{dispatch_at, SimdLevel};
    use crate::data::groups::{center_exact_body, center_vec_body};
    use crate::linalg::{axpy, dot4, sq_norm_axpy4};
    use crate::models::kernel_approx::{cos_body, exp_body};
    use crate::selection::greedy_rls::{fused_update, update_residuals_body};

    /// `Σ a_i b_i` over the lanes `i % 4` of the first `len - len % 4` terms, combined as
    /// `(l0 + l1) + (l2 + l3)`, then the tail left to right.
    fn lanes4(a: &[f64], b: &[f64]) -> f64 {
        let n4 = a.len() - a.len() % 4;
        let mut acc = [0.0f64; 4];
        for i in 0..n4 {
            acc[i % 4] += a[i] * b[i];
        }
        (n4..a.len()).fold((acc[0] + acc[1]) + (acc[2] + acc[3]), |s, i| s + a[i] * b[i])
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    fn vecs() -> impl Strategy<Value = (Vec<f64>, Vec<f64>, Vec<f64>)> {
        (0usize..70).prop_flat_map(|n| {
            let v = || proptest::collection::vec(-1e3f64..1e3, n);
            (v(), v(), v())
        })
    }

    fn offsets(m: usize, cuts: &[usize]) -> Vec<usize> {
        let mut o: Vec<usize> = cuts.iter().map(|c| c % (m + 1)).collect();
        o.push(0);
        o.push(m);
        o.sort_unstable();
        o
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn sums_and_updates((a, b, p) in vecs(), g in -3.0f64..3.0, t in -2.0f64..2.0) {
            let r: Vec<f64> = p.iter().zip(&b).map(|(p, z)| p + g * z).collect();
            let mut c_ref = a.clone();
            let mut u_ref = b.clone();
            c_ref.iter_mut().zip(&p).for_each(|(c, u)| *c -= t * u);
            u_ref.iter_mut().zip(&a).for_each(|(u, z)| *u += g * z);
            let want = (lanes4(&c_ref, &u_ref), lanes4(&c_ref, &b));
            for level in SimdLevel::available() {
                prop_assert_eq!(dispatch_at(level, || dot4(&a, &b)).to_bits(), lanes4(&a, &b).to_bits());
                prop_assert_eq!(dispatch_at(level, || sq_norm_axpy4(&p, g, &b)).to_bits(), lanes4(&r, &r).to_bits());
                let mut y = p.clone();
                dispatch_at(level, || axpy(g, &b, &mut y));
                prop_assert_eq!(bits(&y), bits(&r));
                // fused_update(c, u, ub, zb, p): C -= t ub, U += h zb, then (C'U', C'p).
                let (mut c, mut u) = (a.clone(), b.clone());
                let got = dispatch_at(level, || fused_update(&mut c, &mut u, &p, &a, &b, t, g));
                prop_assert_eq!((got.0.to_bits(), got.1.to_bits()), (want.0.to_bits(), want.1.to_bits()));
                prop_assert_eq!((bits(&c), bits(&u)), (bits(&c_ref), bits(&u_ref)));
            }
        }

        #[test]
        #[cfg(target_arch = "x86_64")]
        fn interleaved_pass_kernels(
            (cols, p) in (0usize..40).prop_flat_map(|n| {
                let v = move || proptest::collection::vec(-1e3f64..1e3, n);
                (proptest::collection::vec((v(), v()), 6), v())
            }),
            g in proptest::collection::vec(-3.0f64..3.0, 4),
            t in proptest::collection::vec(-2.0f64..2.0, 4),
        ) {
            // The AVX2 pass's kernels for K = 1..4 features at once against one feature at a
            // time: columns 0..K are the features' C, U; ub, zb come from columns 4 and 5.
            use crate::selection::greedy_rls::fused_avx2;
            fn check<const K: usize>(cols: &[(Vec<f64>, Vec<f64>)], ub: &[f64], zb: &[f64], p: &[f64],
                                     g: &[f64], t: &[f64]) -> Result<(), TestCaseError> {
                let (g, t): ([f64; K], [f64; K]) = (std::array::from_fn(|f| g[f]), std::array::from_fn(|f| t[f]));
                let (mut c, mut u): (Vec<Vec<f64>>, Vec<Vec<f64>>) = cols[..K].iter().cloned().unzip();
                let (mut c1, mut u1) = (c.clone(), u.clone());
                let cp: [*mut f64; K] = std::array::from_fn(|f| c[f].as_mut_ptr());
                let up: [*mut f64; K] = std::array::from_fn(|f| u[f].as_mut_ptr());
                // SAFETY: AVX2 checked; the columns are distinct vectors of p's length.
                let (dz, (s1, s2), sq) = dispatch_at(SimdLevel::Avx2, || unsafe {
                    let dz = fused_avx2::dot4_k(zb, cp.map(|v| v.cast_const()));
                    let s = fused_avx2::fused_update_k(cp, up, ub, zb, p, &t, &g);
                    (dz, s, fused_avx2::sq_norm_axpy4_k(p, &g, up.map(|v| v.cast_const())))
                });
                for f in 0..K {
                    prop_assert_eq!(dz[f].to_bits(), dot4(zb, &c1[f]).to_bits());
                    let want = fused_update(&mut c1[f], &mut u1[f], ub, zb, p, t[f], g[f]);
                    prop_assert_eq!((s1[f].to_bits(), s2[f].to_bits()), (want.0.to_bits(), want.1.to_bits()));
                    prop_assert_eq!((bits(&c[f]), bits(&u[f])), (bits(&c1[f]), bits(&u1[f])));
                    prop_assert_eq!(sq[f].to_bits(), sq_norm_axpy4(p, g[f], &u1[f]).to_bits());
                }
                Ok(())
            }
            if SimdLevel::Avx2.is_available() {
                let (ub, zb) = (cols[4].0.clone(), cols[5].1.clone());
                check::<1>(&cols, &ub, &zb, &p, &g, &t)?;
                check::<2>(&cols, &ub, &zb, &p, &g, &t)?;
                check::<3>(&cols, &ub, &zb, &p, &g, &t)?;
                check::<4>(&cols, &ub, &zb, &p, &g, &t)?;
            }
        }

        #[test]
        fn per_query_kernels((a, b, p) in vecs(), cuts in proptest::collection::vec(0usize..80, 0..6),
                             c in 0.01f64..1.0, d in -1.0f64..1.0) {
            let m = a.len();
            let off = offsets(m, &cuts);
            let local: Vec<(usize, usize)> = off.windows(2).map(|w| (w[0], w[1])).collect();
            // References: the scalar formulas, query by query.
            let mut cv_ref = a.clone();
            for &(s, e) in &local {
                if e > s {
                    let mean = cv_ref[s..e].iter().sum::<f64>() / (e - s) as f64;
                    cv_ref[s..e].iter_mut().for_each(|x| *x -= mean);
                }
            }
            let (mut p_ref, mut s1_ref, mut f_ref) = (p.clone(), vec![], vec![]);
            for &(s, e) in &local {
                let s1 = lanes4(&a[s..e], &b[s..e]);
                let f = c / (1.0 - c * s1);
                let g = f * (lanes4(&a[s..e], &p_ref[s..e]) - d * s1) - d;
                for i in s..e {
                    p_ref[i] += g * b[i];
                }
                s1_ref.push(s1);
                f_ref.push(f);
            }
            let bound: Vec<f64> = a.iter().map(|x| -x.abs() / 1e3 * 700.0).collect();
            let mut exp_ref = bound.clone();
            exp_body(&mut exp_ref);
            let mut cos_ref = a.clone();
            cos_body(&mut cos_ref, &b, 0.5);
            for level in SimdLevel::available() {
                let mut cv = a.clone();
                dispatch_at(level, || center_vec_body(&mut cv, &off));
                prop_assert_eq!(bits(&cv), bits(&cv_ref));
                let mut ce = a.clone();
                dispatch_at(level, || center_exact_body(&mut ce, &local));
                let mut ce_base = a.clone();
                center_exact_body(&mut ce_base, &local);
                prop_assert_eq!(bits(&ce), bits(&ce_base));
                let mut pl = p.clone();
                let (s1, f) = dispatch_at(level, || update_residuals_body(&a, &b, &mut pl, &off, c, d));
                prop_assert_eq!((bits(&pl), bits(&s1), bits(&f)), (bits(&p_ref), bits(&s1_ref), bits(&f_ref)));
                let mut e = bound.clone();
                dispatch_at(level, || exp_body(&mut e));
                prop_assert_eq!(bits(&e), bits(&exp_ref));
                let mut co = a.clone();
                dispatch_at(level, || cos_body(&mut co, &b, 0.5));
                prop_assert_eq!(bits(&co), bits(&cos_ref));
            }
        }
    }
}
