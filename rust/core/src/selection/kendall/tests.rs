use super::bitset::{has_avx2, BitBatch};
use super::*;
use crate::data::groups::QueryOffsets;
use crate::interrupt::NoInterrupt;
use crate::linalg::all_finite;
use crate::testing::qo;
use ndarray::Array2;
use proptest::prelude::*;

fn naive_counts(a: &[f64], b: &[f64]) -> PairCounts {
    let n = a.len();
    let mut c = PairCounts { pairs: choose2(n), ..Default::default() };
    for i in 0..n {
        for j in i + 1..n {
            let ta = a[i] == a[j];
            let tb = b[i] == b[j];
            c.ties_a += ta as u64;
            c.ties_b += tb as u64;
            c.ties_ab += (ta && tb) as u64;
            if !ta && !tb && ((a[i] < a[j]) != (b[i] < b[j])) {
                c.discordant += 1;
            }
        }
    }
    c
}

fn both_schemes(cols: &[Vec<f64>]) -> (Vec<PairCounts>, Vec<PairCounts>, Vec<PairCounts>) {
    let n = cols[0].len();
    let nf = cols.len();
    let pairs: Vec<(u32, u32)> = (0..nf as u32).flat_map(|a| (a..nf as u32).map(move |b| (a, b))).collect();
    let naive: Vec<PairCounts> =
        pairs.iter().map(|&(a, b)| naive_counts(&cols[a as usize], &cols[b as usize])).collect();
    let x = Array2::from_shape_fn((n, nf), |(i, f)| cols[f][i]);
    let offsets = QueryOffsets::from_sizes(&[n]);
    let short =
        if n >= 2 { BitBatch::build(x.view(), &offsets, &[0], has_avx2()).counts(0, &pairs) } else { naive.clone() };
    let short_generic =
        if n >= 2 { BitBatch::build(x.view(), &offsets, &[0], false).counts(0, &pairs) } else { naive.clone() };
    assert_eq!(short, short_generic);
    let orders: Vec<FeatureOrder> = cols.iter().map(|c| FeatureOrder::new(c)).collect();
    let mut s = MergeScratch::default();
    let merge = pairs.iter().map(|&(a, b)| merge_counts(&orders[a as usize], &orders[b as usize], &mut s)).collect();
    (naive, short, merge)
}

proptest! {
    #[test]
    fn schemes_match_naive(n in 0usize..200, nf in 1usize..4, levels in 1u32..8, seed in 0u64..1000) {
        // Values from a few levels, so ties are frequent.
        let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % levels as u64) as f64 - 1.0
        };
        let cols: Vec<Vec<f64>> = (0..nf).map(|_| (0..n).map(|_| next()).collect()).collect();
        let (naive, short, merge) = both_schemes(&cols);
        prop_assert_eq!(&naive, &short);
        prop_assert_eq!(&naive, &merge);
    }
}

#[test]
fn signed_zero_ties_in_both_schemes() {
    let cols = vec![vec![0.0, -0.0, 1.0, -0.0, 0.0], vec![1.0, 2.0, 2.0, 0.0, -0.0]];
    let (naive, short, merge) = both_schemes(&cols);
    assert_eq!(naive, short);
    assert_eq!(naive, merge);
}

#[test]
fn long_runs_cross_word_boundaries() {
    let n = 150;
    let a: Vec<f64> = (0..n).map(|i| ((i * 37) % 11) as f64).collect();
    let b: Vec<f64> = (0..n).map(|i| ((i * 13) % 7) as f64).collect();
    let (naive, short, merge) = both_schemes(&[a, b]);
    assert_eq!(naive, short);
    assert_eq!(naive, merge);
}

#[test]
fn tau_b_of_perfect_and_reversed_orders() {
    let x = Array2::from_shape_vec((4, 2), vec![1.0, 4.0, 2.0, 3.0, 3.0, 2.0, 4.0, 1.0]).unwrap();
    for short_max in [0, 100] {
        let opts = KendallOptions { variant: Variant::TauB, absolute: false, short_max };
        let s = kendall_similarity(x.view(), &qo(&[0, 4]), &opts, &NoInterrupt).unwrap();
        assert_eq!(s[[0, 0]], 1.0);
        assert_eq!(s[[0, 1]], -1.0);
        let opts = KendallOptions { absolute: true, ..opts };
        let s = kendall_similarity(x.view(), &qo(&[0, 4]), &opts, &NoInterrupt).unwrap();
        assert_eq!(s[[0, 1]], 1.0);
        let opts = KendallOptions { variant: Variant::Geng, absolute: false, short_max };
        let s = kendall_similarity(x.view(), &qo(&[0, 4]), &opts, &NoInterrupt).unwrap();
        assert_eq!(s[[0, 1]], 0.0);
        let opts = KendallOptions { absolute: true, ..opts };
        let s = kendall_similarity(x.view(), &qo(&[0, 4]), &opts, &NoInterrupt).unwrap();
        assert_eq!(s[[0, 1]], 1.0);
    }
}

#[test]
fn same_result_for_any_thread_count_and_scheme() {
    let (m, nf) = (900, 5);
    let data: Vec<f64> = (0..m * nf).map(|i| ((i * 7919) % 23) as f64).collect();
    let x = Array2::from_shape_vec((m, nf), data).unwrap();
    let offsets = vec![0, 1, 40, 41, 300, 310, 900];
    let run = |threads: usize, short_max: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let opts = KendallOptions { variant: Variant::TauB, absolute: false, short_max };
        pool.install(|| kendall_similarity(x.view(), &qo(&offsets), &opts, &NoInterrupt).unwrap())
    };
    let base = run(1, 0);
    assert_eq!(base, run(2, 0));
    assert_eq!(base, run(3, 100));
    assert_eq!(base, run(2, usize::MAX));
}

#[test]
fn all_finite_finds_every_non_finite_position() {
    for len in [0usize, 1, 7, 8, 9, 17, 40] {
        let base: Vec<f64> = (0..len).map(|i| if i % 3 == 0 { -f64::MAX } else { i as f64 * 1e300 }).collect();
        assert!(all_finite(&base));
        for at in 0..len {
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let mut v = base.clone();
                v[at] = bad;
                assert!(!all_finite(&v), "len {len}, position {at}, {bad}");
            }
        }
    }
}

#[test]
fn errors_are_reported() {
    let x = Array2::from_shape_vec((3, 1), vec![1.0, f64::NAN, 2.0]).unwrap();
    assert!(kendall_similarity(x.view(), &qo(&[0, 3]), &KendallOptions::default(), &NoInterrupt).is_err());
    let x = Array2::from_shape_vec((2, 1), vec![1.0, 2.0]).unwrap();
    let e = kendall_similarity(x.view(), &qo(&[0, 1, 2]), &KendallOptions::default(), &NoInterrupt);
    assert!(e.is_err());
    let e = kendall_similarity(x.view(), &qo(&[0, 3]), &KendallOptions::default(), &NoInterrupt);
    assert!(e.is_err());
    let stop = || true;
    let x = Array2::from_shape_vec((2, 1), vec![1.0, 2.0]).unwrap();
    let e = kendall_similarity(x.view(), &qo(&[0, 2]), &KendallOptions::default(), &stop);
    assert!(matches!(e, Err(crate::Error::Interrupted)));
}

#[test]
fn features_constant_in_a_whole_batch_give_the_same_sums() {
    // Batches split by the long query (merge sort at short_max = 30): columns 1 and 4 are
    // constant in every query of the first batch (left out of its bitsets) and vary later;
    // column 2 is constant everywhere, column 5 in all but one query of the first batch.
    let sizes = [5usize, 12, 3, 40, 7, 25, 2, 9];
    let m: usize = sizes.iter().sum();
    let nf = 7;
    let mut offsets = vec![0usize];
    for s in sizes {
        offsets.push(offsets.last().unwrap() + s);
    }
    let query_of = |i: usize| offsets.iter().rposition(|&o| o <= i).unwrap();
    let x = Array2::from_shape_fn((m, nf), |(i, f)| {
        let q = query_of(i);
        match f {
            1 | 4 if q < 3 => 2.5 + q as f64,
            2 => -1.0,
            5 if q != 1 && q < 3 => 0.0,
            _ => ((i * (7 + 3 * f) + f * f) % (3 + 2 * f)) as f64 - 2.0,
        }
    });
    for variant in [Variant::TauB, Variant::Geng] {
        for absolute in [false, true] {
            let run = |short_max: usize| {
                let opts = KendallOptions { variant, absolute, short_max };
                kendall_similarity(x.view(), &qo(&offsets), &opts, &NoInterrupt).unwrap()
            };
            let (merge, bits) = (run(0), run(30));
            let same = merge.iter().zip(bits.iter()).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{variant:?} absolute {absolute}:\n{merge}\n{bits}");
        }
    }
}

#[test]
fn a_batch_of_constant_columns_only() {
    // Batch 1 (queries 0, 1) holds no column; query 2 is long (merge sort); batch 2 varies.
    let x =
        Array2::from_shape_vec((9, 2), vec![1., 2., 1., 2., 5., 0., 5., 0., 3., 1., 4., 2., 3., 3., 1., 2., 2., 1.])
            .unwrap();
    for variant in [Variant::TauB, Variant::Geng] {
        let run = |short_max: usize| {
            let opts = KendallOptions { variant, absolute: false, short_max };
            kendall_similarity(x.view(), &qo(&[0, 2, 4, 7, 9]), &opts, &NoInterrupt).unwrap()
        };
        let (merge, bits) = (run(0), run(2));
        assert!(merge.iter().zip(bits.iter()).all(|(a, b)| a.to_bits() == b.to_bits()), "{variant:?}");
        let all_constant = Array2::from_elem((4, 3), 1.5);
        let opts = KendallOptions { variant, absolute: false, short_max: 100 };
        let s = kendall_similarity(all_constant.view(), &qo(&[0, 2, 4]), &opts, &NoInterrupt).unwrap();
        assert!(s.iter().all(|v| v.to_bits() == 0));
    }
}
