use super::*;
use crate::error::Error;
use crate::testing::qo;

#[test]
fn labels_overflowing_the_gain_are_refused() {
    let y = [1024.0, 0.0, 3.0];
    let s = [0.3, 0.2, 0.1];
    for m in [Measure::Ndcg(Some(10)), Measure::MeanNdcg, Measure::Err(None)] {
        let e = per_query(&MetricSpec::new(m), &y, &s, &qo(&[0, 3])).unwrap_err().to_string();
        assert!(e.contains("label 1024") && e.contains("overflow"), "{e}");
    }
    // 1020-1023: each gain is finite but their sum is not (NaN before): refused too; 959
    // works, and measures without the gain accept any label.
    for top in [960.0, 1020.0, 1023.0] {
        let y = [top, top, 0.0];
        assert!(per_query(&MetricSpec::new(Measure::Ndcg(None)), &y, &s, &qo(&[0, 3])).is_err(), "{top}");
    }
    let v = per_query(&MetricSpec::new(Measure::Ndcg(None)), &[959.0, 959.0, 0.0], &s, &qo(&[0, 3])).unwrap();
    assert!(v[0].is_finite());
    assert!(per_query(&MetricSpec::new(Measure::AveragePrecision), &y, &s, &qo(&[0, 3])).is_ok());
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn parse_measures() {
    assert_eq!("ndcg".parse::<Measure>().unwrap(), Measure::Ndcg(None));
    assert_eq!("NDCG@10".parse::<Measure>().unwrap(), Measure::Ndcg(Some(10)));
    assert_eq!("p@5".parse::<Measure>().unwrap(), Measure::Precision(5));
    assert_eq!("Precision@5".parse::<Measure>().unwrap(), Measure::Precision(5));
    assert_eq!("MAP".parse::<Measure>().unwrap(), Measure::AveragePrecision);
    assert_eq!("ap".parse::<Measure>().unwrap(), Measure::AveragePrecision);
    assert_eq!("MeanNDCG".parse::<Measure>().unwrap(), Measure::MeanNdcg);
    assert_eq!("mean_ndcg".parse::<Measure>().unwrap(), Measure::MeanNdcg);
    assert_eq!("err".parse::<Measure>().unwrap(), Measure::Err(None));
    assert_eq!("ERR@3".parse::<Measure>().unwrap(), Measure::Err(Some(3)));
    for bad in ["", "p", "p@0", "ndcg@x", "map@3", "foo", "ndcg@-1"] {
        assert!(matches!(bad.parse::<Measure>(), Err(Error::InvalidInput(_))), "{bad}");
    }
    for m in ["NDCG@10", "P@5", "MAP", "MeanNDCG", "ERR", "ERR@2", "NDCG"] {
        assert_eq!(m.parse::<Measure>().unwrap().to_string(), m);
    }
}

/// Hand-checked LETOR example: labels in ranked order 0, 2, 1, 0 (scores distinct).
/// gains 0, 3, 1, 0; ideal 3, 1, 0, 0.
/// DCG@1..4 = 0, 3, 3 + 1/log2 3, same; IDCG@1..4 = 3, 4, 4, 4.
#[test]
fn letor_hand_example() {
    let labels = [0.0, 2.0, 1.0, 0.0];
    let scores = [4.0, 3.0, 2.0, 1.0];
    let l = |m| query_metric(&MetricSpec::letor(m), &labels, &scores);
    let d3 = 3.0 + 1.0 / 3f64.log2();
    assert_eq!(l(Measure::Ndcg(Some(1))), 0.0);
    assert!(close(l(Measure::Ndcg(Some(2))), 0.75));
    assert!(close(l(Measure::Ndcg(Some(3))), d3 / 4.0));
    assert!(close(l(Measure::Ndcg(Some(4))), d3 / 4.0));
    assert_eq!(l(Measure::Ndcg(Some(5))), 0.0);
    assert!(close(l(Measure::MeanNdcg), (0.0 + 0.75 + 2.0 * d3 / 4.0) / 4.0));
    assert!(close(l(Measure::Precision(1)), 0.0));
    assert!(close(l(Measure::Precision(3)), 2.0 / 3.0));
    assert!(close(l(Measure::Precision(10)), 0.2));
    assert!(close(l(Measure::AveragePrecision), (0.5 + 2.0 / 3.0) / 2.0));
}

#[test]
fn ties_and_conventions() {
    let labels = [0.0, 1.0, 0.5];
    let scores = [1.0, 1.0, 0.0];
    let p1 =
        |c, t| query_metric(&MetricSpec { measure: Measure::Precision(1), convention: c, ties: t }, &labels, &scores);
    assert_eq!(p1(Convention::Standard, Ties::Stable), 0.0);
    let spec = MetricSpec::new(Measure::Precision(2)).with_ties(Ties::Pessimistic);
    assert_eq!(query_metric(&spec, &[1.0, 0.0], &[1.0, 1.0]), 0.5);
    // 0.5 is relevant in the standard convention only.
    let ap = |c| query_metric(&MetricSpec::new(Measure::AveragePrecision).with_convention(c), &[0.5], &[0.0]);
    assert_eq!(ap(Convention::Standard), 1.0);
    assert_eq!(ap(Convention::Letor), 0.0);
}

#[test]
fn per_query_mean_and_errors() {
    let labels = [1.0, 0.0, 0.0, 2.0, 0.0];
    let scores = [0.3, 0.2, 0.9, 0.1, 0.5];
    let offsets = [0, 2, 5];
    let spec = MetricSpec::new(Measure::AveragePrecision);
    let v = per_query(&spec, &labels, &scores, &qo(&offsets)).unwrap();
    assert_eq!(v, vec![1.0, 1.0 / 3.0]);
    assert!(close(mean(&spec, &labels, &scores, &qo(&offsets)).unwrap(), 2.0 / 3.0));
    let many = per_query_many(
        &[
            spec,
            MetricSpec::new(Measure::Ndcg(Some(1))),
            MetricSpec::new(Measure::AveragePrecision).with_ties(Ties::Pessimistic),
        ],
        &labels,
        &scores,
        &qo(&offsets),
        None,
    )
    .unwrap();
    assert_eq!(many[0], v);
    assert_eq!(many[1], vec![1.0, 0.0]);
    assert_eq!(many[2], v);
    assert!(per_query(&spec, &labels, &scores[..4], &qo(&offsets)).is_err());
    assert!(per_query(&spec, &labels, &scores, &qo(&[0, 2, 4])).is_err());
    assert!(per_query(&spec, &[-1.0, 0.0, 0.0, 0.0, 0.0], &scores, &qo(&offsets)).is_err());
    assert!(per_query(&MetricSpec::new(Measure::Precision(0)), &labels, &scores, &qo(&offsets)).is_err());
    assert!(per_query(&spec, &labels, &[f64::NAN, 0.0, 0.0, 0.0, 0.0], &qo(&offsets)).is_err());
    assert!(mean(&spec, &[], &[], &qo(&[0])).is_err());
    assert!(per_query_graded(&MetricSpec::new(Measure::Err(None)), &labels, &scores, &qo(&offsets), Some(1.0)).is_err());
}

#[test]
fn parallel_path_equals_query_by_query() {
    // > PARALLEL_MIN_ROWS rows: the rayon path must give exactly the sequential values.
    let mut state = 12345u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut offsets = vec![0usize];
    while *offsets.last().unwrap() < 40_000 {
        let len = 1 + next() % 60;
        offsets.push(offsets.last().unwrap() + len);
    }
    let m = *offsets.last().unwrap();
    let labels: Vec<f64> = (0..m).map(|_| (next() % 3) as f64).collect();
    let scores: Vec<f64> = (0..m).map(|_| (next() % 7) as f64).collect();
    for spec in [
        MetricSpec::letor(Measure::Ndcg(Some(10))),
        MetricSpec::new(Measure::MeanNdcg).with_ties(Ties::Pessimistic),
        MetricSpec::new(Measure::Err(None)),
    ] {
        let par = per_query(&spec, &labels, &scores, &qo(&offsets)).unwrap();
        let seq: Vec<f64> = offsets
            .windows(2)
            .map(|w| query_metric_graded(&spec, &labels[w[0]..w[1]], &scores[w[0]..w[1]], 2.0, &mut Scratch::new()))
            .collect();
        assert_eq!(par, seq);
    }
}

#[test]
fn err_definition() {
    // ranked labels 2, 1 with g_max = 2: R = 3/4, 1/4.
    let spec = MetricSpec::new(Measure::Err(None));
    let v = query_metric(&spec, &[2.0, 1.0], &[1.0, 0.0]);
    assert!(close(v, 0.75 + 0.25 * 0.25 / 2.0));
    let v = per_query_graded(&spec, &[2.0, 1.0], &[1.0, 0.0], &qo(&[0, 2]), Some(4.0)).unwrap()[0];
    assert!(close(v, 3.0 / 16.0 + (13.0 / 16.0) * (1.0 / 16.0) / 2.0));
}

#[test]
fn gains_and_empty_queries_per_convention() {
    // Labels (2, 0, 1) ranked as given: exponential gains (3, 0, 1), linear (2, 0, 1).
    let (y, s) = ([2.0, 0.0, 1.0], [3.0, 2.0, 1.0]);
    let d = |g: [f64; 3]| g[0] + g[1] / 3f64.log2() + g[2] / 2.0;
    let ndcg = |c| query_metric(&MetricSpec::new(Measure::Ndcg(None)).with_convention(c), &y, &s);
    assert!(close(ndcg(Convention::Standard), d([3.0, 0.0, 1.0]) / d([3.0, 1.0, 0.0])));
    assert!(close(ndcg(Convention::Lightgbm), ndcg(Convention::Standard)));
    assert!(close(ndcg(Convention::Trec), d([2.0, 0.0, 1.0]) / d([2.0, 1.0, 0.0])));
    // No relevant document: 0, except LightGBM's 1.
    let none = |c| query_metric(&MetricSpec::new(Measure::Ndcg(Some(10))).with_convention(c), &[0.0, 0.0], &[1.0, 0.0]);
    assert_eq!((none(Convention::Standard), none(Convention::Trec), none(Convention::Lightgbm)), (0.0, 0.0, 1.0));
}

#[test]
fn convention_and_tie_names_round_trip() {
    for c in Convention::ALL {
        assert_eq!(c.name().parse::<Convention>().unwrap(), c);
        assert_eq!(c.name().to_uppercase().parse::<Convention>().unwrap(), c);
    }
    for t in Ties::ALL {
        assert_eq!(format!(" {} ", t.name()).parse::<Ties>().unwrap(), t);
    }
    assert_eq!(Convention::ALL[0], Convention::default());
    assert_eq!(Ties::ALL[0], Ties::default());
    let e = "zz".parse::<Convention>().unwrap_err().to_string();
    assert!(
        e.contains("convention must be one of 'standard', 'exponential', 'trec', 'lightgbm', 'letor', got \"zz\""),
        "{e}"
    );
    assert_eq!("standard".parse::<Convention>().unwrap(), Convention::Standard);
    for name in Convention::NAMES {
        assert!(name.parse::<Convention>().is_ok(), "{name}");
    }
    let e = "zz".parse::<Ties>().unwrap_err().to_string();
    assert!(e.contains("ties must be 'stable' or 'pessimistic'"), "{e}");
}

/// The cascade grid (`cascade.rs`).
mod cascade {
    use super::*;
    use crate::data::groups::QueryOffsets;
    use crate::interrupt::NoInterrupt;

    fn offsets(v: Vec<usize>) -> QueryOffsets {
        QueryOffsets::new(v).unwrap()
    }

    #[test]
    fn window_covering_the_query_is_phase_two_alone_and_window_one_keeps_phase_one_below() {
        let labels = [0.0, 2.0, 1.0, 0.0, 1.0];
        let off = offsets(vec![0, 3, 5]);
        let s1 = [3.0, 2.0, 1.0, 1.0, 2.0];
        let s2 = [1.0, 3.0, 4.0, 0.0, 3.0, 2.0, 5.0, 2.0, 1.0, 1.0]; // 2 candidates x 5 rows (no tie in row 0)
        let spec = MetricSpec::new(Measure::Ndcg(Some(3)));
        let grid = CascadeGrid {
            labels: &labels,
            offsets: &off,
            scores1: &s1,
            n1: 1,
            scores2: &s2,
            n2: 2,
            phase1: &[0, 0],
            windows: &[100, 1],
        };
        let v = cascade_grid(&spec, &grid, u64::MAX, &NoInterrupt).unwrap();
        let alone = per_query(&spec, &labels, &s1, &off).unwrap();
        assert_eq!(v.single, alone);
        let col0: Vec<f64> = s2[..5].to_vec();
        let p2 = per_query(&spec, &labels, &col0, &off).unwrap();
        assert_eq!(vec![v.cascade[0], v.cascade[2]], p2);
        // window 1: phase 1's top document first, then phase 1's order: the phase-1 order
        assert_eq!(vec![v.cascade[1], v.cascade[3]], alone);
    }

    #[test]
    fn bad_arguments_are_errors() {
        let labels = [0.0, 1.0];
        let off = offsets(vec![0, 2]);
        let spec = MetricSpec::new(Measure::Ndcg(Some(1)));
        let ok = CascadeGrid {
            labels: &labels,
            offsets: &off,
            scores1: &[1.0, 0.0],
            n1: 1,
            scores2: &[0.0, 1.0],
            n2: 1,
            phase1: &[0],
            windows: &[1],
        };
        assert!(cascade_grid(&spec, &ok, u64::MAX, &NoInterrupt).is_ok());
        for bad in [
            CascadeGrid { windows: &[0], ..ok },
            CascadeGrid { phase1: &[1], ..ok },
            CascadeGrid { scores2: &[0.0], ..ok },
            CascadeGrid { scores1: &[f64::NAN, 0.0], ..ok },
            CascadeGrid { n1: 0, scores1: &[], ..ok },
        ] {
            assert!(cascade_grid(&spec, &bad, u64::MAX, &NoInterrupt).is_err());
        }
        assert!(cascade_grid(&spec, &ok, 8, &NoInterrupt).is_err());
        assert!(cascade_grid(&spec, &ok, u64::MAX, &|| true).is_err());
    }

    /// Queries long enough for every path of the window ranking (the bound, its second pass,
    /// more than 64 kept, ties among the first ranks, cut-offs beyond the tabled ones) against
    /// the composed ranking measured by `per_query`, bit for bit.
    #[test]
    fn long_queries_with_ties_equal_the_composed_ranking() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as f64 / (1u64 << 31) as f64
        };
        let sizes = [1usize, 7, 30, 150, 301, 90];
        let mut off = vec![0usize];
        for n in sizes {
            off.push(off.last().unwrap() + n);
        }
        let m = *off.last().unwrap();
        let labels: Vec<f64> = (0..m).map(|_| (next() * 5.0).floor().min(4.0) * (next() < 0.3) as u8 as f64).collect();
        // phase 1 with ties; phase 2: continuous, coarse (many ties) and constant rows
        let s1: Vec<f64> = (0..2 * m).map(|_| (next() * 40.0).round()).collect();
        let mut s2 = Vec::new();
        let (mut phase1, mut windows) = (Vec::new(), Vec::new());
        for (c, w) in [1usize, 5, 10, 64, 100, 1000].into_iter().enumerate() {
            for kind in 0..3 {
                s2.extend((0..m).map(|_| match kind {
                    0 => next() - 0.5,
                    1 => (next() * 4.0).round() - 2.0,
                    _ => -0.0,
                }));
                phase1.push(c % 2);
                windows.push(w);
            }
        }
        let n2 = windows.len();
        let off = QueryOffsets::new(off).unwrap();
        let measures = [
            Measure::Ndcg(Some(10)),
            Measure::Ndcg(Some(50)),
            Measure::Ndcg(None),
            Measure::Precision(5),
            Measure::Err(Some(10)),
            Measure::AveragePrecision,
        ];
        for measure in measures {
            for ties in [Ties::Stable, Ties::Pessimistic] {
                for convention in [Convention::Standard, Convention::Letor, Convention::Lightgbm] {
                    let spec = MetricSpec { measure, convention, ties };
                    let grid = CascadeGrid {
                        labels: &labels,
                        offsets: &off,
                        scores1: &s1,
                        n1: 2,
                        scores2: &s2,
                        n2,
                        phase1: &phase1,
                        windows: &windows,
                    };
                    let v = cascade_grid(&spec, &grid, u64::MAX, &NoInterrupt).unwrap();
                    for c in 0..n2 {
                        let a = phase1[c];
                        let composed = composed_scores(
                            &off,
                            &labels,
                            &s1[a * m..(a + 1) * m],
                            &s2[c * m..(c + 1) * m],
                            windows[c],
                            ties,
                        );
                        let want = per_query(&spec, &labels, &composed, &off).unwrap();
                        let got: Vec<f64> = (0..sizes.len()).map(|q| v.cascade[q * n2 + c]).collect();
                        assert_eq!(got, want, "{measure:?} {ties:?} {convention:?} candidate {c}");
                    }
                }
            }
        }
    }

    /// Scores whose order is the cascade's: phase 1's stable order (ties per `ties`), its top
    /// `window` re-ordered stably by phase 2.
    fn composed_scores(
        off: &QueryOffsets,
        labels: &[f64],
        s1: &[f64],
        s2: &[f64],
        window: usize,
        ties: Ties,
    ) -> Vec<f64> {
        let mut out = vec![0.0; labels.len()];
        for w in off.windows(2) {
            let rows: Vec<usize> = (w[0]..w[1]).collect();
            let by = |s: &[f64], x: usize, y: usize| {
                let t =
                    if ties == Ties::Pessimistic { labels[x].total_cmp(&labels[y]) } else { std::cmp::Ordering::Equal };
                (s[y] + 0.0).total_cmp(&(s[x] + 0.0)).then(t)
            };
            let mut order = rows.clone();
            order.sort_by(|&x, &y| by(s1, x, y));
            let keep = window.min(order.len());
            order[..keep].sort_by(|&x, &y| by(s2, x, y));
            for (rank, &i) in order.iter().enumerate() {
                out[i] = -(rank as f64);
            }
        }
        out
    }
}
