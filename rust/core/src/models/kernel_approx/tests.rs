use super::*;
use crate::testing::Lcg;
use crate::NoInterrupt;
use ndarray::{array, Array1};

fn lcg(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Lcg(seed);
    (0..n).map(|_| rng.uniform() * 2.0 - 1.0).collect()
}

fn mat(n: usize, d: usize, seed: u64) -> Array2<f64> {
    Array2::from_shape_vec((n, d), lcg(n * d, seed)).unwrap()
}

fn naive(x: &Array2<f64>, z: &Array2<f64>, k: Kernel) -> Array2<f64> {
    Array2::from_shape_fn((x.nrows(), z.nrows()), |(i, j)| {
        let xi = x.row(i);
        let zj = z.row(j);
        let dot: f64 = xi.iter().zip(zj.iter()).map(|(a, b)| a * b).sum();
        match k {
            Kernel::Rbf { gamma } => {
                let d2: f64 = xi.iter().zip(zj.iter()).map(|(a, b)| (a - b) * (a - b)).sum();
                (-gamma * d2).exp()
            }
            Kernel::Linear => dot,
            Kernel::Polynomial { gamma, coef0, degree } => (gamma * dot + coef0).powf(degree),
            Kernel::Sigmoid { gamma, coef0 } => (gamma * dot + coef0).tanh(),
        }
    })
}

#[test]
fn kernel_block_matches_naive() {
    let x = mat(300, 7, 1);
    let z = mat(13, 7, 2);
    for k in [
        Kernel::Rbf { gamma: 0.3 },
        Kernel::Linear,
        Kernel::Polynomial { gamma: 0.5, coef0: 1.0, degree: 3.0 },
        Kernel::Sigmoid { gamma: 0.2, coef0: 0.1 },
    ] {
        let got = kernel_block(x.view(), z.view(), k, &NoInterrupt).unwrap();
        let want = naive(&x, &z, k);
        let err = (&got - &want).iter().fold(0.0f64, |a, v| a.max(v.abs()));
        assert!(err < 1e-12, "{k:?}: {err}");
    }
}

#[test]
fn nystroem_full_rank_reproduces_kernel_on_landmarks() {
    // With all points as landmarks and a well-conditioned W, φ(X)φ(X)ᵀ = K.
    let x = mat(20, 3, 3);
    let k = Kernel::Rbf { gamma: 2.0 };
    let n = nystroem_normalization(x.view(), k, None, &crate::NoInterrupt).unwrap();
    let z = nystroem_transform(x.view(), x.view(), n.view(), k, &NoInterrupt).unwrap();
    let approx = z.dot(&z.t());
    let exact = naive(&x, &x, k);
    let err = (&approx - &exact).iter().fold(0.0f64, |a, v| a.max(v.abs()));
    assert!(err < 1e-8, "{err}");
}

#[test]
fn nystroem_rank_k_is_best_rank_k_pseudo_inverse() {
    let x = mat(30, 4, 4);
    let k = Kernel::Rbf { gamma: 0.7 };
    let nk = nystroem_normalization(x.view(), k, Some(5), &crate::NoInterrupt).unwrap();
    assert_eq!(nk.dim(), (5, 30));
    // Rows are orthogonal with squared norms 1/σ_i (decreasing σ => increasing norms).
    let g = nk.dot(&nk.t());
    let norms: Vec<f64> = (0..5).map(|i| g[[i, i]]).collect();
    for w in norms.windows(2) {
        assert!(w[0] <= w[1] * (1.0 + 1e-12));
    }
    for i in 0..5 {
        for j in 0..5 {
            if i != j {
                assert!(g[[i, j]].abs() < 1e-8 * norms[4]);
            }
        }
    }
    // W N_kᵀ N_k W = W_k (rank-k approximation): its trace is the sum of the top-5 eigenvalues.
    let w = kernel_gram(x.view(), k).unwrap();
    let wk = w.dot(&nk.t()).dot(&nk).dot(&w);
    let tr: f64 = (0..30).map(|i| wk[[i, i]]).sum();
    let tr_sum_inv: f64 = norms.iter().map(|v| 1.0 / v).sum();
    assert!((tr - tr_sum_inv).abs() < 1e-8 * tr);
}

#[test]
fn rff_matches_naive_and_is_thread_independent() {
    // 2500 rows: several row chunks, so the 1-thread and default pools split differently.
    let x = mat(2500, 5, 5);
    let w = mat(5, 17, 6);
    let b = Array1::from(lcg(17, 7));
    let z = random_fourier_transform(x.view(), w.view(), b.view(), &NoInterrupt).unwrap();
    let p = x.dot(&w);
    let s = (2.0f64 / 17.0).sqrt();
    let want = Array2::from_shape_fn((2500, 17), |(i, j)| (p[[i, j]] + b[j]).cos() * s);
    let err = (&z - &want).iter().fold(0.0f64, |a, v| a.max(v.abs()));
    assert!(err < 1e-12);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let z1 = pool.install(|| random_fourier_transform(x.view(), w.view(), b.view(), &NoInterrupt)).unwrap();
    assert_eq!(z, z1);
}

#[test]
fn nystroem_transform_is_thread_independent() {
    let x = mat(2500, 6, 21);
    let z = mat(40, 6, 22);
    let k = Kernel::Rbf { gamma: 0.4 };
    let n = nystroem_normalization(z.view(), k, None, &crate::NoInterrupt).unwrap();
    let run = || nystroem_transform(x.view(), z.view(), n.view(), k, &NoInterrupt).unwrap();
    let many = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    assert_eq!(many.install(run), one.install(run));
    let kb = kernel_block(x.view(), z.view(), k, &NoInterrupt).unwrap();
    let want = naive(&x, &z, k);
    let err = (&kb - &want).iter().fold(0.0f64, |a, v| a.max(v.abs()));
    assert!(err < 1e-12, "{err}");
}

#[test]
fn bad_inputs_are_errors() {
    let x = mat(4, 3, 8);
    let z = mat(4, 2, 9);
    assert!(kernel_block(x.view(), z.view(), Kernel::Linear, &NoInterrupt).is_err());
    assert!(nystroem_normalization(x.view(), Kernel::Linear, Some(0), &crate::NoInterrupt).is_err());
    assert!(nystroem_normalization(x.view(), Kernel::Linear, Some(5), &crate::NoInterrupt).is_err());
    assert!(Kernel::from_name("rbf", -1.0, 0.0, 3.0).is_err());
    assert!(Kernel::from_name("laplace", 1.0, 0.0, 3.0).is_err());
    let w = mat(2, 3, 10);
    let b = array![0.0, 1.0, 2.0];
    assert!(random_fourier_transform(x.view(), w.view(), b.view(), &NoInterrupt).is_err());
    let stop = || true;
    assert!(matches!(
        random_fourier_transform(x.view(), mat(3, 3, 11).view(), b.view(), &stop),
        Err(crate::Error::Interrupted)
    ));
}
