//! The exact criterion against the brute-force LQO of `crate::testing` (normal equations, at
//! moderate alpha where they are accurate) and on the cases that break the shortcut.

use super::exact::{ExactLqo, ExactScratch};
use super::*;
use crate::testing::{naive_lqo, problem};

#[test]
fn exact_matches_brute_force() {
    for seed in 1..6u64 {
        let (x, y, off) = problem(seed, &[5, 1, 7, 3, 4, 6, 2], 6);
        let ex = ExactLqo::new(x.view(), &y, &off, 0.5, &Squared).unwrap();
        let mut sc = ExactScratch::default();
        for cols in [vec![], vec![2], vec![0, 3], vec![5, 1, 4], vec![0, 1, 2, 3, 4, 5]] {
            let v = ex.value(&cols, &mut sc).unwrap();
            let (e, _) = naive_lqo(&x, &y, &off, &cols, 0.5);
            assert!((v - e).abs() <= 1e-12 * e.abs(), "{cols:?}: {v} vs {e}");
        }
    }
}
