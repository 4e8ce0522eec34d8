//! L1 sparse RankSVM (Laporte et al. eq. (7)): proximal Newton vs FISTA (Alg. 1) on the same
//! problem and tolerance, with correlated features as in LETOR.
//! `cargo bench --bench sparse_solvers`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ndarray::Array2;
use rankselect_core::solvers::datafit::{PairwiseHinge, Scaled};
use rankselect_core::solvers::fista::{fista, FistaOptions};
use rankselect_core::solvers::penalty::L1;
use rankselect_core::solvers::prox_newton::{prox_newton, ProxNewtonOptions};
use rankselect_core::NoInterrupt;

fn lcg(state: &mut u64) -> f64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 11) as f64) / ((1u64 << 53) as f64)
}

/// `n` features in groups of 4 that share a common factor (correlation ~0.9), labels 0..4
/// from a planted sparse score.
fn data(n_queries: usize, docs: usize, n: usize) -> (Array2<f64>, Vec<f64>, Vec<usize>) {
    let mut st = 7u64;
    let m = n_queries * docs;
    let mut x = Array2::zeros((m, n));
    for i in 0..m {
        let mut factor = 0.0;
        for j in 0..n {
            if j % 4 == 0 {
                factor = lcg(&mut st);
            }
            x[[i, j]] = factor + 0.3 * lcg(&mut st);
        }
    }
    let y: Vec<f64> = (0..m)
        .map(|i| ((x[[i, 0]] - 0.5 * x[[i, 5]] + 0.8 * x[[i, 9]] + 0.5 * lcg(&mut st)) * 2.0).floor().clamp(0.0, 4.0))
        .collect();
    let offsets: Vec<usize> = (0..=n_queries).map(|q| q * docs).collect();
    (x, y, offsets)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("sparse_l1_ranksvm");
    group.sample_size(10);
    let (x, y, offsets) = data(200, 25, 46);
    for &cc in &[1e-3, 1e-1] {
        let qo_ = rankselect_core::QueryOffsets::new(offsets.clone()).unwrap();
        let f = Scaled::new(PairwiseHinge::new(x.view(), &y, &qo_).unwrap(), cc).unwrap();
        let pen = L1::new(1.0).unwrap();
        let w0 = vec![0.0; 46];
        group.bench_with_input(BenchmarkId::new("prox_newton", cc), &(), |b, _| {
            let o = ProxNewtonOptions { kkt_tol: 1e-6, ..Default::default() };
            b.iter(|| prox_newton(&f, &pen, &w0, &o, &NoInterrupt).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("fista", cc), &(), |b, _| {
            let o = FistaOptions { tol: 1e-6, kkt_tol: 1e-6, max_iter: 100_000, ..Default::default() };
            b.iter(|| fista(&f, &pen, &w0, &o, &NoInterrupt).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
