"""The browser's own WebMCP as a tool client: Playwright's `page.webmcp` (tools, call_tool).

This is what a browser's built-in agent sees: the tools as the browser holds them after the page
registered them (natively, or through the polyfill that wraps the native API), not the page's
`document.modelContext` object. It needs Chromium launched with `WebMCP` among its features.
It reports annotations in its own names and hands back results already parsed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from harness import limits
from harness.checks import HarnessError
from harness.clients import ConditionTimedOut, NotJsonResult, PolledClient, ToolInfo, never_asks, started, watched
from harness.pages import ToolPage

# page.webmcp's names for the hints the page registers.
HINTS = {"readOnly": "readOnlyHint", "untrustedContent": "untrustedContentHint", "consequential": "consequentialHint"}


# What Chromium's WebMCP reports when the tool's execute threw (measured: Chromium 156, Playwright
# 1.65's call_tool): 「UnknownError: Tool was executed but the invocation failed. For example, the
# script function threw an error」.
TOOL_THREW = "Tool was executed but the invocation failed"


def call_failure(name: str, error: PlaywrightError, diagnostics: str) -> Exception:
    """What a failed call_tool means: the tool's execute threw (the rule 「例外を投げない」 broken),
    or the harness's trouble — a closed page, a crashed tab, a protocol error, no such tool — which
    is retried, then 未確認, as on the other paths."""
    if TOOL_THREW in error.message:
        return NotJsonResult(f"{name} (webmcp): the call threw {error.message[:300]} instead of answering")
    return HarnessError(f"{name} (webmcp): {error.message[:500]}\n{diagnostics}")


def checked(name: str, value: Any) -> dict:
    """The parsed result must be the spec's object; whether it came as a string this path cannot see."""
    if not isinstance(value, dict) or not isinstance(value.get("ok"), bool):
        raise NotJsonResult(f"{name} (webmcp): the result has no boolean ok: {value!r:.300}")
    return value


class PendingCallTool:
    """`page.webmcp.call_tool` started and not awaited — the one place the harness uses Playwright's
    private API (`_impl_obj`, `_loop`, `_sync`): the sync `call_tool` blocks until the tool
    answers, but a confirming operation waits for the harness to press its dialog. The call runs
    as a task on Playwright's own event loop (the same `call_tool` the sync method wraps), which
    advances whenever the harness talks to Playwright. tests/test_webmcp.py fails, naming what
    moved, when a Playwright upgrade changes these names."""

    def __init__(self, page: Page, name: str, arguments: dict, timeout_ms: float):
        self._page = page
        call = page._impl_obj.main_frame.webmcp.call_tool(name, arguments, timeout_ms)
        self._task = page._loop.create_task(call)

    def done(self) -> bool:
        return self._task.done()

    def result(self, timeout: float) -> Any:
        """The call's answer; asyncio.TimeoutError after `timeout` s, Playwright's error if it threw."""
        return self._page._sync(asyncio.wait_for(asyncio.shield(self._task), timeout))


class WebMCPCall:
    """A call in flight, through the browser's own WebMCP."""

    def __init__(self, client: WebMCPClient, name: str, arguments: dict):
        self.client, self.name = client, name
        self._call = PendingCallTool(client.tool_page.page, name, arguments, limits.CALL_RESULT * 1000)

    def done(self) -> bool:
        # A round trip lets Playwright's loop take in everything the browser sent before it; one
        # step of the loop may leave the answer queued behind the page's console and network events.
        self.client.tool_page.page.evaluate("0")
        return self._call.done()

    def wait(self, seconds: float) -> bool:
        """Whether the call is decided within `seconds`."""
        try:
            self._call.result(seconds)
        except (TimeoutError, PlaywrightTimeoutError):
            return False
        except PlaywrightError:
            pass  # decided: result() reports it
        return True

    def result(self, timeout: float = limits.CALL_RESULT) -> dict:
        try:
            value = self._call.result(watched(self.client.tool_page, self.name, timeout, self.wait))
        except (TimeoutError, PlaywrightTimeoutError):
            raise ConditionTimedOut(
                f"{self.name} (webmcp): no answer in {timeout:.0f} s\n{self.client.diagnostics()}"
            ) from None
        except PlaywrightError as error:
            raise call_failure(self.name, error, self.client.diagnostics()) from None
        return checked(self.name, value)


class WebMCPClient(PolledClient):
    holder = "the browser holds"
    path = "webmcp"

    def __init__(self, tool_page: ToolPage):
        self.tool_page = tool_page

    def tools(self) -> list[ToolInfo]:
        try:
            listed = self.tool_page.page.webmcp.tools()
        except PlaywrightError as error:
            raise HarnessError(f"webmcp: {error.message}\n{self.diagnostics()}") from None
        return [
            ToolInfo(
                t["name"],
                t["name"],
                t.get("description") or "",
                t.get("inputSchema") or {},
                frozenset(HINTS.get(k, k) for k, v in (t.get("annotations") or {}).items() if v is True),
            )
            for t in listed
        ]

    def start(self, name: str, arguments: dict[str, Any]) -> WebMCPCall:
        return started(self.tool_page, name, WebMCPCall(self, name, arguments))

    def call(self, name: str, arguments: dict[str, Any] | None = None, timeout: float = limits.CALL_RESULT) -> dict:
        if never_asks(name):  # watched for a dialog while it waits
            return self.start(name, arguments or {}).result(timeout)
        try:
            value = self.tool_page.page.webmcp.call_tool(name, arguments or {}, timeout=timeout * 1000)
        except PlaywrightTimeoutError:
            raise ConditionTimedOut(f"{name} (webmcp): no answer in {timeout:.0f} s\n{self.diagnostics()}") from None
        except PlaywrightError as error:
            raise call_failure(name, error, self.diagnostics()) from None
        return checked(name, value)
