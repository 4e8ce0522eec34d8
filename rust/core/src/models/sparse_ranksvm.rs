//! Sparse and non-convex RankSVM (Laporte et al. 2014): `min_w Ω(w) + C·L(w)` with the
//! pairwise squared hinge `L` (eq. 7) and `Ω` the (weighted) L1 norm, a non-convex penalty
//! (log, MCP, lp) by reweighted L1 (Alg. 2), or the (sparse-)group lasso. The orchestration
//! lives here, not in the binding: the penalty chosen ([`PenaltySpec`], dispatched by
//! [`PenaltySpec::at`]), the [`Solver`] of each convex problem, the objective reported, and
//! the path's start [`c_min`].

use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::solvers::datafit::{Datafit, PairwiseHinge, Scaled, SecondOrder};
use crate::solvers::penalty::{PenaltySpec, SparsePenalty, WeightedL1};
use crate::solvers::reweighted::{reweighted_l1, ReweightedOptions};
use crate::solvers::{Solver, SolverResult};
use ndarray::ArrayView2;

/// A sparse RankSVM fit: the [`SolverResult`] (for a non-convex penalty: the last
/// reweighted solve, `n_iter` summed over the solves, the objective of `Ω + C·L` after each
/// reweighting) and the number of reweightings.
#[derive(Clone, Debug)]
pub struct SparseFit {
    pub result: SolverResult,
    pub n_reweightings: usize,
}

fn check_problem(x: ArrayView2<f64>, y: &[f64], offsets: &QueryOffsets, c: f64) -> Result<()> {
    let m = x.nrows();
    if y.len() != m {
        return invalid!("y has {} entries but x has {m} rows", y.len());
    }
    offsets.check_rows(m, "x")?;
    if !(c.is_finite() && c > 0.0) {
        return invalid!("C must be > 0, got {c}");
    }
    Ok(())
}

/// Fits sparse RankSVM on rows grouped by query, from `w0` (zeros when `None`).
// A kernel entry point: one argument per parameter of the method.
#[allow(clippy::too_many_arguments)]
pub fn fit(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    c: f64,
    penalty: &PenaltySpec,
    w0: Option<Vec<f64>>,
    solver: &Solver,
    reweighting: &ReweightedOptions,
    interrupt: &dyn Interrupt,
) -> Result<SparseFit> {
    check_problem(x, y, offsets, c)?;
    penalty.at(c, x.ncols())?; // the penalty's checks before the loss's allocations
    fit_with(PairwiseHinge::new(x, y, offsets)?, c, penalty, w0, solver, reweighting, interrupt)
}

/// [`fit`] with the loss `L` from any source, a [`SecondOrder`] datafit: the in-memory
/// [`PairwiseHinge`], or sums over query shards answered by a callback (`rankselect.dask`).
/// Minimises `Ω(w) + c·L(w)` from `w0` (zeros when `None`) by `solver`, or by reweighted L1
/// around it for a non-convex penalty.
pub fn fit_with<D: SecondOrder>(
    loss: D,
    c: f64,
    penalty: &PenaltySpec,
    w0: Option<Vec<f64>>,
    solver: &Solver,
    reweighting: &ReweightedOptions,
    interrupt: &dyn Interrupt,
) -> Result<SparseFit> {
    let n = loss.n_features();
    let penalty = penalty.at(c, n)?;
    let w0 = w0.unwrap_or_else(|| vec![0.0; n]);
    let datafit = Scaled::new(loss, c)?;
    match penalty {
        SparsePenalty::Group(pen) => {
            let result = solver.solve(&datafit, &pen, &w0, interrupt)?;
            Ok(SparseFit { result, n_reweightings: 1 })
        }
        SparsePenalty::L1(pen) => {
            let result = solver.solve(&datafit, &pen, &w0, interrupt)?;
            Ok(SparseFit { result, n_reweightings: 1 })
        }
        SparsePenalty::NonConvex(g) => {
            let mut last_kkt = f64::NAN;
            let mut inner = |pen: &WeightedL1, w: &[f64]| {
                solver.solve(&datafit, pen, w, interrupt).map(|r| {
                    last_kkt = r.kkt_residual;
                    (r.coef, r.n_iter)
                })
            };
            let r = reweighted_l1(&datafit, g.as_ref(), &w0, None, reweighting, &mut inner, interrupt)?;
            let objective = r.objective.last().copied().unwrap_or(f64::NAN);
            let result = SolverResult {
                coef: r.w,
                objective,
                objective_history: r.objective,
                kkt_residual: last_kkt,
                n_iter: r.n_iter,
                converged: r.converged,
            };
            Ok(SparseFit { result, n_reweightings: r.n_reweightings })
        }
    }
}

/// The smallest `C` at which the solution of `Ω + C·L` is not all zero: `1 / α_max`, the
/// penalty's [`SparsePenalty::alpha_max`] at `∇L(0)` (KKT at `w = 0`; for a non-convex
/// penalty, its first, plain-L1 step's, which does not depend on `C`).
pub fn c_min(x: ArrayView2<f64>, y: &[f64], offsets: &QueryOffsets, penalty: &PenaltySpec) -> Result<f64> {
    check_problem(x, y, offsets, 1.0)?;
    let n = x.ncols();
    let pen = penalty.at(1.0, n)?;
    let loss = PairwiseHinge::new(x, y, offsets)?;
    let mut grad = vec![0.0; n];
    loss.value_grad(&vec![0.0; n], &mut grad)?;
    let top = pen.alpha_max(&grad);
    if top.is_nan() || top <= 0.0 {
        return invalid!("y has no preference pair that the features can separate");
    }
    Ok(1.0 / top)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use ndarray::Array2;

    fn problem() -> (Array2<f64>, Vec<f64>, QueryOffsets) {
        let x = Array2::from_shape_fn((12, 3), |(i, j)| ((i * 7 + j * 3) % 5) as f64 - 2.0 + 0.1 * j as f64);
        let y: Vec<f64> = (0..12).map(|i| ((i * 5) % 3) as f64).collect();
        (x, y, QueryOffsets::from_sizes(&[4, 4, 4]))
    }

    #[test]
    fn c_min_is_the_kkt_point_at_zero() {
        let (x, y, o) = problem();
        let l1 = PenaltySpec::L1 { weights: None };
        let c0 = c_min(x.view(), &y, &o, &l1).unwrap();
        let solver = Solver::by_name("prox-newton", 500, 1e-10).unwrap();
        let opts = ReweightedOptions { max_reweightings: 10, tol: 1e-6 };
        let below = fit(x.view(), &y, &o, 0.99 * c0, &l1, None, &solver, &opts, &NoInterrupt).unwrap();
        assert!(below.result.coef.iter().all(|&w| w == 0.0));
        let above = fit(x.view(), &y, &o, 1.5 * c0, &l1, None, &solver, &opts, &NoInterrupt).unwrap();
        assert!(above.result.coef.iter().any(|&w| w != 0.0));
    }

    #[test]
    fn both_solvers_report_the_same_contract() {
        let (x, y, o) = problem();
        let opts = ReweightedOptions { max_reweightings: 10, tol: 1e-6 };
        let mut objs = vec![];
        for name in ["prox-newton", "fista"] {
            let solver = Solver::by_name(name, 20_000, 1e-9).unwrap();
            let r = fit(x.view(), &y, &o, 1.0, &PenaltySpec::L1 { weights: None }, None, &solver, &opts, &NoInterrupt)
                .unwrap()
                .result;
            assert!(r.converged && r.kkt_residual <= 1e-6, "{name}: {r:?}");
            objs.push(r.objective);
        }
        assert!((objs[0] - objs[1]).abs() <= 1e-6 * objs[0].abs().max(1.0), "{objs:?}");
        assert!(Solver::by_name("newton", 1, 1.0).is_err());
        assert!(PenaltySpec::Mcp { gamma: -1.0 }.validate().is_err());
        assert!(PenaltySpec::L1 { weights: Some(vec![1.0; 2]) }.at(1.0, 3).is_err());
    }
}
