"""A tool's loading held back, so that operations can be called before it ends (the profile's
hold_loading): "fetch" (the document or project is fetched), "child-frame" (the tool runs in a
frame of its own) or a URL glob of the requests that carry it."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, Route
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from harness.pages import ToolPage

HOLD_SEEN_WITHIN = 15  # seconds for the page to ask for what carries its loading
ROUTE_DISPATCH = 0.05  # seconds: how soon a held request is noticed


def _carriers(how: str):
    if how == "fetch":
        return "**/*", lambda request: request.resource_type in ("fetch", "xhr")
    if how == "child-frame":
        return "**/*", lambda request: request.frame.parent_frame is not None
    return how, lambda request: True


def wait_for_held(page: Page, held: list[Route], within: float) -> None:
    """Until a route handler has held a request (`held` not empty), at most `within` seconds.

    Route handlers run only while Playwright is called, and a worker's requests (an engine in a
    Web Worker) raise no event of the page: wait for the page's next request in short slices,
    idle in between (a loop of calls would take a core from the other worker)."""
    deadline = time.monotonic() + within
    while not held and (left := deadline - time.monotonic()) > 0:
        try:
            page.wait_for_event("request", timeout=min(left, ROUTE_DISPATCH) * 1000)
        except PlaywrightTimeoutError:
            pass


class HeldLoading:
    """Open `tool_page` (not yet navigated) with its loading held; `release()` lets it go on,
    `fail()` makes those requests fail (a load that cannot finish)."""

    def __init__(self, tool_page: ToolPage, how: str):
        self.tool_page = tool_page
        self.how = how
        self.pattern, self._carries = _carriers(how)
        self.held: list[Route] = []
        self._holding = True
        page = tool_page.page
        page.route(self.pattern, self._hold)
        # The held requests keep the load event from firing: wait for the document only.
        tool_page.goto(tool_page.url, wait_until="domcontentloaded")
        # Until the loading is held; then hold nothing more (the switch's scripts and the relay's
        # frame must load).
        wait_for_held(page, self.held, HOLD_SEEN_WITHIN)
        self._holding = False
        if not self.held:
            page.unroute(self.pattern, self._hold)
            pytest.skip(f"未確認: the harness could not hold {tool_page.tool}'s loading "
                        f"(no request of hold_loading = {how!r} was seen)")

    def _hold(self, route: Route) -> None:
        if self._holding and self._carries(route.request):
            self.held.append(route)
        else:
            route.continue_()

    def release(self) -> None:
        self._end(lambda route: route.continue_())

    def fail(self) -> None:
        self._end(lambda route: route.abort("failed"))

    def _end(self, each) -> None:
        for route in self.held:
            each(route)
        self.held.clear()
        self.tool_page.page.unroute(self.pattern, self._hold)


class HeldRequests:
    """Every request of an open page matching the URL glob `pattern`, held from now on until
    `release()` or `fail()` (an engine a tool loads on its first use: the load in progress, or a
    load that cannot finish)."""

    def __init__(self, tool_page: ToolPage, pattern: str):
        self.page = tool_page.page
        self.pattern = pattern
        self.held: list[Route] = []
        self._failing = False
        self.page.route(pattern, self._hold)

    def _hold(self, route: Route) -> None:
        if self._failing:
            route.abort("failed")
        else:
            self.held.append(route)

    def seen(self, within: float = HOLD_SEEN_WITHIN) -> bool:
        """Whether the page asked for one of them within `within` seconds."""
        wait_for_held(self.page, self.held, within)
        return bool(self.held)

    def release(self) -> None:
        for route in self.held:
            route.continue_()
        self.held.clear()
        self.page.unroute(self.pattern, self._hold)

    def fail(self) -> None:
        """Fail what is held and whatever else the page asks for, until `release()`."""
        self._failing = True
        for route in self.held:
            route.abort("failed")
        self.held.clear()
