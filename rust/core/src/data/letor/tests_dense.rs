//! The fast dense path against the reference path.

use proptest::prelude::*;

use super::*;
use crate::interrupt::NoInterrupt;

/// Parses with the fast path (or, `reference`, the sparse reference path only); the
/// result as comparable text: the error, or every bit of the arrays.
fn parse_either<T: Element>(text: &[u8], opts: &LetorOptions, reference: bool, block: usize, chunk: usize) -> String {
    let mut b = builder::Builder::<T>::new(opts, chunk);
    b.reference_only = reference;
    b.size_hint = Some(text.len() as u64);
    let r = (|| {
        for (s, e) in line::chunk_ranges(text, block) {
            b.add_block(&text[s..e], &NoInterrupt)?;
        }
        b.finish()
    })();
    match r {
        Err(e) => format!("error: {e}"),
        Ok(d) => {
            let bits = |v: &[f64]| v.iter().map(|x| format!("{:x}", x.to_bits())).collect::<Vec<_>>().join(",");
            let x: Vec<f64> = d.x.iter().map(|&v| to_f64(v)).collect();
            format!(
                "{} x {}: x {} y {} qid {:?} comments {:?}",
                d.n_rows(),
                d.n_features,
                bits(&x),
                bits(&d.y),
                d.qid,
                d.comments
            )
        }
    }
}

/// The bits of an element as an f64 (f32 widens exactly).
fn to_f64<T: Element>(v: T) -> f64 {
    let any: &dyn std::any::Any = &v;
    match (any.downcast_ref::<f64>(), any.downcast_ref::<f32>()) {
        (Some(&x), _) => x,
        (_, Some(&x)) => f64::from(x),
        _ => unreachable!(),
    }
}

fn token_strategy() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "0",
        "1",
        "12",
        "0.5",
        "0.947081",
        "640.423",
        "1304",
        "-0.25",
        "-0",
        "+3.5",
        "1e-05",
        "5.12345e-05",
        "1.5E3",
        "12345678.12345678",
        "123456789.5",
        "0.000000000000000001",
        "99999999999999999999",
        ".5",
        "5.",
        ".",
        "-",
        "nan",
        "inf",
        "-inf",
        "1.5x",
        "1:2",
        "abc",
        "",
        "3.4e39",
        "1e400",
        "0.1234567890123",
    ])
    .prop_map(str::to_string)
}

fn line_strategy() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["0", "2", "1.5", "-1", "x", "", "+4", "3e0", "nan"]),
        prop::sample::select(vec!["qid:1", "qid:1", "qid:-7", "qid:12345678901", "qid:x", "", "qid:", "1:1"]),
        prop::collection::vec(
            (1u32..4, token_strategy(), prop::sample::select(vec![" ", " ", " ", "  ", "\t", " \r"])),
            0..24,
        ),
        prop::sample::select(vec!["", "", " # docid = 7", "#c", " \r", "   "]),
        0u8..20,
    )
        .prop_map(|(label, qid, feats, tail, kind)| {
            match kind {
                0 => return String::new(),
                1 => return "# only a comment".to_string(),
                2 => return "   ".to_string(),
                _ => {}
            }
            let mut s = format!("{label} {qid}");
            let mut idx = 0u32;
            for (k, (step, tok, sep)) in feats.iter().enumerate() {
                // now and then an index out of order or repeated, or a huge one
                idx = match (kind, k) {
                    (3, 5) => idx.saturating_sub(2).max(1),
                    (4, 3) => idx,
                    (5, 2) => 0,
                    (6, 7) => 3_000_000_000,
                    (7, 1) => idx + 200,
                    _ => idx + step,
                };
                s.push_str(sep);
                s.push_str(&format!("{idx}:{tok}"));
                idx = idx.min(1_000_000);
            }
            s.push_str(tail);
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// The fast dense path gives exactly what the reference path gives: the same bits, or
    /// the same error message with its line, for valid and malformed lines alike, whatever
    /// the blocks, chunks, element type and options.
    #[test]
    fn fast_path_matches_the_reference_path(
        lines in prop::collection::vec(line_strategy(), 1..30),
        block in 1usize..3000, chunk in 1usize..600, crlf in any::<bool>(),
        n_features in prop::option::of(1usize..300), comments in any::<bool>(), allow_nonfinite in any::<bool>(),
        narrow in any::<bool>(), max_memory in prop::option::of(1u64..20_000), last_newline in any::<bool>())
    {
        let mut text = lines.join(if crlf { "\r\n" } else { "\n" });
        if last_newline {
            text.push('\n');
        }
        let opts = LetorOptions { n_features, comments, allow_nonfinite, max_memory };
        let (fast, reference) = if narrow {
            (parse_either::<f32>(text.as_bytes(), &opts, false, block, chunk),
             parse_either::<f32>(text.as_bytes(), &opts, true, block, chunk))
        } else {
            (parse_either::<f64>(text.as_bytes(), &opts, false, block, chunk),
             parse_either::<f64>(text.as_bytes(), &opts, true, block, chunk))
        };
        prop_assert_eq!(fast, reference, "{}", text);
    }
}

#[test]
fn fast_path_matches_the_reference_path_on_wide_dense_rows() {
    // Rows long enough for the 16-byte windows, every spelling at every position.
    let toks = ["0.947081", "640.423", "1304", "0", "5.12345e-05", "-0.25", "12345678.1", "0.000001", "99.5", "-0"];
    let mut text = String::new();
    for r in 0..300usize {
        text.push_str(&format!("{} qid:{}", r % 5, r / 7));
        for j in 1..=136usize {
            if (r + j) % 11 != 0 {
                text.push_str(&format!(" {j}:{}", toks[(r * 7 + j) % toks.len()]));
            }
        }
        text.push_str(if r % 13 == 0 { " # doc\n" } else { "\n" });
    }
    for (block, chunk) in [(1 << 20, 1 << 10), (5000, 700), (100_000, 100_000)] {
        for comments in [false, true] {
            let opts = LetorOptions { comments, ..Default::default() };
            assert_eq!(
                parse_either::<f64>(text.as_bytes(), &opts, false, block, chunk),
                parse_either::<f64>(text.as_bytes(), &opts, true, block, chunk)
            );
            assert_eq!(
                parse_either::<f32>(text.as_bytes(), &opts, false, block, chunk),
                parse_either::<f32>(text.as_bytes(), &opts, true, block, chunk)
            );
        }
    }
}

/// #35 item 7: lone `\r` line ends (classic Mac OS) are line ends on both paths: 4 rows, not
/// the one row before the first comment, with the line numbers of the `\n` file in errors.
#[test]
fn cr_only_line_ends_are_line_ends() {
    let opts = LetorOptions::default();
    let lf = "2 qid:1 1:0.5 2:1 # a\n0 qid:1 1:1 2:0\n1 qid:2 1:0 2:2 # b\n3 qid:2 1:4 2:1\n";
    let cr = lf.replace('\n', "\r");
    let mixed = "2 qid:1 1:0.5 2:1 # a\r\n0 qid:1 1:1 2:0\r1 qid:2 1:0 2:2 # b\n3 qid:2 1:4 2:1\r";
    for reference in [false, true] {
        let want = parse_either::<f64>(lf.as_bytes(), &opts, reference, 1 << 20, 1 << 10);
        assert!(want.starts_with("4 x 2"), "{want}");
        for text in [cr.as_str(), mixed] {
            for (block, chunk) in [(1 << 20, 1 << 10), (7, 3)] {
                assert_eq!(parse_either::<f64>(text.as_bytes(), &opts, reference, block, chunk), want);
            }
        }
        let bad = "1 qid:1 1:0\r0 qid:1 1:x\r";
        let got = parse_either::<f64>(bad.as_bytes(), &opts, reference, 1 << 20, 1 << 10);
        let want = parse_either::<f64>(bad.replace('\r', "\n").as_bytes(), &opts, reference, 1 << 20, 1 << 10);
        assert!(got.contains("line 2"), "{got}");
        assert_eq!(got, want);
    }
}
