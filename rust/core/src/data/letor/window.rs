//! Feature tokens read 16 bytes at a time with SSE2 (part of x86-64). `feature` reads one
//! token `<index>:<digits>[.<digits>]` at the start of a 16-byte window: the token's
//! separators, colon, point and digits are found by comparing the whole window at once, so
//! that the next token's position does not wait for this token's digits. It gives
//! `(index, value, token length)`, the value correctly rounded by the same exact division as
//! `number::fast_decimal` (a token of at most 14 bytes holds at most 12 digits, so the
//! integer mantissa is below 2^52), or `None` for any other token (longer, signed, with an
//! exponent, malformed), which the scalar path then reads. `run` reads a row's tokens while
//! they take this path; `Expect` is the text of the index a dense row expects next.

use std::arch::x86_64::*;
use std::mem::MaybeUninit;

use super::number::{POW10, POW10_INT};
use super::Element;

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
pub(super) struct Expect {
    pat: u64,
    mask: u64,
    colon: u32,
}

impl Expect {
    /// Matches no token.
    const NONE: Expect = Expect { pat: 1, mask: 0, colon: 0 };

    /// `table[prev]` for `prev` in `0..stride` (indices of at most 7 digits).
    pub(super) fn table(stride: usize) -> Vec<Expect> {
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
