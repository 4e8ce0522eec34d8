//! The values of a scan on the in-memory caches ([`InMemory`]): the pass over the columns,
//! the block scan of the units of several columns, a deferred sweep run with that scan, and
//! the exact recomputation of the values the accuracy monitor doubts.

use super::{InMemory, PendingSweep};
use crate::error::Result;
use crate::selection::greedy_rls::block::BlockCandidate;
use crate::selection::greedy_rls::monitor::RECOMPUTED_RTOL;
use crate::selection::greedy_rls::step::Step;
use crate::selection::greedy_rls::sweep::SweepScan;

impl InMemory<'_> {
    /// One pass that applies `step` (if any) to the columns not in `col_skip`, and the
    /// values of the units not in `skip`: a unit of one live column reads its column's value,
    /// a larger one the block scan ([`GreedyState::scan_blocks`]); with the accuracy monitor's
    /// estimates (the values it doubts are then recomputed exactly, [`super::monitor`]) and
    /// each value's rounding bound kept for the choice ([`GreedyBackend::bounds`]).
    pub(in crate::selection::greedy_rls) fn pass_units(
        &mut self,
        step: Option<&Step>,
        skip: &[bool],
    ) -> Result<Vec<Option<f64>>> {
        let (values, est) = self.fast_values(step, skip)?;
        self.refine(values, est, skip)
    }

    /// [`InMemory::pass_units`] before the exact recomputation: the shortcut's values and the
    /// monitor's estimate of each one's relative error.
    pub(in crate::selection::greedy_rls) fn fast_values(
        &mut self,
        step: Option<&Step>,
        skip: &[bool],
    ) -> Result<(Vec<Option<f64>>, Vec<f64>)> {
        let mut col_skip = self.column_skip(skip);
        if step.is_none() && !self.units.is_singletons() {
            // nothing to apply: the pass only scores the units of one live column
            for u in (0..self.units.len()).filter(|&u| !skip[u]) {
                let live = self.live_members(u);
                if live.len() > 1 {
                    live.iter().for_each(|&j| col_skip[j] = true);
                }
            }
        }
        let (cols, dens) = if step.is_none() && col_skip.iter().all(|&s| s) {
            // nothing to apply and no column to score (every candidate a unit of several
            // columns): what the pass would return, without a pass over the caches
            let n = col_skip.len();
            (
                crate::alloc::try_filled(n, None, "the columns' values")?,
                crate::alloc::try_filled(n, 1.0, "the columns' pivots")?,
            )
        } else {
            self.state.pass(step, self.y, self.criterion, &col_skip)
        };
        let col_est = self.monitor.singleton_estimates(&self.state, &cols, &dens);
        if self.units.is_singletons() {
            return Ok((cols, col_est));
        }
        let (mut values, mut est) = self.unit_values(skip)?;
        let (blocks, block_units) = self.block_candidates(skip, |u, j| {
            values[u] = cols[j];
            est[u] = col_est[j];
        });
        let scanned = self.state.scan_blocks(&blocks, self.y, self.criterion);
        self.fill_blocks(&mut values, &mut est, &blocks, block_units, scanned);
        Ok((values, est))
    }

    /// Empty values and estimates, one per unit.
    fn unit_values(&self, skip: &[bool]) -> Result<(Vec<Option<f64>>, Vec<f64>)> {
        let nu = skip.len();
        let values = crate::alloc::try_filled(nu, None, "the units' criterion values")?;
        Ok((values, crate::alloc::try_filled(nu, 0.0, "the units' error estimates")?))
    }

    /// The candidates of a scan (the units not in `skip`) of several live columns, as blocks
    /// (with their units); `single(u, j)` for each unit of one live column `j`.
    fn block_candidates(
        &self,
        skip: &[bool],
        mut single: impl FnMut(usize, usize),
    ) -> (Vec<BlockCandidate>, Vec<usize>) {
        let (mut blocks, mut block_units) = (Vec::new(), Vec::new());
        for u in (0..self.units.len()).filter(|&u| !skip[u]) {
            let live = self.live_members(u);
            match live.len() {
                0 => {}
                1 => single(u, live[0]),
                _ => {
                    blocks.push(BlockCandidate { remove: self.state.in_model[live[0]], cols: live });
                    block_units.push(u);
                }
            }
        }
        (blocks, block_units)
    }

    /// The block scan's values and the monitor's estimates into the units' `values` and `est`.
    fn fill_blocks(
        &self,
        values: &mut [Option<f64>],
        est: &mut [f64],
        blocks: &[BlockCandidate],
        block_units: Vec<usize>,
        scanned: Vec<(f64, f64)>,
    ) {
        for ((u, blk), (v, piv)) in block_units.into_iter().zip(blocks).zip(scanned) {
            values[u] = Some(v);
            est[u] = self.monitor.block_estimate(&self.state, &blk.cols, blk.remove, v, piv);
        }
    }

    /// The values of a scan after a deferred sweep ([`InMemory::fast_values`]'s, bit for bit):
    /// the sweep's global part, then, when every candidate is a block, its per-query part and
    /// the block scan in one pass ([`GreedyState::sweep_queries`]); otherwise the sweep, then
    /// the scan.
    pub(super) fn swept_values(&mut self, sw: PendingSweep, skip: &[bool]) -> Result<(Vec<Option<f64>>, Vec<f64>)> {
        let plan = self.state.sweep_globals(&sw.cols, sw.remove);
        let mut singles = false;
        let (blocks, block_units) = self.block_candidates(skip, |_, _| singles = true);
        if singles {
            let (steps, _) = self.state.sweep_queries(plan, &sw.update, None);
            steps.iter().for_each(|step| self.monitor.record(step));
            return self.fast_values(None, skip);
        }
        let prep = self.state.prepare_blocks(&blocks);
        let scan = (!blocks.is_empty()).then_some(SweepScan {
            units: &blocks,
            prep: &prep,
            y: self.y,
            criterion: self.criterion,
        });
        let (steps, scanned) = self.state.sweep_queries(plan, &sw.update, scan);
        steps.iter().for_each(|step| self.monitor.record(step));
        let (mut values, mut est) = self.unit_values(skip)?;
        self.fill_blocks(&mut values, &mut est, &blocks, block_units, scanned);
        Ok((values, est))
    }

    /// The values whose estimated relative error exceeds the monitor's tolerance,
    /// recomputed by the exact criterion ([`ExactLqo`]) of the unit's model; the bounds of
    /// the values (the monitor's for the others, [`RECOMPUTED_RTOL`] for the recomputed ones).
    pub(super) fn refine(
        &mut self,
        mut values: Vec<Option<f64>>,
        est: Vec<f64>,
        skip: &[bool],
    ) -> Result<Vec<Option<f64>>> {
        let doubtful: Vec<usize> =
            (0..values.len()).filter(|&u| !skip[u] && values[u].is_some() && self.monitor.doubts(est[u])).collect();
        self.bounds.clear();
        self.bounds.extend(
            values
                .iter()
                .zip(&est)
                .map(|(v, &e)| v.filter(|v| v.is_finite()).map_or(0.0, |v| self.monitor.bound(e) * v.abs())),
        );
        if doubtful.is_empty() {
            return Ok(values);
        }
        let sets: Vec<Vec<usize>> = doubtful
            .iter()
            .map(|&u| {
                let mut order: Vec<usize> = self.order.iter().copied().filter(|&v| v != u).collect();
                if !self.order.contains(&u) {
                    order.push(u);
                }
                self.units.columns_of(&order)
            })
            .collect();
        let exact = self.exact.values(&sets)?;
        for (u, v) in doubtful.into_iter().zip(exact) {
            values[u] = Some(v);
            self.bounds[u] = if v.is_finite() { RECOMPUTED_RTOL * v.abs() } else { 0.0 };
        }
        Ok(values)
    }
}
