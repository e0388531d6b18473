"""Setup installs system packages as root: directly when it is root, through `sudo -n` where sudo
needs no password (GitHub's runners), and says so plainly where it can do neither (bin/as-root)."""

from __future__ import annotations

import os
import subprocess

import pytest

from harness.paths import ROOT


def fake(tmp_path, uid: str, sudo: str | None):
    """A PATH whose `id -u` says `uid` and whose `sudo`, if any, runs what it is given when `sudo`
    is "passwordless" and refuses otherwise."""
    (tmp_path / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    if sudo is not None:
        allowed = (
            "exit 1" if sudo != "passwordless" else 'shift; [ "$1" = true ] && exit 0; echo "sudo ran: $*"; exit 0'
        )
        (tmp_path / "sudo").write_text(f"#!/bin/sh\n{allowed}\n")
    for name in ("id", "sudo"):
        if (tmp_path / name).exists():
            (tmp_path / name).chmod(0o755)
    return {**os.environ, "PATH": f"{tmp_path}:/usr/bin:/bin"}


@pytest.mark.parametrize(
    "uid, sudo, code, said",
    [
        ("0", None, 0, "as root: echo installed"),
        ("1000", "passwordless", 0, "sudo ran: echo as root: echo installed"),
        (
            "1000",
            "asks",
            3,
            "as-root: neither root nor sudo without a password: cannot run echo as root: echo installed",
        ),
        ("1000", None, 3, "as-root: neither root nor sudo without a password"),
    ],
)
def test_root_sudo_or_neither(tmp_path, uid, sudo, code, said):
    run = subprocess.run(
        [str(ROOT / "bin" / "as-root"), "echo", "as root: echo installed"],
        env=fake(tmp_path, uid, sudo),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == code
    assert said in run.stdout + run.stderr
