//! Kendall similarity kernels: the two exact schemes on synthetic LETOR-sized data.
//! `cargo bench --bench kendall`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ndarray::Array2;
use rankselect_core::selection::kendall::{
    kendall_similarity, merge_counts, FeatureOrder, KendallOptions, MergeScratch, Variant,
};
use rankselect_core::{NoInterrupt, QueryOffsets};

/// Deterministic pseudo-random data with ties (no rand dependency in the core).
fn data(rows: usize, features: usize, seed: u64) -> Array2<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    Array2::from_shape_fn((rows, features), |(_, f)| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let u = (s >> 11) as f64 / (1u64 << 53) as f64;
        if f % 3 == 0 {
            (u * 8.0).floor()
        } else {
            u
        }
    })
}

fn similarity(c: &mut Criterion) {
    let mut g = c.benchmark_group("kendall_similarity_46f");
    g.sample_size(10);
    for &len in &[16usize, 64, 128, 512] {
        let nq = (1 << 14) / len;
        let x = data(nq * len, 46, len as u64);
        let offsets = QueryOffsets::from_sizes(&vec![len; nq]);
        for (name, short_max) in [("bitset", usize::MAX), ("merge", 0)] {
            let opts = KendallOptions { variant: Variant::TauB, absolute: false, short_max };
            g.bench_with_input(BenchmarkId::new(name, len), &len, |b, _| {
                b.iter(|| kendall_similarity(x.view(), &offsets, &opts, &NoInterrupt).unwrap())
            });
        }
    }
    g.finish();
}

fn one_pair(c: &mut Criterion) {
    let mut g = c.benchmark_group("merge_counts_one_pair");
    for &len in &[128usize, 1024, 16384] {
        let x = data(len, 2, 7);
        let a = FeatureOrder::new(&x.column(0).to_vec());
        let b = FeatureOrder::new(&x.column(1).to_vec());
        let mut s = MergeScratch::default();
        g.bench_with_input(BenchmarkId::from_parameter(len), &len, |bch, _| bch.iter(|| merge_counts(&a, &b, &mut s)));
    }
    g.finish();
}

criterion_group!(benches, similarity, one_pair);
criterion_main!(benches);
