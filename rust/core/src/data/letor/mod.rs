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
//! large is refused with [`Error::Memory`](crate::Error::Memory) naming the sizes, the index
//! and its line, as soon as the first rows show it (the whole file is not read first).
//!
//! Speed: each block is scanned first (lines, data rows and each row's largest index, read
//! from its last token), so that every chunk's rows get their place and width in the matrix
//! before parsing; the chunks are then parsed straight into those rows (`dense`), zeros
//! included, with the feature tokens read 16 bytes at a time (`window`: SSE2 on x86-64) and the
//! matrix and read blocks backed by huge pages where Linux allows (`mem`). Any line outside
//! the common spelling is read by the reference parser (`line`), which also parses a whole
//! block whenever a memory, density or allocation check might fail, so that results and
//! messages are those of the reference path in every case.
//!
//! Modules: `reader` (the reader thread, blocks cut at newlines, gzip members),
//! `builder` (blocks into the dense matrix under the memory rule), `dense` (the fast path:
//! scan, then rows parsed in place), `line` (the reference path: chunks, lines and tokens
//! into sparse rows), `number` (correctly rounded floats, feature indices, qids), `mem`
//! (huge-page advice).

use std::io;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use crate::error::Result;
use crate::interrupt::Interrupt;

use self::builder::Builder;
use self::line::chunk_ranges;
use self::reader::{io_error, reader_thread, BlockReader, Msg};

mod builder;
mod dense;
mod line;
mod mem;
mod number;
mod reader;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_dense;
#[cfg(target_arch = "x86_64")]
mod window;

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
    b.size_hint = Some(buf.len() as u64);
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
    b.size_hint = std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| m.len());
    let (tx, rx) = mpsc::sync_channel::<Msg>(1);
    let (back_tx, back_rx) = mpsc::channel::<Vec<u8>>();
    let (p, max_memory) = (path.to_path_buf(), opts.max_memory);
    let spawned = std::thread::Builder::new()
        .name("rankselect-letor-reader".into())
        .spawn(move || reader_thread(p, max_memory, tx, back_rx));
    if spawned.is_err() {
        // No thread to be had (process limits): read on this thread instead.
        let mut r = BlockReader::open(path, max_memory)?;
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
