//! What a greedy RankRLS run selects and how it chooses, from `GreedyOptions` and the optional
//! groups: the units (`rankselect_core::selection::greedy_rls::Units`: whole groups, or every
//! feature a unit of one) and the choice rule's costs per unit. The one reading of the options
//! for the in-memory binding and over query shards.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankselect_core::selection::greedy_rls::{Choice, SharedCosts, Units};

use crate::errors::IntoPyResult;

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
    pub(crate) fn new(options: PlanOptions<'_>, n: usize, groups: Option<(&[usize], &[usize])>) -> PyResult<Self> {
        let PlanOptions { group_costs, select_groups, feature_costs: fc, budget } = options;
        let Some((go, members)) = groups else {
            if group_costs.is_some() {
                return Err(PyValueError::new_err("group_costs needs groups (which columns each group's cost covers)"));
            }
            return Ok(RunPlan { units: Units::singletons(n), costs: fc, shared: None, budget });
        };
        let units = Units::new(go.to_vec(), members.to_vec(), n).py()?;
        if members.len() != n {
            return Err(PyValueError::new_err(format!(
                "groups cover {} of the {n} columns: every column needs a group",
                members.len()
            )));
        }
        let ng = units.len();
        if let Some(gc) = group_costs {
            if gc.len() != ng {
                return Err(PyValueError::new_err(format!(
                    "group_costs has {} entries but there are {ng} groups",
                    gc.len()
                )));
            }
        }
        if select_groups {
            // a group costs its members' costs plus its extraction cost
            let costs = (fc.is_some() || group_costs.is_some()).then(|| {
                (0..ng)
                    .map(|g| {
                        let own: f64 = fc.as_ref().map_or(0.0, |c| units.members(g).iter().map(|&j| c[j]).sum());
                        own + group_costs.map_or(0.0, |c| c[g])
                    })
                    .collect()
            });
            return Ok(RunPlan { units, costs, shared: None, budget });
        }
        let Some(gc) = group_costs else {
            return Ok(RunPlan { units: Units::singletons(n), costs: fc, shared: None, budget });
        };
        let mut feature_group = vec![0usize; n];
        for g in 0..ng {
            units.members(g).iter().for_each(|&j| feature_group[j] = g);
        }
        let costs = Some(fc.unwrap_or_else(|| vec![0.0; n]));
        Ok(RunPlan { units: Units::singletons(n), costs, shared: Some((feature_group, gc.to_vec())), budget })
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
