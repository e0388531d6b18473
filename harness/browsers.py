"""Browser configurations and where their executables come from.

A configuration is what `verify --browser` (pytest: `--browser-config`) names: an engine plus the arguments it launches with.
Playwright's own builds are preferred; Chromium falls back to a system browser (Debian's
`chromium` where Playwright cannot download its own). A configuration whose browser is not
installed is reported with the command that installs it, never launched.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from harness import firefox_chroot

# Chromium's background services try Google's hosts at start; they are noise for the network
# findings and are refused on closed networks.
CHROMIUM_QUIET_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
# WebMCPTesting gives the page document.modelContext; WebMCP lets Playwright reach the tools the
# browser holds (page.webmcp: "WebMCP is not enabled" without it).
WEBMCP_FLAG = "--enable-features=WebMCPTesting,WebMCP"

SYSTEM_CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
# Debian's package of Chromium's headless shell (the same Blink and V8 as its chromium): what
# Playwright's own builds launch for a headless run too. Measured here on 374 log and canvas
# scenarios: 278 s against 361 s with the full browser, 35 % less CPU. It loads no extension
# and shows no window, so the agent extension's path and --headed launch the full browser.
SYSTEM_HEADLESS_SHELL = ("/usr/bin/chromium-headless-shell",)
# A system Firefox where Playwright's own build is missing: Playwright drives it over WebDriver BiDi
# (channel moz-firefox), as far as that Firefox knows the commands it sends. Where the host's is
# too old for them, setup builds Debian unstable's in a chroot (harness.firefox_chroot).
SYSTEM_FIREFOX = ("/usr/bin/firefox-esr", "/usr/bin/firefox")
BIDI_CHANNEL = "moz-firefox"


@dataclass(frozen=True)
class BrowserConfig:
    name: str
    engine: str  # chromium | firefox | webkit
    webmcp_flag: bool
    description: str

    def launch_args(self) -> list[str]:
        # Chromium switches must never reach Firefox or WebKit (pytest-playwright #79).
        if self.engine != "chromium":
            return []
        return [*CHROMIUM_QUIET_ARGS, *([WEBMCP_FLAG] if self.webmcp_flag else [])]


CONFIGS: dict[str, BrowserConfig] = {
    config.name: config
    for config in (
        BrowserConfig(
            "chromium", "chromium", True, "Chromium with the WebMCP testing flag (native document.modelContext)"
        ),
        BrowserConfig("chromium-noflag", "chromium", False, "Chromium without the flag (the MCP-B polyfill path)"),
        BrowserConfig("firefox", "firefox", False, "Firefox (the polyfill path)"),
        BrowserConfig("webkit", "webkit", False, "WebKit (the polyfill path)"),
    )
}
DEFAULT_CONFIGS = ("chromium",)


@dataclass(frozen=True)
class ResolvedBrowser:
    """An installed executable for a configuration; `executable_path` None means Playwright's own."""

    config: BrowserConfig
    executable_path: str | None
    source: str  # "playwright" | "system" | "system headless shell" | "<where>, WebDriver BiDi"
    channel: str | None = None  # Playwright's channel (a system Firefox is driven over WebDriver BiDi)

    def launch_options(self) -> dict:
        """What Playwright's launch takes for this executable (none for its own build)."""
        return {
            key: value for key, value in (("executable_path", self.executable_path), ("channel", self.channel)) if value
        }


class BrowserMissing(Exception):
    """The configuration's browser is not installed here; the message says how to install it."""


def install_hint(engine: str) -> str:
    hint = f"python -m playwright install --with-deps {engine}"
    if engine == "chromium":
        hint += " (or `apt-get install chromium`, or set HARNESS_CHROMIUM to a Chromium binary)"
    if engine == "firefox":
        hint += " (or run bin/setup as root on Debian, or set HARNESS_FIREFOX to a Firefox binary)"
    return hint


def system_chromium() -> str | None:
    override = os.environ.get("HARNESS_CHROMIUM")
    if override:
        return override if Path(override).is_file() else None
    for candidate in SYSTEM_CHROMIUM:
        if Path(candidate).is_file():
            return candidate
    found = shutil.which("chromium")
    return found


def system_firefox() -> tuple[str, str] | None:
    """A Firefox to drive over BiDi and where it comes from: HARNESS_FIREFOX, the chroot setup
    built (only where the host's failed the launch probe), the host's."""
    override = os.environ.get("HARNESS_FIREFOX")
    if override:
        return (override, "HARNESS_FIREFOX") if Path(override).is_file() else None
    chroot = firefox_chroot.installed()
    if chroot:
        return chroot, "Debian unstable in a chroot"
    host = host_firefox()
    return (host, "system") if host else None


def host_firefox() -> str | None:
    return next((path for path in SYSTEM_FIREFOX if Path(path).is_file()), None) or shutil.which("firefox")


def system_headless_shell() -> str | None:
    return next((path for path in SYSTEM_HEADLESS_SHELL if Path(path).is_file()), None)


def full_chromium(executable_path: str | None) -> str | None:
    """The browser to launch where a headless shell cannot serve (an extension, a window):
    the full system Chromium in place of the system headless shell, anything else as it is."""
    if executable_path not in SYSTEM_HEADLESS_SHELL:
        return executable_path
    full = system_chromium()
    if full is None:
        raise BrowserMissing(
            f"{executable_path} is a headless shell, which loads no extension and shows no window; "
            "install the full Chromium too (`apt-get install chromium`)"
        )
    return full


def resolve(config: BrowserConfig, playwright_executable: str, headless: bool = True) -> ResolvedBrowser:
    """Find an executable: Playwright's own build first, then (Chromium only) a system one, its
    headless shell for a headless run where it is installed."""
    if config.engine == "firefox" and os.environ.get("HARNESS_FIREFOX") and not system_firefox():
        raise BrowserMissing(f"HARNESS_FIREFOX={os.environ['HARNESS_FIREFOX']} is not a file")
    if config.engine == "chromium" and os.environ.get("HARNESS_CHROMIUM"):
        path = system_chromium()
        if path is None:
            raise BrowserMissing(f"HARNESS_CHROMIUM={os.environ['HARNESS_CHROMIUM']} is not a file")
        return ResolvedBrowser(config, path, "system")
    if Path(playwright_executable).is_file():
        return ResolvedBrowser(config, None, "playwright")
    if config.engine == "chromium":
        shell = system_headless_shell() if headless else None
        if shell:
            return ResolvedBrowser(config, shell, "system headless shell")
        path = system_chromium()
        if path:
            return ResolvedBrowser(config, path, "system")
    firefox = system_firefox() if config.engine == "firefox" else None
    if firefox:
        return ResolvedBrowser(config, firefox[0], f"{firefox[1]}, WebDriver BiDi", BIDI_CHANNEL)
    raise BrowserMissing(f"{config.engine} is not installed; install it with `{install_hint(config.engine)}`")


def cannot_open_a_page(browser_type, resolved: ResolvedBrowser) -> str | None:
    """Why a browser driven over WebDriver BiDi cannot give a scenario a page (it launches, but
    lacks a command Playwright sends for every context), in one line; None where it can. Only a
    BiDi channel is tried: Playwright's own builds and Chromium always can."""
    if resolved.channel != BIDI_CHANNEL:
        return None
    try:
        browser = browser_type.launch(**resolved.launch_options(), args=resolved.config.launch_args())
    except Exception as error:
        return f"{resolved.config.name}: {resolved.executable_path} does not start over WebDriver BiDi: {_first_line(error)}"
    try:
        browser.new_context().close()
    except Exception as error:
        return (
            f"{resolved.config.name}: {resolved.executable_path} ({browser.version}) over WebDriver BiDi cannot open "
            f"a page: {_first_line(error)}"
        )
    finally:
        browser.close()
    return None


def _first_line(error: Exception) -> str:
    return (str(getattr(error, "message", error)).strip().splitlines() or [""])[0]
