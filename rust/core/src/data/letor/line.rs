//! Lines and tokens: a chunk of whole lines into sparse rows, one line's label, qid,
//! features and comment.

use memchr::{memchr, memchr2};

use super::number::{digit_run, fast_decimal, float_msg, is_space, parse_float, parse_index, parse_qid, show};
use super::{LetorOptions, MAX_INDEX};

/// Sparse rows of one chunk.
#[derive(Default)]
pub(super) struct Chunk {
    /// Lines in the chunk (data, blank and comment lines).
    pub(super) n_lines: usize,
    pub(super) y: Vec<f64>,
    pub(super) qid: Vec<i64>,
    /// End of each row in `idx` / `val`.
    pub(super) row_end: Vec<usize>,
    /// 1-based feature indices.
    pub(super) idx: Vec<u32>,
    pub(super) val: Vec<f64>,
    pub(super) comments: Vec<String>,
    pub(super) comment_bytes: usize,
    /// Largest feature index, and the 0-based chunk line where it first occurs.
    pub(super) max_index: usize,
    pub(super) max_index_line: usize,
}

/// An error at a 0-based line of a chunk.
pub(super) struct LocalError {
    pub(super) line: usize,
    pub(super) msg: String,
}

/// Byte ranges of about `target` bytes, each ending just after a newline (except the last).
pub(super) fn chunk_ranges(buf: &[u8], target: usize) -> Vec<(usize, usize)> {
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

pub(super) fn parse_chunk(buf: &[u8], opts: &LetorOptions, narrow: bool) -> std::result::Result<Chunk, LocalError> {
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

pub(super) fn trim(s: &[u8]) -> &[u8] {
    let a = s.iter().position(|&b| !(is_space(b) || b == b'\n')).unwrap_or(s.len());
    let b = s.iter().rposition(|&b| !(is_space(b) || b == b'\n')).map_or(a, |i| i + 1);
    &s[a..b]
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
pub(super) fn parse_line(
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
