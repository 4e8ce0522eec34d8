"""The PEP 517 build backend of rankselect: maturin's, with cargo's progress on the terminal.

pip runs a build backend with its output captured and shows only a spinner ("still
running...") for the few minutes the Rust build takes. When the install runs in a terminal,
``build_wheel`` points the build's standard error (cargo's "Compiling ..." lines and progress
bar) at that terminal (``/dev/tty``) for the duration of the build; pip still gets the wheel's
name on standard output. Without a terminal (CI, ``docker build``) nothing changes: ``pip
install -v .`` shows the same lines in pip's log. Every other hook is maturin's.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import maturin
from maturin import (  # noqa: F401 (the PEP 517 hooks this module does not change)
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

# maturin warns when the backend is not named "maturin": this one is maturin's
os.environ.setdefault("MATURIN_NO_MISSING_BUILD_BACKEND_WARNING", "1")


@contextlib.contextmanager
def progress_on_terminal() -> Iterator[bool]:
    """Standard error (file descriptor 2) on the controlling terminal inside the block, when
    there is one; yields whether it is."""
    try:
        tty = os.open("/dev/tty", os.O_WRONLY | os.O_NOCTTY)
    except OSError:  # no controlling terminal (or not a POSIX system)
        yield False
        return
    saved = os.dup(2)
    try:
        os.dup2(tty, 2)
        yield True
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(tty)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with progress_on_terminal():
        return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    with progress_on_terminal():
        return maturin.build_editable(wheel_directory, config_settings, metadata_directory)
