//! Criterion bench of the IR metrics (`cargo bench --bench metrics`): NDCG@10, MAP and the
//! whole 23-metric table (`per_query_many`) on MQ2008-sized data (784 queries of ~20
//! documents) and on 2,000 queries of 500 documents (1M rows), scores with ties.
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rankselect_core::metrics::{mean, per_query_many, Convention, Measure, MetricSpec};

fn lcg(state: &mut u64) -> f64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 11) as f64) / ((1u64 << 53) as f64)
}

/// `n_queries` queries of `docs` documents: grades 0-2, scores rounded to 1e-2 (ties).
fn data(n_queries: usize, docs: usize) -> (Vec<f64>, Vec<f64>, rankselect_core::QueryOffsets) {
    let mut st = 7u64;
    let m = n_queries * docs;
    let y: Vec<f64> = (0..m).map(|_| (lcg(&mut st) * 3.0).floor()).collect();
    let s: Vec<f64> = y.iter().map(|v| ((v + 2.0 * lcg(&mut st)) * 100.0).round() / 100.0).collect();
    let offsets: Vec<usize> = (0..=n_queries).map(|q| q * docs).collect();
    (y, s, rankselect_core::QueryOffsets::new(offsets).unwrap())
}

fn table() -> Vec<MetricSpec> {
    let mut specs = vec![MetricSpec::letor(Measure::AveragePrecision), MetricSpec::letor(Measure::MeanNdcg)];
    for k in 1..=10 {
        specs.push(MetricSpec::letor(Measure::Ndcg(Some(k))));
        specs.push(MetricSpec::letor(Measure::Precision(k)));
    }
    specs.push(MetricSpec::new(Measure::Err(Some(10))).with_convention(Convention::Standard));
    specs
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("metrics");
    g.sample_size(10);
    let specs = table();
    for &(nq, docs) in &[(784usize, 20usize), (2000, 500)] {
        let (y, s, off) = data(nq, docs);
        let id = format!("{nq}x{docs}");
        let ndcg = MetricSpec::letor(Measure::Ndcg(Some(10)));
        let map = MetricSpec::letor(Measure::AveragePrecision);
        g.bench_with_input(BenchmarkId::new("ndcg@10", &id), &(), |b, _| b.iter(|| mean(&ndcg, &y, &s, &off).unwrap()));
        g.bench_with_input(BenchmarkId::new("map", &id), &(), |b, _| b.iter(|| mean(&map, &y, &s, &off).unwrap()));
        g.bench_with_input(BenchmarkId::new("table (23 metrics)", &id), &(), |b, _| {
            b.iter(|| per_query_many(&specs, &y, &s, &off, Some(2.0)).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
