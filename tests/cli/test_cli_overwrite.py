"""Every file a subcommand writes is refused, before any work, when it exists, unless
``--force``: ``train --out``, ``similarity --out`` / ``--plot``, ``redundancy --plot``,
``log2letor --out`` / ``--names-out``; standard output (``-``) is never a file."""
from __future__ import annotations

import numpy as np
import pytest

import rankselect as rs
from rankselect.cli import main


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("overwrite")
    rng = np.random.default_rng(0)
    X, qid = rng.normal(size=(60, 4)), np.repeat(np.arange(6), 10)
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0.5).astype(float)
    rs.save_letor(d / "train.txt", rs.RankingData(X, y, qid))
    return d


def _run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", [
    ["train", "{train}", "--test", "{train}", "--out", "{dest}"],
    ["similarity", "{train}", "--out", "{dest}"],
])
def test_an_existing_output_is_kept_without_force_and_replaced_with_it(data, tmp_path, capsys, command):
    dest = tmp_path / "out.npy"
    dest.write_text("the user's file\n")
    args = [a.format(train=data / "train.txt", dest=dest) for a in command]
    code, _, err = _run(args, capsys)
    assert code == 2 and f"--out {dest} exists; pass --force to replace it" in err
    assert dest.read_text() == "the user's file\n"
    code, _, err = _run(args + ["--force"], capsys)
    assert code == 0, err
    assert dest.read_text(errors="replace") != "the user's file\n"


def test_similarity_checks_the_file_numpy_writes(data, tmp_path, capsys):
    """``np.save("sim", ...)`` writes ``sim.npy``: that is the file checked and reported."""
    (tmp_path / "sim.npy").write_bytes(b"mine")
    code, _, err = _run(["similarity", data / "train.txt", "--out", tmp_path / "sim"], capsys)
    assert code == 2 and "sim.npy exists" in err and (tmp_path / "sim.npy").read_bytes() == b"mine"
    assert not (tmp_path / "sim").exists()


def test_plots_are_not_replaced_without_force(data, tmp_path, capsys):
    plot = tmp_path / "mine.png"
    plot.write_bytes(b"mine")
    for args in (["similarity", data / "train.txt", "--out", tmp_path / "s.npy", "--plot", plot],
                 ["redundancy", data / "train.txt", "--plot", plot]):
        code, _, err = _run(args, capsys)
        assert code == 2 and f"--plot {plot} exists" in err
        assert plot.read_bytes() == b"mine"
    assert not (tmp_path / "s.npy").exists()  # refused before any work


def test_a_folder_is_never_an_output_and_standard_output_is_not_a_file(data, tmp_path, capsys):
    code, _, err = _run(["train", data / "train.txt", "--test", data / "train.txt", "--out", tmp_path, "--force"],
                        capsys)
    assert code == 2 and "is a folder" in err
    code, out, _ = _run(["train", data / "train.txt", "--test", data / "train.txt", "--out", "-"], capsys)
    assert code == 0 and len(out.split()) == 60
