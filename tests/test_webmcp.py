"""The webmcp path tells the tool's own exception (a broken rule) from the browser's trouble (a
closed page, a crashed tab: harness trouble, retried, then 未確認), by what Chromium reports."""

from __future__ import annotations

import pytest
from playwright.sync_api import Error as PlaywrightError

from harness.checks import HarnessError
from harness.clients import NotJsonResult
from harness.webmcp import WebMCPClient, call_failure

URL = "http://127.0.0.1:9/tools.html"  # answered by the test's route: native WebMCP needs such an origin
PAGE = """<!doctype html><title>tools</title><script>
const tool = (name, execute) => document.modelContext.registerTool(
  { name, description: name, inputSchema: { type: "object", properties: {} }, execute });
tool("answers", async () => JSON.stringify({ ok: true }));
tool("throws", async () => { throw new Error("the tool's own"); });
tool("waits", () => new Promise(() => {}));
</script>"""


@pytest.fixture
def client(flagged_chromium, routed_tool_page):
    return WebMCPClient(routed_tool_page(flagged_chromium, URL, PAGE))


def test_an_answer_is_the_parsed_result(client):
    assert client.call("answers") == {"ok": True}


def test_the_tools_own_exception_is_the_rule_broken(client):
    with pytest.raises(NotJsonResult, match="threw"):
        client.call("throws")
    with pytest.raises(NotJsonResult):
        client.start("throws", {}).result()


def test_a_page_closed_during_the_call_is_harness_trouble(client):
    call = client.start("waits", {})
    client.tool_page.page.close()
    with pytest.raises(HarnessError, match="closed"):
        call.result(timeout=10)


def test_a_crashed_tab_is_harness_trouble(client):
    call = client.start("waits", {})
    with pytest.raises(PlaywrightError):
        client.tool_page.page.goto("chrome://crash")
    with pytest.raises(HarnessError, match="crashed"):
        call.result(timeout=10)
    with pytest.raises(HarnessError, match="crashed"):
        client.call("answers")


def test_only_the_browsers_report_of_a_throwing_tool_is_a_finding():
    threw = PlaywrightError(
        "WebMCP.call_tool: UnknownError: Tool was executed but the invocation failed. "
        "For example, the script function threw an error"
    )
    assert isinstance(call_failure("x", threw, ""), NotJsonResult)
    for trouble in (
        "Protocol error (WebMCP.invokeTool): Internal error",
        "Target page, context or browser has been closed",
        'WebMCP.call_tool: No WebMCP tool named "x"',
    ):
        failure = call_failure("x", PlaywrightError(trouble), "")
        assert isinstance(failure, HarnessError) and not isinstance(failure, NotJsonResult)


def test_playwrights_private_names_the_pending_call_uses_are_still_there(client):
    """harness/webmcp.py's PendingCallTool is the harness's one use of Playwright's private API."""
    page = client.tool_page.page
    moved = [
        name
        for name, present in (
            ("Page._impl_obj", hasattr(page, "_impl_obj")),
            ("Page._loop", hasattr(page, "_loop")),
            ("Page._sync", hasattr(page, "_sync")),
            (
                "Page._impl_obj.main_frame.webmcp.call_tool",
                hasattr(
                    getattr(getattr(getattr(page, "_impl_obj", None), "main_frame", None), "webmcp", None), "call_tool"
                ),
            ),
        )
        if not present
    ]
    assert not moved, (
        f"Playwright no longer has {moved}: harness/webmcp.py's PendingCallTool (a call_tool left "
        "pending while a dialog is answered) must follow the upgrade"
    )
    call = client.start("answers", {})
    assert call.result(timeout=10) == {"ok": True}
