//! Bindings of the query-shard kernels (`rankselect_core::shards::{greedy_shard, shard_sums}`) used
//! by `rankselect.dask`: each Dask worker calls them on its own block of whole queries.

use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankselect_core::selection::greedy_rls::Criterion;
use rankselect_core::selection::kendall::{Variant, DEFAULT_SHORT_MAX};
use rankselect_core::shards::greedy_shard::GreedyShard as Shard;
use rankselect_core::shards::greedy_sharded::greedy_rankrls_sharded as sharded_kernel;
use rankselect_core::shards::shard_sums;

use crate::arrays::{PyMat, PyVec};
use crate::callbacks::PySource;
use crate::data::groups::query_offsets;
use crate::errors::{count_arg, opt_count_arg, python_interrupt, IntoPyResult};
use crate::results::fields_repr;
use crate::selection::greedy_plan::RunPlan;
use crate::selection::greedy_rls::{criterion_of, run_with_progress, GreedyOptions, GreedyResult};

/// GreedyShard(X, y, offsets, alpha, criterion="squared", convention="standard", max_memory=None)
///
/// The greedy RankRLS caches of one shard of whole queries (rows grouped by `offsets`);
/// see `rankselect_core::shards::greedy_shard` for the step protocol.
#[pyclass(module = "rankselect._core")]
pub struct GreedyShard {
    inner: Shard,
    criterion: Box<dyn Criterion + Send + Sync>,
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
        let (xv, yv) = (x.as_array(), crate::arrays::finite(&y, "y")?);
        let criterion = criterion_of(criterion, convention, yv)?;
        if criterion.needs_grades() {
            if let Some((r, v)) = yv.iter().enumerate().find(|(_, v)| **v < 0.0) {
                return Err(PyValueError::new_err(format!(
                    "y must be >= 0 (relevance grades) for a ranking-measure criterion (shard row {r}: {v})"
                )));
            }
        }
        let inner = crate::errors::run_detached(py, || Shard::new(xv, yv, &off, alpha, max_memory))?;
        Ok(GreedyShard { inner, criterion })
    }

    /// informative() -> bool per feature: False where the feature is constant within every
    /// query of this shard.
    fn informative<'py>(&self, py: Python<'py>) -> PyVec<'py, bool> {
        self.inner.informative().to_vec().into_pyarray(py)
    }

    /// dots() -> (e, h, model): partial sums `v_i^T C_i`, `v_i^T a` per feature and this
    /// shard's part of `||p||^2` (the accuracy monitor's scale).
    fn dots<'py>(&self, py: Python<'py>) -> PyResult<(PyVec<'py, f64>, PyVec<'py, f64>, f64)> {
        let ((e, h), model) =
            crate::errors::run_detached_infallible(py, || (self.inner.dots(), self.inner.model_value()))?;
        Ok((e.into_pyarray(py), h.into_pyarray(py), model))
    }

    /// scan(c, d, skip) -> (values, dens): partial criterion sums per candidate (NaN where
    /// skipped) and each candidate's smallest `1 - c_i s1_qi` over the shard's queries.
    fn scan<'py>(
        &self,
        py: Python<'py>,
        c: PyReadonlyArray1<'py, f64>,
        d: PyReadonlyArray1<'py, f64>,
        skip: PyReadonlyArray1<'py, bool>,
    ) -> PyResult<(PyVec<'py, f64>, PyVec<'py, f64>)> {
        let (c, d, skip) = (c.as_slice()?, d.as_slice()?, skip.as_slice()?);
        let (v, den) = crate::errors::run_detached(py, || self.inner.scan(c, d, skip, self.criterion.as_ref()))?;
        Ok((v.into_pyarray(py), den.into_pyarray(py)))
    }

    /// cross(b) -> partial sums `v_b^T C_i` per feature.
    fn cross<'py>(&self, py: Python<'py>, b: &Bound<'py, PyAny>) -> PyResult<PyVec<'py, f64>> {
        let b = count_arg(b, "b")?;
        let out = crate::errors::run_detached(py, || self.inner.cross(b))?;
        Ok(out.into_pyarray(py))
    }

    /// add(b, c, d, t, skip) -> den: the Sherman-Morrison update with the global `c_b`, `d_b`,
    /// `t`; returns the step's smallest `1 - c s1_q` over the shard's queries.
    fn add(
        &mut self,
        py: Python<'_>,
        b: &Bound<'_, PyAny>,
        c: f64,
        d: f64,
        t: PyReadonlyArray1<'_, f64>,
        skip: PyReadonlyArray1<'_, bool>,
    ) -> PyResult<f64> {
        let b = count_arg(b, "b")?;
        let (t, skip) = (t.as_slice()?, skip.as_slice()?);
        let inner = &mut self.inner;
        crate::errors::run_detached(py, || inner.add(b, c, d, t, skip))
    }

    /// unit_dots(offsets, columns) -> this shard's `Xc_g^T C_g` of every unit `g` (group `g` =
    /// `columns[offsets[g]:offsets[g + 1]]`), b x b row-major blocks concatenated.
    fn unit_dots<'py>(
        &self,
        py: Python<'py>,
        offsets: PyReadonlyArray1<'py, usize>,
        columns: PyReadonlyArray1<'py, usize>,
    ) -> PyResult<PyVec<'py, f64>> {
        let (o, c) = (offsets.as_slice()?, columns.as_slice()?);
        let out = crate::errors::run_detached(py, || self.inner.unit_dots(o, c))?;
        Ok(out.into_pyarray(py))
    }

    /// scan_units(offsets, columns, k, h) -> this shard's part of each unit's criterion, given
    /// the global `K = I + M_gg` (b x b row-major per unit) and `h = K^-1 r_g` (concatenated).
    fn scan_units<'py>(
        &self,
        py: Python<'py>,
        offsets: PyReadonlyArray1<'py, usize>,
        columns: PyReadonlyArray1<'py, usize>,
        k: PyReadonlyArray1<'py, f64>,
        h: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<PyVec<'py, f64>> {
        let (o, c, k, h) = (offsets.as_slice()?, columns.as_slice()?, k.as_slice()?, h.as_slice()?);
        let out = crate::errors::run_detached(py, || self.inner.scan_units(o, c, k, h, self.criterion.as_ref()))?;
        Ok(out.into_pyarray(py))
    }

    /// gram() -> (G (n, n), b (n,)): this shard's `Xc^T Xc` and `Xc^T yc`.
    fn gram<'py>(&self, py: Python<'py>) -> PyResult<(PyMat<'py, f64>, PyVec<'py, f64>)> {
        let n = self.inner.n_features();
        // the core's shard kernel calls faer: its workspace first (rankselect_core::alloc)
        let (g, b) = crate::errors::run_detached(py, || {
            rankselect_core::alloc::reserve_gemm_workspace().map(|()| self.inner.gram())
        })?;
        Ok((PyArray2::from_vec2(py, &g.chunks(n.max(1)).map(|r| r.to_vec()).collect::<Vec<_>>())?, b.into_pyarray(py)))
    }

    /// baseline() -> this shard's part of the empty model's criterion.
    fn baseline(&self, py: Python<'_>) -> PyResult<f64> {
        crate::errors::run_detached_infallible(py, || self.inner.baseline(self.criterion.as_ref()))
    }
}

/// greedy_rankrls_sharded(shards, n_features, n_queries, options, progress=None, groups=None) -> GreedyResult
///
/// `greedy_rankrls` over query shards, with the same `options` (a `GreedyOptions`; not
/// floating: the shards have no removal step) and result: the core's selection loop (ties,
/// NaN, `min_improvement`, the uninformative stop, costs and budget) and arithmetic, with the
/// shards' partial sums from `shards`, an object answering `informative()`, `gram()`,
/// `baseline()`, `dots()` (`(e, h, model)`), `scan(c, d, skip)` (`(values, dens)`), `cross(b)`,
/// `add(b, c, d, t, skip)` (`(den, dots)`) with one entry per shard, in shard order (`rankselect_core::shards::greedy_sharded::ShardCalls`). An
/// exception raised by `shards` or `progress` stops the run and is re-raised as is. The
/// options' `max_memory` (bytes): MemoryError before the driver's n x n matrices would exceed
/// it (the shards apply their own). `groups=(group_offsets, members)` as in `greedy_rankrls`:
/// whole groups by the block rounds `unit_dots` and `scan_units`, each group added by its
/// columns' rounds.
#[pyfunction]
#[pyo3(signature = (shards, n_features, n_queries, options, progress=None, groups=None))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn greedy_rankrls_sharded<'py>(
    py: Python<'py>,
    shards: Py<PyAny>,
    n_features: &Bound<'py, PyAny>,
    n_queries: &Bound<'py, PyAny>,
    options: PyRef<'py, GreedyOptions>,
    progress: Option<Py<PyAny>>,
    groups: Option<(PyReadonlyArray1<'py, usize>, PyReadonlyArray1<'py, usize>)>,
) -> PyResult<GreedyResult> {
    let n = count_arg(n_features, "n_features")?;
    let n_queries = count_arg(n_queries, "n_queries")?;
    if options.floating() {
        return Err(PyValueError::new_err(
            "floating selection is not available over query shards (they have no removal step)",
        ));
    }
    // The shards check their own labels against the criterion.
    let crit = options.criterion(&[])?;
    let opts = options.core(None);
    let groups = match &groups {
        Some((go, members)) => Some((go.as_slice()?, members.as_slice()?)),
        None => None,
    };
    // The summed Gram matrix, the primal path's factor and the path itself: three n x n.
    let mut source = PySource::new(shards, n, 16, 3, options.max_memory())?;
    let plan = RunPlan::new(options.plan_options(n), n, groups)?;
    let choice = plan.choice();
    let out = run_with_progress(py, progress, |interrupt, report| {
        sharded_kernel(&mut source, &plan.units, n_queries, &opts, &choice, crit.as_ref(), interrupt, report)
    });
    source.finish(Ok(()))?;
    Ok(GreedyResult::from_path(py, out?))
}

/// KendallSums: one shard's Kendall sums (read-only), over its queries with at least two
/// documents: `s[a, b] = sum_q tau_q(a, b)`, `s_neg[a, b] = sum_q D_q / n0_q` (Geng's similarity
/// with `-b`; zeros for tau-b), both (n, n), and `n_queries`, the queries summed
/// (`shard_sums::kendall_sums`; the similarity is `sum s / sum n_queries` over shards).
#[pyclass(frozen, module = "rankselect._core", name = "KendallSums")]
pub struct KendallSums {
    #[pyo3(get)]
    s: Py<PyArray2<f64>>,
    #[pyo3(get)]
    s_neg: Py<PyArray2<f64>>,
    #[pyo3(get)]
    n_queries: u64,
}

#[pymethods]
impl KendallSums {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(slf.as_any(), &["s", "s_neg", "n_queries"])
    }
}

/// kendall_sums(x, offsets, variant) -> KendallSums
#[pyfunction]
fn kendall_sums(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    offsets: PyReadonlyArray1<'_, usize>,
    variant: &str,
) -> PyResult<KendallSums> {
    let variant = Variant::parse(variant).py()?;
    let (x, offsets) = (x.as_array(), query_offsets(&offsets)?);
    let (s, sn, q) = crate::errors::run_detached(py, || {
        shard_sums::kendall_sums(x, &offsets, variant, DEFAULT_SHORT_MAX, &python_interrupt())
    })?;
    Ok(KendallSums { s: s.into_pyarray(py).unbind(), s_neg: sn.into_pyarray(py).unbind(), n_queries: q })
}

/// PairwiseCounts: one shard's exact counts behind pairwise accuracy (read-only):
/// `ascending` and `descending` (n,) uint64, twice the preference pairs each feature misorders
/// by `x` and by `-x` (a tie counting one), and `n_pairs`, the shard's preference pairs
/// (`acc = 1 - E / (2 n_pairs)` over the summed shards).
#[pyclass(frozen, module = "rankselect._core", name = "PairwiseCounts")]
pub struct PairwiseCounts {
    #[pyo3(get)]
    ascending: Py<PyArray1<u64>>,
    #[pyo3(get)]
    descending: Py<PyArray1<u64>>,
    #[pyo3(get)]
    n_pairs: u64,
}

#[pymethods]
impl PairwiseCounts {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(slf.as_any(), &["ascending", "descending", "n_pairs"])
    }
}

/// pairwise_counts(x, y, offsets) -> PairwiseCounts
#[pyfunction]
fn pairwise_counts<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
) -> PyResult<PairwiseCounts> {
    let (x, y, offsets) = (x.as_array(), y.as_array(), query_offsets(&offsets)?);
    let (a, d, p) = crate::errors::run_detached(py, || {
        shard_sums::pairwise_counts(x, y, &offsets, DEFAULT_SHORT_MAX, &python_interrupt())
    })?;
    Ok(PairwiseCounts { ascending: a.into_pyarray(py).unbind(), descending: d.into_pyarray(py).unbind(), n_pairs: p })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GreedyShard>()?;
    m.add_class::<KendallSums>()?;
    m.add_class::<PairwiseCounts>()?;
    m.add_function(wrap_pyfunction!(greedy_rankrls_sharded, m)?)?;
    m.add_function(wrap_pyfunction!(kendall_sums, m)?)?;
    m.add_function(wrap_pyfunction!(pairwise_counts, m)?)?;
    Ok(())
}
