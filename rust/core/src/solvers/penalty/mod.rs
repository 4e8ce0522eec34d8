//! Separable penalties of the proximal solvers, each given by its value, the proximal
//! operator of one coordinate and the distance of `−∂_j f` to its subdifferential (the KKT
//! residual of one coordinate); the whole-vector prox and residual follow:
//!
//! - [`L1`]: `α Σ|w_j|`, prox = soft thresholding (Laporte et al. eq. (11));
//! - [`WeightedL1`]: `Σ β_j |w_j|` (Laporte et al. eq. (12)), `β_j ∈ [0, ∞]`
//!   (`β_j = ∞` pins `w_j` at 0);
//! - [`NonNegative`]: the indicator of `w ≥ 0`, prox = projection;
//! - [`NonNegWeightedL1`]: `Σ β_j w_j + ι(w ≥ 0)` (Lai et al. eq. (2), `β_j = λ2/s_j`),
//!   prox `w_j ↦ max(0, w_j − step·β_j)` (Lai et al. projection step, closed form below eq. (3)).
//!
//! - [`GroupLasso`] (`group`): `Σ_g (a‖w_g‖₁ + b√|g| ‖w_g‖₂)` over disjoint groups (group lasso: `a = 0`,
//!   `b = 1`, Yuan & Lin 2006 eq. (2.1); sparse-group lasso: `a = ρ`, `b = 1 − ρ`, Simon et al.
//!   2013 eq. (1)); **not separable**: prox = soft thresholding by `step·a`, then the block
//!   shrink `w_g ← max(0, 1 − step·b√|g| / ‖w_g‖) w_g` (Simon et al. Lemma 1), used only by
//!   FISTA ([`Penalty::is_separable`]).
//!
//! The non-convex penalties (log, MCP, ℓp) are [`nonconvex::NonConvex`] types, minimised by
//! reweighted L1 ([`reweighted`](crate::solvers::reweighted)). What a user chooses for sparse
//! RankSVM is a [`PenaltySpec`] (`spec`), the one dispatch to these types.
//!
//! A new penalty is one small type implementing [`Penalty`] (or [`nonconvex::NonConvex`]), a
//! variant of [`PenaltySpec`] and a class of `rankselect.models.penalties`.

mod group;
pub mod nonconvex;
mod spec;
#[cfg(test)]
mod tests;

pub use group::GroupLasso;
pub use spec::{PenaltySpec, SparsePenalty};

use crate::error::Result;
use crate::invalid;

pub trait Penalty: Sync {
    /// Whether `Ω` is a sum of one-coordinate terms (then the `_coord` methods define it).
    /// A block penalty ([`GroupLasso`]) overrides `value`, `prox` and `subdiff_distance`
    /// and answers `false`: only solvers that use the whole-vector methods (FISTA) take it.
    fn is_separable(&self) -> bool {
        true
    }
    /// `Ω_j(x)`, the term of coordinate `j` (`+∞` outside the domain).
    fn value_coord(&self, j: usize, x: f64) -> f64;
    /// `Ω(w) = Σ_j Ω_j(w_j)`.
    fn value(&self, w: &[f64]) -> f64 {
        w.iter().enumerate().map(|(j, &x)| self.value_coord(j, x)).sum()
    }
    /// `Ω_j'(x)` at `x ≠ 0` inside the domain (where `Ω_j` is smooth): what a second-order
    /// solver uses once it knows the signs of the solution.
    fn derivative_coord(&self, j: usize, x: f64) -> f64;
    /// One coordinate of the prox: `argmin_u ½(u − x)² + step·Ω_j(u)`.
    fn prox_coord(&self, j: usize, x: f64, step: f64) -> f64;
    /// `dist(−g, ∂Ω_j(w))`: the KKT residual of coordinate `j` at `w_j = w` with `g = ∇_j f`.
    fn coord_residual(&self, j: usize, w: f64, g: f64) -> f64;
    /// In place: `w ← prox_{step·Ω}(w) = argmin_u ½||u − w||² + step·Ω(u)` (separable).
    fn prox(&self, w: &mut [f64], step: f64) {
        w.iter_mut().enumerate().for_each(|(j, v)| *v = self.prox_coord(j, *v, step));
    }
    /// `max_j dist(−grad_j, ∂Ω_j(w_j))`: zero exactly at a minimiser of `f + Ω` when `grad =
    /// ∇f(w)` (first-order optimality / KKT conditions).
    fn subdiff_distance(&self, w: &[f64], grad: &[f64]) -> f64 {
        w.iter().zip(grad).enumerate().map(|(j, (&x, &g))| self.coord_residual(j, x, g)).fold(0.0, f64::max)
    }
}

/// Distance of `−g` to the subdifferential of `β|·|` at `w`.
#[inline]
fn l1_residual(w: f64, g: f64, beta: f64) -> f64 {
    if beta.is_infinite() {
        return if w == 0.0 { 0.0 } else { f64::INFINITY };
    }
    if w == 0.0 {
        (g.abs() - beta).max(0.0)
    } else {
        (g + beta * w.signum()).abs()
    }
}

/// Distance of `−g` to the subdifferential of `β·u + ι(u ≥ 0)` at `w ≥ 0`.
#[inline]
fn nonneg_residual(w: f64, g: f64, beta: f64) -> f64 {
    if w < 0.0 {
        return f64::INFINITY;
    }
    if beta.is_infinite() {
        return if w == 0.0 { 0.0 } else { f64::INFINITY };
    }
    if w == 0.0 {
        (-(g + beta)).max(0.0)
    } else {
        (g + beta).abs()
    }
}

#[inline]
fn soft_threshold(w: f64, t: f64) -> f64 {
    if t.is_infinite() {
        0.0
    } else {
        w.signum() * (w.abs() - t).max(0.0)
    }
}

fn check_weights(weights: &[f64], what: &str) -> Result<()> {
    for (j, &b) in weights.iter().enumerate() {
        if b.is_nan() || b < 0.0 {
            return invalid!("{what}: weight {j} must be >= 0 (or +inf), got {b}");
        }
    }
    Ok(())
}

/// `α Σ_j |w_j|`.
#[derive(Clone, Debug)]
pub struct L1 {
    pub alpha: f64,
}

impl L1 {
    pub fn new(alpha: f64) -> Result<Self> {
        if !(alpha.is_finite() && alpha >= 0.0) {
            return invalid!("the L1 strength must be finite and >= 0, got {alpha}");
        }
        Ok(Self { alpha })
    }
}

impl Penalty for L1 {
    fn value_coord(&self, _j: usize, x: f64) -> f64 {
        self.alpha * x.abs()
    }
    fn derivative_coord(&self, _j: usize, x: f64) -> f64 {
        self.alpha * x.signum()
    }
    fn prox_coord(&self, _j: usize, x: f64, step: f64) -> f64 {
        soft_threshold(x, step * self.alpha)
    }
    fn coord_residual(&self, _j: usize, w: f64, g: f64) -> f64 {
        l1_residual(w, g, self.alpha)
    }
}

/// `Σ_j β_j |w_j|` with `β_j ∈ [0, ∞]` (Laporte et al. eq. (12)).
#[derive(Clone, Debug)]
pub struct WeightedL1 {
    pub weights: Vec<f64>,
}

impl WeightedL1 {
    pub fn new(weights: Vec<f64>) -> Result<Self> {
        check_weights(&weights, "weighted L1")?;
        Ok(Self { weights })
    }

    /// `α_max = max_j |g_j| / β_j` for `g = ∇f(0)`: `w = 0` is optimal for `f + α·Ω` exactly
    /// when `α >= α_max` (KKT at 0; a coordinate with `β_j = 0` and `g_j ≠ 0` gives `+∞`,
    /// one with `β_j = +∞` never leaves 0). For `Ω + C·L`, the smallest `C` with a non-zero
    /// solution is `1 / α_max` at `g = ∇L(0)`.
    pub fn alpha_max(&self, grad0: &[f64]) -> f64 {
        self.weights
            .iter()
            .zip(grad0)
            .map(|(&b, &g)| {
                if b > 0.0 {
                    g.abs() / b
                } else if g.abs() > 0.0 {
                    f64::INFINITY
                } else {
                    0.0
                }
            })
            .fold(0.0, f64::max)
    }
}

impl Penalty for WeightedL1 {
    fn value_coord(&self, j: usize, x: f64) -> f64 {
        if x == 0.0 {
            0.0
        } else {
            self.weights[j] * x.abs()
        }
    }
    fn derivative_coord(&self, j: usize, x: f64) -> f64 {
        self.weights[j] * x.signum()
    }
    fn prox_coord(&self, j: usize, x: f64, step: f64) -> f64 {
        soft_threshold(x, step * self.weights[j])
    }
    fn coord_residual(&self, j: usize, w: f64, g: f64) -> f64 {
        l1_residual(w, g, self.weights[j])
    }
}

/// The indicator of the non-negative orthant `w ≥ 0`.
#[derive(Clone, Copy, Debug, Default)]
pub struct NonNegative;

impl Penalty for NonNegative {
    fn value_coord(&self, _j: usize, x: f64) -> f64 {
        if x >= 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    }
    fn derivative_coord(&self, _j: usize, _x: f64) -> f64 {
        0.0
    }
    fn prox_coord(&self, _j: usize, x: f64, _step: f64) -> f64 {
        x.max(0.0)
    }
    fn coord_residual(&self, _j: usize, w: f64, g: f64) -> f64 {
        nonneg_residual(w, g, 0.0)
    }
}

/// `Σ_j β_j w_j + ι(w ≥ 0)` with `β_j ∈ [0, ∞]` (Lai et al. eq. (2) with `β_j = λ2/s_j`).
#[derive(Clone, Debug)]
pub struct NonNegWeightedL1 {
    pub weights: Vec<f64>,
}

impl NonNegWeightedL1 {
    pub fn new(weights: Vec<f64>) -> Result<Self> {
        check_weights(&weights, "non-negative weighted L1")?;
        Ok(Self { weights })
    }
}

impl Penalty for NonNegWeightedL1 {
    fn value_coord(&self, j: usize, x: f64) -> f64 {
        if x < 0.0 {
            f64::INFINITY
        } else if x == 0.0 {
            0.0
        } else {
            self.weights[j] * x
        }
    }
    fn derivative_coord(&self, j: usize, _x: f64) -> f64 {
        self.weights[j]
    }
    fn prox_coord(&self, j: usize, x: f64, step: f64) -> f64 {
        // Lai et al. (3): w_i = max(0, (L z_i − g_i − λ2/s_i)/L) with x = z − g/L.
        let b = self.weights[j];
        if b.is_infinite() {
            0.0
        } else {
            (x - step * b).max(0.0)
        }
    }
    fn coord_residual(&self, j: usize, w: f64, g: f64) -> f64 {
        nonneg_residual(w, g, self.weights[j])
    }
}
