//! Reweighted L1 for non-convex penalties (Laporte et al. Section IV-C, Alg. 2).
//!
//! Minimises `F(w) = Σ_j g(|w_j|) + f(w)` for a concave, non-decreasing `g` on `[0, ∞)` by
//! majorisation-minimisation: `g(u) ≤ g(u⁰) + g'(u⁰)(u − u⁰)`, so each outer step solves the
//! weighted-L1 problem (Laporte et al. eq. (13)) `min_w f(w) + Σ_j β_j |w_j|` with
//! `β_j = g'(|w_j^k|)`, warm-started at `w^k`, by any weighted-L1 solver ([`fista`](mod@crate::solvers::fista),
//! Alg. 1, or [`prox_newton`](mod@crate::solvers::prox_newton)). The first step uses `β = 1` (Alg. 2, line 2: the
//! plain L1 problem). From the second step on, each step does not increase `F` (both solvers
//! return an iterate that is never worse than the warm start on the majoriser).
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
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::linalg::inf_norm;
use crate::solvers::datafit::Datafit;
use crate::solvers::penalty::WeightedL1;

/// A non-convex separable penalty `Σ_j g(|w_j|)` with `g` concave and non-decreasing on
/// `[0, ∞)`: one small type per penalty ([`Log`], [`Mcp`], [`Lp`]), driven by the
/// reweighting loop [`reweighted_l1`].
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

/// MCP (Table II normalisation) with strength `λ > 0` and `γ = mcp_gamma > 0`:
/// `g(u) = u − u²/(2γλ)` for `u ≤ γλ`, `γλ/2` beyond.
#[derive(Clone, Copy, Debug)]
pub struct Mcp {
    pub mcp_gamma: f64,
    pub lambda: f64,
}

impl NonConvex for Mcp {
    fn validate(&self) -> Result<()> {
        if !(self.mcp_gamma.is_finite() && self.mcp_gamma > 0.0) {
            return invalid!("mcp_gamma must be > 0, got {}", self.mcp_gamma);
        }
        if !(self.lambda.is_finite() && self.lambda > 0.0) {
            return invalid!("the MCP strength lambda must be > 0, got {}", self.lambda);
        }
        Ok(())
    }
    fn g(&self, u: f64) -> f64 {
        let t = self.mcp_gamma * self.lambda;
        if u <= t {
            u - u * u / (2.0 * t)
        } else {
            0.5 * t
        }
    }
    fn derivative(&self, u: f64) -> f64 {
        (1.0 - u / (self.mcp_gamma * self.lambda)).max(0.0)
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

/// Options of the outer loop.
#[derive(Clone, Debug)]
pub struct ReweightedOptions {
    /// Maximum number of weighted-L1 solves (outer steps).
    pub max_reweightings: usize,
    /// Stop when `|F(w^k) − F(w^{k−1})| ≤ tol·|F(w^{k−1})|` and
    /// `max_j |w_j^k − w_j^{k−1}| ≤ tol·max(1, ||w^k||∞)`.
    pub tol: f64,
}

/// One weighted-L1 solve `min_w f(w) + Σ β_j|w_j|` from a warm start: returns the solution
/// and the solver's iteration count.
pub type WeightedL1Solver<'s> = dyn FnMut(&WeightedL1, &[f64]) -> Result<(Vec<f64>, usize)> + 's;

/// Result of the reweighted scheme.
#[derive(Clone, Debug)]
pub struct ReweightedResult {
    pub w: Vec<f64>,
    /// Total inner iterations.
    pub n_iter: usize,
    /// Outer steps done.
    pub n_reweightings: usize,
    /// `F(w^k) = Σ g(|w^k_j|) + f(w^k)` after each outer step `k = 1, …`.
    pub objective: Vec<f64>,
    pub converged: bool,
}

/// Runs Alg. 2 of Laporte et al. from `w0`, with `β = initial_weights` (default all ones)
/// in the first step; `solve` solves each weighted-L1 problem on `datafit`.
pub fn reweighted_l1<D: Datafit + ?Sized>(
    datafit: &D,
    g: &dyn NonConvex,
    w0: &[f64],
    initial_weights: Option<&[f64]>,
    opts: &ReweightedOptions,
    solve: &mut WeightedL1Solver,
    interrupt: &dyn Interrupt,
) -> Result<ReweightedResult> {
    g.validate()?;
    let n = datafit.n_features();
    if opts.max_reweightings == 0 {
        return invalid!("max_reweightings must be >= 1");
    }
    let mut beta = match initial_weights {
        Some(b) if b.len() != n => return invalid!("initial weights have {} entries, expected {n}", b.len()),
        Some(b) => b.to_vec(),
        None => vec![1.0; n],
    };
    let mut w = w0.to_vec();
    let mut objective = Vec::new();
    let mut n_iter = 0;
    let mut converged = false;
    let mut k = 0;
    while k < opts.max_reweightings {
        interrupt.check()?;
        k += 1;
        let pen = WeightedL1::new(beta.clone())?;
        let (w_new, iters) = solve(&pen, &w)?;
        n_iter += iters;
        let obj = g.value(&w_new) + datafit.value(&w_new)?;
        let dw = w_new.iter().zip(&w).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
        let wmax = inf_norm(&w_new);
        let small_obj = objective.last().is_some_and(|&prev: &f64| (obj - prev).abs() <= opts.tol * prev.abs());
        w = w_new;
        objective.push(obj);
        beta = w.iter().map(|x| g.derivative(x.abs())).collect();
        if small_obj && dw <= opts.tol * wmax.max(1.0) {
            converged = true;
            break;
        }
    }
    Ok(ReweightedResult { w, n_iter, n_reweightings: k, objective, converged })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivatives_match_finite_differences() {
        let gs: [&dyn NonConvex; 3] =
            [&Log { epsilon: 0.1 }, &Mcp { mcp_gamma: 2.0, lambda: 0.5 }, &Lp { p: 0.5, epsilon: 0.1 }];
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
