use super::blocked::{gram_waves, rows_times_waves, BLOCK};
use super::*;
use crate::error::Error;
use crate::testing::{naive_lqo, naive_ridge, problem, qo, Rng};
use ndarray::Array2;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn fit_matches_naive() {
    let (x, y, off) = problem(3, &[4, 1, 6, 3, 5], 4);
    let w = fit(x.view(), &y, &qo(&off), 0.7).unwrap();
    let (xc, yc) = center(x.view(), &y, &off).unwrap();
    let all: Vec<usize> = (0..x.nrows()).collect();
    let wn = naive_ridge(&xc, &yc, &all, &[0, 1, 2, 3], 0.7);
    for (a, b) in w.iter().zip(&wn) {
        assert!(close(*a, *b, 1e-12));
    }
}

#[test]
fn lqo_matches_brute_force() {
    let (x, y, off) = problem(11, &[4, 1, 6, 3, 5, 2], 3);
    let lqo = fit_lqo(x.view(), &y, &qo(&off), 0.3, &NoInterrupt).unwrap();
    let (err, preds) = naive_lqo(&x, &y, &off, &[0, 1, 2], 0.3);
    assert!(close(lqo.lqo_error, err, 1e-10), "{} vs {}", lqo.lqo_error, err);
    for (a, b) in lqo.predictions.iter().zip(&preds) {
        assert!(close(*a, *b, 1e-10));
    }
    let path = lqo_alpha_path(x.view(), &y, &qo(&off), &[0.3, 2.0], &NoInterrupt).unwrap();
    assert!(close(path.lqo_errors[0], err, 1e-10));
    let (err2, _) = naive_lqo(&x, &y, &off, &[0, 1, 2], 2.0);
    assert!(close(path.lqo_errors[1], err2, 1e-10));
    for (a, b) in path.coefs.row(0).iter().zip(&lqo.coef) {
        assert!(close(*a, *b, 1e-10));
    }
}

#[test]
fn bad_input_is_an_error() {
    let (x, y, off) = problem(1, &[3, 3], 2);
    assert!(fit_lqo(x.view(), &y, &qo(&off), 0.0, &NoInterrupt).is_err());
    assert!(fit_lqo(x.view(), &y[..5], &qo(&off), 1.0, &NoInterrupt).is_err());
    assert!(fit_lqo(x.view(), &y, &qo(&[0, 6]), 1.0, &NoInterrupt).is_err());
}

#[test]
fn long_products_stop_on_interrupt_and_match_uninterrupted_results() {
    // Enough rows for several waves: the interrupt is asked between them.
    let (m, n) = (3 * BLOCK + 5, 8);
    let mut rng = Rng(7);
    let xc = Array2::from_shape_fn((m, n), |_| rng.next());
    let calls = std::cell::Cell::new(0usize);
    let stop_second = || {
        calls.set(calls.get() + 1);
        calls.get() > 1
    };
    assert!(matches!(gram_waves(&xc, 1, &stop_second), Err(Error::Interrupted)));
    calls.set(0);
    assert!(matches!(rows_times_waves(&xc, gram(&xc).as_ref(), 1, &stop_second), Err(Error::Interrupted)));
    let v = gram(&xc);
    let full = rows_times_waves(&xc, v.as_ref(), 100, &NoInterrupt).unwrap();
    assert_eq!(rows_times_waves(&xc, v.as_ref(), 1, &NoInterrupt).unwrap(), full);
    // Waves do not change the result: the blocks are summed in the same order.
    let g = gram_waves(&xc, 1, &NoInterrupt).unwrap();
    let mut naive = Mat::<f64>::zeros(n, n);
    for s in (0..m).step_by(BLOCK) {
        let b = as_faer(&xc).subrows(s, (s + BLOCK).min(m) - s);
        let mut p = Mat::<f64>::zeros(n, n);
        faer::linalg::matmul::matmul(p.as_mut(), Accum::Replace, b.transpose(), b, 1.0, Par::Seq);
        naive += &p;
    }
    assert!((0..n).all(|i| (0..n).all(|j| g[(i, j)] == naive[(i, j)])));
}

/// #35 item 8a: the dual (m x m) fit and alpha path equal the primal at n slightly above m
/// (the dual is chosen) and the naive primal ridge and LQO, at several alphas.
#[test]
fn dual_equals_primal_on_wide_data() {
    for (sizes, n) in [(&[4usize, 3, 5][..], 13usize), (&[4, 3, 5][..], 11)] {
        let (x, y, off) = problem(5, sizes, n);
        let m = x.nrows();
        assert_eq!(dual::use_dual(m, n), n > m);
        let (xc, yc) = center(x.view(), &y, &off).unwrap();
        let all: Vec<usize> = (0..m).collect();
        let feats: Vec<usize> = (0..n).collect();
        let alphas = [1e-3, 0.5, 4.0];
        let path = lqo_alpha_path(x.view(), &y, &qo(&off), &alphas, &NoInterrupt).unwrap();
        for (ai, &alpha) in alphas.iter().enumerate() {
            let want = naive_ridge(&xc, &yc, &all, &feats, alpha);
            let w = fit(x.view(), &y, &qo(&off), alpha).unwrap();
            let wd = dual::fit_dual(&xc, &yc, alpha, &NoInterrupt).unwrap();
            for j in 0..n {
                assert!(close(w[j], want[j], 1e-9), "{} vs {}", w[j], want[j]);
                assert!(close(wd[j], want[j], 1e-9));
                assert!(close(path.coefs[(ai, j)], want[j], 1e-9));
            }
            let (err, _) = naive_lqo(&x, &y, &off, &feats, alpha);
            assert!(close(path.lqo_errors[ai], err, 1e-9), "{} vs {err}", path.lqo_errors[ai]);
        }
        let dual_path = dual::alpha_path_dual(&xc, &yc, &qo(&off), &alphas, &NoInterrupt).unwrap();
        for (a, b) in dual_path.lqo_errors.iter().zip(&path.lqo_errors) {
            assert!(close(*a, *b, 1e-9));
        }
    }
}
