//! `M = Xc^T G Xc` and the Gram matrix `Xc^T Xc` as a greedy run keeps them (module docs of
//! [`super`], "Wide data"): in full (n x n, [`MStore::Full`]) when `n <= m`, or, for wide
//! data (`n > m`), only the entries a run reads between steps ([`MStore::Blocks`]):
//!
//! ```text
//! M_gg      the unit-diagonal blocks (M_ii for a feature; a unit's block scan, its removal pivot)
//! M_b:      = Xc^T C_b, computed when b enters or leaves (O(m n), the pass's order)
//! Gram_ij   = x_i^T x_j from the centred columns (the path's Gram[S, b], M_gg's reset)
//! ```
//!
//! `M_b:` is then `Xc^T (G x_b)`, the definition, instead of a row of the n x n matrix updated
//! by differences; every update of the blocks is the full matrix's update restricted to them
//! (`M'_gg = M_gg - c M_gb M_bg`). Memory: `Xc` (m x n) and `sum_g b_g^2` instead of `2 n^2`.

use faer::Mat;
use rayon::prelude::*;

use super::units::Units;
use crate::alloc;
use crate::error::Result;
use crate::linalg::dot4;

/// `M` and the Gram matrix, in full or by unit blocks (module docs).
pub(crate) enum MStore {
    /// `n <= m`: `Xc^T Xc` and `M` in full.
    Full { gram: Mat<f64>, mm: Mat<f64> },
    /// `n > m`: the unit-diagonal blocks of `M` and the centred data.
    Blocks(Blocks),
}

/// The wide store: `Xc` column-major, the block of every column, the blocks of `M`, and the
/// Gram diagonal.
pub(crate) struct Blocks {
    m: usize,
    xc: Vec<f64>,
    /// Block of every column and its position in it.
    block: Vec<usize>,
    pos: Vec<usize>,
    /// Block `g` holds `cols[start[g]..start[g + 1]]`, its entries at `at[g]..` (row-major).
    start: Vec<usize>,
    cols: Vec<usize>,
    at: Vec<usize>,
    mm: Vec<f64>,
    gdiag: Vec<f64>,
}

/// Bytes of the wide store for `m` rows, `n` columns and blocks of sizes `b_g`
/// (`sum_b2 = sum_g b_g^2`): `Xc`, the blocks of `M`, the Gram diagonal and four index
/// vectors.
pub(crate) fn blocks_bytes(m: usize, n: usize, sum_b2: usize) -> u128 {
    8 * ((m as u128) * (n as u128) + sum_b2 as u128 + 6 * n as u128)
}

/// The blocks of a wide run over `units` on `n` columns: one per unit, and one per column
/// that is in no unit (its diagonal is still read). Returns `(start, cols)`.
pub(crate) fn unit_blocks(units: &Units, n: usize) -> Result<(Vec<usize>, Vec<usize>)> {
    let mut start = vec![0];
    let mut cols = Vec::with_capacity(n);
    let mut seen = alloc::try_filled(n, false, "the columns in a unit")?;
    for u in 0..units.len() {
        for &j in units.members(u) {
            cols.push(j);
            seen[j] = true;
        }
        start.push(cols.len());
    }
    for j in (0..n).filter(|&j| !seen[j]) {
        cols.push(j);
        start.push(cols.len());
    }
    Ok((start, cols))
}

/// `sum_g b_g^2` of the blocks of [`unit_blocks`].
pub(crate) fn sum_b2(units: &Units) -> usize {
    let in_units: usize = (0..units.len()).map(|u| units.members(u).len()).sum();
    (0..units.len()).map(|u| units.members(u).len().pow(2)).sum::<usize>() + (units.n_columns() - in_units)
}

impl Blocks {
    /// The wide store from the centred columns `xc` (column-major, m x n) and `alpha`.
    pub(crate) fn new(xc: Vec<f64>, m: usize, units: &Units, alpha: f64) -> Result<Self> {
        let n = units.n_columns();
        let (start, cols) = unit_blocks(units, n)?;
        let nb = start.len() - 1;
        let mut block = alloc::try_filled(n, 0, "the wide store's block of every column")?;
        let mut pos = alloc::try_filled(n, 0, "the wide store's block positions")?;
        let mut at = alloc::try_filled(nb + 1, 0, "the wide store's block offsets")?;
        for g in 0..nb {
            let b = start[g + 1] - start[g];
            at[g + 1] = at[g] + b * b;
            for (p, &j) in cols[start[g]..start[g + 1]].iter().enumerate() {
                block[j] = g;
                pos[j] = p;
            }
        }
        let mm = alloc::try_zeroed_vec(at[nb], "the unit-diagonal blocks of M")?;
        let gdiag = alloc::try_zeroed_vec(n, "the Gram diagonal")?;
        let mut s = Blocks { m, xc, block, pos, start, cols, at, mm, gdiag };
        s.reset(alpha);
        Ok(s)
    }

    /// Centred column `i`.
    pub(crate) fn xc(&self, i: usize) -> &[f64] {
        &self.xc[i * self.m..(i + 1) * self.m]
    }

    /// `Gram_ij = x_i^T x_j` (centred columns; the one dot of every Gram entry of the store).
    pub(crate) fn gram(&self, i: usize, j: usize) -> f64 {
        dot4(self.xc(i), self.xc(j))
    }

    /// `M` and the Gram diagonal of `S = {}`: `M_gg = Xc_g^T Xc_g / alpha` (exactly symmetric).
    fn reset(&mut self, alpha: f64) {
        let inv = 1.0 / alpha;
        for g in 0..self.start.len() - 1 {
            let (s0, b, at) = (self.start[g], self.start[g + 1] - self.start[g], self.at[g]);
            for s in 0..b {
                for t in s..b {
                    let v = self.gram(self.cols[s0 + s], self.cols[s0 + t]);
                    self.mm[at + s * b + t] = v * inv;
                    self.mm[at + t * b + s] = v * inv;
                    if s == t {
                        self.gdiag[self.cols[s0 + s]] = v;
                    }
                }
            }
        }
    }
}

impl MStore {
    /// `M_ij` (wide: `i` and `j` in one block).
    pub(crate) fn m(&self, i: usize, j: usize) -> f64 {
        match self {
            MStore::Full { mm, .. } => mm[(i, j)],
            MStore::Blocks(s) => {
                let g = s.block[i];
                debug_assert_eq!(g, s.block[j], "a wide store keeps the unit-diagonal blocks of M");
                let b = s.start[g + 1] - s.start[g];
                s.mm[s.at[g] + s.pos[i] * b + s.pos[j]]
            }
        }
    }

    /// `Gram_ii = ||x_i||^2` (centred).
    pub(crate) fn gram_diag(&self, i: usize) -> f64 {
        match self {
            MStore::Full { gram, .. } => gram[(i, i)],
            MStore::Blocks(s) => s.gdiag[i],
        }
    }

    /// `Gram_ij` (the path's `Gram[S, b]`).
    pub(crate) fn gram(&self, i: usize, j: usize) -> f64 {
        match self {
            MStore::Full { gram, .. } => gram[(i, j)],
            MStore::Blocks(s) => s.gram(i, j),
        }
    }

    /// Row `b` of `M` for the step of `b`, whose `C_b` is `ub` (rows in order): read in full,
    /// or `Xc^T C_b` for the wide store (parallel over columns, each a fixed dot).
    pub(crate) fn row(&self, b: usize, ub: &[f64]) -> Vec<f64> {
        match self {
            MStore::Full { mm, .. } => (0..mm.ncols()).map(|i| mm[(b, i)]).collect(),
            MStore::Blocks(s) => {
                (0..s.block.len()).into_par_iter().with_min_len(256).map(|i| dot4(s.xc(i), ub)).collect()
            }
        }
    }

    /// `M' = M - c M_:b M_b:` from `mb = M_b:` (wide: the blocks only).
    pub(crate) fn rank_one(&mut self, mb: &[f64], c: f64) {
        match self {
            MStore::Full { mm, .. } => {
                let n = mb.len();
                for j in 0..n {
                    for i in 0..n {
                        mm[(i, j)] -= c * mb[i] * mb[j];
                    }
                }
            }
            MStore::Blocks(s) => {
                for g in 0..s.start.len() - 1 {
                    let cols = &s.cols[s.start[g]..s.start[g + 1]];
                    let b = cols.len();
                    for (p, &i) in cols.iter().enumerate() {
                        for (t, &j) in cols.iter().enumerate() {
                            s.mm[s.at[g] + p * b + t] -= c * mb[i] * mb[j];
                        }
                    }
                }
            }
        }
    }

    /// Back to `S = {}`: `M = Xc^T Xc / alpha` (same bits as at the start).
    pub(crate) fn reset(&mut self, alpha: f64) {
        let inv = 1.0 / alpha;
        match self {
            MStore::Full { gram, mm } => {
                let n = gram.ncols();
                for j in 0..n {
                    for i in 0..n {
                        mm[(i, j)] = gram[(i, j)] * inv;
                    }
                }
            }
            MStore::Blocks(s) => s.reset(alpha),
        }
    }
}

impl super::path::Gram for MStore {
    fn entry(&self, i: usize, j: usize) -> f64 {
        self.gram(i, j)
    }
}
