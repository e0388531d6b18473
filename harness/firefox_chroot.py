"""A Firefox Playwright can drive, for Debian machines whose own is too old and that cannot download
Playwright's: Debian unstable's `firefox` in a chroot under the harness's cache, started through a
wrapper that Playwright launches as its `executable_path`.

Playwright 1.65 sends `emulation.setMediaFeaturesOverride` for every context over WebDriver BiDi;
bookworm's firefox-esr 153 does not know it, unstable's 159 does (../shared/notes/firefox.md has
the measurements). Unstable's Firefox needs a newer glibc and NSS than the host has, hence a chroot
rather than the package on the host.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "fukuemon-harness" / "firefox"
CHROOT = CACHE / "sid"
WRAPPER = CACHE / "firefox"
SUITE = "sid"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
# The pictures show the pages' Japanese: the chroot has none of the host's fonts.
PACKAGES = ("firefox", "fonts-ipafont-gothic")
# What Firefox needs of the host inside the chroot; /tmp because Playwright writes the profile there.
BIND_MOUNTS = ("dev", "dev/shm", "dev/pts", "proc", "sys", "tmp")


def wrapper_text(chroot: Path) -> str:
    """One process all the way down (each step `exec`s the next), so Playwright's close and kill
    reach Firefox itself; the mounts live in a private mount namespace and vanish with it, and
    the kernel ends Firefox when the process that launched it dies (a SIGKILL included)."""
    mounts = "; ".join(f'mount --bind /{path} "$root/{path}"' for path in BIND_MOUNTS)
    inner = f'root=$0; {mounts}; exec chroot "$root" /usr/lib/firefox/firefox "$@"'
    return (
        "#!/bin/sh\n"
        "# Debian unstable's Firefox in its chroot (written by bin/setup: harness/firefox_chroot.py).\n"
        "exec setpriv --pdeathsig KILL unshare -m --propagation private "
        f'sh -c {shlex.quote(inner)} {shlex.quote(str(chroot))} "$@"\n'
    )


def installed() -> str | None:
    """The wrapper, where a finished chroot stands behind it (rewritten where an older setup wrote
    another)."""
    if not (CHROOT / "usr/lib/firefox/firefox").is_file():
        return None
    if not WRAPPER.is_file() or WRAPPER.read_text() != wrapper_text(CHROOT):
        written = WRAPPER.with_name(f"{WRAPPER.name}.{os.getpid()}")
        written.write_text(wrapper_text(CHROOT))
        written.chmod(0o755)
        written.replace(WRAPPER)  # whole or not at all: other processes may be launching it
    return str(WRAPPER)


def host_mirror() -> str:
    """The Debian mirror apt already uses (this machine may reach no other)."""
    for source in (Path("/etc/apt/sources.list.d/debian.sources"), Path("/etc/apt/sources.list")):
        if not source.is_file():
            continue
        for line in source.read_text().splitlines():
            words = line.split()
            if words[:1] == ["URIs:"] and len(words) > 1:
                return words[1]
            if words[:1] == ["deb"] and len(words) > 2:
                return words[2] if not words[1].startswith("[") else words[3]
    return DEFAULT_MIRROR


def build(say) -> str | None:
    """Build the chroot once (about a minute and 750 MB); None, having said why, where it cannot."""
    if installed():
        return installed()
    if not shutil.which("apt-get"):
        say("no apt-get here: cannot build Debian unstable's Firefox")
        return None
    # Root, not sudo: the wrapper mounts, and Playwright must be able to kill what it starts.
    if os.geteuid() != 0:
        say("not root: Debian unstable's Firefox in a chroot needs root to build and to run")
        return None
    run = ["env", "DEBIAN_FRONTEND=noninteractive"]
    if not shutil.which("debootstrap"):
        subprocess.run([*run, "apt-get", "install", "-y", "-qq", "debootstrap"], stdout=subprocess.DEVNULL)
    staging = CACHE / "sid.next"
    shutil.rmtree(staging, ignore_errors=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    mirror = host_mirror()
    say(f"building Debian unstable's Firefox in a chroot ({mirror}) under {CACHE}: about a minute, once")
    steps = [
        [*run, "debootstrap", "--variant=minbase", SUITE, str(staging), mirror],
        [*run, "sh", "-c", _configure_apt(staging)],
        [*run, "chroot", str(staging), "apt-get", "update", "-qq"],
        [*run, "chroot", str(staging), "apt-get", "install", "-y", "-qq", *PACKAGES],
        [*run, "chroot", str(staging), "apt-get", "clean"],
    ]
    for step in steps:
        result = subprocess.run(step, capture_output=True, text=True)
        if result.returncode != 0:
            last = (result.stderr or result.stdout).strip().splitlines()[-1:] or [str(result.returncode)]
            say(f"could not build Debian unstable's Firefox ({shlex.join(step[2:5])}…): {last[0]}")
            shutil.rmtree(staging, ignore_errors=True)
            return None
    shutil.rmtree(CHROOT, ignore_errors=True)
    staging.rename(CHROOT)
    return installed()


def _configure_apt(chroot: Path) -> str:
    # An unstable suite's Release file can be past its Valid-Until on a snapshot mirror.
    conf = chroot / "etc/apt/apt.conf.d/99harness"
    return shlex.join(["printf", 'Acquire::Check-Valid-Until "false";\\nAPT::Install-Recommends "false";\\n']) + (
        f" > {shlex.quote(str(conf))}"
    )
