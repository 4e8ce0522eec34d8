//! The units a greedy run selects: a unit is a set of columns added or removed together (a
//! feature family, a group), and a feature is a unit of one. Plain greedy RankRLS is the run
//! over the `n` singletons ([`Units::singletons`]).

use crate::alloc;
use crate::error::Result;
use crate::invalid;

/// The units of a run and the costs its choice rule compares ([`Units::with_costs`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PricedUnits {
    pub units: Units,
    /// The cost of each unit (a group's: its members' feature costs, in column order, plus its
    /// group cost); `None`: no cost given, the best criterion decides.
    pub costs: Option<Vec<f64>>,
    /// Features priced with their groups' shared costs: the group of every feature and each
    /// group's cost (paid once, by the first selected member).
    pub shared: Option<(Vec<usize>, Vec<f64>)>,
}

/// Units as compressed lists: unit `u` holds `columns[offsets[u]..offsets[u + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Units {
    offsets: Vec<usize>,
    columns: Vec<usize>,
    n: usize,
    singletons: bool,
}

impl Units {
    /// The `n` features, each a unit of its own (plain greedy RankRLS).
    pub fn singletons(n: usize) -> Self {
        Units { offsets: (0..=n).collect(), columns: (0..n).collect(), n, singletons: true }
    }

    /// Units over `n` columns from `(offsets, columns)`: every unit non-empty, its columns
    /// `< n` and distinct, no column in two units (a column in none is never selected).
    pub fn new(offsets: Vec<usize>, columns: Vec<usize>, n: usize) -> Result<Self> {
        if offsets.first() != Some(&0)
            || offsets.last() != Some(&columns.len())
            || offsets.windows(2).any(|w| w[1] < w[0])
        {
            return invalid!("groups: the unit offsets must start at 0, be non-decreasing and end at len(columns)");
        }
        if offsets.len() < 2 {
            return invalid!("groups is empty: at least one group of columns is needed");
        }
        let mut seen = crate::alloc::try_filled(n, usize::MAX, "the unit of every column")?;
        for (u, w) in offsets.windows(2).enumerate() {
            if w[0] == w[1] {
                return invalid!("group {u} is empty: a group needs at least one column");
            }
            for &j in &columns[w[0]..w[1]] {
                if j >= n {
                    return invalid!("group {u} holds column {j}, but X has {n} features");
                }
                if seen[j] != usize::MAX {
                    return invalid!("column {j} is in two groups ({} and {u})", seen[j]);
                }
                seen[j] = u;
            }
        }
        let singletons =
            columns.len() == n && offsets.len() == n + 1 && columns.iter().enumerate().all(|(i, &j)| i == j);
        Ok(Units { offsets, columns, n, singletons })
    }

    /// The units and costs of a run on `n` columns (the one place a group's total is formed).
    /// `groups = (offsets, columns)` as [`Units::new`], every column in one group;
    /// `feature_costs` (`n` entries) and `group_costs` (one per group) as given, `None` when
    /// not. Without groups: the features at `feature_costs`. With groups and `select_groups`:
    /// the groups, each costing its members' feature costs plus its group cost (costs only
    /// when either is given). With groups and not `select_groups`: the features, priced with
    /// their groups' shared costs when `group_costs` are given (feature costs 0 when not).
    pub fn with_costs(
        groups: Option<(Vec<usize>, Vec<usize>)>,
        n: usize,
        feature_costs: Option<Vec<f64>>,
        group_costs: Option<Vec<f64>>,
        select_groups: bool,
    ) -> Result<PricedUnits> {
        if let Some(fc) = &feature_costs {
            if fc.len() != n {
                return invalid!("feature_costs has {} entries but X has {n} features", fc.len());
            }
            if let Some(j) = fc.iter().position(|c| !(c.is_finite() && *c >= 0.0)) {
                return invalid!("feature_costs must be finite and >= 0; feature {j} has {}", fc[j]);
            }
        }
        if let Some(gc) = &group_costs {
            if let Some(g) = gc.iter().position(|c| !(c.is_finite() && *c >= 0.0)) {
                return invalid!("group_costs must be finite and >= 0; group {g} has {}", gc[g]);
            }
        }
        let Some((offsets, columns)) = groups else {
            if group_costs.is_some() {
                return invalid!("group_costs needs groups (which columns each group's cost covers)");
            }
            return Ok(PricedUnits { units: Units::singletons(n), costs: feature_costs, shared: None });
        };
        let units = Units::new(offsets, columns, n)?;
        if units.columns.len() != n {
            return invalid!("groups cover {} of the {n} columns: every column needs a group", units.columns.len());
        }
        let ng = units.len();
        if let Some(gc) = &group_costs {
            if gc.len() != ng {
                return invalid!("group_costs has {} entries but there are {ng} groups", gc.len());
            }
        }
        if select_groups {
            // a group costs its members' costs plus its extraction cost
            let costs = (feature_costs.is_some() || group_costs.is_some()).then(|| {
                (0..ng)
                    .map(|g| {
                        let own: f64 =
                            feature_costs.as_ref().map_or(0.0, |c| units.members(g).iter().map(|&j| c[j]).sum());
                        own + group_costs.as_ref().map_or(0.0, |c| c[g])
                    })
                    .collect()
            });
            return Ok(PricedUnits { units, costs, shared: None });
        }
        let Some(gc) = group_costs else {
            return Ok(PricedUnits { units: Units::singletons(n), costs: feature_costs, shared: None });
        };
        let mut feature_group = alloc::try_zeroed_vec::<usize>(n, "the group of every feature")?;
        for g in 0..ng {
            units.members(g).iter().for_each(|&j| feature_group[j] = g);
        }
        let costs = match feature_costs {
            Some(fc) => fc,
            None => alloc::try_zeroed_vec::<f64>(n, "the feature costs")?,
        };
        Ok(PricedUnits { units: Units::singletons(n), costs: Some(costs), shared: Some((feature_group, gc)) })
    }

    /// Units from lists of columns ([`Units::new`]'s checks).
    pub fn from_lists(lists: &[Vec<usize>], n: usize) -> Result<Self> {
        let mut offsets = vec![0];
        let mut columns = Vec::new();
        for l in lists {
            columns.extend_from_slice(l);
            offsets.push(columns.len());
        }
        Units::new(offsets, columns, n)
    }

    /// Number of units.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// `true` when there is no unit (never, once checked).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of columns of the data `n`.
    pub fn n_columns(&self) -> usize {
        self.n
    }

    /// The columns of unit `u`.
    pub fn members(&self, u: usize) -> &[usize] {
        &self.columns[self.offsets[u]..self.offsets[u + 1]]
    }

    /// `true` when every unit is the feature of its index (unit `j` = column `j`).
    pub fn is_singletons(&self) -> bool {
        self.singletons
    }

    /// The largest unit's size.
    pub fn max_size(&self) -> usize {
        self.offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)
    }

    /// The most columns `k` units hold together (the sum of the `k` largest sizes).
    pub fn largest_total(&self, k: usize) -> usize {
        if self.singletons {
            return k.min(self.n);
        }
        let mut sizes: Vec<usize> = self.offsets.windows(2).map(|w| w[1] - w[0]).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes.iter().take(k).sum()
    }

    /// The units with a column that is informative (`col_informative`, per column).
    pub fn informative(&self, col_informative: &[bool]) -> Vec<bool> {
        (0..self.len()).map(|u| self.members(u).iter().any(|&j| col_informative[j])).collect()
    }

    /// The columns of the units in `order`, in that order (the model's columns).
    pub fn columns_of(&self, order: &[usize]) -> Vec<usize> {
        order.iter().flat_map(|&u| self.members(u).iter().copied()).collect()
    }
}
