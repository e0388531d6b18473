"""Warm tabs: tool pages kept open per worker and given to one scenario after another.

Opening a tool page in a new browser context costs the page's whole download and compile
(measured here: 1.2 s for slides, 1.5 s for Excalidraw, 2.6 s for draw.io until its read
answers); the same page reloaded in a context that has loaded it before costs half of that. A
scenario that works on one tab and never on its browser context gets such a tab, reset to what
a new tab would give it:

- the page's origin storage emptied (localStorage, sessionStorage, IndexedDB) from a blank
  document of that origin, before the tool page loads again (a database whose deletion a closing
  tab's connection still blocks gives the tab up: the page's next open would wait behind it);
- a new relay tab id, so the relay's list never mixes the tab's previous life with this one;
- the other tabs of its context closed, the page's observations (console, contacted origins)
  started afresh.

A tab is emptied when its scenario ends and waits on the blank document, never running beside
the next scenarios. A tab whose scenario stopped on harness trouble is closed with its context,
never given again: its retry starts in a new context. One whose scenario found a broken rule is
emptied like a passed one's (the page is gone with the navigation; the fault proof's runs fail
by design, and a new context for each would load every editor from nothing).
Each key (tool, call path) has a context of its own, so storage events never cross between keys;
the least recently used context is closed beyond `KEEP`. The call path is in the key because
Chromium delays a context's WebSocket connections after failed ones: an in-page scenario's relay
widget fails against every port (no relay listens for it), and a relay scenario given that
context afterwards would see its widget time out against a relay that is there (seen here: never
connected within 60 s). The reference's faults and latitudes are not: they are told to the tab
(its sessionStorage, read by an init script before the page's scripts), so the fault proof's
runs, each with another fault, reuse the warm tabs instead of loading every editor anew.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from playwright.sync_api import Browser, BrowserContext, Page

from harness.checks import HarnessError
from harness.drivers import DRIVERS, MCP_RELAY
from harness.pages import RELAY_TAB_ID_KEY, ToolPage, agent_cluster_header, new_tool_page
from harness.relay import keep_off_relay
from harness.targets import Target

T = TypeVar("T")
KEEP = 6  # contexts per worker: the three canvas tools on both call paths
REFERENCE_CONFIG_KEY = "harness:reference-config"
# Every frame of the tab: the page's own, and a same-origin editor frame (sessionStorage is shared).
TOLD_CONFIG = """try {
  const told = sessionStorage.getItem(%s);
  if (told) globalThis.referenceConfig = JSON.parse(told);
} catch {}""" % json.dumps(REFERENCE_CONFIG_KEY)
TELL_CONFIG = "(told) => sessionStorage.setItem(%s, JSON.stringify(told))" % json.dumps(REFERENCE_CONFIG_KEY)
# How long a deletion of IndexedDB may stay blocked by a closing tab's connection before the tab is given up.
DELETE_BLOCKED_MS = 5_000
BLANK_PATH = "/__harness-blank__"  # answered by the harness itself (page.route), on any target
EMPTY_STORAGE = """async ([tabId, blockedMs]) => {
  localStorage.clear();
  sessionStorage.clear();
  sessionStorage.setItem(%s, tabId);
  const stillBlocked = [];
  for (const db of (await indexedDB.databases?.()) ?? []) {
    await new Promise((done) => {
      let giveUp;
      const request = indexedDB.deleteDatabase(db.name);
      request.onsuccess = request.onerror = () => { clearTimeout(giveUp); done(); };
      request.onblocked = () => { giveUp = setTimeout(() => { stillBlocked.push(db.name); done(); }, blockedMs); };
    });
  }
  return { keys: localStorage.length, stillBlocked };
}""" % json.dumps(RELAY_TAB_ID_KEY)


class WarmTabs:
    """Per worker: one context and one tool page per (tool, call path)."""

    def __init__(
        self,
        browser: Browser,
        context_args: dict,
        target: Target,
        trace: bool,
        extension_context: Callable[[], BrowserContext] | None = None,
    ):
        self.browser = browser
        self.context_args = context_args
        self.extension_context = extension_context  # for a call path that loads the agent extension
        self.target = target
        self.trace = trace
        self._tabs: OrderedDict[tuple, ToolPage] = OrderedDict()

    def take(self, tool: str, call_path: str | None, faults: list[str], latitudes: list[str], title: str) -> ToolPage:
        key = (tool, call_path)
        url = self.target.page_url(tool)
        tool_page = self._tabs.pop(key, None)  # emptied when it was given back: on the blank document
        if tool_page is None:
            tool_page = new_tool_page(self._new_context(call_path), self.target, tool, url)
            tool_page.page.add_init_script(TOLD_CONFIG)
            self._on_blank(tool_page, lambda page: None)  # the tool's origin, for its sessionStorage
            if self.trace:
                tool_page.page.context.tracing.start(title=title, snapshots=False, screenshots=False, sources=False)
        elif self.trace:
            tool_page.page.context.tracing.start_chunk(title=title)
        self._tabs[key] = tool_page
        while len(self._tabs) > KEEP:
            self._close(self._tabs.popitem(last=False)[1])
        if faults or latitudes:  # emptied with the rest of sessionStorage when the tab is given back
            tool_page.page.evaluate(TELL_CONFIG, {"faults": faults, "latitudes": latitudes})
        # The tab a user works in is in front. Firefox gives focus (document.hasFocus) to that tab
        # only, headless Chromium to every tab: a warm tab opened before others would lack it.
        tool_page.page.bring_to_front()
        tool_page.goto(url)
        return tool_page

    def give_back(self, tool_page: ToolPage, failed: bool, artifacts: Path, finding: bool = False) -> None:
        """After the scenario. A passed one's tab is emptied at once, so that it waits on a blank
        document instead of running its page (timers, a relay widget scanning ports) beside the
        next scenarios; a failed one's is kept as artifacts, then emptied too if the failure was
        a `finding` (a broken rule), closed otherwise."""
        page = tool_page.page
        if failed and self.trace and not page.is_closed():
            artifacts.mkdir(parents=True, exist_ok=True)
            try:
                page.screenshot(path=artifacts / "warm-tab-failed.png", timeout=5_000)
            except Exception as error:
                tool_page.console.append(f"[harness] no screenshot: {error}")
        if self.trace and not page.is_closed():
            page.context.tracing.stop_chunk(path=artifacts / "trace.zip" if failed else None)
        if (failed and not finding) or page.is_closed():
            self._drop(tool_page)
            return
        try:
            emptied = self._empty(tool_page)
        except Exception:
            self._drop(tool_page)
            raise
        if not emptied:
            self._drop(tool_page)

    def close(self) -> None:
        while self._tabs:
            self._close(self._tabs.popitem()[1])

    def _new_context(self, call_path: str | None) -> BrowserContext:
        if call_path is not None and DRIVERS[call_path].loads_extension:
            if self.extension_context is None:
                raise HarnessError(f"warm tabs: no way to open a context with the agent extension for {call_path}")
            context = self.extension_context()
        else:
            context = self.browser.new_context(**self.context_args)
        if not self.target.served and not (call_path is not None and DRIVERS[call_path].has(MCP_RELAY)):
            keep_off_relay(context, self.target.relay_port)
        return context

    def _empty(self, tool_page: ToolPage) -> bool:
        """Back to a new tab's start: other tabs closed, the origin's storage empty, a new relay tab
        id. False where an IndexedDB database could not be deleted: a connection of a closed tab
        still held it, and the tool page's next open would wait behind the pending deletion."""
        page = tool_page.page
        for other in page.context.pages:
            if other is not page:
                other.close()
        tab_id = secrets.token_hex(4)
        left = self._on_blank(tool_page, lambda blank: blank.evaluate(EMPTY_STORAGE, [tab_id, DELETE_BLOCKED_MS]))
        if left["keys"]:
            raise HarnessError(f"{tool_page.tool}: localStorage kept {left['keys']} keys after clear()")
        if left["stillBlocked"]:
            return False
        tool_page.start_afresh(tab_id)
        return True

    @staticmethod
    def _on_blank(tool_page: ToolPage, then: Callable[[Page], T]) -> T:
        """`then(page)` with the tab on a blank document of the tool page's origin."""
        page = tool_page.page
        parts = urlsplit(tool_page.url)
        blank = f"{parts.scheme}://{parts.netloc}{BLANK_PATH}"
        # The first document of an origin in a tab fixes its agent cluster for those after it
        # (Firefox keeps it across the navigation): the blank asks what the tool page asks.
        headers = agent_cluster_header(page, tool_page.url)

        def answer_blank(route) -> None:
            route.fulfill(body="<!doctype html><title>blank</title>", content_type="text/html", headers=headers)

        page.route(blank, answer_blank)
        try:
            page.goto(blank)
            return then(page)
        finally:
            page.unroute(blank, answer_blank)

    def _drop(self, tool_page: ToolPage) -> None:
        for key, kept in list(self._tabs.items()):
            if kept is tool_page:
                del self._tabs[key]
        self._close(tool_page)

    @staticmethod
    def _close(tool_page: ToolPage) -> None:
        with contextlib.suppress(Exception):
            tool_page.page.context.close()
