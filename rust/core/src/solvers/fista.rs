//! FISTA: accelerated proximal gradient with backtracking on the Lipschitz estimate
//! (Beck & Teboulle 2009, FISTA with backtracking; Laporte et al. Alg. 1; Lai et al. Alg. 1,
//! which is the same scheme with Nemirovski's line search and a closed-form prox).
//!
//! Minimises `F(w) = f(w) + Ω(w)` for a [`Datafit`] `f` and a [`Penalty`] `Ω`:
//!
//! ```text
//! z¹ = w⁰, t¹ = 1, L = L_init
//! repeat k = 1, 2, …
//!     w^k = prox_{Ω/L}(z^k − ∇f(z^k)/L), L ← ηL until
//!           f(w^k) ≤ f(z^k) + ⟨∇f(z^k), w^k − z^k⟩ + L/2 ||w^k − z^k||²
//!     t^{k+1} = (1 + √(1 + 4 (t^k)²)) / 2
//!     z^{k+1} = w^k + (t^k − 1)/t^{k+1} · (w^k − w^{k−1})
//! ```
//!
//! `L` never decreases (so `F(w^k) − F* ≤ 2ηL_f ||w⁰ − w*||² / (k+1)²`, Beck & Teboulle
//! Thm 4.4; Lai et al. Theorem 2). Stops when BOTH the relative objective change
//! `|F(w^k) − F(w^{k−1})| ≤ tol·|F(w^{k−1})|` (Lai et al.'s rule) AND the KKT residual
//! `max_j dist(−∇_j f(w^k), ∂Ω_j(w^k_j)) ≤ kkt_tol · scale` hold, where `scale =
//! max(||∇f(w⁰)||∞, ||∇f(w^k)||∞, 1e-12)`. Optional adaptive restart (O'Donoghue &
//! Candès 2015: reset `t` when the momentum points uphill) speeds up high-precision solves;
//! it is off for the plain Alg. 1. The returned `w` is the best iterate seen (so a warm
//! start never makes the objective worse).

use crate::error::Result;
use crate::interrupt::Interrupt;
use crate::invalid;
use crate::linalg::{inf_norm, norm};
use crate::solvers::datafit::{check_initial_point, Datafit};
use crate::solvers::penalty::Penalty;

/// Solver options.
#[derive(Clone, Debug)]
pub struct FistaOptions {
    /// Maximum number of iterations (outer steps; line-search trials are not counted).
    pub max_iter: usize,
    /// Relative objective change tolerance.
    pub tol: f64,
    /// KKT residual tolerance, relative to the gradient scale (see module docs).
    pub kkt_tol: f64,
    /// Initial Lipschitz estimate; `None`: `max(L0 / 2^10, secant estimate at w⁰)` with
    /// `L0 = lipschitz_bound()` (Lai et al. Alg. 1 starts at `L = L0/γ^10`, `γ = 2`).
    pub lipschitz_init: Option<f64>,
    /// Line-search growth factor `η > 1` (Lai et al.'s `γ = 2`).
    pub eta: f64,
    /// Use Nesterov momentum (FISTA). `false`: plain proximal gradient (ISTA).
    pub accelerate: bool,
    /// Adaptive (gradient-based) restart of the momentum.
    pub restart: bool,
}

impl Default for FistaOptions {
    fn default() -> Self {
        Self {
            max_iter: 1000,
            tol: 1e-6,
            kkt_tol: 1e-4,
            lipschitz_init: None,
            eta: 2.0,
            accelerate: true,
            restart: true,
        }
    }
}

/// Result of a solve.
#[derive(Clone, Debug)]
pub struct FistaResult {
    /// The best iterate.
    pub w: Vec<f64>,
    /// Iterations done.
    pub n_iter: usize,
    /// `F(w^k)` for `k = 0 (start), 1, …, n_iter`.
    pub objective: Vec<f64>,
    /// Both stopping criteria held.
    pub converged: bool,
    /// Final Lipschitz estimate.
    pub lipschitz: f64,
    /// KKT residual at the returned `w`.
    pub kkt: f64,
}

/// Minimises `f(w) + Ω(w)` from `w0` (warm start; projected onto dom Ω first by the prox).
pub fn fista<D: Datafit + ?Sized, P: Penalty + ?Sized>(
    datafit: &D,
    penalty: &P,
    w0: &[f64],
    opts: &FistaOptions,
    interrupt: &dyn Interrupt,
) -> Result<FistaResult> {
    let n = datafit.n_features();
    check_initial_point(w0, n)?;
    if !(opts.tol >= 0.0 && opts.kkt_tol >= 0.0) {
        return invalid!("tol must be >= 0, got {} / {}", opts.tol, opts.kkt_tol);
    }
    if !(opts.eta > 1.0 && opts.eta.is_finite()) {
        return invalid!("the line-search factor must be > 1, got {}", opts.eta);
    }
    let bound = datafit.lipschitz_bound()?;
    let mut lip = match opts.lipschitz_init {
        Some(l) => l,
        None => bound / 1024.0,
    };
    if !(lip.is_finite() && lip > 0.0) {
        // f has a zero (or degenerate) curvature bound: any positive start works.
        lip = 1.0;
    }

    // Start: make w0 feasible (prox with a zero step is the projection for indicators).
    let mut w = w0.to_vec();
    penalty.prox(&mut w, 0.0);
    let mut grad_w = vec![0.0; n];
    let f_w = datafit.value_grad(&w, &mut grad_w)?;
    let mut obj = f_w + penalty.value(&w);
    let scale0 = inf_norm(&grad_w);
    let mut kkt = penalty.subdiff_distance(&w, &grad_w);
    if opts.lipschitz_init.is_none() && scale0 > 0.0 && bound.is_finite() && bound > 0.0 {
        // Secant estimate of the local curvature along −∇f(w⁰): keeps a warm start from
        // taking a huge first step (L only grows afterwards, so a low start costs little).
        let probe: Vec<f64> = w.iter().zip(&grad_w).map(|(x, g)| x - g / bound).collect();
        let mut g1 = vec![0.0; n];
        datafit.value_grad(&probe, &mut g1)?;
        let num: f64 = g1.iter().zip(&grad_w).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
        let den = norm(&grad_w) / bound;
        if den > 0.0 && (num / den).is_finite() {
            lip = lip.max(num / den);
        }
    }
    let mut best = (obj, w.clone(), kkt);
    let mut history = vec![obj];

    let mut z = w.clone();
    let mut grad_z = grad_w.clone();
    let mut f_z = f_w;
    let mut t = 1.0_f64;
    let mut w_new = vec![0.0; n];
    let mut grad_new = vec![0.0; n];
    let mut converged = false;
    let mut k = 0;
    while k < opts.max_iter {
        interrupt.check()?;
        k += 1;
        // Backtracking line search on L.
        let f_new = loop {
            for j in 0..n {
                w_new[j] = z[j] - grad_z[j] / lip;
            }
            penalty.prox(&mut w_new, 1.0 / lip);
            let f_new = datafit.value_grad(&w_new, &mut grad_new)?;
            let mut lin = 0.0;
            let mut sq = 0.0;
            for j in 0..n {
                let d = w_new[j] - z[j];
                lin += grad_z[j] * d;
                sq += d * d;
            }
            let model = f_z + lin + 0.5 * lip * sq;
            // Relative slack for rounding when the step is tiny.
            if f_new <= model + 1e-12 * f_z.abs().max(1e-300) || sq == 0.0 {
                break f_new;
            }
            lip *= opts.eta;
            if !lip.is_finite() {
                return invalid!("line search diverged: the datafit gradient is not Lipschitz (non-finite values?)");
            }
        };
        let obj_new = f_new + penalty.value(&w_new);
        history.push(obj_new);
        kkt = penalty.subdiff_distance(&w_new, &grad_new);
        if obj_new < best.0 || (obj_new == best.0 && kkt < best.2) {
            best = (obj_new, w_new.clone(), kkt);
        }
        let rel = (obj_new - obj).abs() <= opts.tol * obj.abs();
        let scale = scale0.max(inf_norm(&grad_new)).max(1e-12);
        if rel && kkt <= opts.kkt_tol * scale {
            converged = true;
            w.copy_from_slice(&w_new);
            break;
        }
        // Momentum.
        let (mut t_next, mut beta) = (1.0, 0.0);
        if opts.accelerate {
            t_next = 0.5 * (1.0 + (1.0 + 4.0 * t * t).sqrt());
            beta = (t - 1.0) / t_next;
            if opts.restart {
                // Restart when ⟨z − w_new, w_new − w⟩ > 0 (the step goes against momentum).
                let uphill: f64 = (0..n).map(|j| (z[j] - w_new[j]) * (w_new[j] - w[j])).sum();
                if uphill > 0.0 {
                    t_next = 1.0;
                    beta = 0.0;
                }
            }
        }
        for j in 0..n {
            z[j] = w_new[j] + beta * (w_new[j] - w[j]);
        }
        w.copy_from_slice(&w_new);
        obj = obj_new;
        t = t_next;
        if beta == 0.0 {
            f_z = f_new;
            grad_z.copy_from_slice(&grad_new);
        } else {
            f_z = datafit.value_grad(&z, &mut grad_z)?;
        }
    }
    let (_, w_best, kkt_best) = best;
    Ok(FistaResult { w: w_best, n_iter: k, objective: history, converged, lipschitz: lip, kkt: kkt_best })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use crate::solvers::penalty::{NonNegWeightedL1, L1};

    /// ½||Mw − b||² (test-only datafit).
    struct LeastSquares {
        m: Vec<Vec<f64>>,
        b: Vec<f64>,
    }
    impl Datafit for LeastSquares {
        fn n_features(&self) -> usize {
            self.m[0].len()
        }
        fn value(&self, w: &[f64]) -> Result<f64> {
            let mut g = vec![0.0; w.len()];
            self.value_grad(w, &mut g)
        }
        fn value_grad(&self, w: &[f64], grad: &mut [f64]) -> Result<f64> {
            grad.iter_mut().for_each(|g| *g = 0.0);
            let mut v = 0.0;
            for (row, &b) in self.m.iter().zip(&self.b) {
                let r: f64 = row.iter().zip(w).map(|(a, x)| a * x).sum::<f64>() - b;
                v += 0.5 * r * r;
                grad.iter_mut().zip(row).for_each(|(g, a)| *g += r * a);
            }
            Ok(v)
        }
        fn lipschitz_bound(&self) -> Result<f64> {
            Ok(self.m.iter().map(|r| r.iter().map(|a| a * a).sum::<f64>()).sum())
        }
    }

    fn problem() -> LeastSquares {
        LeastSquares {
            m: vec![vec![1.0, 0.2, 0.0], vec![0.3, 1.0, 0.5], vec![0.0, 0.4, 1.0], vec![1.0, 1.0, 1.0]],
            b: vec![1.0, -2.0, 0.5, 0.3],
        }
    }

    #[test]
    fn l1_solution_satisfies_kkt() {
        let ls = problem();
        let pen = L1::new(0.3).unwrap();
        let opts = FistaOptions { tol: 1e-14, kkt_tol: 1e-10, max_iter: 100_000, ..Default::default() };
        let r = fista(&ls, &pen, &[0.0; 3], &opts, &NoInterrupt).unwrap();
        assert!(r.converged);
        let mut g = vec![0.0; 3];
        ls.value_grad(&r.w, &mut g).unwrap();
        assert!(pen.subdiff_distance(&r.w, &g) < 1e-8);
    }

    #[test]
    fn nonneg_matches_plain_ista_and_warm_start() {
        let ls = problem();
        let pen = NonNegWeightedL1::new(vec![0.1, 0.2, 0.0]).unwrap();
        let tight = FistaOptions { tol: 1e-15, kkt_tol: 1e-11, max_iter: 200_000, ..Default::default() };
        let a = fista(&ls, &pen, &[0.0; 3], &tight, &NoInterrupt).unwrap();
        let plain = FistaOptions { accelerate: false, ..tight.clone() };
        let b = fista(&ls, &pen, &[0.0; 3], &plain, &NoInterrupt).unwrap();
        for j in 0..3 {
            assert!((a.w[j] - b.w[j]).abs() < 1e-7);
            assert!(a.w[j] >= 0.0);
        }
        assert!(a.converged && b.converged, "{} {} {} {}", a.n_iter, a.kkt, b.n_iter, b.kkt);
        let warm = FistaOptions { tol: 1e-12, kkt_tol: 1e-9, ..tight.clone() };
        let c = fista(&ls, &pen, &a.w, &warm, &NoInterrupt).unwrap();
        assert!(c.n_iter <= 5, "{} {}", c.n_iter, c.kkt);
        assert!(c.objective.last().unwrap() <= &(a.objective.last().unwrap() + 1e-12));
    }

    #[test]
    fn interrupt_stops() {
        let ls = problem();
        let pen = L1::new(0.3).unwrap();
        let stop = || true;
        let r = fista(&ls, &pen, &[0.0; 3], &FistaOptions::default(), &stop);
        assert!(matches!(r, Err(crate::Error::Interrupted)));
    }
}
