"""The scenarios' agent: a client whose tool is switched on and loaded, and the ways through a call
the scenarios share (a success, a failure decided before any dialog, input the schema refuses,
a confirmed call).

The helpers assert; whether an assertion decides a rule is the caller's: inside its
`with check(...)` it does, outside it is a step."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from harness import contract, drivers, limits
from harness.checks import HarnessError, check
from harness.clients import (
    PendingCall,
    never_asks,
    no_dialog_meanwhile,
    parse_result,
    start_and_see,
)
from harness.clock import T0, at
from harness.pages import ToolPage


def assert_success(name: str, result: dict) -> None:
    """`result` is a success of `name` with the operation's result shape."""
    contract.by_name(name).assert_success(result)


class Agent:
    """An agent calling one tab's operations, the switch on and the tool loaded."""

    def __init__(self, tool_page: ToolPage, client):
        self.tool_page = tool_page
        self.client = client

    @property
    def reader(self) -> str:
        return contract.reader_of(self.tool_page.tool).name

    def ok(self, name: str, arguments: dict | None = None) -> dict:
        """A call that must succeed with the operation's result shape."""
        result = self.client.call(name, arguments or {})
        assert_success(name, result)
        return result

    def read(self) -> dict:
        return self.ok(self.reader)

    def _start_and_see(self, name: str, arguments: dict) -> tuple[PendingCall, bool]:
        return start_and_see(self.tool_page, self.client, name, arguments)

    def fails(self, name: str, arguments: dict, code: str) -> dict:
        """A call that must fail with `code`, decided before any confirmation dialog."""
        pending, asked = self._start_and_see(name, arguments)
        if asked and never_asks(name):
            no_dialog_meanwhile(self.tool_page, name)  # a broken confirm.which, the dialog answered
        if asked:
            self.tool_page.dialog.cancel.click()
        result = pending.result()
        assert not asked, f"{name} asked for confirmation instead of failing with {code}: {result}"
        assert result["ok"] is False and result["error"]["code"] == code, (
            f"{name}({short(arguments)}): expected {code}, got {result}"
        )
        return result

    def rejects_input(self, name: str, arguments: dict) -> None:
        """Input the schema refuses: invalid_input from the page, or the relay's own validation error."""
        pending = self.client.start(name, arguments)
        if not drivers.of(self.client).has(drivers.UNVALIDATED_INPUT):
            # The relay validates input itself (ADR-0044 Verification), and marks the page's
            # failures as errors too: either answer refuses the input.
            is_error, text = pending.raw()
            if is_error and "validation" in text.lower():
                return
            result = parse_result(text, name)
        else:
            result = pending.result()
        assert result["ok"] is False and result["error"]["code"] == "invalid_input", (
            f"{name}({short(arguments)}) was not refused as invalid_input: {result}"
        )

    def confirm(self, name: str, arguments: dict | None = None) -> tuple[bool, dict]:
        """A confirming operation: start it and press its dialog's action button.

        Returns whether a dialog asked, and the result (unchecked): a call decided without a
        dialog comes back as it is, for the caller's checks to judge."""
        pending, asked = self._start_and_see(name, arguments or {})
        if asked:
            self.tool_page.dialog.action(contract.by_name(name).asks.action_label).click()
        result = pending.result()
        if asked:
            expect(self.tool_page.dialog.root).to_be_hidden()
        return asked, result


def short(value) -> str:
    """repr(value), cut to 200 characters for a failure message."""
    text = repr(value)
    return text if len(text) < 200 else text[:200] + "…"


def switch_on(tool_page: ToolPage, client, ready: bool = True, logged: bool = False) -> Agent:
    """The one way scenarios turn a tool on: the switch turned on (unless the stored state already
    did, as in a second tab), the operations registered, and with `ready` the tool loaded (its read
    answers ok) — with `logged` also that read's row on screen, so that rows counted afterwards are
    the scenario's own."""
    # The switch comes with the tool's module, which for the editors is a large script.
    expect(tool_page.switch).to_be_visible(timeout=30_000)
    if tool_page.storage.says_on():  # a page may draw its state late: the stored state, not the drawn switch
        expect(tool_page.switch).to_be_checked()
    else:
        tool_page.turn_on()
    client.wait_for_tools(contract.names_of(tool_page.tool))
    if ready:
        read = contract.reader_of(tool_page.tool)
        loaded = client.call_when_ready(read.name, read.example)
        assert loaded["ok"] is True, f"{tool_page.tool} never became ready: {loaded}"
        if logged:
            tool_page.log.wait_for_success_row(read.name)
    return Agent(tool_page, client)


def clocked_switch_on(context, open_tool, client_for, tool: str) -> Agent:
    """An agent on a new `tool` page on Playwright's clock, installed (at T0) before the page opens."""
    context.clock.install(time=at(T0))
    tool_page = open_tool(tool)
    return switch_on(tool_page, client_for(tool_page))


def every_operation_is_not_ready(tool_page: ToolPage, client, rule: str, arguments=lambda op: dict(op.example)) -> None:
    """Turn the switch on and call each of the tool's operations (with `arguments(op)`): each one
    must answer not_ready, a check of `rule`."""
    tool_page.turn_on()
    client.wait_for_tools(contract.names_of(tool_page.tool))
    agent = Agent(tool_page, client)
    for op in contract.operations_of(tool_page.tool):
        with check(rule, subject=op.name):
            agent.fails(op.name, arguments(op), "not_ready")


def times_out_at_30_seconds(
    context, tool_page: ToolPage, start: Callable[[], PendingCall], arrived: Callable[[], object], rule: str
) -> None:
    """A call without timeoutMs, on a page on Playwright's clock: undecided 29 s after it arrived, a
    timeout 31 s after (the default limit of 30,000 ms), checks of `rule`, measured in the page's time.

    `start()` starts the call; `arrived()` returns once the page has it. The page's time is read
    before the one and after the other, and the clock is paused: the call arrived between those two
    times, so 29 s after the first is before its limit and 31 s after the second past it, however
    long the machine took in between."""
    page = tool_page.page
    before = page_time(page)
    call = start()
    arrived()
    after = page_time(page)
    paused = pause_clock(context, page)
    not_yet = before + 29_000
    if paused > not_yet:
        raise HarnessError(
            f"the page's clock could be paused only {(paused - before) / 1000:.0f} s after the call started"
        )
    context.clock.run_for(not_yet - paused)
    with check(rule, subject="before 30 s"):
        assert not call.done(), f"the call ended before 30 s: {call.result()}"
    context.clock.run_for(after + 31_000 - not_yet)
    with check(rule, subject="after 30 s"):
        # The page may finish the call on timers due now (a zero delay): they run as it is asked.
        decided = limits.poll(lambda: context.clock.run_for(0) or call.done(), limit=5)[1]
        assert decided, "the call was not decided 31 s after it arrived"
        result = call.result()
        assert result.get("ok") is False and result["error"]["code"] == "timeout", result


def page_time(page) -> int:
    """The page's clock, in ms since the epoch."""
    return page.evaluate("Date.now()")


def pause_clock(context, page) -> int:
    """Pause the page's clock a moment ahead of where it stands (Playwright's pause_at cannot go
    back); the time it is paused at."""
    for ahead in (200, 2_000, 10_000):
        at_ = page_time(page) + ahead
        try:
            context.clock.pause_at(at(at_))
            return at_
        except PlaywrightError as error:
            if "past" not in error.message:
                raise
    raise HarnessError("the page's clock ran ahead of every pause_at")
