"""The command line as a user's shell meets it (issue 17): ``train --out`` chained with
``evaluate``, RankLib's prediction format, ``| head`` and Ctrl-C, and wording. Run through
subprocess (``python -m rankselect``) where the process itself matters."""
from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import rankselect
from rankselect.cli import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, cli_wording, main

DATA = rankselect.data.datasets.example_path("train").parent  # the example data shipped with the package


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(rankselect.__file__).resolve().parents[1]) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def rankselect_cmd(*args):
    return [sys.executable, "-m", "rankselect", *map(str, args)]


# --- item 4: train --out, evaluate reads it (and RankLib's format) -------------------------


def test_train_out_then_evaluate(tmp_path, capsys):
    # through main(), the function the console script runs: files, not the process, matter here
    train, test = DATA / "example_train.txt", DATA / "example_test.txt"
    scores = tmp_path / "p.txt"
    assert main(["train", str(train), "--test", str(test), "--C", "0.5", "--out", str(scores), "--json"]) == 0
    trained = json.loads(capsys.readouterr().out)["test"]
    lines = scores.read_text().splitlines()
    data = rankselect.load_letor(test)
    assert len(lines) == data.n_samples
    assert main(["evaluate", str(test), "--scores", str(scores), "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    for conv in ("exponential", "letor"):
        for k, v in trained[conv].items():
            assert evaluated[conv][k] == pytest.approx(v, abs=1e-12), (conv, k)
    # the scores are the model's, in TEST's row order
    Xtr, ytr, qtr = rankselect.load_letor(train)
    expected = rankselect.RankSVM(C=0.5).fit(Xtr, ytr, qid=qtr).predict(data.X)
    np.testing.assert_allclose([float(s) for s in lines], expected, rtol=1e-12, atol=1e-12)


def test_train_out_to_stdout_pipes_into_evaluate(capsys, monkeypatch):
    # `rankselect train ... --out - | rankselect evaluate TEST --scores -`, both through main()
    # (the function the console script runs): train's scores on stdout, its report on stderr;
    # evaluate reads them from standard input (a real pipe into a process: the tests below)
    train, test = DATA / "example_train.txt", DATA / "example_test.txt"
    assert main(["train", str(train), "--test", str(test), "--out", "-"]) == 0
    scores, report = capsys.readouterr()
    assert "MAP" in report  # the report goes to stderr when the scores take stdout
    monkeypatch.setattr(sys, "stdin", io.StringIO(scores))
    assert main(["evaluate", str(test), "--scores", "-", "--json"]) == 0
    letor = json.loads(capsys.readouterr().out)["letor"]["MAP"]
    map_line = next(ln for ln in report.splitlines() if ln.startswith("MAP"))
    assert float(map_line.split()[2]) == pytest.approx(letor, abs=1e-4)


LETOR = ("1 qid:10 1:0.5\n0 qid:10 1:0.9\n2 qid:10 1:0.3\n"
         "0 qid:20 1:1.0\n1 qid:20 1:2.0\n1 qid:30 1:0.0\n0 qid:30 1:0.1\n")
SCORES = [0.5, 0.9, 0.3, 1.0, 2.0, 0.0, 0.1]
QID = [10, 10, 10, 20, 20, 30, 30]


def _ranklib_lines(qid, scores):
    pos: dict = {}
    lines = []
    for q, s in zip(qid, scores):
        j = pos.get(q, 0)
        pos[q] = j + 1
        lines.append(f"{q}\t{j}\t{s!r}")
    return lines


def test_evaluate_reads_ranklib_score_output(tmp_path, capsys):
    data = tmp_path / "test.txt"
    data.write_text(LETOR)
    plain = tmp_path / "plain.txt"
    plain.write_text("".join(f"{s}\n" for s in SCORES))
    assert main(["evaluate", str(data), "--scores", str(plain), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    lines = _ranklib_lines(QID, SCORES)
    ranklib = tmp_path / "ranklib.txt"
    ranklib.write_text("\n".join(lines) + "\n")
    assert main(["evaluate", str(data), "--scores", str(ranklib), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["letor"] == expected["letor"] and got["exponential"] == expected["exponential"]
    # in another line order (e.g. sorted by score), mapped by (qid, index)
    shuffled = tmp_path / "shuffled.txt"
    shuffled.write_text("\n".join(lines[::-1]) + "\n")
    assert main(["evaluate", str(data), "--scores", str(shuffled), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["letor"] == expected["letor"]
    # a document index that the data file does not have is named
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines[:-1] + ["30\t5\t0.1"]) + "\n")
    assert main(["evaluate", str(data), "--scores", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "line 7" in err and "qid 30 has 2 documents" in err
    missing = tmp_path / "missing.txt"
    missing.write_text("\n".join(lines[:-1]) + "\n")
    assert main(["evaluate", str(data), "--scores", str(missing)]) == 2
    assert "data row 7 (qid 30)" in capsys.readouterr().err


def test_evaluate_ranklib_with_a_split_query(tmp_path, capsys):
    # RankLib restarts the index with every run of rows of one qid; file order is kept
    data = tmp_path / "test.txt"
    data.write_text("1 qid:1 1:1\n0 qid:1 1:2\n1 qid:2 1:1\n0 qid:1 1:5\n2 qid:1 1:0\n")
    scores = [0.3, 0.1, 0.2, 0.7, 0.9]
    lines = ["1\t0\t0.3", "1\t1\t0.1", "2\t0\t0.2", "1\t0\t0.7", "1\t1\t0.9"]
    p = tmp_path / "ranklib.txt"
    p.write_text("\n".join(lines) + "\n")
    assert main(["evaluate", str(data), "--scores", str(p), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    y, qid = [1, 0, 1, 0, 2], [1, 1, 2, 1, 1]
    assert got["letor"]["MAP"] == pytest.approx(
        rankselect.metrics.mean_average_precision(y, scores, qid, convention="letor"))


# --- item 5: | head and Ctrl-C --------------------------------------------------------------


def _big_test_file(tmp_path, rows=40000):
    rng = np.random.default_rng(0)
    X = rng.random((rows, 3))
    y = (X[:, 0] > 0.5).astype(float)
    qid = np.repeat(np.arange(rows // 20), 20)
    p = tmp_path / "big.txt"
    rankselect.save_letor(p, rankselect.RankingData(X, y, qid), digits=4)
    return p


def test_broken_pipe_exits_quietly(tmp_path):
    big = _big_test_file(tmp_path)  # 40000 score lines: far more than a pipe buffer
    proc = subprocess.Popen(rankselect_cmd("train", big, "--test", big, "--out", "-"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    first = proc.stdout.readline()  # like `| head -1`
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=300)
    assert float(first)  # a score
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert proc.returncode == EXIT_BROKEN_PIPE


def test_broken_pipe_in_process(capsys, monkeypatch):
    class ClosedPipe:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["info", str(DATA / "example_train.txt")]) == EXIT_BROKEN_PIPE


@pytest.mark.skipif(not hasattr(os, "mkfifo") or sys.platform == "win32", reason="needs POSIX fifos and signals")
def test_ctrl_c_exits_130_without_traceback(tmp_path):
    # `evaluate` blocks reading SCORES from a fifo that nobody writes: a run that only
    # Ctrl-C ends. Once the fifo has a reader, the CLI is inside its handler.
    fifo = tmp_path / "scores.fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen(rankselect_cmd("evaluate", DATA / "example_test.txt", "--scores", fifo),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO until a reader opens it
                break
            except OSError:
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "the CLI never opened the scores file"
                time.sleep(0.05)
        os.write(fd, b"0.5\n")  # some input, then nothing: the reader waits for more
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        os.close(fd)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.strip().splitlines() == ["rankselect evaluate: interrupted"]


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
def test_ctrl_c_during_a_long_computation(tmp_path):
    # an experiment with a long grid; Ctrl-C once its progress output starts
    rng = np.random.default_rng(1)
    for i in range(1, 6):
        d = tmp_path / f"Fold{i}"
        d.mkdir()
        for split in ("train", "vali", "test"):
            X = rng.random((600, 20))
            y = (X[:, 0] + 0.3 * rng.random(600) > 0.8).astype(float)
            rankselect.save_letor(d / f"{split}.txt", rankselect.RankingData(X, y, np.repeat(np.arange(30), 20)),
                                  digits=4)
    alphas = ",".join(str(a) for a in np.geomspace(1e-3, 1e3, 400))
    proc = subprocess.Popen(rankselect_cmd("experiment", tmp_path, "--method", "greedy-rankrls",
                                           "--grid", f"greedy-rankrls:alpha={alphas}"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    try:
        first = proc.stderr.read(1)  # the progress output (bar or lines) has started
        assert first, proc.communicate()
        time.sleep(0.5)
        assert proc.poll() is None, "the experiment ended before Ctrl-C; make it longer"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = (first + err).decode(errors="replace")
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.rstrip().endswith("rankselect experiment: interrupted")


# --- item 6: wording -------------------------------------------------------------------------


def test_one_feature_is_singular(capsys):
    assert main(["select", "--method", "greedy-rankrls", "-k", "1", str(DATA / "example_train.txt")]) == 0
    out = capsys.readouterr().out
    assert "1 feature " in out and "1 features" not in out


def test_fsmrank_warning_numbers_features_as_the_file(capsys):
    # the example's constant features are 18 and 22 (1-based, as in the file)
    assert main(["select", "--method", "fsmrank", "-k", "3", str(DATA / "example_train.txt")]) == 0
    err = capsys.readouterr().err
    assert "rankselect select: warning:" in err
    assert "features 18, 22 as numbered in the file" in err and "0-based" not in err
    # the library keeps 0-based columns and says so
    with pytest.warns(UserWarning, match=r"0-based columns \[17, 21\]"):
        rankselect.FSMRank().fit(*rankselect.data.datasets.load_example("train"))


def test_cli_wording():
    assert cli_wording("x (0-based columns [0, 4])") == "x (features 1, 5 as numbered in the file)"
    assert cli_wording("x (0-based columns [6])") == "x (feature 7 as numbered in the file)"
    msg = "line 3: label 'nan' is not finite (NaN or infinity; pass allow_nonfinite=True to accept it)"
    assert "--allow-nonfinite" in cli_wording(msg, "info") and "allow_nonfinite=True" not in cli_wording(msg, "info")
    assert "rankselect info --allow-nonfinite" in cli_wording(msg, "train")
