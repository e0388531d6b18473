"""pytest-playwright's override points, set for the harness's browser configurations and target.

The rest of the harness's fixtures and options live in harness/pytest_plugin.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, BrowserType, Playwright

from harness import browser_server, browsers, extension
from harness.browsers import BrowserConfig, BrowserMissing
from harness.pytest_plugin import driver_of, failed_before_teardown, uses_relay
from harness.relay import keep_off_relay
from harness.server import SERVER_FAULTS_COOKIE
from harness.targets import Target


@pytest.fixture(scope="session")
def browser_type(playwright: Playwright, browser_config: BrowserConfig) -> BrowserType:
    return getattr(playwright, browser_config.engine)


@pytest.fixture(scope="session")
def connect_options(browser_config: BrowserConfig) -> dict | None:
    """A configuration named to a browser server (HARNESS_CONNECT_<CONFIG>) connects to it."""
    server = browser_server.endpoint(browser_config.name)
    return {"endpoint": server, "timeout": browser_server.CONNECT_TIMEOUT_MS} if server else None


@pytest.fixture(scope="session")
def browser_type_launch_args(
    browser_type_launch_args: dict, browser_type: BrowserType, browser_config: BrowserConfig
) -> dict:
    if browser_server.endpoint(browser_config.name):
        return browser_type_launch_args  # the server launched its browser with the configuration's arguments
    try:
        resolved = browsers.resolve(
            browser_config, browser_type.executable_path, headless=browser_type_launch_args.get("headless", True)
        )
    except BrowserMissing as missing:
        pytest.skip(str(missing))
    args = {
        **browser_type_launch_args,
        "args": [*browser_type_launch_args.get("args", []), *browser_config.launch_args()],
    }
    args.update(resolved.launch_options())
    return args


@pytest.fixture(scope="session")
def base_url(target: Target) -> str:
    """pytest-base-url's fixture, pointed at the target."""
    return target.base_url


@pytest.fixture
def new_context(
    new_context,
    request: pytest.FixtureRequest,
    browser_type: BrowserType,
    browser_type_launch_args: dict,
    browser_context_args: dict,
    extension_profiles: Path,
) -> Iterator:
    """pytest-playwright's new_context; on a call path that loads the agent extension, a persistent
    context with it (Chromium loads an unpacked extension nowhere else), closed after the scenario."""
    driver = driver_of(request.node)
    if driver is None or not driver.loads_extension:
        yield new_context
        return
    opened: list[BrowserContext] = []

    def new(**kwargs) -> BrowserContext:
        opened.append(
            extension.launch_context(
                browser_type, browser_type_launch_args, {**browser_context_args, **kwargs}, extension_profiles
            )
        )
        return opened[-1]

    yield new
    for context in opened:
        context.close()


@pytest.fixture
def context(
    context: BrowserContext,
    reference_faults: list[str],
    reference_latitudes: list[str],
    request: pytest.FixtureRequest,
    output_path: str,
    target: Target,
) -> Iterator[BrowserContext]:
    """pytest-playwright's context, with the reference's faults and latitudes told to every page
    and frame before their scripts run (the reference reads them from referenceConfig).

    With --trace-failures it records a trace without DOM snapshots and screenshots (those
    double the run time of a page like draw.io's) and keeps it, with a screenshot of each of the
    context's pages, when the scenario failed. (pytest-playwright's --screenshot=only-on-failure
    shoots every page of every scenario before it knows the outcome: 5 s lost on each tab in the
    background, which never draws a frame.)"""
    if reference_faults or reference_latitudes:
        told = {"faults": reference_faults, "latitudes": reference_latitudes}
        context.add_init_script(f"globalThis.referenceConfig = {json.dumps(told)};")
    if reference_faults and target.served:  # the faults that are the server's (the isolation headers)
        context.add_cookies(
            [{"name": SERVER_FAULTS_COOKIE, "value": ",".join(reference_faults), "url": target.base_url}]
        )
    if not target.served and not uses_relay(request.node):
        keep_off_relay(context, target.relay_port)
    tracing = request.config.getoption("--trace-failures")
    if tracing:
        context.tracing.start(title=request.node.nodeid, snapshots=False, screenshots=False, sources=False)
    yield context
    if tracing:
        failed = failed_before_teardown(request.node)
        if failed:
            screenshot_pages(context, Path(output_path))
        context.tracing.stop(path=Path(output_path) / "trace.zip" if failed else None)


def screenshot_pages(context: BrowserContext, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number, page in enumerate(context.pages, 1):
        with suppress(Exception):  # a tab in the background draws no frame
            page.screenshot(path=folder / f"page-{number}-failed.png", timeout=5_000)
