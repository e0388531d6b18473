"""An extension's content script as a tool client (ADR-0044's second Verification row).

The harness's own MV3 extension (fixtures/agent-extension) does what an agent's extension would:
its content script lists and calls the page's operations through `document.modelContext` from
its isolated world, and its service worker asks the content script of a tab. The harness drives
the service worker with Playwright's `worker.evaluate`. Chromium loads unpacked extensions only
into a persistent context, so this path's tabs live in one (`launch_context`). Only native WebMCP
reaches an isolated world: the polyfill's object lives in the page's own world.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, BrowserType
from playwright.sync_api import Error as PlaywrightError

from harness import limits
from harness.browsers import BrowserMissing, full_chromium
from harness.checks import HarnessError
from harness.clients import (
    ConditionTimedOut,
    NotJsonResult,
    PolledClient,
    ToolInfo,
    first_wait,
    parse_result,
    started,
    watched,
)
from harness.pages import RELAY_TAB_ID_KEY, ToolPage
from harness.paths import ROOT

EXTENSION = ROOT / "fixtures" / "agent-extension"

_ids = itertools.count(1)


def launch_context(browser_type: BrowserType, launch_args: dict, context_args: dict, profiles: Path) -> BrowserContext:
    """A persistent context (a browser of its own, with a new profile under `profiles`) with the
    extension loaded."""
    args = [*launch_args.get("args", []), f"--disable-extensions-except={EXTENSION}", f"--load-extension={EXTENSION}"]
    options = {**launch_args, **context_args, "args": args}
    # A headless shell loads no extension; the full Chromium beside it does.
    if not options.get("executable_path"):
        options["channel"] = "chromium"  # Playwright's own build
    else:
        try:
            options["executable_path"] = full_chromium(options["executable_path"])
        except BrowserMissing as missing:
            raise HarnessError(f"the agent extension cannot load: {missing}") from None
    profile = tempfile.mkdtemp(prefix="extension-", dir=profiles)
    context = browser_type.launch_persistent_context(profile, **options)
    # Frees the space during a long run; Chromium may still write as it exits, so what it leaves
    # goes with `profiles` (pytest's temporary folder, the command's own folder under `verify`).
    context.on("close", lambda _: shutil.rmtree(profile, ignore_errors=True))
    if not context.service_workers:
        try:
            context.wait_for_event("serviceworker", timeout=limits.EXPECT_MS)
        except PlaywrightError:
            context.close()
            raise HarnessError(
                f"the agent extension ({EXTENSION}) did not start its service worker in "
                f"{limits.EXPECT_MS / 1000:.0f} s: this Chromium loaded no unpacked extension"
            ) from None
    return context


class ExtensionCall:
    def __init__(self, client: ExtensionClient, name: str, arguments: dict, started_as: int | None = None):
        """Start a call, or (`started_as`) take over one the worker started already."""
        self.client, self.name, self.id = client, name, started_as or next(_ids)
        if started_as is None:
            client.agent(
                "([label, id, name, input]) => agent.start(label, id, name, input)",
                [client.label, self.id, name, arguments],
            )

    def done(self) -> bool:
        return self.wait(0)

    def wait(self, seconds: float) -> bool:
        """Whether the call is decided within `seconds`."""
        return not self.client.agent("([id, ms]) => agent.outcome(id, ms)", [self.id, seconds * 1000]).get("timedOut")

    def result(self, timeout: float = limits.CALL_RESULT) -> dict:
        left = watched(self.client.tool_page, self.name, timeout, self.wait)
        outcome = self.client.agent("([id, ms]) => agent.outcome(id, ms)", [self.id, left * 1000])
        return self.client.parsed(self.name, outcome, timeout)


class ExtensionClient(PolledClient):
    holder = "the content script sees"
    path = "extension"

    def __init__(self, tool_page: ToolPage):
        self.tool_page = tool_page

    @property
    def label(self) -> dict:
        # The tab's relay tab id (sessionStorage) names it for the service worker.
        return {"key": RELAY_TAB_ID_KEY, "value": self.tool_page.relay_tab_id}

    def agent(self, script: str, arg: Any) -> Any:
        workers = self.tool_page.page.context.service_workers
        if not workers:
            raise HarnessError(f"extension: the agent extension's service worker is not running\n{self.diagnostics()}")
        try:
            return workers[0].evaluate(script, arg)
        except PlaywrightError as error:
            raise HarnessError(f"extension: {error.message}\n{self.diagnostics()}") from None

    def parsed(self, name: str, outcome: dict, timeout: float) -> dict:
        context = f"{name} (extension)"
        if outcome.get("timedOut"):
            raise ConditionTimedOut(f"{context}: no answer in {timeout:.0f} s\n{self.diagnostics()}")
        if outcome.get("lost") or outcome.get("missing") or outcome.get("noApi"):
            raise HarnessError(f"{context}: {outcome}\n{self.diagnostics()}")
        if "thrown" in outcome:
            raise NotJsonResult(f"{context}: executeTool rejected with {outcome['thrown']} instead of a JSON string")
        return parse_result(outcome["raw"], context)

    def tools(self) -> list[ToolInfo]:
        listed = self.agent("([label]) => agent.tools(label)", [self.label])
        if listed.get("noApi"):
            raise HarnessError(f"extension: the content script sees no document.modelContext\n{self.diagnostics()}")
        return [ToolInfo.registered(t) for t in listed["tools"]]

    def start(self, name: str, arguments: dict[str, Any]) -> ExtensionCall:
        return started(self.tool_page, name, ExtensionCall(self, name, arguments))

    def call(self, name: str, arguments: dict[str, Any] | None = None, timeout: float = limits.CALL_RESULT) -> dict:
        return self.start(name, arguments or {}).result(timeout)

    def call_all(self, name: str, inputs: list[dict[str, Any]], timeout: float = limits.CALL_RESULT) -> list[dict]:
        """Send the calls one after another, then await them all: one round trip to the worker."""
        ids = [next(_ids) for _ in inputs]
        first = first_wait(name, timeout)
        outcomes = self.agent(
            "([label, ids, name, inputs, ms]) => agent.callAll(label, ids, name, inputs, ms)",
            [self.label, ids, name, inputs, first * 1000],
        )
        return [
            ExtensionCall(self, name, {}, started_as=id_).result(timeout - first)
            if outcome.get("timedOut") and first < timeout
            else self.parsed(name, outcome, timeout)
            for id_, outcome in zip(ids, outcomes, strict=True)
        ]
