//! Truncated Newton for `f(w) = 0.5 ||w||^2 + C L(w)` (RankSVM in the primal; Chapelle &
//! Keerthi 2010, Alg. 3 of Chen et al. 2017), generic over where `L` comes from
//! ([`NewtonLoss`]: the in-memory pairwise squared hinge, or sums over query shards supplied
//! by a callback):
//!
//! * gradient (Chen et al. eq. 24): `g = w + C ∇L(w)`;
//! * Newton direction: `(I + C ∇²L) d = -g` solved inexactly by linear conjugate gradient on
//!   generalized Hessian-vector products (eq. 25), stopped when `||r|| <= eta ||g||`,
//!   `eta = min(0.1, sqrt(||g|| / ||g_0||))`;
//! * step: exact line search on the convex piecewise-quadratic `phi(t) = f(w + t d)` by
//!   safeguarded one-dimensional Newton iterations on `phi'(t) = w·d + t d·d + C ∇L(w + t d)·d`,
//!   `phi''(t) = d·d + C dᵀ∇²L(w + t d) d`;
//! * stop when `||g|| <= tol ||g_0||`, `g_0` the gradient at `w = 0`.

use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::linalg::{axpy, dot, norm};

/// The loss `L` of [`truncated_newton`], answered by its data source. Every method may fail
/// (a callback's error); the solver passes the error on.
pub trait NewtonLoss {
    /// Number of coefficients.
    fn n_features(&self) -> usize;
    /// `L(w)`; writes `∇L(w)` into `grad` (Chen et al. eq. 24).
    fn value_grad(&mut self, w: &[f64], grad: &mut [f64]) -> Result<f64>;
    /// Writes the generalized Hessian-vector product `∇²L(w) v` into `out` (eq. 25).
    fn hessp(&mut self, w: &[f64], v: &[f64], out: &mut [f64]) -> Result<()>;
    /// Along the line `w + t d`: `(∇L(w + t d)·d, dᵀ∇²L(w + t d) d)`; the second entry only
    /// when `second` (otherwise any value).
    fn line_derivatives(&mut self, w: &[f64], d: &[f64], t: f64, second: bool) -> Result<(f64, f64)>;
    /// Number of preference pairs behind `L` (reported with the fit).
    fn n_pairs(&mut self) -> Result<usize>;
}

/// Parameters of [`truncated_newton`].
#[derive(Clone, Debug)]
pub struct TruncatedNewtonParams {
    /// Loss weight `C > 0`.
    pub c: f64,
    /// Relative gradient-norm tolerance, `>= 0`.
    pub tol: f64,
    /// Maximum number of Newton steps.
    pub max_iter: usize,
    /// Maximum number of CG iterations per Newton step.
    pub max_cg_iter: usize,
}

impl Default for TruncatedNewtonParams {
    fn default() -> Self {
        TruncatedNewtonParams { c: 1.0, tol: 1e-6, max_iter: 100, max_cg_iter: 500 }
    }
}

/// Result of [`truncated_newton`].
#[derive(Clone, Debug)]
pub struct TruncatedNewtonFit {
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

/// Objective and gradient of `f` at `w`.
fn evaluate<L: NewtonLoss + ?Sized>(loss: &mut L, w: &[f64], c: f64) -> Result<(f64, Vec<f64>)> {
    let mut g = vec![0.0; w.len()];
    let l = loss.value_grad(w, &mut g)?;
    for (gk, wk) in g.iter_mut().zip(w) {
        *gk = wk + c * *gk;
    }
    Ok((0.5 * dot(w, w) + c * l, g))
}

/// Exact minimiser of `phi(t) = f(w + t d)` (convex, piecewise quadratic) by safeguarded
/// Newton iterations. Returns `t`.
fn line_search<L: NewtonLoss + ?Sized>(loss: &mut L, w: &[f64], d: &[f64], c: f64) -> Result<f64> {
    let (wd, dd) = (dot(w, d), dot(d, d));
    let dphi = |loss: &mut L, t: f64| -> Result<f64> { Ok(wd + t * dd + c * loss.line_derivatives(w, d, t, false)?.0) };
    let d0 = dphi(loss, 0.0)?;
    if d0 >= 0.0 {
        return Ok(0.0);
    }
    let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
    let mut t = 1.0;
    for _ in 0..100 {
        let dp = dphi(loss, t)?;
        if dp.abs() <= 1e-12 * d0.abs() {
            break;
        }
        if dp < 0.0 {
            lo = t;
        } else {
            hi = t;
        }
        let second = dd + c * loss.line_derivatives(w, d, t, true)?.1;
        let mut next = t - dp / second;
        if !(next > lo && next < hi) {
            next = if hi.is_finite() { 0.5 * (lo + hi) } else { 2.0 * t };
        }
        if (next - t).abs() <= 1e-15 * t.abs() {
            break;
        }
        t = next;
    }
    Ok(t)
}

/// Checks the parameters and the starting point (`n` coefficients) of [`truncated_newton`].
pub fn check_params(params: &TruncatedNewtonParams, n: usize, w0: Option<&[f64]>) -> Result<()> {
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
    if let Some(w0) = w0 {
        if w0.len() != n {
            return invalid!("w0 has {} entries but X has {n} columns", w0.len());
        }
        if w0.iter().any(|v| !v.is_finite()) {
            return invalid!("w0 contains NaN or infinity");
        }
    }
    Ok(())
}

/// Minimises `0.5 ||w||^2 + C L(w)` from `w0` (zeros when `None`); see the module doc.
/// Checks `interrupt` between CG iterations.
pub fn truncated_newton<L: NewtonLoss + ?Sized>(
    loss: &mut L,
    params: &TruncatedNewtonParams,
    w0: Option<&[f64]>,
    interrupt: &dyn Interrupt,
) -> Result<TruncatedNewtonFit> {
    let n = loss.n_features();
    check_params(params, n, w0)?;
    let c = params.c;
    let zero = vec![0.0; n];
    let mut w = w0.map(|v| v.to_vec()).unwrap_or_else(|| zero.clone());
    let (mut obj, mut g) = evaluate(loss, &w, c)?;
    let mut gnorm = norm(&g);
    // Reference gradient norm: at w = 0 (or at w0 when larger, e.g. when there are no pairs).
    let g0 = if w0.is_some() { norm(&evaluate(loss, &zero, c)?.1).max(gnorm) } else { gnorm };
    let rel = |gn: f64| if g0 > 0.0 { gn / g0 } else { 0.0 };
    let mut n_iter = 0;
    let mut n_cg = 0;
    let mut converged = rel(gnorm) <= params.tol;
    while !converged && n_iter < params.max_iter {
        interrupt.check()?;
        // Newton direction by CG on (I + C ∇²L) d = -g.
        let eta = (0.1f64).min(rel(gnorm).sqrt());
        let cg_tol = eta * gnorm;
        let mut d = vec![0.0; n];
        let mut r: Vec<f64> = g.iter().map(|v| -v).collect();
        let mut p = r.clone();
        let mut rr = dot(&r, &r);
        let mut hp = vec![0.0; n];
        for _ in 0..params.max_cg_iter {
            if rr.sqrt() <= cg_tol {
                break;
            }
            interrupt.check()?;
            loss.hessp(&w, &p, &mut hp)?;
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
        let t = line_search(loss, &w, &d, c)?;
        let w_new: Vec<f64> = w.iter().zip(&d).map(|(a, b)| a + t * b).collect();
        let (new_obj, new_g) = evaluate(loss, &w_new, c)?;
        n_iter += 1;
        if new_obj.is_nan() || obj.is_nan() || new_obj > obj || t == 0.0 {
            // No decrease possible in floating point: w is optimal to machine precision.
            break;
        }
        let stalled = new_obj == obj;
        w = w_new;
        obj = new_obj;
        g = new_g;
        gnorm = norm(&g);
        converged = rel(gnorm) <= params.tol;
        if stalled {
            break;
        }
    }
    let n_pairs = loss.n_pairs()?;
    Ok(TruncatedNewtonFit { w, n_iter, n_cg_iter: n_cg, objective: obj, rel_grad_norm: rel(gnorm), converged, n_pairs })
}
