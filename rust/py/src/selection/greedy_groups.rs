//! The groups of the one greedy binding (`greedy_rankrls(..., groups=...)`, issue 33): whole
//! groups by the exact LQO criterion (`rankselect_core::selection::greedy_rls::greedy_rankrls_groups`),
//! or features priced with their groups' shared costs (the cost greedy with each step's
//! marginal costs, `SharedCosts`).

use ndarray::ArrayView2;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rankselect_core::data::groups::QueryOffsets;
use rankselect_core::selection::cost_greedy::greedy_rankrls_per_cost;
use rankselect_core::selection::greedy_rls::{
    check_groups, greedy_rankrls_groups, Choice, Criterion, GreedyOptions as CoreOptions, GreedyPath, GroupCosts,
    SharedCosts,
};

use super::greedy_progress::run_with_progress;
use crate::errors::IntoPyResult;

/// What a run with groups reads from the binding's `GreedyOptions` (given by value, so that
/// this file does not use `greedy_rls`, which uses it).
pub(crate) struct GroupRun<'a> {
    /// The groups' extraction costs, if any.
    pub group_costs: Option<&'a [f64]>,
    /// Whole groups (true) or features priced with their groups' shared costs.
    pub select_groups: bool,
    /// The feature costs of the run (`GreedyOptions::costs`).
    pub feature_costs: Option<Vec<f64>>,
    pub budget: Option<f64>,
    pub floating: bool,
}

/// The groups of `(group_offsets, members)`: every column of `n` in exactly one group.
fn group_lists(go: &[usize], members: &[usize], n: usize) -> PyResult<Vec<Vec<usize>>> {
    if go.len() < 2 || go[0] != 0 || go[go.len() - 1] != members.len() || go.windows(2).any(|w| w[1] < w[0]) {
        return Err(PyValueError::new_err(
            "groups: group_offsets must start at 0, be non-decreasing and end at len(members)",
        ));
    }
    let groups: Vec<Vec<usize>> = go.windows(2).map(|w| members[w[0]..w[1]].to_vec()).collect();
    check_groups(&groups, n).py()?;
    if members.len() != n {
        return Err(PyValueError::new_err(format!(
            "groups cover {} of the {n} columns: every column needs a group",
            members.len()
        )));
    }
    Ok(groups)
}

/// The run with groups `(go, members)`: `Some(path)`, or `None` when the groups only price
/// features and no group costs are given (then the run is the one without groups).
// A binding's dispatch: one argument per input of the run.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    py: Python<'_>,
    xv: ArrayView2<'_, f64>,
    yv: &[f64],
    off: &QueryOffsets,
    options: GroupRun<'_>,
    opts: &CoreOptions,
    crit: &(dyn Criterion + Send + Sync),
    progress: Option<&Py<PyAny>>,
    go: &[usize],
    members: &[usize],
) -> PyResult<Option<GreedyPath>> {
    let n = xv.ncols();
    let groups = group_lists(go, members, n)?;
    let ng = groups.len();
    let GroupRun { group_costs, select_groups, feature_costs: fc, budget, floating } = options;
    if let Some(gc) = group_costs {
        if gc.len() != ng {
            return Err(PyValueError::new_err(format!(
                "group_costs has {} entries but there are {ng} groups",
                gc.len()
            )));
        }
    }
    let progress = progress.map(|p| p.clone_ref(py));
    if select_groups {
        if floating {
            return Err(PyValueError::new_err(
                "floating=True is not available when selecting whole groups (select_groups=True)",
            ));
        }
        // a group costs its members' costs plus its extraction cost
        let totals: Option<Vec<f64>> = (fc.is_some() || group_costs.is_some()).then(|| {
            (0..ng)
                .map(|g| {
                    let own: f64 = fc.as_ref().map_or(0.0, |c| groups[g].iter().map(|&j| c[j]).sum());
                    own + group_costs.map_or(0.0, |c| c[g])
                })
                .collect()
        });
        let path = run_with_progress(py, progress, |interrupt, report| {
            let costs = totals.as_ref().map(|costs| GroupCosts { costs, budget });
            greedy_rankrls_groups(xv, yv, off, &groups, opts, costs, crit, interrupt, report)
        })?;
        return Ok(Some(path));
    }
    let Some(gc) = group_costs else {
        return Ok(None);
    };
    let mut feature_group = vec![0usize; n];
    for (g, ms) in groups.iter().enumerate() {
        for &j in ms {
            feature_group[j] = g;
        }
    }
    let fc = fc.unwrap_or_else(|| vec![0.0; n]);
    let choice = Choice::PerCost {
        feature_costs: &fc,
        budget,
        shared: Some(SharedCosts { feature_group: &feature_group, group_costs: gc }),
    };
    let path = run_with_progress(py, progress, |interrupt, report| {
        greedy_rankrls_per_cost(xv, yv, off, opts, &choice, crit, interrupt, report)
    })?;
    Ok(Some(path))
}
