"""Debian unstable's Firefox in a chroot (harness/firefox_chroot.py): started through its wrapper, it
leaves no process and no mount behind — after a close, and after the process that launched it is
killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from harness import firefox_chroot, limits
from harness.browsers import BIDI_CHANNEL
from harness.processes import left_after

MARK = "HARNESS_FIREFOX_CHROOT_TEST"

pytestmark = pytest.mark.skipif(
    firefox_chroot.installed() is None, reason="no Firefox chroot here (bin/setup builds one as root on Debian)"
)


def mounts_in_chroot() -> list[str]:
    return [
        line for line in Path("/proc/self/mountinfo").read_text().splitlines() if str(firefox_chroot.CHROOT) in line
    ]


def test_a_closed_firefox_leaves_no_process_and_no_mount(tmp_path):
    value = str(tmp_path)
    with sync_playwright() as playwright:
        browser = playwright.firefox.launch(
            executable_path=firefox_chroot.installed(), channel=BIDI_CHANNEL, env={**os.environ, MARK: value}
        )
        page = browser.new_page()
        page.goto("data:text/html,<p>probe</p>")
        assert page.text_content("p") == "probe"
        assert mounts_in_chroot() == []  # the bind mounts live in Firefox's own mount namespace
        browser.close()
    assert left_after(MARK, value, limits.ENDED) == []
    assert mounts_in_chroot() == []


def test_a_firefox_whose_launcher_is_killed_leaves_no_process_and_no_mount(tmp_path):
    value = str(tmp_path)
    launcher = textwrap.dedent(
        f"""
        import os, sys
        from playwright.sync_api import sync_playwright
        with sync_playwright() as playwright:
            browser = playwright.firefox.launch(
                executable_path={firefox_chroot.installed()!r}, channel={BIDI_CHANNEL!r},
                env={{**os.environ, {MARK!r}: {value!r}}},
            )
            browser.new_page().goto("data:text/html,<p>probe</p>")
            print("ready", flush=True)
            sys.stdin.read()
        """
    )
    # Its own session, so that the kill reaches the launcher, Playwright's driver and Firefox at
    # once, as a CI timeout's does.
    process = subprocess.Popen(
        [sys.executable, "-c", launcher],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout.readline().strip() == "ready"
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=limits.ENDED)
    assert left_after(MARK, value, limits.ENDED) == []
    assert mounts_in_chroot() == []
