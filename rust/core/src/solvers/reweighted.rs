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
//! The penalties `g` (log, MCP, ℓp) are [`NonConvex`] types of
//! [`penalty::nonconvex`](crate::solvers::penalty::nonconvex).

use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::linalg::inf_norm;
use crate::solvers::datafit::Datafit;
use crate::solvers::penalty::nonconvex::NonConvex;
use crate::solvers::penalty::WeightedL1;

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
