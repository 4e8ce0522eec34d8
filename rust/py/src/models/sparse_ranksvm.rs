//! Bindings of `rankselect_core::models::sparse_ranksvm`: L1 / weighted-L1 / reweighted
//! non-convex RankSVM (Laporte et al. 2014), each (weighted) L1 problem solved by the core's
//! `Solver` (proximal Newton or FISTA). Arguments are converted here; the core validates and
//! orchestrates; kernels run with the GIL released and are interruptible (Ctrl-C ->
//! KeyboardInterrupt).

use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankselect_core::models::sparse_ranksvm::{self as sparse_core, SparsePenalty};
use rankselect_core::solvers::penalty::GroupLasso;
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

/// sparse_ranksvm(x, y, offsets, c, penalty, p, epsilon, mcp_gamma, weights, w0, max_iter,
/// max_reweightings, tol, solver="prox-newton") -> SparseRankSVMFit
///
/// Rows of `x` (m, n) grouped by query (`offsets`). Minimises `Ω(w) + c·L(w)` with
/// `Ω = ||w||_1` / weighted L1 (`penalty="l1"`), or the non-convex `log`, `mcp`
/// (lambda = 1/c), `lp` penalties by reweighted L1; each (weighted) L1 problem is solved by
/// `solver`: "prox-newton" or "fista" (Laporte et al. Alg. 1). The orchestration is the
/// core's `sparse_ranksvm::fit`.
#[pyfunction]
#[pyo3(signature = (x, y, offsets, c, penalty, p, epsilon, mcp_gamma, weights, w0, max_iter, max_reweightings, tol, solver="prox-newton", groups=None, l1_ratio=0.0))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn sparse_ranksvm<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    c: f64,
    penalty: &str,
    p: f64,
    epsilon: f64,
    mcp_gamma: f64,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    w0: Option<PyReadonlyArray1<'py, f64>>,
    max_iter: &Bound<'py, PyAny>,
    max_reweightings: &Bound<'py, PyAny>,
    tol: f64,
    solver: &str,
    groups: Option<PyReadonlyArray1<'py, usize>>,
    l1_ratio: f64,
) -> PyResult<SparseRankSVMFit> {
    let max_iter = count_arg(max_iter, "max_iter")?;
    let max_reweightings = count_arg(max_reweightings, "max_reweightings")?;
    let solver = Solver::by_name(solver, max_iter, tol).py()?;
    let xv = x.as_array();
    let y = crate::arrays::finite(&y, "y")?;
    let offsets = query_offsets(&offsets)?;
    let weights = weights.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    let w0 = w0.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    let penalty = match groups {
        Some(labels) => {
            if weights.is_some() {
                return Err(PyValueError::new_err("weights is not used with a penalty over groups"));
            }
            SparsePenalty::group(penalty, labels.as_slice()?, l1_ratio).py()?
        }
        None => SparsePenalty::by_name(penalty, c, p, epsilon, mcp_gamma, weights).py()?,
    };
    let reweighting = ReweightedOptions { max_reweightings, tol };
    let interrupt = python_interrupt();
    let fit = crate::errors::run_detached(py, || {
        sparse_core::fit(xv, y, &offsets, c, penalty, w0, &solver, &reweighting, &interrupt)
    })?;
    SparseRankSVMFit::from_core(py, fit)
}

/// sparse_c_min(x, y, offsets, weights=None, groups=None, penalty="l1", l1_ratio=0.0) -> float
///
/// Smallest C with a non-zero sparse RankSVM solution (KKT at w = 0): (weighted) L1, or with
/// `groups` (a label per feature, 0..n_groups) the "group_lasso" / "sparse_group_lasso".
#[pyfunction]
#[pyo3(signature = (x, y, offsets, weights=None, groups=None, penalty="l1", l1_ratio=0.0))]
#[allow(clippy::too_many_arguments)]
fn sparse_c_min<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    groups: Option<PyReadonlyArray1<'py, usize>>,
    penalty: &str,
    l1_ratio: f64,
) -> PyResult<f64> {
    let xv = x.as_array();
    let y = crate::arrays::finite(&y, "y")?;
    let offsets = query_offsets(&offsets)?;
    if let Some(labels) = groups {
        let pen = GroupLasso::by_name(penalty, labels.as_slice()?, l1_ratio).py()?;
        return crate::errors::run_detached(py, || sparse_core::c_min_group(xv, y, &offsets, &pen));
    }
    let weights = weights.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    crate::errors::run_detached(py, || sparse_core::c_min(xv, y, &offsets, weights))
}

/// sparse_ranksvm_with(loss, n_features, c, penalty, p, epsilon, mcp_gamma, weights, w0,
///     max_iter, max_reweightings, tol, solver="prox-newton", max_memory=None) -> SparseRankSVMFit
///
/// `sparse_ranksvm` with the pairwise loss `L` answered by `loss`, an object with
/// `value(w)`, `value_grad(w) -> (L, grad)`, `hessian_block(w, ws) -> H[ws, ws]` and
/// `lipschitz_bound()` (e.g. sums over Dask shards): the same solvers (proximal Newton,
/// FISTA, reweighted L1 for the non-convex penalties). An exception raised by `loss` stops
/// the fit and is re-raised as is; Ctrl-C interrupts. `max_memory` (bytes): MemoryError
/// before the solver's state (up to two n x n matrices) would exceed it.
#[pyfunction]
#[pyo3(signature = (loss, n_features, c, penalty, p, epsilon, mcp_gamma, weights, w0, max_iter, max_reweightings, tol, solver="prox-newton", max_memory=None))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn sparse_ranksvm_with<'py>(
    py: Python<'py>,
    loss: Py<PyAny>,
    n_features: &Bound<'py, PyAny>,
    c: f64,
    penalty: &str,
    p: f64,
    epsilon: f64,
    mcp_gamma: f64,
    weights: Option<PyReadonlyArray1<'py, f64>>,
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
    let weights = weights.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    let w0 = w0.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    let penalty = SparsePenalty::by_name(penalty, c, p, epsilon, mcp_gamma, weights).py()?;
    let reweighting = ReweightedOptions { max_reweightings, tol };
    // Proximal Newton's working-set Hessian is up to n x n.
    let source = PySource::new(loss, n, 16, 2, max_memory)?;
    let interrupt = python_interrupt();
    let result = crate::errors::run_detached_infallible(py, || {
        sparse_core::fit_with(&source, c, penalty, w0, &solver, &reweighting, &interrupt)
    })?;
    let fit = source.finish(result)?;
    SparseRankSVMFit::from_core(py, fit)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SparseRankSVMFit>()?;
    m.add_function(wrap_pyfunction!(sparse_ranksvm, m)?)?;
    m.add_function(wrap_pyfunction!(sparse_ranksvm_with, m)?)?;
    m.add_function(wrap_pyfunction!(sparse_c_min, m)?)?;
    Ok(())
}
