//! The result of a greedy run and the primal weights of every selected prefix (eq. 5).

use faer::{Mat, Par};
use ndarray::Array2;

/// Why a path has fewer than `n_features_to_select` steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The `min_improvement` rule ([`GreedyOptions::min_improvement`](super::GreedyOptions)).
    MinImprovement,
    /// Every remaining feature is constant within every query: none can change the model.
    Uninformative,
    /// No remaining candidate fits the budget ([`crate::selection::cost_greedy`]).
    Budget,
    /// Floating search: every addition would give a subset already visited.
    Visited,
}

/// Result of a greedy run.
#[derive(Clone, Debug)]
pub struct GreedyPath {
    /// Selected features in order (0-based).
    pub selected: Vec<usize>,
    /// Criterion value after each step: the LQO error (eq. 7) or the ranking measure of the
    /// LQO predictions (`lqo_scores_` in Python).
    pub lqo_scores: Vec<f64>,
    /// Weights of the model of every prefix, shape (steps, n), zeros outside the prefix.
    pub coef_path: Array2<f64>,
    /// Why the path stopped before `n_features_to_select` steps (`None`: it has them all).
    pub stop: Option<Stop>,
}

impl GreedyPath {
    /// The path from the weights of every prefix (`coef_rows`, each of length `n`).
    pub(crate) fn from_rows(
        selected: Vec<usize>,
        lqo_scores: Vec<f64>,
        coef_rows: Vec<Vec<f64>>,
        n: usize,
        stop: Option<Stop>,
    ) -> Self {
        let steps = coef_rows.len();
        let coef_path = Array2::from_shape_vec((steps, n), coef_rows.concat()).expect("every prefix has n weights");
        GreedyPath { selected, lqo_scores, coef_path, stop }
    }
}

/// The entries of the Gram matrix `Xc^T Xc` a path reads (`Gram[S, b]`): a full n x n matrix,
/// or computed from the centred columns for wide data ([`super::store`]).
pub trait Gram {
    /// `Gram_ij = x_i^T x_j` (centred columns).
    fn entry(&self, i: usize, j: usize) -> f64;
}

impl Gram for Mat<f64> {
    fn entry(&self, i: usize, j: usize) -> f64 {
        self[(i, j)]
    }
}

/// Primal weights of the selected prefix (module docs): a Cholesky factor of
/// `Xc_S^T Xc_S + alpha I` grown by one row per step (its storage by doubling: k x k for
/// `k` selected columns, never n x n).
pub(crate) struct PrimalPath {
    l: Mat<f64>,
    k: usize,
    n: usize,
}

impl PrimalPath {
    /// A path over `n` columns whose factor is allocated for `cap` of them (it grows past).
    pub(crate) fn new(n: usize, cap: usize) -> Self {
        PrimalPath { l: Mat::zeros(cap.min(n), cap.min(n)), k: 0, n }
    }

    /// Appends feature `b` (after `selected`) and returns the weights on `selected + [b]`,
    /// from `gram = Xc^T Xc` and `xty = Xc^T yc` (n x n, n) and the ridge `alpha`.
    pub(crate) fn push(&mut self, gram: &dyn Gram, xty: &[f64], alpha: f64, selected: &[usize], b: usize) -> Vec<f64> {
        let k = self.k;
        if k == self.l.nrows() {
            let cap = (2 * k).max(16).min(self.n.max(k + 1));
            let old = std::mem::replace(&mut self.l, Mat::new());
            self.l = Mat::zeros(cap, cap);
            self.l.as_mut().submatrix_mut(0, 0, k, k).copy_from(old.as_ref());
        }
        // Row k of L: solve L_kk l = Gram[S, b]; pivot = Gram_bb + alpha - l^T l (>= alpha
        // in exact arithmetic).
        let mut l = Mat::<f64>::from_fn(k, 1, |j, _| gram.entry(selected[j], b));
        faer::linalg::triangular_solve::solve_lower_triangular_in_place(
            self.l.as_ref().submatrix(0, 0, k, k),
            l.as_mut(),
            Par::Seq,
        );
        let ll: f64 = (0..k).map(|j| l[(j, 0)] * l[(j, 0)]).sum();
        let pivot = (gram.entry(b, b) + alpha - ll).max(alpha);
        for j in 0..k {
            self.l[(k, j)] = l[(j, 0)];
        }
        self.l[(k, k)] = pivot.sqrt();
        self.k = k + 1;
        let lk = self.l.as_ref().submatrix(0, 0, k + 1, k + 1);
        let mut w = Mat::<f64>::from_fn(k + 1, 1, |j, _| {
            let f = if j < k { selected[j] } else { b };
            xty[f]
        });
        faer::linalg::triangular_solve::solve_lower_triangular_in_place(lk, w.as_mut(), Par::Seq);
        faer::linalg::triangular_solve::solve_upper_triangular_in_place(lk.transpose(), w.as_mut(), Par::Seq);
        let mut out = vec![0.0; xty.len()];
        for j in 0..=k {
            out[if j < k { selected[j] } else { b }] = w[(j, 0)];
        }
        out
    }
}
