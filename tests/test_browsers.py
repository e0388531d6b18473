"""Which executable a configuration launches: the headless shell for headless runs, the full
Chromium where the shell cannot serve (--headed, the agent extension)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import browsers
from harness.browsers import CONFIGS, BrowserMissing, full_chromium, resolve

NOT_PLAYWRIGHTS = "/nowhere/playwright/chromium"


@pytest.fixture
def system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A machine whose only Chromiums are the given system ones."""
    monkeypatch.delenv("HARNESS_CHROMIUM", raising=False)
    monkeypatch.setattr(browsers.shutil, "which", lambda name: None)

    def install(full: bool, shell: bool) -> tuple[str, str]:
        full_path, shell_path = tmp_path / "chromium", tmp_path / "chromium-headless-shell"
        for path, present in ((full_path, full), (shell_path, shell)):
            if present:
                path.write_text("")
        monkeypatch.setattr(browsers, "SYSTEM_CHROMIUM", (str(full_path),))
        monkeypatch.setattr(browsers, "SYSTEM_HEADLESS_SHELL", (str(shell_path),))
        return str(full_path), str(shell_path)

    return install


def test_a_headless_run_launches_the_headless_shell(system):
    _full, shell = system(full=True, shell=True)
    resolved = resolve(CONFIGS["chromium"], NOT_PLAYWRIGHTS)
    assert (resolved.executable_path, resolved.source) == (shell, "system headless shell")


def test_a_headed_run_launches_the_full_chromium(system):
    full, _shell = system(full=True, shell=True)
    assert resolve(CONFIGS["chromium"], NOT_PLAYWRIGHTS, headless=False).executable_path == full


def test_without_the_shell_a_headless_run_launches_the_full_chromium(system):
    full, _ = system(full=True, shell=False)
    assert resolve(CONFIGS["chromium-noflag"], NOT_PLAYWRIGHTS).executable_path == full


def test_the_extension_path_swaps_the_shell_for_the_full_chromium(system):
    full, shell = system(full=True, shell=True)
    assert full_chromium(shell) == full
    assert full_chromium(full) == full


def test_a_shell_without_the_full_chromium_names_what_to_install(system):
    _, shell = system(full=False, shell=True)
    with pytest.raises(BrowserMissing, match="apt-get install chromium"):
        full_chromium(shell)
    with pytest.raises(BrowserMissing, match="not installed"):
        resolve(CONFIGS["chromium"], NOT_PLAYWRIGHTS, headless=False)


def test_harness_chromium_is_launched_as_it_is(system, monkeypatch: pytest.MonkeyPatch):
    full, _shell = system(full=True, shell=True)
    monkeypatch.setenv("HARNESS_CHROMIUM", full)
    assert resolve(CONFIGS["chromium"], NOT_PLAYWRIGHTS).executable_path == full


def test_without_playwrights_firefox_a_system_firefox_is_driven_over_webdriver_bidi(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(browsers.shutil, "which", lambda name: None)
    monkeypatch.setattr(browsers.firefox_chroot, "installed", lambda: None)
    monkeypatch.setattr(browsers, "SYSTEM_FIREFOX", (str(tmp_path / "firefox-esr"),))
    with pytest.raises(BrowserMissing, match="playwright install --with-deps firefox"):
        resolve(CONFIGS["firefox"], "/nowhere/playwright/firefox")
    (tmp_path / "firefox-esr").write_text("")
    resolved = resolve(CONFIGS["firefox"], "/nowhere/playwright/firefox")
    assert resolved.launch_options() == {"executable_path": str(tmp_path / "firefox-esr"), "channel": "moz-firefox"}


def test_setups_chroot_firefox_comes_before_the_hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Setup builds it only where the host's failed the launch probe.
    monkeypatch.setattr(browsers, "SYSTEM_FIREFOX", (str(tmp_path / "firefox-esr"),))
    (tmp_path / "firefox-esr").write_text("")
    monkeypatch.setattr(browsers.firefox_chroot, "installed", lambda: str(tmp_path / "wrapper"))
    resolved = resolve(CONFIGS["firefox"], "/nowhere/playwright/firefox")
    assert resolved.executable_path == str(tmp_path / "wrapper")
    assert resolved.source == "Debian unstable in a chroot, WebDriver BiDi"


def test_a_system_firefox_that_cannot_open_a_page_is_one_line_of_reason():
    """Where a system Firefox is installed: it launches over BiDi, and either opens a page or says in
    one line why not — 未確認 in the tables, never an error."""
    from playwright.sync_api import sync_playwright

    if browsers.system_firefox() is None:
        pytest.skip("no system Firefox here (apt-get install firefox-esr)")
    with sync_playwright() as playwright:
        resolved = resolve(CONFIGS["firefox"], playwright.firefox.executable_path)
        reason = browsers.cannot_open_a_page(playwright.firefox, resolved)
    assert reason is None or ("\n" not in reason and reason.startswith("firefox: "))
