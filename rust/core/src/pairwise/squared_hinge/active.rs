//! The active-set structure of one query at fixed scores and the two Fenwick-tree sweeps
//! that give every per-row sum over active pairs in O(log levels) (module docs of
//! [`super`]).

/// Fenwick tree over relevance levels holding (count, sum, sum of squares).
struct Fenwick {
    cnt: Vec<f64>,
    s1: Vec<f64>,
    s2: Vec<f64>,
}

impl Fenwick {
    fn new(n: usize) -> Self {
        Fenwick { cnt: vec![0.0; n + 1], s1: vec![0.0; n + 1], s2: vec![0.0; n + 1] }
    }

    #[inline]
    fn add(&mut self, level: usize, v: f64) {
        let mut k = level + 1;
        while k < self.cnt.len() {
            self.cnt[k] += 1.0;
            self.s1[k] += v;
            self.s2[k] += v * v;
            k += k & k.wrapping_neg();
        }
    }

    /// Sums over levels `< level`.
    #[inline]
    fn prefix(&self, level: usize) -> (f64, f64, f64) {
        let (mut c, mut a, mut b) = (0.0, 0.0, 0.0);
        let mut k = level;
        while k > 0 {
            c += self.cnt[k];
            a += self.s1[k];
            b += self.s2[k];
            k &= k - 1;
        }
        (c, a, b)
    }
}

/// Active-set structure of one query at fixed scores: `desc` lists the local rows by
/// decreasing score (ties by row); for the preferred row `desc[t]`, its candidate partners
/// are `desc[..hi[t]]`; for the less relevant row `asc[t] = desc[n-1-t]`, its candidate
/// partners are `asc[..lo[t]]`. Candidates with the right relevance are exactly the active ones.
#[inline(always)]
pub(super) fn build_active(s: &[f64], desc: &mut [u32], hi: &mut [u32], lo: &mut [u32]) {
    let n = s.len();
    for (k, d) in desc.iter_mut().enumerate() {
        *d = k as u32;
    }
    desc.sort_by(|&a, &b| s[b as usize].total_cmp(&s[a as usize]).then(a.cmp(&b)));
    let mut p = 0usize;
    for t in 0..n {
        let si = s[desc[t] as usize];
        while p < n && si - s[desc[p] as usize] < 1.0 {
            p += 1;
        }
        hi[t] = p as u32;
    }
    p = 0;
    for t in 0..n {
        let sk = s[desc[n - 1 - t] as usize];
        while p < n && s[desc[n - 1 - p] as usize] - sk < 1.0 {
            p += 1;
        }
        lo[t] = p as u32;
    }
}

/// The two sweeps over one query. `level[k]` in `0..n_levels`, `vals[k]` is accumulated.
/// `upper(k, cnt, sum, sumsq)` receives the sums over the active partners below row `k`,
/// `lower(k, cnt, sum, sumsq)` those over the active partners above it.
// The cached active-set arrays of one query, its values and the two callbacks.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn sweep(
    desc: &[u32],
    hi: &[u32],
    lo: &[u32],
    level: &[u32],
    n_levels: usize,
    vals: &[f64],
    mut upper: impl FnMut(usize, f64, f64, f64),
    lower: Option<&mut dyn FnMut(usize, f64, f64, f64)>,
) {
    let n = desc.len();
    if n_levels < 2 {
        return;
    }
    let mut fw = Fenwick::new(n_levels);
    let mut p = 0usize;
    for t in 0..n {
        while p < hi[t] as usize {
            let r = desc[p] as usize;
            fw.add(level[r] as usize, vals[r]);
            p += 1;
        }
        let k = desc[t] as usize;
        let (c, a, b) = fw.prefix(level[k] as usize);
        if c > 0.0 {
            upper(k, c, a, b);
        }
    }
    if let Some(lower) = lower {
        // Reversed levels: the partners above row k are levels > level[k].
        let top = n_levels - 1;
        let mut fw = Fenwick::new(n_levels);
        let mut p = 0usize;
        for t in 0..n {
            while p < lo[t] as usize {
                let r = desc[n - 1 - p] as usize;
                fw.add(top - level[r] as usize, vals[r]);
                p += 1;
            }
            let k = desc[n - 1 - t] as usize;
            let (c, a, b) = fw.prefix(top - level[k] as usize);
            if c > 0.0 {
                lower(k, c, a, b);
            }
        }
    }
}
