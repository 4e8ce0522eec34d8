//! Numbers: correctly rounded floats (Clinger's exact fast path for short decimals,
//! `fast-float2` for the rest), feature indices and qids.

/// ASCII whitespace inside a line (Python's `bytes.split()`, without the newline).
#[inline(always)]
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// A token for an error message (truncated, lossy UTF-8).
pub(super) fn show(tok: &[u8]) -> String {
    const MAX: usize = 40;
    let s = String::from_utf8_lossy(&tok[..tok.len().min(MAX)]).into_owned();
    if tok.len() > MAX {
        format!("{s}...")
    } else {
        s
    }
}

pub(super) enum FloatError {
    NotANumber,
    NonFinite,
}

#[inline]
pub(super) fn parse_float(tok: &[u8], allow_nonfinite: bool) -> std::result::Result<f64, FloatError> {
    match fast_float2::parse::<f64, _>(tok) {
        Ok(v) if v.is_finite() || allow_nonfinite => Ok(v),
        Ok(_) => Err(FloatError::NonFinite),
        Err(_) => Err(FloatError::NotANumber),
    }
}

pub(super) fn float_msg(what: &str, tok: &[u8], e: FloatError) -> String {
    match e {
        FloatError::NotANumber => format!("{what} '{}' is not a number", show(tok)),
        FloatError::NonFinite => {
            format!("{what} '{}' is not finite (NaN or infinity; pass allow_nonfinite=True to accept it)", show(tok))
        }
    }
}

/// Exact powers of ten (every `10^k`, `k <= 22`, is a double).
pub(super) const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// The run of ASCII digits at `s[i..]`, at most 8 of them, read 8 bytes at a time (SWAR):
/// `(value, count)`. Needs `i + 8 <= s.len()`.
#[inline(always)]
pub(super) fn digits8(s: &[u8], i: usize) -> (u64, usize) {
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
pub(super) fn digit_run(s: &[u8], i: &mut usize, w: &mut u64) -> usize {
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

pub(super) const POW10_INT: [u64; 9] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// Clinger's exact fast path for a plain decimal `[+-]digits[.digits]` starting at `s[i]`
/// and ending at whitespace or the end of `s`: with the digits read as an integer
/// `w <= 2^53` and `k <= 22` digits after the point, `w` and `10^k` are exact doubles and
/// one correctly rounded division gives the correctly rounded `w / 10^k`, the value
/// Python's `float()` returns. `None` for anything else (exponents, long mantissas,
/// `inf`, malformed text): the caller falls back to `fast-float2`.
#[inline(always)]
pub(super) fn fast_decimal(s: &[u8], mut i: usize) -> Option<(f64, usize)> {
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
pub(super) fn parse_index(s: &[u8]) -> Option<u64> {
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
pub(super) fn parse_qid(s: &[u8]) -> Option<i64> {
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
