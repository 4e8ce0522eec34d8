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
    assert "-k must be >= 1" in capsys.readouterr().err  # the option, not the Python parameter (#40)


def test_demo_never_selects_constant_features_and_stops(capsys):
    """#17.9: constant features cannot change the model; with k = all features the path
    stops before them and the demo says so."""
    from rankselect.data.datasets import example_truth

    truth = example_truth()
    n = 22
    assert main(["demo", "-k", str(n)]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if re.match(r"\s+\d+\s+\d+\s", line)]
    assert len(rows) == n - len(truth.constant)
    assert all(r[2] != "constant" for r in rows)
    assert f"stopped after {len(rows)} of {n} steps" in out
    assert "constant within every query" in out
