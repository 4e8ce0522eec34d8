//! Where a greedy run gets its candidates' criterion values from: the in-memory caches
//! ([`InMemory`], on [`GreedyState`]) or the caches of query shards answered by a callback
//! ([`crate::shards::greedy_sharded`]). The selection loop ([`super::select`]) is written once
//! over [`GreedyBackend`].

use faer::Mat;
use ndarray::ArrayView2;

use super::criterion::{Criterion, CriterionScratch};
use super::state::{GreedyState, Step};
use crate::data::groups::{center_vec, QueryOffsets};
use crate::error::Result;
use crate::invalid;

/// The data side of a greedy run (Algorithm 1).
pub trait GreedyBackend {
    /// Number of features `n`.
    fn n_features(&self) -> usize;
    /// `true` when larger criterion values are better.
    fn higher_is_better(&self) -> bool;
    /// `false` for the features constant within every query (never candidates).
    fn informative(&mut self) -> Result<Vec<bool>>;
    /// `Xc^T Xc` (n x n, symmetric) and `Xc^T yc`: the primal weights of every prefix (eq. 5).
    fn gram(&self) -> (&Mat<f64>, &[f64]);
    /// The criterion of the empty model (its query-centred LQO residuals are the centred
    /// labels), for the cost-aware rule.
    fn baseline(&mut self) -> Result<f64>;
    /// The criterion after adding each candidate (`None` for the features in `skip`), once
    /// the features added so far are in the model.
    fn scan(&mut self, skip: &[bool]) -> Result<Vec<Option<f64>>>;
    /// Adds feature `b` to the model (`skip` holds it and every other non-candidate). The
    /// update may be deferred to the next [`scan`](GreedyBackend::scan).
    fn add(&mut self, b: usize, skip: &[bool]) -> Result<()>;
    /// Removes feature `b` from the model (floating search, [`super::select_floating`]); the
    /// next [`scan`](GreedyBackend::scan) then scores the features in the model by their
    /// removal. A backend without it refuses floating search.
    fn remove(&mut self, _b: usize, _skip: &[bool]) -> Result<()> {
        invalid!("floating search (floating=True) is not available on this backend")
    }
}

/// The in-memory backend: the caches of [`GreedyState`]; adding a feature is deferred to the
/// next pass, which applies it and scans the candidates in one sweep.
pub struct InMemory<'a> {
    state: GreedyState,
    y: &'a [f64],
    offsets: &'a QueryOffsets,
    criterion: &'a dyn Criterion,
    pending: Option<Step>,
}

impl<'a> InMemory<'a> {
    /// Caches for `S = {}` of grouped, validated `x` (m x n) and `y`.
    pub fn new(
        x: ArrayView2<f64>,
        y: &'a [f64],
        offsets: &'a QueryOffsets,
        alpha: f64,
        criterion: &'a dyn Criterion,
    ) -> crate::Result<Self> {
        Ok(InMemory { state: GreedyState::new(x, y, offsets, alpha)?, y, offsets, criterion, pending: None })
    }
}

impl GreedyBackend for InMemory<'_> {
    fn n_features(&self) -> usize {
        self.state.n
    }

    fn higher_is_better(&self) -> bool {
        self.criterion.higher_is_better()
    }

    fn informative(&mut self) -> Result<Vec<bool>> {
        Ok(self.state.informative().to_vec())
    }

    fn gram(&self) -> (&Mat<f64>, &[f64]) {
        (&self.state.gram, &self.state.xty)
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
        let step = self.pending.take();
        Ok(self.state.pass(step.as_ref(), self.y, self.criterion, skip))
    }

    fn add(&mut self, b: usize, _skip: &[bool]) -> Result<()> {
        debug_assert!(self.pending.is_none(), "a scan applies every step before the next");
        self.pending = Some(self.state.select(b));
        Ok(())
    }

    fn remove(&mut self, b: usize, _skip: &[bool]) -> Result<()> {
        debug_assert!(self.pending.is_none(), "a scan applies every step before the next");
        self.pending = Some(self.state.deselect(b));
        Ok(())
    }
}
