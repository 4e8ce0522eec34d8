"""The start of the child scripts that the memory-limit tests run under ``RLIMIT_AS``: the
imports, warnings off, and ``vm()``, the child's address space in bytes (``/proc``'s VmSize)."""

VM_PRELUDE = """
import resource, sys, warnings
import numpy as np
import rankselect as rs
warnings.simplefilter("ignore")
def vm():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
"""
