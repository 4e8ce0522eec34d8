//! Non-convex separable penalties `Σ_j g(|w_j|)`, `g` concave and non-decreasing on `[0, ∞)`
//! (Laporte et al. Section IV-C), minimised by the reweighted-L1 loop of
//! [`reweighted_l1`](crate::solvers::reweighted::reweighted_l1).
//!
//! Derivatives `g'` (Laporte et al. Table II) and the matching `g`:
//!
//! | penalty | `g(u)` | `g'(u)` |
//! |---|---|---|
//! | log | `log(1 + u/ε)` | `1/(ε + u)` |
//! | MCP | `u − u²/(2γλ)` for `u ≤ γλ`, `γλ/2` beyond | `max(1 − u/(γλ), 0)` |
//! | ℓp, capped | `p ε^{p−1} u` for `u ≤ ε`, `u^p − (1 − p)ε^p` beyond | `p · max(u, ε)^{p−1}` |
//!
//! MCP: Table II is the derivative of MCP divided by its `λ` (so MCP ≡ L1 while every
//! `|w_j| ≪ γλ`); in `Σ g(|w_j|) + C·L(w)` the regularisation strength is `λ = 1/C`
//! (Laporte et al. Section IV-B, `λ = 1/C`).
//!
//! ℓp: `p u^{p−1}` is infinite at `u = 0`, which would pin every zero coefficient at zero
//! forever and make Alg. 2 ill-defined after a β = 1 step. We cap the derivative at its value
//! at `u = ε`: `g'(u) = p·max(u, ε)^{p−1}`. This `g` is still concave and non-decreasing
//! (so the MM argument of Section IV-C holds exactly), equals `|w|^p` up to a constant for
//! `|w| ≥ ε`, and is its tangent line below `ε`.

use crate::error::Result;
use crate::invalid;

/// A non-convex separable penalty `Σ_j g(|w_j|)` with `g` concave and non-decreasing on
/// `[0, ∞)`: one small type per penalty ([`Log`], [`Mcp`], [`Lp`]), driven by the
/// reweighting loop [`reweighted_l1`](crate::solvers::reweighted::reweighted_l1).
pub trait NonConvex: Send + Sync + std::fmt::Debug {
    /// Checks the penalty's parameters.
    fn validate(&self) -> Result<()>;
    /// `g(u)`, `u ≥ 0`.
    fn g(&self, u: f64) -> f64;
    /// `g'(u)` (Laporte et al. Table II), `u ≥ 0`: the weights of the next L1 problem.
    fn derivative(&self, u: f64) -> f64;
    /// `Σ_j g(|w_j|)`.
    fn value(&self, w: &[f64]) -> f64 {
        w.iter().map(|x| self.g(x.abs())).sum()
    }
}

fn check_epsilon(epsilon: f64) -> Result<()> {
    if !(epsilon.is_finite() && epsilon > 0.0) {
        return invalid!("epsilon must be > 0, got {epsilon}");
    }
    Ok(())
}

/// `g(u) = log(1 + u/ε)`.
#[derive(Clone, Copy, Debug)]
pub struct Log {
    pub epsilon: f64,
}

impl NonConvex for Log {
    fn validate(&self) -> Result<()> {
        check_epsilon(self.epsilon)
    }
    fn g(&self, u: f64) -> f64 {
        (u / self.epsilon).ln_1p()
    }
    fn derivative(&self, u: f64) -> f64 {
        1.0 / (self.epsilon + u)
    }
}

/// MCP (Table II normalisation) with strength `λ > 0` and `γ = gamma > 0`:
/// `g(u) = u − u²/(2γλ)` for `u ≤ γλ`, `γλ/2` beyond.
#[derive(Clone, Copy, Debug)]
pub struct Mcp {
    pub gamma: f64,
    pub lambda: f64,
}

impl NonConvex for Mcp {
    fn validate(&self) -> Result<()> {
        if !(self.gamma.is_finite() && self.gamma > 0.0) {
            return invalid!("gamma must be > 0, got {}", self.gamma);
        }
        if !(self.lambda.is_finite() && self.lambda > 0.0) {
            return invalid!("the MCP strength lambda must be > 0, got {}", self.lambda);
        }
        Ok(())
    }
    fn g(&self, u: f64) -> f64 {
        let t = self.gamma * self.lambda;
        if u <= t {
            u - u * u / (2.0 * t)
        } else {
            0.5 * t
        }
    }
    fn derivative(&self, u: f64) -> f64 {
        (1.0 - u / (self.gamma * self.lambda)).max(0.0)
    }
}

/// `ℓp`, `0 < p < 1`, derivative capped at `u = ε`.
#[derive(Clone, Copy, Debug)]
pub struct Lp {
    pub p: f64,
    pub epsilon: f64,
}

impl NonConvex for Lp {
    fn validate(&self) -> Result<()> {
        if !(self.p > 0.0 && self.p < 1.0) {
            return invalid!("p must be in (0, 1), got {}", self.p);
        }
        check_epsilon(self.epsilon)
    }
    fn g(&self, u: f64) -> f64 {
        let (p, epsilon) = (self.p, self.epsilon);
        if u <= epsilon {
            p * epsilon.powf(p - 1.0) * u
        } else {
            u.powf(p) - (1.0 - p) * epsilon.powf(p)
        }
    }
    fn derivative(&self, u: f64) -> f64 {
        self.p * u.max(self.epsilon).powf(self.p - 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivatives_match_finite_differences() {
        let gs: [&dyn NonConvex; 3] =
            [&Log { epsilon: 0.1 }, &Mcp { gamma: 2.0, lambda: 0.5 }, &Lp { p: 0.5, epsilon: 0.1 }];
        for g in gs {
            g.validate().unwrap();
            for &u in &[0.0, 0.05, 0.3, 0.99, 1.5, 3.0] {
                let h = 1e-7;
                let fd = (g.g(u + h) - g.g(u)) / h;
                assert!((fd - g.derivative(u)).abs() < 1e-4, "{g:?} at {u}: {fd} vs {}", g.derivative(u));
            }
            // concave: derivative non-increasing
            let mut prev = f64::INFINITY;
            for i in 0..100 {
                let d = g.derivative(i as f64 * 0.05);
                assert!(d <= prev + 1e-15);
                prev = d;
            }
        }
        assert!(Lp { p: 1.0, epsilon: 0.1 }.validate().is_err());
        assert!(Lp { p: 0.0, epsilon: 0.1 }.validate().is_err());
    }
}
