//! Where a greedy run gets its candidates' criterion values from: the in-memory caches
//! ([`InMemory`], on [`GreedyState`]) or the caches of query shards answered by a callback
//! ([`crate::shards::greedy_sharded`]). The selection loops ([`super::select`],
//! [`super::select_floating`]) are written once over [`GreedyBackend`]; the candidates are
//! units ([`Units`]: a feature is a unit of one).

mod values;

use ndarray::ArrayView2;

use super::criterion::{Criterion, CriterionScratch};
use super::exact::ExactLqo;
use super::monitor::Monitor;
use super::path::Gram;
use super::state::GreedyState;
use super::step::Step;
use super::units::Units;
use crate::data::groups::{center_vec, QueryOffsets};
use crate::error::Result;
use crate::invalid;

/// The data side of a greedy run (Algorithm 1) over units.
pub trait GreedyBackend {
    /// The units the run selects.
    fn units(&self) -> &Units;
    /// `true` when larger criterion values are better.
    fn higher_is_better(&self) -> bool;
    /// `false` for the units whose columns are all constant within every query (never
    /// candidates).
    fn informative(&mut self) -> Result<Vec<bool>>;
    /// `Xc^T Xc` (n x n, symmetric) and `Xc^T yc`: the primal weights of every prefix (eq. 5).
    fn gram(&self) -> (&dyn Gram, &[f64]);
    /// The criterion of the empty model (its query-centred LQO residuals are the centred
    /// labels), for the cost-aware rule.
    fn baseline(&mut self) -> Result<f64>;
    /// The criterion after adding each candidate unit, or after removing it for a unit in
    /// the model (`None` for the units in `skip`).
    fn scan(&mut self, skip: &[bool]) -> Result<Vec<Option<f64>>>;
    /// The absolute rounding bound of each value of the last [`scan`](GreedyBackend::scan)
    /// (from the accuracy monitor, [`super::monitor`]): values within their joint bound tie,
    /// and the lowest index takes the step ([`super::choose_best`]). Empty: exact values.
    fn bounds(&self) -> &[f64] {
        &[]
    }
    /// Adds unit `u` to the model (`skip` holds it and every other non-candidate). The update
    /// may be deferred to the next [`scan`](GreedyBackend::scan).
    fn add(&mut self, u: usize, skip: &[bool]) -> Result<()>;
    /// Removes unit `u` from the model (floating search, [`super::select_floating`]). A
    /// backend without it refuses floating search.
    fn remove(&mut self, _u: usize, _skip: &[bool]) -> Result<()> {
        invalid!("floating search (floating=True) is not available on this backend")
    }
}

/// Smallest removal pivot (`1 - M_bb` for a column; the smallest relative Cholesky pivot
/// of `I - M_gg` for a unit) that floating search downdates in O(m n); below it, the caches
/// of the smaller subset are rebuilt from `S = {}` instead. A downdate multiplies the caches'
/// rounding by about the inverse pivot, so `1e-3` keeps it near `1e3 eps` times the
/// conditioning of the subset; where every pivot is above it, a removal is one downdate.
pub const MIN_REMOVAL_PIVOT: f64 = 1e-3;

/// The in-memory backend: the caches of [`GreedyState`]; adding a unit is deferred to the
/// next pass, which applies its (last) rank-one step and scans the candidates in one sweep.
pub struct InMemory<'a> {
    pub(super) state: GreedyState,
    x: ArrayView2<'a, f64>,
    y: &'a [f64],
    offsets: &'a QueryOffsets,
    criterion: &'a dyn Criterion,
    units: &'a Units,
    /// The unit of every column (`usize::MAX`: in none).
    unit_of: Vec<usize>,
    /// The units in the model, in order of entry (the refactorisation's replay order).
    pub(super) order: Vec<usize>,
    pending: Option<Step>,
    /// A unit's sweep deferred by [`GreedyBackend::add`] to the next scan, which runs it with
    /// the block scan in one pass ([`InMemory::swept_values`]).
    pending_sweep: Option<PendingSweep>,
    pub(super) exact: ExactLqo<'a>,
    pub(super) monitor: Monitor,
    /// The absolute rounding bound of each value of the last pass ([`GreedyBackend::bounds`]).
    bounds: Vec<f64>,
}

/// A unit's sweep left to the next scan: its live columns, the direction and each step's
/// column flags ([`GreedyState::sweep`]).
struct PendingSweep {
    cols: Vec<usize>,
    remove: bool,
    update: Vec<Vec<bool>>,
}

impl<'a> InMemory<'a> {
    /// Caches for `S = {}` of grouped, validated `x` (m x n) and `y`, over `units`.
    pub fn new(
        x: ArrayView2<'a, f64>,
        y: &'a [f64],
        offsets: &'a QueryOffsets,
        alpha: f64,
        units: &'a Units,
        criterion: &'a dyn Criterion,
    ) -> Result<Self> {
        let state = GreedyState::with_units(x, y, offsets, alpha, units)?;
        let mut unit_of = crate::alloc::try_filled(x.ncols(), usize::MAX, "the unit of every column")?;
        for u in 0..units.len() {
            units.members(u).iter().for_each(|&j| unit_of[j] = u);
        }
        let exact = ExactLqo::new(x, y, offsets, alpha, criterion)?;
        let monitor = Monitor::new(&state, criterion.is_squared());
        Ok(InMemory {
            state,
            x,
            y,
            offsets,
            criterion,
            units,
            unit_of,
            order: Vec::new(),
            pending: None,
            pending_sweep: None,
            exact,
            monitor,
            bounds: Vec::new(),
        })
    }

    /// The informative columns of unit `u` (the others cannot change the model).
    pub(super) fn live_members(&self, u: usize) -> Vec<usize> {
        self.units.members(u).iter().copied().filter(|&j| self.state.informative()[j]).collect()
    }

    /// Column flags of the pass from unit flags: a column is skipped when its unit is, when it
    /// is in no unit, or when it is constant within every query.
    pub(super) fn column_skip(&self, skip: &[bool]) -> Vec<bool> {
        self.unit_of.iter().zip(self.state.informative()).map(|(&u, &inf)| u == usize::MAX || !inf || skip[u]).collect()
    }

    /// The rank-one steps of adding (or removing) the live columns of unit `u`: with `M` in
    /// full, all in one sweep ([`GreedyState::sweep`]: the caches of the passes below, bit for
    /// bit); otherwise each but the last applied by a pass over the other columns, the last
    /// left pending for the next scan.
    /// With `defer`, a sweep is left to the next scan ([`InMemory::swept_values`]).
    fn steps(&mut self, u: usize, skip: &[bool], remove: bool, defer: bool) {
        let live = self.live_members(u);
        if live.len() > 1 && self.state.can_sweep() {
            // one sweep ([`GreedyState::sweep`]), each step updating the columns its pass would
            let base = self.column_skip(skip);
            let update: Vec<Vec<bool>> = (0..live.len())
                .map(|j| {
                    let mut f: Vec<bool> = base.iter().map(|s| !s).collect();
                    live[j + 1..].iter().for_each(|&l| f[l] = true);
                    f
                })
                .collect();
            if defer {
                self.pending_sweep = Some(PendingSweep { cols: live, remove, update });
            } else {
                self.state.sweep(&live, remove, &update).iter().for_each(|step| self.monitor.record(step));
            }
            return;
        }
        let Some((&last, head)) = live.split_last() else { return };
        for (i, &j) in head.iter().enumerate() {
            let step = if remove { self.state.deselect(j) } else { self.state.select(j) };
            self.monitor.record(&step);
            // the unit's columns not stepped yet stay current, whatever `skip` says
            let mut col_skip = self.column_skip(skip);
            live[i + 1..].iter().for_each(|&l| col_skip[l] = false);
            let _ = self.state.pass(Some(&step), self.y, self.criterion, &col_skip);
        }
        let step = if remove { self.state.deselect(last) } else { self.state.select(last) };
        self.monitor.record(&step);
        self.pending = Some(step);
    }

    /// Refactorisation: the caches of `S = {}` ([`GreedyState::reset`]), then the units of
    /// `order` added in order, each applied by full passes (the caches a fresh run would have).
    fn replay(&mut self, order: &[usize], skip: &[bool]) {
        self.state.reset(self.x);
        self.monitor.reset(&self.state);
        self.order.clear();
        for &u in order {
            self.steps(u, skip, false, false);
            if let Some(step) = self.pending.take() {
                let _ = self.state.pass(Some(&step), self.y, self.criterion, &self.column_skip(skip));
            }
            self.order.push(u);
        }
    }
}

impl GreedyBackend for InMemory<'_> {
    fn units(&self) -> &Units {
        self.units
    }

    fn higher_is_better(&self) -> bool {
        self.criterion.higher_is_better()
    }

    fn informative(&mut self) -> Result<Vec<bool>> {
        Ok(self.units.informative(self.state.informative()))
    }

    fn gram(&self) -> (&dyn Gram, &[f64]) {
        (&self.state.store, &self.state.xty)
    }

    fn baseline(&mut self) -> Result<f64> {
        let (y, offsets) = (self.y, self.offsets);
        let mut yc = y.to_vec();
        center_vec(&mut yc, offsets);
        let mut scratch = CriterionScratch::default();
        let total: f64 = offsets
            .windows(2)
            .map(|w| {
                let q = &yc[w[0]..w[1]];
                self.criterion.query_term(q, 0.0, q, q, &y[w[0]..w[1]], &mut scratch)
            })
            .fold(0.0, |a, b| a + b);
        Ok(self.criterion.finish(total, offsets.n_queries()))
    }

    fn scan(&mut self, skip: &[bool]) -> Result<Vec<Option<f64>>> {
        if let Some(sw) = self.pending_sweep.take() {
            let (values, est) = self.swept_values(sw, skip)?;
            return self.refine(values, est, skip);
        }
        let step = self.pending.take();
        self.pass_units(step.as_ref(), skip)
    }

    fn bounds(&self) -> &[f64] {
        &self.bounds
    }

    fn add(&mut self, u: usize, skip: &[bool]) -> Result<()> {
        debug_assert!(
            self.pending.is_none() && self.pending_sweep.is_none(),
            "a scan applies every step before the next"
        );
        self.steps(u, skip, false, true);
        self.order.push(u);
        Ok(())
    }

    /// Downdates (`c = -1/(1 - M_bb)` per column, O(m n) each) when the unit's pivot is at
    /// least [`MIN_REMOVAL_PIVOT`]; otherwise the refactorisation [`InMemory::replay`] of the
    /// subset without `u` (O(|S| m n)), whose caches are those of a fresh run.
    fn remove(&mut self, u: usize, skip: &[bool]) -> Result<()> {
        debug_assert!(
            self.pending.is_none() && self.pending_sweep.is_none(),
            "a scan applies every step before the next"
        );
        let order: Vec<usize> = self.order.iter().copied().filter(|&v| v != u).collect();
        if self.removal_pivot(u) >= MIN_REMOVAL_PIVOT {
            self.steps(u, skip, true, true);
            self.order = order;
            return Ok(());
        }
        match order.split_last() {
            Some((&last, head)) => {
                self.replay(head, skip);
                self.steps(last, skip, false, true);
                self.order.push(last);
            }
            None => {
                self.state.reset(self.x);
                self.monitor.reset(&self.state);
                self.order.clear();
            }
        }
        Ok(())
    }
}

impl InMemory<'_> {
    /// The step a scan would apply, a deferred sweep applied first (tests: the monitor against
    /// the exact values).
    #[cfg(test)]
    pub(super) fn take_pending(&mut self) -> Option<Step> {
        if let Some(sw) = self.pending_sweep.take() {
            // a deferred sweep applied alone (the caches the scan would score)
            self.state.sweep(&sw.cols, sw.remove, &sw.update).iter().for_each(|step| self.monitor.record(step));
        }
        self.pending.take()
    }

    /// The removal pivot of unit `u` in the model: `1 - M_bb` for one column, the smallest
    /// relative Cholesky pivot of `I - M_gg` for more.
    pub(super) fn removal_pivot(&self, u: usize) -> f64 {
        let live = self.live_members(u);
        match live.len() {
            0 => 1.0,
            1 => self.state.removal_pivot(live[0]),
            b => {
                let a: Vec<f64> = (0..b * b)
                    .map(|t| (if t / b == t % b { 1.0 } else { 0.0 }) - self.state.store.m(live[t / b], live[t % b]))
                    .collect();
                let mut rhs = vec![0.0; b];
                super::block::solve_sym(&a, b, &mut rhs, 1, &mut Vec::new(), 1.0)
            }
        }
    }

    /// Floating search's refinement of the removal values (see [`super::floating`]): each
    /// unit in the model whose pivot is below [`MIN_REMOVAL_PIVOT`] is scored by the value of
    /// `S \ {u}` from a refactorisation; then `S` itself is refactored and every other value
    /// comes from its fresh caches. Nothing changes when every pivot is above the threshold.
    pub(super) fn refine_removals(&mut self, values: &mut Vec<Option<f64>>, skip: &[bool]) -> Result<()> {
        let ill: Vec<usize> =
            self.order.iter().copied().filter(|&u| self.removal_pivot(u) < MIN_REMOVAL_PIVOT).collect();
        if ill.is_empty() || self.order.len() < 2 {
            return Ok(());
        }
        let order = self.order.clone();
        let mut exact = Vec::with_capacity(ill.len());
        for &j in &ill {
            let rest: Vec<usize> = order.iter().copied().filter(|&f| f != j).collect();
            let (&last, head) = rest.split_last().expect("|S| >= 2");
            // the value of adding `last` to the rest: that of `S \ {j}`
            self.replay(head, skip);
            exact.push(self.pass_units(None, skip)?[last]);
        }
        self.replay(&order, skip);
        *values = self.pass_units(None, skip)?;
        ill.iter().zip(exact).for_each(|(&j, v)| values[j] = v);
        Ok(())
    }
}
