//! A Python object as the data source of a core solver: [`PySource`] answers the solvers'
//! data traits (`Datafit` / `SecondOrder` of proximal Newton and FISTA, `NewtonLoss` of
//! RankSVM's truncated Newton, `ShardCalls` of greedy RankRLS over shards) by calling the
//! object's methods. `rankselect.dask` passes objects whose methods compute per-shard
//! quantities on the workers with the core's own per-shard kernels and add them in shard
//! order; the solver (iterations, line searches, stopping and choice rules) is the core's.
//!
//! The solver runs with the GIL released; each request re-attaches (`Python::attach`) for
//! the call only. The first exception a method raises is kept, the solver stops with
//! `Error::Callback`, and [`PySource::finish`] re-raises that exception as is (a
//! `KeyboardInterrupt` raised while the object waits on the cluster included).

use std::sync::Mutex;

use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyTuple};
use rankselect_core::shards::greedy_sharded::{ShardCalls, ShardDots};
use rankselect_core::solvers::datafit::{Datafit, SecondOrder};
use rankselect_core::solvers::truncated_newton::NewtonLoss;
use rankselect_core::{Error, Result};

use crate::errors::to_py;

/// A Python object answering a solver's requests about `n` coefficients (module docs).
pub struct PySource {
    obj: Py<PyAny>,
    n: usize,
    error: Mutex<Option<PyErr>>,
}

impl PySource {
    /// A source for a solver on `n` coefficients whose own memory is about `n_vectors`
    /// n-vectors and `n_matrices` n x n matrices: refused (MemoryError) beyond `max_memory`
    /// bytes (None: no limit), before anything is allocated.
    pub fn new(obj: Py<PyAny>, n: usize, n_vectors: u128, n_matrices: u128, max_memory: Option<u64>) -> PyResult<Self> {
        let n128 = n as u128;
        rankselect_core::check_memory(
            &format!("the solver's state for {n} features"),
            8 * (n_vectors * n128 + n_matrices * n128 * n128),
            max_memory.unwrap_or(u64::MAX),
            "use fewer features, or raise rankselect.set_config(max_memory=...)",
        )
        .map_err(to_py)?;
        Ok(PySource { obj, n, error: Mutex::new(None) })
    }

    /// Calls `obj.<method>(*args)` with the GIL and converts the answer with `convert`; a
    /// Python exception (from the method or the conversion) is kept and becomes
    /// `Error::Callback`.
    pub fn call<T, A, F>(&self, method: &str, args: A, convert: F) -> Result<T>
    where
        A: for<'py> FnOnce(Python<'py>) -> Vec<Bound<'py, PyAny>>,
        F: for<'py> FnOnce(&Bound<'py, PyAny>) -> PyResult<T>,
    {
        if self.failed() {
            return Err(Error::Callback(format!("{method}: an earlier request failed")));
        }
        Python::attach(|py| {
            let obj = self.obj.bind(py);
            let found = obj.getattr(method).map_err(|_| {
                let kind = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
                PyTypeError::new_err(format!("the data source ({kind}) has no method {method}()"))
            });
            let out = found.and_then(|f| f.call1(PyTuple::new(py, args(py))?)).and_then(|v| convert(&v));
            out.map_err(|e| {
                let msg = format!("{method}: {e}");
                *self.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                Error::Callback(msg)
            })
        })
    }

    fn failed(&self) -> bool {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }

    /// The solver's result, or the exception a method raised (re-raised as is).
    pub fn finish<T>(&self, result: Result<T>) -> PyResult<T> {
        if let Some(e) = self.error.lock().unwrap_or_else(|p| p.into_inner()).take() {
            return Err(e);
        }
        result.map_err(to_py)
    }

    /// An n-vector answer (checked length).
    pub fn vector(&self, v: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<f64>> {
        vector_of(v, self.n, what)
    }
}

/// `v` as a NumPy array (an argument of a request).
pub fn arr<'py>(py: Python<'py>, v: &[f64]) -> Bound<'py, PyAny> {
    PyArray1::from_slice(py, v).into_any()
}

fn int(py: Python<'_>, v: usize) -> Bound<'_, PyAny> {
    v.into_pyobject(py).expect("an int converts").into_any()
}

fn flag(py: Python<'_>, v: bool) -> Bound<'_, PyAny> {
    PyBool::new(py, v).to_owned().into_any()
}

/// `v` as an aligned, C-contiguous NumPy array of `dtype` (arrays unpickled from a Dask
/// worker's buffer may be misaligned; a list is converted).
fn required<'py>(v: &Bound<'py, PyAny>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    v.py().import("numpy")?.call_method1("require", (v, dtype, ("C", "A")))
}

/// A float64 array of `n` entries as a `Vec` (a clear ValueError otherwise).
pub fn vector_of(v: &Bound<'_, PyAny>, n: usize, what: &str) -> PyResult<Vec<f64>> {
    let a: PyReadonlyArray1<'_, f64> = required(v, "float64")
        .and_then(|a| a.extract())
        .map_err(|_| PyValueError::new_err(format!("{what} must be a 1-D float64 array of {n} values")))?;
    if a.len() != n {
        return Err(PyValueError::new_err(format!("{what} has {} values, expected {n}", a.len())));
    }
    Ok(a.as_slice()?.to_vec())
}

/// A float, or a ValueError naming `what`.
pub fn float_of(v: &Bound<'_, PyAny>, what: &str) -> PyResult<f64> {
    v.extract::<f64>().map_err(|_| PyValueError::new_err(format!("{what} must be a float")))
}

/// `(float, n-vector)`.
fn value_and_vector(v: &Bound<'_, PyAny>, n: usize, what: &str) -> PyResult<(f64, Vec<f64>)> {
    let (a, b): (Bound<'_, PyAny>, Bound<'_, PyAny>) =
        v.extract().map_err(|_| PyValueError::new_err(format!("{what} must return (value, gradient)")))?;
    Ok((float_of(&a, what)?, vector_of(&b, n, what)?))
}

fn copy_into(out: &mut [f64], v: Vec<f64>) {
    out.copy_from_slice(&v);
}

/// The pairwise loss `L` of sparse RankSVM as a datafit: `value(w)`, `value_grad(w)`,
/// `hessian_block(w, ws)` (a `(|ws|, |ws|)` float64 array), `lipschitz_bound()`.
impl Datafit for PySource {
    fn n_features(&self) -> usize {
        self.n
    }
    fn value(&self, w: &[f64]) -> Result<f64> {
        self.call("value", |py| vec![arr(py, w)], |v| float_of(v, "value"))
    }
    fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        let (v, g) = self.call("value_grad", |py| vec![arr(py, w)], |v| value_and_vector(v, self.n, "value_grad"))?;
        copy_into(grad, g);
        Ok(v)
    }
    fn lipschitz_bound(&self) -> Result<f64> {
        self.call("lipschitz_bound", |_| vec![], |v| float_of(v, "lipschitz_bound"))
    }
}

impl SecondOrder for PySource {
    fn hessian_block(&self, w: &[f64], ws: &[usize], out: &mut [f64]) -> Result<()> {
        let k = ws.len();
        let h = self.call(
            "hessian_block",
            |py| vec![arr(py, w), PyArray1::from_slice(py, ws).into_any()],
            |v| {
                let a: PyReadonlyArray2<'_, f64> = required(v, "float64")
                    .and_then(|a| a.extract())
                    .map_err(|_| PyValueError::new_err("hessian_block must return a 2-D float64 array"))?;
                if a.shape() != [k, k] {
                    return Err(PyValueError::new_err(format!(
                        "hessian_block has shape {:?}, expected ({k}, {k})",
                        a.shape()
                    )));
                }
                Ok(a.as_array().iter().copied().collect::<Vec<f64>>())
            },
        )?;
        copy_into(out, h);
        Ok(())
    }
}

/// The loss of RankSVM's truncated Newton: `value_grad(w)`, `hessp(w, v)`,
/// `line_derivatives(w, d, t, second)` (two floats), `n_pairs()`.
impl NewtonLoss for PySource {
    fn n_features(&self) -> usize {
        self.n
    }
    fn value_grad(&mut self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        Datafit::value_grad(self, w, grad)
    }
    fn hessp(&mut self, w: &[f64], v: &[f64], out: &mut [f64]) -> Result<()> {
        let hv = self.call("hessp", |py| vec![arr(py, w), arr(py, v)], |r| self.vector(r, "hessp"))?;
        copy_into(out, hv);
        Ok(())
    }
    fn line_derivatives(&mut self, w: &[f64], d: &[f64], t: f64, second: bool) -> Result<(f64, f64)> {
        self.call(
            "line_derivatives",
            |py| vec![arr(py, w), arr(py, d), PyFloat::new(py, t).into_any(), flag(py, second)],
            |r| r.extract::<(f64, f64)>().map_err(|_| PyValueError::new_err("line_derivatives must return two floats")),
        )
    }
    fn n_pairs(&mut self) -> Result<usize> {
        self.call(
            "n_pairs",
            |_| vec![],
            |r| r.extract::<usize>().map_err(|_| PyValueError::new_err("n_pairs must return an integer >= 0")),
        )
    }
}

/// The rounds of greedy RankRLS over shards (`rankselect_core::shards::greedy_shard`), one
/// entry per shard in shard order: `informative()` (bool arrays), `gram()` (`(G_s (n, n),
/// b_s)`), `baseline()` (floats), `dots()` (`(e_s, h_s, model_s)`), `scan(c, d, skip)`
/// (`(values_s, dens_s)`), `cross(b)`, `add(b, c, d, t, skip)` (`(den_s, next dots)`); with groups, `unit_dots(offsets, columns)` and
/// `scan_units(offsets, columns, K, h)`; optionally `rows()` (`(rows_s, largest query's rows_s)`).
impl ShardCalls for PySource {
    fn informative(&mut self) -> Result<Vec<Vec<bool>>> {
        self.call(
            "informative",
            |_| vec![],
            |v| {
                per_shard(v, "informative", |a| {
                    let a: PyReadonlyArray1<'_, bool> = required(a, "bool")
                        .and_then(|a| a.extract())
                        .map_err(|_| PyValueError::new_err("informative must return bool arrays"))?;
                    Ok(a.as_slice()?.to_vec())
                })
            },
        )
    }
    fn gram(&mut self) -> Result<Vec<(Vec<f64>, Vec<f64>)>> {
        self.call(
            "gram",
            |_| vec![],
            |v| {
                per_shard(v, "gram", |p| {
                    let bad = || PyValueError::new_err("gram must return (G, b) pairs of float64 arrays");
                    let (g, b): (Bound<'_, PyAny>, Bound<'_, PyAny>) = p.extract().map_err(|_| bad())?;
                    let g: PyReadonlyArray2<'_, f64> =
                        required(&g, "float64").and_then(|a| a.extract()).map_err(|_| bad())?;
                    Ok((g.as_array().iter().copied().collect(), any_vector(&b, "gram")?))
                })
            },
        )
    }
    fn baseline(&mut self) -> Result<Vec<f64>> {
        self.call("baseline", |_| vec![], |v| per_shard(v, "baseline", |x| float_of(x, "baseline")))
    }
    fn dots(&mut self) -> Result<Vec<ShardDots>> {
        self.call("dots", |_| vec![], |v| per_shard(v, "dots", shard_dots))
    }
    fn scan(&mut self, c: &[f64], d: &[f64], skip: &[bool]) -> Result<Vec<(Vec<f64>, Vec<f64>)>> {
        self.call(
            "scan",
            |py| vec![arr(py, c), arr(py, d), PyArray1::from_slice(py, skip).into_any()],
            |v| per_shard(v, "scan", pair),
        )
    }
    fn cross(&mut self, b: usize) -> Result<Vec<Vec<f64>>> {
        self.call("cross", |py| vec![int(py, b)], |v| per_shard(v, "cross", |a| any_vector(a, "cross")))
    }
    fn add(&mut self, b: usize, cb: f64, db: f64, t: &[f64], skip: &[bool]) -> Result<Vec<(f64, ShardDots)>> {
        self.call(
            "add",
            |py| {
                let (c, d) = (PyFloat::new(py, cb).into_any(), PyFloat::new(py, db).into_any());
                vec![int(py, b), c, d, arr(py, t), PyArray1::from_slice(py, skip).into_any()]
            },
            |v| {
                per_shard(v, "add", |p| {
                    let bad = || PyValueError::new_err("add must return (den, (e, h, model)) per shard");
                    let (den, dots): (Bound<'_, PyAny>, Bound<'_, PyAny>) = p.extract().map_err(|_| bad())?;
                    Ok((float_of(&den, "add's den")?, shard_dots(&dots)?))
                })
            },
        )
    }
    fn unit_dots(&mut self, offsets: &[usize], columns: &[usize]) -> Result<Vec<Vec<f64>>> {
        self.call(
            "unit_dots",
            |py| vec![PyArray1::from_slice(py, offsets).into_any(), PyArray1::from_slice(py, columns).into_any()],
            |v| per_shard(v, "unit_dots", |a| any_vector(a, "unit_dots")),
        )
    }
    fn scan_units(&mut self, offsets: &[usize], columns: &[usize], k: &[f64], h: &[f64]) -> Result<Vec<Vec<f64>>> {
        self.call(
            "scan_units",
            |py| {
                let (o, c) =
                    (PyArray1::from_slice(py, offsets).into_any(), PyArray1::from_slice(py, columns).into_any());
                vec![o, c, arr(py, k), arr(py, h)]
            },
            |v| per_shard(v, "scan_units", |a| any_vector(a, "scan_units")),
        )
    }
    /// Optional: a source without `rows()` gives no shape (a refusal then names no shape).
    fn rows(&mut self) -> Result<Vec<(usize, usize)>> {
        if !Python::attach(|py| self.obj.bind(py).hasattr("rows").unwrap_or(false)) {
            return Ok(Vec::new());
        }
        self.call(
            "rows",
            |_| vec![],
            |v| {
                per_shard(v, "rows", |p| {
                    p.extract::<(usize, usize)>()
                        .map_err(|_| PyValueError::new_err("rows must return (rows, largest query's rows) per shard"))
                })
            },
        )
    }
}

/// `(float64 array, float64 array)`.
fn pair(p: &Bound<'_, PyAny>) -> PyResult<(Vec<f64>, Vec<f64>)> {
    let (a, b): (Bound<'_, PyAny>, Bound<'_, PyAny>) =
        p.extract().map_err(|_| PyValueError::new_err("expected pairs of float64 arrays"))?;
    Ok((any_vector(&a, "the first array")?, any_vector(&b, "the second array")?))
}

/// `(float64 array, float64 array, float)`: a shard's dots round.
fn shard_dots(p: &Bound<'_, PyAny>) -> PyResult<ShardDots> {
    let (a, b, m): (Bound<'_, PyAny>, Bound<'_, PyAny>, Bound<'_, PyAny>) =
        p.extract().map_err(|_| PyValueError::new_err("dots must return (e, h, model) per shard"))?;
    Ok((any_vector(&a, "dots' e")?, any_vector(&b, "dots' h")?, float_of(&m, "dots' model")?))
}

/// Per-shard answers: a sequence with one entry per shard.
pub fn per_shard<'py, T>(
    v: &Bound<'py, PyAny>,
    what: &str,
    each: impl FnMut(&Bound<'py, PyAny>) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    let items: Vec<Bound<'py, PyAny>> =
        v.extract().map_err(|_| PyValueError::new_err(format!("{what} must return one entry per shard")))?;
    items.iter().map(each).collect()
}

/// A 1-D array of any length (the core checks the lengths of per-shard answers).
pub fn any_vector(v: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<f64>> {
    let a: PyReadonlyArray1<'_, f64> = required(v, "float64")
        .and_then(|a| a.extract())
        .map_err(|_| PyValueError::new_err(format!("{what} must be 1-D float64 arrays")))?;
    Ok(a.as_slice()?.to_vec())
}
