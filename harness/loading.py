"""A tool's loading held back, so that operations can be called before it ends (the profile's
hold_loading): "fetch" (the document or project is fetched), "child-frame" (the tool runs in a
frame of its own), "indexeddb" (it reads its saved state from IndexedDB), a URL glob of the
requests that carry it, or several of these."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack, suppress

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


# hold_loading = "indexeddb": every IndexedDB database the page opens answers only when released.
# The open request's success (or error) event is stopped before the page's own listeners, which
# come after it, and dispatched again on release; its upgradeneeded is never held (a versionchange
# transaction lives only while that event is dispatched). A page's init script, in every frame.
HOLD_INDEXEDDB = """(() => {
  const hold = { held: [], holding: true };
  globalThis.__harnessHeldIndexedDB = hold;
  const open = IDBFactory.prototype.open;
  IDBFactory.prototype.open = function (...args) {
    const request = open.apply(this, args);
    for (const type of ["success", "error"]) {
      request.addEventListener(type, (event) => {
        if (!hold.holding || event.harnessReleased) return;
        event.stopImmediatePropagation();
        hold.held.push({ request, type });
      });
    }
    return request;
  };
  const dispatch = (as) => {
    hold.holding = false;
    for (const { request, type } of hold.held.splice(0)) {
      const event = new Event(as ?? type);
      event.harnessReleased = true;
      request.dispatchEvent(event);
    }
  };
  hold.stop = () => { hold.holding = false; };
  hold.release = () => dispatch();
  hold.fail = () => dispatch("error");
})();"""
HELD_INDEXEDDB = "() => globalThis.__harnessHeldIndexedDB?.held.length ?? 0"


def wait_for_held(page: Page, held: Callable[[], bool], within: float) -> None:
    """Until `held()`, at most `within` seconds.

    Route handlers run only while Playwright is called, and a worker's requests (an engine in a
    Web Worker) raise no event of the page: wait for the page's next request in short slices,
    idle in between (a loop of calls would take a core from the other worker)."""
    deadline = time.monotonic() + within
    while not held() and (left := deadline - time.monotonic()) > 0:
        with suppress(PlaywrightTimeoutError):
            page.wait_for_event("request", timeout=min(left, ROUTE_DISPATCH) * 1000)


class HeldLoading:
    """Open `tool_page` (not yet navigated) with its loading held — `how` is the profile's
    hold_loading, one kind or several; `release()` lets it go on, `fail()` makes it fail (a load
    that cannot finish)."""

    def __init__(self, tool_page: ToolPage, how: str | tuple[str, ...]):
        self.tool_page = tool_page
        kinds = (how,) if isinstance(how, str) else tuple(how)
        page = tool_page.page
        self.held: list[Route] = []
        self._holding = True
        self._routes = [self._route(*_carriers(kind)) for kind in kinds if kind != "indexeddb"]
        self._indexeddb = ExitStack()
        self._holds_indexeddb = "indexeddb" in kinds
        if self._holds_indexeddb:
            self._indexeddb.enter_context(page.add_init_script(HOLD_INDEXEDDB))
        # The held requests keep the load event from firing: wait for the document only.
        tool_page.goto(tool_page.url, wait_until="domcontentloaded")
        # Until the loading is held; then hold nothing more (the switch's scripts and the relay's
        # frame must load, a reload is not held).
        wait_for_held(page, self._any_held, HOLD_SEEN_WITHIN)
        self._holding = False
        self._end_indexeddb("stop")
        if not self._any_held():
            self._unroute()
            pytest.skip(
                f"未確認: the harness could not hold {tool_page.tool}'s loading "
                f"(nothing of hold_loading = {how!r} was seen)"
            )

    def _route(self, pattern: str, carries: Callable) -> tuple[str, Callable]:
        def hold(route: Route) -> None:
            if self._holding and carries(route.request):
                self.held.append(route)
            else:
                route.fallback()

        self.tool_page.page.route(pattern, hold)
        return pattern, hold

    def _any_held(self) -> bool:
        return bool(self.held) or (self._holds_indexeddb and self.tool_page.page.evaluate(HELD_INDEXEDDB) > 0)

    def _end_indexeddb(self, how: str) -> None:
        self._indexeddb.close()  # later documents of the tab are not held
        self.tool_page.page.evaluate(f"() => globalThis.__harnessHeldIndexedDB?.{how}()")

    def _unroute(self) -> None:
        for pattern, hold in self._routes:
            self.tool_page.page.unroute(pattern, hold)

    def release(self) -> None:
        self._end(lambda route: route.continue_(), "release")

    def fail(self) -> None:
        self._end(lambda route: route.abort("failed"), "fail")

    def _end(self, each, indexeddb: str) -> None:
        for route in self.held:
            each(route)
        self.held.clear()
        self._unroute()
        self._end_indexeddb(indexeddb)


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
        wait_for_held(self.page, lambda: bool(self.held), within)
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
