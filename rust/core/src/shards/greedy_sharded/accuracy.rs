//! The accuracy monitor of the in-memory greedy run ([`crate::selection::greedy_rls`],
//! "Exactness") over query shards. Its inputs are sums and minima of the shards' per-query
//! quantities: `M_ii` is the summed dot `e_i`, `M_ii(0) = ||x_i||^2 / alpha` the summed Gram's
//! diagonal over `alpha`, `||p||^2` the sum of the shards' parts (the dots round), a
//! candidate's `den_i = min_q (1 - c_i s1_qi)` and a step's `den_b` the minima over the
//! shards' queries (the scan and add rounds). A value the monitor doubts is one the in-memory
//! run recomputes by the exact criterion; the shards have no exact recomputation, so the run
//! refuses it with an error naming the step, the unit and a larger `alpha` to try. When the
//! monitor doubts nothing, the run is the shortcut's, bit for bit.

use super::{ShardCalls, Sharded};
use crate::error::{Error, Result};
use crate::selection::greedy_rls::{choose_best, monitor_rho, relative_change, Monitor, RECOMPUTED_RTOL};

/// Relative distance to the best value within which a doubted value could still decide the
/// step (the trusted best value itself carries rounding of about `1e-11` relative).
const DECIDE_SLACK: f64 = 1e-9;
/// The relative error bound up to which a doubted value may be reported (the issue asks the
/// reported values to 1e-8; the in-memory run recomputes from `1e-11`).
const REPORT_TOL: f64 = 1e-9;

/// A scan's values certified: their absolute bounds, and the doubted value that decides the
/// step (`(unit, est)`), if any.
pub(super) type Certified = (Vec<f64>, Option<(usize, f64)>);

/// `1 - cos^2` of the centred columns below which a refusal blames a duplicated column (before
/// the shape).
const DUPLICATE_COS2: f64 = 1e-6;

/// `min_s parts[s]`, entry by entry; every part must have `len` entries.
pub(super) fn min_in_order<'p>(parts: impl IntoIterator<Item = &'p [f64]>, len: usize, what: &str) -> Result<Vec<f64>> {
    let mut out = crate::alloc::try_filled(len, 1.0f64, "the shards' smallest pivots")?;
    for (s, p) in parts.into_iter().enumerate() {
        if p.len() != len {
            return Err(Error::InvalidInput(format!(
                "shard {s} returned {} values for {what}, expected {len}",
                p.len()
            )));
        }
        out.iter_mut().zip(p).for_each(|(o, v)| *o = o.min(*v));
    }
    Ok(out)
}

impl<C: ShardCalls + ?Sized> Sharded<'_, C> {
    /// The current model's `||p||^2` from a dots round (the first one starts the monitor).
    pub(super) fn observe(&mut self, model: f64) {
        let squared = self.criterion.is_squared();
        self.monitor.get_or_insert_with(|| Monitor::starting_at(model, squared));
        self.model = model;
    }

    /// `rho_j` of column `j` (not in the model) with `M_jj = e_j`.
    pub(super) fn rho(&self, j: usize, e_j: f64) -> f64 {
        monitor_rho(self.gram[(j, j)] / self.alpha, e_j, false)
    }

    /// A rank-one step was applied (`rho_b`, the new `||p||^2`, `den_b`).
    pub(super) fn record(&mut self, rho: f64, model: f64, den: f64) {
        let change = relative_change(self.model, model);
        let squared = self.criterion.is_squared();
        self.monitor.get_or_insert_with(|| Monitor::starting_at(self.model, squared)).record_parts(rho, change, den);
        self.model = model;
    }

    /// The absolute rounding bound of each of the scan's `values` ([`GreedyBackend::bounds`],
    /// what the choice's ties are decided by), or an error when a value the monitor doubts
    /// could decide the step (`dens`: per column; `multi`: the units of several live
    /// columns; a unit of several columns uses its members' largest `rho` and smallest `den`).
    /// A doubted value `v` is within `SAFETY est |v|` of its exact value (the monitor's bound)
    /// and, recomputed in memory, would carry [`RECOMPUTED_RTOL`]: it could be the choice when
    /// it is within `reach` (the sum of the two, and [`DECIDE_SLACK`] of the chosen value: the
    /// rounding of the trusted values it is compared with) of the chosen value or better. With
    /// the best-value rule it decides the step when it could be the choice, or when it is the
    /// choice and its bound exceeds [`REPORT_TOL`] or another value is within reach; with the
    /// cost-aware rule every doubted value is refused.
    /// Returns the bounds and the deciding doubted value of the largest estimate, if any
    /// (`(unit, est)`, refused by [`Sharded::refusal`]).
    pub(super) fn certify(
        &self,
        values: &[Option<f64>],
        dens: &[f64],
        multi: &[(usize, Vec<usize>)],
    ) -> Result<Certified> {
        let (Some(monitor), Some((e, _))) = (self.monitor.as_ref(), self.dots.as_ref()) else {
            return Ok((Vec::new(), None));
        };
        let mut doubted: Vec<(usize, f64, f64)> = Vec::new();
        let mut bounds = vec![0.0; values.len()];
        for (u, v) in values.iter().enumerate() {
            let Some(v) = *v else { continue };
            let live = match multi.iter().find(|(m, _)| *m == u) {
                Some((_, cols)) => cols.clone(),
                None => self.live(u),
            };
            let rho = live.iter().map(|&j| self.rho(j, e[j])).fold(0.0, f64::max);
            let den = live.iter().map(|&j| dens[j]).fold(1.0f64, f64::min);
            let est = match live.len() {
                1 => monitor.estimate(self.model, rho, v, den),
                b => monitor.unit_estimate(self.model, rho, b, v, den),
            };
            // `||p|| = 0` (no label varies within a query): every value is exactly 0
            let exact_zero = self.model == 0.0 && v == 0.0;
            if monitor.doubts(est) && !exact_zero {
                doubted.push((u, v, est));
                bounds[u] = if v.is_finite() { RECOMPUTED_RTOL * v.abs() } else { 0.0 };
            } else if v.is_finite() && !exact_zero {
                bounds[u] = monitor.bound(est) * v.abs();
            }
        }
        if doubted.is_empty() {
            return Ok((bounds, None));
        }
        let higher = self.criterion.higher_is_better();
        let best = if self.best_only { choose_best(values, &bounds, higher) } else { None };
        // `v` could be as good as `vb` (both finite) within `reach`
        let near = |v: f64, vb: f64, reach: f64| if higher { v + reach >= vb } else { v - reach <= vb };
        let deciding = doubted.iter().filter(|&&(u, v, est)| {
            let accurate = monitor.bound(est) <= REPORT_TOL;
            match best {
                Some((b, vb)) if vb.is_finite() && v.is_finite() => {
                    let reach = (monitor.bound(est) + RECOMPUTED_RTOL) * v.abs() + bounds[b] + DECIDE_SLACK * vb.abs();
                    if u != b {
                        near(v, vb, reach)
                    } else {
                        !accurate
                            || values
                                .iter()
                                .enumerate()
                                .any(|(x, vx)| x != b && vx.is_some_and(|vx| near(vx, vb, reach + bounds[x])))
                    }
                }
                // the cost-aware rule (values per unit cost) or no finite best: every doubted value
                _ => true,
            }
        });
        let worst =
            deciding.fold(
                None,
                |w: Option<(usize, f64)>, &(u, _, est)| {
                    if w.is_none_or(|(_, we)| est.is_nan() || est > we) {
                        Some((u, est))
                    } else {
                        w
                    }
                },
            );
        Ok((bounds, worst))
    }

    /// The refusal of the value of unit `u` (estimated relative error `est`) at this step:
    /// nearly collinear or duplicated columns when a column of the candidate is nearly
    /// parallel to one of the model ([`DUPLICATE_COS2`]); otherwise the shape when the
    /// candidate's model has more columns than the other queries' centred rows when the
    /// largest query is held out (`m - n_q - (Q - 1)`, from [`ShardCalls::rows`]: wide data is
    /// collinear by shape, whatever its columns); otherwise the columns again.
    pub(super) fn refusal(&mut self, u: usize, est: f64) -> Error {
        let monitor = self.monitor.as_ref().expect("a refusal follows the monitor's doubt");
        let what = if self.units.is_singletons() { "feature" } else { "group" };
        let bound = self.alpha * monitor.excess(est).max(1.0);
        let bound =
            if bound.is_finite() { format!("alpha >= {bound:.1e} (an estimate)") } else { "a larger alpha".into() };
        let head = format!(
            "at alpha={:.1e} the value of {what} {u} at step {} cannot be certified exact on query shards \
             (estimated relative rounding error {est:.1e}",
            self.alpha,
            self.steps + 1,
        );
        let live = self.live(u);
        let cols = self.model_columns.len() + live.len();
        let rows = self.calls.rows().unwrap_or_default();
        let (m, largest) = rows.iter().fold((0, 0), |(m, l), &(r, q)| (m + r, l.max(q)));
        let spanned = m.saturating_sub(largest).saturating_sub(self.n_queries.saturating_sub(1));
        // a column of the candidate nearly parallel to one of the model (the summed Gram matrix)
        let g = &self.gram;
        let duplicate = live.iter().any(|&j| {
            self.model_columns.iter().any(|&i| g[(i, j)] * g[(i, j)] >= (1.0 - DUPLICATE_COS2) * g[(i, i)] * g[(j, j)])
        });
        if !rows.is_empty() && cols > spanned && !duplicate {
            let fewer = match self.steps {
                0 => String::new(),
                k => format!("or select at most {k} {what}s (n_features_to_select), "),
            };
            let wide =
                if self.n > m { format!("; with {} features on {m} rows, wide data", self.n) } else { String::new() };
            return Error::InvalidInput(format!(
                "{head}: its model has {cols} columns, more than the {spanned} centred rows of the other \
                 queries when a query of {largest} documents is held out ({m} rows in {} queries{wide} is \
                 collinear by shape, with or without duplicated columns, and a rank-one update there loses \
                 digits that only an exact refit restores); fit rankselect.GreedyRankRLS in memory, which \
                 recomputes such values exactly (the same problem, no refusal), {fewer}or use {bound}",
                self.n_queries,
            ));
        }
        Error::InvalidInput(format!(
            "{head}: nearly collinear or duplicated columns); fit rankselect.GreedyRankRLS in memory, which \
             recomputes such values exactly, or use {bound}"
        ))
    }
}
