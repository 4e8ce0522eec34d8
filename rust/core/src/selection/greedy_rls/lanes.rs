//! [`LANES`] small symmetric systems solved side by side: the block scan's per-query
//! `W_q v_q = rhs_q` ([`super::block`]) for consecutive queries of one unit at once.
//!
//! One `b x b` Cholesky solve is a chain of dependent divisions and square roots (each waits
//! on the previous), so one query at a time the scan waits on their latency. Here lane `l`
//! holds query `l`'s system and every lane runs exactly the operations of
//! [`solve_spd_small`](crate::linalg::solve_spd_small) in its order ([`dot`](crate::linalg::dot)'s
//! left-to-right sums, no fused multiply-add): the lanes' chains overlap and each lane's result
//! is that of the one-query solve, bit for bit. A lane whose matrix is not positive definite
//! to rounding is reported, and its system solved again by [`super::solve_sym`] (which falls
//! back to Gaussian elimination), as one query alone would be.

/// Systems solved side by side.
pub(super) const LANES: usize = 4;

/// The start of [`dot`](crate::linalg::dot)'s sum (`Iterator::sum`'s neutral element).
#[inline(always)]
fn sum_start() -> f64 {
    std::iter::empty::<f64>().sum()
}

/// Solves `a[l] x = rhs[l]` for every lane `l` (`a`: `b x b` row-major, element `t` of lane
/// `l` at `a[t][l]`; `rhs`: `b` values, `rhs[i][l]`) in place by Cholesky, as
/// [`solve_spd_small`](crate::linalg::solve_spd_small) with one right-hand side. Returns, per
/// lane, `true` when its factorisation succeeded (its solution is then in `rhs`; otherwise
/// `a` and `rhs` of that lane hold partial values).
#[inline(always)]
pub(super) fn solve_spd_lanes(a: &mut [[f64; LANES]], b: usize, rhs: &mut [[f64; LANES]]) -> [bool; LANES] {
    let mut ok = [true; LANES];
    for j in 0..b {
        for k in 0..j {
            // row[k] = (row[k] - dot(&row[..k], &l_k[..k])) / l_kk
            let mut s = [sum_start(); LANES];
            for t in 0..k {
                let (x, y) = (a[j * b + t], a[k * b + t]);
                for l in 0..LANES {
                    s[l] += x[l] * y[l];
                }
            }
            let d = a[k * b + k];
            let v = &mut a[j * b + k];
            for l in 0..LANES {
                v[l] = (v[l] - s[l]) / d[l];
            }
        }
        let mut s = [sum_start(); LANES];
        for t in 0..j {
            let x = a[j * b + t];
            for l in 0..LANES {
                s[l] += x[l] * x[l];
            }
        }
        let v = &mut a[j * b + j];
        for l in 0..LANES {
            let d = v[l] - s[l];
            if d.is_nan() || d <= 0.0 {
                ok[l] = false;
            }
            v[l] = d.sqrt();
        }
    }
    // L z = rhs, then L^T x = z
    for i in 0..b {
        let mut s = [sum_start(); LANES];
        for t in 0..i {
            let (x, y) = (a[i * b + t], rhs[t]);
            for l in 0..LANES {
                s[l] += x[l] * y[l];
            }
        }
        let d = a[i * b + i];
        let r = &mut rhs[i];
        for l in 0..LANES {
            r[l] = (r[l] - s[l]) / d[l];
        }
    }
    for i in (0..b).rev() {
        let d = a[i * b + i];
        let mut xi = rhs[i];
        for l in 0..LANES {
            xi[l] /= d[l];
        }
        rhs[i] = xi;
        for t in 0..i {
            let lv = a[i * b + t];
            let r = &mut rhs[t];
            for l in 0..LANES {
                r[l] -= lv[l] * xi[l];
            }
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::solve_spd_small;

    /// Every lane gives the bits of the one-system solve, failures included.
    #[test]
    fn lanes_equal_one_system_solves() {
        let mut s = 0x2545F4914F6CDD1Du64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for b in 1..=9 {
            for round in 0..20 {
                let mut mats = Vec::new();
                let mut rhss = Vec::new();
                for l in 0..LANES {
                    // B B^T + shift I: positive definite, except a lane made indefinite
                    let g: Vec<f64> = (0..b * b).map(|_| next()).collect();
                    let mut m: Vec<f64> = (0..b * b)
                        .map(|t| (0..b).map(|k| g[(t / b) * b + k] * g[(t % b) * b + k]).sum::<f64>())
                        .collect();
                    let shift = if (round + l) % 7 == 3 { -2.0 } else { 1e-3 };
                    (0..b).for_each(|i| m[i * b + i] += shift);
                    mats.push(m);
                    rhss.push((0..b).map(|_| next()).collect::<Vec<f64>>());
                }
                let mut a: Vec<[f64; LANES]> = (0..b * b).map(|t| std::array::from_fn(|l| mats[l][t])).collect();
                let mut r: Vec<[f64; LANES]> = (0..b).map(|i| std::array::from_fn(|l| rhss[l][i])).collect();
                let ok = solve_spd_lanes(&mut a, b, &mut r);
                for l in 0..LANES {
                    let (mut m, mut x) = (mats[l].clone(), rhss[l].clone());
                    let one = solve_spd_small(&mut m, b, &mut x, 1);
                    assert_eq!(ok[l], one, "b={b} lane {l}");
                    if one {
                        for i in 0..b {
                            assert_eq!(r[i][l].to_bits(), x[i].to_bits(), "b={b} lane {l} row {i}");
                        }
                    }
                }
            }
        }
    }
}
