use super::*;
use crate::interrupt::NoInterrupt;
use crate::solvers::datafit::{Datafit, Doubled, PairwiseHinge, Quadratic, Scaled, Sum};
use crate::solvers::fista::{fista, FistaOptions};
use crate::solvers::penalty::{NonNegWeightedL1, WeightedL1, L1};
use crate::testing::{qo, Lcg};
use ndarray::Array2;

/// A small deterministic pseudo-random query-grouped problem.
fn ranking_problem(m: usize, n: usize, seed: u64) -> (Array2<f64>, Vec<f64>, Vec<usize>) {
    let mut rng = Lcg(seed);
    rng.uniform(); // the first draw is skipped
    let mut next = || rng.uniform();
    let x = Array2::from_shape_fn((m, n), |_| next() * 2.0 - 1.0);
    let y: Vec<f64> =
        (0..m).map(|i| ((x[[i, 0]] + 0.5 * x[[i, 1]] + 0.3 * next()) * 2.0).round().clamp(0.0, 2.0)).collect();
    let offsets: Vec<usize> = (0..=m).step_by(m / 6).chain(std::iter::once(m)).collect::<Vec<_>>();
    let mut offsets = offsets;
    offsets.dedup();
    (x, y, offsets)
}

#[test]
fn hessian_block_matches_gradient_differences() {
    let (x, y, offsets) = ranking_problem(60, 5, 3);
    let qo_ = qo(&offsets);
    let loss = PairwiseHinge::new(x.view(), &y, &qo_).unwrap();
    let w = [0.3, -0.2, 0.1, 0.0, 0.05];
    let ws = [0, 2, 4];
    let mut h = vec![0.0; 9];
    loss.hessian_block(&w, &ws, &mut h).unwrap();
    // The loss is piecewise quadratic: a tiny central difference is exact on the piece.
    let eps = 1e-7;
    for (b, &j) in ws.iter().enumerate() {
        let (mut wp, mut wm) = (w.to_vec(), w.to_vec());
        wp[j] += eps;
        wm[j] -= eps;
        let (mut gp, mut gm) = (vec![0.0; 5], vec![0.0; 5]);
        loss.value_grad(&wp, &mut gp).unwrap();
        loss.value_grad(&wm, &mut gm).unwrap();
        for (a, &i) in ws.iter().enumerate() {
            let fd = (gp[i] - gm[i]) / (2.0 * eps);
            assert!((fd - h[a * 3 + b]).abs() < 1e-5 * (1.0 + fd.abs()), "H[{i},{j}]: {fd} vs {}", h[a * 3 + b]);
        }
    }
}

#[test]
fn l1_matches_fista() {
    let (x, y, offsets) = ranking_problem(120, 8, 7);
    let qo_ = qo(&offsets);
    let loss = Scaled::new(PairwiseHinge::new(x.view(), &y, &qo_).unwrap(), 0.5).unwrap();
    for pen in [
        WeightedL1::new(vec![1.0; 8]).unwrap(),
        WeightedL1::new(vec![0.0, 2.0, 0.5, 1.0, 3.0, 0.1, 1.0, f64::INFINITY]).unwrap(),
    ] {
        let pn = prox_newton(
            &loss,
            &pen,
            &[0.0; 8],
            &ProxNewtonOptions { kkt_tol: 1e-10, ..Default::default() },
            &NoInterrupt,
        )
        .unwrap();
        let fo = FistaOptions { tol: 1e-15, kkt_tol: 1e-10, max_iter: 200_000, ..Default::default() };
        let fi = fista(&loss, &pen, &[0.0; 8], &fo, &NoInterrupt).unwrap();
        let (a, b) = (pn.objective.last().unwrap(), fi.objective.iter().cloned().fold(f64::INFINITY, f64::min));
        assert!(pn.converged, "{} {}", pn.n_iter, pn.kkt);
        assert!((a - b).abs() <= 1e-9 * b.abs(), "{a} vs {b}");
        assert!(pn.objective.windows(2).all(|p| p[1] <= p[0] * (1.0 + 1e-14)));
        assert!(pn.n_iter < 50, "{}", pn.n_iter);
        if pen.weights[7].is_infinite() {
            assert_eq!(pn.w[7], 0.0);
        }
    }
}

#[test]
fn fsmrank_problem_matches_fista() {
    // Lai et al. eq. (2) on doubled features: Quadratic + Doubled(Scaled(hinge)), w ≥ 0.
    let (x, y, offsets) = ranking_problem(90, 4, 11);
    let qo_ = qo(&offsets);
    let loss = PairwiseHinge::new(x.view(), &y, &qo_).unwrap();
    let inv = 1.0 / loss.n_pairs() as f64;
    let a = Array2::from_shape_fn((8, 8), |(i, j)| if i == j { 1.0 } else { 0.2 / (1.0 + (i + j) as f64) });
    let f =
        Sum::new(Quadratic::new(a.view(), 0.05).unwrap(), Doubled { inner: Scaled::new(loss, inv).unwrap() }).unwrap();
    let pen = NonNegWeightedL1::new(vec![0.01; 8]).unwrap();
    // (1e-10 would be below the rounding floor of this objective's line search.)
    let pn = prox_newton(&f, &pen, &[0.0; 8], &ProxNewtonOptions { kkt_tol: 1e-8, ..Default::default() }, &NoInterrupt)
        .unwrap();
    let fo = FistaOptions { tol: 1e-15, kkt_tol: 1e-10, max_iter: 200_000, ..Default::default() };
    let fi = fista(&f, &pen, &[0.0; 8], &fo, &NoInterrupt).unwrap();
    let b = fi.objective.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(pn.converged, "{} {} {:?}", pn.n_iter, pn.kkt, pn.objective);
    assert!((pn.objective.last().unwrap() - b).abs() <= 1e-9 * b.abs());
    assert!(pn.w.iter().all(|&v| v >= 0.0));
}

#[test]
fn warm_start_at_optimum_stops_at_once() {
    let (x, y, offsets) = ranking_problem(60, 5, 5);
    let qo_ = qo(&offsets);
    let loss = Scaled::new(PairwiseHinge::new(x.view(), &y, &qo_).unwrap(), 2.0).unwrap();
    let pen = L1::new(1.0).unwrap();
    let opts = ProxNewtonOptions { kkt_tol: 1e-9, ..Default::default() };
    let a = prox_newton(&loss, &pen, &[0.0; 5], &opts, &NoInterrupt).unwrap();
    let b = prox_newton(&loss, &pen, &a.w, &opts, &NoInterrupt).unwrap();
    assert_eq!(b.n_iter, 0);
    assert_eq!(a.w, b.w);
    let stop = || true;
    assert!(matches!(prox_newton(&loss, &pen, &[0.0; 5], &opts, &stop), Err(crate::Error::Interrupted)));
    assert!(prox_newton(&loss, &pen, &[0.0; 4], &opts, &NoInterrupt).is_err());
}
