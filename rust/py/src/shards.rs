//! Bindings of the query-shard kernels (`rankselect_core::shards::{greedy_shard, shard_sums}`) used
//! by `rankselect.dask`: each Dask worker calls them on its own block of whole queries.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankselect_core::metrics::MetricSpec;
use rankselect_core::selection::kendall::{Variant, DEFAULT_SHORT_MAX};
use rankselect_core::shards::greedy_shard::GreedyShard as Shard;
use rankselect_core::shards::shard_sums;

use crate::arrays::{PyMat, PyVec};
use crate::data::groups::query_offsets;
use crate::errors::{count_arg, opt_count_arg, python_interrupt, IntoPyResult};
use crate::selection::greedy_rls::criterion_spec;

/// GreedyShard(X, y, offsets, alpha, criterion="squared", convention="standard", max_memory=None)
///
/// The greedy RankRLS caches of one shard of whole queries (rows grouped by `offsets`);
/// see `rankselect_core::shards::greedy_shard` for the step protocol.
#[pyclass(module = "rankselect._core")]
pub struct GreedyShard {
    inner: Shard,
    spec: Option<MetricSpec>,
}

#[pymethods]
impl GreedyShard {
    #[new]
    #[pyo3(signature = (x, y, offsets, alpha, criterion="squared", convention="standard", max_memory=None))]
    // A binding takes its Python signature as is: one argument per parameter.
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        x: PyReadonlyArray2<'_, f64>,
        y: PyReadonlyArray1<'_, f64>,
        offsets: PyReadonlyArray1<'_, usize>,
        alpha: f64,
        criterion: &str,
        convention: &str,
        max_memory: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let max_memory = opt_count_arg(max_memory.as_ref(), "max_memory")?.map_or(u64::MAX, |v| v as u64);
        let off = query_offsets(&offsets)?;
        let (xv, yv) = (x.as_array(), y.as_slice()?);
        let spec = criterion_spec(criterion, convention, yv)?;
        if spec.is_some() {
            if let Some((r, v)) = yv.iter().enumerate().find(|(_, v)| **v < 0.0) {
                return Err(PyValueError::new_err(format!(
                    "y must be >= 0 (relevance grades) for a ranking-measure criterion (shard row {r}: {v})"
                )));
            }
        }
        let inner = py.detach(|| Shard::new(xv, yv, &off, alpha, max_memory)).py()?;
        Ok(GreedyShard { inner, spec })
    }

    /// informative() -> bool per feature: False where the feature is constant within every
    /// query of this shard.
    fn informative<'py>(&self, py: Python<'py>) -> PyVec<'py, bool> {
        self.inner.informative().to_vec().into_pyarray(py)
    }

    /// dots() -> (e, h): partial sums `v_i^T C_i`, `v_i^T a` per feature.
    fn dots<'py>(&self, py: Python<'py>) -> (PyVec<'py, f64>, PyVec<'py, f64>) {
        let (e, h) = py.detach(|| self.inner.dots());
        (e.into_pyarray(py), h.into_pyarray(py))
    }

    /// scan(c, d, skip) -> partial criterion sums per candidate (NaN where skipped).
    fn scan<'py>(
        &self,
        py: Python<'py>,
        c: PyReadonlyArray1<'py, f64>,
        d: PyReadonlyArray1<'py, f64>,
        skip: PyReadonlyArray1<'py, bool>,
    ) -> PyResult<PyVec<'py, f64>> {
        let (c, d, skip) = (c.as_slice()?, d.as_slice()?, skip.as_slice()?);
        let out = py.detach(|| self.inner.scan(c, d, skip, self.spec.as_ref())).py()?;
        Ok(out.into_pyarray(py))
    }

    /// cross(b) -> partial sums `v_b^T C_i` per feature.
    fn cross<'py>(&self, py: Python<'py>, b: &Bound<'py, PyAny>) -> PyResult<PyVec<'py, f64>> {
        let b = count_arg(b, "b")?;
        let out = py.detach(|| self.inner.cross(b)).py()?;
        Ok(out.into_pyarray(py))
    }

    /// add(b, c, d, t, skip): the Sherman-Morrison update with the global `c_b`, `d_b`, `t`.
    fn add(
        &mut self,
        py: Python<'_>,
        b: &Bound<'_, PyAny>,
        c: f64,
        d: f64,
        t: PyReadonlyArray1<'_, f64>,
        skip: PyReadonlyArray1<'_, bool>,
    ) -> PyResult<()> {
        let b = count_arg(b, "b")?;
        let (t, skip) = (t.as_slice()?, skip.as_slice()?);
        let inner = &mut self.inner;
        py.detach(|| inner.add(b, c, d, t, skip)).py()
    }

    /// coef_partial(features) -> partial sums `x_j^T a` for `j` in `features`.
    fn coef_partial<'py>(&self, py: Python<'py>, features: Vec<Bound<'py, PyAny>>) -> PyResult<PyVec<'py, f64>> {
        let features = features.iter().map(|f| count_arg(f, "features")).collect::<PyResult<Vec<usize>>>()?;
        Ok(self.inner.coef_partial(&features).py()?.into_pyarray(py))
    }
}

/// kendall_sums(x, offsets, variant) -> (S (n, n), S_neg (n, n), n_queries_used)
#[pyfunction]
fn kendall_sums<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    variant: &str,
) -> PyResult<(PyMat<'py, f64>, PyMat<'py, f64>, u64)> {
    let variant = Variant::parse(variant).py()?;
    let (x, offsets) = (x.as_array(), query_offsets(&offsets)?);
    let (s, sn, q) =
        py.detach(|| shard_sums::kendall_sums(x, &offsets, variant, DEFAULT_SHORT_MAX, &python_interrupt())).py()?;
    Ok((s.into_pyarray(py), sn.into_pyarray(py), q))
}

/// pairwise_counts(x, y, offsets) -> (E_asc (n,), E_desc (n,), n_preference_pairs), uint64
#[pyfunction]
fn pairwise_counts<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
) -> PyResult<(PyVec<'py, u64>, PyVec<'py, u64>, u64)> {
    let (x, y, offsets) = (x.as_array(), y.as_array(), query_offsets(&offsets)?);
    let (a, d, p) =
        py.detach(|| shard_sums::pairwise_counts(x, y, &offsets, DEFAULT_SHORT_MAX, &python_interrupt())).py()?;
    Ok((a.into_pyarray(py), d.into_pyarray(py), p))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GreedyShard>()?;
    m.add_function(wrap_pyfunction!(kendall_sums, m)?)?;
    m.add_function(wrap_pyfunction!(pairwise_counts, m)?)?;
    Ok(())
}
