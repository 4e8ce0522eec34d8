//! Bindings of `rankselect_core::models::sparse_ranksvm`: sparse RankSVM (Laporte et al. 2014)
//! with any penalty of `rankselect_core::solvers::penalty::PenaltySpec` (one `PenaltySpec`
//! argument, the same in every binding), each convex problem solved by the core's `Solver`
//! (proximal Newton or FISTA). Arguments are converted here; the core validates and
//! orchestrates; kernels run with the GIL released and are interruptible (Ctrl-C ->
//! KeyboardInterrupt).

use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::models::sparse_ranksvm as sparse_core;
use rankselect_core::solvers::penalty::PenaltySpec as CorePenalty;
use rankselect_core::solvers::reweighted::ReweightedOptions;
use rankselect_core::solvers::Solver;

use crate::callbacks::PySource;
use crate::data::groups::query_offsets;
use crate::errors::{count_arg, python_interrupt, IntoPyResult};
use crate::results::fields_repr;
use crate::solvers::SolverResult;

/// SparseRankSVMFit: what sparse RankSVM returns (read-only): `result`, the solver contract's
/// `SolverResult` of the last (weighted) L1 problem, and `n_reweightings`, the weighted-L1
/// solves done (1 for `l1`).
#[pyclass(frozen, module = "rankselect._core", name = "SparseRankSVMFit")]
pub struct SparseRankSVMFit {
    #[pyo3(get)]
    result: Py<SolverResult>,
    #[pyo3(get)]
    n_reweightings: usize,
}

impl SparseRankSVMFit {
    /// The one conversion of the core's fit.
    fn from_core(py: Python<'_>, fit: sparse_core::SparseFit) -> PyResult<Self> {
        let result = Py::new(py, SolverResult::from_core(py, fit.result))?;
        Ok(SparseRankSVMFit { result, n_reweightings: fit.n_reweightings })
    }
}

#[pymethods]
impl SparseRankSVMFit {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(slf.as_any(), &["result", "n_reweightings"])
    }
}

/// PenaltySpec: the penalty `Omega` of sparse RankSVM with its parameters (read-only), built
/// by one constructor per penalty; `rankselect.models.penalties` builds it from a penalty
/// object. Its parameters are checked here (the core's `PenaltySpec::validate`); their sizes
/// against the data when a solver takes it.
#[pyclass(frozen, module = "rankselect._core", name = "PenaltySpec")]
pub struct PenaltySpec {
    spec: CorePenalty,
}

impl PenaltySpec {
    fn checked(spec: CorePenalty) -> PyResult<Self> {
        spec.validate().py()?;
        Ok(PenaltySpec { spec })
    }
}

#[pymethods]
impl PenaltySpec {
    /// `sum_j beta_j |w_j|` (`weights = beta` >= 0, +inf pins a coefficient at 0; all 1 when None).
    #[staticmethod]
    #[pyo3(signature = (weights=None))]
    fn l1(weights: Option<PyReadonlyArray1<'_, f64>>) -> PyResult<Self> {
        let weights = weights.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
        Self::checked(CorePenalty::L1 { weights })
    }

    /// `sum_j log(1 + |w_j| / epsilon)`, by reweighted L1.
    #[staticmethod]
    fn log(epsilon: f64) -> PyResult<Self> {
        Self::checked(CorePenalty::Log { epsilon })
    }

    /// MCP with `gamma` and strength `lambda = 1 / C`, by reweighted L1.
    #[staticmethod]
    fn mcp(gamma: f64) -> PyResult<Self> {
        Self::checked(CorePenalty::Mcp { gamma })
    }

    /// `sum_j |w_j|^p`, `0 < p < 1`, the derivative capped at `epsilon`, by reweighted L1.
    #[staticmethod]
    fn lp(p: f64, epsilon: f64) -> PyResult<Self> {
        Self::checked(CorePenalty::Lp { p, epsilon })
    }

    /// The group lasso (`l1_ratio = 0`) or sparse-group lasso over the groups given as a label
    /// per feature (`0..n_groups`, each used); solved by FISTA only.
    #[staticmethod]
    #[pyo3(signature = (groups, l1_ratio=0.0))]
    fn group_lasso(groups: PyReadonlyArray1<'_, usize>, l1_ratio: f64) -> PyResult<Self> {
        Self::checked(CorePenalty::Group { labels: groups.as_slice()?.to_vec(), l1_ratio })
    }

    fn __repr__(&self) -> String {
        match &self.spec {
            CorePenalty::L1 { weights: None } => "PenaltySpec.l1()".to_string(),
            CorePenalty::L1 { weights: Some(w) } => format!("PenaltySpec.l1(weights=<{} values>)", w.len()),
            CorePenalty::Log { epsilon } => format!("PenaltySpec.log(epsilon={epsilon})"),
            CorePenalty::Mcp { gamma } => format!("PenaltySpec.mcp(gamma={gamma})"),
            CorePenalty::Lp { p, epsilon } => format!("PenaltySpec.lp(p={p}, epsilon={epsilon})"),
            CorePenalty::Group { labels, l1_ratio } => {
                format!("PenaltySpec.group_lasso(groups=<{} labels>, l1_ratio={l1_ratio})", labels.len())
            }
        }
    }
}

/// sparse_ranksvm(x, y, offsets, c, penalty, w0, max_iter, max_reweightings, tol,
/// solver="prox-newton") -> SparseRankSVMFit
///
/// Rows of `x` (m, n) grouped by query (`offsets`). Minimises `Omega(w) + c L(w)` with
/// `Omega` the `penalty` (a `PenaltySpec`): the (weighted) L1 norm or the (sparse-)group lasso
/// solved once, the non-convex log, MCP (lambda = 1/c), lp by reweighted L1; each convex
/// problem is solved by `solver`: "prox-newton" or "fista" (Laporte et al. Alg. 1; the group
/// penalties need it). The orchestration is the core's `sparse_ranksvm::fit`.
#[pyfunction]
#[pyo3(signature = (x, y, offsets, c, penalty, w0, max_iter, max_reweightings, tol, solver="prox-newton"))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn sparse_ranksvm<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    c: f64,
    penalty: PyRef<'py, PenaltySpec>,
    w0: Option<PyReadonlyArray1<'py, f64>>,
    max_iter: &Bound<'py, PyAny>,
    max_reweightings: &Bound<'py, PyAny>,
    tol: f64,
    solver: &str,
) -> PyResult<SparseRankSVMFit> {
    let max_iter = count_arg(max_iter, "max_iter")?;
    let max_reweightings = count_arg(max_reweightings, "max_reweightings")?;
    let solver = Solver::by_name(solver, max_iter, tol).py()?;
    let xv = x.as_array();
    let y = crate::arrays::finite(&y, "y")?;
    let offsets = query_offsets(&offsets)?;
    let w0 = w0.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    let spec = &penalty.spec;
    let reweighting = ReweightedOptions { max_reweightings, tol };
    let interrupt = python_interrupt();
    let fit = crate::errors::run_detached(py, || {
        sparse_core::fit(xv, y, &offsets, c, spec, w0, &solver, &reweighting, &interrupt)
    })?;
    SparseRankSVMFit::from_core(py, fit)
}

/// sparse_c_min(x, y, offsets, penalty) -> float
///
/// Smallest C with a non-zero sparse RankSVM solution (KKT at w = 0) for `penalty` (a
/// `PenaltySpec`; a non-convex penalty's is that of its first, plain-L1, step).
#[pyfunction]
fn sparse_c_min<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    penalty: PyRef<'py, PenaltySpec>,
) -> PyResult<f64> {
    let xv = x.as_array();
    let y = crate::arrays::finite(&y, "y")?;
    let offsets = query_offsets(&offsets)?;
    let spec = &penalty.spec;
    crate::errors::run_detached(py, || sparse_core::c_min(xv, y, &offsets, spec))
}

/// sparse_ranksvm_with(loss, n_features, c, penalty, w0, max_iter, max_reweightings, tol,
///     solver="prox-newton", max_memory=None) -> SparseRankSVMFit
///
/// `sparse_ranksvm` with the pairwise loss `L` answered by `loss`, an object with
/// `value(w)`, `value_grad(w) -> (L, grad)`, `hessian_block(w, ws) -> H[ws, ws]` and
/// `lipschitz_bound()` (e.g. sums over Dask shards): the same penalties and solvers. An
/// exception raised by `loss` stops the fit and is re-raised as is; Ctrl-C interrupts.
/// `max_memory` (bytes): MemoryError before the solver's state (up to two n x n matrices)
/// would exceed it.
#[pyfunction]
#[pyo3(signature = (loss, n_features, c, penalty, w0, max_iter, max_reweightings, tol, solver="prox-newton", max_memory=None))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn sparse_ranksvm_with<'py>(
    py: Python<'py>,
    loss: Py<PyAny>,
    n_features: &Bound<'py, PyAny>,
    c: f64,
    penalty: PyRef<'py, PenaltySpec>,
    w0: Option<PyReadonlyArray1<'py, f64>>,
    max_iter: &Bound<'py, PyAny>,
    max_reweightings: &Bound<'py, PyAny>,
    tol: f64,
    solver: &str,
    max_memory: Option<u64>,
) -> PyResult<SparseRankSVMFit> {
    let n = count_arg(n_features, "n_features")?;
    let max_iter = count_arg(max_iter, "max_iter")?;
    let max_reweightings = count_arg(max_reweightings, "max_reweightings")?;
    let solver = Solver::by_name(solver, max_iter, tol).py()?;
    let w0 = w0.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    let spec = &penalty.spec;
    let reweighting = ReweightedOptions { max_reweightings, tol };
    // Proximal Newton's working-set Hessian is up to n x n.
    let source = PySource::new(loss, n, 16, 2, max_memory)?;
    let interrupt = python_interrupt();
    let result = crate::errors::run_detached_infallible(py, || {
        sparse_core::fit_with(&source, c, spec, w0, &solver, &reweighting, &interrupt)
    })?;
    let fit = source.finish(result)?;
    SparseRankSVMFit::from_core(py, fit)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SparseRankSVMFit>()?;
    m.add_class::<PenaltySpec>()?;
    m.add_function(wrap_pyfunction!(sparse_ranksvm, m)?)?;
    m.add_function(wrap_pyfunction!(sparse_ranksvm_with, m)?)?;
    m.add_function(wrap_pyfunction!(sparse_c_min, m)?)?;
    Ok(())
}
