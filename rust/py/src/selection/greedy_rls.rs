//! Bindings of `rankselect_core::selection::greedy_rls` and `cost_greedy`: greedy RankRLS
//! with exact LQO selection, as one entry point. `GreedyOptions` says which run (plain,
//! per cost under a budget, floating), `greedy_rankrls` runs it in memory (and
//! `shards::greedy_rankrls_sharded` over query shards), and both return one `GreedyResult`.

use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rankselect_core::metrics::{Convention, Measure, MetricSpec};
use rankselect_core::selection::greedy_rls::{
    greedy_rankrls_floating, greedy_rankrls_units, Criterion, FloatingPath, GreedyOptions as CoreOptions, GreedyPath,
    MetricCriterion, Squared, Stop,
};

use super::greedy_plan::{PlanOptions, RunPlan};
pub(crate) use super::greedy_progress::run_with_progress;
use crate::data::groups::query_offsets;
use crate::errors::{count_arg, opt_count_arg, IntoPyResult};
use crate::results::fields_repr;

/// The measure of the greedy criterion named `name`: `None` for the squared LQO criterion,
/// else the ranking measure's spec with `convention` (both checked, the convention even where
/// the squared criterion does not use it).
fn parse_criterion(name: &str, convention: &str) -> PyResult<Option<MetricSpec>> {
    let convention: Convention = convention.parse().py()?;
    if name.eq_ignore_ascii_case("squared") {
        return Ok(None);
    }
    let measure: Measure = name.parse().map_err(|e| {
        PyValueError::new_err(format!(
            "criterion must be 'squared' or a ranking measure such as 'ndcg@10' or 'map': {e}"
        ))
    })?;
    let spec = MetricSpec::new(measure).with_convention(convention);
    spec.validate().map_err(|e| PyValueError::new_err(format!("criterion: {e}")))?;
    Ok(Some(spec))
}

/// The core's [`Criterion`] of `spec` for labels `y`: labels whose gain `2^r - 1` overflows,
/// which would make every criterion value NaN, are refused.
fn criterion_for(spec: Option<MetricSpec>, y: &[f64]) -> PyResult<Box<dyn Criterion + Send + Sync>> {
    Ok(match spec {
        None => Box::new(Squared),
        Some(spec) => {
            let top = y.iter().copied().filter(|v| v.is_finite()).fold(0.0, f64::max);
            rankselect_core::metrics::check_gain_labels(&spec, top).py()?;
            Box::new(MetricCriterion(spec))
        }
    })
}

/// The greedy criterion named `name` with `convention`, for labels `y` (the one parser of a
/// greedy criterion: [`GreedyOptions`] and the Dask shards, `shards::GreedyShard`).
pub(crate) fn criterion_of(name: &str, convention: &str, y: &[f64]) -> PyResult<Box<dyn Criterion + Send + Sync>> {
    criterion_for(parse_criterion(name, convention)?, y)
}

/// GreedyOptions(n_features_to_select, alpha, criterion="squared", min_improvement=None,
///               convention="standard", max_memory=None, feature_costs=None, budget=None,
///               floating=False, group_costs=None, select_groups=True)
///
/// Which greedy RankRLS run `greedy_rankrls` (and `greedy_rankrls_sharded`) does, read-only:
/// select `n_features_to_select` features with ridge `alpha` by the exact LQO `criterion`
/// ("squared" or a ranking measure such as "ndcg@10", with `convention`); stop early when a
/// step improves by less than `min_improvement` (relative; None: never); `max_memory` (bytes):
/// MemoryError before the caches would exceed it (None: no limit). `feature_costs` and/or
/// `budget`: choose by improvement per unit cost, never exceeding `budget` (a budget alone:
/// unit costs). `floating=True`: sequential floating forward selection (neither costs, budget
/// nor `min_improvement`; over whole groups too). With `groups` (see `greedy_rankrls`):
/// `select_groups=True` selects whole groups (`n_features_to_select` counts groups; a group
/// costs its members' `feature_costs` plus its `group_costs` entry), False selects features,
/// each group's `group_costs` entry paid once by its first selected member (the marginal cost).
/// Names and integers are checked here; the values by the run.
#[pyclass(frozen, module = "rankselect._core", name = "GreedyOptions")]
pub struct GreedyOptions {
    #[pyo3(get)]
    n_features_to_select: usize,
    #[pyo3(get)]
    alpha: f64,
    #[pyo3(get)]
    criterion: String,
    #[pyo3(get)]
    min_improvement: Option<f64>,
    #[pyo3(get)]
    convention: String,
    #[pyo3(get)]
    max_memory: Option<u64>,
    costs: Option<Vec<f64>>,
    #[pyo3(get)]
    budget: Option<f64>,
    #[pyo3(get)]
    floating: bool,
    group_costs: Option<Vec<f64>>,
    #[pyo3(get)]
    select_groups: bool,
    spec: Option<MetricSpec>,
}

#[pymethods]
impl GreedyOptions {
    #[new]
    #[pyo3(signature = (n_features_to_select, alpha, criterion="squared", min_improvement=None,
                        convention="standard", max_memory=None, feature_costs=None, budget=None, floating=false,
                        group_costs=None, select_groups=true))]
    // A binding takes its Python signature as is: one argument per parameter.
    #[allow(clippy::too_many_arguments)]
    fn new(
        n_features_to_select: &Bound<'_, PyAny>,
        alpha: f64,
        criterion: &str,
        min_improvement: Option<f64>,
        convention: &str,
        max_memory: Option<Bound<'_, PyAny>>,
        feature_costs: Option<PyReadonlyArray1<'_, f64>>,
        budget: Option<f64>,
        floating: bool,
        group_costs: Option<PyReadonlyArray1<'_, f64>>,
        select_groups: bool,
    ) -> PyResult<Self> {
        let n_features_to_select = count_arg(n_features_to_select, "n_features_to_select")?;
        let max_memory = opt_count_arg(max_memory.as_ref(), "max_memory")?.map(|v| v as u64);
        let spec = parse_criterion(criterion, convention)?;
        let costs = feature_costs.map(|c| c.as_slice().map(|s| s.to_vec())).transpose()?;
        let group_costs = group_costs.map(|c| c.as_slice().map(|s| s.to_vec())).transpose()?;
        if floating && (costs.is_some() || budget.is_some() || min_improvement.is_some() || group_costs.is_some()) {
            return Err(PyValueError::new_err(
                "floating selection takes neither feature_costs, group_costs, budget nor min_improvement",
            ));
        }
        Ok(GreedyOptions {
            n_features_to_select,
            alpha,
            criterion: criterion.to_owned(),
            min_improvement,
            convention: convention.to_owned(),
            max_memory,
            costs,
            budget,
            floating,
            group_costs,
            select_groups,
            spec,
        })
    }

    /// The feature costs (a copy), or None.
    #[getter]
    fn feature_costs<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.costs.as_ref().map(|c| c.clone().into_pyarray(py))
    }

    /// The group costs (a copy), or None.
    #[getter]
    fn group_costs<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.group_costs.as_ref().map(|c| c.clone().into_pyarray(py))
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(
            slf.as_any(),
            &[
                "n_features_to_select",
                "alpha",
                "criterion",
                "min_improvement",
                "convention",
                "max_memory",
                "feature_costs",
                "budget",
                "floating",
                "group_costs",
                "select_groups",
            ],
        )
    }
}

impl GreedyOptions {
    /// The core's options, `max_memory` left to the caller (the in-memory caches take it;
    /// over shards the driver applies it to its own matrices).
    pub(crate) fn core(&self, max_memory: Option<u64>) -> CoreOptions {
        CoreOptions {
            n_features_to_select: self.n_features_to_select,
            alpha: self.alpha,
            min_improvement: self.min_improvement,
            max_memory,
        }
    }

    pub(crate) fn max_memory(&self) -> Option<u64> {
        self.max_memory
    }

    pub(crate) fn floating(&self) -> bool {
        self.floating
    }

    /// The group costs, if any, and whether a run with groups selects whole groups.
    /// What the run's plan reads (`greedy_plan::RunPlan::new`) on `n` columns.
    pub(crate) fn plan_options(&self, n: usize) -> PlanOptions<'_> {
        let (group_costs, select_groups) = self.group_options();
        PlanOptions { group_costs, select_groups, feature_costs: self.costs(n), budget: self.budget() }
    }

    pub(crate) fn group_options(&self) -> (Option<&[f64]>, bool) {
        (self.group_costs.as_deref(), self.select_groups)
    }

    pub(crate) fn budget(&self) -> Option<f64> {
        self.budget
    }

    /// The criterion for labels `y` ([`criterion_for`]).
    pub(crate) fn criterion(&self, y: &[f64]) -> PyResult<Box<dyn Criterion + Send + Sync>> {
        criterion_for(self.spec, y)
    }

    /// The feature costs of a run on `n` features: the given ones, unit costs under a budget
    /// alone, or None (the best criterion, no costs).
    pub(crate) fn costs(&self, n: usize) -> Option<Vec<f64>> {
        match (&self.costs, self.budget) {
            (Some(c), _) => Some(c.clone()),
            (None, Some(_)) => Some(vec![1.0; n]),
            (None, None) => None,
        }
    }
}

/// GreedyResult: what a greedy RankRLS run returns (read-only).
///
/// `selected` (uintp): the features in order of selection (floating: the best subset of the
/// largest size); `lqo_scores`: the criterion after each step (floating: the best of each
/// subset size); `coef_path` (steps, n): the weights of every prefix (floating: of each size's
/// best subset); `stop_reason`: None (`n_features_to_select` steps), "min_improvement",
/// "uninformative" (only features constant within every query are left), "budget" or
/// (floating) "visited" (every addition gives a subset already visited). Floating only (else
/// None): `subsets`, the best subset of every size; `step_features`, `step_added`,
/// `step_values`, every step's feature, whether it was added, and the criterion after it.
#[pyclass(frozen, module = "rankselect._core", name = "GreedyResult")]
pub struct GreedyResult {
    #[pyo3(get)]
    selected: Py<PyArray1<usize>>,
    #[pyo3(get)]
    lqo_scores: Py<PyArray1<f64>>,
    #[pyo3(get)]
    coef_path: Py<PyArray2<f64>>,
    #[pyo3(get)]
    stop_reason: Option<&'static str>,
    #[pyo3(get)]
    subsets: Option<Py<PyList>>,
    #[pyo3(get)]
    step_features: Option<Py<PyArray1<usize>>>,
    #[pyo3(get)]
    step_added: Option<Py<PyArray1<bool>>>,
    #[pyo3(get)]
    step_values: Option<Py<PyArray1<f64>>>,
}

impl GreedyResult {
    /// The result of a (non-floating) path: the one conversion of the core's path.
    pub(crate) fn from_path(py: Python<'_>, path: GreedyPath) -> Self {
        GreedyResult {
            selected: path.selected.into_pyarray(py).unbind(),
            lqo_scores: path.lqo_scores.into_pyarray(py).unbind(),
            coef_path: path.coef_path.into_pyarray(py).unbind(),
            stop_reason: path.stop.map(stop_name),
            subsets: None,
            step_features: None,
            step_added: None,
            step_values: None,
        }
    }

    /// The result of a floating search: its path, then its subsets and steps.
    fn from_floating(py: Python<'_>, fp: FloatingPath) -> PyResult<Self> {
        let subsets = PyList::new(py, fp.subsets.into_iter().map(|s| s.into_pyarray(py)))?.unbind();
        let features: Vec<usize> = fp.steps.iter().map(|s| s.0).collect();
        let added: Vec<bool> = fp.steps.iter().map(|s| s.1).collect();
        let values: Vec<f64> = fp.steps.iter().map(|s| s.2).collect();
        Ok(GreedyResult {
            subsets: Some(subsets),
            step_features: Some(features.into_pyarray(py).unbind()),
            step_added: Some(added.into_pyarray(py).unbind()),
            step_values: Some(values.into_pyarray(py).unbind()),
            ..GreedyResult::from_path(py, fp.path)
        })
    }
}

#[pymethods]
impl GreedyResult {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let fields = [
            "selected",
            "lqo_scores",
            "coef_path",
            "stop_reason",
            "subsets",
            "step_features",
            "step_added",
            "step_values",
        ];
        fields_repr(slf.as_any(), &fields)
    }
}

/// greedy_rankrls(X, y, offsets, options, progress=None, groups=None) -> GreedyResult
///
/// Greedy RankRLS on rows grouped by query (`offsets`) as `options` (a `GreedyOptions`)
/// says: plain, per cost under a budget, or floating, over features or whole groups: one
/// selection loop over units (a feature is a unit of one). `progress(step, unit, value)` is
/// called after every step (every addition when floating; with the GIL); an exception it
/// raises stops the run and propagates. `groups=(group_offsets, members)` (uintp): group `g`
/// is `members[group_offsets[g]:group_offsets[g + 1]]`, every column in exactly one group;
/// with `options.select_groups` the run selects whole groups by the exact LQO criterion and
/// `selected` holds group indices.
#[pyfunction]
#[pyo3(signature = (x, y, offsets, options, progress=None, groups=None))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn greedy_rankrls<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    options: PyRef<'py, GreedyOptions>,
    progress: Option<Py<PyAny>>,
    groups: Option<(PyReadonlyArray1<'py, usize>, PyReadonlyArray1<'py, usize>)>,
) -> PyResult<GreedyResult> {
    let off = query_offsets(&offsets)?;
    let xv = x.as_array();
    let yv = crate::arrays::finite(&y, "y")?;
    let crit = options.criterion(yv)?;
    let opts = options.core(options.max_memory);
    let groups = match &groups {
        Some((go, members)) => Some((go.as_slice()?, members.as_slice()?)),
        None => None,
    };
    let plan = RunPlan::new(options.plan_options(xv.ncols()), xv.ncols(), groups)?;
    if options.floating {
        let fp = run_with_progress(py, progress, |interrupt, report| {
            greedy_rankrls_floating(xv, yv, &off, &plan.units, &opts, crit.as_ref(), interrupt, report)
        })?;
        return GreedyResult::from_floating(py, fp);
    }
    let choice = plan.choice();
    let path = run_with_progress(py, progress, |interrupt, report| {
        greedy_rankrls_units(xv, yv, &off, &plan.units, &opts, &choice, crit.as_ref(), interrupt, report)
    })?;
    Ok(GreedyResult::from_path(py, path))
}

/// Python name of a [`Stop`] reason: `stop_reason_` of `GreedyRankRLS` as is.
pub(crate) fn stop_name(s: Stop) -> &'static str {
    match s {
        Stop::MinImprovement => "min_improvement",
        Stop::Uninformative => "uninformative",
        Stop::Budget => "budget",
        Stop::Visited => "visited",
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GreedyOptions>()?;
    m.add_class::<GreedyResult>()?;
    m.add_function(wrap_pyfunction!(greedy_rankrls, m)?)?;
    Ok(())
}
