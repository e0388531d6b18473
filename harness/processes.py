"""The processes a harness command started, told apart by an environment variable they inherit."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from harness import limits


def dying_with_parent(command: list[str]) -> list[str]:
    """`command`, run so that the kernel ends it when its parent dies (a SIGKILL included), where
    util-linux's setpriv is there; elsewhere it ends only when ended."""
    return ["setpriv", "--pdeathsig", "KILL", *command] if shutil.which("setpriv") else command


def processes_with(variable: str, value: str) -> list[str]:
    """Command lines of the processes (other than this one) whose environment has `variable=value`."""
    marker = f"{variable}={value}".encode()
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if int(environ.parent.name) != os.getpid() and marker in environ.read_bytes().split(b"\0"):
                found.append(
                    (environ.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:200]
                )
        except (OSError, ValueError):
            pass  # ended meanwhile, or not ours to read
    return found


def left_after(variable: str, value: str, grace: float) -> list[str]:
    """What of `processes_with(variable, value)` is still running after up to `grace` seconds."""
    # Other processes ending: no event to wait for.
    left, _ = limits.poll(lambda: processes_with(variable, value), lambda running: not running, grace, pause=0.1)
    return left
