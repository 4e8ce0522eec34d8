//! Greedy RankRLS over query shards, driven by the core's selection loop
//! ([`crate::selection::greedy_rls::select`]): the shards' partial sums come from a
//! [`ShardCalls`] (in `rankselect.dask`, one Dask actor per shard holding a
//! [`GreedyShard`](super::greedy_shard::GreedyShard)); everything else is done here, once:
//! the sums in shard order, `c_i = 1/(1 + e_i)`, `d_i = c_i h_i`, `t = c_b sum_s v_b^T C_i`
//! (the rounds of [`super::greedy_shard`]), the criterion's finish, the choice of the feature
//! (ties, NaN, `min_improvement`, the uninformative stop, costs and budget) and the primal
//! weights of every prefix from the summed `Xc^T Xc` (eq. 5).

use faer::Mat;

use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::selection::greedy_rls::{
    check_options, select, Choice, Criterion, GreedyBackend, GreedyOptions, GreedyPath,
};

/// Per-shard partial sums, in shard order: the rounds of [`super::greedy_shard`], answered by
/// the shards (every method returns one entry per shard, each of length `n` unless said).
pub trait ShardCalls {
    /// `false` for the features constant within every query of the shard.
    fn informative(&mut self) -> Result<Vec<Vec<bool>>>;
    /// `(Xc_s^T Xc_s` row-major, length `n * n`, `Xc_s^T yc_s)`.
    fn gram(&mut self) -> Result<Vec<(Vec<f64>, Vec<f64>)>>;
    /// The shard's part of the empty model's criterion (one number per shard).
    fn baseline(&mut self) -> Result<Vec<f64>>;
    /// `(v_i^T C_i, v_i^T a)` per feature.
    fn dots(&mut self) -> Result<Vec<(Vec<f64>, Vec<f64>)>>;
    /// The shard's part of every candidate's criterion (NaN for `skip`).
    fn scan(&mut self, c: &[f64], d: &[f64], skip: &[bool]) -> Result<Vec<Vec<f64>>>;
    /// `v_b^T C_i` per feature.
    fn cross(&mut self, b: usize) -> Result<Vec<Vec<f64>>>;
    /// Every shard adds feature `b` (`c_b`, `d_b`, `t`; features in `skip` are not updated),
    /// then returns its [`dots`](ShardCalls::dots) for the next step (one round trip fewer).
    fn add(&mut self, b: usize, c: f64, d: f64, t: &[f64], skip: &[bool]) -> Result<Vec<(Vec<f64>, Vec<f64>)>>;
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

fn sum_pairs(parts: &[(Vec<f64>, Vec<f64>)], n: usize, what: &str) -> Result<(Vec<f64>, Vec<f64>)> {
    Ok((
        sum_in_order(parts.iter().map(|p| p.0.as_slice()), n, what)?,
        sum_in_order(parts.iter().map(|p| p.1.as_slice()), n, what)?,
    ))
}

/// The sharded backend of the selection loop.
struct Sharded<'c, C: ?Sized> {
    calls: &'c mut C,
    n: usize,
    n_queries: usize,
    criterion: &'c dyn Criterion,
    gram: Mat<f64>,
    xty: Vec<f64>,
    /// Summed dots of the current model, when the last round returned them.
    dots: Option<(Vec<f64>, Vec<f64>)>,
    /// `c_i`, `d_i` of the last scan.
    cd: (Vec<f64>, Vec<f64>),
}

impl<'c, C: ShardCalls + ?Sized> Sharded<'c, C> {
    fn new(calls: &'c mut C, n: usize, n_queries: usize, criterion: &'c dyn Criterion) -> Result<Self> {
        let parts = calls.gram()?;
        let g = sum_in_order(parts.iter().map(|p| p.0.as_slice()), n * n, "Xc^T Xc")?;
        let xty = sum_in_order(parts.iter().map(|p| p.1.as_slice()), n, "Xc^T yc")?;
        // Exactly symmetric (the lower triangle is kept), as in memory.
        let gram = Mat::<f64>::from_fn(n, n, |i, j| if j <= i { g[i * n + j] } else { g[j * n + i] });
        Ok(Sharded { calls, n, n_queries, criterion, gram, xty, dots: None, cd: (vec![], vec![]) })
    }
}

impl<C: ShardCalls + ?Sized> GreedyBackend for Sharded<'_, C> {
    fn n_features(&self) -> usize {
        self.n
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
        Ok(out)
    }

    fn gram(&self) -> (&Mat<f64>, &[f64]) {
        (&self.gram, &self.xty)
    }

    fn baseline(&mut self) -> Result<f64> {
        let parts = self.calls.baseline()?;
        let total = parts.iter().fold(0.0, |a, b| a + b);
        Ok(self.criterion.finish(total, self.n_queries))
    }

    fn scan(&mut self, skip: &[bool]) -> Result<Vec<Option<f64>>> {
        let (e, h) = match self.dots.take() {
            Some(dots) => dots,
            None => sum_pairs(&self.calls.dots()?, self.n, "the dots")?,
        };
        let c: Vec<f64> = e.iter().map(|v| 1.0 / (1.0 + v)).collect();
        let d: Vec<f64> = c.iter().zip(&h).map(|(c, h)| c * h).collect();
        let parts = self.calls.scan(&c, &d, skip)?;
        let totals = sum_in_order(parts.iter().map(|p| p.as_slice()), self.n, "the scan")?;
        self.cd = (c, d);
        Ok(totals
            .iter()
            .zip(skip)
            .map(|(&v, &s)| if s { None } else { Some(self.criterion.finish(v, self.n_queries)) })
            .collect())
    }

    fn add(&mut self, b: usize, skip: &[bool]) -> Result<()> {
        let (c, d) = (self.cd.0[b], self.cd.1[b]);
        let parts = self.calls.cross(b)?;
        let t: Vec<f64> =
            sum_in_order(parts.iter().map(|p| p.as_slice()), self.n, "the cross sums")?.iter().map(|v| c * v).collect();
        let next = self.calls.add(b, c, d, &t, skip)?;
        self.dots = Some(sum_pairs(&next, self.n, "the dots")?);
        Ok(())
    }
}

/// Greedy RankRLS over query shards with `n` features and `n_queries` queries in all:
/// [`select`] with the shards' sums from `calls`. `criterion` gives the finish (a mean over
/// queries for a ranking measure) and the direction; the shards compute its query terms.
// A kernel entry point: one argument per parameter of the method.
#[allow(clippy::too_many_arguments)]
pub fn greedy_rankrls_sharded<C: ShardCalls + ?Sized>(
    calls: &mut C,
    n: usize,
    n_queries: usize,
    opts: &GreedyOptions,
    choice: &Choice,
    criterion: &dyn Criterion,
    interrupt: &dyn Interrupt,
    progress: &mut dyn FnMut(usize, usize, f64) -> Result<()>,
) -> Result<GreedyPath> {
    check_options(n, n_queries, opts)?;
    choice.check(n)?;
    interrupt.check()?;
    let mut backend = Sharded::new(calls, n, n_queries, criterion)?;
    select(&mut backend, opts, choice, interrupt, progress)
}

#[cfg(test)]
mod tests;
