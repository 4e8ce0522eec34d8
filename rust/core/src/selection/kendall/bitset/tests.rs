use super::build::{build_column, circular_diagonals, BitWriter, RANKED_MAX};
use super::*;
use crate::selection::kendall::Variant;

#[test]
fn writer_packs_bits_across_words() {
    let (mut out, mut other) = (vec![0u64; 3], vec![0u64; 3]);
    let mut w = BitWriter::new(&mut out, &mut other, 1);
    w.push(0b101, 0, 3);
    w.push(u64::MAX, 0, 64);
    w.push(0b1, 0, 1);
    w.push(0, 0, 60);
    w.push(0b11, 0, 2);
    w.finish();
    assert_eq!(other, vec![0; 3]);
    assert_eq!(out[0], 0b101 | (u64::MAX << 3));
    assert_eq!(out[1], 0b111 | (1 << 3));
    assert_eq!(out[2], 0b11);
}

#[test]
fn avx2_and_scalar_rows_agree_with_pair_counts() {
    use ndarray::Array2;
    // 7 features (one padding lane), queries of 2 to 140 documents (1 to 152 words),
    // a constant feature and heavy ties.
    let sizes = [2usize, 5, 8, 12, 40, 70, 140];
    let m: usize = sizes.iter().sum();
    let nf = 7;
    let x = Array2::from_shape_fn((m, nf), |(i, f)| match f {
        3 => 1.5,
        _ => ((i * (7 + 3 * f) + f * f) % (3 + 4 * f)) as f64 - 2.0,
    });
    let offsets = QueryOffsets::from_sizes(&sizes);
    let batch: Vec<usize> = (0..sizes.len()).collect();
    let pairs: Vec<(u32, u32)> = (0..nf as u32).flat_map(|a| (a..nf as u32).map(move |b| (a, b))).collect();
    for variant in [Variant::TauB, Variant::Geng] {
        let mut rows = Vec::new();
        for avx2 in [false, has_avx2()] {
            let bits = BitBatch::build(x.view(), &offsets, &batch, avx2);
            let mut sums = vec![0.0; nf * bits.row_len(variant)];
            for (a, row) in sums.chunks_mut(bits.row_len(variant)).enumerate() {
                bits.add_row(a, 0..batch.len(), variant, row, avx2);
            }
            rows.push(sums);
        }
        assert_eq!(rows[0], rows[1], "{variant:?}");
        // Each value is the sum over queries, in order, of the PairCounts statistic.
        let bits = BitBatch::build(x.view(), &offsets, &batch, false);
        let width = bits.row_len(variant);
        let mut expect = vec![0.0; nf * width];
        for k in 0..batch.len() {
            for (&(a, b), c) in pairs.iter().zip(bits.counts(k, &pairs)) {
                let (a, b) = (a as usize, b as usize);
                match variant {
                    Variant::TauB => expect[a * width + row_index(nf, b, 0)] += c.tau_b(),
                    Variant::Geng => {
                        expect[a * width + row_index(nf, b, 0)] += c.geng();
                        expect[a * width + row_index(nf, b, 1)] += c.geng_negated();
                    }
                }
            }
        }
        for &(a, b) in &pairs {
            for part in 0..width / padded_features(nf) {
                let i = a as usize * width + row_index(nf, b as usize, part);
                assert_eq!(rows[0][i].to_bits(), expect[i].to_bits(), "{variant:?} ({a}, {b}) part {part}");
            }
        }
    }
}

#[test]
fn rebuilt_batch_equals_a_fresh_one() {
    use ndarray::Array2;
    let sizes = [3usize, 40, 9, 130, 64, 2];
    let m: usize = sizes.iter().sum();
    let nf = 5;
    let x = Array2::from_shape_fn((m, nf), |(i, f)| ((i * (5 + 2 * f) + 3 * f) % (2 + 3 * f)) as f64);
    let offsets = QueryOffsets::from_sizes(&sizes);
    let pairs: Vec<(u32, u32)> = (0..nf as u32).flat_map(|a| (a..nf as u32).map(move |b| (a, b))).collect();
    for avx2 in [false, has_avx2()] {
        // Garbage from a larger batch first: every word must be overwritten.
        let mut bits = BitBatch::build(x.view(), &offsets, &[3, 1, 4, 0], avx2);
        for batch in [vec![5usize, 2, 0], vec![1, 3]] {
            bits.rebuild(x.view(), &offsets, &batch, avx2, false).unwrap();
            let fresh = BitBatch::build(x.view(), &offsets, &batch, avx2);
            for k in 0..batch.len() {
                assert_eq!(bits.counts(k, &pairs), fresh.counts(k, &pairs), "avx2 {avx2}, batch {batch:?}");
            }
            assert_eq!((&bits.untied, &bits.gt, &bits.n_untied), (&fresh.untied, &fresh.gt, &fresh.n_untied));
        }
    }
}

/// The pair `(i, j)` (bit = `x_j > x_i`) at each bit position of `build_column`'s
/// bitsets: row-major over `i < j`, or the circular order of the ranked AVX2 build.
fn pair_order(n: usize, circular: bool) -> Vec<(usize, usize)> {
    if circular {
        circular_diagonals(n).flat_map(|(d, len)| (0..len).map(move |i| (i, (i + d) % n))).collect()
    } else {
        (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect()
    }
}

#[test]
fn bitsets_hold_every_pair_once_in_their_order() {
    for n in [0usize, 1, 2, 3, 4, 5, 6, 8, 9, 17, 63, 64, 65, 70, 127, 128, 129, 130] {
        let mut col: Vec<f64> = (0..n).map(|i| ((i * 7919) % 13) as f64 - if i % 5 == 0 { 0.0 } else { 6.0 }).collect();
        col.extend([1.0, -1.0, 7.0]);
        let w = pair_words(n);
        for avx2 in [false, has_avx2()] {
            let circular = avx2 && n <= RANKED_MAX;
            let order = pair_order(n, circular);
            let mut seen: Vec<(usize, usize)> = order.iter().map(|&(i, j)| (i.min(j), i.max(j))).collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len() as u64, choose2(n), "n = {n}: every pair once");
            assert_eq!(order.len() as u64, choose2(n));
            let (mut u, mut g) = (vec![0; w], vec![0; w]);
            let n_untied = build_column(&col, n, &mut u, &mut g, 1, avx2);
            assert_eq!(n_untied, u.iter().map(|v| v.count_ones() as u64).sum::<u64>());
            for (p, &(i, j)) in order.iter().enumerate() {
                assert_eq!(u[p / 64] >> (p % 64) & 1 == 1, col[j] != col[i], "n = {n}, avx2 = {avx2}, pair {p}");
                assert_eq!(g[p / 64] >> (p % 64) & 1 == 1, col[j] > col[i], "n = {n}, avx2 = {avx2}, pair {p}");
            }
            let used = choose2(n) as usize;
            for p in used..64 * w {
                assert_eq!((u[p / 64] >> (p % 64) & 1, g[p / 64] >> (p % 64) & 1), (0, 0), "padding bit {p}");
            }
        }
    }
}
