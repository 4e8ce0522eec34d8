//! `scale · wᵀAw` (Lai et al. eq. (2): `λ1/2 · wᵀĀw`).

use ndarray::{Array2, ArrayView2};

use super::{Datafit, SecondOrder};
use crate::error::Result;
use crate::invalid;

/// `scale · wᵀAw` for a symmetric `n × n` matrix `A`; gradient `2·scale·Aw`.
pub struct Quadratic {
    a: Array2<f64>,
    scale: f64,
    lipschitz: f64,
}

impl Quadratic {
    /// `A` must be square, finite and symmetric; `scale >= 0`.
    pub fn new(a: ArrayView2<f64>, scale: f64) -> Result<Self> {
        let n = a.nrows();
        if a.ncols() != n {
            return invalid!("the quadratic matrix must be square, got {}x{}", n, a.ncols());
        }
        if !(scale.is_finite() && scale >= 0.0) {
            return invalid!("the quadratic scale must be finite and >= 0, got {scale}");
        }
        for i in 0..n {
            for j in 0..n {
                let (x, y) = (a[[i, j]], a[[j, i]]);
                if !x.is_finite() {
                    return invalid!("the quadratic matrix has a non-finite entry at ({i}, {j})");
                }
                if (x - y).abs() > 1e-12 * (1.0 + x.abs().max(y.abs())) {
                    return invalid!("the quadratic matrix must be symmetric: A[{i},{j}] = {x} but A[{j},{i}] = {y}");
                }
            }
        }
        // ||A||_2 <= max row sum of |A_ij| (Gershgorin); the Hessian is 2·scale·A.
        let row_max = (0..n).map(|i| a.row(i).iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max);
        Ok(Self { a: a.to_owned(), scale, lipschitz: 2.0 * scale * row_max })
    }
}

impl Datafit for Quadratic {
    fn n_features(&self) -> usize {
        self.a.nrows()
    }
    fn value(&self, w: &[f64]) -> Result<f64> {
        let mut g = vec![0.0; w.len()];
        self.value_grad(w, &mut g)
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        let mut v = 0.0;
        for (i, g) in grad.iter_mut().enumerate() {
            let aw: f64 = self.a.row(i).iter().zip(w).map(|(a, x)| a * x).sum();
            v += w[i] * aw;
            *g = 2.0 * self.scale * aw;
        }
        Ok(self.scale * v)
    }
    fn lipschitz_bound(&self) -> Result<f64> {
        Ok(self.lipschitz)
    }
}

impl SecondOrder for Quadratic {
    fn hessian_block(&self, _w: &[f64], ws: &[usize], out: &mut [f64]) -> Result<()> {
        let k = ws.len();
        for (a, &i) in ws.iter().enumerate() {
            for (b, &j) in ws.iter().enumerate() {
                out[a * k + b] = 2.0 * self.scale * self.a[[i, j]];
            }
        }
        Ok(())
    }
}
