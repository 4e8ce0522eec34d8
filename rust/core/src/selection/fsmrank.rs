//! FSMRank (Lai et al. 2013, eq. (2), Alg. 1): joint feature selection and ranking.
//!
//! On the doubled features `[X, −X]` with `w = [w⁺, w⁻] ≥ 0` (so `ŵ = w⁺ − w⁻ ∈ R^d`):
//!
//! ```text
//! ψ(w) = λ1/2 · wᵀ Ā w + λ2 · Σ_{i=1}^{2d} w_i / s̄_i + (1/|P|) · L(w⁺ − w⁻)
//! ```
//!
//! with `L` the pairwise squared hinge. Doubling the measures: for any measure built from
//! `|PC(·,·)|` (or any absolute, sign-symmetric measure such as |Kendall τ|), negating a
//! feature leaves it unchanged, so `s̄ = [s, s]` and `Ā = [[A, A], [A, A]]` (2 × 2 blocks of
//! the `d × d` matrix `A`); hence `wᵀĀw = (w⁺ + w⁻)ᵀ A (w⁺ + w⁻)`.
//!
//! Solved by [`fista`](mod@crate::solvers::fista) (Alg. 1 is accelerated projected gradient with Nemirovski's
//! line search, `γ = 2`, `L` starting at `L0/γ^10`): the datafit is
//! `Sum(Doubled(Scaled(PairwiseHinge, 1/|P|)), Quadratic(Ā, λ1/2))`, the penalty
//! `NonNegWeightedL1(λ2/s̄)` whose prox is the closed-form projection step below eq. (3).
//! `L0` (Theorem 1) is the sum of the datafits' bounds: `4/|P| Σ_p ||x_i − x_j||² + λ1·||Ā||`.
//! A feature with `s_i = 0` gets weight `+∞` (its coefficients stay 0).

use ndarray::{Array2, ArrayView2};

use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::solvers::datafit::{Doubled, PairwiseHinge, Quadratic, Scaled, Sum};
use crate::solvers::fista::{fista, FistaOptions, FistaResult};
use crate::solvers::penalty::NonNegWeightedL1;

/// Output of [`fsmrank`].
#[derive(Clone, Debug)]
pub struct FsmRankResult {
    /// `ŵ = w⁺ − w⁻` (length d).
    pub coef: Vec<f64>,
    /// The solver's result on the doubled problem (`w` has length 2d).
    pub solver: FistaResult,
    /// `|P|`.
    pub n_pairs: usize,
}

/// `Ā = [[A, A], [A, A]]`.
pub fn double_similarity(a: ArrayView2<f64>) -> Array2<f64> {
    let d = a.nrows();
    Array2::from_shape_fn((2 * d, 2 * d), |(i, j)| a[[i % d, j % d]])
}

/// Penalty weights `λ2/s̄_i` on the doubled features (`+∞` where `s_i = 0` and `λ2 > 0`;
/// 0 where `λ2 = 0`).
pub fn doubled_weights(importance: &[f64], lambda2: f64) -> Vec<f64> {
    let w: Vec<f64> = importance
        .iter()
        .map(|&s| {
            if lambda2 == 0.0 {
                0.0
            } else if s == 0.0 {
                f64::INFINITY
            } else {
                lambda2 / s
            }
        })
        .collect();
    [w.clone(), w].concat()
}

/// Solves Lai et al. eq. (2). `x`: `m × d`, rows grouped by query (`offsets`); `similarity`:
/// `d × d` symmetric non-negative (`A`); `importance`: `d` non-negative (`s`); `w0`: optional
/// warm start on the doubled space (length `2d`).
// A kernel entry point: one argument per parameter of the method.
#[allow(clippy::too_many_arguments)]
pub fn fsmrank(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    similarity: ArrayView2<f64>,
    importance: &[f64],
    lambda1: f64,
    lambda2: f64,
    w0: Option<&[f64]>,
    opts: &FistaOptions,
    interrupt: &dyn Interrupt,
) -> Result<FsmRankResult> {
    let d = x.ncols();
    if !(lambda1.is_finite() && lambda1 >= 0.0) {
        return invalid!("lambda1 must be >= 0, got {lambda1}");
    }
    if !(lambda2.is_finite() && lambda2 >= 0.0) {
        return invalid!("lambda2 must be >= 0, got {lambda2}");
    }
    if similarity.nrows() != d || similarity.ncols() != d {
        return invalid!("similarity must be {d}x{d}, got {}x{}", similarity.nrows(), similarity.ncols());
    }
    if similarity.iter().any(|v| !(v.is_finite() && *v >= 0.0)) {
        return invalid!("similarity must hold finite non-negative values");
    }
    if importance.len() != d {
        return invalid!("importance must have {d} entries, got {}", importance.len());
    }
    if let Some(j) = importance.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
        return invalid!("importance must be finite and >= 0; entry {j} is {}", importance[j]);
    }
    let loss = PairwiseHinge::new(x, y, offsets)?;
    let n_pairs = loss.n_pairs();
    if n_pairs == 0 {
        return invalid!("y has no preference pair (every query has a single label value)");
    }
    let a2 = double_similarity(similarity);
    let datafit = Sum::new(
        Doubled { inner: Scaled::new(loss, 1.0 / n_pairs as f64)? },
        Quadratic::new(a2.view(), 0.5 * lambda1)?,
    )?;
    let penalty = NonNegWeightedL1::new(doubled_weights(importance, lambda2))?;
    let start = match w0 {
        Some(w) if w.len() != 2 * d => return invalid!("w0 must have {} entries, got {}", 2 * d, w.len()),
        Some(w) => w.to_vec(),
        None => vec![0.0; 2 * d],
    };
    let solver = fista(&datafit, &penalty, &start, opts, interrupt)?;
    let coef = (0..d).map(|i| solver.w[i] - solver.w[d + i]).collect();
    Ok(FsmRankResult { coef, solver, n_pairs })
}
