//! Tests of the penalties ([`super`]): each prox against a brute-force minimisation,
//! the group penalties' block shrink, KKT residual and path start.
use super::*;

/// prox by brute force: minimise ½(u − w)² + step·Ω(u) over a fine grid.
fn brute(pen: &dyn Penalty, w: f64, step: f64) -> f64 {
    let mut best = (f64::INFINITY, 0.0);
    let mut u = -5.0;
    while u <= 5.0 {
        let v = 0.5 * (u - w) * (u - w) + step * pen.value(&[u]);
        if v < best.0 {
            best = (v, u);
        }
        u += 1e-4;
    }
    best.1
}

#[test]
fn proxes_match_brute_force() {
    let pens: Vec<Box<dyn Penalty>> = vec![
        Box::new(L1::new(0.7).unwrap()),
        Box::new(WeightedL1::new(vec![1.3]).unwrap()),
        Box::new(NonNegative),
        Box::new(NonNegWeightedL1::new(vec![0.4]).unwrap()),
    ];
    for pen in &pens {
        for &w in &[-2.1, -0.3, 0.0, 0.2, 1.7] {
            let mut u = [w];
            pen.prox(&mut u, 0.8);
            let b = brute(pen.as_ref(), w, 0.8);
            assert!((u[0] - b).abs() < 2e-4, "w={w}: {} vs {b}", u[0]);
        }
    }
}

#[test]
fn residual_zero_at_optimum() {
    // min ½(u − 2)² + |u| -> u = 1, grad = u − 2 = −1
    let pen = L1::new(1.0).unwrap();
    assert!(pen.subdiff_distance(&[1.0], &[-1.0]) < 1e-15);
    assert!(pen.subdiff_distance(&[0.0], &[-0.5]) == 0.0);
    assert!((pen.subdiff_distance(&[0.0], &[-1.5]) - 0.5).abs() < 1e-15);
    let nn = NonNegWeightedL1::new(vec![1.0, f64::INFINITY]).unwrap();
    assert_eq!(nn.subdiff_distance(&[0.0, 0.0], &[-0.5, -9.0]), 0.0);
    assert_eq!(nn.value(&[0.0, 0.0]), 0.0);
}
#[test]
fn group_lasso_prox_kkt_and_singletons() {
    // groups {0,1}, {2}: the block shrink by hand
    let pen = GroupLasso::new(&[0, 0, 1], 0.0).unwrap();
    let mut w = [3.0, 4.0, -0.5];
    pen.prox(&mut w, 1.0);
    let s = 2f64.sqrt();
    assert!((w[0] - 3.0 * (1.0 - s / 5.0)).abs() < 1e-15 && (w[1] - 4.0 * (1.0 - s / 5.0)).abs() < 1e-15);
    assert_eq!(w[2], 0.0);
    // groups of one: the group lasso is the L1 penalty (value, prox, residual, alpha_max)
    let single = GroupLasso::new(&[0, 1, 2], 0.0).unwrap();
    let l1 = WeightedL1::new(vec![1.0; 3]).unwrap();
    let (mut a, mut b) = ([1.5, -0.2, 0.7], [1.5, -0.2, 0.7]);
    single.prox(&mut a, 0.6);
    l1.prox(&mut b, 0.6);
    // the block shrink of a singleton, (1 - t/|w|) w, equals sign(w)(|w| - t) up to rounding
    assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= 1e-15), "{a:?} != {b:?}");
    let g = [-0.3, 2.0, 0.1];
    assert!((single.value(&a) - l1.value(&a)).abs() <= 1e-15);
    assert!((single.subdiff_distance(&a, &g) - l1.subdiff_distance(&a, &g)).abs() < 1e-15);
    assert_eq!(single.alpha_max(&g), l1.alpha_max(&g));
    // alpha_max: w = 0 is optimal exactly from there on
    let sgl = GroupLasso::new(&[0, 0, 1], 0.4).unwrap();
    let g = [1.0, -2.0, 0.5];
    let am = sgl.alpha_max(&g);
    let scaled = |a: f64| GroupLasso { l1: a * 0.4, group: a * 0.6, ..sgl.clone() };
    assert!(scaled(am * (1.0 + 1e-9)).subdiff_distance(&[0.0; 3], &g) < 1e-12);
    assert!(scaled(am * 0.99).subdiff_distance(&[0.0; 3], &g) > 0.0);
    assert!(!sgl.is_separable() && GroupLasso::new(&[1], 0.0).is_err());
    // a label at usize::MAX (a -1 cast to uintp) or far beyond the features is an error, not a
    // panic (label + 1 overflowed) nor a huge allocation
    assert!(GroupLasso::new(&[0, usize::MAX], 0.0).is_err());
    assert!(GroupLasso::new(&[0, 1 << 40], 0.0).is_err());
}

#[test]
fn a_spec_is_checked_then_dispatched() {
    // the parameters, without the data
    assert!(PenaltySpec::Log { epsilon: 0.0 }.validate().is_err());
    assert!(PenaltySpec::Lp { p: 1.0, epsilon: 0.1 }.validate().is_err());
    assert!(PenaltySpec::Mcp { gamma: f64::NAN }.validate().is_err());
    assert!(PenaltySpec::L1 { weights: Some(vec![1.0, -1.0]) }.validate().is_err());
    assert!(PenaltySpec::Group { labels: vec![0, 0, 1], l1_ratio: 1.5 }.validate().is_err());
    // a label beyond the features is refused before the member lists are allocated
    let huge = PenaltySpec::Group { labels: vec![0, usize::MAX], l1_ratio: 0.0 };
    assert!(huge.validate().unwrap_err().to_string().contains("beyond the 2 features"));
    // against the data, then the one dispatch
    assert!(PenaltySpec::L1 { weights: Some(vec![1.0; 2]) }.at(1.0, 3).is_err());
    assert!(PenaltySpec::Group { labels: vec![0, 1], l1_ratio: 0.0 }.at(1.0, 3).is_err());
    assert!(PenaltySpec::L1 { weights: None }.at(0.0, 3).is_err());
    let g = [0.5, -2.0, 1.0];
    let l1 = PenaltySpec::L1 { weights: None }.at(1.0, 3).unwrap();
    assert!(matches!(&l1, SparsePenalty::L1(pen) if pen.weights == vec![1.0; 3]));
    let mcp = PenaltySpec::Mcp { gamma: 2.0 }.at(4.0, 3).unwrap();
    let SparsePenalty::NonConvex(m) = &mcp else { panic!("{mcp:?}") };
    // MCP's strength is 1/C: g'(u) = 0 from u = gamma / C on
    assert!(m.derivative(0.5) == 0.0 && m.derivative(0.49) > 0.0);
    // a non-convex path starts where the plain L1 one does
    assert_eq!(mcp.alpha_max(&g), l1.alpha_max(&g));
    let group = PenaltySpec::Group { labels: vec![0, 0, 1], l1_ratio: 0.0 }.at(1.0, 3).unwrap();
    assert!((group.alpha_max(&g) - (0.25f64 + 4.0).sqrt() / 2f64.sqrt()).abs() < 1e-15);
}
