//! Bindings of the sparse solvers: L1 / weighted-L1 / reweighted non-convex RankSVM
//! (`rankselect_core::solvers::{fista, reweighted}`) and FSMRank (`rankselect_core::selection::fsmrank`).
//! Arguments are converted here; the core validates and orchestrates; kernels run with the GIL released and are
//! interruptible (Ctrl-C -> KeyboardInterrupt).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankselect_core::models::sparse_ranksvm::{self as sparse_core, SparsePenalty};
use rankselect_core::selection::fsmrank::fsmrank as fsmrank_kernel;
use rankselect_core::solvers::fista::FistaOptions;
use rankselect_core::solvers::reweighted::ReweightedOptions;
use rankselect_core::solvers::Solver;

use crate::errors::{count_arg, python_interrupt, IntoPyResult};
use crate::groups::query_offsets;
use crate::solver::SolverResult;

/// sparse_ranksvm(x, y, offsets, c, penalty, p, epsilon, gamma, weights, w0, max_iter,
/// max_reweightings, tol, solver="prox-newton") -> (SolverResult, n_reweightings)
///
/// Rows of `x` (m, n) grouped by query (`offsets`). Minimises `Ω(w) + c·L(w)` with
/// `Ω = ||w||_1` / weighted L1 (`penalty="l1"`), or the non-convex `log`, `mcp`
/// (lambda = 1/c), `lp` penalties by reweighted L1; each (weighted) L1 problem is solved by
/// `solver`: "prox-newton" or "fista" (Laporte et al. Alg. 1). The orchestration is the
/// core's `sparse_ranksvm::fit`.
#[pyfunction]
#[pyo3(signature = (x, y, offsets, c, penalty, p, epsilon, gamma, weights, w0, max_iter, max_reweightings, tol, solver="prox-newton"))]
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
    gamma: f64,
    weights: Option<PyReadonlyArray1<'py, f64>>,
    w0: Option<PyReadonlyArray1<'py, f64>>,
    max_iter: &Bound<'py, PyAny>,
    max_reweightings: &Bound<'py, PyAny>,
    tol: f64,
    solver: &str,
) -> PyResult<(SolverResult, usize)> {
    let max_iter = count_arg(max_iter, "max_iter")?;
    let max_reweightings = count_arg(max_reweightings, "max_reweightings")?;
    let solver = Solver::by_name(solver, max_iter, tol).py()?;
    let xv = x.as_array();
    let y = y.as_slice()?;
    let offsets = query_offsets(&offsets)?;
    let weights = weights.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    let w0 = w0.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    // `gamma` is the binding's name of MCP's `mcp_gamma`.
    let penalty = SparsePenalty::by_name(penalty, c, p, epsilon, gamma, weights).py()?;
    let reweighting = ReweightedOptions { max_reweightings, tol };
    let interrupt = python_interrupt();
    let fit =
        py.detach(|| sparse_core::fit(xv, y, &offsets, c, penalty, w0, &solver, &reweighting, &interrupt)).py()?;
    Ok((SolverResult::from_core(py, fit.result), fit.n_reweightings))
}

/// sparse_c_min(x, y, offsets, weights=None) -> float
///
/// Smallest C with a non-zero (weighted) L1 sparse RankSVM solution (KKT at w = 0).
#[pyfunction]
#[pyo3(signature = (x, y, offsets, weights=None))]
fn sparse_c_min<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    weights: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<f64> {
    let xv = x.as_array();
    let y = y.as_slice()?;
    let offsets = query_offsets(&offsets)?;
    let weights = weights.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    py.detach(|| sparse_core::c_min(xv, y, &offsets, weights)).py()
}

/// fsmrank(x, y, offsets, similarity, importance, lambda1, lambda2, w0, max_iter, tol,
/// accelerate) -> (SolverResult, coef (d), n_pairs)
///
/// The result is the solver's on the doubled problem (its `coef` is `w = [w+, w-]`, 2d;
/// FISTA's best iterate); the extras are `coef = w+ - w-` (d) and the number of pairs.
///
/// Lai et al. eq. (2) on the doubled features, by Alg. 1 (`accelerate=False`: plain
/// projected proximal gradient, for comparison).
#[pyfunction]
#[pyo3(signature = (x, y, offsets, similarity, importance, lambda1, lambda2, w0, max_iter, tol, accelerate=true))]
#[allow(clippy::too_many_arguments)]
fn fsmrank<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    similarity: PyReadonlyArray2<'py, f64>,
    importance: PyReadonlyArray1<'py, f64>,
    lambda1: f64,
    lambda2: f64,
    w0: Option<PyReadonlyArray1<'py, f64>>,
    max_iter: &Bound<'py, PyAny>,
    tol: f64,
    accelerate: bool,
) -> PyResult<(SolverResult, Bound<'py, PyArray1<f64>>, usize)> {
    let max_iter = count_arg(max_iter, "max_iter")?;
    let xv = x.as_array();
    let m = xv.nrows();
    let y = y.as_slice()?;
    let offsets = query_offsets(&offsets)?;
    if y.len() != m {
        return Err(PyValueError::new_err(format!("y has {} entries but x has {m} rows", y.len())));
    }
    offsets.check_rows(m, "x").py()?;
    let sim = similarity.as_array();
    let imp = importance.as_slice()?;
    let w0 = w0.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    // Lai et al. Alg. 1: no restart; stop on the relative objective change (and KKT).
    let opts = FistaOptions { max_iter, tol, kkt_tol: tol, accelerate, restart: false, ..Default::default() };
    let interrupt = python_interrupt();
    let r = py
        .detach(|| fsmrank_kernel(xv, y, &offsets, sim, imp, lambda1, lambda2, w0.as_deref(), &opts, &interrupt))
        .py()?;
    Ok((SolverResult::from_core(py, r.solver.into()), r.coef.into_pyarray(py), r.n_pairs))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sparse_ranksvm, m)?)?;
    m.add_function(wrap_pyfunction!(sparse_c_min, m)?)?;
    m.add_function(wrap_pyfunction!(fsmrank, m)?)?;
    Ok(())
}
