import subprocess
import sys

import pytest
from playwright.sync_api import sync_playwright

from harness.browsers import CONFIGS, BrowserMissing, resolve
from harness.pages import ToolPage
from harness.paths import ROOT
from harness.relay import HeldPort, Relay
from harness.server import FixtureServer, ReferenceConfig
from harness.targets import load_profile, served_at

pytest_plugins = ["pytester"]


@pytest.fixture
def collected():
    """The scenario runs pytest would generate for these arguments: `collected("scenarios", "--browser", "chromium")`."""

    def collect(*args: str) -> list[str]:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
        return [line for line in run.stdout.splitlines() if "::" in line]

    return collect


def launched(name: str):
    """Chromium as the main job starts it for the configuration `name`; the test is skipped, with
    the reason, where it is not installed."""
    with sync_playwright() as playwright:
        config = CONFIGS[name]
        try:
            executable = resolve(config, playwright.chromium.executable_path).executable_path
        except BrowserMissing as missing:
            pytest.skip(str(missing))
        browser = playwright.chromium.launch(executable_path=executable, args=config.launch_args())
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def noflag_chromium():
    yield from launched("chromium-noflag")


@pytest.fixture(scope="module")
def flagged_chromium():
    yield from launched("chromium")


@pytest.fixture
def relayed_reference(noflag_chromium, tmp_path):
    """The reference served with a real relay on its port: (target, relay, a new context of noflag_chromium)."""
    held = HeldPort()
    with FixtureServer(ReferenceConfig(relay_port=held.number)) as server:
        target = served_at(load_profile("reference"), server.origin, held.number)
        with Relay(port=held.number, widget_origin=target.widget_origin, home=tmp_path, held=held) as relay:
            context = noflag_chromium.new_context()
            try:
                yield target, relay, context
            finally:
                context.close()


@pytest.fixture
def routed_tool_page():
    """A slides ToolPage on a page the test writes, served at `url` by a route:
    `routed_tool_page(browser, url, html)`. Closed after the test (unless the test closed it)."""
    pages = []

    def open_(browser, url: str, html: str) -> ToolPage:
        page = browser.new_page()
        pages.append(page)
        page.route(url, lambda route: route.fulfill(body=html, content_type="text/html"))
        page.goto(url)
        return ToolPage(page, load_profile("reference"), "slides", "tab", url)

    yield open_
    for page in pages:
        if not page.is_closed():
            page.close()
