"""The processes a harness command started, told apart by an environment variable they inherit."""

from __future__ import annotations

import os
import time
from pathlib import Path


def processes_with(variable: str, value: str) -> list[str]:
    """Command lines of the processes (other than this one) whose environment has `variable=value`."""
    marker = f"{variable}={value}".encode()
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if int(environ.parent.name) != os.getpid() and marker in environ.read_bytes().split(b"\0"):
                found.append((environ.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:200])
        except (OSError, ValueError):
            pass  # ended meanwhile, or not ours to read
    return found


def left_after(variable: str, value: str, grace: float) -> list[str]:
    """What of `processes_with(variable, value)` is still running after up to `grace` seconds."""
    deadline = time.monotonic() + grace
    while (left := processes_with(variable, value)) and time.monotonic() < deadline:
        time.sleep(0.1)  # other processes ending: no event to wait for
    return left
