"""The README's "In practice" examples (blocks after ``<!-- practice-example -->``) run
verbatim, in order, in one namespace, in a temporary directory."""
from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
from pathlib import Path

import numpy as np

from rankselect.cli import main
from rankselect.data.datasets import example_path

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCK = re.compile(r"<!-- practice-example -->\n```(python|bash)\n(.*?)```", re.S)


def _blocks():
    return BLOCK.findall(README.read_text())


def test_readme_has_the_practice_examples():
    kinds = [k for k, _ in _blocks()]
    assert kinds.count("python") == 5 and kinds.count("bash") == 1


def _run_cli(line: str) -> None:
    args = shlex.split(line)
    assert args[0] == "rankselect", line
    out = None
    if ">" in args:
        i = args.index(">")
        out, args = args[i + 1], args[:i]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(args[1:]) == 0, line
    if out:
        Path(out).write_text(buf.getvalue())


def test_readme_practice_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(example_path("train"), tmp_path / "train.txt")
    shutil.copy(example_path("test"), tmp_path / "test.txt")
    (tmp_path / "costs.csv").write_text("".join(f"{c}\n" for c in np.random.default_rng(0).uniform(0.1, 3, 22)))
    ns: dict = {}
    for kind, code in _blocks():
        if kind == "python":
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, str(README), "exec"), ns)
        else:
            for line in code.strip().splitlines():
                _run_cli(line)
    assert ns["sel"].cost_path_[-1] <= 3.0
    assert (tmp_path / "run.txt").exists() and (tmp_path / "features.txt").read_text().strip()
    assert (tmp_path / "opensearch" / "createmodel.json").exists()  # select -> train -> export
    f = ns["st"].selection_frequencies_
    from rankselect.data.datasets import example_truth

    truth = example_truth()
    assert f[truth.informative].min() > f[truth.noise].max()
