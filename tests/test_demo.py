"""The README's main job: `rankselect demo` on the shipped example data."""
import re

from rankselect.cli import main


def test_demo_recovers_the_planted_features_first(capsys):
    assert main(["demo", "-k", "8"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if re.match(r"\s+\d+\s+\d+\s", line)]
    assert len(rows) == 8
    assert [r[2] for r in rows[:5]] == ["informative"] * 5
    assert "informative features recovered: 5 of 5" in out
    assert "before any redundant copy or noise feature" in out


def test_demo_rejects_bad_k(capsys):
    assert main(["demo", "-k", "0"]) == 2
    assert "n_features_to_select" in capsys.readouterr().err
