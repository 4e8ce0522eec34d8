//! Linear RankSVM with the squared hinge loss, by primal truncated Newton.
//!
//! Minimises `f(w) = 0.5 ||w||^2 + C L(w)` with `L` the pairwise squared hinge loss
//! ([`crate::pairwise::squared_hinge`]; Chen et al. 2017 eq. 4-5, 22-23), following Chapelle &
//! Keerthi (2010) and Alg. 3 of Chen et al.:
//!
//! * gradient (eq. 24): `g = w + C ∇L(w)`, `∇L = -2 X^T A^T D (1 - A X w)`;
//! * Newton direction: `(I + C ∇²L) d = -g` solved inexactly by linear conjugate gradient
//!   on generalized Hessian-vector products (eq. 25, `∇²L = 2 X^T A^T D A X`; Alg. 3
//!   writes `D = AXw > 1`, the active pairs are those with `AXw < 1`), stopped when
//!   `||r|| <= eta ||g||`, `eta = min(0.1, sqrt(||g|| / ||g_0||))`;
//! * step: exact line search on the convex piecewise-quadratic `phi(t) = f(w + t d)` by
//!   safeguarded one-dimensional Newton iterations in score space (`s + t X d`), so no extra
//!   pass over X is needed;
//! * stop when `||g|| <= tol ||g_0||`, `g_0` the gradient at `w = 0`.
//!
//! The solver only needs the design matrix through [`SquaredHinge`]: a kernel feature map
//! (Nystroem, random Fourier features) is applied to X before calling [`fit`].

use ndarray::ArrayView2;

use crate::data::groups::QueryOffsets;
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::linalg::{axpy, dot, mat_t_vec, mat_vec, norm};
use crate::pairwise::squared_hinge::SquaredHinge;
use crate::solvers::SolverResult;

/// Parameters of [`fit`].
#[derive(Clone, Debug)]
pub struct RankSvmParams {
    /// Loss weight `C > 0`.
    pub c: f64,
    /// Relative gradient-norm tolerance, `>= 0`.
    pub tol: f64,
    /// Maximum number of Newton steps.
    pub max_iter: usize,
    /// Maximum number of CG iterations per Newton step.
    pub max_cg_iter: usize,
}

impl Default for RankSvmParams {
    fn default() -> Self {
        RankSvmParams { c: 1.0, tol: 1e-6, max_iter: 100, max_cg_iter: 500 }
    }
}

/// Result of [`fit`].
#[derive(Clone, Debug)]
pub struct RankSvmFit {
    pub w: Vec<f64>,
    /// Newton steps taken.
    pub n_iter: usize,
    /// Total CG iterations (Hessian-vector products).
    pub n_cg_iter: usize,
    /// `0.5 ||w||^2 + C L(w)` at the returned `w`.
    pub objective: f64,
    /// `||g|| / ||g_0||` at the returned `w`.
    pub rel_grad_norm: f64,
    /// The gradient criterion was met.
    pub converged: bool,
    /// Number of preference pairs.
    pub n_pairs: usize,
}

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

/// State at a point: scores, loss, objective, gradient.
struct Point {
    s: Vec<f64>,
    obj: f64,
    g: Vec<f64>,
}

fn evaluate(loss: &SquaredHinge, w: &[f64], c: f64) -> Point {
    let s = loss.scores(w);
    let mut coef = vec![0.0; s.len()];
    let l = loss.value_scores(&s, Some(&mut coef));
    let mut g = vec![0.0; w.len()];
    mat_t_vec(loss.x(), &coef, loss.offsets(), &mut g);
    for (gk, wk) in g.iter_mut().zip(w) {
        *gk = wk + c * *gk;
    }
    Point { s, obj: 0.5 * dot(w, w) + c * l, g }
}

/// Exact minimiser of `phi(t) = f(w + t d)` (convex, piecewise quadratic) by safeguarded
/// Newton iterations; `delta = X d`. Returns `t`.
fn line_search(loss: &SquaredHinge, s: &[f64], delta: &[f64], wd: f64, dd: f64, c: f64) -> f64 {
    let m = s.len();
    let mut st = vec![0.0; m];
    let mut coef = vec![0.0; m];
    let mut r = vec![0.0; m];
    let dphi = |t: f64, st: &mut [f64], coef: &mut [f64]| -> f64 {
        for k in 0..m {
            st[k] = s[k] + t * delta[k];
        }
        loss.value_scores(st, Some(&mut *coef));
        wd + t * dd + c * dot(coef, delta)
    };
    let d0 = dphi(0.0, &mut st, &mut coef);
    if d0 >= 0.0 {
        return 0.0;
    }
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    let mut t = 1.0;
    for _ in 0..100 {
        let dp = dphi(t, &mut st, &mut coef);
        if dp.abs() <= 1e-12 * d0.abs() {
            break;
        }
        if dp < 0.0 {
            lo = t;
        } else {
            hi = t;
        }
        let h = loss.hessian_scores(&st);
        h.apply_scores(delta, &mut r);
        let second = dd + 2.0 * c * dot(delta, &r);
        let mut next = t - dp / second;
        if !(next > lo && next < hi) {
            next = if hi.is_finite() { 0.5 * (lo + hi) } else { 2.0 * t };
        }
        if (next - t).abs() <= 1e-15 * t.abs() {
            break;
        }
        t = next;
    }
    t
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
    let c = params.c;
    if !(c.is_finite() && c > 0.0) {
        return invalid!("C must be a finite number > 0, got {c}");
    }
    if !(params.tol.is_finite() && params.tol >= 0.0) {
        return invalid!("tol must be a finite number >= 0, got {}", params.tol);
    }
    if params.max_cg_iter == 0 {
        return invalid!("max_cg_iter must be >= 1");
    }
    let n = x.ncols();
    if let Some(w0) = w0 {
        if w0.len() != n {
            return invalid!("w0 has {} entries but X has {n} columns", w0.len());
        }
        if w0.iter().any(|v| !v.is_finite()) {
            return invalid!("w0 contains NaN or infinity");
        }
    }
    if x.iter().any(|v| !v.is_finite()) {
        return invalid!("X contains NaN or infinity");
    }
    let loss = SquaredHinge::new(x, y, offsets)?;
    let zero = vec![0.0; n];
    let mut w = w0.map(|v| v.to_vec()).unwrap_or_else(|| zero.clone());
    let mut pt = evaluate(&loss, &w, c);
    let mut gnorm = norm(&pt.g);
    // Reference gradient norm: at w = 0 (or at w0 when larger, e.g. when there are no pairs).
    let g0 = if w0.is_some() { norm(&evaluate(&loss, &zero, c).g).max(gnorm) } else { gnorm };
    let rel = |gn: f64| if g0 > 0.0 { gn / g0 } else { 0.0 };
    let mut n_iter = 0;
    let mut n_cg = 0;
    let mut converged = rel(gnorm) <= params.tol;
    while !converged && n_iter < params.max_iter {
        interrupt.check()?;
        // Newton direction by CG on (I + C ∇²L) d = -g.
        let h = loss.hessian_scores(&pt.s);
        let eta = (0.1f64).min(rel(gnorm).sqrt());
        let cg_tol = eta * gnorm;
        let mut d = vec![0.0; n];
        let mut r: Vec<f64> = pt.g.iter().map(|v| -v).collect();
        let mut p = r.clone();
        let mut rr = dot(&r, &r);
        let mut hp = vec![0.0; n];
        for _ in 0..params.max_cg_iter {
            if rr.sqrt() <= cg_tol {
                break;
            }
            interrupt.check()?;
            h.apply(&p, &mut hp);
            for (hk, pk) in hp.iter_mut().zip(&p) {
                *hk = pk + c * *hk;
            }
            n_cg += 1;
            let php = dot(&p, &hp);
            if php <= 0.0 {
                break;
            }
            let alpha = rr / php;
            axpy(alpha, &p, &mut d);
            axpy(-alpha, &hp, &mut r);
            let rr_new = dot(&r, &r);
            let beta = rr_new / rr;
            rr = rr_new;
            for k in 0..n {
                p[k] = r[k] + beta * p[k];
            }
        }
        let delta = mat_vec(loss.x(), &d, offsets);
        let t = line_search(&loss, &pt.s, &delta, dot(&w, &d), dot(&d, &d), c);
        let w_new: Vec<f64> = w.iter().zip(&d).map(|(a, b)| a + t * b).collect();
        let new_pt = evaluate(&loss, &w_new, c);
        n_iter += 1;
        if new_pt.obj.is_nan() || pt.obj.is_nan() || new_pt.obj > pt.obj || t == 0.0 {
            // No decrease possible in floating point: w is optimal to machine precision.
            break;
        }
        let stalled = new_pt.obj == pt.obj;
        w = w_new;
        pt = new_pt;
        gnorm = norm(&pt.g);
        converged = rel(gnorm) <= params.tol;
        if stalled {
            break;
        }
    }
    Ok(RankSvmFit {
        w,
        n_iter,
        n_cg_iter: n_cg,
        objective: pt.obj,
        rel_grad_norm: rel(gnorm),
        converged,
        n_pairs: loss.n_pairs(),
    })
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
