//! One query's dots of the block scan ([`super::block`]): `S_q = Cg_q^T Zg_q` (its upper
//! triangle, mirrored) and `Cg_q^T p_q`, by tiles of 4 x 4 entries.
//!
//! Each entry is [`dot4`](crate::linalg::dot4) of its two columns: four lane accumulators
//! `acc[i % 4] += c_i z_i` from zero, combined as `(acc0 + acc1) + (acc2 + acc3)`, then the
//! `len % 4` tail left to right (no fused multiply-add). A tile holds the accumulators of 16
//! entries side by side, so the 8 columns it reads are loaded once per 4 rows instead of once
//! per entry, and the 16 chains overlap; every entry gets the bits of its own `dot4` (those of
//! [`super::block::query_system`], which the tests compare query by query).

/// The entries `(j, l)` of one tile, `c[j] . z[l]` as `dot4(c[j], z[l])` (with `UPPER`, the
/// entries `l < j` of the first `R` columns, which are the rows' own columns, are skipped and
/// left 0). Every slice as long as `c[0]`.
#[inline(always)]
fn tile<const R: usize, const NZ: usize, const UPPER: bool>(c: [&[f64]; R], z: [&[f64]; NZ]) -> [[f64; NZ]; R] {
    let n = c[0].len();
    let nch = n / 4;
    let (c, z) = (c.map(|v| &v[..n]), z.map(|v| &v[..n]));
    let cc = c.map(|v| &v.as_chunks::<4>().0[..nch]);
    let zc = z.map(|v| &v.as_chunks::<4>().0[..nch]);
    let skip = |j: usize, l: usize| UPPER && l < R && l < j;
    let mut acc = [[[0.0f64; 4]; NZ]; R];
    for i in 0..nch {
        let cv: [[f64; 4]; R] = std::array::from_fn(|j| cc[j][i]);
        let zv: [[f64; 4]; NZ] = std::array::from_fn(|l| zc[l][i]);
        for j in 0..R {
            for l in 0..NZ {
                if skip(j, l) {
                    continue;
                }
                for t in 0..4 {
                    acc[j][l][t] += cv[j][t] * zv[l][t];
                }
            }
        }
    }
    let mut out = [[0.0f64; NZ]; R];
    for j in 0..R {
        for l in 0..NZ {
            if skip(j, l) {
                continue;
            }
            let a = acc[j][l];
            let mut s = (a[0] + a[1]) + (a[2] + a[3]);
            for r in 4 * nch..n {
                s += c[j][r] * z[l][r];
            }
            out[j][l] = s;
        }
    }
    out
}

/// `S_q` (symmetric, `b x b` row-major: the upper triangle `S_jl = dot4(cg(j), zg(l))`,
/// `l >= j`, mirrored) into `s`, and `cp_j = dot4(cg(j), p_q)` into `cp`: the bits of
/// [`super::block::query_system`]'s dots.
#[inline(always)]
pub(super) fn query_dots<'a>(
    b: usize,
    cg: &impl Fn(usize) -> &'a [f64],
    zg: &impl Fn(usize) -> &'a [f64],
    pq: &'a [f64],
    s: &mut [f64],
    cp: &mut [f64],
) {
    let (s, cp) = (&mut s[..b * b], &mut cp[..b]);
    let full = b - b % 4;
    // a tile's rows `j0..` and `nz` columns: `S_jl` for `l = l0..l0 + ns` (with `upper`,
    // `l >= j` only), then `p_q` (into `cp`)
    let mut put = |j0: usize, l0: usize, upper: bool, d: &[f64], nz: usize, ns: usize| {
        for (o, row) in d.chunks_exact(nz).enumerate() {
            for (q, &v) in row.iter().enumerate() {
                let (j, l) = (j0 + o, l0 + q);
                if q >= ns {
                    cp[j] = v;
                } else if !upper || l >= j {
                    s[j * b + l] = v;
                    s[l * b + j] = v;
                }
            }
        }
    };
    let mut jb = 0;
    while jb < full {
        let cj = [cg(jb), cg(jb + 1), cg(jb + 2), cg(jb + 3)];
        // the diagonal tile with `p_q`, the tiles right of it, then the last b % 4 columns
        let d = tile::<4, 5, true>(cj, [zg(jb), zg(jb + 1), zg(jb + 2), zg(jb + 3), pq]);
        put(jb, jb, true, d.as_flattened(), 5, 4);
        let mut lb = jb + 4;
        while lb < full {
            let d = tile::<4, 4, false>(cj, [zg(lb), zg(lb + 1), zg(lb + 2), zg(lb + 3)]);
            put(jb, lb, false, d.as_flattened(), 4, 4);
            lb += 4;
        }
        match b - full {
            1 => put(jb, full, false, tile::<4, 1, false>(cj, [zg(full)]).as_flattened(), 1, 1),
            2 => put(jb, full, false, tile::<4, 2, false>(cj, [zg(full), zg(full + 1)]).as_flattened(), 2, 2),
            3 => {
                let d = tile::<4, 3, false>(cj, [zg(full), zg(full + 1), zg(full + 2)]);
                put(jb, full, false, d.as_flattened(), 3, 3)
            }
            _ => {}
        }
        jb += 4;
    }
    // the corner: the upper triangle of the last b % 4 rows and columns, with `p_q`
    let f = full;
    match b - full {
        1 => put(f, f, true, tile::<1, 2, true>([cg(f)], [zg(f), pq]).as_flattened(), 2, 1),
        2 => {
            let d = tile::<2, 3, true>([cg(f), cg(f + 1)], [zg(f), zg(f + 1), pq]);
            put(f, f, true, d.as_flattened(), 3, 2)
        }
        3 => {
            let d = tile::<3, 4, true>([cg(f), cg(f + 1), cg(f + 2)], [zg(f), zg(f + 1), zg(f + 2), pq]);
            put(f, f, true, d.as_flattened(), 4, 3)
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::dot4;
    use crate::testing::Rng;

    /// Every entry has the bits of its own `dot4`, for every size and length.
    #[test]
    fn tiles_equal_dot4() {
        let mut rng = Rng(0x9E3779B97F4A7C15);
        let mut next = move || rng.next() / 2.0;
        for b in 1..=13 {
            for len in [1usize, 3, 4, 5, 8, 11, 20, 37] {
                let cols_c: Vec<Vec<f64>> = (0..b).map(|_| (0..len).map(|_| next() * 1e3).collect()).collect();
                let cols_z: Vec<Vec<f64>> = (0..b).map(|_| (0..len).map(|_| next()).collect()).collect();
                let p: Vec<f64> = (0..len).map(|_| next()).collect();
                let (mut s, mut cp) = (vec![f64::NAN; b * b], vec![f64::NAN; b]);
                query_dots(b, &|j| &cols_c[j][..], &|l| &cols_z[l][..], &p, &mut s, &mut cp);
                for j in 0..b {
                    assert_eq!(cp[j].to_bits(), dot4(&cols_c[j], &p).to_bits(), "b={b} len={len} cp {j}");
                    for l in j..b {
                        let d = dot4(&cols_c[j], &cols_z[l]).to_bits();
                        assert_eq!(s[j * b + l].to_bits(), d, "b={b} len={len} ({j}, {l})");
                        assert_eq!(s[l * b + j].to_bits(), d, "b={b} len={len} ({l}, {j})");
                    }
                }
            }
        }
    }
}
