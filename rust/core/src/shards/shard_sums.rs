//! Per-shard sums of the per-query terms of Kendall similarity and pairwise importance.
//!
//! [`crate::selection::kendall::kendall_similarity`] and [`crate::selection::importance::pairwise_accuracy`] are
//! means (or ratios) of sums over queries. Over query shards (rows split into blocks of whole
//! queries, e.g. the chunks of a Dask array), each shard returns its sums and counts and
//! the totals give the same statistic: `sim = sum_s S_s / sum_s Q_s` (Geng et al. 2007,
//! Section 2.3) and `acc = 1 - sum_s E_s / (2 sum_s P_s)` (Section 2.2, GAS-L).

use ndarray::{Array2, ArrayView2};

use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::selection::kendall::{for_each_query_counts, Variant};

/// Sums over this shard's queries with at least 2 documents of the per-query Kendall
/// statistic of every feature pair: `(S, S_neg, Q)` where `S[a, b] = sum_q tau_q(a, b)`,
/// `S_neg[a, b] = sum_q D_q / n0_q` (Geng similarity with `-b`; zeros for tau-b) and `Q` the
/// number of queries used. Symmetric `n x n` matrices.
pub fn kendall_sums<I: Interrupt + ?Sized>(
    x: ArrayView2<f64>,
    offsets: &QueryOffsets,
    variant: Variant,
    short_max: usize,
    interrupt: &I,
) -> Result<(Array2<f64>, Array2<f64>, u64)> {
    let nf = x.ncols();
    let pairs: Vec<(u32, u32)> = (0..nf as u32).flat_map(|a| (a..nf as u32).map(move |b| (a, b))).collect();
    let mut sum = vec![0.0f64; pairs.len()];
    let mut sum_neg = vec![0.0f64; pairs.len()];
    let mut used = 0u64;
    for_each_query_counts(x, offsets, &pairs, short_max, interrupt, |_, counts| {
        used += 1;
        for ((s, sn), c) in sum.iter_mut().zip(sum_neg.iter_mut()).zip(counts) {
            match variant {
                Variant::Geng => {
                    *s += c.geng();
                    *sn += c.geng_negated();
                }
                Variant::TauB => *s += c.tau_b(),
            }
        }
    })?;
    let mut s = Array2::<f64>::zeros((nf, nf));
    let mut sn = Array2::<f64>::zeros((nf, nf));
    for (p, &(a, b)) in pairs.iter().enumerate() {
        for (m, v) in [(&mut s, sum[p]), (&mut sn, sum_neg[p])] {
            m[[a as usize, b as usize]] = v;
            m[[b as usize, a as usize]] = v;
        }
    }
    Ok((s, sn, used))
}

/// Exact counts behind pairwise accuracy on this shard, `(E_asc, E_desc, P)`: the one
/// definition is [`crate::selection::importance::pairwise_counts`] (which `pairwise_accuracy` uses).
pub use crate::selection::importance::pairwise_counts;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use crate::selection::importance::pairwise_accuracy;
    use crate::selection::kendall::{kendall_similarity, KendallOptions, DEFAULT_SHORT_MAX};
    use crate::testing::problem;

    #[test]
    fn shard_sums_give_the_in_memory_statistics() {
        let (x, y, off) = problem(5, &[4, 1, 6, 3, 5, 2], 4);
        let off = QueryOffsets::new(off).unwrap();
        let y: Vec<f64> = y.iter().map(|v| (v.abs() * 2.0).floor()).collect();
        let cut = 3; // shards: queries 0..3 and 3..6
        let parts = [(0, cut), (cut, off.len() - 1)];
        for variant in [Variant::Geng, Variant::TauB] {
            let (mut s, mut sn, mut q) = (Array2::<f64>::zeros((4, 4)), Array2::<f64>::zeros((4, 4)), 0);
            for &(a, b) in &parts {
                let r0 = off[a];
                let so = QueryOffsets::new(off[a..=b].iter().map(|o| o - r0).collect()).unwrap();
                let xs = x.slice(ndarray::s![r0..off[b], ..]);
                let (ps, pn, pq) = kendall_sums(xs, &so, variant, DEFAULT_SHORT_MAX, &NoInterrupt).unwrap();
                s = s + ps;
                sn = sn + pn;
                q += pq;
            }
            for absolute in [false, true] {
                let opts = KendallOptions { variant, absolute, short_max: DEFAULT_SHORT_MAX };
                let full = kendall_similarity(x.view(), &off, &opts, &NoInterrupt).unwrap();
                for a in 0..4 {
                    for b in 0..4 {
                        let v = match (variant, absolute) {
                            (_, false) => s[[a, b]] / q as f64,
                            (Variant::Geng, true) => s[[a, b]].max(sn[[a, b]]) / q as f64,
                            (Variant::TauB, true) => (s[[a, b]] / q as f64).abs(),
                        };
                        assert!((v - full[[a, b]]).abs() < 1e-14);
                    }
                }
            }
        }
        let (mut ea, mut ed, mut p) = (vec![0u64; 4], vec![0u64; 4], 0);
        for &(a, b) in &parts {
            let r0 = off[a];
            let so = QueryOffsets::new(off[a..=b].iter().map(|o| o - r0).collect()).unwrap();
            let xs = x.slice(ndarray::s![r0..off[b], ..]);
            let ys = ndarray::ArrayView1::from(&y[r0..off[b]]);
            let (a_, d_, p_) = pairwise_counts(xs, ys, &so, DEFAULT_SHORT_MAX, &NoInterrupt).unwrap();
            ea.iter_mut().zip(a_).for_each(|(t, v)| *t += v);
            ed.iter_mut().zip(d_).for_each(|(t, v)| *t += v);
            p += p_;
        }
        let full = pairwise_accuracy(x.view(), ndarray::ArrayView1::from(&y[..]), &off, None, &NoInterrupt).unwrap();
        for f in 0..4 {
            assert_eq!(1.0 - ea[f] as f64 / (2.0 * p as f64), full.ascending[f]);
            assert_eq!(1.0 - ed[f] as f64 / (2.0 * p as f64), full.descending[f]);
        }
    }
}
