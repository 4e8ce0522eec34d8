//! Criterion benches of greedy RankRLS: the first candidate scan and one fused step (the
//! cache update of a step and the candidate scan of the next, one pass over C and U);
//! m = 60,000 rows in 500 queries of 120, n = 136.
use criterion::{criterion_group, criterion_main, Criterion};
use ndarray::Array2;
use rankselect_core::selection::greedy_rls::{GreedyState, Squared};

fn problem(m: usize, n: usize) -> (Array2<f64>, Vec<f64>, rankselect_core::QueryOffsets) {
    let mut s = 0x9E3779B97F4A7C15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let x = Array2::from_shape_fn((m, n), |_| next());
    let y: Vec<f64> = (0..m).map(|_| (next() * 4.0 + 2.0).floor()).collect();
    let offsets: Vec<usize> = (0..=m / 120).map(|q| q * 120).collect();
    (x, y, rankselect_core::QueryOffsets::new(offsets).unwrap())
}

fn bench(c: &mut Criterion) {
    let (m, n) = (60_000, 136);
    let (x, y, off) = problem(m, n);
    let skip = vec![false; n];
    let mut state = GreedyState::new(x.view(), &y, &off, 1.0).expect("fits in memory");
    let mut g = c.benchmark_group("greedy_rls");
    g.sample_size(10);
    g.bench_function("scan m=60000 n=136", |b| b.iter(|| state.pass(None, &y, &Squared, &skip)));
    let mut skip3 = skip.clone();
    skip3[3] = true;
    g.bench_function("fused step m=60000 n=136", |b| {
        b.iter_batched_ref(
            || GreedyState::new(x.view(), &y, &off, 1.0).expect("fits in memory"),
            |st| {
                let step = st.select(3);
                st.pass(Some(&step), &y, &Squared, &skip3)
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
