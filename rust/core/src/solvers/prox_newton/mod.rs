//! Proximal Newton with a working set for `F(w) = f(w) + Ω(w)`, with `f` a [`SecondOrder`]
//! datafit (a generalised Hessian is enough) and `Ω` a separable [`Penalty`]: the scheme of
//! LIBLINEAR's newGLMNET (Yuan, Ho & Lin 2012) and of Lee, Sun & Saunders (2014).
//!
//! ```text
//! repeat
//!     g = ∇f(w); stop when max_j dist(−g_j, ∂Ω_j(w_j)) ≤ kkt_tol · scale
//!     W = {j : w_j ≠ 0} ∪ {the largest KKT violators with w_j = 0}
//!     H = ∇²f(w)[W, W] + νI                  (ν = 1e-12 · max_j H_jj)
//!     d = argmin_{d_W} gᵀd + ½ dᵀHd + Ω(w + d)   (coordinate descent for the signs,
//!                                               then a Cholesky solve on them)
//!     t = the first of 1, ½, ¼, … with F(w + td) ≤ F(w) + σt·(gᵀd + Ω(w + d) − Ω(w))
//!     w ← w + td
//! ```
//!
//! `scale = max(||∇f(0)||∞, ||∇f(w)||∞, 1e-12)` does not depend on the starting point, so a
//! warm start at a solution stops at once. The coordinate descent stops when no coordinate
//! moves the model gradient by more than a tenth of the current KKT residual; then, with the
//! signs it found fixed, the model is a smooth quadratic on the non-zero coordinates, solved
//! exactly by Cholesky, moving towards that solution up to the first sign change (rounds of
//! both until coordinate descent has nothing left to change). Coordinate descent
//! alone crawls on ill-conditioned features (LETOR's are strongly correlated).
//! Every accepted step decreases `F` (Armijo, σ = 0.01; near the solution a full step that
//! changes `F` by rounding only, 1e-14 relative, is also taken), so a warm start is never
//! made worse.
//!
//! For sparse RankSVM (Laporte et al. eq. (7), (12)) the pairwise squared hinge is piecewise
//! quadratic and its generalised Hessian is exact on each piece: the method needs a handful
//! of outer steps where FISTA (Laporte et al. Alg. 1, [`fista`](mod@crate::solvers::fista)) needs thousands of
//! gradient steps at weak regularisation. Each outer step costs one Hessian block,
//! O(|W|·(m log n_q + m|W|)), plus one loss evaluation per line-search trial.
use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::linalg::{dot, inf_norm};
use crate::solvers::datafit::{check_initial_point, SecondOrder};
use crate::solvers::penalty::Penalty;
use faer::linalg::solvers::Solve;
use faer::{Mat, Side};

/// Solver options.
#[derive(Clone, Debug)]
pub struct ProxNewtonOptions {
    /// Maximum number of outer (Newton) steps.
    pub max_iter: usize,
    /// KKT residual tolerance, relative to the gradient scale (see the module docs).
    pub kkt_tol: f64,
    /// Maximum coordinate-descent sweeps per subproblem.
    pub max_inner: usize,
    /// Zero coefficients that violate the KKT conditions enter the working set at most
    /// `max(ws_min, |support|)` at a time (the largest violations first).
    pub ws_min: usize,
}

impl Default for ProxNewtonOptions {
    fn default() -> Self {
        Self { max_iter: 200, kkt_tol: 1e-6, max_inner: 200, ws_min: 10 }
    }
}

/// Result of a solve.
#[derive(Clone, Debug)]
pub struct ProxNewtonResult {
    pub w: Vec<f64>,
    /// Outer (Newton) steps done.
    pub n_iter: usize,
    /// `F(w^k)` for `k = 0 (start), 1, …, n_iter` (non-increasing up to rounding).
    pub objective: Vec<f64>,
    /// The KKT criterion held.
    pub converged: bool,
    /// KKT residual at the returned `w`.
    pub kkt: f64,
}

const ARMIJO: f64 = 0.01;
/// Rounds of (coordinate descent, exact solve on the signs found) per subproblem.
const MAX_REFINEMENTS: usize = 50;
/// Relative change of `F` treated as rounding in the line search.
const ROUNDING: f64 = 1e-14;

/// The quadratic model `q(d) = gᵀd + ½dᵀHd + Ω(w + d)` on the working set.
struct Subproblem<'s, P: ?Sized> {
    penalty: &'s P,
    ws: &'s [usize],
    /// `H[ws, ws]`, row-major, symmetric.
    h: &'s [f64],
    g: &'s [f64],
    w: &'s [f64],
}

impl<P: Penalty + ?Sized> Subproblem<'_, P> {
    fn row(&self, a: usize) -> &[f64] {
        let k = self.ws.len();
        &self.h[a * k..(a + 1) * k]
    }

    /// Cyclic coordinate descent on `q` from `d` (with `hd = Hd`) until no coordinate moves
    /// the model gradient by more than `tol`; returns the number of sweeps.
    fn coordinate_descent(&self, d: &mut [f64], hd: &mut [f64], tol: f64, max_sweeps: usize) -> usize {
        let k = self.ws.len();
        let mut sweeps = 0;
        while sweeps < max_sweeps {
            sweeps += 1;
            let mut max_change = 0.0_f64;
            for a in 0..k {
                let haa = self.h[a * k + a];
                if haa.is_nan() || haa <= 0.0 {
                    continue;
                }
                let z = self.w[a] + d[a];
                let z_new = self.penalty.prox_coord(self.ws[a], z - (self.g[a] + hd[a]) / haa, 1.0 / haa);
                let delta = z_new - z;
                if delta != 0.0 {
                    d[a] += delta;
                    hd.iter_mut().zip(self.row(a)).for_each(|(v, c)| *v += delta * c);
                    max_change = max_change.max(delta.abs() * haa);
                }
            }
            if max_change <= tol {
                break;
            }
        }
        sweeps
    }

    /// With the signs of `w + d` fixed, `q` is a smooth quadratic on the free coordinates
    /// `F = {a : w_a + d_a ≠ 0}`: solve `H_FF d_F = −(g_F + Ω'_F) − H_FZ d_Z` (Cholesky) and
    /// move `d` towards it, up to the first coordinate that reaches zero (which leaves `F`; an
    /// active-set step). This is what makes the step exact on
    /// ill-conditioned data, where coordinate descent crawls. `None`: unchanged; `Some(true)`:
    /// the full solve was taken; `Some(false)`: a coordinate reached zero on the way.
    fn refine(&self, d: &mut [f64], hd: &mut [f64]) -> Option<bool> {
        let k = self.ws.len();
        let free: Vec<usize> = (0..k).filter(|&a| self.w[a] + d[a] != 0.0).collect();
        let p = free.len();
        if p == 0 {
            return None;
        }
        let hff = Mat::from_fn(p, p, |r, c| self.h[free[r] * k + free[c]]);
        let Ok(llt) = hff.llt(Side::Lower) else {
            return None;
        };
        let zero: Vec<usize> = (0..k).filter(|&b| self.w[b] + d[b] == 0.0).collect();
        let mut rhs = Mat::from_fn(p, 1, |r, _| {
            let a = free[r];
            let z = self.w[a] + d[a];
            // −(g_a + Ω'_a) − Σ_{b ∉ F} H_ab d_b, with d_b = −w_b off the support.
            let fixed: f64 = zero.iter().map(|&b| self.h[a * k + b] * d[b]).sum();
            -(self.g[a] + self.penalty.derivative_coord(self.ws[a], z)) - fixed
        });
        llt.solve_in_place(rhs.as_mut());
        // Move from d towards the solution; stop where the first coordinate reaches zero
        // (the model decreases along the segment: it is convex with its minimum at the end).
        let mut step = 1.0_f64;
        let mut hit = None;
        for (r, &a) in free.iter().enumerate() {
            let (z_old, z_new) = (self.w[a] + d[a], self.w[a] + rhs[(r, 0)]);
            if !z_new.is_finite() {
                return None;
            }
            if z_new == 0.0 || z_new.signum() != z_old.signum() {
                let frac = z_old / (z_old - z_new);
                if frac < step {
                    step = frac;
                    hit = Some(a);
                }
            }
        }
        if step <= 0.0 {
            return None;
        }
        for (r, &a) in free.iter().enumerate() {
            d[a] += step * (rhs[(r, 0)] - d[a]);
        }
        if let Some(a) = hit {
            d[a] = -self.w[a];
        }
        for (a, v) in hd.iter_mut().enumerate() {
            *v = dot(self.row(a), d);
        }
        Some(hit.is_none())
    }
}

/// Minimises `f(w) + Ω(w)` from `w0` (warm start; projected onto dom Ω first by the prox).
pub fn prox_newton<D: SecondOrder + ?Sized, P: Penalty + ?Sized>(
    datafit: &D,
    penalty: &P,
    w0: &[f64],
    opts: &ProxNewtonOptions,
    interrupt: &dyn Interrupt,
) -> Result<ProxNewtonResult> {
    if !penalty.is_separable() {
        // its inner solver works coordinate by coordinate
        return crate::invalid!("the proximal Newton solver needs a separable penalty; use solver=\"fista\" for a block penalty (group lasso)");
    }
    let n = datafit.n_features();
    check_initial_point(w0, n)?;
    // the Hessian blocks' products and faer's Cholesky solves (which may use the pool's threads)
    crate::alloc::reserve_gemm_workspaces()?;
    if opts.kkt_tol.is_nan() || opts.kkt_tol < 0.0 {
        return invalid!("tol must be >= 0, got {}", opts.kkt_tol);
    }
    let mut w = w0.to_vec();
    penalty.prox(&mut w, 0.0);
    let mut grad = vec![0.0; n];
    let f = datafit.value_grad(&w, &mut grad)?;
    let mut obj = f + penalty.value(&w);
    if !obj.is_finite() || grad.iter().any(|g| !g.is_finite()) {
        return invalid!("the objective is not finite at the initial point (non-finite values in X?)");
    }
    // The gradient scale at w = 0 (the largest penalty weight that still selects a feature
    // is of this order) makes the tolerance independent of the starting point.
    let scale0 = if w.iter().all(|&v| v == 0.0) {
        inf_norm(&grad)
    } else {
        let mut g0 = vec![0.0; n];
        datafit.value_grad(&vec![0.0; n], &mut g0)?;
        inf_norm(&g0)
    };
    let mut history = vec![obj];
    let mut residual = vec![0.0; n];
    let mut trial = vec![0.0; n];
    let mut grad_trial = vec![0.0; n];
    let mut converged = false;
    let mut kkt;
    let mut k = 0;
    let mut stalled = 0;
    loop {
        interrupt.check()?;
        for j in 0..n {
            residual[j] = penalty.coord_residual(j, w[j], grad[j]);
        }
        kkt = inf_norm(&residual);
        let scale = scale0.max(inf_norm(&grad)).max(1e-12);
        if kkt <= opts.kkt_tol * scale {
            converged = true;
            break;
        }
        if k >= opts.max_iter {
            break;
        }
        k += 1;

        // Working set: the support and the largest violators at zero.
        let mut ws: Vec<usize> = (0..n).filter(|&j| w[j] != 0.0).collect();
        let mut violators: Vec<usize> = (0..n).filter(|&j| w[j] == 0.0 && residual[j] > 0.0).collect();
        violators.sort_by(|&a, &b| residual[b].total_cmp(&residual[a]).then(a.cmp(&b)));
        violators.truncate(opts.ws_min.max(ws.len()));
        ws.extend(violators);
        ws.sort_unstable();
        let kw = ws.len();

        let mut h = vec![0.0; kw * kw];
        datafit.hessian_block(&w, &ws, &mut h)?;
        let diag_max = (0..kw).map(|a| h[a * kw + a]).fold(0.0, f64::max);
        let nu = 1e-12 * diag_max;
        for a in 0..kw {
            h[a * kw + a] += nu;
        }

        // Subproblem: coordinate descent finds the signs, an exact solve on them refines.
        let gw: Vec<f64> = ws.iter().map(|&j| grad[j]).collect();
        let wv: Vec<f64> = ws.iter().map(|&j| w[j]).collect();
        let sub = Subproblem { penalty, ws: &ws, h: &h, g: &gw, w: &wv };
        let mut d = vec![0.0; kw];
        let mut hd = vec![0.0; kw];
        let inner_tol = 0.1 * kkt;
        let mut exact = false;
        for _ in 0..MAX_REFINEMENTS {
            let sweeps = sub.coordinate_descent(&mut d, &mut hd, inner_tol, opts.max_inner);
            if exact && sweeps == 1 {
                break; // the exact solve on these signs is optimal for the model
            }
            match sub.refine(&mut d, &mut hd) {
                Some(full) => exact = full,
                None => break,
            }
        }

        // Armijo line search on F along d.
        trial.copy_from_slice(&w);
        for (a, &j) in ws.iter().enumerate() {
            trial[j] = w[j] + d[a];
        }
        // gᵀd + Ω(w + d) − Ω(w), summed per coordinate (no cancellation between large sums).
        let decrease: f64 = ws
            .iter()
            .zip(&d)
            .zip(&gw)
            .map(|((&j, &dj), &g)| g * dj + (penalty.value_coord(j, w[j] + dj) - penalty.value_coord(j, w[j])))
            .sum();
        if decrease.is_nan() || decrease >= 0.0 {
            // No descent direction left within rounding: w is as good as this model gets.
            break;
        }
        let mut t = 1.0;
        let accepted = loop {
            for (a, &j) in ws.iter().enumerate() {
                trial[j] = w[j] + t * d[a];
            }
            let obj_t = datafit.value_grad(&trial, &mut grad_trial)? + penalty.value(&trial);
            // Near the solution the decrease drowns in rounding: a full Newton step that
            // changes F by rounding only is still taken (at most a few times in a row).
            let slack = if t == 1.0 { ROUNDING * obj.abs() } else { 0.0 };
            if obj_t <= obj + ARMIJO * t * decrease + slack {
                break Some(obj_t);
            }
            t *= 0.5;
            if t < 1e-12 {
                break None;
            }
        };
        match accepted {
            Some(obj_t) => {
                stalled = if obj_t >= obj { stalled + 1 } else { 0 };
                if stalled > 3 {
                    break;
                }
                w.copy_from_slice(&trial);
                grad.copy_from_slice(&grad_trial);
                obj = obj_t;
                history.push(obj);
            }
            None => break,
        }
    }
    Ok(ProxNewtonResult { w, n_iter: k, objective: history, converged, kkt })
}

#[cfg(test)]
mod tests;
