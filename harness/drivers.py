"""The call paths, as drivers that declare what they can do.

A driver is one way an agent's call reaches a tab's operations (ADR-0044's Verification rows).
Scenarios never ask for a driver by name: they ask for capabilities (`@pytest.mark.needs(...)`),
and a scenario runs on every driver that has them and that the browser configuration supports.
Adding a driver is one entry here (its client class named in it) and that class; Table 1 of the
report gets a row for it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from harness.browsers import BrowserConfig

# What a driver can do. Each is a reason some scenario cannot run on every path.
RESULT_TEXT = "result-text"  # sees the operation's answer as the page returned it (a string, or a throw)
PAGE_CLOCK = "page-clock"  # nothing between the harness and the page keeps time on the page's (faked) clock
ANNOTATIONS = "annotations"  # hands the registered annotations over to the caller
UNVALIDATED_INPUT = "unvalidated-input"  # hands the input to the page as given: only the page can refuse it
LARGE_MESSAGES = "large-messages"  # carries a 1 MB document both ways
BULK_CALLS = "bulk-calls"  # 200 calls in seconds, not in minutes
MCP_RELAY = "mcp-relay"  # the MCP-B relay stands between the page and an MCP client
PAGE_CALL_ID = "page-call-id"  # the page's side of a call can be watched by the harness (when it settles)

CAPABILITIES = (
    RESULT_TEXT,
    PAGE_CLOCK,
    ANNOTATIONS,
    UNVALIDATED_INPUT,
    LARGE_MESSAGES,
    BULK_CALLS,
    MCP_RELAY,
    PAGE_CALL_ID,
)


@dataclass(frozen=True)
class Driver:
    name: str  # what --call-path takes and results.json records
    capabilities: frozenset[str]
    labels: dict[str, str] = field(default_factory=dict)  # its row of Table 1, per language (ja, en)
    # "module:Class", made with a ToolPage; None where a process of the run makes it (the relay's)
    client: str | None = None
    needs_native_webmcp: bool = False  # runs only where the browser has its own WebMCP (the flag)
    loads_extension: bool = False  # its tabs live in a persistent context with the agent extension

    def has(self, *capabilities: str) -> bool:
        return set(capabilities) <= self.capabilities

    def client_class(self) -> Callable:
        module, name = (self.client or "").split(":")
        return getattr(importlib.import_module(module), name)

    def supports(self, config: BrowserConfig) -> bool:
        return not self.needs_native_webmcp or (config.engine == "chromium" and config.webmcp_flag)


DRIVERS: dict[str, Driver] = {
    driver.name: driver
    for driver in (
        # The page's own document.modelContext (getTools + executeTool), from a script in the page.
        Driver(
            "in-page",
            frozenset(
                {RESULT_TEXT, PAGE_CLOCK, ANNOTATIONS, UNVALIDATED_INPUT, LARGE_MESSAGES, BULK_CALLS, PAGE_CALL_ID}
            ),
            {"ja": "ページの中の API(getTools と executeTool)", "en": "In-page API (getTools and executeTool)"},
            client="harness.clients:InPageClient",
        ),
        # The spawned MCP-B relay CLI and the Python MCP SDK over stdio (harness/relay.py). Its widget
        # runs in the page's frame on the page's clock and gives a call 10 s; it closes a socket on a
        # message over 1,000,000 bytes; it forwards no annotations and may refuse input itself.
        Driver(
            "relay",
            frozenset({RESULT_TEXT, MCP_RELAY}),
            {"ja": "MCP-B の relay と、MCP のクライアント(SDK)", "en": "MCP-B relay and an MCP client (SDK)"},
        ),
        # The browser's own WebMCP as Playwright 1.65 reaches it (page.webmcp: what a browser's built-in
        # agent sees). It hands back the result already parsed, so it cannot tell a string from an object.
        Driver(
            "webmcp",
            frozenset({PAGE_CLOCK, ANNOTATIONS, UNVALIDATED_INPUT, LARGE_MESSAGES, BULK_CALLS}),
            {
                "ja": "ブラウザ自身の WebMCP(Playwright の page.webmcp)",
                "en": "The browser's own WebMCP (Playwright's page.webmcp)",
            },
            client="harness.webmcp:WebMCPClient",
            needs_native_webmcp=True,
        ),
        # An agent extension's content script (fixtures/agent-extension, harness/extension.py): from its
        # isolated world it reaches only the browser's own document.modelContext, never the polyfill.
        Driver(
            "extension",
            frozenset({RESULT_TEXT, PAGE_CLOCK, ANNOTATIONS, UNVALIDATED_INPUT, LARGE_MESSAGES, BULK_CALLS}),
            {"ja": "拡張機能の content script", "en": "An extension's content script"},
            client="harness.extension:ExtensionClient",
            needs_native_webmcp=True,
            loads_extension=True,
        ),
    )
}
CALL_PATHS = tuple(DRIVERS)


def register(driver: Driver) -> None:
    """Add a driver declared elsewhere (tests/test_extending.py's toy driver): what is imported after
    this sees it as it sees the drivers above."""
    global CALL_PATHS
    DRIVERS[driver.name] = driver
    CALL_PATHS = tuple(DRIVERS)


def unknown_capabilities(names) -> list[str]:
    return [name for name in names if name not in CAPABILITIES]


def of(client) -> Driver:
    """The driver behind a tool client."""
    return DRIVERS[client.path]


def paths_for(needs: set[str], one_driver: bool, selected: list[str]) -> list[str]:
    """The call paths a scenario runs on: the selected ones that have what it needs; with
    `one_driver`, the first of them per browser configuration (a rule of the page, not of the path)."""
    able = [name for name in selected if DRIVERS[name].has(*needs)]
    if not one_driver:
        return able
    # The first that every configuration supports, so that each browser runs the scenario once.
    universal = [name for name in able if not DRIVERS[name].needs_native_webmcp]
    return (universal or able)[:1]
