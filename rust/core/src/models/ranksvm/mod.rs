//! Linear RankSVM with the squared hinge loss, by primal truncated Newton.
//!
//! Minimises `f(w) = 0.5 ||w||^2 + C L(w)` with `L` the pairwise squared hinge loss
//! ([`crate::pairwise::squared_hinge`]; Chen et al. 2017 eq. 4-5, 22-23) by the truncated
//! Newton of [`crate::solvers::truncated_newton`] (Chapelle & Keerthi 2010; Alg. 3 of Chen et
//! al.: CG on generalized Hessian-vector products, eq. 24-25, exact line search).
//!
//! In memory, `L` is [`SquaredHinge`] on the grouped rows ([`InMemoryLoss`]): the line search
//! works in score space (`s + t X d`), so it needs no extra pass over X, and the Hessian's
//! active set is cached for the CG iterations of a Newton step. The solver only needs the
//! design matrix through [`SquaredHinge`]: a kernel feature map (Nystroem, random Fourier
//! features) is applied to X before calling [`fit`]. Over query shards, `L` and its
//! derivatives are sums of the same per-shard quantities ([`InMemoryLoss`] on each shard).

use ndarray::ArrayView2;

use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::linalg::{dot, mat_t_vec, mat_vec};
use crate::pairwise::squared_hinge::{Hessian, SquaredHinge};
use crate::solvers::truncated_newton::{check_params, truncated_newton, NewtonLoss};
use crate::solvers::SolverResult;

pub use crate::solvers::truncated_newton::{TruncatedNewtonFit as RankSvmFit, TruncatedNewtonParams as RankSvmParams};

impl From<&RankSvmFit> for SolverResult {
    /// Truncated Newton on a smooth objective: the residual is the relative gradient norm.
    fn from(r: &RankSvmFit) -> Self {
        SolverResult {
            coef: r.w.clone(),
            objective: r.objective,
            objective_history: vec![r.objective],
            kkt_residual: r.rel_grad_norm,
            n_iter: r.n_iter,
            converged: r.converged,
        }
    }
}

/// The pairwise squared hinge of grouped rows as a [`NewtonLoss`], caching the scores
/// `s = X w` of the last point, the generalized Hessian's active set at it, and along the
/// current line `X d` and the scores at the last step `t`.
pub struct InMemoryLoss<'l, 'a> {
    loss: &'l SquaredHinge<'a>,
    /// `(w, X w)` of the last point asked for.
    point: Option<(Vec<f64>, Vec<f64>)>,
    /// The Hessian at `w` (the key).
    hessian: Option<(Vec<f64>, Hessian<'l, 'a>)>,
    /// `(w, d, X d)` of the current line, and `(t, s + t X d, ∇L·d)` of its last step.
    line: Option<(Vec<f64>, Vec<f64>, Vec<f64>)>,
    step: Option<(f64, Vec<f64>, f64)>,
}

impl<'l, 'a> InMemoryLoss<'l, 'a> {
    pub fn new(loss: &'l SquaredHinge<'a>) -> Self {
        InMemoryLoss { loss, point: None, hessian: None, line: None, step: None }
    }

    /// The scores `X w` (cached for the last point).
    fn scores(&mut self, w: &[f64]) -> &[f64] {
        if !matches!(&self.point, Some((key, _)) if key.as_slice() == w) {
            self.point = Some((w.to_vec(), self.loss.scores(w)));
        }
        &self.point.as_ref().expect("just set").1
    }
}

impl NewtonLoss for InMemoryLoss<'_, '_> {
    fn n_features(&self) -> usize {
        self.loss.n_features()
    }

    fn value_grad(&mut self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
        let loss = self.loss;
        let s = self.scores(w);
        let mut coef = vec![0.0; s.len()];
        let l = loss.value_scores(s, Some(&mut coef));
        mat_t_vec(loss.x(), &coef, loss.offsets(), grad);
        Ok(l)
    }

    fn hessp(&mut self, w: &[f64], v: &[f64], out: &mut [f64]) -> Result<()> {
        if !matches!(&self.hessian, Some((key, _)) if key.as_slice() == w) {
            let loss = self.loss;
            let h = loss.hessian_scores(self.scores(w));
            self.hessian = Some((w.to_vec(), h));
        }
        self.hessian.as_ref().expect("just set").1.apply(v, out);
        Ok(())
    }

    fn line_derivatives(&mut self, w: &[f64], d: &[f64], t: f64, second: bool) -> Result<(f64, f64)> {
        let loss = self.loss;
        if !matches!(&self.line, Some((kw, kd, _)) if kw.as_slice() == w && kd.as_slice() == d) {
            self.line = Some((w.to_vec(), d.to_vec(), mat_vec(loss.x(), d, loss.offsets())));
            self.step = None;
        }
        if !matches!(&self.step, Some((key, _, _)) if key.to_bits() == t.to_bits()) {
            let s = self.scores(w).to_vec();
            let delta = &self.line.as_ref().expect("just set").2;
            let st: Vec<f64> = s.iter().zip(delta).map(|(sk, dk)| sk + t * dk).collect();
            let mut coef = vec![0.0; st.len()];
            loss.value_scores(&st, Some(&mut coef));
            self.step = Some((t, st, dot(&coef, delta)));
        }
        let delta = &self.line.as_ref().expect("just set").2;
        let (_, st, first) = self.step.as_ref().expect("just set");
        if !second {
            return Ok((*first, f64::NAN));
        }
        let mut r = vec![0.0; st.len()];
        loss.hessian_scores(st).apply_scores(delta, &mut r);
        Ok((*first, 2.0 * dot(delta, &r)))
    }

    fn n_pairs(&mut self) -> Result<usize> {
        Ok(self.loss.n_pairs())
    }
}

/// Minimises `0.5 ||w||^2 + C L(w)` on grouped rows (see the module doc).
///
/// `w0`: optional starting point (length n). Checks `interrupt` between CG iterations.
pub fn fit(
    x: ArrayView2<f64>,
    y: &[f64],
    offsets: &QueryOffsets,
    params: &RankSvmParams,
    w0: Option<&[f64]>,
    interrupt: &impl Interrupt,
) -> Result<RankSvmFit> {
    check_params(params, x.ncols(), w0)?;
    if x.iter().any(|v| !v.is_finite()) {
        return invalid!("X contains NaN or infinity");
    }
    let loss = SquaredHinge::new(x, y, offsets)?;
    truncated_newton(&mut InMemoryLoss::new(&loss), params, w0, interrupt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use crate::testing::{qo, Lcg};
    use ndarray::Array2;

    #[test]
    fn stationary_point() {
        let mut st = Lcg(7);
        let mut rnd = || st.uniform();
        let (m, n) = (60, 5);
        let x = Array2::from_shape_fn((m, n), |_| rnd() * 2.0 - 1.0);
        let y: Vec<f64> = (0..m).map(|k| ((x[[k, 0]] + 0.5 * x[[k, 1]] + rnd()) * 2.0).floor()).collect();
        let offsets: Vec<usize> = (0..=6).map(|q| q * 10).collect();
        let params = RankSvmParams { c: 0.7, tol: 1e-10, ..Default::default() };
        let f = fit(x.view(), &y, &qo(&offsets), &params, None, &NoInterrupt).unwrap();
        assert!(f.converged, "{f:?}");
        // Check the gradient independently: w + C ∇L(w) = 0.
        let qo_ = qo(&offsets);
        let loss = SquaredHinge::new(x.view(), &y, &qo_).unwrap();
        let mut g = vec![0.0; n];
        let l = loss.value_grad(&f.w, &mut g);
        for (wk, gk) in f.w.iter().zip(&g) {
            assert!((wk + 0.7 * gk).abs() < 1e-8);
        }
        assert!((f.objective - (0.5 * dot(&f.w, &f.w) + 0.7 * l)).abs() < 1e-10);
        // Interruption is reported.
        let stop = || true;
        assert!(matches!(fit(x.view(), &y, &qo(&offsets), &params, None, &stop), Err(crate::Error::Interrupted)));
        assert!(fit(x.view(), &y, &qo(&offsets), &RankSvmParams { c: 0.0, ..params }, None, &NoInterrupt).is_err());
    }
}
