"""The tool-client interface and its in-page implementation.

A tool client lists a tab's operations and calls them, returning the parsed JSON result. The
in-page client uses the page's own `document.modelContext` (`getTools` + `executeTool`); the
relay client (harness.relay) goes through the MCP-B relay with the Python MCP SDK, the webmcp
client (harness.webmcp) through the browser's own WebMCP. Scenarios are written once against this
interface and run on every path that has what they need (harness.drivers).
"""

from __future__ import annotations

import itertools
import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from harness import contract, limits
from harness.checks import HarnessError, RuleBroken, held
from harness.pages import ToolPage

RESULT_RULE = "result.json-string"
REGISTRATION_RULE = "registration.operations"
DIALOG_RULE = "confirm.which"
# How often the wait for an operation that never asks looks for a confirmation dialog: a dialog
# where none is due is reported within this, not after the page's 50-second decline.
DIALOG_WATCH = 1.0
T = TypeVar("T")


@dataclass(frozen=True)
class ToolInfo:
    name: str  # the operation's name as the page registered it
    exposed_name: str  # the name the client sees (the relay may rename)
    description: str
    input_schema: dict
    annotations: frozenset[str]  # hint names whose value is true

    @classmethod
    def registered(cls, tool: dict) -> ToolInfo:
        """From an entry of the page's own `getTools()`, as the in-page and extension clients see it."""
        return cls(
            tool["name"],
            tool["name"],
            tool["description"],
            tool["inputSchema"],
            frozenset(k for k, v in tool["annotations"].items() if v is True),
        )


class ConditionTimedOut(AssertionError):
    """A condition on what the page shows its clients (these tools registered, none left) did not
    come in time. Inside a check it is that check failing; outside, a precondition that did not hold."""


class NotJsonResult(RuleBroken):
    """The operation answered with something other than a JSON string, or threw: whichever
    scenario sees it, the rule 「成功でも失敗でも JSON の文字列を返し、例外を投げない」 is broken."""

    def __init__(self, message: str):
        super().__init__(RESULT_RULE, message)


class ToolsRefused(RuleBroken):
    """document.modelContext.getTools() rejected: the page's operations cannot be listed, nor called,
    by anyone in this browser."""

    def __init__(self, context: str, outcome: dict):
        message = f"{context}: document.modelContext.getTools() rejected with {outcome['refused']}"
        if outcome.get("originAgentCluster") is False:
            # The MCP-B polyfill (5.1.0) refuses every page outside an origin-keyed agent cluster;
            # Chromium keys by origin unasked, Firefox only where the document is served so.
            message += (
                "; the page is not in an origin-keyed agent cluster (window.originAgentCluster is false), "
                "which the MCP-B polyfill refuses: serve the page with the header `Origin-Agent-Cluster: ?1`"
            )
        super().__init__(REGISTRATION_RULE, message)


class PendingCall(Protocol):
    def done(self) -> bool: ...

    def result(self, timeout: float = limits.CALL_RESULT) -> dict: ...


class ToolClient(Protocol):
    path: str

    def tools(self) -> list[ToolInfo]: ...

    def wait_for_tools(self, names: set[str], timeout: float | None = None) -> list[ToolInfo]: ...

    def wait_for_no_tools(self, timeout: float | None = None) -> None: ...

    def start(self, name: str, arguments: dict[str, Any]) -> PendingCall: ...

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict: ...

    def call_when_ready(
        self, name: str, arguments: dict[str, Any] | None = None, timeout: float = limits.TOOL_READY
    ) -> dict: ...


def parse_result(raw: Any, context: str) -> dict:
    if not isinstance(raw, str):
        raise NotJsonResult(f"{context}: the result is {type(raw).__name__} {raw!r}, not a JSON string")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        raise NotJsonResult(f"{context}: the result is not JSON: {raw[:300]!r}") from None
    if not isinstance(value, dict) or not isinstance(value.get("ok"), bool):
        raise NotJsonResult(f"{context}: the result has no boolean ok: {raw[:300]!r}")
    held(RESULT_RULE)
    return value


def never_asks(name: str) -> bool:
    """Whether the spec says a call of `name` shows no confirmation dialog (all but the five
    operations with a confirmation; an operation the contract does not know is not judged)."""
    op = next((op for op in contract.operations() if op.name == name), None)
    return op is not None and op.confirmation is None


def no_dialog_meanwhile(tool_page: ToolPage, name: str) -> None:
    """While a call of `name`, which never asks, is undecided: a confirmation dialog on the page
    (the dialog role with the spec's やめる button, whatever else the page calls a dialog) is a
    broken confirm.which, reported with its title once it has been answered やめる."""
    asked = tool_page.any_confirmation
    if not asked.root.is_visible() or _still_asking(tool_page):
        return
    try:
        title = asked.title.first.inner_text(timeout=2_000).strip()
    except PlaywrightError:
        title = asked.body_text()[:200].strip()
    with suppress(PlaywrightError):  # the page is left as an agent's declined call leaves it
        asked.cancel.click(timeout=5_000)
    raise RuleBroken(
        DIALOG_RULE,
        f"{name} asked for confirmation (「{title}」), though only the operations with a confirmation ask",
        subject=name,
    )


def started(tool_page: ToolPage, name: str, call: T) -> T:
    """A call a client started: one of an operation that asks is kept until seen decided, for a
    dialog on the page meanwhile may be its own."""
    if not never_asks(name):
        tool_page.asking.append(call)
    return call


def _still_asking(tool_page: ToolPage) -> bool:
    def decided(call) -> bool:
        try:
            return call.done()
        except Exception:  # a call of a page since reloaded or closed
            return True

    tool_page.asking[:] = [call for call in tool_page.asking if not decided(call)]
    return bool(tool_page.asking)


def first_wait(name: str, timeout: float) -> float:
    """How long a client's first wait for a call may be: DIALOG_WATCH where the operation never
    asks (then the wait goes on through `watched`), else the whole timeout."""
    return min(DIALOG_WATCH, timeout) if never_asks(name) else timeout


def watched(tool_page: ToolPage, name: str, timeout: float, wait: Callable[[float], bool]) -> float:
    """Wait up to `timeout` for a call of `name` to be decided (`wait(seconds)` says whether it was
    within them), looking for a dialog meanwhile where the operation never asks; the seconds left."""
    deadline = time.monotonic() + timeout
    if never_asks(name):
        while (left := deadline - time.monotonic()) > 0 and not wait(min(DIALOG_WATCH, left)):
            no_dialog_meanwhile(tool_page, name)
    return max(deadline - time.monotonic(), 0.001)


def call_when_ready(
    client: ToolClient | PolledClient, name: str, arguments: dict[str, Any] | None, timeout: float
) -> dict:
    """Call until the operation stops answering not_ready (a tool still loading), or the deadline."""
    result, _ = limits.poll(
        lambda: client.call(name, arguments),
        lambda answer: answer["ok"] or answer["error"]["code"] != "not_ready",
        timeout,
        pause=0.1,
    )
    return result


class PolledClient(ABC):
    """What a client shares whose list of a tab's operations changes with no event it passes on:
    waits that ask the list again, and the page's console for diagnostics. A subclass gives
    `path`, `tool_page`, `tools()`, `call()` and `holder` (who holds the list, for the timeout's message)."""

    path: str
    holder: str
    tool_page: ToolPage

    @abstractmethod
    def tools(self) -> list[ToolInfo]: ...

    @abstractmethod
    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict: ...

    def _wait(self, done: Callable[[set[str]], bool], timeout: float, what: str) -> list[ToolInfo]:
        # Asked again and again: no change event reaches the harness (page timers may be under page.clock).
        tools, held = limits.poll(self.tools, lambda listed: done({t.name for t in listed}), timeout)
        if not held:
            raise ConditionTimedOut(
                f"{self.path}: timed out after {timeout:.0f} s waiting for {what}; {self.holder} "
                f"{sorted(t.name for t in tools)}\n{self.diagnostics()}"
            )
        return tools

    def wait_for_tools(self, names: set[str], timeout: float | None = None) -> list[ToolInfo]:
        return self._wait(lambda held: names <= held, timeout or limits.TOOLS_REGISTERED, f"tools {sorted(names)}")

    def wait_for_no_tools(self, timeout: float | None = None) -> None:
        self._wait(lambda held: not held, timeout or limits.TOOLS_REGISTERED, "no tools")

    def call_when_ready(
        self, name: str, arguments: dict[str, Any] | None = None, timeout: float = limits.TOOL_READY
    ) -> dict:
        return call_when_ready(self, name, arguments, timeout)

    def diagnostics(self) -> str:
        return f"--- page console ({self.tool_page.page.url}) ---\n{self.tool_page.console_text()}"


# Runs in the page. The native API (Chromium's WebMCP) takes an input object; the MCP-B polyfill
# 5.1.0, when it stands alone, takes the input as a JSON string. Tools of same-origin child
# frames also show in the native getTools(): only the top window's count.
_PAGE_HELPERS = r"""
(() => {
  if (window.__harness) return window.__harness;
  // The polyfill may define its own getter on Document.prototype: only the browser's is native code.
  const getter = () => Object.getOwnPropertyDescriptor(Document.prototype, 'modelContext')?.get;
  const native = () => !!getter() && /\[native code\]/.test(Function.prototype.toString.call(getter()));
  const ownTools = async () => {
    const mc = document.modelContext;
    if (!mc) return [];
    const tools = await mc.getTools();
    return tools.filter((t) => !t.window || t.window === window);
  };
  // getTools refusing is the page's answer, not the harness's trouble: handed back with what explains it.
  const refusal = (error) => ({
    refused: `${error?.name}: ${error?.message}`,
    originAgentCluster: globalThis.originAgentCluster ?? null,
  });
  window.__harness = {
    calls: new Map(),
    async tools() {
      let tools;
      try {
        tools = await ownTools();
      } catch (error) {
        return refusal(error);
      }
      return tools.map((t) => ({
        name: t.name,
        description: t.description ?? '',
        inputSchema: typeof t.inputSchema === 'string' ? JSON.parse(t.inputSchema) : (t.inputSchema ?? {}),
        annotations: t.annotations ?? {},
      }));
    },
    start(id, name, input) {
      const run = async () => {
        let tools;
        try {
          tools = await ownTools();
        } catch (error) {
          return refusal(error);
        }
        const tool = tools.find((t) => t.name === name);
        if (!tool) return { missing: true };
        const mc = document.modelContext;
        const raw = native() ? await mc.executeTool(tool, input) : await mc.executeTool(tool, JSON.stringify(input));
        return { raw };
      };
      this.calls.set(id, run().catch((error) => ({ thrown: `${error?.name}: ${error?.message}` })));
      return this.calls.get(id);
    },
    // The call's outcome, or {timedOut} after `ms` of real time: scheduler.postTask's delay is not
    // one of the timers page.clock fakes (setTimeout and AbortSignal.timeout are), so a scenario
    // that has paused the page's clock still gets its time limit.
    outcome(id, ms) {
      return Promise.race([
        this.calls.get(id),
        new Promise((resolve) => {
          const timedOut = () => resolve({ timedOut: true });
          if (globalThis.scheduler?.postTask) scheduler.postTask(timedOut, { delay: ms });
          else setTimeout(timedOut, ms);
        }),
      ]);
    },
  };
  return window.__harness;
})()
"""

_ids = itertools.count(1)


@dataclass
class InPageCall:
    client: InPageClient
    id: int
    name: str
    arguments: dict = field(default_factory=dict)

    def done(self) -> bool:
        """Whether the call has been decided (without waiting for it)."""
        return self.wait(0)

    def wait(self, seconds: float) -> bool:
        """Whether the call is decided within `seconds`."""
        outcome = self.client.tool_page.page.evaluate(
            f"([id, ms]) => {_PAGE_HELPERS}.outcome(id, ms)", [self.id, seconds * 1000]
        )
        return not outcome.get("timedOut")

    def result(self, timeout: float = limits.CALL_RESULT) -> dict:
        left = watched(self.client.tool_page, self.name, timeout, self.wait)
        page = self.client.tool_page.page
        outcome = page.evaluate(f"([id, ms]) => {_PAGE_HELPERS}.outcome(id, ms)", [self.id, left * 1000])
        return self.client.parsed(self.name, outcome, timeout)


class InPageClient(PolledClient):
    """Calls operations through the page's own `document.modelContext`."""

    path = "in-page"
    holder = "registered"

    def __init__(self, tool_page: ToolPage):
        self.tool_page = tool_page

    def parsed(self, name: str, outcome: dict, timeout: float) -> dict:
        context = f"{name} (in-page)"
        if outcome.get("timedOut"):
            raise ConditionTimedOut(f"{context}: executeTool did not settle in {timeout:.0f} s\n{self.diagnostics()}")
        if "refused" in outcome:
            raise ToolsRefused(context, outcome)
        if outcome.get("missing"):
            raise HarnessError(f"{context}: no operation named {name!r} is registered\n{self.diagnostics()}")
        if "thrown" in outcome:
            raise NotJsonResult(f"{context}: executeTool rejected with {outcome['thrown']} instead of a JSON string")
        return parse_result(outcome["raw"], context)

    def tools(self) -> list[ToolInfo]:
        listed = self.tool_page.page.evaluate(f"() => {_PAGE_HELPERS}.tools()")
        if isinstance(listed, dict):
            raise ToolsRefused(f"{self.tool_page.tool} (in-page)", listed)
        return [ToolInfo.registered(t) for t in listed]

    def wait_for_only(self, names: set[str], timeout: float | None = None) -> None:
        """Until exactly these operations are registered in the page."""
        self._wait(
            lambda held: held == names,
            timeout or limits.TOOLS_REGISTERED,
            f"only tools {sorted(names)}" if names else "no tools",
        )

    def start(self, name: str, arguments: dict[str, Any]) -> InPageCall:
        call = started(self.tool_page, name, InPageCall(self, next(_ids), name, arguments))
        try:
            # Started, not awaited: the call's promise stays in the page until result() asks.
            self.tool_page.page.evaluate(
                f"([id, name, input]) => {{ {_PAGE_HELPERS}.start(id, name, input); }}", [call.id, name, arguments]
            )
        except PlaywrightError as error:
            raise HarnessError(f"{name} (in-page): {error.message}\n{self.diagnostics()}") from None
        return call

    def call(self, name: str, arguments: dict[str, Any] | None = None, timeout: float = limits.CALL_RESULT) -> dict:
        """Start and await in one round trip to the page, as an agent's single call would (a call
        still undecided after DIALOG_WATCH, of an operation that never asks, is watched for a dialog)."""
        id_ = next(_ids)
        first = first_wait(name, timeout)
        try:
            outcome = self.tool_page.page.evaluate(
                f"([id, name, input, ms]) => {{ const h = {_PAGE_HELPERS}; h.start(id, name, input); return h.outcome(id, ms); }}",
                [id_, name, arguments or {}, first * 1000],
            )
        except PlaywrightError as error:
            raise HarnessError(f"{name} (in-page): {error.message}\n{self.diagnostics()}") from None
        if outcome.get("timedOut") and first < timeout:
            return InPageCall(self, id_, name, arguments or {}).result(timeout - first)
        return self.parsed(name, outcome, timeout)

    def call_all(self, name: str, inputs: list[dict[str, Any]], timeout: float = limits.CALL_RESULT) -> list[dict]:
        """Start the calls one after another, then await them all: one round trip to the page."""
        ids = [next(_ids) for _ in inputs]
        first = first_wait(name, timeout)
        try:
            outcomes = self.tool_page.page.evaluate(
                f"([ids, name, inputs, ms]) => {{ const h = {_PAGE_HELPERS}; ids.forEach((id, i) => h.start(id, name, inputs[i]));"
                " return Promise.all(ids.map((id) => h.outcome(id, ms))); }",
                [ids, name, inputs, first * 1000],
            )
        except PlaywrightError as error:
            raise HarnessError(f"{name} (in-page): {error.message}\n{self.diagnostics()}") from None
        return [
            InPageCall(self, id_, name, arguments).result(timeout - first)
            if outcome.get("timedOut") and first < timeout
            else self.parsed(name, outcome, timeout)
            for id_, arguments, outcome in zip(ids, inputs, outcomes, strict=True)
        ]


def call_all(
    client: ToolClient, name: str, inputs: list[dict[str, Any]], timeout: float = limits.CALL_RESULT
) -> list[dict]:
    """Calls an agent makes without waiting for one answer before the next: started in order, then
    each answered. A client that can (in-page, extension) sends them all and awaits them in one
    round trip (a round trip to start each call and one to await it made a thousand calls take most
    of a minute); the others start each and await each."""
    if hasattr(client, "call_all"):
        return client.call_all(name, inputs, timeout)
    calls = [client.start(name, arguments) for arguments in inputs]
    return [call.result(timeout) for call in calls]


def decided_within(call: PendingCall, seconds: float) -> bool:
    """Whether the call is decided within `seconds` (a rule that says "at once", on a page that
    may render late); unlike result(), not being decided in time is an answer, not an error."""
    return limits.poll(call.done, limit=seconds)[1]


def start_and_see(tool_page: ToolPage, client: ToolClient, name: str, arguments: dict) -> tuple[PendingCall, bool]:
    """Start a call and wait until it shows a confirmation dialog or is decided; returns the pending
    call and whether a dialog asked. Told by the dialog and the call itself, not by the log: a page
    may render its rows late."""
    dialog = tool_page.dialog.root
    expect(dialog).to_have_count(0)  # the dialog of a call decided before has gone
    pending = client.start(name, arguments)
    seen, _ = limits.poll(
        lambda: "dialog" if dialog.is_visible() else "decided" if pending.done() else None, limit=limits.CALL_RESULT
    )
    if seen is None:
        raise ConditionTimedOut(f"{name} neither asked nor was decided in {limits.CALL_RESULT:.0f} s")
    return pending, seen == "dialog"
