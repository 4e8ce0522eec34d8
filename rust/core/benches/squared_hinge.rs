//! Pairwise squared hinge loss + gradient: implicit (order statistics) vs explicit pairs.
//! `cargo bench --bench squared_hinge`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ndarray::Array2;
use rankselect_core::pairwise::pairs::preference_pairs;
use rankselect_core::pairwise::squared_hinge::{ExplicitSquaredHinge, SquaredHinge};

fn lcg(state: &mut u64) -> f64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 11) as f64) / ((1u64 << 53) as f64)
}

fn data(n_queries: usize, docs: usize, n: usize) -> (Array2<f64>, Vec<f64>, Vec<usize>, Vec<f64>) {
    let mut st = 42u64;
    let m = n_queries * docs;
    let x = Array2::from_shape_fn((m, n), |_| lcg(&mut st));
    let y: Vec<f64> = (0..m).map(|_| (lcg(&mut st) * 5.0).floor()).collect();
    let offsets: Vec<usize> = (0..=n_queries).map(|q| q * docs).collect();
    let w: Vec<f64> = (0..n).map(|_| (lcg(&mut st) - 0.5) * 0.2).collect();
    (x, y, offsets, w)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("squared_hinge_value_grad");
    group.sample_size(10);
    for &(nq, docs) in &[(400usize, 20usize), (8, 1000)] {
        let (x, y, offsets, w) = data(nq, docs, 46);
        let mut g = vec![0.0; 46];
        let qo_ = rankselect_core::QueryOffsets::new(offsets.clone()).unwrap();
        let imp = SquaredHinge::new(x.view(), &y, &qo_).unwrap();
        let label = format!("{nq}x{docs}");
        group.bench_with_input(BenchmarkId::new("implicit", &label), &(), |b, _| b.iter(|| imp.value_grad(&w, &mut g)));
        let qo_ = rankselect_core::QueryOffsets::new(offsets.clone()).unwrap();
        let pairs = preference_pairs(&y, &qo_, None, u64::MAX).unwrap();
        let exp = ExplicitSquaredHinge::new(x.view(), &qo_, &pairs).unwrap();
        group.bench_with_input(BenchmarkId::new("explicit", &label), &(), |b, _| b.iter(|| exp.value_grad(&w, &mut g)));
        let h = imp.hessian(&w);
        let v: Vec<f64> = (0..46).map(|k| k as f64 * 0.01).collect();
        group.bench_with_input(BenchmarkId::new("implicit_hessp", &label), &(), |b, _| b.iter(|| h.apply(&v, &mut g)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
