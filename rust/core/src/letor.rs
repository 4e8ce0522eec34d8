//! LETOR / SVMlight ranking files: `<label> qid:<int> <i>:<v> <i>:<v> ... [# comment]`.
//!
//! One document per line; feature indices are 1-based and strictly ascending; absent
//! features are 0. The parser reads the whole file (memory-mapped, or decompressed into
//! memory when it starts with the gzip magic bytes), cuts it into chunks at newline
//! boundaries, parses the chunks in parallel (rayon) into sparse rows, and scatters them into
//! a dense row-major matrix. Floats are parsed with `fast-float2`, which rounds correctly, so
//! values are bit-identical to Python's `float()` and hence to scikit-learn's
//! `load_svmlight_file(path, query_id=True)`.
//!
//! Line handling follows scikit-learn: everything from the first `#` of a line is a comment;
//! lines that hold nothing else are skipped; tokens are separated by ASCII whitespace
//! (`' ' \t \r \v \f`), so CRLF files parse like LF files. Unlike scikit-learn, the `qid:`
//! token is required, feature index 0 is rejected (LETOR is 1-based) and NaN / infinite
//! values are rejected unless `allow_nonfinite` is set. Error line numbers are 1-based
//! file lines (blank and comment lines count), whatever the chunking.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use memchr::memchr;
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::interrupt::Interrupt;

/// Parser options.
#[derive(Clone, Debug, Default)]
pub struct LetorOptions {
    /// Number of columns of `x`; `None` = the largest feature index in the file. An index
    /// above a given `n_features` is an error.
    pub n_features: Option<usize>,
    /// Keep the text after `#` of each data row (trimmed; empty when absent).
    pub comments: bool,
    /// Accept NaN and infinite labels and values.
    pub allow_nonfinite: bool,
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
    fn from_f64(v: f64) -> Self;
}

impl Element for f64 {
    const ZERO: Self = 0.0;
    const NARROW: bool = false;
    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl Element for f32 {
    const ZERO: Self = 0.0;
    const NARROW: bool = true;
    #[inline]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

/// Target size of a parse chunk in bytes (a chunk always ends at a newline).
const CHUNK_BYTES: usize = 1 << 20;
/// Chunks parsed between two interrupt checks.
const CHUNKS_PER_BATCH: usize = 32;

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
    max_index: usize,
}

/// An error at a 0-based line of a chunk.
struct LocalError {
    line: usize,
    msg: String,
}

/// Parses an in-memory LETOR file.
pub fn parse_letor<T: Element>(
    buf: &[u8],
    opts: &LetorOptions,
    interrupt: &dyn Interrupt,
) -> Result<Letor<T>> {
    let ranges = chunk_ranges(buf, CHUNK_BYTES);
    let mut chunks: Vec<Chunk> = Vec::with_capacity(ranges.len());
    let mut lines_before = 0usize;
    for batch in ranges.chunks(CHUNKS_PER_BATCH) {
        interrupt.check()?;
        let parsed: Vec<std::result::Result<Chunk, LocalError>> = batch
            .par_iter()
            .map(|&(a, b)| parse_chunk(&buf[a..b], opts, T::NARROW))
            .collect();
        for r in parsed {
            match r {
                Ok(c) => {
                    lines_before += c.n_lines;
                    chunks.push(c);
                }
                Err(e) => {
                    return Err(Error::Parse { line: lines_before + e.line + 1, msg: e.msg });
                }
            }
        }
    }
    interrupt.check()?;
    assemble(chunks, lines_before, opts)
}

/// Reads and parses a LETOR file; gzip files (by their magic bytes) are decompressed into
/// memory first.
pub fn read_letor<T: Element>(
    path: &Path,
    opts: &LetorOptions,
    interrupt: &dyn Interrupt,
) -> Result<Letor<T>> {
    let with_path =
        |e: std::io::Error| Error::Io(std::io::Error::new(e.kind(), format!("{}: {}", path.display(), e)));
    let file = File::open(path).map_err(with_path)?;
    let meta = file.metadata().map_err(with_path)?;
    if meta.is_dir() {
        return Err(with_path(std::io::Error::other("is a directory")));
    }
    if meta.len() == 0 {
        return parse_letor(&[], opts, interrupt);
    }
    // SAFETY: the map is read-only and dropped before returning; a file truncated by
    // another process while we read it is outside what any reader can guard against.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(with_path)?;
    if map.starts_with(&[0x1f, 0x8b]) {
        let buf = gunzip(&map, interrupt).map_err(|e| match e {
            Error::Io(io) => with_path(io),
            other => other,
        })?;
        parse_letor(&buf, opts, interrupt)
    } else {
        parse_letor(&map, opts, interrupt)
    }
}

/// Decompresses a (possibly multi-member) gzip stream, checking `interrupt` as it goes.
fn gunzip(data: &[u8], interrupt: &dyn Interrupt) -> Result<Vec<u8>> {
    let mut dec = flate2::read::MultiGzDecoder::new(data);
    let mut out = Vec::with_capacity(data.len().saturating_mul(4));
    let mut block = vec![0u8; 1 << 22];
    loop {
        interrupt.check()?;
        let n = dec.read(&mut block)?;
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&block[..n]);
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
    let mut start = 0;
    let mut line = 0;
    while start < buf.len() {
        let end = memchr(b'\n', &buf[start..]).map_or(buf.len(), |i| start + i);
        parse_line(&buf[start..end], opts, narrow, &mut c).map_err(|msg| LocalError { line, msg })?;
        line += 1;
        start = end + 1;
    }
    c.n_lines = line;
    Ok(c)
}

#[inline]
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
        FloatError::NonFinite => format!(
            "{what} '{}' is not finite (NaN or infinity; pass allow_nonfinite=True to accept it)",
            show(tok)
        ),
    }
}

/// A 1-based feature index: ASCII digits, at most `u32::MAX`.
#[inline]
fn parse_index(s: &[u8]) -> Option<u32> {
    if s.is_empty() || s.len() > 10 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(b - b'0');
    }
    u32::try_from(v).ok()
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

/// Parses one line (without its `\n`) into `c`; `Err` holds the message.
#[inline]
fn parse_line(
    line: &[u8],
    opts: &LetorOptions,
    narrow: bool,
    c: &mut Chunk,
) -> std::result::Result<(), String> {
    let (data, comment) = match memchr(b'#', line) {
        Some(h) => (&line[..h], Some(&line[h + 1..])),
        None => (line, None),
    };
    let mut toks = Tokens { s: data, pos: 0 };
    let Some(label_tok) = toks.next() else {
        return Ok(()); // blank or comment-only line
    };
    let label =
        parse_float(label_tok, opts.allow_nonfinite).map_err(|e| float_msg("label", label_tok, e))?;
    let Some(qid_tok) = toks.next() else {
        return Err("missing qid: expected 'qid:<integer>' after the label".to_string());
    };
    let Some(qid_s) = qid_tok.strip_prefix(b"qid:") else {
        return Err(format!(
            "missing qid: expected 'qid:<integer>' after the label, got '{}'",
            show(qid_tok)
        ));
    };
    let qid = parse_qid(qid_s)
        .ok_or_else(|| format!("qid '{}' is not an integer", show(qid_s)))?;
    let mut prev: u32 = 0;
    for tok in toks {
        let Some(colon) = memchr(b':', tok) else {
            return Err(format!("expected '<index>:<value>', got '{}'", show(tok)));
        };
        let (idx_s, val_s) = (&tok[..colon], &tok[colon + 1..]);
        let idx = parse_index(idx_s).ok_or_else(|| {
            format!("feature index '{}' is not a positive integer (in '{}')", show(idx_s), show(tok))
        })?;
        if idx == 0 {
            return Err("feature index 0: LETOR feature indices are 1-based".to_string());
        }
        if idx == prev {
            return Err(format!("duplicate feature index {idx}"));
        }
        if idx < prev {
            return Err(format!("feature indices must be ascending: {idx} after {prev}"));
        }
        if let Some(n) = opts.n_features {
            if idx as usize > n {
                return Err(format!("feature index {idx} exceeds n_features={n}"));
            }
        }
        let v = parse_float(val_s, opts.allow_nonfinite)
            .map_err(|e| float_msg(&format!("value of feature {idx}"), val_s, e))?;
        if narrow && !opts.allow_nonfinite && v.is_finite() && !(v as f32).is_finite() {
            return Err(format!(
                "value of feature {idx} '{}' overflows float32 (load as float64, or pass allow_nonfinite=True)",
                show(val_s)
            ));
        }
        c.idx.push(idx);
        c.val.push(v);
        prev = idx;
    }
    c.max_index = c.max_index.max(prev as usize);
    c.y.push(label);
    c.qid.push(qid);
    c.row_end.push(c.idx.len());
    if opts.comments {
        let text = comment.map(trim).unwrap_or(b"");
        c.comments.push(String::from_utf8_lossy(text).into_owned());
    }
    Ok(())
}

/// Concatenates the chunks' rows and scatters the sparse rows into a dense matrix.
fn assemble<T: Element>(chunks: Vec<Chunk>, n_lines: usize, opts: &LetorOptions) -> Result<Letor<T>> {
    let m: usize = chunks.iter().map(|c| c.y.len()).sum();
    if m == 0 {
        return Err(Error::InvalidInput(format!(
            "empty file: no data rows (read {n_lines} line(s), all blank or comments)"
        )));
    }
    let n = opts
        .n_features
        .unwrap_or_else(|| chunks.iter().map(|c| c.max_index).max().unwrap_or(0));
    let size = m.checked_mul(n).ok_or_else(|| {
        Error::InvalidInput(format!("{m} rows x {n} features do not fit in memory"))
    })?;
    let mut x: Vec<T> = vec![T::ZERO; size];
    let mut parts: Vec<&mut [T]> = Vec::with_capacity(chunks.len());
    let mut rest: &mut [T] = &mut x;
    for c in &chunks {
        let (a, b) = rest.split_at_mut(c.y.len() * n);
        parts.push(a);
        rest = b;
    }
    chunks.par_iter().zip(parts.into_par_iter()).for_each(|(c, out)| {
        let mut s = 0;
        for (r, &e) in c.row_end.iter().enumerate() {
            let row = &mut out[r * n..(r + 1) * n];
            for k in s..e {
                row[c.idx[k] as usize - 1] = T::from_f64(c.val[k]);
            }
            s = e;
        }
    });
    let mut y = Vec::with_capacity(m);
    let mut qid = Vec::with_capacity(m);
    let mut comments = opts.comments.then(|| Vec::with_capacity(m));
    for c in chunks {
        y.extend_from_slice(&c.y);
        qid.extend_from_slice(&c.qid);
        if let Some(cs) = comments.as_mut() {
            cs.extend(c.comments);
        }
    }
    Ok(Letor { x, y, qid, n_features: n, comments })
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

    #[test]
    fn basic_file() {
        let d = parse("2 qid:1 1:0.5 3:-1e-3 # docid = 7\n\n# only a comment\n0 qid:1 2:4\r\n1 qid:-3\n")
            .unwrap();
        assert_eq!(d.n_features, 3);
        assert_eq!(d.y, vec![2.0, 0.0, 1.0]);
        assert_eq!(d.qid, vec![1, 1, -3]);
        assert_eq!(d.x, vec![0.5, 0.0, -1e-3, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0]);
        assert!(d.comments.is_none());
    }

    #[test]
    fn comments_and_f32() {
        let opts = LetorOptions { comments: true, n_features: Some(4), ..Default::default() };
        let d: Letor<f32> =
            parse_letor(b"1 qid:2 1:0.1 #  docid = GX01  \n0 qid:2 4:3", &opts, &NoInterrupt).unwrap();
        assert_eq!(d.n_features, 4);
        assert_eq!(d.x, vec![0.1f64 as f32, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0]);
        assert_eq!(d.comments.unwrap(), vec!["docid = GX01".to_string(), String::new()]);
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
            ("1 qid:1 2:1 1:1\n", 1, "ascending: 1 after 2"),
            ("1 qid:1 2:1 2:1\n", 1, "duplicate feature index 2"),
            ("1 qid:1 2:abc\n", 1, "value of feature 2 'abc' is not a number"),
            ("1 qid:1 2:nan\n", 1, "not finite"),
            ("inf qid:1 2:1\n", 1, "not finite"),
            ("1 qid:1 2:1e999\n", 1, "not finite"),
            ("1 qid:1 foo\n", 1, "expected '<index>:<value>'"),
            ("1 qid:1 -1:2\n", 1, "not a positive integer"),
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
        assert!(matches!(r, Err(Error::Parse { line: 2, msg }) if msg.contains("overflows float32")));
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
        for target in [1, 17, 100, 4096, 1 << 20] {
            let ranges = chunk_ranges(text.as_bytes(), target);
            assert_eq!(ranges.first().map(|r| r.0), Some(0));
            assert_eq!(ranges.last().map(|r| r.1), Some(text.len()));
            let mut chunks = Vec::new();
            let mut before = 0;
            let mut err = None;
            for &(a, b) in &ranges {
                match parse_chunk(&text.as_bytes()[a..b], &LetorOptions::default(), false) {
                    Ok(c) => {
                        before += c.n_lines;
                        chunks.push(c);
                    }
                    Err(e) => {
                        err = Some(before + e.line + 1);
                        break;
                    }
                }
            }
            assert_eq!(err, Some(total_lines), "chunk target {target}");
        }
        let (line, _) = parse_err(&text, &LetorOptions::default());
        assert_eq!(line, total_lines);
    }

    #[test]
    fn chunking_does_not_change_the_result() {
        let mut text = String::new();
        for i in 0..3000 {
            text.push_str(&format!("{} qid:{} {}:{}.25 9:1\n", i % 3, i / 10, 1 + i % 8, i));
        }
        let whole = parse(&text).unwrap();
        let ranges = chunk_ranges(text.as_bytes(), 333);
        let chunks: Vec<Chunk> = ranges
            .iter()
            .map(|&(a, b)| parse_chunk(&text.as_bytes()[a..b], &LetorOptions::default(), false).ok().unwrap())
            .collect();
        let pieces: Letor<f64> = assemble(chunks, 0, &LetorOptions::default()).unwrap();
        assert_eq!(whole, pieces);
        assert_eq!(whole.n_rows(), 3000);
    }

    #[test]
    fn gzip_round_trip() {
        use flate2::write::GzEncoder;
        use std::io::Write;
        let text = b"1 qid:4 1:1.5 3:2\n0 qid:4 2:-7\n";
        let mut enc = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text).unwrap();
        let gz = enc.finish().unwrap();
        let dir = std::env::temp_dir().join(format!("rankselect-letor-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (p1, p2) = (dir.join("a.txt.gz"), dir.join("a.txt"));
        std::fs::write(&p1, gz).unwrap();
        std::fs::write(&p2, text).unwrap();
        let opts = LetorOptions::default();
        let a: Letor<f64> = read_letor(&p1, &opts, &NoInterrupt).unwrap();
        let b: Letor<f64> = read_letor(&p2, &opts, &NoInterrupt).unwrap();
        assert_eq!(a, b);
        assert!(matches!(read_letor::<f64>(&dir.join("missing"), &opts, &NoInterrupt), Err(Error::Io(_))));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn interrupt_stops_parsing() {
        let r = parse_letor::<f64>(b"1 qid:1 1:1\n", &LetorOptions::default(), &|| true);
        assert!(matches!(r, Err(Error::Interrupted)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Written rows parse back exactly (shortest round-trip float formatting), whatever
        /// the chunk size.
        #[test]
        fn round_trip(rows in prop::collection::vec(
            (0u8..5, -3i64..50, prop::collection::vec(prop::option::of(any::<f64>().prop_filter("finite", |v| v.is_finite())), 6)),
            1..40),
            target in 1usize..200)
        {
            let mut text = String::new();
            for (label, q, vals) in &rows {
                text.push_str(&format!("{label} qid:{q}"));
                for (j, v) in vals.iter().enumerate() {
                    if let Some(v) = v {
                        text.push_str(&format!(" {}:{v:e}", j + 1));
                    }
                }
                text.push('\n');
            }
            let opts = LetorOptions { n_features: Some(6), ..Default::default() };
            let ranges = chunk_ranges(text.as_bytes(), target);
            let chunks: Vec<Chunk> = ranges.iter()
                .map(|&(a, b)| parse_chunk(&text.as_bytes()[a..b], &opts, false).ok().unwrap())
                .collect();
            let d: Letor<f64> = assemble(chunks, 0, &opts).unwrap();
            prop_assert_eq!(d.n_rows(), rows.len());
            for (i, (label, q, vals)) in rows.iter().enumerate() {
                prop_assert_eq!(d.y[i], f64::from(*label));
                prop_assert_eq!(d.qid[i], *q);
                for (j, v) in vals.iter().enumerate() {
                    prop_assert_eq!(d.x[i * 6 + j].to_bits(), v.unwrap_or(0.0).to_bits());
                }
            }
        }
    }
}
