use std::path::PathBuf;

use super::number::{digits8, fast_decimal};
use super::reader::BlockReader;
use super::*;
use crate::error::Error;
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
    // 3 x 2e9 float64 = 44.7 GiB: a likely typo, refused by the density rule (which comes
    // before the memory rule, issue 35) at its line, before any of it is allocated.
    let opts = LetorOptions { max_memory: Some(1 << 30), ..Default::default() };
    let r = parse_letor::<f64>(b"1 qid:1 1:1\n0 qid:1 2000000000:1\n1 qid:2 3:1\n", &opts, &NoInterrupt);
    let Err(Error::Parse { line: 2, msg }) = r else { panic!("expected the density rule at line 2, got {r:?}") };
    for part in ["feature index 2000000000", "44.7 GiB", "pass n_features=2000000000"] {
        assert!(msg.contains(part), "{part:?} not in {msg}");
    }
    // n_features = 1e12: refused at the first rows.
    let opts = LetorOptions { n_features: Some(1_000_000_000_000), max_memory: Some(1 << 30), ..Default::default() };
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
fn density_rule_refuses_a_typo_index_unless_n_features_is_given() {
    // 2 x 999999999 float64 = 14.9 GiB from 31 bytes of text: a ValueError naming the line,
    // the index and the remedy (the memory rule alone would let it through on a big machine).
    let text = b"1 qid:1 1:1\n0 qid:1 999999999:1\n";
    let r = parse_letor::<f64>(text, &LetorOptions::default(), &NoInterrupt);
    let Err(e @ Error::Parse { line: 2, .. }) = r else { panic!("expected a parse error, got {r:?}") };
    let msg = e.to_string();
    assert!(msg.contains("999999999") && msg.contains("n_features=999999999"), "{msg}");
    // Asked for: the density rule steps aside (the memory rule still applies).
    let opts = LetorOptions { n_features: Some(999_999_999), max_memory: Some(1 << 20), ..Default::default() };
    assert!(matches!(parse_letor::<f64>(text, &opts, &NoInterrupt), Err(Error::Memory { .. })));
    // Under a small memory limit the typo is still the density rule's error naming the line
    // (the memory rule's MemoryError came first before).
    let opts = LetorOptions { max_memory: Some(1 << 20), ..Default::default() };
    let r = parse_letor::<f64>(text, &opts, &NoInterrupt);
    assert!(matches!(r, Err(Error::Parse { line: 2, .. })), "expected the density rule's error, got {r:?}");
    // Below 1 GiB a sparse file loads as before.
    assert_eq!(
        parse_letor::<f64>(b"1 qid:1 1000000:1\n", &LetorOptions::default(), &NoInterrupt).unwrap().n_features,
        1000000
    );
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

#[test]
fn block_reader_ends_blocks_at_lone_carriage_returns() {
    let dir = temp_dir("cr");
    let p = dir.join("cr.txt");
    let text: String = (0..40).map(|i| format!("{} qid:{} 1:{i}.25 # c{i}\r", i % 3, i / 4)).collect();
    std::fs::write(&p, &text).unwrap();
    let mut r = BlockReader::open(&p, None).unwrap();
    r.block = 64;
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    let mut buf = Vec::new();
    while let Some((b, n)) = r.next_block(buf).unwrap() {
        assert_eq!(b[n - 1], b'\r');
        blocks.push(b[..n].to_vec());
        buf = b;
    }
    assert!(blocks.len() > 1);
    assert_eq!(blocks.concat(), text.as_bytes());
    let d: Letor<f64> = read_letor(&p, &LetorOptions::default(), &NoInterrupt).unwrap();
    assert_eq!(d.n_rows(), 40);
    let _ = std::fs::remove_dir_all(&dir);
}
