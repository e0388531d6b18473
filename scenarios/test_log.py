"""The operation log, 「AI からの操作」 with role="log" (Design Doc 操作の記録の欄).

Calls go through both call paths with inputs the relay accepts too (it validates against the
schema), so every row here is one the page itself decided.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from harness import clients, contract, drivers, limits, tools
from harness.agent import switch_on
from harness.checks import check, each_on_its_own, picture
from harness.pages import SAVED_TEXT, ToolPage, seconds_of_day
from harness.tools import valid_input

# A declined call needs an operation that asks (sql has none).
ASKS = pytest.mark.tool(*tools.WITH_CONFIRMING)

SUMMARY_CHARS = 80
DETAIL_CHARS = 10_000
DETAIL_MARGIN = 100  # an opened text may stop a little short of 10,000 (a cut line, a marker)
ELLIPSES = ("…", "...")
BADGES = {"ok": "成功", "declined": "中止", "failure": "失敗"}  # StatusBadge success, neutral, danger
TONES = {"ok": "success", "declined": "neutral", "failure": "danger"}


# --- helpers -------------------------------------------------------------------------------


def text_call(tool: str, text: str) -> tuple[str, dict]:
    """An operation whose arguments carry `text` as a string the relay lets through."""
    return _example(tool, "text_call")(text)


def kept_text_calls(tool: str, text: str) -> tuple[tuple[str, dict], tuple[str, dict]]:
    """A write that keeps `text` (plain in JSON, XML and Markdown alike) in the document, and the read that returns it."""
    return _example(tool, "kept_text_calls")(text)


def failing_call(tool: str) -> tuple[str, dict]:
    """A schema-valid call whose check fails with a code other than declined."""
    return _example(tool, "failing_call")()


def _example(tool: str, kind: str):
    made = getattr(tools.of(tool), kind)
    if made is None:
        pytest.skip(f"未確認: {tool} has no {kind.replace('_', ' ')} (harness/tools/{tool}.py says why)")
    return made


ROW_TEXTS = "rows => rows.map((row) => row.textContent)"


class _CountingClient:
    """A client that counts its calls (each is a row of the log)."""

    def __init__(self, client):
        self.client, self.calls = client, 0

    def call(self, *args, **kwargs):
        self.calls += 1
        return self.client.call(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.client, name)


def logged_input(tool_page: ToolPage, client, op: contract.Operation) -> dict:
    """valid_input(op), once the rows of the calls it made to find it (a file to delete) are shown:
    a row count taken after it is the count before the scenario's own call."""
    before = tool_page.log.rows.count()
    counting = _CountingClient(client)
    arguments = valid_input(op, counting)
    if counting.calls:
        expect(tool_page.log.rows).to_have_count(min(before + counting.calls, 200))
    return arguments


def row_texts(tool_page: ToolPage) -> list[str]:
    return tool_page.log.rows.evaluate_all(ROW_TEXTS)


def added_row(before: list[str], after: list[str]) -> int:
    """The index of the one row `after` has that `before` had not, at the bottom or the top: which
    end is log.order's check, so a scenario about a row's content finds it at either."""
    kept = len(after) - 1  # at capacity, the oldest row left at the other end
    if after[:-1] == before[len(before) - kept :]:
        return len(after) - 1
    if after[1:] == before[:kept]:
        return 0
    raise AssertionError(f"the new row is neither the last nor the first of {len(after)} rows")


@dataclass(frozen=True)
class Logged:
    name: str
    args: dict
    result: dict
    row: int  # the call's row, counted from the top, until the next call adds one


def logged(tool_page: ToolPage, client, name: str, args: dict, confirm: bool = False) -> Logged:
    """Call and wait for its row; a confirmation dialog, if one opens, is answered 「やめる」
    (or with its action when `confirm`)."""
    rows = tool_page.log.rows
    before = row_texts(tool_page)
    call = client.start(name, args)
    dialog = tool_page.dialog
    expect(dialog.root.or_(rows.nth(len(before))).first).to_be_visible()
    if dialog.root.count():
        (dialog.action(contract.by_name(name).asks.action_label) if confirm else dialog.cancel).click()
    result = call.result()
    expect(rows).to_have_count(min(len(before) + 1, 200))
    return Logged(name, args, result, added_row(before, row_texts(tool_page)))


def declined_call(tool_page: ToolPage, client) -> Logged:
    """A valid call of the tool's confirming operation, answered 「やめる」."""
    op = contract.confirming(tool_page.tool)[0]
    call = logged(tool_page, client, op.name, logged_input(tool_page, client, op))
    assert call.result.get("error", {}).get("code") == "declined", call.result
    return call


def page_clock(tool_page: ToolPage) -> int:
    """The page's local time of day, in seconds."""
    return tool_page.page.evaluate(
        "() => { const d = new Date(); return d.getHours() * 3600 + d.getMinutes() * 60 + d.getSeconds(); }"
    )


def compact_json(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def summary_problem(what: str, shown: str, full_texts: list[str]) -> str | None:
    """None when `shown` is exactly the first 80 characters (code points) of one of `full_texts`
    (the whole text when shorter), a trailing ellipsis aside."""
    bare = {shown, *(shown.removesuffix(mark) for mark in ELLIPSES)}
    if any(full[:SUMMARY_CHARS] in bare for full in full_texts):
        return None
    return (
        f"the {what} summary {shown!r} ({len(shown)} characters) is not the first {SUMMARY_CHARS} "
        f"characters of {full_texts[0][: SUMMARY_CHARS + 20]!r}…"
    )


@pytest.fixture
def on(tool_page, client):
    """The tool on and loaded, its ready read's row on screen (those reads are logged too)."""
    switch_on(tool_page, client, logged=True)
    return tool_page


# --- the panel -----------------------------------------------------------------------------


@pytest.mark.rules("log.visibility")
def test_log_is_shown_only_while_the_switch_is_on(tool_page):
    expect(tool_page.switch).to_be_visible()
    with check("log.visibility"):
        expect(tool_page.page.get_by_role("log")).to_have_count(0)
        expect(tool_page.page.get_by_text("AI のエージェントのつなぎ方")).to_be_hidden()
    tool_page.turn_on()
    with check("log.visibility"):
        tool_page.log.expect_shown()


# How far the panel's lowest visible part ends above the bottom of the page (the document, or
# the viewport where the document is shorter), in CSS pixels.
GAP_BELOW_PANEL = """(parts) => {
  if (!parts.length) return null;
  const bottom = Math.max(...parts.map((part) => part.getBoundingClientRect().bottom)) + scrollY;
  return Math.max(document.documentElement.scrollHeight, innerHeight) - bottom;
}"""
# Room for the panel's own border and padding; a tool's view below it is taller than this.
BOTTOM_EDGE_PX = 32


@pytest.mark.tool(*tools.WITH_LOG_PANEL)  # the others' log is a tab of their page's bottom pane
@pytest.mark.rules("page.log-at-bottom")
def test_log_sits_at_the_bottom_edge_of_the_page(tool_page):
    """「…のページは、下端に、操作の記録の欄を置く場所を持つ」."""
    tool_page.turn_on()
    tool_page.log.expect_shown()
    # Asked again while the panel is between two renderings (none of its parts visible for a moment).
    gap, measured = limits.poll(
        lambda: tool_page.log.shown.evaluate_all(GAP_BELOW_PANEL), lambda gap: gap is not None, limits.EXPECT_MS / 1000
    )
    assert measured, "the panel 「AI からの操作」 did not stay shown long enough to be measured"
    with check("page.log-at-bottom"):
        assert gap <= BOTTOM_EDGE_PX, f"the panel 「AI からの操作」 ends {gap:.0f} px above the bottom of the page"


@pytest.mark.tool(*tools.WITH_LOG_PANEL)  # the others' log is a tab of their page's bottom pane
@pytest.mark.rules("log.collapsible")
def test_collapsed_log_shows_its_title_and_the_last_row(on, client):
    log = on.log
    logged(on, client, *text_call(on.tool, "一行目"))
    logged(on, client, *text_call(on.tool, "二行目"))
    count = log.rows.count()
    assert count >= 3
    with check("log.collapsible"):
        log.collapse()
        expect(log.toggle).to_be_visible()
        expect(log.rows.nth(count - 1)).to_be_visible()
        for index in range(count - 1):
            expect(log.rows.nth(index)).to_be_hidden()
        expect(log.connect_help).to_be_hidden()
        picture("log.collapsible", log.toggle, log.rows.nth(count - 1))
        log.expand()
        for index in range(count):
            expect(log.rows.nth(index)).to_be_visible()


# --- rows ----------------------------------------------------------------------------------


# One page, one call after another: what the Design Doc fixes of the panel and of a call's row,
# each rule its own check, each decided even when another fails.
@pytest.mark.rules("log.connect-help", "log.row", "log.detail", "log.text-only", "log.memory-only")
def test_each_call_is_a_row_of_text_kept_in_memory_only(on, client):
    log = on.log
    with each_on_its_own():
        with check("log.connect-help"):
            help_box = log.connect_help.bounding_box()
            first_row = log.rows.first.bounding_box()  # the ready read's
            assert help_box and first_row and help_box["y"] < first_row["y"], (
                "「AI のエージェントのつなぎ方」 is not at the top of the panel"
            )
            log.connect_help_disclosure.open()
            origin = on.page.evaluate("location.origin")
            expect(on.page.get_by_text(f"--widget-origin {origin}").first).to_be_visible()

        # A character outside the BMP early on: 80 characters are code points, not UTF-16 units.
        read = contract.reader_of(on.tool)
        long_args = text_call(on.tool, "要約の確認 🙂 " + "あいうえお" * 60)
        for name, args in (long_args, (read.name, read.example)):  # long arguments, then a long result
            before = page_clock(on)
            call = logged(on, client, name, args)
            after = page_clock(on)
            # The spec fixes no serialization: the compact JSON, or a text the opened row shows.
            opened = log.open_row(call.row).line_texts()
            with check("log.row", subject=name):
                row = log.row(call.row)
                problems = []
                shown = seconds_of_day(row.time)
                if shown is None or not before <= shown <= after:
                    problems.append(f"time {row.time!r} is not the call's time of day (seconds {before}…{after})")
                if row.name != name:
                    problems.append(f"name {row.name!r}, expected {name!r}")
                problems += filter(
                    None,
                    (
                        summary_problem("arguments", row.args, [compact_json(args), *opened]),
                        summary_problem("result", row.result, [compact_json(call.result), *opened]),
                    ),
                )
                assert not problems, "\n".join(problems)

        text = 'line one\nline "two"\n<mxCell id="0"/>'
        written = logged(on, client, *text_call(on.tool, text))
        with check("log.detail", subject=written.name):
            opened = log.open_row(written.row)
            assert opened.shows(text), f"the opened row does not show the text as written:\n{opened.text[:500]}"
            assert not opened.missing(written.args), (
                f"the opened row does not show the arguments: {opened.missing(written.args)}"
            )
        call = logged(on, client, read.name, read.example)
        with check("log.detail", subject=read.name):
            # The whole result as written (strings raw), up to where 10,000 characters may end.
            missing = log.open_row(call.row).missing(call.result)
            assert not missing, f"the opened row does not show {read.name}'s result as written: {missing[:5]}"
            picture("log.detail", log.root)

        markup = "<img src=x onerror=window.__pwned=1>"
        call = logged(on, client, *text_call(on.tool, markup))
        with check("log.text-only"):
            # The row's summary may cut the markup at 80 characters; the opened row shows it whole.
            assert log.open_row(call.row).shows(markup)
            expect(log.root.locator("img")).to_have_count(0)
            assert on.page.evaluate("window.__pwned") is None, "the markup in the arguments ran"

        # The marker in the arguments of a call refused for a property outside its schema: it is logged,
        # and nothing of the tool (a file, a document it saves of its own) keeps it.
        marker = f"harness-marker-{secrets.token_hex(6)}"
        name, args = text_call(on.tool, marker)
        logged(on, client, name, {**args, "harnessUnexpected": True})
        logged(on, client, *failing_call(on.tool))
        stored = on.page.evaluate(SAVED_TEXT)
        with check("log.memory-only"):
            assert marker not in stored, "the log's arguments were written to localStorage or IndexedDB"


@ASKS
@pytest.mark.rules("log.badge")
def test_badges_say_success_declined_and_failure_in_words(on, client):
    log = on.log
    read = contract.reader_of(on.tool)
    succeeded = logged(on, client, read.name, read.example)
    assert succeeded.result["ok"] is True, succeeded.result
    declined = declined_call(on, client)
    failed = logged(on, client, *failing_call(on.tool))
    assert failed.result["ok"] is False and failed.result["error"]["code"] != "declined", failed.result
    # The state in words, and the tone: success green, danger red, neutral grey (tone_of says how it is read).
    with each_on_its_own():
        for kind, call in (("ok", succeeded), ("declined", declined), ("failure", failed)):
            with check("log.badge", subject=kind):
                assert log.row(call.row).badge == BADGES[kind]
            with check("log.badge", subject=f"{kind} tone"):
                assert log.badge_tone(call.row) == TONES[kind], (
                    f"the {kind} row's StatusBadge reads {log.badge_tone(call.row)}, not {TONES[kind]}"
                )
    picture("log.badge", *(log.rows.nth(call.row) for call in (succeeded, declined, failed)))


@ASKS
@pytest.mark.rules("log.decided-only")
def test_waiting_call_has_no_row_until_decided(on, client):
    op = contract.confirming(on.tool)[0]
    arguments = logged_input(on, client, op)
    rows = on.log.rows
    before = row_texts(on)
    call = client.start(op.name, arguments)
    expect(on.dialog.root).to_be_visible()
    with check("log.decided-only"):
        expect(rows).to_have_count(len(before))
    on.dialog.cancel.click()
    assert call.result()["error"]["code"] == "declined"
    with check("log.decided-only", subject="declined"):
        expect(rows).to_have_count(len(before) + 1)
        expect(rows.nth(added_row(before, row_texts(on)))).to_contain_text(op.name)
    before = row_texts(on)
    name, args = failing_call(on.tool)
    failed = client.call(name, args)
    assert failed["ok"] is False and failed["error"]["code"] != "declined", failed
    with check("log.decided-only", subject="failure"):
        expect(rows).to_have_count(len(before) + 1)
        expect(rows.nth(added_row(before, row_texts(on)))).to_contain_text(name)


@ASKS
@pytest.mark.rules("log.order")
def test_new_rows_are_added_at_the_bottom(on, client):
    read = contract.reader_of(on.tool)
    logged(on, client, read.name, read.example)
    name = declined_call(on, client).name
    rows = on.log.rows
    with check("log.order"):
        last, previous = on.log.row(-1), on.log.row(-2)
        assert (previous.name, last.name) == (read.name, name), f"rows end with {previous.name}, {last.name}"
        count = rows.count()
        assert rows.nth(count - 1).bounding_box()["y"] > rows.nth(count - 2).bounding_box()["y"]


@pytest.mark.rules("log.detail-limit")
def test_opened_row_shows_up_to_10000_characters(on, client):
    text = "".join(f"{i:05d}," for i in range(5_000))  # 30,000 characters
    (write, write_args), (read, read_args) = kept_text_calls(on.tool, text)
    written = logged(on, client, write, write_args, confirm=True)
    assert written.result["ok"] is True, written.result
    written_row = on.log.open_row(written.row)
    call = logged(on, client, read, read_args)
    assert text in compact_json(call.result), f"{read} does not return the 30,000 characters {write} wrote"
    read_row = on.log.open_row(call.row)
    for called, what, opened in ((write, "arguments", written_row), (read, "result", read_row)):
        # Whatever the layout: no more of the text than 10,000 characters, and the row as a whole
        # (its labels, the other, short part, and this one cut at 10,000) shows about that many.
        shown = opened.shown_prefix(text)
        with check("log.detail-limit", subject=called):
            assert shown <= DETAIL_CHARS, f"the opened row shows {shown} of the 30,000 characters in the {what}"
            assert len(opened.text) >= DETAIL_CHARS - DETAIL_MARGIN, (
                f"the opened row shows {len(opened.text)} characters in all, where the {what} alone fills up to {DETAIL_CHARS}"
            )


# --- the store -----------------------------------------------------------------------------


@pytest.mark.rules("log.capacity")
# The store's capacity is the page's, whichever way 200 calls arrive: on a path that makes them
# in seconds (through the relay they take a minute).
@pytest.mark.needs(drivers.BULK_CALLS)
@ASKS
def test_keeps_the_last_200_calls(on, client, call_path):
    first = declined_call(on, client).name
    read = contract.reader_of(on.tool)
    # 200 calls at once: the last may answer well after one call alone would.
    results = clients.call_all(client, read.name, [read.example] * 200, timeout=2 * limits.CALL_RESULT)
    assert all(result["ok"] for result in results)
    rows = on.log.rows
    with check("log.capacity"):
        expect(rows).to_have_count(200)
        expect(rows.filter(has_text=first)).to_have_count(0)


@pytest.mark.rules("log.lifetime")
def test_rows_stay_while_the_switch_is_off_and_go_with_a_reload(on, client):
    logged(on, client, *text_call(on.tool, "残る行"))
    count = on.log.rows.count()
    last = on.log.row(-1)
    on.turn_off()
    on.log.expect_hidden()
    on.turn_on()
    with each_on_its_own():
        with check("log.lifetime", subject="switch off"):
            expect(on.log.rows).to_have_count(count)
            assert on.log.row(-1) == last
        on.page.reload()
        expect(on.switch).to_be_checked()
        on.log.expect_shown()
        with check("log.lifetime", subject="reload"):
            expect(on.log.rows).to_have_count(0)


# --- calls still running ---------------------------------------------------------------------

LONG = pytest.mark.tool(*tools.WITH_LONG_CALLS)


@LONG
@pytest.mark.rules("log.running-hidden")
def test_running_call_has_no_row_until_its_result(on, client, tool):
    """実行中の呼び出しは、結果が決まるまで欄に出さない。"""
    name, arguments = tools.of(tool).long_call("harness-running")
    rows = on.log.rows
    before = rows.count()
    call = client.start(name, arguments)
    # A call decided at once, while the first runs: once its row shows, the log shows every call
    # decided or shown before it, so a row of the running call would be there by then.
    failing, failing_arguments = failing_call(tool)
    client.call(failing, failing_arguments)
    expect(rows.last).to_contain_text(failing)  # new rows go at the bottom (log.order)
    assert not call.done(), f"{name} ended before the log could be read while it ran"
    with check("log.running-hidden", subject="running"):
        expect(rows).to_have_count(before + 1)
    assert call.result()["ok"] is True
    with check("log.running-hidden", subject="decided"):
        expect(rows).to_have_count(before + 2)
        expect(rows.last).to_contain_text(name)
