"""The README's command-line block runs top to bottom as written (issue 17), on the example
data shipped with the package copied to train.txt / vali.txt / test.txt."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import rankselect

ROOT = Path(__file__).resolve().parents[1]
DATA = rankselect.data.datasets.example_path("train").parent  # the example data shipped with the package


def readme_cli_lines():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    (block,) = [b for b in blocks if "rankselect info train.txt" in b]
    return [ln for ln in block.splitlines() if ln.strip()]


def test_readme_cli_block_runs_in_order(tmp_path, monkeypatch, capsys):
    """The first line as a real process (``python -m rankselect``: the entry point, its imports),
    the others in this process through :func:`rankselect.cli.main`, the function the entry point
    runs (the same parser, subcommands and exit codes, without ten interpreter start-ups)."""
    from rankselect.cli import main

    for split in ("train", "vali", "test"):
        shutil.copy(DATA / f"example_{split}.txt", tmp_path / f"{split}.txt")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(rankselect.__file__).resolve().parents[1]) + os.pathsep + env.get("PYTHONPATH", "")
    lines = readme_cli_lines()
    assert lines[0].startswith("rankselect info") and any("--out predictions.txt" in ln for ln in lines)
    monkeypatch.chdir(tmp_path)
    for i, line in enumerate(lines):
        argv = shlex.split(line, comments=True)
        assert argv[0] == "rankselect", line
        if i == 0:
            r = subprocess.run([sys.executable, "-m", "rankselect", *argv[1:]], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=600)
            code, out, err = r.returncode, r.stdout, r.stderr
        else:
            try:
                code = main(argv[1:])
            except SystemExit as exc:  # argparse's --help exits, as the process would
                code = exc.code
            out, err = capsys.readouterr()
        assert code == 0, f"{line}\n{err}"
        assert out.strip(), line
        assert "Traceback" not in err, line
    assert (tmp_path / "sim.npy").is_file() and (tmp_path / "sim.png").is_file()
    assert len((tmp_path / "predictions.txt").read_text().splitlines()) == 216
