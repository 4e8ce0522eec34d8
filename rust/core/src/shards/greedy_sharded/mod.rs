//! Greedy RankRLS over query shards, driven by the core's selection loop
//! ([`crate::selection::greedy_rls::select`]): the shards' partial sums come from a
//! [`ShardCalls`] (in `rankselect.dask`, one Dask actor per shard holding a
//! [`GreedyShard`](super::greedy_shard::GreedyShard)); everything else is done here, once:
//! the sums in shard order, `c_i = 1/(1 + e_i)`, `d_i = c_i h_i`, `t = c_b sum_s v_b^T C_i`
//! (the rounds of [`super::greedy_shard`]), the criterion's finish, the choice of the feature
//! (ties, NaN, `min_improvement`, the uninformative stop, costs and budget) and the primal
//! weights of every prefix from the summed `Xc^T Xc` (eq. 5). The in-memory run's accuracy
//! monitor watches the same quantities here ([`accuracy`]): a value it doubts is refused.

use faer::Mat;

use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::selection::greedy_rls::{
    check_options, select, Choice, Criterion, Gram, GreedyBackend, GreedyOptions, GreedyPath, Monitor, Units,
};

/// One shard's dots round: `(v_i^T C_i, v_i^T a)` per feature and its part of `||p||^2`.
pub type ShardDots = (Vec<f64>, Vec<f64>, f64);

/// Per-shard partial sums, in shard order: the rounds of [`super::greedy_shard`], answered by
/// the shards (every method returns one entry per shard, each of length `n` unless said).
pub trait ShardCalls {
    /// `false` for the features constant within every query of the shard.
    fn informative(&mut self) -> Result<Vec<Vec<bool>>>;
    /// `(Xc_s^T Xc_s` row-major, length `n * n`, `Xc_s^T yc_s)`.
    fn gram(&mut self) -> Result<Vec<(Vec<f64>, Vec<f64>)>>;
    /// The shard's part of the empty model's criterion (one number per shard).
    fn baseline(&mut self) -> Result<Vec<f64>>;
    /// `(v_i^T C_i, v_i^T a)` per feature and the shard's part of `||p||^2` ([`ShardDots`]).
    fn dots(&mut self) -> Result<Vec<ShardDots>>;
    /// The shard's part of every candidate's criterion (NaN for `skip`), and per candidate its
    /// smallest `1 - c_i s1_qi` (the accuracy monitor's `den`).
    fn scan(&mut self, c: &[f64], d: &[f64], skip: &[bool]) -> Result<Vec<(Vec<f64>, Vec<f64>)>>;
    /// `v_b^T C_i` per feature.
    fn cross(&mut self, b: usize) -> Result<Vec<Vec<f64>>>;
    /// Every shard adds feature `b` (`c_b`, `d_b`, `t`; features in `skip` are not updated),
    /// then returns the step's smallest `1 - c s1_q` and its [`dots`](ShardCalls::dots) for the
    /// next step (one round trip fewer).
    fn add(&mut self, b: usize, c: f64, d: f64, t: &[f64], skip: &[bool]) -> Result<Vec<(f64, ShardDots)>>;
    /// Units of several columns (`(offsets, columns)`): `Xc_g^T C_g` per unit (b x b blocks,
    /// concatenated). A backend without group rounds refuses groups.
    fn unit_dots(&mut self, _offsets: &[usize], _columns: &[usize]) -> Result<Vec<Vec<f64>>> {
        Err(Error::InvalidInput("these query shards have no group rounds (unit_dots)".into()))
    }
    /// The shard's part of each unit's criterion given the global `K` and `h` per unit
    /// (concatenated), the block scan.
    fn scan_units(&mut self, _offsets: &[usize], _columns: &[usize], _k: &[f64], _h: &[f64]) -> Result<Vec<Vec<f64>>> {
        Err(Error::InvalidInput("these query shards have no group rounds (scan_units)".into()))
    }
    /// Per shard: its rows and its largest query's (the shape a refusal names,
    /// [`accuracy`]); empty when unknown.
    fn rows(&mut self) -> Result<Vec<(usize, usize)>> {
        Ok(Vec::new())
    }
}

/// `sum_s parts[s]`, added in shard order; every part must have `len` entries.
fn sum_in_order<'p>(parts: impl IntoIterator<Item = &'p [f64]>, len: usize, what: &str) -> Result<Vec<f64>> {
    let mut total = vec![0.0; len];
    let mut any = false;
    for (s, p) in parts.into_iter().enumerate() {
        if p.len() != len {
            return Err(Error::InvalidInput(format!(
                "shard {s} returned {} values for {what}, expected {len}",
                p.len()
            )));
        }
        total.iter_mut().zip(p).for_each(|(t, v)| *t += v);
        any = true;
    }
    if !any {
        return Err(Error::InvalidInput(format!("no shard answered {what}")));
    }
    Ok(total)
}

/// The summed dots `(e, h)` and `||p||^2`, in shard order.
fn sum_dots<'p>(parts: impl Iterator<Item = &'p ShardDots> + Clone, n: usize) -> Result<(Vec<f64>, Vec<f64>, f64)> {
    Ok((
        sum_in_order(parts.clone().map(|p| p.0.as_slice()), n, "the dots")?,
        sum_in_order(parts.clone().map(|p| p.1.as_slice()), n, "the dots")?,
        parts.fold(0.0, |a, p| a + p.2),
    ))
}

/// The sharded backend of the selection loop, over units.
struct Sharded<'c, C: ?Sized> {
    calls: &'c mut C,
    units: &'c Units,
    n: usize,
    n_queries: usize,
    criterion: &'c dyn Criterion,
    gram: Mat<f64>,
    xty: Vec<f64>,
    /// Columns informative in some shard.
    informative: Vec<bool>,
    /// The unit of every column (`usize::MAX`: in none).
    unit_of: Vec<usize>,
    /// Summed dots `(v_i^T C_i, v_i^T a)` of the current model, when the last round returned them.
    dots: Option<(Vec<f64>, Vec<f64>)>,
    /// `alpha`, for the monitor's `rho_i = M_ii(0) / min(M_ii, 1 + M_ii)`.
    alpha: f64,
    /// The accuracy monitor ([`accuracy`]; from the first dots, which give `||yc||^2`).
    monitor: Option<Monitor>,
    /// The current model's `||p||^2` (summed over the shards).
    model: f64,
    /// The units added so far (the step a refusal names) and their live columns.
    steps: usize,
    model_columns: Vec<usize>,
    /// The best-value choice rule (a doubted value that cannot be the best decides nothing).
    best_only: bool,
    /// The absolute rounding bound of each value of the last scan ([`accuracy`]).
    bounds: Vec<f64>,
}

impl<'c, C: ShardCalls + ?Sized> Sharded<'c, C> {
    fn new(
        calls: &'c mut C,
        units: &'c Units,
        n_queries: usize,
        criterion: &'c dyn Criterion,
        alpha: f64,
        best_only: bool,
    ) -> Result<Self> {
        let n = units.n_columns();
        let parts = calls.gram()?;
        let g = sum_in_order(parts.iter().map(|p| p.0.as_slice()), n * n, "Xc^T Xc")?;
        let xty = sum_in_order(parts.iter().map(|p| p.1.as_slice()), n, "Xc^T yc")?;
        // Exactly symmetric (the lower triangle is kept), as in memory.
        let gram = Mat::<f64>::from_fn(n, n, |i, j| if j <= i { g[i * n + j] } else { g[j * n + i] });
        let informative = vec![false; n];
        let mut unit_of = vec![usize::MAX; n];
        (0..units.len()).for_each(|u| units.members(u).iter().for_each(|&j| unit_of[j] = u));
        Ok(Sharded {
            calls,
            units,
            n,
            n_queries,
            criterion,
            gram,
            xty,
            informative,
            unit_of,
            dots: None,
            alpha,
            monitor: None,
            model: 0.0,
            steps: 0,
            model_columns: Vec::new(),
            best_only,
            bounds: Vec::new(),
        })
    }

    /// The summed dots of the current model (from the last round, or asked now).
    fn current_dots(&mut self) -> Result<(Vec<f64>, Vec<f64>)> {
        match self.dots.take() {
            Some(dots) => Ok(dots),
            None => {
                let (e, h, model) = sum_dots(self.calls.dots()?.iter(), self.n)?;
                self.observe(model);
                Ok((e, h))
            }
        }
    }

    /// The informative columns of unit `u`.
    pub(super) fn live(&self, u: usize) -> Vec<usize> {
        self.units.members(u).iter().copied().filter(|&j| self.informative[j]).collect()
    }

    /// The block scan of the multi-column units `multi` (unit, live columns), from the
    /// shards' `unit_dots` and `scan_units` rounds, with the current dots `(e, h)`.
    fn scan_blocks(&mut self, multi: &[(usize, Vec<usize>)], e: &[f64], hd: &[f64]) -> Result<Vec<f64>> {
        let mut offsets = vec![0];
        let mut columns = Vec::new();
        for (_, cols) in multi {
            columns.extend_from_slice(cols);
            offsets.push(columns.len());
        }
        let kn: usize = multi.iter().map(|(_, c)| c.len() * c.len()).sum();
        let parts = self.calls.unit_dots(&offsets, &columns)?;
        let mgg = sum_in_order(parts.iter().map(|p| p.as_slice()), kn, "the units' dots")?;
        let (mut k, mut h) = (Vec::with_capacity(kn), Vec::with_capacity(columns.len()));
        let mut at = 0;
        for (_, cols) in multi {
            let b = cols.len();
            // K = I + M_gg, exactly symmetric (the diagonal from the dots, as for one column)
            let kg: Vec<f64> = (0..b * b)
                .map(|t| {
                    let (i, j) = (t / b, t % b);
                    let m = if i == j { e[cols[i]] } else { mgg[at + i.min(j) * b + i.max(j)] };
                    m + if i == j { 1.0 } else { 0.0 }
                })
                .collect();
            let mut hg: Vec<f64> = cols.iter().map(|&j| hd[j]).collect();
            crate::selection::greedy_rls::solve_sym(&kg, b, &mut hg, 1, &mut Vec::new(), 0.0);
            k.extend(kg);
            h.extend(hg);
            at += b * b;
        }
        let parts = self.calls.scan_units(&offsets, &columns, &k, &h)?;
        sum_in_order(parts.iter().map(|p| p.as_slice()), multi.len(), "the units' scan")
    }
}

impl<C: ShardCalls + ?Sized> GreedyBackend for Sharded<'_, C> {
    fn units(&self) -> &Units {
        self.units
    }

    fn higher_is_better(&self) -> bool {
        self.criterion.higher_is_better()
    }

    fn informative(&mut self) -> Result<Vec<bool>> {
        let parts = self.calls.informative()?;
        let mut out = vec![false; self.n];
        for (s, p) in parts.iter().enumerate() {
            if p.len() != self.n {
                return Err(Error::InvalidInput(format!("shard {s} returned {} flags, expected {}", p.len(), self.n)));
            }
            out.iter_mut().zip(p).for_each(|(o, v)| *o |= v);
        }
        self.informative.clone_from(&out);
        Ok(self.units.informative(&out))
    }

    fn gram(&self) -> (&dyn Gram, &[f64]) {
        (&self.gram, &self.xty)
    }

    fn baseline(&mut self) -> Result<f64> {
        let parts = self.calls.baseline()?;
        let total = parts.iter().fold(0.0, |a, b| a + b);
        Ok(self.criterion.finish(total, self.n_queries))
    }

    fn scan(&mut self, skip: &[bool]) -> Result<Vec<Option<f64>>> {
        let (e, h) = self.current_dots()?;
        // the units of one live column: the column scan; larger ones: the block scan
        let mut col_skip = vec![true; self.n];
        let mut multi = Vec::new();
        for u in (0..self.units.len()).filter(|&u| !skip[u]) {
            let live = self.live(u);
            match live.len() {
                0 => {}
                1 => col_skip[live[0]] = false,
                // the members' pivots too (the monitor's `den` of the unit, [`accuracy`])
                _ => {
                    live.iter().for_each(|&j| col_skip[j] = false);
                    multi.push((u, live));
                }
            }
        }
        let c: Vec<f64> = e.iter().map(|v| 1.0 / (1.0 + v)).collect();
        let d: Vec<f64> = c.iter().zip(&h).map(|(c, h)| c * h).collect();
        let parts = self.calls.scan(&c, &d, &col_skip)?;
        let totals = sum_in_order(parts.iter().map(|p| p.0.as_slice()), self.n, "the scan")?;
        let dens = accuracy::min_in_order(parts.iter().map(|p| p.1.as_slice()), self.n, "the scan's pivots")?;
        let blocks = if multi.is_empty() { Vec::new() } else { self.scan_blocks(&multi, &e, &h)? };
        self.dots = Some((e, h));
        let finish = |v: f64| Some(self.criterion.finish(v, self.n_queries));
        let mut out = vec![None; self.units.len()];
        for u in (0..self.units.len()).filter(|&u| !skip[u]) {
            let live = self.live(u);
            if live.len() == 1 {
                out[u] = finish(totals[live[0]]);
            }
        }
        for ((u, _), v) in multi.iter().zip(blocks) {
            out[*u] = finish(v);
        }
        let (bounds, refused) = self.certify(&out, &dens, &multi)?;
        if let Some((u, est)) = refused {
            return Err(self.refusal(u, est));
        }
        self.bounds = bounds;
        Ok(out)
    }

    fn bounds(&self) -> &[f64] {
        &self.bounds
    }

    /// The unit's columns' rank-one rounds, one after the other (`c_j`, `d_j` from the dots
    /// of the model so far; the unit's columns not added yet are updated by each round).
    fn add(&mut self, u: usize, skip: &[bool]) -> Result<()> {
        let live = self.live(u);
        for (i, &b) in live.iter().enumerate() {
            let (e, h) = self.current_dots()?;
            let c = 1.0 / (1.0 + e[b]);
            let d = c * h[b];
            let parts = self.calls.cross(b)?;
            let t: Vec<f64> = sum_in_order(parts.iter().map(|p| p.as_slice()), self.n, "the cross sums")?
                .iter()
                .map(|v| c * v)
                .collect();
            let mut col_skip: Vec<bool> = (0..self.n).map(|j| self.units_skip(j, skip)).collect();
            live[i + 1..].iter().for_each(|&l| col_skip[l] = false);
            col_skip[b] = true;
            let rho = self.rho(b, e[b]);
            let next = self.calls.add(b, c, d, &t, &col_skip)?;
            let den =
                accuracy::min_in_order(next.iter().map(|p| std::slice::from_ref(&p.0)), 1, "the step's pivot")?[0];
            let (e, h, model) = sum_dots(next.iter().map(|p| &p.1), self.n)?;
            self.record(rho, model, den);
            self.dots = Some((e, h));
        }
        self.steps += 1;
        self.model_columns.extend_from_slice(&live);
        Ok(())
    }
}

impl<C: ShardCalls + ?Sized> Sharded<'_, C> {
    /// Whether column `j` is left out of the updates: its unit is skipped (or it is in none)
    /// or it is constant within every query.
    fn units_skip(&self, j: usize, skip: &[bool]) -> bool {
        !self.informative[j] || self.unit_of[j] == usize::MAX || skip[self.unit_of[j]]
    }
}

/// Greedy RankRLS over query shards with `units` (over `n` columns; a feature is a unit of
/// one) and `n_queries` queries in all: [`select`] with the shards' sums from `calls`.
/// `criterion` gives the finish (a mean over queries for a ranking measure) and the
/// direction; the shards compute its query terms.
// A kernel entry point: one argument per parameter of the method.
#[allow(clippy::too_many_arguments)]
pub fn greedy_rankrls_sharded<C: ShardCalls + ?Sized>(
    calls: &mut C,
    units: &Units,
    n_queries: usize,
    opts: &GreedyOptions,
    choice: &Choice,
    criterion: &dyn Criterion,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<GreedyPath> {
    check_options(units, n_queries, opts)?;
    choice.check(units.len())?;
    interrupt.check()?;
    let mut backend = Sharded::new(calls, units, n_queries, criterion, opts.alpha, matches!(choice, Choice::Best))?;
    select(&mut backend, opts, choice, interrupt, progress)
}

mod accuracy;
#[cfg(test)]
mod tests;
