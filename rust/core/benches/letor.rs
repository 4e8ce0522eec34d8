//! Criterion bench of the LETOR parser on an in-memory MSLR-like buffer
//! (136 dense features, ~120 documents per query, about 16 MB).

use std::fmt::Write;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rankselect_core::data::letor::{parse_letor, Letor, LetorOptions};
use rankselect_core::NoInterrupt;

/// Deterministic pseudo-random text (xorshift), no rand dependency.
fn buffer(rows: usize) -> String {
    let mut s = String::with_capacity(rows * 1600);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for r in 0..rows {
        let _ = write!(s, "{} qid:{}", next() % 5, r / 120);
        for j in 1..=136u32 {
            let v = next();
            if j % 5 == 1 {
                let _ = write!(s, " {j}:{}", v % 1000);
            } else {
                let _ = write!(s, " {j}:{:.6}", (v % 1_000_000_007) as f64 / 1e6);
            }
        }
        s.push('\n');
    }
    s
}

fn bench(c: &mut Criterion) {
    let text = buffer(10_000);
    let opts = LetorOptions::default();
    let mut g = c.benchmark_group("letor");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(10);
    g.bench_function("parse_f64_136_features", |b| {
        b.iter(|| {
            let d: Letor<f64> = parse_letor(black_box(text.as_bytes()), &opts, &NoInterrupt).unwrap();
            black_box(d.x.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
