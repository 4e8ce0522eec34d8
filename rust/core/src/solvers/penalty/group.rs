use super::{l1_residual, soft_threshold, Penalty};
use crate::error::Result;
use crate::invalid;

/// `Σ_g (a‖w_g‖₁ + b√|g| ‖w_g‖₂)` over disjoint groups given as a label per feature
/// (`0..n_groups`): the group lasso (`a = 0`, `b = 1`) and the sparse-group lasso
/// (`a = ρ`, `b = 1 − ρ`, Simon et al. 2013 eq. (1)).
#[derive(Clone, Debug)]
pub struct GroupLasso {
    /// The members of each group.
    pub members: Vec<Vec<usize>>,
    /// Weight of the L1 part (`a`).
    pub l1: f64,
    /// Weight of the group part (`b`, times `√|g|` per group).
    pub group: f64,
}

impl GroupLasso {
    /// From a group label per feature (`0..n_groups`, every label used) and `ρ = l1_ratio`
    /// (`0`: the group lasso).
    pub fn new(labels: &[usize], l1_ratio: f64) -> Result<Self> {
        if !(l1_ratio.is_finite() && (0.0..=1.0).contains(&l1_ratio)) {
            return invalid!("l1_ratio must be in [0, 1], got {l1_ratio}");
        }
        let top = labels.iter().copied().max();
        if let Some(g) = top.filter(|&g| g >= labels.len()) {
            // some label is unused (checked before the member lists are allocated)
            return invalid!(
                "groups: label {g} is beyond the {} features (labels must be 0..n_groups, each used)",
                labels.len()
            );
        }
        let n_groups = top.map_or(0, |g| g + 1);
        let mut members = vec![Vec::new(); n_groups];
        for (j, &g) in labels.iter().enumerate() {
            members[g].push(j);
        }
        if let Some(g) = members.iter().position(|m| m.is_empty()) {
            return invalid!("groups: label {g} has no feature (labels must be 0..n_groups, each used)");
        }
        Ok(Self { members, l1: l1_ratio, group: 1.0 - l1_ratio })
    }

    fn weight(&self, g: usize) -> f64 {
        self.group * (self.members[g].len() as f64).sqrt()
    }

    /// `‖S(v, a)‖₂` with `S` soft thresholding: the norm of the part of `−∇_g f` the L1 term
    /// cannot absorb at `w_g = 0`.
    fn soft_norm(&self, g: usize, v: &[f64], a: f64) -> f64 {
        self.members[g].iter().map(|&j| (v[j].abs() - a).max(0.0).powi(2)).sum::<f64>().sqrt()
    }

    /// `α_max` at `g = ∇f(0)`: the smallest `α` with `w = 0` optimal for `f + α·Ω`, i.e.
    /// `‖S(g_g, α·a)‖ ≤ α·b√|g|` for every group (group lasso: `max_g ‖g_g‖ / √|g|`; with
    /// an L1 part the condition is monotone in `α` and is solved by bisection per group).
    pub fn alpha_max(&self, grad0: &[f64]) -> f64 {
        (0..self.members.len())
            .map(|g| {
                let gn = self.soft_norm(g, grad0, 0.0);
                if gn == 0.0 {
                    return 0.0;
                }
                let b = self.weight(g);
                if self.l1 == 0.0 {
                    return gn / b;
                }
                let top = self.members[g].iter().map(|&j| grad0[j].abs()).fold(0.0, f64::max);
                if b == 0.0 {
                    return top / self.l1; // pure L1
                }
                let (mut lo, mut hi) = (0.0, (gn / b).min(top / self.l1));
                for _ in 0..200 {
                    let mid = 0.5 * (lo + hi);
                    if self.soft_norm(g, grad0, mid * self.l1) <= mid * b {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                hi
            })
            .fold(0.0, f64::max)
    }
}

impl Penalty for GroupLasso {
    fn is_separable(&self) -> bool {
        false
    }
    /// The term of coordinate `j` with the rest of its group at 0 (exact for groups of one).
    fn value_coord(&self, j: usize, x: f64) -> f64 {
        let g = self.members.iter().position(|m| m.contains(&j)).unwrap_or(0);
        (self.l1 + self.weight(g)) * x.abs()
    }
    fn value(&self, w: &[f64]) -> f64 {
        (0..self.members.len())
            .map(|g| {
                let m = &self.members[g];
                let l1: f64 = m.iter().map(|&j| w[j].abs()).sum();
                let l2 = m.iter().map(|&j| w[j] * w[j]).sum::<f64>().sqrt();
                self.l1 * l1 + self.weight(g) * l2
            })
            .sum()
    }
    fn derivative_coord(&self, j: usize, x: f64) -> f64 {
        self.value_coord(j, 1.0) * x.signum()
    }
    fn prox_coord(&self, j: usize, x: f64, step: f64) -> f64 {
        soft_threshold(x, step * self.value_coord(j, 1.0))
    }
    fn coord_residual(&self, j: usize, w: f64, g: f64) -> f64 {
        l1_residual(w, g, self.value_coord(j, 1.0))
    }
    /// Soft thresholding by `step·a`, then per group `w_g ← max(0, 1 − step·b√|g|/‖w_g‖) w_g`.
    fn prox(&self, w: &mut [f64], step: f64) {
        for g in 0..self.members.len() {
            let m = &self.members[g];
            for &j in m {
                w[j] = soft_threshold(w[j], step * self.l1);
            }
            let norm = m.iter().map(|&j| w[j] * w[j]).sum::<f64>().sqrt();
            let t = step * self.weight(g);
            let shrink = if norm > t { 1.0 - t / norm } else { 0.0 };
            for &j in m {
                w[j] *= shrink;
            }
        }
    }
    /// `max_g dist(−∇_g f, ∂Ω_g(w_g))`: at `w_g = 0`, `max(0, ‖S(∇_g f, a)‖ − b√|g|)`; else
    /// the norm of `∇_j f + a·sign(w_j) + b√|g| w_j/‖w_g‖` over the non-zero `j` and
    /// `max(0, |∇_j f| − a)` over the zero ones.
    fn subdiff_distance(&self, w: &[f64], grad: &[f64]) -> f64 {
        (0..self.members.len())
            .map(|g| {
                let m = &self.members[g];
                let norm = m.iter().map(|&j| w[j] * w[j]).sum::<f64>().sqrt();
                let b = self.weight(g);
                if norm == 0.0 {
                    return (self.soft_norm(g, grad, self.l1) - b).max(0.0);
                }
                m.iter()
                    .map(|&j| {
                        let r = if w[j] == 0.0 {
                            (grad[j].abs() - self.l1).max(0.0)
                        } else {
                            grad[j] + self.l1 * w[j].signum() + b * w[j] / norm
                        };
                        r * r
                    })
                    .sum::<f64>()
                    .sqrt()
            })
            .fold(0.0, f64::max)
    }
}
