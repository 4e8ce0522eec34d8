//! Counting with the bitsets of a batch: exact pair counts of a query, and the rows of the
//! running sums of the similarity matrix (scalar and AVX2, bit-identical).

use std::ops::Range;

use super::{row_index, row_len, BitBatch, LANES};
use crate::selection::kendall::{tau_b_value, PairCounts, Variant};

impl BitBatch {
    /// Exact [`PairCounts`] of every pair of `pairs` in query `k` of the batch.
    pub(crate) fn counts(&self, k: usize, pairs: &[(u32, u32)]) -> Vec<PairCounts> {
        let (start, w, n0) = self.queries[k];
        let nfp = self.nfp;
        let nu = &self.n_untied[k * nfp..(k + 1) * nfp];
        let (u, g) = (&self.untied[start..start + w * nfp], &self.gt[start..start + w * nfp]);
        pairs
            .iter()
            .map(|&(a, b)| {
                let (a, b) = (a as usize, b as usize);
                let (mut both, mut discordant) = (0u64, 0u64);
                for kw in 0..w {
                    let (i, j) = (kw * nfp + a, kw * nfp + b);
                    let common = u[i] & u[j];
                    both += common.count_ones() as u64;
                    discordant += (common & (g[i] ^ g[j])).count_ones() as u64;
                }
                PairCounts {
                    pairs: n0,
                    ties_a: n0 - nu[a],
                    ties_b: n0 - nu[b],
                    ties_ab: both + n0 - nu[a] - nu[b],
                    discordant,
                }
            })
            .collect()
    }

    /// Values per feature `b` in a row of the running sums of [`BitBatch::add_row`].
    pub(crate) fn row_len(&self, variant: Variant) -> usize {
        row_len(self.nf, variant)
    }

    /// Adds, for feature `a` and every `b >= a`, the per-query statistic of the queries
    /// `block` of the batch, in query order, to `row` (laid out by [`row_index`]: tau-b, or
    /// Geng's `C / n0` and `D / n0`). The values equal [`PairCounts::tau_b`],
    /// [`PairCounts::geng`] and [`PairCounts::geng_negated`] bit for bit; a query where `a`
    /// or `b` is constant adds nothing (its values are +0). Entries `b < a` in `a`'s
    /// first group of [`LANES`] features are written too and are never read.
    pub(crate) fn add_row(&self, a: usize, block: Range<usize>, variant: Variant, row: &mut [f64], avx2: bool) {
        assert!(a < self.nf && row.len() == self.row_len(variant));
        #[cfg(target_arch = "x86_64")]
        if avx2 {
            // SAFETY: the CPU supports avx2 and popcnt (checked by the caller with `has_avx2`).
            return unsafe { self.add_row_avx2(a, block, variant, row) };
        }
        let _ = avx2;
        self.add_row_scalar(a, block, variant, row)
    }

    /// Query `k` of the batch: `n0`, the untied pairs of each (padded) feature and their
    /// `1 / sqrt`, or `None` when feature `a` is constant in it (then every value is +0).
    #[inline(always)]
    fn query_stats(&self, k: usize, a: usize) -> Option<(u64, &[u64], &[f64])> {
        let nfp = self.nfp;
        let nu = &self.n_untied[k * nfp..(k + 1) * nfp];
        (nu[a] != 0).then(|| (self.queries[k].2, nu, &self.inv_sqrt_untied[k * nfp..(k + 1) * nfp]))
    }

    /// `U` (pairs untied in both) and `D` of `a` with the features `b0 .. b0 + LANES` in
    /// query `k` of the batch, one word at a time.
    #[inline(always)]
    fn group_counts_scalar(&self, k: usize, a: usize, b0: usize) -> ([u64; LANES], [u64; LANES]) {
        let (start, w, _) = self.queries[k];
        let nfp = self.nfp;
        let (mut both, mut disc) = ([0u64; LANES], [0u64; LANES]);
        for kw in 0..w {
            let at = start + kw * nfp;
            let (ua, ga) = (self.untied[at + a], self.gt[at + a]);
            for l in 0..LANES {
                let common = ua & self.untied[at + b0 + l];
                both[l] += common.count_ones() as u64;
                disc[l] += (common & (ga ^ self.gt[at + b0 + l])).count_ones() as u64;
            }
        }
        (both, disc)
    }

    fn add_row_scalar(&self, a: usize, block: Range<usize>, variant: Variant, row: &mut [f64]) {
        let nfp = self.nfp;
        for k in block {
            let Some((n0, nu, inv)) = self.query_stats(k, a) else { continue };
            for b0 in (a - a % LANES..nfp).step_by(LANES) {
                let (both, disc) = self.group_counts_scalar(k, a, b0);
                for l in 0..LANES.min(self.nf - b0) {
                    let b = b0 + l;
                    match variant {
                        Variant::TauB => {
                            row[row_index(self.nf, b, 0)] +=
                                tau_b_value(both[l], disc[l], nu[a], nu[b], inv[a], inv[b]);
                        }
                        Variant::Geng => {
                            let inv_n0 = 1.0 / n0 as f64;
                            row[row_index(self.nf, b, 0)] += (both[l] - disc[l]) as f64 * inv_n0;
                            row[row_index(self.nf, b, 1)] += disc[l] as f64 * inv_n0;
                        }
                    }
                }
            }
        }
    }

    /// [`BitBatch::add_row`] with AVX2: [`LANES`] features `b` per vector, popcounts by
    /// nibble lookup (`vpshufb`) summed per byte over up to 31 words and then per lane
    /// (`vpsadbw`), and the statistic computed in the lanes with the same operations, in
    /// the same order, as [`tau_b_value`] (bit-identical).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn add_row_avx2(&self, a: usize, block: Range<usize>, variant: Variant, row: &mut [f64]) {
        use std::arch::x86_64::*;
        let (nf, nfp) = (self.nf, self.nfp);
        // u64 -> f64, exact below 2^52 (counts of pairs are).
        let magic = _mm256_set1_epi64x(0x4330_0000_0000_0000);
        let to_f64 =
            |v: __m256i| _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(v, magic)), _mm256_castsi256_pd(magic));
        let zero = _mm256_setzero_si256();
        let rp = row.as_mut_ptr();
        for k in block {
            let Some((n0, nu, inv)) = self.query_stats(k, a) else { continue };
            let (start, w, _) = self.queries[k];
            let (u, g) = (&self.untied[start..start + w * nfp], &self.gt[start..start + w * nfp]);
            let (nua, ia) = (_mm256_set1_epi64x(nu[a] as i64), _mm256_set1_pd(inv[a]));
            let nua_f = _mm256_set1_pd(nu[a] as f64);
            let inv_n0 = _mm256_set1_pd(1.0 / n0 as f64);
            let mut b0 = a - a % LANES;
            while b0 < nfp {
                // Up to 4 vectors of features at once, reading each word row once.
                let (counts, n_groups) = match (nfp - b0) / LANES {
                    1 => (group_counts_avx2::<1>(u, g, a, b0, w, nfp), 1),
                    2 => (group_counts_avx2::<2>(u, g, a, b0, w, nfp), 2),
                    3 => (group_counts_avx2::<3>(u, g, a, b0, w, nfp), 3),
                    _ => (group_counts_avx2::<4>(u, g, a, b0, w, nfp), 4),
                };
                for (t, &(both, disc)) in counts.iter().enumerate().take(n_groups) {
                    let b0 = b0 + t * LANES;
                    // C = U - D, exact in f64 (as the scalar `(both - disc) as f64`).
                    let conc = to_f64(_mm256_sub_epi64(both, disc));
                    let disc_f = to_f64(disc);
                    match variant {
                        Variant::TauB => {
                            let nub = _mm256_loadu_si256(nu.as_ptr().add(b0) as *const __m256i);
                            let ib = _mm256_loadu_pd(inv.as_ptr().add(b0));
                            let num = _mm256_sub_pd(conc, disc_f);
                            let scaled = _mm256_mul_pd(_mm256_mul_pd(num, ia), ib);
                            let clamped =
                                _mm256_min_pd(_mm256_max_pd(scaled, _mm256_set1_pd(-1.0)), _mm256_set1_pd(1.0));
                            // Exactly ±1 when U_a = U_b and |C - D| = U_a.
                            let abs = _mm256_andnot_pd(_mm256_set1_pd(-0.0), num);
                            let exact = _mm256_and_pd(
                                _mm256_castsi256_pd(_mm256_cmpeq_epi64(nub, nua)),
                                _mm256_cmp_pd::<_CMP_EQ_OQ>(abs, nua_f),
                            );
                            let sign = _mm256_or_pd(_mm256_and_pd(num, _mm256_set1_pd(-0.0)), _mm256_set1_pd(1.0));
                            let value = _mm256_blendv_pd(clamped, sign, exact);
                            // 0 where b is constant.
                            let value = _mm256_andnot_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(nub, zero)), value);
                            let at = rp.add(row_index(nf, b0, 0));
                            _mm256_storeu_pd(at, _mm256_add_pd(_mm256_loadu_pd(at), value));
                        }
                        Variant::Geng => {
                            let at = rp.add(row_index(nf, b0, 0));
                            _mm256_storeu_pd(at, _mm256_add_pd(_mm256_loadu_pd(at), _mm256_mul_pd(conc, inv_n0)));
                            let at = rp.add(row_index(nf, b0, 1));
                            _mm256_storeu_pd(at, _mm256_add_pd(_mm256_loadu_pd(at), _mm256_mul_pd(disc_f, inv_n0)));
                        }
                    }
                }
                b0 += n_groups * LANES;
            }
        }
    }
}

/// `U` and `D` (per lane: pairs untied in both, discordant pairs) of feature `a` with the
/// `G` vectors of features from `b0`, over the `w` word rows of one query (`u`, `g`:
/// `w x nfp`, word-major). Popcounts by nibble lookup (`vpshufb`) are summed per byte over
/// up to 31 words (at most 8 per word), then per lane (`vpsadbw`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn group_counts_avx2<const G: usize>(
    u: &[u64],
    g: &[u64],
    a: usize,
    b0: usize,
    w: usize,
    nfp: usize,
) -> [(std::arch::x86_64::__m256i, std::arch::x86_64::__m256i); 4] {
    use std::arch::x86_64::*;
    assert!(b0 + G * LANES <= nfp && u.len() == w * nfp && g.len() == w * nfp);
    let lut = _mm256_setr_epi8(
        0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
    );
    let low = _mm256_set1_epi8(0x0f);
    let popcount_bytes = |v: __m256i| {
        let lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(v, low));
        let hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16::<4>(v), low));
        _mm256_add_epi8(lo, hi)
    };
    let zero = _mm256_setzero_si256();
    let mut out = [(zero, zero); 4];
    let (up, gp) = (u.as_ptr(), g.as_ptr());
    let mut kw = 0;
    while kw < w {
        let end = (kw + 31).min(w);
        let mut cb = [zero; G];
        let mut cd = [zero; G];
        while kw < end {
            let at = kw * nfp;
            let ua = _mm256_set1_epi64x(u[at + a] as i64);
            let ga = _mm256_set1_epi64x(g[at + a] as i64);
            for t in 0..G {
                // SAFETY: at + b0 + (t + 1) * LANES <= at + nfp <= u.len() (asserted).
                let ub = _mm256_loadu_si256(up.add(at + b0 + t * LANES) as *const __m256i);
                let gb = _mm256_loadu_si256(gp.add(at + b0 + t * LANES) as *const __m256i);
                let common = _mm256_and_si256(ua, ub);
                let d = _mm256_and_si256(common, _mm256_xor_si256(ga, gb));
                cb[t] = _mm256_add_epi8(cb[t], popcount_bytes(common));
                cd[t] = _mm256_add_epi8(cd[t], popcount_bytes(d));
            }
            kw += 1;
        }
        for t in 0..G {
            out[t].0 = _mm256_add_epi64(out[t].0, _mm256_sad_epu8(cb[t], zero));
            out[t].1 = _mm256_add_epi64(out[t].1, _mm256_sad_epu8(cd[t], zero));
        }
    }
    out
}
