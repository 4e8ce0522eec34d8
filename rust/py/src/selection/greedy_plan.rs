//! What a greedy RankRLS run selects and how it chooses, from `GreedyOptions` and the optional
//! groups: the units (`rankselect_core::selection::greedy_rls::Units`: whole groups, or every
//! feature a unit of one) and the choice rule's costs per unit. The one reading of the options
//! for the in-memory binding and over query shards.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use rankselect_core::selection::greedy_rls::{Choice, PricedUnits, SharedCosts, Units};

use crate::errors::{count_arg, IntoPyResult};

/// What a plan reads from the binding's `GreedyOptions` (given by value, so that this file
/// does not use `greedy_rls`, which uses it): `GreedyOptions::plan_options`.
pub(crate) struct PlanOptions<'a> {
    /// The groups' extraction costs, if any.
    pub group_costs: Option<&'a [f64]>,
    /// Whole groups (true) or features priced with their groups' shared costs.
    pub select_groups: bool,
    /// The feature costs of the run (`GreedyOptions::costs`).
    pub feature_costs: Option<Vec<f64>>,
    pub budget: Option<f64>,
}

/// The units and costs of one run.
pub(crate) struct RunPlan {
    pub(crate) units: Units,
    /// The cost of each unit, for the per-cost rule (None: the best criterion).
    costs: Option<Vec<f64>>,
    /// Features priced with their groups' shared costs: the group of every feature and
    /// each group's cost (paid once, by the first selected member).
    shared: Option<(Vec<usize>, Vec<f64>)>,
    budget: Option<f64>,
}

impl RunPlan {
    /// The plan of `options` on `n` columns with `groups = (group_offsets, columns)`: group
    /// `g` is `columns[group_offsets[g]:group_offsets[g + 1]]`, every column in one group.
    /// The units and their costs are the core's ([`Units::with_costs`]); this only converts.
    pub(crate) fn new(options: PlanOptions<'_>, n: usize, groups: Option<(&[usize], &[usize])>) -> PyResult<Self> {
        let PlanOptions { group_costs, select_groups, feature_costs, budget } = options;
        let groups = groups.map(|(go, members)| (go.to_vec(), members.to_vec()));
        let PricedUnits { units, costs, shared } =
            Units::with_costs(groups, n, feature_costs, group_costs.map(<[f64]>::to_vec), select_groups).py()?;
        Ok(RunPlan { units, costs, shared, budget })
    }

    /// The choice rule: the best criterion, or the largest improvement per unit cost.
    pub(crate) fn choice(&self) -> Choice<'_> {
        match &self.costs {
            None => Choice::Best,
            Some(feature_costs) => Choice::PerCost {
                feature_costs,
                budget: self.budget,
                shared: self
                    .shared
                    .as_ref()
                    .map(|(feature_group, group_costs)| SharedCosts { feature_group, group_costs }),
            },
        }
    }
}

/// unit_costs(n_features, groups, feature_costs=None, group_costs=None, select_groups=True):
/// the cost of each unit of a selection on `n_features` columns, as the greedy run compares
/// them (`Units::with_costs`): with `groups = (offsets, columns)` and `select_groups` each
/// group's members' costs plus its group cost; else each feature's own cost. None when no
/// cost is given.
#[pyfunction]
#[pyo3(signature = (n_features, groups, feature_costs=None, group_costs=None, select_groups=true))]
fn unit_costs<'py>(
    py: Python<'py>,
    n_features: &Bound<'py, PyAny>,
    groups: Option<(PyReadonlyArray1<'py, usize>, PyReadonlyArray1<'py, usize>)>,
    feature_costs: Option<PyReadonlyArray1<'py, f64>>,
    group_costs: Option<PyReadonlyArray1<'py, f64>>,
    select_groups: bool,
) -> PyResult<Option<Bound<'py, PyArray1<f64>>>> {
    let n = count_arg(n_features, "n_features")?;
    let groups = match &groups {
        Some((go, members)) => Some((go.as_slice()?.to_vec(), members.as_slice()?.to_vec())),
        None => None,
    };
    let fc = feature_costs.map(|c| c.as_slice().map(<[f64]>::to_vec)).transpose()?;
    let gc = group_costs.map(|c| c.as_slice().map(<[f64]>::to_vec)).transpose()?;
    let priced = Units::with_costs(groups, n, fc, gc, select_groups).py()?;
    Ok(priced.costs.map(|c| c.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(unit_costs, m)?)
}
