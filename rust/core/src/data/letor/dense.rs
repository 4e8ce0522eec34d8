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

use super::line::{is_space, parse_line, Chunk, LocalError};
use super::number::{digit_run, fast_decimal, parse_float, parse_qid};
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

/// The index texts a dense row expects (see `sse2::Expect`).
#[cfg(target_arch = "x86_64")]
type Table = Vec<sse2::Expect>;
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
            (i, prev) = sse2::run(d, i, prev, row, expect);
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
    let expect = sse2::Expect::table(stride);
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

/// One feature token `<index>:<digits>[.<digits>]` at the start of a 16-byte window, read
/// with SSE2 (part of x86-64): the token's separators, colon, point and digits are found by
/// comparing the whole window at once, so that the next token's position does not wait for
/// this token's digits. `(index, value, token length)`, the value correctly rounded by the
/// same exact division as `number::fast_decimal` (a token of at most 14 bytes holds at most 12
/// digits, so the integer mantissa is below 2^52); `None` for any other token (longer,
/// signed, with an exponent, malformed), which the scalar path then reads.
#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    use super::super::number::{POW10, POW10_INT};
    use super::super::Element;

    /// The value of the `n <= 8` digit values in the low bytes of `x` (little-endian).
    #[inline(always)]
    fn digits(x: u64, n: u32) -> u64 {
        if n == 0 {
            return 0;
        }
        // The digits moved to the top bytes, then pairs, quads and octets combined
        // (as `digits8`).
        let x = x << (64 - 8 * n);
        let x = x.wrapping_mul(10).wrapping_add(x >> 8);
        let mask = 0x0000_00FF_0000_00FF;
        let x = ((x & mask).wrapping_mul(0x000F_4240_0000_0064))
            .wrapping_add(((x >> 16) & mask).wrapping_mul(0x0000_2710_0000_0001))
            >> 32;
        x & 0xFFFF_FFFF
    }

    /// Reads the feature tokens from `d[i..]` (`i` at a token) into `row` while they take
    /// this path and their indices ascend within the row: `(i, prev)` at the first token that
    /// does not (or within 16 bytes of the end), `prev` the last index written.
    #[inline(never)]
    pub(super) fn run<T: Element>(
        d: &[u8],
        mut i: usize,
        mut prev: usize,
        row: &mut [MaybeUninit<T>],
        expect: &[Expect],
    ) -> (usize, usize) {
        let stride = row.len();
        while i + 16 <= d.len() {
            let e = expect.get(prev).copied().unwrap_or(Expect::NONE);
            let Some((idx, v, l)) = feature(&d[i..i + 16], e) else { break };
            let idx = if idx == 0 { prev + 1 } else { idx as usize };
            if idx <= prev || idx > stride {
                break;
            }
            if idx != prev + 1 {
                row[prev..idx - 1].fill(MaybeUninit::new(T::ZERO));
            }
            // `+ 0.0`: see `fast_row`.
            row[idx - 1] = MaybeUninit::new(T::from_f64(v + 0.0));
            prev = idx;
            i += l;
        }
        (i, prev)
    }

    /// The text `<prev + 1>:` of the index that usually follows `prev` in a dense row, as
    /// the low bytes of a little-endian word, with its mask and length (the colon's place).
    #[derive(Clone, Copy)]
    pub(in super::super) struct Expect {
        pat: u64,
        mask: u64,
        colon: u32,
    }

    impl Expect {
        /// Matches no token.
        const NONE: Expect = Expect { pat: 1, mask: 0, colon: 0 };

        /// `table[prev]` for `prev` in `0..stride` (indices of at most 7 digits).
        pub(in super::super) fn table(stride: usize) -> Vec<Expect> {
            (1..=stride.min(MAX_TABLE))
                .map(|idx| {
                    let text = format!("{idx}:");
                    let mut b = [0u8; 8];
                    b[..text.len()].copy_from_slice(text.as_bytes());
                    let colon = text.len() as u32 - 1;
                    Expect { pat: u64::from_le_bytes(b), mask: (1u64 << (8 * text.len())) - 1, colon }
                })
                .collect()
        }
    }

    /// Rows wider than this read their indices in full (a table entry per column).
    const MAX_TABLE: usize = 1 << 16;

    #[inline(always)]
    fn feature(w: &[u8], e: Expect) -> Option<(u64, f64, usize)> {
        let w: &[u8; 16] = w.try_into().ok()?;
        // SAFETY: SSE2 is part of x86-64; the load reads the 16 bytes of `w`.
        let (space, digit) = unsafe {
            let v = _mm_loadu_si128(w.as_ptr() as *const __m128i);
            // ' ' or 0x09..=0x0D (the data part of a line holds no newline).
            let t = _mm_sub_epi8(v, _mm_set1_epi8(9));
            let ctl = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(4)), t);
            let sp = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8)), ctl);
            let t = _mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8));
            let dg = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t);
            (_mm_movemask_epi8(sp) as u32, _mm_movemask_epi8(dg) as u32)
        };
        // The token ends at the first separator; exactly one separator, then the next token.
        let len = (space | 1 << 16).trailing_zeros();
        if len >= 15 || space >> (len + 1) & 1 != 0 {
            return None;
        }
        // The first non-digit is the colon (after 1 to 8 digits), the next one, if inside the
        // token, the point.
        let other = !digit & ((1 << len) - 1);
        let lo = u64::from_le_bytes(w[..8].try_into().ok()?);
        let z = u128::from_le_bytes(*w) ^ 0x3030_3030_3030_3030_3030_3030_3030_3030;
        let (idx, c) = if lo & e.mask == e.pat {
            // The expected index (the usual case): `idx` is `prev + 1`, marked by 0 here.
            (0, e.colon)
        } else {
            let c = other.trailing_zeros();
            if c == 0 || c > 8 || w[c as usize] != b':' {
                return None;
            }
            let idx = digits(z as u64, c);
            if idx == 0 {
                return None;
            }
            (idx, c)
        };
        let rest = other & !((2u32 << c) - 1);
        let p = if rest == 0 { len } else { rest.trailing_zeros() };
        let has_dot = rest != 0;
        if has_dot && (w[p as usize] != b'.' || rest & (rest - 1) != 0) {
            return None;
        }
        // At least one digit in the value.
        if len - c - 1 == has_dot as u32 {
            return None;
        }
        // The value's bytes (at most 13 after a colon at 1 or more): when they fit in 8
        // bytes, with the point taken out, n <= 8 digits read at once.
        let start = c + 1;
        let x = (z >> (8 * start)) as u64;
        let n = len - start - has_dot as u32;
        let m = if len - start <= 8 {
            let x = if has_dot {
                let low = (1u64 << (8 * (p - start))) - 1;
                (x & low) | ((x >> 8) & !low)
            } else {
                x
            };
            digits(x, n)
        } else {
            // Long values: the digits before and after the point separately.
            let (a, k) = (p - start, len - p - has_dot as u32);
            if a > 8 || k > 8 {
                return None;
            }
            let int = digits(x, a);
            let frac = digits((z >> (8 * (p + 1)).min(127)) as u64, k);
            int * POW10_INT[k as usize] + frac
        };
        let k = if has_dot { len - p - 1 } else { 0 };
        // At most 12 digits: m < 2^52, so 2^52 + m is a double and the subtraction gives m
        // exactly (`m as f64`), without `cvtsi2sd`'s dependency on its register's previous
        // value, which chained every token's division to the one before.
        let m = f64::from_bits(0x4330_0000_0000_0000 | m) - 4_503_599_627_370_496.0;
        Some((idx, m / POW10[k as usize], len as usize + 1))
    }
}
