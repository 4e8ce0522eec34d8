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
//! - [`GroupLasso`]: `Σ_g (a‖w_g‖₁ + b√|g| ‖w_g‖₂)` over disjoint groups (group lasso: `a = 0`,
//!   `b = 1`, Yuan & Lin 2006 eq. (2.1); sparse-group lasso: `a = ρ`, `b = 1 − ρ`, Simon et al.
//!   2013 eq. (1)); **not separable**: prox = soft thresholding by `step·a`, then the block
//!   shrink `w_g ← max(0, 1 − step·b√|g| / ‖w_g‖) w_g` (Simon et al. Lemma 1), used only by
//!   FISTA ([`Penalty::is_separable`]).
//!
//! A new penalty is one small type implementing [`Penalty`].

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

/// `Σ_g (a‖w_g‖₁ + b√|g| ‖w_g‖₂)` over disjoint groups given as a label per feature
/// (`0..n_groups`): the group lasso (`a = 0`, `b = 1`) and the sparse-group lasso
/// (`a = ρ`, `b = 1 − ρ`, Simon et al. 2013 eq. (1)).
#[derive(Clone, Debug)]
pub struct GroupLasso {
    /// The members of each group.
    pub members: Vec<Vec<usize>>,
    /// Weight of the L1 part (`a`).
    pub l1: f64,
    /// Weight of the group part (`b`, times `√|g|` per group).
    pub group: f64,
}

impl GroupLasso {
    /// From a group label per feature (`0..n_groups`, every label used) and `ρ = l1_ratio` (`0`: the group lasso).
    pub fn new(labels: &[usize], l1_ratio: f64) -> Result<Self> {
        if !(l1_ratio.is_finite() && (0.0..=1.0).contains(&l1_ratio)) {
            return invalid!("l1_ratio must be in [0, 1], got {l1_ratio}");
        }
        let n_groups = labels.iter().copied().max().map_or(0, |g| g.saturating_add(1));
        if let Some(g) = labels.iter().copied().find(|&g| g >= labels.len()) {
            return invalid!("groups: label {g} is beyond the {} features", labels.len());
        }
        let mut members = vec![Vec::new(); n_groups];
        for (j, &g) in labels.iter().enumerate() {
            members[g].push(j);
        }
        if let Some(g) = members.iter().position(|m| m.is_empty()) {
            return invalid!("groups: label {g} has no feature (labels must be 0..n_groups, each used)");
        }
        Ok(Self { members, l1: l1_ratio, group: 1.0 - l1_ratio })
    }

    /// `"group_lasso"` (`l1_ratio` ignored: 0) or `"sparse_group_lasso"`.
    pub fn by_name(name: &str, labels: &[usize], l1_ratio: f64) -> Result<Self> {
        match name {
            "group_lasso" => Self::new(labels, 0.0),
            "sparse_group_lasso" => Self::new(labels, l1_ratio),
            other => invalid!("a penalty over groups is 'group_lasso' or 'sparse_group_lasso', got {other:?}"),
        }
    }

    fn weight(&self, g: usize) -> f64 {
        self.group * (self.members[g].len() as f64).sqrt()
    }

    /// `‖S(v, a)‖₂` with `S` soft thresholding: the norm of the part of `−∇_g f` the L1 term
    /// cannot absorb at `w_g = 0`.
    fn soft_norm(&self, g: usize, v: &[f64], a: f64) -> f64 {
        self.members[g].iter().map(|&j| (v[j].abs() - a).max(0.0).powi(2)).sum::<f64>().sqrt()
    }

    /// `α_max` at `g = ∇f(0)`: the smallest `α` with `w = 0` optimal for `f + α·Ω`, i.e.
    /// `‖S(g_g, α·a)‖ ≤ α·b√|g|` for every group (group lasso: `max_g ‖g_g‖ / √|g|`; with
    /// an L1 part the condition is monotone in `α` and is solved by bisection per group).
    pub fn alpha_max(&self, grad0: &[f64]) -> f64 {
        (0..self.members.len())
            .map(|g| {
                let gn = self.soft_norm(g, grad0, 0.0);
                if gn == 0.0 {
                    return 0.0;
                }
                let b = self.weight(g);
                if self.l1 == 0.0 {
                    return gn / b;
                }
                let top = self.members[g].iter().map(|&j| grad0[j].abs()).fold(0.0, f64::max);
                if b == 0.0 {
                    return top / self.l1; // pure L1
                }
                let (mut lo, mut hi) = (0.0, (gn / b).min(top / self.l1));
                for _ in 0..200 {
                    let mid = 0.5 * (lo + hi);
                    if self.soft_norm(g, grad0, mid * self.l1) <= mid * b {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                hi
            })
            .fold(0.0, f64::max)
    }
}

impl Penalty for GroupLasso {
    fn is_separable(&self) -> bool {
        false
    }
    /// The term of coordinate `j` with the rest of its group at 0 (exact for groups of one).
    fn value_coord(&self, j: usize, x: f64) -> f64 {
        let g = self.members.iter().position(|m| m.contains(&j)).unwrap_or(0);
        (self.l1 + self.weight(g)) * x.abs()
    }
    fn value(&self, w: &[f64]) -> f64 {
        (0..self.members.len())
            .map(|g| {
                let m = &self.members[g];
                let l1: f64 = m.iter().map(|&j| w[j].abs()).sum();
                let l2 = m.iter().map(|&j| w[j] * w[j]).sum::<f64>().sqrt();
                self.l1 * l1 + self.weight(g) * l2
            })
            .sum()
    }
    fn derivative_coord(&self, j: usize, x: f64) -> f64 {
        self.value_coord(j, 1.0) * x.signum()
    }
    fn prox_coord(&self, j: usize, x: f64, step: f64) -> f64 {
        soft_threshold(x, step * self.value_coord(j, 1.0))
    }
    fn coord_residual(&self, j: usize, w: f64, g: f64) -> f64 {
        l1_residual(w, g, self.value_coord(j, 1.0))
    }
    /// Soft thresholding by `step·a`, then per group `w_g ← max(0, 1 − step·b√|g|/‖w_g‖) w_g`.
    fn prox(&self, w: &mut [f64], step: f64) {
        for g in 0..self.members.len() {
            let m = &self.members[g];
            for &j in m {
                w[j] = soft_threshold(w[j], step * self.l1);
            }
            let norm = m.iter().map(|&j| w[j] * w[j]).sum::<f64>().sqrt();
            let t = step * self.weight(g);
            let shrink = if norm > t { 1.0 - t / norm } else { 0.0 };
            for &j in m {
                w[j] *= shrink;
            }
        }
    }
    /// `max_g dist(−∇_g f, ∂Ω_g(w_g))`: at `w_g = 0`, `max(0, ‖S(∇_g f, a)‖ − b√|g|)`; else
    /// the norm of `∇_j f + a·sign(w_j) + b√|g| w_j/‖w_g‖` over the non-zero `j` and
    /// `max(0, |∇_j f| − a)` over the zero ones.
    fn subdiff_distance(&self, w: &[f64], grad: &[f64]) -> f64 {
        (0..self.members.len())
            .map(|g| {
                let m = &self.members[g];
                let norm = m.iter().map(|&j| w[j] * w[j]).sum::<f64>().sqrt();
                let b = self.weight(g);
                if norm == 0.0 {
                    return (self.soft_norm(g, grad, self.l1) - b).max(0.0);
                }
                m.iter()
                    .map(|&j| {
                        let r = if w[j] == 0.0 {
                            (grad[j].abs() - self.l1).max(0.0)
                        } else {
                            grad[j] + self.l1 * w[j].signum() + b * w[j] / norm
                        };
                        r * r
                    })
                    .sum::<f64>()
                    .sqrt()
            })
            .fold(0.0, f64::max)
    }
}
