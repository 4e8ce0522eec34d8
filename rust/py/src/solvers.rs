//! The solver contract across the boundary: `rankselect_core::solvers::SolverResult` as one
//! Python type, `_core.SolverResult`, built here (and only here) from the core's result.
//!
//! Rule for every solver binding: it returns a read-only fit class whose `result` is the
//! shared contract, the method's own extras named beside it (`RankSVMFit`: `n_cg_iter`,
//! `n_pairs`; `SparseRankSVMFit`: `n_reweightings`; `FSMRankFit`: the result of the doubled
//! problem, then `coef = w+ - w-` and `n_pairs`).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use rankselect_core::solvers;

use crate::errors::count_arg;

/// SolverResult(coef, objective, objective_history, kkt_residual, n_iter, converged)
///
/// What every solver returns (read-only): the weights `coef` (n,), the objective at them,
/// the recorded objective values (start, then one per iteration; RankSVM's Newton records
/// only the final one), the first-order optimality residual (`max_j dist(-grad_j f,
/// d Omega_j(w_j))`; for RankSVM the relative gradient norm), the iterations done and
/// whether the stopping criterion held.
#[pyclass(frozen, module = "rankselect._core", name = "SolverResult")]
pub struct SolverResult {
    #[pyo3(get)]
    coef: Py<PyArray1<f64>>,
    #[pyo3(get)]
    objective: f64,
    #[pyo3(get)]
    objective_history: Py<PyArray1<f64>>,
    #[pyo3(get)]
    kkt_residual: f64,
    #[pyo3(get)]
    n_iter: usize,
    #[pyo3(get)]
    converged: bool,
}

impl SolverResult {
    /// The one conversion of the core's result into the Python type.
    pub fn from_core(py: Python<'_>, r: solvers::SolverResult) -> Self {
        SolverResult {
            coef: r.coef.into_pyarray(py).unbind(),
            objective: r.objective,
            objective_history: r.objective_history.into_pyarray(py).unbind(),
            kkt_residual: r.kkt_residual,
            n_iter: r.n_iter,
            converged: r.converged,
        }
    }
}

#[pymethods]
impl SolverResult {
    /// A result built in Python (e.g. the closed-form `w = 0` of a problem whose loss is
    /// constant); the arrays are copied.
    #[new]
    #[pyo3(signature = (coef, objective, objective_history, kkt_residual, n_iter, converged))]
    fn new(
        py: Python<'_>,
        coef: PyReadonlyArray1<'_, f64>,
        objective: f64,
        objective_history: PyReadonlyArray1<'_, f64>,
        kkt_residual: f64,
        n_iter: &Bound<'_, PyAny>,
        converged: bool,
    ) -> PyResult<Self> {
        let r = solvers::SolverResult {
            coef: coef.as_array().to_vec(),
            objective,
            objective_history: objective_history.as_array().to_vec(),
            kkt_residual,
            n_iter: count_arg(n_iter, "n_iter")?,
            converged,
        };
        Ok(SolverResult::from_core(py, r))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "SolverResult(n_features={}, objective={}, kkt_residual={}, n_iter={}, converged={})",
            self.coef.bind(py).len(),
            self.objective,
            self.kkt_residual,
            self.n_iter,
            if self.converged { "True" } else { "False" }
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SolverResult>()?;
    Ok(())
}
