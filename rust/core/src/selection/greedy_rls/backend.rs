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
    /// Makes the removal values in `values` (from the last [`scan`](GreedyBackend::scan))
    /// exact where a backend's downdate is ill-conditioned (floating search at small
    /// `alpha`); may refresh every value. The default keeps them.
    fn refine_removals(&mut self, _values: &mut Vec<Option<f64>>, _skip: &[bool]) -> Result<()> {
        Ok(())
    }
}

/// Smallest removal pivot `1 - M_bb` ([`GreedyState::removal_pivot`]) that floating search
/// downdates in O(m n); below it, the subset is refactored from `S = {}` instead
/// ([`InMemory`]). A downdate multiplies the caches' rounding by about `1 / (1 - M_bb)`, so
/// `1e-3` keeps its error near `1e3 eps` times the conditioning of the subset (1e-5 left
/// 1.2e-8 on random problems at alpha 1e-3); where every pivot is above it, floating search
/// is unchanged, bit for bit.
pub const MIN_REMOVAL_PIVOT: f64 = 1e-3;

/// The in-memory backend: the caches of [`GreedyState`]; adding a feature is deferred to the
/// next pass, which applies it and scans the candidates in one sweep.
pub struct InMemory<'a> {
    state: GreedyState,
    x: ArrayView2<'a, f64>,
    /// The features in the model, in order of entry (the refactorisation's replay order).
    order: Vec<usize>,
    y: &'a [f64],
    offsets: &'a QueryOffsets,
    criterion: &'a dyn Criterion,
    pending: Option<Step>,
}

impl<'a> InMemory<'a> {
    /// Caches for `S = {}` of grouped, validated `x` (m x n) and `y`.
    pub fn new(
        x: ArrayView2<'a, f64>,
        y: &'a [f64],
        offsets: &'a QueryOffsets,
        alpha: f64,
        criterion: &'a dyn Criterion,
    ) -> crate::Result<Self> {
        let state = GreedyState::new(x, y, offsets, alpha)?;
        Ok(InMemory { state, x, order: Vec::new(), y, offsets, criterion, pending: None })
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
        self.order.push(b);
        Ok(())
    }

    /// A downdate (`c = -1/(1 - M_bb)`, O(m n)) when its pivot is at least
    /// [`MIN_REMOVAL_PIVOT`]; otherwise the refactorisation [`InMemory::replay`] of the
    /// subset without `b` (O(|S| m n)), whose caches are those of a fresh run.
    fn remove(&mut self, b: usize, skip: &[bool]) -> Result<()> {
        debug_assert!(self.pending.is_none(), "a scan applies every step before the next");
        self.order.retain(|&f| f != b);
        if self.state.removal_pivot(b) >= MIN_REMOVAL_PIVOT {
            self.pending = Some(self.state.deselect(b));
        } else {
            let order = std::mem::take(&mut self.order);
            if let Some((&last, head)) = order.split_last() {
                self.replay(head, skip);
                self.pending = Some(self.state.select(last));
            } else {
                self.state.reset(self.x);
            }
            self.order = order;
        }
        Ok(())
    }

    /// Each selected `j` whose pivot is below [`MIN_REMOVAL_PIVOT`] is scored by the exact
    /// value of `S \ {j}` (the refactorisation's last pass: the value of adding `S \ {j}`'s
    /// last feature to the rest); then `S` itself is refactored and every other value comes
    /// from its fresh caches. Nothing changes when every pivot is above the threshold.
    fn refine_removals(&mut self, values: &mut Vec<Option<f64>>, skip: &[bool]) -> Result<()> {
        let ill: Vec<usize> =
            self.order.iter().copied().filter(|&j| self.state.removal_pivot(j) < MIN_REMOVAL_PIVOT).collect();
        if ill.is_empty() || self.order.len() < 2 {
            return Ok(());
        }
        let order = self.order.clone();
        let exact: Vec<Option<f64>> = ill
            .iter()
            .map(|&j| {
                let rest: Vec<usize> = order.iter().copied().filter(|&f| f != j).collect();
                let (&last, head) = rest.split_last().expect("|S| >= 2");
                self.replay(head, skip)[last]
            })
            .collect();
        *values = self.replay(&order, skip);
        ill.iter().zip(exact).for_each(|(&j, v)| values[j] = v);
        Ok(())
    }
}

impl InMemory<'_> {
    /// Refactorisation: the caches of `S = {}` ([`GreedyState::reset`]), then the features of
    /// `feats` added in order, each applied by a full pass; returns the last pass's values
    /// (the scan of the model on `feats`, computed as by a fresh run).
    fn replay(&mut self, feats: &[usize], skip: &[bool]) -> Vec<Option<f64>> {
        self.state.reset(self.x);
        let mut values = self.state.pass(None, self.y, self.criterion, skip);
        for &f in feats {
            let step = self.state.select(f);
            values = self.state.pass(Some(&step), self.y, self.criterion, skip);
        }
        values
    }
}
