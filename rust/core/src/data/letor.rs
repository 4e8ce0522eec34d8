//! LETOR / SVMlight ranking files: `<label> qid:<int> <i>:<v> <i>:<v> ... [# comment]`.
//!
//! One document per line; feature indices are 1-based and strictly ascending; absent
//! features are 0. Reading streams: a reader thread reads the file (or pipe) in blocks of
//! [`BLOCK_BYTES`] cut at newlines, decompressing gzip on the fly when the data starts with
//! the gzip magic bytes; each block is cut into chunks that are parsed in parallel (rayon)
//! into sparse rows, which are scattered at once into the dense row-major matrix. Memory is
//! therefore the result plus a few blocks, whatever the file's size or compression ratio,
//! and no memory mapping is used (a file truncated while it is read cannot crash the
//! process). Floats are correctly rounded (Clinger's exact fast path for short decimals,
//! `fast-float2` for everything else), so values are bit-identical to Python's `float()`
//! and hence to scikit-learn's `load_svmlight_file(path, query_id=True)`.
//!
//! Line handling follows scikit-learn: everything from the first `#` of a line is a comment;
//! lines that hold nothing else are skipped; tokens are separated by ASCII whitespace
//! (`' ' \t \r \v \f`), so CRLF files parse like LF files. Unlike scikit-learn, the `qid:`
//! token is required, feature index 0 is rejected (LETOR is 1-based), indices above
//! [`MAX_INDEX`] are rejected (scikit-learn overflows on them) and NaN / infinite values are
//! rejected unless `allow_nonfinite` is set. Like scikit-learn, a file whose rows have no
//! feature at all gives one (zero) column. Error line numbers are 1-based file lines (blank
//! and comment lines count), whatever the chunking.
//!
//! Memory rule: before the dense matrix grows, its size (with `y`, `qid` and the comments)
//! is compared with `max_memory`; a file whose largest feature index makes the matrix too
//! large is refused with [`Error::Memory`] naming the sizes, the index and its line, as soon
//! as the first rows show it (the whole file is not read first).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use memchr::{memchr, memchr2, memrchr};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::interrupt::Interrupt;

/// Parser options.
#[derive(Clone, Debug, Default)]
pub struct LetorOptions {
    /// Number of columns of `x`; `None` = the largest feature index in the file (1 when no
    /// row has a feature). An index above a given `n_features` is an error.
    pub n_features: Option<usize>,
    /// Keep the text after `#` of each data row (trimmed; empty when absent).
    pub comments: bool,
    /// Accept NaN and infinite labels and values.
    pub allow_nonfinite: bool,
    /// Memory rule: the most bytes the result (dense `x`, `y`, `qid`, comments) and the
    /// longest line may take; `None` = no limit.
    pub max_memory: Option<u64>,
}

/// A parsed ranking file, rows in file order.
#[derive(Clone, Debug, PartialEq)]
pub struct Letor<T> {
    /// Dense row-major features, `n_rows() x n_features`.
    pub x: Vec<T>,
    /// Label of each row.
    pub y: Vec<f64>,
    /// Query id of each row.
    pub qid: Vec<i64>,
    pub n_features: usize,
    /// Trailing comment of each row, when asked for.
    pub comments: Option<Vec<String>>,
}

impl<T> Letor<T> {
    pub fn n_rows(&self) -> usize {
        self.y.len()
    }
}

/// Element type of the dense matrix. Values are always parsed as `f64`; `f32` is the
/// round-to-nearest cast of that value (what NumPy's `astype(np.float32)` and
/// scikit-learn's `dtype=np.float32` give).
pub trait Element: Copy + Send + Sync + 'static {
    const ZERO: Self;
    /// True for `f32`: finite values beyond the `f32` range are rejected (as non-finite).
    const NARROW: bool;
    /// NumPy's name of the type, for messages.
    const NAME: &'static str;
    fn from_f64(v: f64) -> Self;
}

impl Element for f64 {
    const ZERO: Self = 0.0;
    const NARROW: bool = false;
    const NAME: &'static str = "float64";
    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl Element for f32 {
    const ZERO: Self = 0.0;
    const NARROW: bool = true;
    const NAME: &'static str = "float32";
    #[inline]
    fn from_f64(v: f64) -> Self {
        // `+ 0.0` after the cast: a value that underflows to -0.0 in f32 is stored as +0.0,
        // as scikit-learn's loader gives it (found by tests/test_letor_fuzz.py).
        (v as f32) + 0.0
    }
}

/// The largest feature index accepted: `i32::MAX`, the largest scikit-learn reads (its
/// parser stores indices in a C `int`) and the largest a SciPy sparse matrix with 32-bit
/// indices can hold.
pub const MAX_INDEX: u64 = i32::MAX as u64;
/// Bytes read per block (a block ends at a newline unless a line is longer).
pub const BLOCK_BYTES: usize = 16 << 20;
/// Target size of a parse chunk in bytes (a chunk always ends at a newline); a block holds
/// about 128 chunks, so that up to 32 threads share a block evenly.
const CHUNK_BYTES: usize = 128 << 10;
/// How often the main thread checks for Ctrl-C while it waits for the reader.
const POLL: Duration = Duration::from_millis(50);

/// Sparse rows of one chunk.
#[derive(Default)]
struct Chunk {
    /// Lines in the chunk (data, blank and comment lines).
    n_lines: usize,
    y: Vec<f64>,
    qid: Vec<i64>,
    /// End of each row in `idx` / `val`.
    row_end: Vec<usize>,
    /// 1-based feature indices.
    idx: Vec<u32>,
    val: Vec<f64>,
    comments: Vec<String>,
    comment_bytes: usize,
    /// Largest feature index, and the 0-based chunk line where it first occurs.
    max_index: usize,
    max_index_line: usize,
}

/// An error at a 0-based line of a chunk.
struct LocalError {
    line: usize,
    msg: String,
}

/// Parses an in-memory LETOR file (plain text).
pub fn parse_letor<T: Element>(buf: &[u8], opts: &LetorOptions, interrupt: &dyn Interrupt) -> Result<Letor<T>> {
    parse_blocks(buf, opts, interrupt, BLOCK_BYTES, CHUNK_BYTES)
}

fn parse_blocks<T: Element>(
    buf: &[u8],
    opts: &LetorOptions,
    interrupt: &dyn Interrupt,
    block: usize,
    chunk: usize,
) -> Result<Letor<T>> {
    let mut b = Builder::<T>::new(opts, chunk);
    for (s, e) in chunk_ranges(buf, block) {
        b.add_block(&buf[s..e], interrupt)?;
    }
    interrupt.check()?;
    b.finish()
}

/// Reads and parses a LETOR file, pipe or device (`/dev/stdin`, `/dev/fd/N`); gzip data
/// (recognised by its magic bytes) is decompressed as it is read.
///
/// The file is read by a helper thread, block by block, while the calling thread parses
/// (and checks `interrupt` at least every 50 ms, also while a pipe is silent).
pub fn read_letor<T: Element>(path: &Path, opts: &LetorOptions, interrupt: &dyn Interrupt) -> Result<Letor<T>> {
    let mut b = Builder::<T>::new(opts, CHUNK_BYTES);
    let (tx, rx) = mpsc::sync_channel::<Msg>(1);
    let (back_tx, back_rx) = mpsc::channel::<Vec<u8>>();
    let (p, limit) = (path.to_path_buf(), opts.max_memory);
    let spawned = std::thread::Builder::new()
        .name("rankselect-letor-reader".into())
        .spawn(move || reader_thread(p, limit, tx, back_rx));
    if spawned.is_err() {
        // No thread to be had (process limits): read on this thread instead.
        let mut r = BlockReader::open(path, limit)?;
        let mut buf = Vec::new();
        while let Some((block, n)) = r.next_block(buf)? {
            b.add_block(&block[..n], interrupt)?;
            buf = block;
        }
        interrupt.check()?;
        return b.finish();
    }
    loop {
        match rx.recv_timeout(POLL) {
            Ok(Msg::Block(block, n)) => {
                b.add_block(&block[..n], interrupt)?;
                let _ = back_tx.send(block);
            }
            Ok(Msg::Done) => break,
            Ok(Msg::Failed(e)) => return Err(e),
            Err(mpsc::RecvTimeoutError::Timeout) => interrupt.check()?,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(io_error(path, io::Error::other("the reader thread stopped unexpectedly")))
            }
        }
    }
    interrupt.check()?;
    b.finish()
}

enum Msg {
    Block(Vec<u8>, usize),
    Done,
    Failed(Error),
}

/// Body of the reader thread: opens the file, sends blocks until the end or an error, and
/// stops early when the parser hangs up (after an error or an interrupt).
fn reader_thread(path: PathBuf, limit: Option<u64>, tx: mpsc::SyncSender<Msg>, back: mpsc::Receiver<Vec<u8>>) {
    let mut r = match BlockReader::open(&path, limit) {
        Ok(r) => r,
        Err(e) => {
            let _ = tx.send(Msg::Failed(e));
            return;
        }
    };
    loop {
        let buf = back.try_recv().unwrap_or_default();
        let msg = match r.next_block(buf) {
            Ok(Some((block, n))) => Msg::Block(block, n),
            Ok(None) => Msg::Done,
            Err(e) => Msg::Failed(e),
        };
        let last = !matches!(msg, Msg::Block(..));
        if tx.send(msg).is_err() || last {
            return;
        }
    }
}

fn io_error(path: &Path, e: io::Error) -> Error {
    Error::Io(io::Error::new(e.kind(), format!("{}: {}", path.display(), e)))
}

/// Reads a file in blocks that end just after a newline (a line longer than a block makes
/// the block grow, within the memory limit).
struct BlockReader {
    src: Box<dyn Read + Send>,
    path: PathBuf,
    gzip: bool,
    limit: Option<u64>,
    /// The partial last line of the previous block.
    carry: Vec<u8>,
    eof: bool,
    /// Bytes read per block.
    block: usize,
}

impl BlockReader {
    fn open(path: &Path, limit: Option<u64>) -> Result<BlockReader> {
        let mut file = File::open(path).map_err(|e| io_error(path, e))?;
        let meta = file.metadata().map_err(|e| io_error(path, e))?;
        if meta.is_dir() {
            return Err(io_error(path, io::Error::other("is a directory")));
        }
        // Peek at the first two bytes (short reads happen on pipes).
        let mut magic = [0u8; 2];
        let mut got = 0;
        while got < 2 {
            match file.read(&mut magic[got..]) {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_error(path, e)),
            }
        }
        let head = io::Cursor::new(magic[..got].to_vec()).chain(file);
        let gzip = magic[..got] == [0x1f, 0x8b];
        let src: Box<dyn Read + Send> =
            if gzip { Box::new(GzMembers::new(BufReader::with_capacity(1 << 20, head))) } else { Box::new(head) };
        Ok(BlockReader {
            src,
            path: path.to_path_buf(),
            gzip,
            limit,
            carry: Vec::new(),
            eof: false,
            block: BLOCK_BYTES,
        })
    }

    /// The next block in `buf` (reused): `Some((buf, n))` with the block in `buf[..n]`, or
    /// `None` at the end of the file.
    fn next_block(&mut self, mut buf: Vec<u8>) -> Result<Option<(Vec<u8>, usize)>> {
        if self.eof && self.carry.is_empty() {
            return Ok(None);
        }
        let want = self.carry.len() + self.block;
        if buf.len() < want {
            self.grow(&mut buf, want, false)?;
        }
        let mut len = self.carry.len();
        buf[..len].copy_from_slice(&self.carry);
        self.carry.clear();
        loop {
            while len < buf.len() && !self.eof {
                match self.src.read(&mut buf[len..]) {
                    Ok(0) => self.eof = true,
                    Ok(k) => len += k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(self.read_error(e)),
                }
            }
            if self.eof {
                return Ok(if len == 0 { None } else { Some((buf, len)) });
            }
            if let Some(i) = memrchr(b'\n', &buf[..len]) {
                self.carry.extend_from_slice(&buf[i + 1..len]);
                return Ok(Some((buf, i + 1)));
            }
            // One line fills the whole block: read on in a larger one.
            let bigger = buf.len().saturating_mul(2);
            self.grow(&mut buf, bigger, true)?;
        }
    }

    /// Grows `buf` to `len` bytes; `long_line`: for a line longer than a block, which the
    /// memory rule bounds (a block itself is a fixed cost).
    fn grow(&self, buf: &mut Vec<u8>, len: usize, long_line: bool) -> Result<()> {
        let limit = self.limit.unwrap_or(u64::MAX);
        let refuse = |how: &str| {
            Error::Memory {
            what: format!("a line longer than {} bytes", len / 2),
            bytes: len as u128,
            limit: limit as u128,
            remedy: format!(
                "{how}a LETOR line is one document; check that the file is a LETOR/SVMlight file with newline-separated rows"
            ),
        }
        };
        if long_line && len as u128 > limit as u128 {
            return Err(refuse(""));
        }
        buf.try_reserve_exact(len.saturating_sub(buf.len())).map_err(|_| refuse("the allocation failed; "))?;
        buf.resize(len, 0);
        Ok(())
    }

    fn read_error(&self, e: io::Error) -> Error {
        if self.gzip {
            let kind = if e.kind() == io::ErrorKind::UnexpectedEof { e.kind() } else { io::ErrorKind::InvalidData };
            let msg = format!("{}: corrupt or truncated gzip data: {e}", self.path.display());
            Error::Io(io::Error::new(kind, msg))
        } else {
            io_error(&self.path, e)
        }
    }
}

/// A gzip stream of one or more members, decoded as it is read. As Python's `gzip` module,
/// it skips zero bytes after a member (padding written by some tools) and rejects any other
/// trailing data (flate2's `MultiGzDecoder` rejects the padding too).
struct GzMembers<R: BufRead> {
    dec: Option<flate2::bufread::GzDecoder<R>>,
}

impl<R: BufRead> GzMembers<R> {
    fn new(r: R) -> Self {
        GzMembers { dec: Some(flate2::bufread::GzDecoder::new(r)) }
    }
}

impl<R: BufRead> Read for GzMembers<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(mut dec) = self.dec.take() else { return Ok(0) };
            let n = dec.read(out)?;
            if n > 0 || out.is_empty() {
                self.dec = Some(dec);
                return Ok(n);
            }
            // End of a member: skip zero padding, then either the end or another member.
            let mut r = dec.into_inner();
            loop {
                let avail = r.fill_buf()?;
                if avail.is_empty() {
                    return Ok(0);
                }
                let zeros = avail.iter().take_while(|&&b| b == 0).count();
                let more = zeros < avail.len();
                r.consume(zeros);
                if more {
                    break;
                }
            }
            self.dec = Some(flate2::bufread::GzDecoder::new(r));
        }
    }
}

/// Accumulates parsed blocks into the dense matrix.
struct Builder<'a, T> {
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
}

impl<'a, T: Element> Builder<'a, T> {
    fn new(opts: &'a LetorOptions, chunk_bytes: usize) -> Self {
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
        }
    }

    /// Parses a block (whole lines) and appends its rows.
    fn add_block(&mut self, block: &[u8], interrupt: &dyn Interrupt) -> Result<()> {
        interrupt.check()?;
        let ranges = chunk_ranges(block, self.chunk_bytes);
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

    /// Bytes of the result with `m` rows of `stride` columns.
    fn bytes(&self, m: usize, stride: usize) -> u128 {
        let elt = std::mem::size_of::<T>() as u128;
        let per_row = 16 + if self.opts.comments { std::mem::size_of::<String>() as u128 } else { 0 };
        m as u128 * stride as u128 * elt + m as u128 * per_row + self.comment_bytes
    }

    fn limit(&self) -> u64 {
        self.opts.max_memory.unwrap_or(u64::MAX)
    }

    fn fits(&self, m: usize, stride: usize) -> bool {
        self.bytes(m, stride) <= self.limit() as u128
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
            limit: self.limit() as u128,
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
            && self.comments.as_mut().map_or(true, |c| c.try_reserve(rows).is_ok());
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

    fn finish(mut self) -> Result<Letor<T>> {
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

/// Byte ranges of about `target` bytes, each ending just after a newline (except the last).
fn chunk_ranges(buf: &[u8], target: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(buf.len() / target.max(1) + 1);
    let mut start = 0;
    while start < buf.len() {
        let probe = start.saturating_add(target.max(1)).min(buf.len());
        let end = if probe >= buf.len() {
            buf.len()
        } else {
            match memchr(b'\n', &buf[probe..]) {
                Some(i) => probe + i + 1,
                None => buf.len(),
            }
        };
        out.push((start, end));
        start = end;
    }
    out
}

fn parse_chunk(buf: &[u8], opts: &LetorOptions, narrow: bool) -> std::result::Result<Chunk, LocalError> {
    let mut c = Chunk::default();
    // Dense LETOR text takes about 10 bytes a value.
    c.idx.reserve(buf.len() / 10);
    c.val.reserve(buf.len() / 10);
    let n = buf.len();
    let mut pos = 0;
    let mut line = 0;
    while pos < n {
        if buf[pos] == b'\n' {
            pos += 1;
            line += 1;
            continue;
        }
        let (data_end, comment, next) = match memchr2(b'\n', b'#', &buf[pos..]) {
            None => (n, None, n),
            Some(i) if buf[pos + i] == b'\n' => (pos + i, None, pos + i + 1),
            Some(i) => {
                let h = pos + i;
                let e = memchr(b'\n', &buf[h + 1..]).map_or(n, |j| h + 1 + j);
                (h, Some(&buf[h + 1..e]), e + 1)
            }
        };
        parse_line(&buf[pos..data_end], comment, opts, narrow, &mut c, line).map_err(|msg| LocalError { line, msg })?;
        line += 1;
        pos = next;
    }
    c.n_lines = line;
    Ok(c)
}

#[inline(always)]
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// Whitespace-separated tokens of a line (Python's `bytes.split()`).
struct Tokens<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let s = self.s;
        let mut i = self.pos;
        while i < s.len() && is_space(s[i]) {
            i += 1;
        }
        if i == s.len() {
            self.pos = i;
            return None;
        }
        let a = i;
        while i < s.len() && !is_space(s[i]) {
            i += 1;
        }
        self.pos = i;
        Some(&s[a..i])
    }
}

fn trim(s: &[u8]) -> &[u8] {
    let a = s.iter().position(|&b| !(is_space(b) || b == b'\n')).unwrap_or(s.len());
    let b = s.iter().rposition(|&b| !(is_space(b) || b == b'\n')).map_or(a, |i| i + 1);
    &s[a..b]
}

/// A token for an error message (truncated, lossy UTF-8).
fn show(tok: &[u8]) -> String {
    const MAX: usize = 40;
    let s = String::from_utf8_lossy(&tok[..tok.len().min(MAX)]).into_owned();
    if tok.len() > MAX {
        format!("{s}...")
    } else {
        s
    }
}

enum FloatError {
    NotANumber,
    NonFinite,
}

#[inline]
fn parse_float(tok: &[u8], allow_nonfinite: bool) -> std::result::Result<f64, FloatError> {
    match fast_float2::parse::<f64, _>(tok) {
        Ok(v) if v.is_finite() || allow_nonfinite => Ok(v),
        Ok(_) => Err(FloatError::NonFinite),
        Err(_) => Err(FloatError::NotANumber),
    }
}

fn float_msg(what: &str, tok: &[u8], e: FloatError) -> String {
    match e {
        FloatError::NotANumber => format!("{what} '{}' is not a number", show(tok)),
        FloatError::NonFinite => {
            format!("{what} '{}' is not finite (NaN or infinity; pass allow_nonfinite=True to accept it)", show(tok))
        }
    }
}

/// Exact powers of ten (every `10^k`, `k <= 22`, is a double).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// The run of ASCII digits at `s[i..]`, at most 8 of them, read 8 bytes at a time (SWAR):
/// `(value, count)`. Needs `i + 8 <= s.len()`.
#[inline(always)]
fn digits8(s: &[u8], i: usize) -> (u64, usize) {
    let mut b = [0u8; 8];
    b.copy_from_slice(&s[i..i + 8]);
    let x = u64::from_le_bytes(b).wrapping_sub(0x3030_3030_3030_3030);
    // A byte is a digit iff it is <= 9 after the subtraction: flag the others (a borrow or
    // carry only moves upwards, past the first non-digit, so the lowest flag is exact).
    let flags = (x | x.wrapping_add(0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080;
    let n = (flags.trailing_zeros() / 8) as usize;
    if n == 0 {
        return (0, 0);
    }
    // Keep the n digits, moved to the top bytes (the bytes below read as leading zeros),
    // then combine pairs, quads and octets (simdjson / fast_float's 8-digit step).
    let x = x << (8 * (8 - n) as u32);
    let x = x.wrapping_mul(10).wrapping_add(x >> 8);
    let mask = 0x0000_00FF_0000_00FF;
    let x = ((x & mask).wrapping_mul(0x000F_4240_0000_0064))
        .wrapping_add(((x >> 16) & mask).wrapping_mul(0x0000_2710_0000_0001))
        >> 32;
    (x & 0xFFFF_FFFF, n)
}

/// Appends the run of ASCII digits at `s[*i..]` to `w` (wrapping; the caller bounds the
/// count) and returns how many there were.
#[inline(always)]
fn digit_run(s: &[u8], i: &mut usize, w: &mut u64) -> usize {
    let start = *i;
    while *i + 8 <= s.len() {
        let (v, n) = digits8(s, *i);
        *w = w.wrapping_mul(POW10_INT[n]).wrapping_add(v);
        *i += n;
        if n < 8 {
            return *i - start;
        }
    }
    while *i < s.len() {
        let d = s[*i].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        *w = w.wrapping_mul(10).wrapping_add(u64::from(d));
        *i += 1;
    }
    *i - start
}

const POW10_INT: [u64; 9] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// Clinger's exact fast path for a plain decimal `[+-]digits[.digits]` starting at `s[i]`
/// and ending at whitespace or the end of `s`: with the digits read as an integer
/// `w <= 2^53` and `k <= 22` digits after the point, `w` and `10^k` are exact doubles and
/// one correctly rounded division gives the correctly rounded `w / 10^k`, the value
/// Python's `float()` returns. `None` for anything else (exponents, long mantissas,
/// `inf`, malformed text): the caller falls back to `fast-float2`.
#[inline(always)]
fn fast_decimal(s: &[u8], mut i: usize) -> Option<(f64, usize)> {
    let len = s.len();
    let neg = i < len && s[i] == b'-';
    if i < len && (s[i] == b'-' || s[i] == b'+') {
        i += 1;
    }
    let mut w: u64 = 0;
    let mut digits = digit_run(s, &mut i, &mut w);
    let mut k = 0;
    if i < len && s[i] == b'.' {
        i += 1;
        k = digit_run(s, &mut i, &mut w);
        digits += k;
    }
    // 19 digits cannot overflow u64; 2^53 and 10^22 bound the exact doubles.
    if digits == 0 || digits > 19 || k > 22 || w > (1u64 << 53) || (i < len && !is_space(s[i])) {
        return None;
    }
    let v = if k == 0 { w as f64 } else { w as f64 / POW10[k] };
    Some((if neg { -v } else { v }, i))
}

/// The digits of a feature index (saturating: any value above `MAX_INDEX` is too large).
#[inline]
fn parse_index(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.saturating_mul(10).saturating_add(u64::from(b - b'0'));
    }
    Some(v)
}

/// An integer qid: optional sign and ASCII digits, within i64.
fn parse_qid(s: &[u8]) -> Option<i64> {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        let d = i64::from(b - b'0');
        v = v.checked_mul(10)?;
        v = if neg { v.checked_sub(d)? } else { v.checked_add(d)? };
    }
    Some(v)
}

/// The checks of a feature index, given the previous index of the row (0 at the start).
#[inline(always)]
fn check_index(idx: u64, prev: u64, opts: &LetorOptions) -> std::result::Result<(), String> {
    if idx == 0 {
        return Err("feature index 0: LETOR feature indices are 1-based".to_string());
    }
    if idx > MAX_INDEX {
        return Err(format!("feature index {idx} is too large (the largest possible is {MAX_INDEX})"));
    }
    if idx == prev {
        return Err(format!("duplicate feature index {idx}"));
    }
    if idx < prev {
        return Err(format!("feature indices must be ascending: {idx} after {prev}"));
    }
    if let Some(n) = opts.n_features {
        if idx > n as u64 {
            return Err(format!("feature index {idx} exceeds n_features={n}"));
        }
    }
    Ok(())
}

/// A feature token `<index>:<value>` in full generality (the slow path).
fn parse_feature(tok: &[u8], prev: u64, opts: &LetorOptions) -> std::result::Result<(u64, f64), String> {
    let Some(colon) = memchr(b':', tok) else {
        return Err(format!("expected '<index>:<value>', got '{}'", show(tok)));
    };
    let (idx_s, val_s) = (&tok[..colon], &tok[colon + 1..]);
    let idx = parse_index(idx_s)
        .ok_or_else(|| format!("feature index '{}' is not a positive integer (in '{}')", show(idx_s), show(tok)))?;
    check_index(idx, prev, opts)?;
    let v = parse_float(val_s, opts.allow_nonfinite)
        .map_err(|e| float_msg(&format!("value of feature {idx}"), val_s, e))?;
    Ok((idx, v))
}

/// Parses the data part of one line (before any `#`) into `c`; `Err` holds the message.
#[inline]
fn parse_line(
    data: &[u8],
    comment: Option<&[u8]>,
    opts: &LetorOptions,
    narrow: bool,
    c: &mut Chunk,
    line: usize,
) -> std::result::Result<(), String> {
    let mut toks = Tokens { s: data, pos: 0 };
    let Some(label_tok) = toks.next() else {
        return Ok(()); // blank or comment-only line
    };
    let label = parse_float(label_tok, opts.allow_nonfinite).map_err(|e| float_msg("label", label_tok, e))?;
    let Some(qid_tok) = toks.next() else {
        return Err("missing qid: expected 'qid:<integer>' after the label".to_string());
    };
    let Some(qid_s) = qid_tok.strip_prefix(b"qid:") else {
        return Err(format!("missing qid: expected 'qid:<integer>' after the label, got '{}'", show(qid_tok)));
    };
    let qid = parse_qid(qid_s).ok_or_else(|| format!("qid '{}' is not an integer", show(qid_s)))?;
    let d = data;
    let len = d.len();
    let mut i = toks.pos;
    let mut prev: u64 = 0;
    loop {
        while i < len && is_space(d[i]) {
            i += 1;
        }
        if i == len {
            break;
        }
        let tok_start = i;
        // Fast path: up to 9 index digits, ':', a plain decimal.
        let mut idx: u64 = 0;
        let mut j = i;
        let n_digits = digit_run(d, &mut j, &mut idx);
        let fast = if n_digits > 0 && n_digits <= 9 && j < len && d[j] == b':' { fast_decimal(d, j + 1) } else { None };
        let v = match fast {
            Some((v, end)) => {
                check_index(idx, prev, opts)?;
                i = end;
                v
            }
            None => {
                let mut e = i;
                while e < len && !is_space(d[e]) {
                    e += 1;
                }
                let (k, v) = parse_feature(&d[i..e], prev, opts)?;
                idx = k;
                i = e;
                v
            }
        };
        if narrow && !opts.allow_nonfinite && v.is_finite() && !(v as f32).is_finite() {
            let tok = &d[tok_start..i];
            let val_s = memchr(b':', tok).map_or(tok, |c| &tok[c + 1..]);
            return Err(format!(
                "value of feature {idx} '{}' overflows float32 (load as float64, or pass allow_nonfinite=True)",
                show(val_s)
            ));
        }
        c.idx.push(idx as u32);
        c.val.push(v);
        prev = idx;
    }
    if prev as usize > c.max_index {
        c.max_index = prev as usize;
        c.max_index_line = line;
    }
    c.y.push(label);
    c.qid.push(qid);
    c.row_end.push(c.idx.len());
    if opts.comments {
        let text = String::from_utf8_lossy(comment.map(trim).unwrap_or(b"")).into_owned();
        c.comment_bytes += text.len();
        c.comments.push(text);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interrupt::NoInterrupt;
    use proptest::prelude::*;

    fn parse(s: &str) -> Result<Letor<f64>> {
        parse_letor(s.as_bytes(), &LetorOptions::default(), &NoInterrupt)
    }

    fn parse_err(s: &str, opts: &LetorOptions) -> (usize, String) {
        match parse_letor::<f64>(s.as_bytes(), opts, &NoInterrupt) {
            Err(Error::Parse { line, msg }) => (line, msg),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rankselect-letor-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        use flate2::write::GzEncoder;
        use std::io::Write;
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn basic_file() {
        let d = parse("2 qid:1 1:0.5 3:-1e-3 # docid = 7\n\n# only a comment\n0 qid:1 2:4\r\n1 qid:-3\n").unwrap();
        assert_eq!(d.n_features, 3);
        assert_eq!(d.y, vec![2.0, 0.0, 1.0]);
        assert_eq!(d.qid, vec![1, 1, -3]);
        assert_eq!(d.x, vec![0.5, 0.0, -1e-3, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0]);
        assert!(d.comments.is_none());
    }

    #[test]
    fn comments_and_f32() {
        let opts = LetorOptions { comments: true, n_features: Some(4), ..Default::default() };
        let d: Letor<f32> = parse_letor(b"1 qid:2 1:0.1 #  docid = GX01  \n0 qid:2 4:3", &opts, &NoInterrupt).unwrap();
        assert_eq!(d.n_features, 4);
        assert_eq!(d.x, vec![0.1f64 as f32, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0]);
        assert_eq!(d.comments.unwrap(), vec!["docid = GX01".to_string(), String::new()]);
    }

    #[test]
    fn rows_without_features_give_one_column_like_scikit_learn() {
        let d = parse("1 qid:1\n0 qid:1 # c\n").unwrap();
        assert_eq!((d.n_rows(), d.n_features), (2, 1));
        assert_eq!(d.x, vec![0.0, 0.0]);
        let opts = LetorOptions { n_features: Some(3), ..Default::default() };
        let d: Letor<f64> = parse_letor(b"1 qid:1\n", &opts, &NoInterrupt).unwrap();
        assert_eq!((d.n_features, d.x.len()), (3, 3));
    }

    #[test]
    fn errors_name_the_line() {
        let d = LetorOptions::default();
        let cases: &[(&str, usize, &str)] = &[
            ("x qid:1 1:1\n", 1, "label 'x' is not a number"),
            ("1 qid:1 1:1\n\n1 1:1\n", 3, "missing qid"),
            ("1 qid:1 1:1\n1\n", 2, "missing qid"),
            ("1 qid:a 1:1\n", 1, "qid 'a' is not an integer"),
            ("1 qid:1.5 1:1\n", 1, "not an integer"),
            ("1 qid:1 0:1\n", 1, "feature index 0"),
            ("1 qid:1 00:1\n", 1, "feature index 0"),
            ("1 qid:1 2:1 1:1\n", 1, "ascending: 1 after 2"),
            ("1 qid:1 2:1 2:1\n", 1, "duplicate feature index 2"),
            ("1 qid:1 2:1 1:abc\n", 1, "ascending: 1 after 2"),
            ("1 qid:1 2:abc\n", 1, "value of feature 2 'abc' is not a number"),
            ("1 qid:1 2:1.5x\n", 1, "value of feature 2 '1.5x' is not a number"),
            ("1 qid:1 2:1:2\n", 1, "value of feature 2 '1:2' is not a number"),
            ("1 qid:1 2:nan\n", 1, "not finite"),
            ("inf qid:1 2:1\n", 1, "not finite"),
            ("1 qid:1 2:1e999\n", 1, "not finite"),
            ("1 qid:1 foo\n", 1, "expected '<index>:<value>'"),
            ("1 qid:1 -1:2\n", 1, "not a positive integer"),
            ("1 qid:1 1:1\n1 qid:1 4294967295:1\n", 2, "feature index 4294967295 is too large"),
            ("1 qid:1 2147483648:1\n", 1, "too large (the largest possible is 2147483647)"),
            ("1 qid:1 99999999999999999999999:1\n", 1, "too large"),
        ];
        for &(text, line, msg) in cases {
            let (l, m) = parse_err(text, &d);
            assert_eq!(l, line, "{text:?}: {m}");
            assert!(m.contains(msg), "{text:?}: {m}");
        }
        let opts = LetorOptions { n_features: Some(2), ..Default::default() };
        let (l, m) = parse_err("1 qid:1 1:1\n1 qid:1 3:1\n", &opts);
        assert_eq!((l, m.contains("exceeds n_features=2")), (2, true));
    }

    #[test]
    fn float32_overflow_is_an_error() {
        let opts = LetorOptions::default();
        let r = parse_letor::<f32>(b"1 qid:1 1:1\n1 qid:1 2:1e39\n", &opts, &NoInterrupt);
        assert!(matches!(r, Err(Error::Parse { line: 2, msg }) if msg.contains("'1e39' overflows float32")));
        assert!(parse_letor::<f64>(b"1 qid:1 2:1e39\n", &opts, &NoInterrupt).is_ok());
    }

    #[test]
    fn nonfinite_on_request() {
        let opts = LetorOptions { allow_nonfinite: true, ..Default::default() };
        let d: Letor<f64> = parse_letor(b"inf qid:1 1:nan 2:-inf\n", &opts, &NoInterrupt).unwrap();
        assert!(d.y[0].is_infinite() && d.x[0].is_nan() && d.x[1] == f64::NEG_INFINITY);
    }

    #[test]
    fn empty_files() {
        for text in ["", "\n\n", "# nothing\n  \n"] {
            assert!(matches!(parse(text), Err(Error::InvalidInput(m)) if m.contains("no data rows")));
        }
    }

    #[test]
    fn memory_rule_refuses_a_huge_index_early_and_names_its_line() {
        // 3 x 2e9 float64 = 44.7 GiB: refused before any of it is allocated.
        let opts = LetorOptions { max_memory: Some(1 << 30), ..Default::default() };
        let r = parse_letor::<f64>(b"1 qid:1 1:1\n0 qid:1 2000000000:1\n1 qid:2 3:1\n", &opts, &NoInterrupt);
        let Err(e @ Error::Memory { .. }) = r else { panic!("expected a memory error, got {r:?}") };
        let msg = e.to_string();
        for part in ["3 rows x 2000000000 features", "44.7 GiB", "1.0 GiB", "2000000000 (line 2)", "float32"] {
            assert!(msg.contains(part), "{part:?} not in {msg}");
        }
        // n_features = 1e12: refused at the first rows.
        let opts =
            LetorOptions { n_features: Some(1_000_000_000_000), max_memory: Some(1 << 30), ..Default::default() };
        let r = parse_letor::<f32>(b"1 qid:1 1:1\n", &opts, &NoInterrupt);
        let Err(e @ Error::Memory { .. }) = r else { panic!("expected a memory error, got {r:?}") };
        let msg = e.to_string();
        assert!(msg.contains("n_features=1000000000000") && !msg.contains("dtype=np.float32"), "{msg}");
        // the limit counts y, qid and comments too; exactly at the limit is fine
        let opts = LetorOptions { max_memory: Some(2 * (8 * 4 + 16)), ..Default::default() };
        assert!(parse_letor::<f64>(b"1 qid:1 4:1\n1 qid:1 4:1\n", &opts, &NoInterrupt).is_ok());
        let opts = LetorOptions { max_memory: Some(2 * (8 * 4 + 16) - 1), ..Default::default() };
        assert!(matches!(
            parse_letor::<f64>(b"1 qid:1 4:1\n1 qid:1 4:1\n", &opts, &NoInterrupt),
            Err(Error::Memory { .. })
        ));
    }

    #[test]
    fn line_numbers_across_chunks() {
        let mut text = String::new();
        for i in 0..5000 {
            if i % 7 == 0 {
                text.push_str("# comment line\n");
            }
            text.push_str(&format!("{} qid:{} 1:{}.5 2:3\n", i % 3, i / 10, i));
        }
        text.push_str("1 qid:1 2:1 1:1\n");
        let total_lines = text.lines().count();
        for (block, chunk) in [(1, 1), (64, 17), (4096, 100), (1 << 20, 4096), (1 << 24, 1 << 20)] {
            let r = parse_blocks::<f64>(text.as_bytes(), &LetorOptions::default(), &NoInterrupt, block, chunk);
            assert!(matches!(r, Err(Error::Parse { line, .. }) if line == total_lines), "{block} {chunk}");
        }
        let (line, _) = parse_err(&text, &LetorOptions::default());
        assert_eq!(line, total_lines);
    }

    #[test]
    fn blocking_and_chunking_do_not_change_the_result() {
        let mut text = String::new();
        for i in 0..3000 {
            // the width grows through the file: rows are re-laid out as blocks arrive
            text.push_str(&format!("{} qid:{} {}:{}.25 {}:1 # d{i}\n", i % 3, i / 10, 1 + i % 8, i, 9 + i / 100));
            if i % 11 == 0 {
                text.push_str("\n# c\n");
            }
        }
        let opts = LetorOptions { comments: true, ..Default::default() };
        let whole: Letor<f64> = parse_letor(text.as_bytes(), &opts, &NoInterrupt).unwrap();
        assert_eq!((whole.n_rows(), whole.n_features), (3000, 9 + 29));
        for (block, chunk) in [(1, 1), (333, 50), (5000, 333), (70_000, 9000)] {
            let d: Letor<f64> = parse_blocks(text.as_bytes(), &opts, &NoInterrupt, block, chunk).unwrap();
            assert_eq!(d, whole, "{block} {chunk}");
        }
    }

    #[test]
    fn gzip_members_padding_and_corruption() {
        let text = b"1 qid:4 1:1.5 3:2\n0 qid:4 2:-7\n";
        let dir = temp_dir("gz");
        let opts = LetorOptions::default();
        let plain = dir.join("a.txt");
        std::fs::write(&plain, text).unwrap();
        let want: Letor<f64> = read_letor(&plain, &opts, &NoInterrupt).unwrap();
        let gz = gzip(text);
        let (a, b) = text.split_at(10);
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("one.gz", gz.clone()),
            ("two_members.gz", [gzip(a), gzip(b)].concat()),
            ("padded.gz", [gz.clone(), vec![0; 1000]].concat()),
            ("padded_between.gz", [gzip(a), vec![0; 7], gzip(b), vec![0; 3]].concat()),
        ];
        for (name, bytes) in cases {
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            let got: Letor<f64> = read_letor(&p, &opts, &NoInterrupt).unwrap();
            assert_eq!(got, want, "{name}");
        }
        let mut flipped = gz.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0xff;
        let bad: Vec<(&str, Vec<u8>)> = vec![
            ("truncated.gz", gz[..gz.len() - 6].to_vec()),
            ("flipped.gz", flipped),
            ("garbage_after.gz", [gz.clone(), b"junk".to_vec()].concat()),
            ("magic_only.gz", vec![0x1f, 0x8b]),
        ];
        for (name, bytes) in bad {
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            match read_letor::<f64>(&p, &opts, &NoInterrupt) {
                Err(Error::Io(e)) => {
                    let msg = e.to_string();
                    assert!(msg.contains(name) && msg.contains("gzip"), "{name}: {msg}");
                }
                other => panic!("{name}: expected an I/O error, got {other:?}"),
            }
        }
        assert!(matches!(read_letor::<f64>(&dir.join("missing"), &opts, &NoInterrupt), Err(Error::Io(_))));
        assert!(matches!(read_letor::<f64>(&dir, &opts, &NoInterrupt), Err(Error::Io(_))));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn block_reader_handles_long_lines_and_refuses_beyond_the_limit() {
        let dir = temp_dir("long");
        let p = dir.join("long.txt");
        let long: String = (1..=3000).map(|j| format!(" {j}:{j}.5")).collect();
        let text = format!("1 qid:1 1:2\n0 qid:1{long}\n2 qid:3 2:1\n");
        std::fs::write(&p, &text).unwrap();
        let mut r = BlockReader::open(&p, None).unwrap();
        r.block = 64;
        let mut blocks: Vec<Vec<u8>> = Vec::new();
        let mut buf = Vec::new();
        while let Some((b, n)) = r.next_block(buf).unwrap() {
            assert!(n == text.len() - blocks.concat().len() || b[n - 1] == b'\n');
            blocks.push(b[..n].to_vec());
            buf = b;
        }
        assert_eq!(blocks.concat(), text.as_bytes());
        let mut r = BlockReader::open(&p, Some(1000)).unwrap();
        r.block = 64;
        let mut buf = Vec::new();
        let err = loop {
            match r.next_block(buf) {
                Ok(Some((b, _))) => buf = b,
                Ok(None) => panic!("expected a memory error"),
                Err(e) => break e,
            }
        };
        assert!(matches!(err, Error::Memory { .. }), "{err}");
        assert!(err.to_string().contains("a line longer than"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn interrupt_stops_parsing() {
        let r = parse_letor::<f64>(b"1 qid:1 1:1\n", &LetorOptions::default(), &|| true);
        assert!(matches!(r, Err(Error::Interrupted)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Written rows parse back exactly (shortest round-trip float formatting and
        /// fixed-point text), whatever the block and chunk sizes.
        #[test]
        fn round_trip(rows in prop::collection::vec(
            (0u8..5, -3i64..50, prop::collection::vec(prop::option::of(any::<f64>().prop_filter("finite", |v| v.is_finite())), 6)),
            1..40),
            block in 1usize..400, chunk in 1usize..200, fixed in any::<bool>())
        {
            let mut text = String::new();
            for (label, q, vals) in &rows {
                text.push_str(&format!("{label} qid:{q}"));
                for (j, v) in vals.iter().enumerate() {
                    if let Some(v) = v {
                        if fixed && v.abs() < 1e15 {
                            text.push_str(&format!(" {}:{v}", j + 1));
                        } else {
                            text.push_str(&format!(" {}:{v:e}", j + 1));
                        }
                    }
                }
                text.push('\n');
            }
            let opts = LetorOptions { n_features: Some(6), ..Default::default() };
            let d: Letor<f64> = parse_blocks(text.as_bytes(), &opts, &NoInterrupt, block, chunk).unwrap();
            prop_assert_eq!(d.n_rows(), rows.len());
            for (i, (label, q, vals)) in rows.iter().enumerate() {
                prop_assert_eq!(d.y[i], f64::from(*label));
                prop_assert_eq!(d.qid[i], *q);
                for (j, v) in vals.iter().enumerate() {
                    prop_assert_eq!(d.x[i * 6 + j].to_bits(), (v.unwrap_or(0.0) + 0.0).to_bits());
                }
            }
        }

        /// The SWAR digit reader agrees with a byte loop on any 8 bytes.
        #[test]
        fn digits8_reads_the_leading_digits(bytes in prop::array::uniform8(prop::sample::select(
            b"0123456789:. -+eE/\x00\xff".to_vec())))
        {
            let n = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            let v = bytes[..n].iter().fold(0u64, |a, &b| a * 10 + u64::from(b - b'0'));
            prop_assert_eq!(digits8(&bytes, 0), (v, n));
        }

        /// The exact fast path agrees with fast-float2 (correct rounding) on every plain
        /// decimal it accepts, and accepts the common LETOR forms.
        #[test]
        fn fast_decimal_is_correctly_rounded(
            sign in prop::sample::select(vec!["", "-", "+"]),
            int in "[0-9]{0,21}", frac in prop::option::of("[0-9]{0,21}"), end in prop::sample::select(vec!["", " ", "\t", "x", "e5", ":"]))
        {
            let text = format!("{sign}{int}{}{end}", frac.as_ref().map(|f| format!(".{f}")).unwrap_or_default());
            let s = text.as_bytes();
            let body = &s[..s.len() - end.len()];
            let reference = fast_float2::parse::<f64, _>(body).ok();
            match fast_decimal(s, 0) {
                Some((v, stop)) => {
                    prop_assert!(end.is_empty() || end.starts_with(|c: char| c.is_ascii_whitespace()));
                    prop_assert_eq!(stop, body.len());
                    prop_assert_eq!(Some(v.to_bits()), reference.map(f64::to_bits), "{}", text);
                }
                None => {
                    let digits = int.len() + frac.as_ref().map_or(0, |f| f.len());
                    // only malformed text, a bad terminator or long mantissas go slow
                    prop_assert!(digits == 0 || digits > 15 || !(end.is_empty() || end.starts_with(' ') || end.starts_with('\t')), "{}", text);
                }
            }
        }
    }
}
