//! Smooth data-fitting terms for the proximal solvers ([`crate::solvers::fista`]), skglm-style: a
//! datafit knows its value, gradient and an upper bound on the Lipschitz constant of its
//! gradient; penalties live in [`crate::solvers::penalty`]. Datafits compose:
//!
//! - [`Scaled`]: `c · f(w)` — the RankSVM loss term `C·L(w)` of Laporte et al. eq. (7), or
//!   the normalised `(1/|P|)·L(w)` of Lai et al. eq. (2);
//! - [`Quadratic`]: `c · wᵀAw` (Lai et al. eq. (2): `λ1/2 · wᵀAw`);
//! - [`Sum`]: `f(w) + g(w)`;
//! - [`Doubled`]: `f(w⁺ − w⁻)` on `w = [w⁺, w⁻] ∈ R^{2n}`, i.e. `f` seen through the
//!   doubled features `[X, −X]` (Lai et al. Section III-A).
//!
//! The pairwise squared hinge `L(w) = Σ_{(i,j)∈P} max(0, 1 − wᵀ(x_i − x_j))²` itself is
//! `crate::pairwise::squared_hinge::SquaredHinge`; its Lipschitz bound is computed here from
//! [`pair_sq_norm_sum`].

use ndarray::{Array2, ArrayView2};
use rayon::prelude::*;

use crate::error::Result;
use crate::invalid;
use crate::pairwise::squared_hinge::SquaredHinge;
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};

/// A smooth (gradient-Lipschitz) term of an objective.
pub trait Datafit: Sync {
    /// Number of coefficients `w` has.
    fn n_features(&self) -> usize;
    /// `f(w)`.
    fn value(&self, w: &[f64]) -> f64;
    /// Writes `∇f(w)` into `grad` (length `n_features`) and returns `f(w)`.
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> f64;
    /// An upper bound `L0` on the Lipschitz constant of `∇f` (Lai et al. Theorem 1; Laporte
    /// et al. Proposition 1). Solvers start their line search below it.
    fn lipschitz_bound(&self) -> f64;
}

impl<D: Datafit + ?Sized> Datafit for &D {
    fn n_features(&self) -> usize {
        (**self).n_features()
    }
    fn value(&self, w: &[f64]) -> f64 {
        (**self).value(w)
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        (**self).value_grad(w, grad)
    }
    fn lipschitz_bound(&self) -> f64 {
        (**self).lipschitz_bound()
    }
}

/// Solvers' check of a starting point: `n` finite coefficients.
pub(crate) fn check_initial_point(w0: &[f64], n: usize) -> Result<()> {
    if w0.len() != n {
        return invalid!("the initial point has {} coefficients, expected {n}", w0.len());
    }
    if w0.iter().any(|v| !v.is_finite()) {
        return invalid!("the initial point must be finite");
    }
    Ok(())
}

/// A datafit with a (generalised) Hessian, for second-order solvers ([`crate::solvers::prox_newton`]).
pub trait SecondOrder: Datafit {
    /// Writes the block `H[ws, ws]` of the (generalised) Hessian `∇²f(w)` into `out`
    /// (`|ws| × |ws|`, row-major, symmetric). Indices in `ws` may repeat.
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]);
}

impl<D: SecondOrder + ?Sized> SecondOrder for &D {
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) {
        (**self).hessian_block(w, ws, out)
    }
}

/// `scale · f(w)`, `scale > 0`.
pub struct Scaled<F> {
    pub inner: F,
    pub scale: f64,
}

impl<F: Datafit> Scaled<F> {
    pub fn new(inner: F, scale: f64) -> Result<Self> {
        if !(scale.is_finite() && scale > 0.0) {
            return invalid!("the datafit scale must be finite and > 0, got {scale}");
        }
        Ok(Self { inner, scale })
    }
}

impl<F: Datafit> Datafit for Scaled<F> {
    fn n_features(&self) -> usize {
        self.inner.n_features()
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.scale * self.inner.value(w)
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let v = self.inner.value_grad(w, grad);
        grad.iter_mut().for_each(|g| *g *= self.scale);
        self.scale * v
    }
    fn lipschitz_bound(&self) -> f64 {
        self.scale * self.inner.lipschitz_bound()
    }
}

impl<F: SecondOrder> SecondOrder for Scaled<F> {
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) {
        self.inner.hessian_block(w, ws, out);
        out.iter_mut().for_each(|h| *h *= self.scale);
    }
}

/// `f(w) + g(w)`.
pub struct Sum<F, G> {
    pub first: F,
    pub second: G,
}

impl<F: Datafit, G: Datafit> Sum<F, G> {
    pub fn new(first: F, second: G) -> Result<Self> {
        if first.n_features() != second.n_features() {
            return invalid!(
                "datafits of a sum must have the same number of features ({} vs {})",
                first.n_features(),
                second.n_features()
            );
        }
        Ok(Self { first, second })
    }
}

impl<F: Datafit, G: Datafit> Datafit for Sum<F, G> {
    fn n_features(&self) -> usize {
        self.first.n_features()
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.first.value(w) + self.second.value(w)
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let v = self.first.value_grad(w, grad);
        let mut g2 = vec![0.0; grad.len()];
        let v2 = self.second.value_grad(w, &mut g2);
        grad.iter_mut().zip(&g2).for_each(|(a, b)| *a += b);
        v + v2
    }
    fn lipschitz_bound(&self) -> f64 {
        self.first.lipschitz_bound() + self.second.lipschitz_bound()
    }
}

impl<F: SecondOrder, G: SecondOrder> SecondOrder for Sum<F, G> {
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) {
        self.first.hessian_block(w, ws, out);
        let mut other = vec![0.0; out.len()];
        self.second.hessian_block(w, ws, &mut other);
        out.iter_mut().zip(&other).for_each(|(a, b)| *a += b);
    }
}

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
    fn value(&self, w: &[f64]) -> f64 {
        let mut g = vec![0.0; w.len()];
        self.value_grad(w, &mut g)
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let mut v = 0.0;
        for (i, g) in grad.iter_mut().enumerate() {
            let aw: f64 = self.a.row(i).iter().zip(w).map(|(a, x)| a * x).sum();
            v += w[i] * aw;
            *g = 2.0 * self.scale * aw;
        }
        self.scale * v
    }
    fn lipschitz_bound(&self) -> f64 {
        self.lipschitz
    }
}

impl SecondOrder for Quadratic {
    fn hessian_block(&self, _w: &[f64], ws: &[usize], out: &mut [f64]) {
        let k = ws.len();
        for (a, &i) in ws.iter().enumerate() {
            for (b, &j) in ws.iter().enumerate() {
                out[a * k + b] = 2.0 * self.scale * self.a[[i, j]];
            }
        }
    }
}

/// `f(w⁺ − w⁻)` for `w = [w⁺, w⁻]`: the datafit `f` on the doubled features `[X, −X]`
/// (Lai et al. Section III-A). Gradient `[∇f, −∇f]`; Lipschitz bound `2·L_f`
/// (the map `w ↦ w⁺ − w⁻` has squared norm 2).
pub struct Doubled<F> {
    pub inner: F,
}

impl<F: Datafit> Doubled<F> {
    fn fold(&self, w: &[f64]) -> Vec<f64> {
        let n = self.inner.n_features();
        (0..n).map(|i| w[i] - w[n + i]).collect()
    }
}

impl<F: Datafit> Datafit for Doubled<F> {
    fn n_features(&self) -> usize {
        2 * self.inner.n_features()
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.inner.value(&self.fold(w))
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        let n = self.inner.n_features();
        let (gp, gm) = grad.split_at_mut(n);
        let v = self.inner.value_grad(&self.fold(w), gp);
        gm.iter_mut().zip(gp.iter()).for_each(|(m, p)| *m = -p);
        v
    }
    fn lipschitz_bound(&self) -> f64 {
        2.0 * self.inner.lipschitz_bound()
    }
}

impl<F: SecondOrder> SecondOrder for Doubled<F> {
    /// `∇² = [[H, −H], [−H, H]]` with `H = ∇²f(w⁺ − w⁻)`.
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) {
        let n = self.inner.n_features();
        let folded: Vec<usize> = ws.iter().map(|&j| j % n).collect();
        self.inner.hessian_block(&self.fold(w), &folded, out);
        let k = ws.len();
        for a in 0..k {
            for b in 0..k {
                if (ws[a] < n) != (ws[b] < n) {
                    out[a * k + b] = -out[a * k + b];
                }
            }
        }
    }
}

/// `Σ_{(i,j)∈P} ||x_i − x_j||²` over the preference pairs (same query, `y_i > y_j`),
/// without enumerating pairs: per query, rows are grouped by label level and
/// `Σ ||x_i − x_j||² = Σ_i c_i ||x_i||² − 2 Σ_levels S_l · S_{<l}` where `c_i` counts the
/// pairs row `i` takes part in and `S_l` is the sum of rows at level `l`. Per-query terms
/// are computed in parallel and summed in query order (deterministic).
///
/// `2 · Σ ||x_i − x_j||²` bounds the Lipschitz constant of `∇L` (Laporte et al.
/// Proposition 1: each pair contributes `2||x̃_p||²` to the Hessian bound).
pub fn pair_sq_norm_sum(x: ArrayView2<f64>, y: &[f64], offsets: &[usize]) -> f64 {
    let terms: Vec<f64> = offsets
        .par_windows(2)
        .map(|win| {
            let (a, b) = (win[0], win[1]);
            let mut idx: Vec<usize> = (a..b).collect();
            idx.sort_by(|&i, &j| y[i].total_cmp(&y[j]));
            let n = x.ncols();
            let mut below_sum = vec![0.0; n]; // sum of rows at strictly lower levels
            let mut below_cnt = 0usize;
            let mut total = 0.0;
            let nq = idx.len();
            let mut k = 0;
            while k < nq {
                let mut e = k;
                while e < nq && y[idx[e]] == y[idx[k]] {
                    e += 1;
                }
                let above_cnt = nq - e;
                let mut level_sum = vec![0.0; n];
                for &i in &idx[k..e] {
                    let r = x.row(i);
                    let sq: f64 = r.iter().map(|v| v * v).sum();
                    total += sq * (below_cnt + above_cnt) as f64;
                    level_sum.iter_mut().zip(r.iter()).for_each(|(s, v)| *s += v);
                }
                let cross: f64 = level_sum.iter().zip(&below_sum).map(|(s, t)| s * t).sum();
                total -= 2.0 * cross;
                below_sum.iter_mut().zip(&level_sum).for_each(|(s, v)| *s += v);
                below_cnt += e - k;
                k = e;
            }
            total
        })
        .collect();
    terms.iter().sum::<f64>().max(0.0)
}

/// The pairwise squared hinge `L(w) = Σ_{(i,j)∈P} max(0, 1 − wᵀ(x_i − x_j))²` of
/// [`SquaredHinge`] as a [`Datafit`] (unscaled; wrap it in [`Scaled`] for `C·L(w)`,
/// Laporte et al. eq. (7), or `(1/|P|)·L(w)`, Lai et al. eq. (2)). Lipschitz bound
/// `2·Σ_p ||x_i − x_j||²` (Laporte et al. Proposition 1 with the factor 2 of the squared
/// hinge; Lai et al. Theorem 1 bounds the same sum by `2d·||·||∞²` per pair).
pub struct PairwiseHinge<'a> {
    loss: SquaredHinge<'a>,
    lipschitz: f64,
}

impl<'a> PairwiseHinge<'a> {
    /// `x` is `m × n` with rows grouped by query (`offsets`), `y` the labels.
    pub fn new(x: ArrayView2<'a, f64>, y: &'a [f64], offsets: &'a crate::data::groups::QueryOffsets) -> Result<Self> {
        let loss = SquaredHinge::new(x, y, offsets)?;
        let lipschitz = 2.0 * pair_sq_norm_sum(x, y, offsets);
        Ok(Self { loss, lipschitz })
    }

    /// Number of preference pairs `|P|`.
    pub fn n_pairs(&self) -> usize {
        self.loss.n_pairs()
    }
}

impl Datafit for PairwiseHinge<'_> {
    fn n_features(&self) -> usize {
        self.loss.n_features()
    }
    fn value(&self, w: &[f64]) -> f64 {
        self.loss.value(w)
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> f64 {
        self.loss.value_grad(w, grad)
    }
    fn lipschitz_bound(&self) -> f64 {
        self.lipschitz
    }
}

impl SecondOrder for PairwiseHinge<'_> {
    /// `H[ws, ws] = 2 X_Wᵀ AᵀDA X_W` (Chen et al. eq. 24-25) at the active pairs of `w`: the
    /// active set is sorted out once, one implicit product `AᵀDA u` per column of `X_W`, then
    /// one dense product `X_Wᵀ R` (sequential GEMM: the same bits for any thread count).
    /// O(|ws| · m log n_q + m |ws|²) time, O(m |ws|) memory.
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) {
        let k = ws.len();
        assert_eq!(out.len(), k * k, "out must hold |ws|² entries");
        if k == 0 {
            return;
        }
        let x = self.loss.x();
        let m = x.nrows();
        let hess = self.loss.hessian(w);
        // X_W and R = AᵀDA X_W, column-major (m × k).
        let mut xw = vec![0.0; m * k];
        for (col, &j) in xw.chunks_mut(m).zip(ws) {
            col.iter_mut().zip(x.column(j)).for_each(|(o, v)| *o = *v);
        }
        let mut r = vec![0.0; m * k];
        for (u, rc) in xw.chunks(m).zip(r.chunks_mut(m)) {
            hess.apply_scores(u, rc);
        }
        let xw = MatRef::from_column_major_slice(&xw, m, k);
        let r = MatRef::from_column_major_slice(&r, m, k);
        let mut h = Mat::<f64>::zeros(k, k);
        matmul(h.as_mut(), Accum::Replace, xw.transpose(), r, 2.0, Par::Seq);
        // Symmetrise the round-off.
        for a in 0..k {
            for b in 0..k {
                out[a * k + b] = 0.5 * (h[(a, b)] + h[(b, a)]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
        let v = d.value_grad(&w, &mut g);
        // u = [0.75, -2]; 0.5 uᵀAu
        let u = [0.75, -2.0];
        let expect = 0.5 * (2.0 * u[0] * u[0] + 2.0 * 0.5 * u[0] * u[1] + u[1] * u[1]);
        assert!((v - expect).abs() < 1e-12);
        for k in 0..4 {
            let mut wp = w;
            wp[k] += 1e-6;
            let fd = (d.value(&wp) - v) / 1e-6;
            assert!((fd - g[k]).abs() < 1e-4, "{k}: {fd} vs {}", g[k]);
        }
    }
}
