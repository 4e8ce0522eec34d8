//! The fast path: a chunk of whole lines parsed straight into its dense rows.
//!
//! A first pass ([`scan_chunk`]) counts the lines and data rows of a chunk and reads the
//! largest feature index of each row from its last token, so that the builder can place
//! every chunk's rows in the result and size the rows before parsing. The second pass
//! ([`parse_dense`]) writes labels, qids and values directly into those rows, zeros
//! included, with no intermediate sparse rows. Only the common spelling is handled here
//! (`<label> qid:<int> <i>:<v> ...`, indices of at most 9 digits, ascending); any other line
//! is handed to the reference parser ([`parse_line`]), which gives the exact error message
//! (or, for a valid line written in an unusual way, its sparse row, scattered into place).

use std::mem::MaybeUninit;

use memchr::{memchr, memchr2};

use super::line::{parse_line, Chunk, LocalError};
use super::number::{digit_run, fast_decimal, is_space, parse_float, parse_qid};
use super::{Element, LetorOptions};

/// What the first pass learns about a chunk.
#[derive(Clone, Copy, Default)]
pub(super) struct Scan {
    /// Lines in the chunk (data, blank and comment lines).
    pub(super) n_lines: usize,
    /// Data rows (lines with something before any `#`).
    pub(super) n_rows: usize,
    /// The largest feature index of the rows' last tokens, and the 0-based chunk line where
    /// it first occurs: the largest index of the chunk when every row is valid.
    pub(super) max_index: usize,
    pub(super) max_index_line: usize,
}

/// The data part of the line at `pos`: `(data_end, comment, next)` (`next`: the start of
/// the next line).
#[inline(always)]
fn split_line(buf: &[u8], pos: usize) -> (usize, Option<(usize, usize)>, usize) {
    let n = buf.len();
    match memchr2(b'\n', b'#', &buf[pos..]) {
        None => (n, None, n),
        Some(i) if buf[pos + i] == b'\n' => (pos + i, None, pos + i + 1),
        Some(i) => {
            let h = pos + i;
            let e = memchr(b'\n', &buf[h + 1..]).map_or(n, |j| h + 1 + j);
            (h, Some((h + 1, e)), e + 1)
        }
    }
}

/// The feature index of the last token of a data part (0 when it is not `<digits>:...`).
#[inline(always)]
fn last_index(d: &[u8]) -> usize {
    let mut e = d.len();
    while e > 0 && is_space(d[e - 1]) {
        e -= 1;
    }
    let mut s = e;
    while s > 0 && !is_space(d[s - 1]) {
        s -= 1;
    }
    let tok = &d[s..e];
    let Some(c) = memchr(b':', tok) else { return 0 };
    if c == 0 || c > 18 || !tok[..c].iter().all(u8::is_ascii_digit) {
        return 0;
    }
    tok[..c].iter().fold(0usize, |v, &b| v * 10 + usize::from(b - b'0'))
}

/// The first pass over a chunk of whole lines.
pub(super) fn scan_chunk(buf: &[u8]) -> Scan {
    let mut s = Scan::default();
    let n = buf.len();
    let mut pos = 0;
    while pos < n {
        if buf[pos] == b'\n' {
            pos += 1;
            s.n_lines += 1;
            continue;
        }
        let (data_end, _, next) = split_line(buf, pos);
        let d = &buf[pos..data_end];
        if d.iter().any(|&b| !is_space(b)) {
            let k = last_index(d);
            if k > s.max_index {
                s.max_index = k;
                s.max_index_line = s.n_lines;
            }
            s.n_rows += 1;
        }
        s.n_lines += 1;
        pos = next;
    }
    s
}

/// The index texts a dense row expects (see `super::window::Expect`).
#[cfg(target_arch = "x86_64")]
type Table = Vec<super::window::Expect>;
#[cfg(not(target_arch = "x86_64"))]
type Table = ();

/// Why [`parse_dense`] gave up.
pub(super) enum Fail {
    /// A malformed line: the reference parser's error.
    Line(LocalError),
    /// The chunk does not match its scan (a valid row wider than the rows, or another count
    /// of rows): the builder parses the block with the reference path instead.
    Mismatch,
}

/// Output slices of one chunk: `x` holds `y.len()` rows of `stride` columns.
pub(super) struct Rows<'a, T> {
    pub(super) x: &'a mut [MaybeUninit<T>],
    pub(super) y: &'a mut [f64],
    pub(super) qid: &'a mut [i64],
    pub(super) stride: usize,
}

/// A plain label: the exact fast path when it starts with a digit, `fast-float2` otherwise.
#[inline(always)]
fn label_value(tok: &[u8], allow_nonfinite: bool) -> Option<f64> {
    if tok[0].is_ascii_digit() {
        if let Some((v, end)) = fast_decimal(tok, 0) {
            if end == tok.len() {
                return Some(v);
            }
        }
    }
    parse_float(tok, allow_nonfinite).ok()
}

/// One row in the common spelling, written into `row` (all `stride` columns); `None` when
/// the line needs the reference parser (malformed, or written in an unusual way).
#[inline(always)]
fn fast_row<T: Element>(
    d: &[u8],
    row: &mut [MaybeUninit<T>],
    opts: &LetorOptions,
    narrow: bool,
    expect: &Table,
) -> Option<(f64, i64)> {
    let len = d.len();
    let stride = row.len();
    let mut i = 0;
    while i < len && is_space(d[i]) {
        i += 1;
    }
    let a = i;
    while i < len && !is_space(d[i]) {
        i += 1;
    }
    let label = label_value(&d[a..i], opts.allow_nonfinite)?;
    while i < len && is_space(d[i]) {
        i += 1;
    }
    if i + 4 > len || &d[i..i + 4] != b"qid:" {
        return None;
    }
    i += 4;
    let a = i;
    while i < len && !is_space(d[i]) {
        i += 1;
    }
    let qid = parse_qid(&d[a..i])?;
    let mut prev: usize = 0;
    loop {
        while i < len && is_space(d[i]) {
            i += 1;
        }
        if i == len {
            break;
        }
        #[cfg(target_arch = "x86_64")]
        {
            (i, prev) = super::window::run(d, i, prev, row, expect);
            while i < len && is_space(d[i]) {
                i += 1;
            }
            if i == len {
                break;
            }
        }
        let mut idx: u64 = 0;
        let mut j = i;
        let n_digits = digit_run(d, &mut j, &mut idx);
        if n_digits == 0 || n_digits > 9 || j >= len || d[j] != b':' {
            return None;
        }
        let idx = idx as usize;
        if idx <= prev || idx > stride {
            return None;
        }
        let v = match fast_decimal(d, j + 1) {
            Some((v, end)) => {
                i = end;
                v
            }
            None => {
                let mut e = j + 1;
                while e < len && !is_space(d[e]) {
                    e += 1;
                }
                let v = parse_float(&d[j + 1..e], opts.allow_nonfinite).ok()?;
                if narrow && !opts.allow_nonfinite && v.is_finite() && !(v as f32).is_finite() {
                    return None;
                }
                i = e;
                v
            }
        };
        row[prev..idx - 1].fill(MaybeUninit::new(T::ZERO));
        // `+ 0.0` turns -0.0 into +0.0: an explicit zero reads like an absent one, as in
        // scikit-learn's sparse-then-dense result.
        row[idx - 1] = MaybeUninit::new(T::from_f64(v + 0.0));
        prev = idx;
    }
    row[prev..].fill(MaybeUninit::new(T::ZERO));
    Some((label, qid))
}

/// Parses a chunk of whole lines into `out` (exactly `scan.n_rows` rows); comments, when
/// asked for, are pushed to `comments`. `Ok` gives the bytes of the comments.
pub(super) fn parse_dense<T: Element>(
    buf: &[u8],
    out: Rows<'_, T>,
    opts: &LetorOptions,
    comments: &mut Vec<String>,
) -> Result<usize, Fail> {
    let narrow = T::NARROW;
    let Rows { x, y, qid, stride } = out;
    let n_rows = y.len();
    let n = buf.len();
    let mut pos = 0;
    let mut line = 0;
    let mut r = 0;
    let mut comment_bytes = 0;
    let mut slow = Chunk::default();
    #[cfg(target_arch = "x86_64")]
    let expect = super::window::Expect::table(stride);
    #[cfg(not(target_arch = "x86_64"))]
    let expect = ();
    while pos < n {
        if buf[pos] == b'\n' {
            pos += 1;
            line += 1;
            continue;
        }
        let (data_end, comment, next) = split_line(buf, pos);
        let d = &buf[pos..data_end];
        if d.iter().all(|&b| is_space(b)) {
            line += 1;
            pos = next;
            continue;
        }
        if r == n_rows {
            return Err(Fail::Mismatch);
        }
        let row = &mut x[r * stride..(r + 1) * stride];
        match fast_row(d, row, opts, narrow, &expect) {
            Some((label, q)) => {
                y[r] = label;
                qid[r] = q;
            }
            None => {
                let comment_s = comment.map(|(a, b)| &buf[a..b]);
                slow.idx.clear();
                slow.val.clear();
                slow.y.clear();
                slow.qid.clear();
                slow.row_end.clear();
                slow.max_index = 0;
                let o = LetorOptions { comments: false, ..opts.clone() };
                parse_line(d, comment_s, &o, narrow, &mut slow, line)
                    .map_err(|msg| Fail::Line(LocalError { line, msg }))?;
                if slow.y.len() != 1 || slow.max_index > stride {
                    return Err(Fail::Mismatch);
                }
                row.fill(MaybeUninit::new(T::ZERO));
                for (&j, &v) in slow.idx.iter().zip(&slow.val) {
                    row[j as usize - 1] = MaybeUninit::new(T::from_f64(v + 0.0));
                }
                y[r] = slow.y[0];
                qid[r] = slow.qid[0];
            }
        }
        if opts.comments {
            let text = String::from_utf8_lossy(comment.map(|(a, b)| super::line::trim(&buf[a..b])).unwrap_or(b""))
                .into_owned();
            comment_bytes += text.len();
            comments.push(text);
        }
        r += 1;
        line += 1;
        pos = next;
    }
    if r != n_rows {
        return Err(Fail::Mismatch);
    }
    Ok(comment_bytes)
}
