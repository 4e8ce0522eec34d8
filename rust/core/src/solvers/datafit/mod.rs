//! Smooth data-fitting terms for the proximal solvers ([`fista`](mod@crate::solvers::fista)), skglm-style: a
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
//!
//! Modules: `quadratic` (`c · wᵀAw`), `pairwise` (the pairwise squared hinge and its
//! Lipschitz bound).

use crate::error::Result;
use crate::invalid;

pub use self::pairwise::{pair_sq_norm_sum, PairwiseHinge};
pub use self::quadratic::Quadratic;

mod pairwise;
mod quadratic;
#[cfg(test)]
mod tests;

/// A smooth (gradient-Lipschitz) term of an objective. Fallible: a datafit may be answered
/// by a data source that can fail (sums over Dask shards through a Python callback), and the
/// solvers pass its error on.
pub trait Datafit: Sync {
    /// Number of coefficients `w` has.
    fn n_features(&self) -> usize;
    /// `f(w)`.
    fn value(&self, w: &[f64]) -> Result<f64>;
    /// Writes `∇f(w)` into `grad` (length `n_features`) and returns `f(w)`.
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> Result<f64>;
    /// An upper bound `L0` on the Lipschitz constant of `∇f` (Lai et al. Theorem 1; Laporte
    /// et al. Proposition 1). Solvers start their line search below it.
    fn lipschitz_bound(&self) -> Result<f64>;
}

impl<D: Datafit + ?Sized> Datafit for &D {
    fn n_features(&self) -> usize {
        (**self).n_features()
    }
    fn value(&self, w: &[f64]) -> Result<f64> {
        (**self).value(w)
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        (**self).value_grad(w, grad)
    }
    fn lipschitz_bound(&self) -> Result<f64> {
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

/// A datafit with a (generalised) Hessian, for second-order solvers ([`prox_newton`](mod@crate::solvers::prox_newton)).
pub trait SecondOrder: Datafit {
    /// Writes the block `H[ws, ws]` of the (generalised) Hessian `∇²f(w)` into `out`
    /// (`|ws| × |ws|`, row-major, symmetric). Indices in `ws` may repeat.
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) -> Result<()>;
}

impl<D: SecondOrder + ?Sized> SecondOrder for &D {
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) -> Result<()> {
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
    fn value(&self, w: &[f64]) -> Result<f64> {
        Ok(self.scale * self.inner.value(w)?)
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        let v = self.inner.value_grad(w, grad)?;
        grad.iter_mut().for_each(|g| *g *= self.scale);
        Ok(self.scale * v)
    }
    fn lipschitz_bound(&self) -> Result<f64> {
        Ok(self.scale * self.inner.lipschitz_bound()?)
    }
}

impl<F: SecondOrder> SecondOrder for Scaled<F> {
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) -> Result<()> {
        self.inner.hessian_block(w, ws, out)?;
        out.iter_mut().for_each(|h| *h *= self.scale);
        Ok(())
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
    fn value(&self, w: &[f64]) -> Result<f64> {
        Ok(self.first.value(w)? + self.second.value(w)?)
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        let v = self.first.value_grad(w, grad)?;
        let mut g2 = vec![0.0; grad.len()];
        let v2 = self.second.value_grad(w, &mut g2)?;
        grad.iter_mut().zip(&g2).for_each(|(a, b)| *a += b);
        Ok(v + v2)
    }
    fn lipschitz_bound(&self) -> Result<f64> {
        Ok(self.first.lipschitz_bound()? + self.second.lipschitz_bound()?)
    }
}

impl<F: SecondOrder, G: SecondOrder> SecondOrder for Sum<F, G> {
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) -> Result<()> {
        self.first.hessian_block(w, ws, out)?;
        let mut other = vec![0.0; out.len()];
        self.second.hessian_block(w, ws, &mut other)?;
        out.iter_mut().zip(&other).for_each(|(a, b)| *a += b);
        Ok(())
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
    fn value(&self, w: &[f64]) -> Result<f64> {
        self.inner.value(&self.fold(w))
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        let n = self.inner.n_features();
        let (gp, gm) = grad.split_at_mut(n);
        let v = self.inner.value_grad(&self.fold(w), gp)?;
        gm.iter_mut().zip(gp.iter()).for_each(|(m, p)| *m = -p);
        Ok(v)
    }
    fn lipschitz_bound(&self) -> Result<f64> {
        Ok(2.0 * self.inner.lipschitz_bound()?)
    }
}

impl<F: SecondOrder> SecondOrder for Doubled<F> {
    /// `∇² = [[H, −H], [−H, H]]` with `H = ∇²f(w⁺ − w⁻)`.
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) -> Result<()> {
        let n = self.inner.n_features();
        let folded: Vec<usize> = ws.iter().map(|&j| j % n).collect();
        self.inner.hessian_block(&self.fold(w), &folded, out)?;
        let k = ws.len();
        for a in 0..k {
            for b in 0..k {
                if (ws[a] < n) != (ws[b] < n) {
                    out[a * k + b] = -out[a * k + b];
                }
            }
        }
        Ok(())
    }
}
