//! Building the dense matrix from parsed blocks, under the memory rule.

use rayon::prelude::*;

use super::line::{chunk_ranges, parse_chunk, Chunk, LocalError};
use super::mem::advise_huge;
use super::{Element, Letor, LetorOptions};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;

mod fast;

/// Accumulates parsed blocks into the dense matrix.
pub(super) struct Builder<'a, T> {
    opts: &'a LetorOptions,
    chunk_bytes: usize,
    /// Row-major rows of `stride` columns (`stride >= ` the columns seen so far).
    x: Vec<T>,
    stride: usize,
    y: Vec<f64>,
    qid: Vec<i64>,
    comments: Option<Vec<String>>,
    comment_bytes: u128,
    n_lines: usize,
    /// Largest feature index so far and its 1-based file line.
    max_index: usize,
    max_index_line: usize,
    /// Bytes of (decompressed) text read so far: the density rule's measure of the file.
    bytes_read: u128,
    /// The expected bytes of text (the file's size), to reserve the matrix once.
    pub(super) size_hint: Option<u64>,
    /// Tests: parse with the reference path only.
    pub(super) reference_only: bool,
}

/// The density rule: without `n_features`, a dense matrix above both this many bytes and
/// [`DENSITY_RATIO`] times the text read is refused as a likely typo in a feature index.
pub const DENSITY_MIN_BYTES: u128 = 1 << 30;
/// See [`DENSITY_MIN_BYTES`].
pub const DENSITY_RATIO: u128 = 64;

impl<'a, T: Element> Builder<'a, T> {
    pub(super) fn new(opts: &'a LetorOptions, chunk_bytes: usize) -> Self {
        Builder {
            opts,
            chunk_bytes,
            x: Vec::new(),
            stride: opts.n_features.unwrap_or(0),
            y: Vec::new(),
            qid: Vec::new(),
            comments: opts.comments.then(Vec::new),
            comment_bytes: 0,
            n_lines: 0,
            max_index: 0,
            max_index_line: 0,
            bytes_read: 0,
            size_hint: None,
            reference_only: false,
        }
    }

    /// Parses a block (whole lines) and appends its rows.
    pub(super) fn add_block(&mut self, block: &[u8], interrupt: &dyn Interrupt) -> Result<()> {
        interrupt.check()?;
        let owned = lone_cr_to_lf(block);
        let block = owned.as_deref().unwrap_or(block);
        let ranges = chunk_ranges(block, self.chunk_bytes);
        if !self.reference_only && self.add_block_dense(block, &ranges)? {
            return Ok(());
        }
        self.add_block_sparse(block, &ranges)
    }

    /// The reference path: chunks parsed into sparse rows, then scattered.
    fn add_block_sparse(&mut self, block: &[u8], ranges: &[(usize, usize)]) -> Result<()> {
        self.bytes_read += block.len() as u128;
        let (opts, narrow) = (self.opts, T::NARROW);
        let parsed: Vec<std::result::Result<Chunk, LocalError>> =
            ranges.par_iter().map(|&(a, b)| parse_chunk(&block[a..b], opts, narrow)).collect();
        let mut chunks = Vec::with_capacity(parsed.len());
        for r in parsed {
            match r {
                Ok(c) => {
                    if c.max_index > self.max_index {
                        self.max_index = c.max_index;
                        self.max_index_line = self.n_lines + c.max_index_line + 1;
                    }
                    self.n_lines += c.n_lines;
                    chunks.push(c);
                }
                Err(e) => return Err(Error::Parse { line: self.n_lines + e.line + 1, msg: e.msg }),
            }
        }
        let rows: usize = chunks.iter().map(|c| c.y.len()).sum();
        if rows == 0 {
            return Ok(());
        }
        self.comment_bytes += chunks.iter().map(|c| c.comment_bytes as u128).sum::<u128>();
        let m = self.y.len() + rows;
        let n = self.opts.n_features.unwrap_or(self.max_index);
        if n > self.stride {
            // Grow the row width geometrically after the first rows, so that indices that
            // keep growing through a file cost O(size) moves, not O(size x blocks).
            let wide = if self.y.is_empty() { n } else { n.max(self.stride + self.stride / 4) };
            let wide = if self.fits(m, wide) { wide } else { n };
            // The density rule first: a typo index is a ValueError naming its line, not a
            // MemoryError under a small memory limit.
            self.check_density(m, n)?;
            self.check(m, wide, false)?;
            self.widen(wide)?;
        } else {
            if !self.fits(m, self.stride) && n < self.stride {
                self.compact(n);
            }
            self.check(m, self.stride, false)?;
        }
        let stride = self.stride;
        let start = self.x.len();
        self.reserve_x(rows * stride, m)?;
        advise_huge(&self.x);
        self.x.resize(start + rows * stride, T::ZERO);
        let mut parts: Vec<&mut [T]> = Vec::with_capacity(chunks.len());
        let mut rest: &mut [T] = &mut self.x[start..];
        for c in &chunks {
            let (a, b) = rest.split_at_mut(c.y.len() * stride);
            parts.push(a);
            rest = b;
        }
        chunks.par_iter().zip(parts.into_par_iter()).for_each(|(c, out)| scatter(c, out, stride));
        self.reserve_rows(rows, m)?;
        for c in chunks {
            self.y.extend_from_slice(&c.y);
            self.qid.extend_from_slice(&c.qid);
            if let Some(cs) = self.comments.as_mut() {
                cs.extend(c.comments);
            }
        }
        Ok(())
    }

    /// The density rule (see [`DENSITY_MIN_BYTES`]): a ValueError naming the line of the
    /// largest index, the index and the remedy; never when `n_features` is given.
    fn check_density(&self, m: usize, n: usize) -> Result<()> {
        if self.opts.n_features.is_some() {
            return Ok(());
        }
        let dense = m as u128 * n as u128 * std::mem::size_of::<T>() as u128;
        if dense > DENSITY_MIN_BYTES && dense > DENSITY_RATIO * self.bytes_read.max(1) {
            return Err(Error::Parse {
                line: self.max_index_line,
                msg: format!(
                    "feature index {} makes the dense X at least {m} x {n} ({}), more than {DENSITY_RATIO} times \
                     the {} of text read so far: if the index is a typo, correct it; to load the file anyway \
                     (a sparse file), pass n_features={} or more",
                    self.max_index,
                    crate::error::fmt_bytes(dense),
                    crate::error::fmt_bytes(self.bytes_read),
                    self.max_index
                ),
            });
        }
        Ok(())
    }

    /// Bytes of the result with `m` rows of `stride` columns.
    fn bytes(&self, m: usize, stride: usize) -> u128 {
        let elt = std::mem::size_of::<T>() as u128;
        let per_row = 16 + if self.opts.comments { std::mem::size_of::<String>() as u128 } else { 0 };
        m as u128 * stride as u128 * elt + m as u128 * per_row + self.comment_bytes
    }

    fn max_memory(&self) -> u64 {
        self.opts.max_memory.unwrap_or(u64::MAX)
    }

    fn fits(&self, m: usize, stride: usize) -> bool {
        self.bytes(m, stride) <= self.max_memory() as u128
    }

    /// The memory rule for `m` rows of `stride` columns (`done`: the whole file is read).
    fn check(&self, m: usize, stride: usize, done: bool) -> Result<()> {
        if self.fits(m, stride) {
            return Ok(());
        }
        Err(self.memory_error(m, stride, done, ""))
    }

    fn memory_error(&self, m: usize, n: usize, done: bool, how: &str) -> Error {
        let (rows, upto) = if done {
            (format!("{m} rows"), String::new())
        } else {
            (format!("at least {m} rows"), format!("; file read up to line {}", self.n_lines))
        };
        let what = format!("the dense X of {rows} x {n} features ({}, with y and qid{upto})", T::NAME);
        let fix = match self.opts.n_features {
            Some(k) => format!("n_features={k} was given: pass a smaller one"),
            None => format!(
                "the largest feature index is {} (line {}): if it is a typo, correct it",
                self.max_index, self.max_index_line
            ),
        };
        let alt = if T::NARROW { "" } else { ", load with dtype=np.float32" };
        Error::Memory {
            what,
            bytes: self.bytes(m, n),
            max_memory: self.max_memory() as u128,
            remedy: format!(
                "{how}{fix}{alt}, load part of the file, or raise the limit with rankselect.set_config(max_memory=...)"
            ),
        }
    }

    fn alloc_error(&self, m: usize, n: usize) -> Error {
        self.memory_error(m, n, false, "the allocation failed (is the address space limited, e.g. by ulimit -v?); ")
    }

    fn reserve_x(&mut self, additional: usize, m: usize) -> Result<()> {
        if self.x.try_reserve(additional).is_err() && self.x.try_reserve_exact(additional).is_err() {
            return Err(self.alloc_error(m, self.stride));
        }
        Ok(())
    }

    fn reserve_rows(&mut self, rows: usize, m: usize) -> Result<()> {
        let ok = self.y.try_reserve(rows).is_ok()
            && self.qid.try_reserve(rows).is_ok()
            && self.comments.as_mut().is_none_or(|c| c.try_reserve(rows).is_ok());
        if !ok {
            return Err(self.alloc_error(m, self.stride));
        }
        Ok(())
    }

    /// Re-lays the rows read so far out with `wide >= stride` columns, in place.
    fn widen(&mut self, wide: usize) -> Result<()> {
        let (m, old) = (self.y.len(), self.stride);
        if m > 0 && wide > old {
            let total = m * wide;
            if self.x.try_reserve_exact(total - self.x.len()).is_err() {
                return Err(self.alloc_error(m, wide));
            }
            self.x.resize(total, T::ZERO);
            for i in (1..m).rev() {
                self.x.copy_within(i * old..(i + 1) * old, i * wide);
                self.x[i * wide + old..(i + 1) * wide].fill(T::ZERO);
            }
            self.x[old..wide].fill(T::ZERO);
        }
        self.stride = wide;
        Ok(())
    }

    /// Drops the spare columns: rows of `n <= stride` columns, in place.
    fn compact(&mut self, n: usize) {
        let (m, s) = (self.y.len(), self.stride);
        for i in 1..m {
            self.x.copy_within(i * s..i * s + n, i * n);
        }
        self.x.truncate(m * n);
        self.stride = n;
    }

    pub(super) fn finish(mut self) -> Result<Letor<T>> {
        let m = self.y.len();
        if m == 0 {
            return Err(Error::InvalidInput(format!(
                "empty file: no data rows (read {} line(s), all blank or comments)",
                self.n_lines
            )));
        }
        // scikit-learn gives one column when no row has a feature.
        let n = self.opts.n_features.unwrap_or(self.max_index.max(1));
        if n > self.stride {
            self.check_density(m, n)?;
            self.check(m, n, true)?;
            self.widen(n)?;
        } else if n < self.stride {
            self.compact(n);
        }
        self.x.shrink_to_fit();
        self.y.shrink_to_fit();
        self.qid.shrink_to_fit();
        Ok(Letor { x: self.x, y: self.y, qid: self.qid, n_features: n, comments: self.comments })
    }
}

/// Writes a chunk's sparse rows into its dense rows (`out` is zero, `stride` columns a row).
fn scatter<T: Element>(c: &Chunk, out: &mut [T], stride: usize) {
    let mut s = 0;
    for (row, &e) in out.chunks_exact_mut(stride.max(1)).zip(&c.row_end) {
        for (&j, &v) in c.idx[s..e].iter().zip(&c.val[s..e]) {
            // `+ 0.0` turns -0.0 into +0.0: an explicit zero reads like an absent one,
            // as in scikit-learn's sparse-then-dense result.
            row[j as usize - 1] = T::from_f64(v + 0.0);
        }
        s = e;
    }
}

/// `block` with every lone `\r` (one not followed by `\n`: classic Mac OS line ends) made a
/// `\n`, or `None` when it has none (no copy). Both parse paths then see one line end per
/// `\r`, `\n` or `\r\n`, and count lines the same way. A block ends at a `\n`, at a lone `\r`
/// ([`super::reader::BlockReader`]) or at the end of the file, so a `\r\n` is never split.
pub(super) fn lone_cr_to_lf(block: &[u8]) -> Option<Vec<u8>> {
    let lone = |i: usize| block.get(i + 1) != Some(&b'\n');
    let first = memchr::memchr_iter(b'\r', block).find(|&i| lone(i))?;
    let mut out = block.to_vec();
    for i in memchr::memchr_iter(b'\r', &block[first..]).map(|i| i + first) {
        if lone(i) {
            out[i] = b'\n';
        }
    }
    Some(out)
}
