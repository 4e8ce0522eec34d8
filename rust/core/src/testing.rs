//! Test fixtures shared by the unit tests of several modules (compiled for tests only):
//! small deterministic pseudo-random problems and brute-force references.

use ndarray::Array2;

use crate::data::groups::QueryOffsets;
use crate::models::rankrls::center;

/// Knuth's MMIX linear congruential generator: `uniform()` is in `[0, 1)` (the top 53 bits
/// of the state after one step).
pub(crate) struct Lcg(pub u64);

impl Lcg {
    pub(crate) fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Validated query offsets (tests' shorthand for `QueryOffsets::new(o.to_vec()).unwrap()`).
pub(crate) fn qo(o: &[usize]) -> QueryOffsets {
    QueryOffsets::new(o.to_vec()).expect("valid test offsets")
}

/// Small deterministic pseudo-random generator for tests (xorshift).
pub(crate) struct Rng(pub u64);
impl Rng {
    pub(crate) fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

pub(crate) fn problem(seed: u64, sizes: &[usize], n: usize) -> (Array2<f64>, Vec<f64>, Vec<usize>) {
    let mut rng = Rng(seed);
    let m: usize = sizes.iter().sum();
    let x = Array2::from_shape_fn((m, n), |_| rng.next());
    let y: Vec<f64> = (0..m).map(|_| (rng.next() * 2.0 + 2.0).floor()).collect();
    let mut offsets = vec![0];
    for s in sizes {
        offsets.push(offsets.last().unwrap() + s);
    }
    (x, y, offsets)
}

/// Naive solve of a small dense system by Gaussian elimination with partial pivoting.
pub(crate) fn naive_solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for c in 0..n {
        let piv = (c..n).max_by(|&i, &j| a[i][c].abs().partial_cmp(&a[j][c].abs()).unwrap()).unwrap();
        a.swap(c, piv);
        b.swap(c, piv);
        for r in c + 1..n {
            let f = a[r][c] / a[c][c];
            let pivot = a[c].clone();
            for (ark, ack) in a[r][c..n].iter_mut().zip(&pivot[c..n]) {
                *ark -= f * ack;
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    x
}

/// Brute force: ridge on centred rows `rows` of (xc, yc) with feature subset `feats`.
pub(crate) fn naive_ridge(xc: &Array2<f64>, yc: &[f64], rows: &[usize], feats: &[usize], alpha: f64) -> Vec<f64> {
    let k = feats.len();
    let mut a = vec![vec![0.0; k]; k];
    let mut b = vec![0.0; k];
    for &r in rows {
        for i in 0..k {
            b[i] += xc[(r, feats[i])] * yc[r];
            for j in 0..k {
                a[i][j] += xc[(r, feats[i])] * xc[(r, feats[j])];
            }
        }
    }
    for (i, row) in a.iter_mut().enumerate() {
        row[i] += alpha;
    }
    naive_solve(a, b)
}

/// Brute-force LQO: delete each query, re-centre (slicing is exact), solve from scratch.
pub(crate) fn naive_lqo(x: &Array2<f64>, y: &[f64], offsets: &[usize], feats: &[usize], alpha: f64) -> (f64, Vec<f64>) {
    let (xc, yc) = center(x.view(), y, offsets).unwrap();
    let m = x.nrows();
    let mut err = 0.0;
    let mut preds = vec![0.0; m];
    for w in offsets.windows(2) {
        let rows: Vec<usize> = (0..m).filter(|&r| r < w[0] || r >= w[1]).collect();
        let wq = naive_ridge(&xc, &yc, &rows, feats, alpha);
        let raw: Vec<f64> = (w[0]..w[1]).map(|r| feats.iter().zip(&wq).map(|(&f, c)| x[(r, f)] * c).sum()).collect();
        let mean = raw.iter().sum::<f64>() / raw.len().max(1) as f64;
        for (i, r) in (w[0]..w[1]).enumerate() {
            preds[r] = raw[i];
            let res = yc[r] - (raw[i] - mean);
            err += res * res;
        }
    }
    (err, preds)
}
