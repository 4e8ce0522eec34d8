"""Fuzz target of the LETOR parser (issue #13), run by CI for a bounded time.

Contract, for any input bytes: ``rankselect.load_letor`` either

* returns exactly what ``sklearn.datasets.load_svmlight_file(path, query_id=True)`` returns
  (dense, bit for bit: X, y, qid; float64 or float32), or
* raises ``ValueError("<path>: line N: ...")`` where line N is indeed the first bad line
  (every earlier line loads on its own and line N alone does not), or ``"... no data rows"``
  for a file without any, or
* raises ``MemoryError`` when the dense result exceeds the memory limit (set small here).

Inputs are LETOR-like lines from a grammar of valid and near-valid tokens (numbers in every
notation Python's ``float()`` knows and some it does not, odd qids and indices, all ASCII
whitespace, comments, CRLF), then randomly mutated bytes. ``RANKSELECT_FUZZ_EXAMPLES``
(default 300, about 10-20 s on 2 cores; each run draws new inputs, and hypothesis keeps the
failing ones in its database) sets the number of inputs: raise it for a longer local run.
"""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_svmlight_file

import rankselect
from rankselect import load_letor

EXAMPLES = int(os.environ.get("RANKSELECT_FUZZ_EXAMPLES", "300"))
MAX_MEMORY = 4 << 20

ODD_NUMBERS = [
    b"nan", b"inf", b"-inf", b"Infinity", b"1e400", b"-1e400", b"1_0", b".5", b"5.", b"+.5", b"-.5e-3",
    b"0x10", b"", b".", b"-", b"+", b"1e", b"e5", b"00012.50", b"1.5E+3", b"12345678901234567890",
    b"0.000000000000000000000001", b"9007199254740993", b"9007199254740992.5", b"4.9e-324",
    b"2.4703282292062327e-324", b"1.7976931348623157e308", b"3.4028236e38", b"-0", b"-0.0", b"0e0",
    b"1..2", b"1.2.3", b"--1", b"+-1", b"1e+", b"\xc2\xbd", b"\xd9\xa3", b"1\x00",
]
WS = st.sampled_from([b" ", b" ", b" ", b"\t", b"  ", b" \t ", b"\x0b", b"\x0c"])
# a lone CR ends a line, as in CR-only files (issue 35)
EOL = st.sampled_from([b"\n", b"\n", b"\n", b"\r\n", b" \n", b"\t\n", b"\r"])


@st.composite
def numbers(draw) -> bytes:
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return str(draw(st.integers(-(10**6), 10**6))).encode()
    if kind == 1:
        return repr(draw(st.floats(allow_nan=False, allow_infinity=False))).encode()
    if kind == 2:
        v = draw(st.floats(-1e7, 1e7, allow_nan=False))
        return f"{v:.{draw(st.integers(0, 12))}f}".encode()
    if kind == 3:
        return f"{draw(st.floats(allow_nan=False, allow_infinity=False)):e}".encode()
    if kind == 4:
        digits = draw(st.text("0123456789", min_size=1, max_size=25))
        cut = draw(st.integers(0, len(digits)))
        sign = draw(st.sampled_from(["", "-", "+"]))
        return f"{sign}{digits[:cut]}.{digits[cut:]}".encode()
    if kind == 5:
        return draw(st.sampled_from(ODD_NUMBERS))
    return str(draw(st.integers(0, 4))).encode()


@st.composite
def qid_tokens(draw) -> bytes:
    if draw(st.integers(0, 9)) < 8:
        return b"qid:" + str(draw(st.integers(-5, 50))).encode()
    return draw(st.sampled_from([
        b"qid:+5", b"qid:-0", b"qid:007", b"qid:1_0", b"qid:", b"qid:9223372036854775807",
        b"qid:9223372036854775808", b"qid:-9223372036854775808", b"qid:x", b"QID:1", b"qid:1.0",
        b"qid:1:2", b"qid", b"1:2",
    ]))


@st.composite
def index_tokens(draw, idx: int) -> bytes:
    if draw(st.integers(0, 19)) < 18:
        return str(idx).encode()
    return draw(st.sampled_from([b"0", b"+3", b"07", b"3_0", b"-1", b"", b"a", b"2147483647", b"2147483648",
                                 b"4294967295", b"99999999999", b"1e3", b"\xd9\xa3"]))


@st.composite
def lines(draw) -> bytes:
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return draw(st.sampled_from([b"", b"   ", b"\t"])) + draw(EOL)
    if kind == 1:
        return b"#" + draw(st.binary(max_size=12)).replace(b"\n", b" ") + draw(EOL)
    parts = [draw(numbers()) if draw(st.integers(0, 4)) == 0 else str(draw(st.integers(0, 4))).encode()]
    parts.append(draw(qid_tokens()))
    n = draw(st.integers(0, 8))
    idx = sorted(draw(st.sets(st.integers(1, 40), max_size=n)))
    if idx and draw(st.integers(0, 9)) == 0:
        draw(st.randoms()).shuffle(idx)
    for j in idx:
        parts.append(draw(index_tokens(j)) + b":" + draw(numbers()))
    out = parts[0]
    for p in parts[1:]:
        out += draw(WS) + p
    if draw(st.integers(0, 4)) == 0:
        out += draw(WS) + b"#" + draw(st.binary(max_size=10)).replace(b"\n", b" ")
    return out + draw(EOL)


@st.composite
def files(draw) -> bytes:
    data = bytearray(b"".join(draw(st.lists(lines(), min_size=0, max_size=8))))
    for _ in range(draw(st.integers(0, 3)) if data else 0):
        pos = draw(st.integers(0, len(data)))
        op = draw(st.integers(0, 2))
        byte = draw(st.sampled_from(list(b"0123456789:.#-+eq \t\n\r\x0b\x00\xff")))
        if op == 0:
            data.insert(pos, byte)
        elif op == 1 and pos < len(data):
            del data[pos]
        elif pos < len(data):
            data[pos] = byte
    if draw(st.booleans()) and data.endswith(b"\n"):
        data = data[:-1]
    return bytes(data)


def _load(path: Path, dtype):
    with rankselect.config_context(max_memory=MAX_MEMORY):
        return load_letor(path, dtype=dtype)


def _line_error(path: Path, dtype) -> str | None:
    try:
        _load(path, dtype)
    except ValueError as e:
        return str(e)
    except MemoryError:
        return None
    return None


def check_contract(data: bytes, dtype, workdir: Path) -> None:
    path = workdir / "fuzz.txt"
    path.write_bytes(data)
    try:
        ours = _load(path, dtype)
    except MemoryError as e:
        # only a (large) index can make a few lines exceed the limit
        assert "features" in str(e) and "memory limit" in str(e), str(e)
        return
    except ValueError as e:
        msg = str(e)
        m = re.match(re.escape(str(path)) + r": line (\d+): ", msg)
        if m is None:
            assert msg.endswith("all blank or comments)") and "no data rows" in msg, msg
            return
        line = int(m.group(1))
        file_lines = re.split(b"\r\n|\r|\n", data)  # the parser's line ends: LF, CRLF and a lone CR
        assert 1 <= line <= len(file_lines), msg
        # line N is the first bad line: it fails on its own, and the lines before it do not
        alone = workdir / "alone.txt"
        alone.write_bytes(file_lines[line - 1])
        err = _line_error(alone, dtype)
        assert err is not None and ": line 1: " in err, (msg, err)
        before = workdir / "before.txt"
        before.write_bytes(b"\n".join(file_lines[: line - 1]))
        err = _line_error(before, dtype)
        # the density rule (a typo index, "makes the dense X at least ...") is a rule on the
        # rows read so far, checked when a block's rows are appended, after the block's lines
        # have parsed: a bad line later in the same block is reported first
        assert err is None or "no data rows" in err or "makes the dense X" in err, (msg, err)
        return
    # scikit-learn's reader ends lines at LF only (a lone CR is whitespace to it); the parser also
    # ends them at a lone CR (CR-only files, issue 35): compare on the same lines
    lf = workdir / "lf.txt"
    lf.write_bytes(re.sub(b"\r(?!\n)", b"\n", data))
    X, y, q = load_svmlight_file(str(lf), query_id=True, dtype=dtype)
    X = X.toarray()
    assert ours.X.dtype == X.dtype and ours.X.shape == X.shape, (ours.X.shape, X.shape)
    assert np.array_equal(ours.X.view(np.uint8), np.ascontiguousarray(X).view(np.uint8))
    assert np.array_equal(ours.y.view(np.uint64), y.astype(np.float64).view(np.uint64))
    assert np.array_equal(ours.qid, q)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=files(), dtype=st.sampled_from([np.float64, np.float64, np.float32]))
def test_parser_contract(data, dtype):
    with tempfile.TemporaryDirectory() as d:
        check_contract(data, dtype, Path(d))


def test_contract_checker_catches_differences(tmp_path):
    """The checker itself: a valid file passes, and it would notice a wrong value."""
    check_contract(b"1 qid:1 1:0.5 3:2\n0 qid:1 2:1e-3 # c\n", np.float64, tmp_path)
    check_contract(b"1 qid:1 1:1\n\n1 qid:1 2:x\n", np.float64, tmp_path)
    p = tmp_path / "f.txt"
    p.write_bytes(b"1 qid:1 1:0.5\n")
    X, _, _ = load_svmlight_file(str(p), query_id=True)
    assert not np.array_equal(load_letor(p).X, np.nextafter(X.toarray(), 1))
