"""Loader reliability (issue #13 C1, C4, C5, W6, W8, U3): the memory rule for the dense
matrix, streamed gzip, no memory mapping, pipes, featureless files and gzip padding.

Tests that could exhaust the machine on a regression run in a child process under
``RLIMIT_AS``, so that a regression fails instead of swapping or being OOM-killed."""
from __future__ import annotations

import gzip
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_svmlight_file

import rankselect
from rankselect import load_letor
from rankselect.cli import main as cli_main

PYTHON_DIR = str(Path(rankselect.__file__).resolve().parent.parent)


def run_limited(code: str, limit_mb: int, timeout: int = 240, **kw) -> subprocess.CompletedProcess:
    """Run ``code`` in a child Python whose address space is limited to ``limit_mb`` MiB more
    than an idle interpreter with rankselect imported."""
    prelude = textwrap.dedent(
        f"""
        import resource
        import rankselect
        def _vm():
            for line in open("/proc/self/status"):
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
        _lim = _vm() + {limit_mb} * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (_lim, _lim))
        """
    )
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""),
               RAYON_NUM_THREADS="2")
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, env=env, **kw)


def sk_dense(path, **kw):
    X, y, q = load_svmlight_file(str(path), query_id=True, **kw)
    return X.toarray(), y, q


# --- C1: the dense matrix is sized before it is allocated ---------------------------------


def test_impossible_feature_index_is_a_value_error_naming_the_line(tmp_path):
    p = tmp_path / "f.txt"
    p.write_text("1 qid:1 4294967295:1\n")
    r = run_limited(f"""
        try:
            rankselect.load_letor({str(p)!r})
        except ValueError as e:
            print("ValueError", e)
        """, limit_mb=512)
    assert r.returncode == 0, r.stderr
    assert "ValueError" in r.stdout and "line 1: feature index 4294967295 is too large" in r.stdout


@pytest.mark.parametrize("text,kw,error", [
    # a typo index: the density rule's ValueError naming the line comes first (issue 35)
    ("1 qid:1 1:1\n0 qid:1 2000000000:1\n", {}, "ValueError"),
    ("1 qid:1 1:1\n", {"n_features": 10**12}, "MemoryError"),
])
def test_huge_dense_matrix_is_a_memory_error_before_allocation(tmp_path, text, kw, error):
    p = tmp_path / "f.txt"
    p.write_text(text)
    # whether the check refuses it (limit: available memory) or the address-space limit
    # makes the allocation fail, the child must get a MemoryError, not abort
    r = run_limited(f"""
        try:
            rankselect.load_letor({str(p)!r}, **{kw!r})
        except (MemoryError, ValueError) as e:
            print(type(e).__name__, e)
        """, limit_mb=512)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(error) and "f.txt" in r.stdout, r.stdout
    if error == "ValueError":  # the density rule names the line and the remedy
        assert "line 2: feature index 2000000000" in r.stdout and "n_features=2000000000" in r.stdout
        return
    # sizes in binary units; the limit is the address-space headroom (MiB here) since issue 23
    assert "features" in r.stdout and ("GiB" in r.stdout or "TiB" in r.stdout) and "MiB" in r.stdout


def test_memory_error_names_sizes_index_and_remedy(tmp_path):
    p = tmp_path / "typo.txt"
    p.write_text("1 qid:1 1:1 2:1\n" * 5 + "0 qid:2 1:3 20000000:1\n" + "1 qid:2 2:1\n")
    with rankselect.config_context(max_memory=2**30):  # the density rule first (issue 35)
        with pytest.raises(ValueError, match=r"line 6: feature index 20000000 .* n_features=20000000"):
            load_letor(p)
        with pytest.raises(MemoryError) as exc:  # asked for: the memory rule
            load_letor(p, n_features=20000000)
    msg = str(exc.value)
    for part in ("typo.txt", "x 20000000 features", "float64", "GiB", "1.0 GiB", "set_config(max_memory"):
        assert part in msg, (part, msg)
    with rankselect.config_context(max_memory=2**30):
        with pytest.raises(MemoryError, match="n_features=10000000000 was given"):
            load_letor(p, n_features=10**10)
        # float32 halves X: 7 x 2e7 x 4 B = 534 MiB fits in 1 GiB
        assert load_letor(p, dtype=np.float32).X.shape == (7, 20000000)


def test_info_cli_refuses_a_typo_index_cleanly(tmp_path, capsys):
    p = tmp_path / "f.txt"
    p.write_text("1 qid:1 1:1\n0 qid:1 300000000:1\n")
    with rankselect.config_context(max_memory=2**30):
        assert cli_main(["info", str(p)]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "300000000" in err and "n_features=300000000" in err
    p.write_text("1 qid:1 4294967295:1\n")
    assert cli_main(["info", str(p)]) == 2
    assert "line 1: feature index 4294967295 is too large" in capsys.readouterr().err


def test_n_features_beyond_any_memory_is_rejected(tmp_path):
    p = tmp_path / "f.txt"
    p.write_text("1 qid:1 1:1\n")
    with pytest.raises(ValueError, match="too large"):
        load_letor(p, n_features=10**20)


# --- C4, U3: gzip is decompressed as it is read ------------------------------------------


def _gzip_member(data: bytes, level: int = 1) -> bytes:
    return gzip.compress(data, compresslevel=level)


def test_gzip_of_many_blank_lines_streams(tmp_path):
    # 1 GiB of blank lines (one 64 MiB member, 16 times) and then one row, about 1 MB
    # compressed; the child may use 384 MiB more than an idle interpreter, so decompressing
    # the whole file into memory (as before) fails while streaming it does not.
    blank = _gzip_member(b"\n" * (64 << 20), level=6)
    p = tmp_path / "blank.txt.gz"
    p.write_bytes(blank * 16 + _gzip_member(b"1 qid:7 2:0.5\n"))
    assert p.stat().st_size < 3 << 20
    r = run_limited(f"""
        d = rankselect.load_letor({str(p)!r})
        print(d.X.shape, d.qid.tolist())
        """, limit_mb=384)
    assert r.returncode == 0, r.stderr
    assert "(1, 2) [7]" in r.stdout


def test_gzip_with_trailing_zero_padding_loads_like_python_gzip(tmp_path):
    text = b"1 qid:1 1:1.25 2:3\n0 qid:2 2:-1\n"
    padded = _gzip_member(text) + b"\0" * 512
    assert gzip.decompress(padded) == text  # the premise: Python's gzip accepts it
    p = tmp_path / "padded.txt.gz"
    p.write_bytes(padded)
    q = tmp_path / "plain.txt"
    q.write_bytes(text)
    a, b = load_letor(p), load_letor(q)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y) and np.array_equal(a.qid, b.qid)


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "garbage"])
def test_corrupt_gzip_is_an_os_error_naming_the_file(tmp_path, damage):
    gz = _gzip_member(b"1 qid:1 1:1\n" * 5000)
    if damage == "truncated":
        gz = gz[: len(gz) // 2]
    elif damage == "corrupt":
        gz = gz[:20] + bytes(b ^ 0x5A for b in gz[20:60]) + gz[60:]
    else:
        gz = gz + b"not gzip"
    p = tmp_path / "bad.txt.gz"
    p.write_bytes(gz)
    with pytest.raises(OSError, match=r"bad\.txt\.gz: corrupt or truncated gzip data"):
        load_letor(p)


# --- C5: no memory mapping: truncation while loading cannot kill the process -------------


def test_file_truncated_while_loading_does_not_crash(tmp_path):
    rows = "".join(f"{i % 3} qid:{i // 40} " + " ".join(f"{j}:{(i * j) % 997 / 7:.5f}" for j in range(1, 41))
                   + "\n" for i in range(2000))
    template = tmp_path / "template.txt"
    template.write_text(rows * 25)  # ~30 MB
    target = tmp_path / "live.txt"
    r = run_limited(f"""
        import os, shutil, threading, time
        outcomes = []
        for delay in (0.0, 0.002, 0.01, 0.03, 0.06, 0.1):
            shutil.copyfile({str(template)!r}, {str(target)!r})
            size = os.path.getsize({str(target)!r})
            def cut():
                time.sleep(delay)
                os.truncate({str(target)!r}, size // 3)
            t = threading.Thread(target=cut)
            t.start()
            try:
                d = rankselect.load_letor({str(target)!r})
                outcomes.append(d.X.shape[0])
            except ValueError as e:
                outcomes.append("ValueError")
            t.join()
        print("survived", outcomes)
        """, limit_mb=2048)
    assert r.returncode == 0, (r.returncode, r.stderr)  # SIGBUS would give -7
    assert "survived" in r.stdout


# --- W6: pipes, /dev/stdin, <(...) --------------------------------------------------------


def _text(n=20000):
    return "".join(f"{i % 4} qid:{i // 30} 1:{i * 0.5} 3:{-i} # d{i}\n" for i in range(n)).encode()


def test_pipe_loads(tmp_path):
    text = _text()  # larger than a pipe buffer
    plain = tmp_path / "plain.txt"
    plain.write_bytes(text)
    want = load_letor(plain)
    for payload in (text, _gzip_member(text)):
        r, w = os.pipe()

        def feed(w=w, payload=payload):
            with os.fdopen(w, "wb") as f:
                f.write(payload)

        t = threading.Thread(target=feed)
        t.start()
        try:
            got = load_letor(f"/dev/fd/{r}")
        finally:
            t.join()
            os.close(r)
        assert np.array_equal(got.X, want.X) and np.array_equal(got.qid, want.qid)


def test_dev_stdin_and_process_substitution(tmp_path):
    text = _text(500)
    plain = tmp_path / "plain.txt"
    plain.write_bytes(text)
    code = "import rankselect, sys; d = rankselect.load_letor(sys.argv[1]); print(d.X.shape, int(d.qid.sum()))"
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    want = load_letor(plain)
    expected = f"({want.X.shape[0]}, {want.X.shape[1]}) {int(want.qid.sum())}"
    r = subprocess.run([sys.executable, "-c", code, "/dev/stdin"], input=text, capture_output=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode().strip() == expected
    bash = f'{sys.executable} -c "$0" <(cat "$1")'
    r = subprocess.run(["bash", "-c", bash, code, str(plain)], capture_output=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode().strip() == expected


def test_empty_pipe_is_an_empty_file_error():
    r, w = os.pipe()
    os.close(w)
    try:
        with pytest.raises(ValueError, match="no data rows"):
            load_letor(f"/dev/fd/{r}")
    finally:
        os.close(r)


# --- W8: rows without features ------------------------------------------------------------


@pytest.mark.parametrize("text", ["1 qid:1\n0 qid:1\n2 qid:5 # no features\n", "3 qid:1 # c\n"])
def test_featureless_file_matches_scikit_learn_shape(tmp_path, text):
    p = tmp_path / "f.txt"
    p.write_text(text)
    d = load_letor(p)
    X, y, q = sk_dense(p)
    assert d.X.shape == X.shape and d.X.shape[1] == 1
    assert np.array_equal(d.X, X) and np.array_equal(d.y, y) and np.array_equal(d.qid, q)
    assert load_letor(p, n_features=4).X.shape == (X.shape[0], 4)


def test_float32_underflow_to_negative_zero_is_positive_zero(tmp_path):
    """Found by the fuzz test: a tiny negative value that rounds to -0.0 in float32 loads as
    +0.0, bit for bit as scikit-learn's loader."""
    from sklearn.datasets import load_svmlight_file

    p = tmp_path / "tiny.txt"
    p.write_bytes(b"0 qid:0 1:-2.225073858507203e-309 #\n")
    ours = rankselect.load_letor(str(p), dtype=np.float32).X
    ref = load_svmlight_file(str(p), query_id=True, dtype=np.float32)[0].toarray()
    assert ours.view(np.uint8).tolist() == np.ascontiguousarray(ref).view(np.uint8).tolist()


@pytest.mark.parametrize("gz", [False, True])
def test_cr_only_line_ends_keep_every_row(tmp_path, gz):
    # #35 item 7: a file with classic Mac OS line ends (lone "\r") loaded 4 rows as 1
    lf = "2 qid:1 1:0.5 2:1 # d1\n0 qid:1 1:1 2:0\n1 qid:2 1:0 2:2 # d3\n3 qid:2 1:4 2:1\n"
    want = load_letor(_write(tmp_path / "lf.txt", lf.encode(), False), comments=True)
    for name, text in [("cr", lf.replace("\n", "\r")), ("mixed", lf.replace("\n", "\r", 2))]:
        got = load_letor(_write(tmp_path / f"{name}.txt", text.encode(), gz), comments=True)
        assert got.X.shape == (4, 2)
        np.testing.assert_array_equal(got.X, want.X)
        np.testing.assert_array_equal(got.y, want.y)
        np.testing.assert_array_equal(got.qid, want.qid)
        assert got.comments == want.comments
    bad = _write(tmp_path / "bad.txt", b"1 qid:1 1:0\r0 qid:1 1:x\r", gz)
    with pytest.raises(ValueError, match="line 2"):
        load_letor(bad)


def _write(path, data: bytes, gz: bool):
    path.write_bytes(gzip.compress(data) if gz else data)
    return str(path)
