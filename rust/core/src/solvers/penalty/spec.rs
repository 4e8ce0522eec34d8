//! The penalty `Ω` a user chooses for `Ω(w) + C·L(w)` (sparse RankSVM), with its parameters:
//! [`PenaltySpec`], one variant per penalty object of `rankselect.models.penalties` (`L1`,
//! `Log`, `MCP`, `Lp`, `GroupLasso` / `SparseGroupLasso`). [`PenaltySpec::at`] is the one
//! dispatch from that choice to what the solvers minimise, a [`SparsePenalty`]: a convex
//! penalty solved once ([`WeightedL1`], [`GroupLasso`]) or a non-convex `Σ_j g(|w_j|)` solved
//! by reweighted L1 ([`NonConvex`]); [`SparsePenalty::alpha_max`] gives the path's start.

use super::group::GroupLasso;
use super::nonconvex::{Log, Lp, Mcp, NonConvex};
use super::{check_weights, WeightedL1};
use crate::alloc::{try_copy, try_filled};
use crate::error::Result;
use crate::invalid;

/// The penalty of `Ω(w) + C·L(w)`, as chosen, with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum PenaltySpec {
    /// `Σ_j β_j |w_j|` (Laporte et al. eq. (12)); all `β_j = 1` when `weights` is `None` (eq. (7)).
    L1 { weights: Option<Vec<f64>> },
    /// `Σ_j log(1 + |w_j|/ε)` (Laporte et al. Table II), by reweighted L1.
    Log { epsilon: f64 },
    /// MCP with `γ = gamma` and strength `λ = 1/C` (Laporte et al. Table II), by reweighted L1.
    Mcp { gamma: f64 },
    /// `Σ_j |w_j|^p`, `0 < p < 1`, its derivative capped at `ε` (Laporte et al. Table II), by
    /// reweighted L1.
    Lp { p: f64, epsilon: f64 },
    /// The group lasso (`l1_ratio = 0`) or the sparse-group lasso over disjoint groups given
    /// as a label per feature (`0..n_groups`, every label used); FISTA only.
    Group { labels: Vec<usize>, l1_ratio: f64 },
}

/// `Ω` as the solvers take it, for one `C` ([`PenaltySpec::at`]).
#[derive(Debug)]
pub enum SparsePenalty {
    /// The (weighted) L1 norm, solved once.
    L1(WeightedL1),
    /// A non-convex penalty, solved by reweighted L1 (Laporte et al. Alg. 2).
    NonConvex(Box<dyn NonConvex>),
    /// The group lasso or sparse-group lasso, solved once (by FISTA: it is not separable).
    Group(GroupLasso),
}

impl PenaltySpec {
    /// The penalty's own parameters (not the data's size: [`PenaltySpec::at`]).
    pub fn validate(&self) -> Result<()> {
        match self {
            PenaltySpec::L1 { weights: Some(w) } => check_weights(w, "weighted L1"),
            PenaltySpec::L1 { weights: None } => Ok(()),
            PenaltySpec::Group { labels, l1_ratio } => GroupLasso::new(labels, *l1_ratio).map(|_| ()),
            PenaltySpec::Log { .. } | PenaltySpec::Mcp { .. } | PenaltySpec::Lp { .. } => {
                self.non_convex(1.0).map(|_| ())
            }
        }
    }

    /// The non-convex `g` at strength `λ = 1/c`, checked.
    fn non_convex(&self, c: f64) -> Result<Box<dyn NonConvex>> {
        let g: Box<dyn NonConvex> = match *self {
            PenaltySpec::Log { epsilon } => Box::new(Log { epsilon }),
            PenaltySpec::Mcp { gamma } => Box::new(Mcp { gamma, lambda: 1.0 / c }),
            PenaltySpec::Lp { p, epsilon } => Box::new(Lp { p, epsilon }),
            PenaltySpec::L1 { .. } | PenaltySpec::Group { .. } => return invalid!("{self:?} is a convex penalty"),
        };
        g.validate()?;
        Ok(g)
    }

    /// `Ω` of `Ω(w) + c·L(w)` on `n` features: the one dispatch from the choice to the
    /// solvers' penalty.
    pub fn at(&self, c: f64, n: usize) -> Result<SparsePenalty> {
        if !(c.is_finite() && c > 0.0) {
            return invalid!("C must be > 0, got {c}");
        }
        match self {
            PenaltySpec::L1 { weights } => {
                let beta = match weights {
                    Some(w) if w.len() != n => {
                        return invalid!("weights has {} entries but x has {n} columns", w.len())
                    }
                    Some(w) => try_copy(w, "the L1 weights")?,
                    None => try_filled(n, 1.0, "the L1 weights")?,
                };
                WeightedL1::new(beta).map(SparsePenalty::L1)
            }
            PenaltySpec::Group { labels, l1_ratio } => {
                if labels.len() != n {
                    return invalid!("groups has {} entries but x has {n} columns", labels.len());
                }
                GroupLasso::new(labels, *l1_ratio).map(SparsePenalty::Group)
            }
            PenaltySpec::Log { .. } | PenaltySpec::Mcp { .. } | PenaltySpec::Lp { .. } => {
                self.non_convex(c).map(SparsePenalty::NonConvex)
            }
        }
    }
}

impl SparsePenalty {
    /// `α_max` at `grad0 = ∇f(0)`: `w = 0` minimises `f + α·Ω` exactly when `α ≥ α_max`
    /// (KKT at 0), so the smallest `C` of `Ω + C·L` with a non-zero solution is `1 / α_max`
    /// at `∇L(0)`. A non-convex penalty starts from the plain L1 problem (Alg. 2, line 2):
    /// its path starts where that of L1 does.
    pub fn alpha_max(&self, grad0: &[f64]) -> f64 {
        match self {
            SparsePenalty::L1(pen) => pen.alpha_max(grad0),
            SparsePenalty::Group(pen) => pen.alpha_max(grad0),
            SparsePenalty::NonConvex(_) => grad0.iter().fold(0.0, |m, g| m.max(g.abs())),
        }
    }
}
