//! The sweep's AVX2 column kernel against the portable code: the same bits.

use super::sweep_columns::{columns_avx2, update_column, update_columns4};
use crate::linalg::{dot4, dot4_many};
use crate::testing::Rng;

/// Rows of a pseudo-random column, of mixed scales.
fn column(seed: u64, len: usize) -> Vec<f64> {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    (0..len).map(|r| rng.next() * 10f64.powi((r % 7) as i32 - 3)).collect()
}

#[test]
fn avx2_columns_equal_the_portable_update() {
    if !std::arch::is_x86_feature_detected!("avx2") {
        return;
    }
    let (f, s1) = (0.73, 1.9);
    for len in [1usize, 3, 4, 5, 8, 17, 20, 33] {
        let (ub, zb) = (column(1, len), column(2, len));
        let t = [0.3, -1.7, 2.5e-3, 41.0];
        let cols: Vec<Vec<f64>> = (0..4).map(|o| column(10 + o, len)).collect();
        let us: Vec<Vec<f64>> = (0..4).map(|o| column(20 + o, len)).collect();
        // four columns: dot4_many, h, update_columns4
        let (mut c, mut u) = (cols.clone(), us.clone());
        let dz = dot4_many(&zb, [&c[0][..], &c[1][..], &c[2][..], &c[3][..]]);
        let h: [f64; 4] = std::array::from_fn(|o| f * (dz[o] - t[o] * s1) - t[o]);
        {
            let [c0, c1, c2, c3] = &mut c[..] else { unreachable!() };
            let [u0, u1, u2, u3] = &mut u[..] else { unreachable!() };
            update_columns4([c0, c1, c2, c3], [u0, u1, u2, u3], &ub, &zb, t, h);
        }
        let (mut c2, mut u2) = (cols.clone(), us.clone());
        {
            let [a0, a1, a2, a3] = &mut c2[..] else { unreachable!() };
            let [b0, b1, b2, b3] = &mut u2[..] else { unreachable!() };
            // SAFETY: the CPU has AVX2 (checked above).
            unsafe { columns_avx2([a0, a1, a2, a3], [b0, b1, b2, b3], &ub, &zb, t, f, s1) };
        }
        let bits = |v: &Vec<Vec<f64>>| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&c), bits(&c2), "C, len {len}");
        assert_eq!(bits(&u), bits(&u2), "U, len {len}");
        // one column: dot4, h, update_column
        let (mut c1, mut u1) = (cols[0].clone(), us[0].clone());
        let h1 = f * (dot4(&zb, &c1) - t[0] * s1) - t[0];
        update_column(&mut c1, &mut u1, &ub, &zb, t[0], h1);
        let (mut c3, mut u3) = (cols[0].clone(), us[0].clone());
        // SAFETY: as above.
        unsafe { columns_avx2([&mut c3[..]], [&mut u3[..]], &ub, &zb, [t[0]], f, s1) };
        assert_eq!(bits(&vec![c1, u1]), bits(&vec![c3, u3]), "one column, len {len}");
    }
}
