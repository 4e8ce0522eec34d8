//! Bindings of the sparse solvers: L1 / weighted-L1 / reweighted non-convex RankSVM
//! (`rankselect_core::{fista, reweighted}`) and FSMRank (`rankselect_core::fsmrank`).
//! Inputs are validated here and in the core; kernels run with the GIL released and are
//! interruptible (Ctrl-C -> KeyboardInterrupt).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankselect_core::datafit::{PairwiseHinge, Scaled};
use rankselect_core::fista::{fista, FistaOptions};
use rankselect_core::fsmrank::fsmrank as fsmrank_kernel;
use rankselect_core::penalty::WeightedL1;
use rankselect_core::prox_newton::{prox_newton, ProxNewtonOptions};
use rankselect_core::reweighted::{reweighted_l1, NonConvex, ReweightedOptions};
use rankselect_core::groups::check_offsets;

use crate::errors::{count_arg, python_interrupt, IntoPyResult};

type SolveOut<'py> = (Bound<'py, PyArray1<f64>>, usize, Bound<'py, PyArray1<f64>>, usize, bool, f64);

/// sparse_ranksvm(x, y, offsets, c, penalty, p, epsilon, gamma, weights, w0, max_iter,
/// max_reweightings, tol, solver="prox-newton") -> (coef, n_iter, objective_history,
/// n_reweightings, converged, objective)
///
/// Rows of `x` (m, n) grouped by query (`offsets`). Minimises `Ω(w) + c·L(w)` with
/// `Ω = ||w||_1` / weighted L1 (`penalty="l1"`), or the non-convex `log`, `mcp`
/// (lambda = 1/c), `lp` penalties by reweighted L1; each (weighted) L1 problem is solved by
/// `solver`: "prox-newton" or "fista" (Laporte et al. Alg. 1).
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
) -> PyResult<SolveOut<'py>> {
    let max_iter = count_arg(max_iter, "max_iter")?;
    let max_reweightings = count_arg(max_reweightings, "max_reweightings")?;
    let newton = match solver {
        "prox-newton" => true,
        "fista" => false,
        other => return Err(PyValueError::new_err(format!("solver must be 'prox-newton' or 'fista', got {other:?}"))),
    };
    let xv = x.as_array();
    let (m, n) = xv.dim();
    let y = y.as_slice()?;
    let offsets = offsets.as_slice()?;
    if y.len() != m {
        return Err(PyValueError::new_err(format!("y has {} entries but x has {m} rows", y.len())));
    }
    check_offsets(offsets, m).py()?;
    if !(c.is_finite() && c > 0.0) {
        return Err(PyValueError::new_err(format!("C must be > 0, got {c}")));
    }
    let weights = weights.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    if let Some(w) = &weights {
        if w.len() != n {
            return Err(PyValueError::new_err(format!("weights has {} entries but x has {n} columns", w.len())));
        }
    }
    let w0 = match w0 {
        Some(w) => w.as_slice()?.to_vec(),
        None => vec![0.0; n],
    };
    let nonconvex = match penalty {
        "l1" => None,
        "log" => Some(NonConvex::Log { epsilon }),
        "mcp" => Some(NonConvex::Mcp { gamma, lambda: 1.0 / c }),
        "lp" => Some(NonConvex::Lp { p, epsilon }),
        other => return Err(PyValueError::new_err(format!("unknown penalty {other:?}"))),
    };
    if let Some(g) = &nonconvex {
        g.validate().py()?;
        if weights.is_some() {
            return Err(PyValueError::new_err("weights is only used with penalty='l1'"));
        }
    }
    let fista_opts = FistaOptions { max_iter, tol, kkt_tol: tol, ..Default::default() };
    let newton_opts = ProxNewtonOptions { max_iter, kkt_tol: tol, ..Default::default() };
    let interrupt = python_interrupt();
    let out = py.detach(|| -> rankselect_core::Result<(Vec<f64>, usize, Vec<f64>, usize, bool, f64)> {
        let datafit = Scaled::new(PairwiseHinge::new(xv, y, offsets)?, c)?;
        // One (weighted) L1 solve: (w, iterations, objective history, converged).
        let solve = |pen: &WeightedL1, w0: &[f64]| -> rankselect_core::Result<(Vec<f64>, usize, Vec<f64>, bool)> {
            if newton {
                let r = prox_newton(&datafit, pen, w0, &newton_opts, &interrupt)?;
                Ok((r.w, r.n_iter, r.objective, r.converged))
            } else {
                let r = fista(&datafit, pen, w0, &fista_opts, &interrupt)?;
                Ok((r.w, r.n_iter, r.objective, r.converged))
            }
        };
        match nonconvex {
            None => {
                let pen = WeightedL1::new(weights.unwrap_or_else(|| vec![1.0; n]))?;
                let (w, n_iter, hist, converged) = solve(&pen, &w0)?;
                // FISTA returns its best iterate; proximal Newton its last (non-increasing) one.
                let obj = if newton {
                    hist.last().copied().unwrap_or(f64::NAN)
                } else {
                    hist.iter().cloned().fold(f64::INFINITY, f64::min)
                };
                Ok((w, n_iter, hist, 1, converged, obj))
            }
            Some(g) => {
                let opts = ReweightedOptions { max_reweightings, tol };
                let mut inner = |pen: &WeightedL1, w: &[f64]| solve(pen, w).map(|(w, it, _, _)| (w, it));
                let r = reweighted_l1(&datafit, &g, &w0, None, &opts, &mut inner, &interrupt)?;
                let last = r.objective.last().copied().unwrap_or(f64::NAN);
                Ok((r.w, r.n_iter, r.objective, r.n_reweightings, r.converged, last))
            }
        }
    });
    let (w, n_iter, hist, n_rew, conv, obj) = out.py()?;
    Ok((w.into_pyarray(py), n_iter, hist.into_pyarray(py), n_rew, conv, obj))
}

type FsmOut<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>, usize, Bound<'py, PyArray1<f64>>, bool, usize);

/// fsmrank(x, y, offsets, similarity, importance, lambda1, lambda2, w0, max_iter, tol,
/// accelerate) -> (coef (d), w (2d), n_iter, objective_history, converged, n_pairs)
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
) -> PyResult<FsmOut<'py>> {
    let max_iter = count_arg(max_iter, "max_iter")?;
    let xv = x.as_array();
    let m = xv.nrows();
    let y = y.as_slice()?;
    let offsets = offsets.as_slice()?;
    if y.len() != m {
        return Err(PyValueError::new_err(format!("y has {} entries but x has {m} rows", y.len())));
    }
    check_offsets(offsets, m).py()?;
    let sim = similarity.as_array();
    let imp = importance.as_slice()?;
    let w0 = w0.map(|w| w.as_slice().map(|s| s.to_vec())).transpose()?;
    // Lai et al. Alg. 1: no restart; stop on the relative objective change (and KKT).
    let opts = FistaOptions { max_iter, tol, kkt_tol: tol, accelerate, restart: false, ..Default::default() };
    let interrupt = python_interrupt();
    let r = py
        .detach(|| fsmrank_kernel(xv, y, offsets, sim, imp, lambda1, lambda2, w0.as_deref(), &opts, &interrupt))
        .py()?;
    Ok((
        r.coef.into_pyarray(py),
        r.solver.w.into_pyarray(py),
        r.solver.n_iter,
        r.solver.objective.into_pyarray(py),
        r.solver.converged,
        r.n_pairs,
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sparse_ranksvm, m)?)?;
    m.add_function(wrap_pyfunction!(fsmrank, m)?)?;
    Ok(())
}
