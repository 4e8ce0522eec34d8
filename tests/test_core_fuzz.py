"""A fuzz of every ``rankselect._core`` entry point with a per-call time limit (#35 item 11).

``_core.squared_hinge_lipschitz_bound`` spun forever on a NaN label (a level loop advanced on
``==``). Every entry point's valid call (``VALID`` of ``test_core_arguments``) is replayed with
each float argument replaced by NaN, +-inf, empty, constant or zero values; each call must
return or raise an ``Exception`` within ``LIMIT`` seconds: no hang, no crash, no
``PanicException``. The calls run in a child process that reports each call's start and end,
so that a hang or a crash is caught by the parent and named.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

#: wall seconds one call may take before it counts as a hang: generous, so that a loaded machine
#: (CI's two cores shared with the rest of the suite) never fails a call that returns (issue 40);
#: a hang never returns, so it is caught all the same
LIMIT = 60.0


class _Recorder:
    """Stands in for ``_core`` in ``test_core_arguments``: records each call, returns the
    real result (the outermost call of a valid call is recorded last)."""

    def __init__(self, core):
        self.core, self.calls = core, []

    def __getattr__(self, name):
        real = getattr(self.core, name)
        if not callable(real) or isinstance(real, type):
            return real

        def call(*args, **kwargs):
            self.calls.append((name, args, kwargs))
            return real(*args, **kwargs)

        return call


def _variants(v):
    """The bad versions of one argument: (label, value)."""
    if isinstance(v, np.ndarray) and v.dtype == np.float64 and v.size:
        out = []
        for label, fill in (("nan", np.nan), ("inf", np.inf), ("-inf", -np.inf)):
            one = v.copy()
            one.flat[min(2, v.size - 1)] = fill
            out.append((f"one {label}", one))
        out += [("all nan", np.full_like(v, np.nan)), ("zeros", np.zeros_like(v)), ("constant", np.full_like(v, 3.0)),
                ("empty", v[:0].copy()), ("huge", v * 1e300)]
        return out
    if isinstance(v, float):
        return [("nan", float("nan")), ("inf", float("inf")), ("zero", 0.0), ("tiny", 5e-324), ("huge", 1e308)]
    return []


def _cases(tmp):
    import test_core_arguments as tca

    real = tca._core
    cases = []
    for name in sorted(tca.VALID):
        rec = _Recorder(real)
        tca._core = rec
        try:
            tca.VALID[name](tmp)
        finally:
            tca._core = real
        fname, args, kwargs = rec.calls[-1]
        for pos, arg in enumerate(args):
            for label, bad in _variants(arg):
                new = list(args)
                new[pos] = bad
                cases.append((f"{fname} arg {pos} {label}", getattr(real, fname), tuple(new), kwargs))
    return cases


def _child(tmp):
    """Runs every case; prints one JSON line before and after each call."""
    from rankselect import _core  # noqa: F401  (imported before the clock starts)

    for i, (label, func, args, kwargs) in enumerate(_cases(Path(tmp))):
        print(json.dumps({"start": i, "label": label}), flush=True)
        try:
            func(*args, **kwargs)
            outcome = "returned"
        except Exception as e:  # a Python exception: allowed
            outcome = type(e).__name__
        except BaseException as e:  # noqa: BLE001  PanicException and the like: a failure
            outcome = "BASE " + type(e).__name__ + ": " + str(e)[:200]
        print(json.dumps({"end": i, "label": label, "outcome": outcome}), flush=True)
    print(json.dumps({"done": True}), flush=True)


def test_every_core_entry_point_returns_or_raises_on_bad_values(tmp_path):
    env = dict(os.environ, RAYON_NUM_THREADS="2")
    here = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [os.environ.get("PYTHONPATH")])])
    errfile = open(tmp_path / "stderr.txt", "w+")  # a file: a full pipe would block the child
    proc = subprocess.Popen([sys.executable, __file__, str(tmp_path)], stdout=subprocess.PIPE, stderr=errfile,
                            text=True, env=env, cwd=here)
    import queue
    import threading

    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout] + [lines.put(None)], daemon=True).start()
    current, outcomes, done = None, [], False
    try:
        while True:
            try:
                line = lines.get(timeout=LIMIT if current is not None else 60)
            except queue.Empty:
                pytest.fail(f"_core call {current} did not return within {LIMIT} s")
            if line is None:
                break
            msg = json.loads(line)
            if "start" in msg:
                current = msg["label"]
            elif "end" in msg:
                current = None
                outcomes.append((msg["label"], msg["outcome"]))
            else:
                done = True
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    errfile.seek(0)
    err = errfile.read()
    errfile.close()
    assert done, f"the fuzz child stopped (exit {proc.returncode}) during {current}: {err[-2000:]}"
    bad = [(label, o) for label, o in outcomes if o.startswith("BASE")]
    assert not bad, bad
    assert len(outcomes) > 300


def test_every_core_entry_point_refuses_non_finite_labels_naming_the_row(tmp_path):
    """Labels and scores are ordered into levels: a NaN or an infinity is a ValueError naming
    the argument and the row, in every entry point that takes them (``Y`` of the valid calls)."""
    import test_core_arguments as tca

    real, checked = tca._core, []
    for name in sorted(tca.VALID):
        rec = _Recorder(real)
        tca._core = rec
        try:
            tca.VALID[name](tmp_path)
        finally:
            tca._core = real
        fname, args, kwargs = rec.calls[-1]
        for pos, arg in enumerate(args):
            if arg is not tca.Y:
                continue
            for fill in (np.nan, np.inf):
                bad = tca.Y.copy()
                bad[2] = fill
                new = list(args)
                new[pos] = bad
                with pytest.raises(ValueError, match=r"(finite|infinity).*row 2"):
                    getattr(real, fname)(*new, **kwargs)
            checked.append(fname)
    assert "squared_hinge_lipschitz_bound" in checked and len(set(checked)) >= 15, checked


if __name__ == "__main__":
    _child(sys.argv[1])
