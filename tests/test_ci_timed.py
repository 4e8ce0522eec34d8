"""``.ci/timed.py``, the timer of CI's phases: it runs a command, passes its exit status on,
notes ``NAME wall_s cpu_s`` (CPU of the command and its children) and prints the table."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TIMED = Path(__file__).resolve().parents[1] / ".ci" / "timed.py"


def test_a_phase_is_timed_in_cpu_seconds_and_keeps_its_exit_status(tmp_path):
    phases = tmp_path / "phases"
    burn = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\nraise SystemExit(3)"
    run = subprocess.run([sys.executable, str(TIMED), "a phase with spaces", sys.executable, "-c", burn],
                         env={"CI_PHASES": str(phases), "PATH": ""}, capture_output=True, text=True)
    assert run.returncode == 3
    name, wall, cpu = phases.read_text().strip().rsplit(None, 2)
    assert name == "a phase with spaces" and float(cpu) >= 0.25 and float(wall) >= float(cpu) * 0.5
    table = subprocess.run([sys.executable, str(TIMED), "--table", str(phases)], capture_output=True, text=True,
                           check=True).stdout
    assert "a phase with spaces" in table and "all phases (CPU)" in table
