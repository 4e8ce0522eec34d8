//! The builder's fast path: a block scanned, its rows placed and sized, then parsed in place.

use rayon::prelude::*;

use super::super::dense::{parse_dense, scan_chunk, Fail, Rows, Scan};
use super::super::mem::advise_huge;
use super::super::Element;
use super::{Builder, DENSITY_MIN_BYTES, DENSITY_RATIO};
use crate::error::{Error, Result};

impl<T: Element> Builder<'_, T> {
    /// The fast path: scan the chunks, place and size their rows, parse them straight into
    /// the matrix. `Ok(false)` (nothing changed) when the block needs the reference path:
    /// a memory, density or allocation check that might fail (the reference path then gives
    /// the error it always gave, or the parse error that comes first), or a chunk that does
    /// not match its scan.
    pub(super) fn add_block_dense(&mut self, block: &[u8], ranges: &[(usize, usize)]) -> Result<bool> {
        let scans: Vec<Scan> = ranges.par_iter().map(|&(a, b)| scan_chunk(&block[a..b])).collect();
        let rows: usize = scans.iter().map(|s| s.n_rows).sum();
        let (mut max_index, mut max_index_line, mut n_lines) = (self.max_index, self.max_index_line, self.n_lines);
        for s in &scans {
            if s.max_index > max_index {
                max_index = s.max_index;
                max_index_line = n_lines + s.max_index_line + 1;
            }
            n_lines += s.n_lines;
        }
        let bytes_read = self.bytes_read + block.len() as u128;
        if rows == 0 {
            // Blank and comment lines only: nothing can fail.
            self.bytes_read = bytes_read;
            self.n_lines = n_lines;
            return Ok(true);
        }
        // The reference path's decisions, with at most 3 bytes of comment text per byte of
        // the block (lossy UTF-8), so that a check passing here passes there too.
        let extra = if self.opts.comments { 3 * block.len() as u128 } else { 0 };
        let fits = |m: usize, stride: usize| self.bytes(m, stride) + extra <= self.max_memory() as u128;
        let (m0, old_stride) = (self.y.len(), self.stride);
        let m = m0 + rows;
        let n = self.opts.n_features.unwrap_or(max_index);
        let wide = if n > old_stride {
            let wide = if m0 == 0 { n } else { n.max(old_stride + old_stride / 4) };
            let dense = m as u128 * n as u128 * std::mem::size_of::<T>() as u128;
            let density_fails = self.opts.n_features.is_none()
                && dense > DENSITY_MIN_BYTES
                && dense > DENSITY_RATIO * bytes_read.max(1);
            if !fits(m, wide) || density_fails {
                return Ok(false);
            }
            wide
        } else {
            if !fits(m, old_stride) {
                return Ok(false);
            }
            old_stride
        };
        if self.widen(wide).is_err() {
            return Ok(false);
        }
        let stride = self.stride;
        let undo = |b: &mut Self| {
            b.x.truncate(m0 * stride);
            b.y.truncate(m0);
            b.qid.truncate(m0);
            if stride > old_stride {
                b.compact(old_stride);
            }
        };
        if self.x.capacity() == 0 {
            // The first rows: reserve for the whole file as its size suggests.
            if let Some(hint) = self.size_hint {
                let est = (hint as f64 / block.len() as f64 * rows as f64 * 1.02) as usize + 16;
                let cap = (self.max_memory() / std::mem::size_of::<T>().max(1) as u64).min(usize::MAX as u64) as usize;
                let _ = self.x.try_reserve_exact(est.max(rows).saturating_mul(stride).min(cap));
            }
        }
        let need = rows * stride;
        if self.x.try_reserve(need).is_err() && self.x.try_reserve_exact(need).is_err() {
            undo(self);
            return Ok(false);
        }
        if self.y.try_reserve(rows).is_err()
            || self.qid.try_reserve(rows).is_err()
            || self.comments.as_mut().is_some_and(|c| c.try_reserve(rows).is_err())
        {
            undo(self);
            return Ok(false);
        }
        advise_huge(&self.x);
        self.y.resize(m, 0.0);
        self.qid.resize(m, 0);
        // Each chunk's rows.
        let mut parts = Vec::with_capacity(scans.len());
        {
            let mut xs = &mut self.x.spare_capacity_mut()[..need];
            let mut ys = &mut self.y[m0..];
            let mut qs = &mut self.qid[m0..];
            for s in &scans {
                let (a, b) = std::mem::take(&mut xs).split_at_mut(s.n_rows * stride);
                let (c, d) = std::mem::take(&mut ys).split_at_mut(s.n_rows);
                let (e, f) = std::mem::take(&mut qs).split_at_mut(s.n_rows);
                parts.push(Rows { x: a, y: c, qid: e, stride });
                (xs, ys, qs) = (b, d, f);
            }
        }
        let opts = self.opts;
        let parsed: Vec<std::result::Result<(usize, Vec<String>), Fail>> = ranges
            .par_iter()
            .zip(parts.into_par_iter())
            .map(|(&(a, b), out)| {
                let mut cs = Vec::new();
                parse_dense(&block[a..b], out, opts, &mut cs).map(|k| (k, cs))
            })
            .collect();
        let mut lines = self.n_lines;
        let mut done = Vec::with_capacity(parsed.len());
        for (r, s) in parsed.into_iter().zip(&scans) {
            match r {
                Ok(c) => done.push(c),
                Err(Fail::Line(e)) => {
                    undo(self);
                    return Err(Error::Parse { line: lines + e.line + 1, msg: e.msg });
                }
                Err(Fail::Mismatch) => {
                    undo(self);
                    return Ok(false);
                }
            }
            lines += s.n_lines;
        }
        // SAFETY: every chunk wrote all of its rows (`parse_dense` returned `Ok`), and the
        // chunks' rows tile `need` elements of the spare capacity reserved above.
        unsafe { self.x.set_len(m0 * stride + need) };
        for (k, cs) in done {
            self.comment_bytes += k as u128;
            if let Some(all) = self.comments.as_mut() {
                all.extend(cs);
            }
        }
        self.bytes_read = bytes_read;
        self.n_lines = n_lines;
        self.max_index = max_index;
        self.max_index_line = max_index_line;
        Ok(true)
    }
}
