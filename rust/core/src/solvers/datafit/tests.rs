use super::*;
use ndarray::array;

#[test]
fn pair_norms_match_enumeration() {
    let x: ndarray::Array2<f64> = array![[1.0, 2.0], [0.5, -1.0], [3.0, 0.0], [1.0, 1.0], [2.0, 2.0], [0.0, 1.0]];
    let y = [2.0, 0.0, 1.0, 0.0, 1.0, 1.0];
    let offsets = [0, 4, 6];
    let mut naive = 0.0;
    for w in offsets.windows(2) {
        for i in w[0]..w[1] {
            for j in w[0]..w[1] {
                if y[i] > y[j] {
                    naive += (0..2).map(|k| (x[[i, k]] - x[[j, k]]).powi(2)).sum::<f64>();
                }
            }
        }
    }
    let got = pair_sq_norm_sum(x.view(), &y, &offsets);
    assert!((got - naive).abs() < 1e-12, "{got} vs {naive}");
}

#[test]
fn doubled_quadratic_gradients() {
    let a = array![[2.0, 0.5], [0.5, 1.0]];
    let q = Quadratic::new(a.view(), 0.5).unwrap();
    let d = Doubled { inner: q };
    let w = [1.0, 0.0, 0.25, 2.0];
    let mut g = [0.0; 4];
    let v = d.value_grad(&w, &mut g).unwrap();
    // u = [0.75, -2]; 0.5 uᵀAu
    let u = [0.75, -2.0];
    let expect = 0.5 * (2.0 * u[0] * u[0] + 2.0 * 0.5 * u[0] * u[1] + u[1] * u[1]);
    assert!((v - expect).abs() < 1e-12);
    for k in 0..4 {
        let mut wp = w;
        wp[k] += 1e-6;
        let fd = (d.value(&wp).unwrap() - v) / 1e-6;
        assert!((fd - g[k]).abs() < 1e-4, "{k}: {fd} vs {}", g[k]);
    }
}

/// #35 item 11: a NaN label made the level loop spin (`NaN == NaN` is false, `k` never moved).
#[test]
fn pair_norms_terminate_on_nan_labels() {
    let x = array![[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.5]];
    let y = [f64::NAN, 1.0, f64::NAN, 0.0];
    let v = pair_sq_norm_sum(x.view(), &y, &[0, 4]);
    assert!(v.is_finite());
}
