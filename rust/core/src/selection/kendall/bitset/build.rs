//! The bitsets of one column of a query: scalar, 4-wide AVX comparisons, or through byte
//! ranks in the circular pair order (AVX2, short queries).

/// Appends bit strings to two word slices in step (the `untied` and `gt` bitsets of one
/// column), low bits first; word `k` goes to index `k * stride`. Every word up to the last
/// bit is written (no zeroed input needed), and the set bits of `untied` are counted.
pub(super) struct BitWriter<'a> {
    untied: &'a mut [u64],
    gt: &'a mut [u64],
    stride: usize,
    acc_u: u64,
    acc_g: u64,
    fill: u32,
    pos: usize,
    n_untied: u64,
}

impl<'a> BitWriter<'a> {
    pub(super) fn new(untied: &'a mut [u64], gt: &'a mut [u64], stride: usize) -> Self {
        BitWriter { untied, gt, stride, acc_u: 0, acc_g: 0, fill: 0, pos: 0, n_untied: 0 }
    }

    #[inline(always)]
    fn store(&mut self, u: u64, g: u64) {
        self.untied[self.pos * self.stride] = u;
        self.gt[self.pos * self.stride] = g;
        self.n_untied += u.count_ones() as u64;
        self.pos += 1;
    }

    /// Appends the low `len` bits of `u` and `g` (`1 <= len <= 64`, higher bits zero).
    #[inline(always)]
    pub(super) fn push(&mut self, u: u64, g: u64, len: u32) {
        self.acc_u |= u << self.fill;
        self.acc_g |= g << self.fill;
        let total = self.fill + len;
        if total >= 64 {
            self.store(self.acc_u, self.acc_g);
            let used = 64 - self.fill;
            (self.acc_u, self.acc_g) = if used == 64 { (0, 0) } else { (u >> used, g >> used) };
            self.fill = total - 64;
        } else {
            self.fill = total;
        }
    }

    /// Writes the last partial word; returns the set bits of `untied`.
    pub(super) fn finish(mut self) -> u64 {
        if self.fill > 0 {
            self.store(self.acc_u, self.acc_g);
        }
        self.n_untied
    }
}

/// Scalar bitsets of the column `col[..n]` (`pair_words(n)` words at stride `stride` in
/// `untied` and `gt`); returns the untied pairs.
#[inline(always)]
fn build_column_scalar(col: &[f64], n: usize, untied: &mut [u64], gt: &mut [u64], stride: usize) -> u64 {
    let mut wr = BitWriter::new(untied, gt, stride);
    let col = &col[..n];
    for i in 0..n.saturating_sub(1) {
        let xi = col[i];
        for chunk in col[i + 1..].chunks(64) {
            let (mut u, mut g) = (0u64, 0u64);
            for (t, &xj) in chunk.iter().enumerate() {
                g |= ((xj > xi) as u64) << t;
                u |= ((xj != xi) as u64) << t;
            }
            wr.push(u, g, chunk.len() as u32);
        }
    }
    wr.finish()
}

/// The same bitsets with 4-wide AVX comparisons (`movemask` gives 4 pair bits at once);
/// `col` holds at least `n + 3` values (padding: the last group of a row is masked).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn build_column_avx2(col: &[f64], n: usize, untied: &mut [u64], gt: &mut [u64], stride: usize) -> u64 {
    use std::arch::x86_64::*;
    assert!(col.len() >= n + 3);
    let mut wr = BitWriter::new(untied, gt, stride);
    let p = col.as_ptr();
    for (i, &xi) in col[..n.saturating_sub(1)].iter().enumerate() {
        let vi = _mm256_set1_pd(xi);
        let mut j = i + 1;
        let (mut u, mut g, mut len) = (0u64, 0u64, 0u32);
        while j < n {
            // SAFETY: j + 3 < n + 3 <= col.len().
            let v = _mm256_loadu_pd(p.add(j));
            let mut mg = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_GT_OQ>(v, vi)) as u64;
            let mut mu = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_NEQ_OQ>(v, vi)) as u64;
            let take = if j + 4 <= n {
                4
            } else {
                let t = (n - j) as u32;
                mg &= (1 << t) - 1;
                mu &= (1 << t) - 1;
                t
            };
            g |= mg << len;
            u |= mu << len;
            len += take;
            j += 4;
            if len > 60 {
                wr.push(u, g, len);
                (u, g, len) = (0, 0, 0);
            }
        }
        if len > 0 {
            wr.push(u, g, len);
        }
    }
    wr.finish()
}

/// Longest query whose bitsets are built from ranks ([`build_column_ranked_avx2`]).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // used by the x86-64 kernels
pub(super) const RANKED_MAX: usize = 128;

/// The same bitsets through ranks, for `n <= RANKED_MAX` (`col.len() >= n + 3`).
///
/// 1. `r_i = #{j : x_j < x_i}`, the competition rank: equal values share it and distinct
///    values keep their order, so `x_j > x_i <=> r_j > r_i` and `x_j == x_i <=> r_j == r_i`.
///    Documents `i` sit in the lanes (4 vectors of 4) and every `x_j` is broadcast once:
///    `n^2` comparisons at 3 vector operations per 4, with no horizontal sums.
/// 2. With `r < 128` as bytes, the pairs are taken in the circular order of
///    [`circular_diagonals`]: diagonal `d` compares the ranks with themselves rotated by
///    `d`, 32 pairs per instruction, and its `n` bits are stored whole (no per-row shifts).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn build_column_ranked_avx2(col: &[f64], n: usize, untied: &mut [u64], gt: &mut [u64], stride: usize) -> u64 {
    use std::arch::x86_64::*;
    assert!(n <= RANKED_MAX && col.len() >= n + 3);
    let p = col.as_ptr();
    // Ranks, as bytes, followed by at least 31 bytes of padding for the 32-wide loads.
    let mut rank = [0i8; RANKED_MAX + 32];
    let n4 = n.div_ceil(4);
    let mut i4 = 0;
    while i4 < n4 {
        let k = (n4 - i4).min(4);
        // SAFETY: 4 * (i4 + k) <= 4 * n4 <= n + 3 <= col.len().
        let xi = [0, 1, 2, 3].map(|t| if t < k { _mm256_loadu_pd(p.add(4 * (i4 + t))) } else { _mm256_setzero_pd() });
        let mut acc = [_mm256_setzero_si256(); 4];
        for j in 0..n {
            let xj = _mm256_broadcast_sd(&*p.add(j));
            for t in 0..4 {
                // all ones (-1) where x_j < x_i
                let lt = _mm256_castpd_si256(_mm256_cmp_pd::<_CMP_LT_OQ>(xj, xi[t]));
                acc[t] = _mm256_sub_epi64(acc[t], lt);
            }
        }
        for (t, a) in acc.iter().enumerate().take(k) {
            let mut r = [0i64; 4];
            _mm256_storeu_si256(r.as_mut_ptr() as *mut __m256i, *a);
            for (l, &v) in r.iter().enumerate() {
                rank[4 * (i4 + t) + l] = v as i8; // v < n <= 128; lanes past n are unused
            }
        }
        i4 += k;
    }
    // The ranks twice over, so that `rr[i + d] = r_{(i + d) mod n}`.
    let mut rr = [0i8; 2 * RANKED_MAX + 32];
    rr[..n].copy_from_slice(&rank[..n]);
    rr[n..2 * n].copy_from_slice(&rank[..n]);
    let rp = rr.as_ptr();
    let mut wr = BitWriter::new(untied, gt, stride);
    // Diagonal d: pairs (i, (i + d) mod n), i < len, as bit i of the masks.
    let chunk = |d: usize, c: usize| {
        // SAFETY: d + 32 * c + 32 <= n / 2 + n + 32 <= rr.len() for 32 * c < len <= n.
        let ri = _mm256_loadu_si256(rp.add(32 * c) as *const __m256i);
        let rj = _mm256_loadu_si256(rp.add(d + 32 * c) as *const __m256i);
        let g = _mm256_movemask_epi8(_mm256_cmpgt_epi8(rj, ri)) as u32 as u64;
        let e = _mm256_movemask_epi8(_mm256_cmpeq_epi8(rj, ri)) as u32 as u64;
        (g, e)
    };
    if n <= 32 {
        for (d, len) in circular_diagonals(n) {
            let keep = (1u64 << len) - 1;
            let (g, e) = chunk(d, 0);
            wr.push(!e & keep, g & keep, len as u32);
        }
    } else {
        for (d, len) in circular_diagonals(n) {
            let mut c = 0;
            let mut left = len;
            while left > 0 {
                // 64 pairs at a time: two chunks of 32.
                let (g0, e0) = chunk(d, c);
                let (g1, e1) = if left > 32 { chunk(d, c + 1) } else { (0, !0) };
                let take = left.min(64);
                let keep = if take == 64 { u64::MAX } else { (1u64 << take) - 1 };
                let (g, e) = (g0 | g1 << 32, e0 | e1 << 32);
                wr.push(!e & keep, g & keep, take as u32);
                left -= take;
                c += 2;
            }
        }
    }
    wr.finish()
}

/// The circular order of the `n (n - 1) / 2` pairs of [`build_column_ranked_avx2`]:
/// diagonals `d = 1, 2, .., floor(n / 2)` of `len` pairs `(i, (i + d) mod n)`, `i < len`,
/// with `len = n` except `len = n / 2` for `d = n / 2`, `n` even (its other half repeats the
/// same pairs). Every unordered pair appears once; a pair with `i + d >= n` is oriented
/// from the larger index, the same way for every feature, which leaves `U` and `D` as they
/// are.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // used by the x86-64 kernels
pub(super) fn circular_diagonals(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (1..=n / 2).map(move |d| (d, if 2 * d == n { d } else { n }))
}

/// Padding after each column of [`build_column`]'s input.
pub(super) const PAD: usize = 3;

/// Bitsets of the column `col[..n]` (`col.len() >= n + PAD`), with AVX2 when `avx2`: its
/// `pair_words(n)` words at stride `stride` in `untied` and `gt`, all written; returns the
/// untied pairs.
pub(super) fn build_column(
    col: &[f64],
    n: usize,
    untied: &mut [u64],
    gt: &mut [u64],
    stride: usize,
    avx2: bool,
) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: the CPU supports avx2 and popcnt (checked by the caller with `has_avx2`).
        return unsafe {
            if n <= RANKED_MAX {
                build_column_ranked_avx2(col, n, untied, gt, stride)
            } else {
                build_column_avx2(col, n, untied, gt, stride)
            }
        };
    }
    let _ = avx2;
    build_column_scalar(col, n, untied, gt, stride)
}
