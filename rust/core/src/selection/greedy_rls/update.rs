//! The rank-one steps of [`GreedyState`] (module docs of [`super`]): adding a column
//! (Sherman-Morrison, `c = 1/(1 + M_bb)`) or removing it (`c = -1/(1 - M_bb)`) updates `p`, `M`,
//! `r` here and returns the [`Step`] the next pass applies to `C` and `U`
//! ([`GreedyState::pass`]); with the accuracy monitor's quantities ([`super::monitor`]).

use super::monitor::relative_change;
use super::state::GreedyState;
use super::step::{update_residuals, Step};
use crate::linalg::dot4;

impl GreedyState {
    /// Adds feature `b` to `S`: updates `p`, `M`, `r` and returns what the pass needs to
    /// update `C` and `U` ([`GreedyState::pass`]).
    pub fn select(&mut self, b: usize) -> Step {
        let c = 1.0 / (1.0 + self.store.m(b, b));
        let rho = self.rho(b);
        self.in_model[b] = true;
        self.rank_one(b, c, rho)
    }

    /// Removes feature `b` from `S` (floating search): the same rank-one step with the
    /// opposite sign (module docs of [`super`]), `c = -1/(1 - M_bb)`, where `M_bb < 1`
    /// while `b` is in the model. Exact and O(m n) like an addition. The pass that applies it
    /// must update every column (the selected ones too: `skip` holds only features that
    /// cannot change the model), so that `C_b`, `U_b` are current for a later removal.
    pub fn deselect(&mut self, b: usize) -> Step {
        let c = -1.0 / (1.0 - self.store.m(b, b));
        let rho = self.rho(b);
        self.in_model[b] = false;
        self.rank_one(b, c, rho)
    }

    /// The pivot `1 - M_bb` of removing `b` from `S` (in `(0, 1]`): `M_bb -> 1` as `alpha -> 0`,
    /// and the downdate then loses `log10(1 / (1 - M_bb))` digits to cancellation.
    pub fn removal_pivot(&self, b: usize) -> f64 {
        1.0 - self.store.m(b, b)
    }

    /// The rank-one change `G' = G - c u u^T` (`u = C_b`) of `p`, `M`, `r`.
    fn rank_one(&mut self, b: usize, c: f64, rho: f64) -> Step {
        let ub = self.column(&self.c, b);
        let zb = self.column(&self.u, b);
        let d = c * self.r[b];
        let before = self.model_value();
        let (s1, f) = update_residuals(&ub, &zb, &mut self.p, &self.offsets, c, d);
        let den = s1.iter().map(|s| 1.0 - c * s).fold(1.0f64, f64::min);
        let change = relative_change(before, self.model_value());
        let mb = self.store.row(b, &ub);
        let t: Vec<f64> = mb.iter().map(|v| c * v).collect();
        self.store.rank_one(&mb, c);
        self.r.iter_mut().zip(&mb).for_each(|(r, m)| *r -= d * m);
        Step { t, s1, f, ub, zb, rho, den, change }
    }

    /// The accuracy monitor's `rho_i` of column `i` ([`super::monitor`]): `M_ii(0) /
    /// min(M_ii, 1 + s M_ii)` (`s = -1` while `i` is in the model), 0 for a zero column.
    pub(super) fn rho(&self, i: usize) -> f64 {
        super::monitor::rho(self.store.gram_diag(i) / self.alpha, self.store.m(i, i), self.in_model[i])
    }

    /// The current model's criterion scale `||p||^2` (the squared criterion's value).
    pub(super) fn model_value(&self) -> f64 {
        dot4(&self.p, &self.p)
    }
}
