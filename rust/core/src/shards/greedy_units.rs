//! Units of several columns (feature groups) over query shards: the two rounds of a unit's
//! block scan (module docs of `selection::greedy_rls::block`), answered by each shard for its
//! rows. Adding a unit is its columns' rank-one rounds one after the other
//! ([`super::greedy_shard`]), the same update as in memory.

use rayon::prelude::*;

use super::greedy_shard::GreedyShard;
use crate::error::Result;
use crate::invalid;
use crate::linalg::dot4;
use crate::selection::greedy_rls::{query_block, BlockScratch, Criterion};

impl GreedyShard {
    /// The units `(offsets, columns)` (unit `u` = `columns[offsets[u]..offsets[u + 1]]`),
    /// checked against this shard's features.
    fn unit_list<'a>(&self, offsets: &'a [usize], columns: &'a [usize]) -> Result<Vec<&'a [usize]>> {
        if offsets.first() != Some(&0)
            || offsets.last() != Some(&columns.len())
            || offsets.windows(2).any(|w| w[1] < w[0])
        {
            return invalid!("unit offsets must start at 0, be non-decreasing and end at len(columns)");
        }
        if let Some(&j) = columns.iter().find(|&&j| j >= self.n) {
            return invalid!("unit column {j} out of range for {} features", self.n);
        }
        Ok(offsets.windows(2).map(|w| &columns[w[0]..w[1]]).collect())
    }

    /// This shard's `Xc_g^T C_g` (b x b, row-major) of every unit `g`, concatenated: summed
    /// over the shards, the block `M_gg` of the unit's `K = I + M_gg`.
    pub fn unit_dots(&self, offsets: &[usize], columns: &[usize]) -> Result<Vec<f64>> {
        let units = self.unit_list(offsets, columns)?;
        Ok(units
            .par_iter()
            .map(|g| {
                let mut out = Vec::with_capacity(g.len() * g.len());
                for &j in g.iter() {
                    out.extend(g.iter().map(|&l| dot4(self.col(&self.xt, j), self.col(&self.c, l))));
                }
                out
            })
            .collect::<Vec<_>>()
            .concat())
    }

    /// This shard's part of the criterion after adding each unit, given the global `K`
    /// (b x b row-major per unit, concatenated) and `h = K^-1 r_g` (b per unit, concatenated):
    /// the sum over its queries of the criterion's term of `p'_q` (the block scan).
    pub fn scan_units(
        &self,
        offsets: &[usize],
        columns: &[usize],
        k: &[f64],
        h: &[f64],
        criterion: &dyn Criterion,
    ) -> Result<Vec<f64>> {
        let units = self.unit_list(offsets, columns)?;
        let (kn, hn): (usize, usize) = (units.iter().map(|g| g.len() * g.len()).sum(), columns.len());
        if k.len() != kn || h.len() != hn {
            return invalid!("the units' K and h have {} and {} entries, expected {kn} and {hn}", k.len(), h.len());
        }
        let mut starts = Vec::with_capacity(units.len());
        let (mut ko, mut ho) = (0, 0);
        for g in &units {
            starts.push((ko, ho));
            ko += g.len() * g.len();
            ho += g.len();
        }
        Ok(units
            .par_iter()
            .zip(starts)
            .map_init(BlockScratch::default, |sc, (g, (ko, ho))| {
                let b = g.len();
                let (kg, hg) = (&k[ko..ko + b * b], &h[ho..ho + b]);
                let mut total = 0.0;
                for w in self.offsets.windows(2) {
                    let (s, e) = (w[0], w[1]);
                    let cg = |j: usize| &self.col(&self.c, g[j])[s..e];
                    let zg = |j: usize| &self.col(&self.u, g[j])[s..e];
                    query_block(b, cg, zg, &self.p[s..e], kg, hg, 1.0, None, sc);
                    total += criterion.query_term(&sc.pn, 0.0, &sc.pn, &self.yc[s..e], &self.y[s..e], &mut sc.crit);
                }
                total
            })
            .collect())
    }
}
