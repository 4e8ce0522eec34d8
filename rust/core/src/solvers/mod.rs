//! The solver contract (in the spirit of skglm's `solver.solve(X, y, datafit, penalty, w0)`):
//! every solver of the crate reports one [`SolverResult`], and [`Solver`] picks the
//! algorithm for a (datafit, penalty) pair. FISTA (Beck & Teboulle; Laporte et al. Alg. 1),
//! proximal Newton, and RankSVM's truncated Newton (Chen et al. 2017) all map onto it.
//!
//! Datafits ([`datafit`]) and penalties ([`penalty`]) are apart, skglm-style; the solvers are
//! [`fista`](mod@fista), [`prox_newton`](mod@prox_newton) and the reweighted-L1 outer loop
//! for non-convex penalties ([`reweighted`]); RankSVM's [`truncated_newton`](mod@truncated_newton)
//! takes its loss through [`truncated_newton::NewtonLoss`]. Every solver reads its data only
//! through a fallible trait (a datafit or a loss), so the same solver runs on in-memory rows or
//! on sums over query shards supplied by a callback (`rankselect.dask`).

pub mod datafit;
pub mod fista;
pub mod penalty;
pub mod prox_newton;
pub mod reweighted;
pub mod truncated_newton;

use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::solvers::datafit::SecondOrder;
use crate::solvers::fista::{fista, FistaOptions, FistaResult};
use crate::solvers::penalty::Penalty;
use crate::solvers::prox_newton::{prox_newton, ProxNewtonOptions, ProxNewtonResult};

/// What every solver returns.
#[derive(Clone, Debug)]
pub struct SolverResult {
    /// The returned weights.
    pub coef: Vec<f64>,
    /// `F(coef)`, the objective at the returned weights.
    pub objective: f64,
    /// `F(w^k)` for `k = 0 (start), 1, …, n_iter` (what the solver recorded).
    pub objective_history: Vec<f64>,
    /// First-order optimality residual at `coef`: `max_j dist(−∇_j f, ∂Ω_j(w_j))`
    /// (for a smooth problem, the gradient norm the solver stops on).
    pub kkt_residual: f64,
    /// Iterations done (outer steps for the Newton methods).
    pub n_iter: usize,
    /// The stopping criterion held.
    pub converged: bool,
}

impl From<FistaResult> for SolverResult {
    /// FISTA is not monotone: it returns its best iterate, whose objective is the minimum
    /// of the history.
    fn from(r: FistaResult) -> Self {
        let objective = r.objective.iter().cloned().fold(f64::INFINITY, f64::min);
        SolverResult {
            coef: r.w,
            objective,
            objective_history: r.objective,
            kkt_residual: r.kkt,
            n_iter: r.n_iter,
            converged: r.converged,
        }
    }
}

impl From<ProxNewtonResult> for SolverResult {
    /// Proximal Newton is monotone (up to rounding) and returns its last iterate.
    fn from(r: ProxNewtonResult) -> Self {
        let objective = r.objective.last().copied().unwrap_or(f64::NAN);
        SolverResult {
            coef: r.w,
            objective,
            objective_history: r.objective,
            kkt_residual: r.kkt,
            n_iter: r.n_iter,
            converged: r.converged,
        }
    }
}

/// A composite solver for `f(w) + Ω(w)`.
#[derive(Clone, Debug)]
pub enum Solver {
    /// Proximal Newton with working sets (the default).
    ProxNewton(ProxNewtonOptions),
    /// Accelerated proximal gradient (Laporte et al. Alg. 1).
    Fista(FistaOptions),
}

impl Solver {
    /// `"prox-newton"` or `"fista"`, with the iteration cap and tolerance of both.
    pub fn by_name(name: &str, max_iter: usize, tol: f64) -> Result<Self> {
        match name {
            "prox-newton" => Ok(Solver::ProxNewton(ProxNewtonOptions { max_iter, kkt_tol: tol, ..Default::default() })),
            "fista" => Ok(Solver::Fista(FistaOptions { max_iter, tol, kkt_tol: tol, ..Default::default() })),
            other => crate::invalid!("solver must be 'prox-newton' or 'fista', got {other:?}"),
        }
    }

    /// Minimises `datafit + penalty` from `w0`.
    pub fn solve<D: SecondOrder + ?Sized, P: Penalty + ?Sized>(
        &self,
        datafit: &D,
        penalty: &P,
        w0: &[f64],
        interrupt: &dyn Interrupt,
    ) -> Result<SolverResult> {
        match self {
            Solver::ProxNewton(o) => prox_newton(datafit, penalty, w0, o, interrupt).map(Into::into),
            Solver::Fista(o) => fista(datafit, penalty, w0, o, interrupt).map(Into::into),
        }
    }
}
