"""Browser provisioning for `bin/setup`: report what is installed, install what can be.

Order: Playwright's own builds (tried once per machine: a failed download is remembered), then
a system Chromium, then Debian's `chromium` through apt where this runs as root. Firefox: a system
one that passes the launch probe over WebDriver BiDi, else (Debian, as root) Debian unstable's in
a chroot under the harness's cache (harness.firefox_chroot), built once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from harness import firefox_chroot
from harness.browsers import (
    BIDI_CHANNEL,
    CONFIGS,
    BrowserMissing,
    ResolvedBrowser,
    cannot_open_a_page,
    host_firefox,
    resolve,
    system_chromium,
    system_headless_shell,
)
from harness.paths import ROOT

ATTEMPT_STAMP = ROOT / ".venv" / ".harness-stamps" / "playwright-download-failed"


def _say(message: str) -> None:
    print(f"setup: {message}", flush=True)


def _playwright_download(engines: list[str]) -> None:
    if ATTEMPT_STAMP.exists():
        _say(
            f"Playwright's own {', '.join(engines)}: not downloaded (a download failed before; delete {ATTEMPT_STAMP.name} in .venv/.harness-stamps to retry)"
        )
        return
    _say(f"downloading Playwright's own {', '.join(engines)}")
    result = subprocess.run(
        [sys.executable, "-m", "playwright", "install", *engines], capture_output=True, text=True, timeout=900
    )
    if result.returncode != 0:
        last = (result.stderr or result.stdout).strip().splitlines()[:1]
        _say(f"Playwright's download failed: {last[0] if last else result.returncode}")
        ATTEMPT_STAMP.parent.mkdir(parents=True, exist_ok=True)
        ATTEMPT_STAMP.write_text("\n".join(engines))


def _apt_chromium() -> None:
    """Debian's chromium, and its headless shell (what headless runs launch, see harness.browsers)."""
    wanted = [
        package
        for package, found in (("chromium", system_chromium()), ("chromium-headless-shell", system_headless_shell()))
        if not found
    ]
    if not wanted:
        return
    if not shutil.which("apt-get"):
        _say(f"{' and '.join(wanted)} not installed, and there is no apt-get to install Debian's packages")
        return
    _say(f"installing Debian's {' and '.join(wanted)} with apt-get (as root)")
    as_root = [str(ROOT / "bin" / "as-root"), "env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]
    if subprocess.run([*as_root, "update", "-qq"], check=False, stdout=subprocess.DEVNULL).returncode == 3:
        return  # neither root nor sudo without a password: as-root said so
    for package in wanted:  # one at a time: a release without the headless shell still gets chromium
        subprocess.run([*as_root, "install", "-y", "-qq", package], check=False, stdout=subprocess.DEVNULL)


def _firefox(playwright_executable: str) -> None:
    """Where Playwright's own Firefox is missing: the host's where it can open a page, else Debian
    unstable's in a chroot (bookworm's firefox-esr 153 lacks a command Playwright 1.65 sends)."""
    if Path(playwright_executable).is_file() or os.environ.get("HARNESS_FIREFOX") or firefox_chroot.installed():
        return
    host = host_firefox()
    if host:
        with sync_playwright() as playwright:
            unusable = cannot_open_a_page(
                playwright.firefox, ResolvedBrowser(CONFIGS["firefox"], host, "system", BIDI_CHANNEL)
            )
        if unusable is None:
            return
        _say(f"the system Firefox cannot serve — {unusable}")
    firefox_chroot.build(_say)


def executables() -> dict[str, str]:
    with sync_playwright() as playwright:
        return {engine: getattr(playwright, engine).executable_path for engine in ("chromium", "firefox", "webkit")}


def provision() -> int:
    paths = executables()
    missing = [engine for engine, path in paths.items() if not Path(path).is_file()]
    if missing:
        _playwright_download(missing)
    if not Path(paths["chromium"]).is_file():
        _apt_chromium()
    _firefox(paths["firefox"])
    report(paths)
    return 0


def report(paths: dict[str, str] | None = None) -> None:
    paths = paths or executables()
    with sync_playwright() as playwright:
        for config in CONFIGS.values():
            try:
                resolved = resolve(config, paths[config.engine])
            except BrowserMissing as missing:
                _say(f"browser {config.name}: skipped — {missing}")
                continue
            unusable = cannot_open_a_page(getattr(playwright, config.engine), resolved)
            if unusable:
                _say(f"browser {config.name}: skipped (未確認 in the tables) — {unusable}")
                continue
            where = resolved.executable_path or paths[config.engine]
            _say(f"browser {config.name}: {resolved.source} build at {where}")
