"""Run one phase of CI and note its cost: ``python .ci/timed.py NAME COMMAND [ARG ...]``.

Runs COMMAND, then appends ``NAME wall_s cpu_s`` to the file named by ``$CI_PHASES`` (when
set) and prints it: wall-clock seconds and CPU seconds (user + system of COMMAND and of every
process it waited for: pytest's workers, rustc, the tests' children). CPU seconds do not
depend on what else the machine runs; on a quiet machine of N cores a phase takes about
cpu_s / (the cores it keeps busy). Exits with COMMAND's exit status. ``--table FILE`` prints
the phases noted in FILE.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time


def table(path: str) -> str:
    rows = [line.rsplit(None, 2) for line in open(path, encoding="utf-8") if line.strip()]  # names have spaces
    out = [f"{'phase':<28} {'wall s':>8} {'CPU s':>8} {'CPU/wall':>9}"]
    cpu_total = 0.0
    for name, wall, cpu in rows:
        out.append(f"{name:<28} {float(wall):8.1f} {float(cpu):8.1f} {float(cpu) / max(float(wall), 1e-9):9.2f}")
        cpu_total += float(cpu)
    out.append(f"{'all phases (CPU)':<28} {'':>8} {cpu_total:8.1f}")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--table"]:
        print(table(argv[1]))
        return 0
    name, *command = argv
    start = time.monotonic()
    child = subprocess.Popen(command)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall, cpu = time.monotonic() - start, usage.ru_utime + usage.ru_stime
    line = f"{name} {wall:.1f} {cpu:.1f}"
    if os.environ.get("CI_PHASES"):
        with open(os.environ["CI_PHASES"], "a", encoding="utf-8") as f:
            f.write(line + "\n")
    print(f"--- {name}: {wall:.1f} s wall, {cpu:.1f} s CPU (exit {child.returncode})", file=sys.stderr, flush=True)
    return child.returncode if child.returncode >= 0 else 128 - child.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
