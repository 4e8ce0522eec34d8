use super::*;
use crate::pairwise::pairs::preference_pairs;
use crate::testing::{qo, Lcg};
use ndarray::Array2;

fn data(seed: u64, integer: bool) -> (Array2<f64>, Vec<f64>, Vec<usize>, Vec<f64>) {
    let mut st = Lcg(seed);
    let sizes = [1usize, 7, 4, 12, 3, 9, 5];
    let m: usize = sizes.iter().sum();
    let n = 4;
    let x = Array2::from_shape_fn((m, n), |_| {
        let v = st.uniform() * 4.0 - 2.0;
        if integer {
            v.round()
        } else {
            v
        }
    });
    let mut y: Vec<f64> = (0..m).map(|_| (st.uniform() * 3.0).floor()).collect();
    // query 4: all labels equal
    y[1 + 7 + 4 + 12..1 + 7 + 4 + 12 + 3].iter_mut().for_each(|v| *v = 1.0);
    let mut offsets = vec![0];
    for s in sizes {
        offsets.push(offsets.last().unwrap() + s);
    }
    let w: Vec<f64> = (0..n)
        .map(|_| {
            let v = st.uniform() * 2.0 - 1.0;
            if integer {
                v.round()
            } else {
                v
            }
        })
        .collect();
    (x, y, offsets, w)
}

fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-10 * (1.0 + scale)
}

#[test]
fn implicit_equals_explicit() {
    for seed in 0..20u64 {
        for &integer in &[false, true] {
            let (x, y, offsets, w) = data(seed, integer);
            let qo_ = qo(&offsets);
            let pairs = preference_pairs(&y, &qo_, None, u64::MAX).unwrap();
            let imp = SquaredHinge::new(x.view(), &y, &qo_).unwrap();
            let exp = ExplicitSquaredHinge::new(x.view(), &qo_, &pairs).unwrap();
            assert_eq!(imp.n_pairs(), pairs.len());
            let n = x.ncols();
            let (mut g1, mut g2) = (vec![0.0; n], vec![0.0; n]);
            let v1 = imp.value_grad(&w, &mut g1);
            let v2 = exp.value_grad(&w, &mut g2);
            assert!(close(v1, v2, v2.abs()), "{v1} {v2}");
            assert!(close(imp.value(&w), v2, v2.abs()));
            for (a, b) in g1.iter().zip(&g2) {
                assert!(close(*a, *b, b.abs()), "{g1:?} {g2:?}");
            }
            let dir: Vec<f64> = (0..n).map(|k| (k as f64) - 1.5).collect();
            let (mut h1, mut h2) = (vec![0.0; n], vec![0.0; n]);
            imp.hessian(&w).apply(&dir, &mut h1);
            exp.hessp(&w, &dir, &mut h2);
            for (a, b) in h1.iter().zip(&h2) {
                assert!(close(*a, *b, b.abs()), "{h1:?} {h2:?}");
            }
        }
    }
}

#[test]
fn zero_pairs_and_single_documents() {
    let x = Array2::from_shape_vec((3, 1), vec![1.0, 2.0, 3.0]).unwrap();
    let y = [1.0, 1.0, 0.0];
    let offsets = [0, 2, 3];
    let qo_ = qo(&offsets);
    let l = SquaredHinge::new(x.view(), &y, &qo_).unwrap();
    assert_eq!(l.n_pairs(), 0);
    let mut g = [1.0];
    assert_eq!(l.value_grad(&[0.5], &mut g), 0.0);
    assert_eq!(g, [0.0]);
    let mut h = [1.0];
    l.hessian(&[0.5]).apply(&[1.0], &mut h);
    assert_eq!(h, [0.0]);
}

#[test]
fn hand_computed() {
    // one query, rows (y=2, s=0.5), (y=1, s=0), (y=0, s=1): pairs (0,1) m=0.5,
    // (0,2) m=1.5, (1,2) m=2 -> L = 0.25 + 2.25 + 4 = 6.5
    let x = Array2::from_shape_vec((3, 1), vec![0.5, 0.0, 1.0]).unwrap();
    let y = [2.0, 1.0, 0.0];
    let offsets = [0, 3];
    let qo_ = qo(&offsets);
    let l = SquaredHinge::new(x.view(), &y, &qo_).unwrap();
    let mut g = [0.0];
    let v = l.value_grad(&[1.0], &mut g);
    assert!((v - 6.5).abs() < 1e-12);
    // dL/ds = [-2(0.5+1.5), 2*0.5 - 2*2, 2*1.5 + 2*2] = [-4, -3, 7]; grad = -4*0.5 + 7
    assert!((g[0] - 5.0).abs() < 1e-12);
}

#[test]
fn bad_input() {
    let x = Array2::<f64>::zeros((2, 1));
    assert!(SquaredHinge::new(x.view(), &[1.0], &qo(&[0, 1])).is_err());
    assert!(SquaredHinge::new(x.view(), &[1.0, f64::NAN], &qo(&[0, 2])).is_err());
    assert!(SquaredHinge::new(x.view(), &[1.0, 0.0], &qo(&[0, 3])).is_err());
}
