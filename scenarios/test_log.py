"""The operation log, 「AI からの操作」 with role="log" (Design Doc 操作の記録の欄).

Calls go through both call paths with inputs the relay accepts too (it validates against the
schema), so every row here is one the page itself decided.
"""

from __future__ import annotations

import json
import secrets

import pytest
from playwright.sync_api import expect

from harness import contract
from harness.pages import TIME_OF_DAY, ToolPage

SUMMARY_CHARS = 80
DETAIL_CHARS = 10_000
BADGES = {"ok": "成功", "declined": "中止", "failure": "失敗"}  # StatusBadge success, neutral, danger


# --- helpers -------------------------------------------------------------------------------


def confirming_op(tool: str) -> contract.Operation:
    return contract.confirming(tool)[0]


def turned_on(tool_page: ToolPage, client) -> None:
    """Switch on, wait for the operations and for the tool to load (those reads are logged too)."""
    tool_page.turn_on()
    # The relay lists a heavy page (draw.io) late when several workers share the machine.
    client.wait_for_tools({op.name for op in contract.operations_of(tool_page.tool)}, timeout=40)
    read = contract.reader_of(tool_page.tool)
    loaded = client.call_when_ready(read.name, read.example)
    assert loaded["ok"] is True, f"{tool_page.tool} never became ready: {loaded}"


def text_call(tool: str, text: str) -> tuple[str, dict]:
    """An operation whose arguments carry `text` as a string the relay lets through."""
    return {
        "slides": ("slides_write", {"markdown": text}),
        "drawio": ("drawio_write", {"xml": text}),
        "excalidraw": ("excalidraw_add_elements", {"elements": [{"type": "text", "x": 0, "y": 0, "text": text}]}),
        "node": ("node_write_file", {"path": "harness.txt", "contents": text}),
        "go": ("go_write_file", {"path": "harness.txt", "contents": text}),
    }[tool]


def failing_call(tool: str) -> tuple[str, dict]:
    """A schema-valid call whose check fails with a code other than declined."""
    return {
        "slides": ("slides_write", {"markdown": "x" * (contract.ONE_MEGABYTE + 1)}),
        "drawio": ("drawio_write", {"xml": "これは XML ではない"}),
        "excalidraw": ("excalidraw_update_element", {"id": "no-such-element-harness", "x": 1}),
        "node": ("node_read_file", {"path": "no-such-file-harness.txt"}),
        "go": ("go_read_file", {"path": "no-such-file-harness.txt"}),
    }[tool]


def logged(tool_page: ToolPage, client, name: str, args: dict) -> dict:
    """Call and wait for its row; a confirmation dialog, if one opens, is answered 「やめる」."""
    rows = tool_page.log.rows
    before = rows.count()
    call = client.start(name, args)
    expect(tool_page.dialog.root.or_(rows.nth(before)).first).to_be_visible()
    if tool_page.dialog.root.count():
        tool_page.dialog.cancel.click()
    result = call.result()
    expect(rows).to_have_count(min(before + 1, 200))
    return result


DRAWIO_XML = '<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/></root></mxGraphModel>'


def confirming_call(tool: str) -> tuple[str, dict]:
    """A call of the tool's confirming operation that passes its check."""
    op = confirming_op(tool)
    return op.name, {
        "slides_write": {"markdown": "# 確認を待つ\n"},
        "drawio_write": {"xml": DRAWIO_XML},
        "node_delete_file": {"path": "harness.txt"},
        "go_delete_file": {"path": "harness.txt"},
    }.get(op.name, {})


def declined_call(tool_page: ToolPage, client) -> str:
    """A confirming call answered 「やめる」; returns its name."""
    name, args = confirming_call(tool_page.tool)
    result = logged(tool_page, client, name, args)
    assert result.get("error", {}).get("code") == "declined", result
    return name


def page_clock(tool_page: ToolPage) -> str:
    return tool_page.page.evaluate(
        "() => new Date().toTimeString().slice(0, 8)")


def compact_json(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.fixture
def on(tool_page, client):
    turned_on(tool_page, client)
    return tool_page


# --- the panel -----------------------------------------------------------------------------

@pytest.mark.rules("log.visibility")
def test_log_is_shown_only_while_the_switch_is_on(tool_page):
    expect(tool_page.switch).to_be_visible()
    expect(tool_page.page.get_by_role("log")).to_have_count(0)
    expect(tool_page.page.get_by_text("AI のエージェントのつなぎ方")).to_be_hidden()
    tool_page.turn_on()
    expect(tool_page.log.root).to_be_visible()


@pytest.mark.rules("log.connect-help")
def test_connect_help_gives_the_pages_origin(on):
    log = on.log
    origin = on.page.evaluate("location.origin")
    help_box = log.connect_help.bounding_box()
    list_box = log.root.get_by_role("list").bounding_box()
    assert help_box and list_box and help_box["y"] < list_box["y"], "「AI のエージェントのつなぎ方」 is not at the top of the panel"
    log.connect_help.click()
    expect(log.root.get_by_text(f"--widget-origin {origin}").first).to_be_visible()


@pytest.mark.rules("log.collapsible")
def test_collapsed_log_shows_its_title_and_the_last_row(on, client):
    log = on.log
    logged(on, client, *text_call(on.tool, "一行目"))
    logged(on, client, *text_call(on.tool, "二行目"))
    count = log.rows.count()
    assert count >= 3
    log.collapse()
    expect(log.toggle).to_be_visible()
    expect(log.rows.nth(count - 1)).to_be_visible()
    for index in range(count - 1):
        expect(log.rows.nth(index)).to_be_hidden()
    expect(log.connect_help).to_be_hidden()
    log.expand()
    for index in range(count):
        expect(log.rows.nth(index)).to_be_visible()


# --- rows ----------------------------------------------------------------------------------

@pytest.mark.rules("log.row")
def test_row_shows_time_name_and_80_character_summaries(on, client):
    name, args = text_call(on.tool, "要約の確認 " + "あいうえお" * 60)
    before = page_clock(on)
    result = logged(on, client, name, args)
    after = page_clock(on)
    row = on.log.row(-1)
    problems = []
    if not TIME_OF_DAY.match(row.time) or not before <= row.time <= after:
        problems.append(f"time {row.time!r} is not the call's HH:MM:SS ({before}…{after})")
    if row.name != name:
        problems.append(f"name {row.name!r}, expected {name!r}")
    for what, shown, full in (("arguments", row.args, compact_json(args)), ("result", row.result, compact_json(result))):
        if not shown or len(shown) > SUMMARY_CHARS:
            problems.append(f"the {what} summary has {len(shown)} characters (1…{SUMMARY_CHARS}): {shown!r}")
        elif not full.startswith(shown.rstrip("…")):
            problems.append(f"the {what} summary {shown!r} is not the start of {full[:100]!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.rules("log.badge")
def test_badges_say_success_declined_and_failure_in_words(on, client):
    log = on.log
    read = contract.reader_of(on.tool)
    assert logged(on, client, read.name, read.example)["ok"] is True
    ok_badge = log.row(-1).badge
    declined_call(on, client)
    declined_badge = log.row(-1).badge
    failed = logged(on, client, *failing_call(on.tool))
    assert failed["ok"] is False and failed["error"]["code"] not in ("declined",), failed
    failure_badge = log.row(-1).badge
    shown = {"ok": ok_badge, "declined": declined_badge, "failure": failure_badge}
    assert shown == BADGES, f"badges {shown}, expected {BADGES}"


@pytest.mark.rules("log.decided-only")
def test_waiting_call_has_no_row_until_decided(on, client):
    name, args = confirming_call(on.tool)
    rows = on.log.rows
    before = rows.count()
    call = client.start(name, args)
    expect(on.dialog.root).to_be_visible()
    expect(rows).to_have_count(before)
    on.dialog.cancel.click()
    assert call.result()["error"]["code"] == "declined"
    expect(rows).to_have_count(before + 1)
    assert on.log.row(-1).name == name


@pytest.mark.rules("log.order")
def test_new_rows_are_added_at_the_bottom(on, client):
    read = contract.reader_of(on.tool)
    logged(on, client, read.name, read.example)
    name = declined_call(on, client)
    rows = on.log.rows
    last, previous = on.log.row(-1), on.log.row(-2)
    assert (previous.name, last.name) == (read.name, name), f"rows end with {previous.name}, {last.name}"
    count = rows.count()
    assert rows.nth(count - 1).bounding_box()["y"] > rows.nth(count - 2).bounding_box()["y"]


@pytest.mark.rules("log.detail")
def test_opened_row_shows_markdown_and_xml_unescaped(on, client):
    text = 'line one\nline "two"\n<mxCell id="0"/>'
    logged(on, client, *text_call(on.tool, text))
    args_text, _ = on.log.open_row(-1)
    assert text in args_text, f"the opened row does not show the text as written:\n{args_text[:500]}"
    read = contract.reader_of(on.tool)
    result = logged(on, client, read.name, read.example)
    _, result_text = on.log.open_row(-1)
    for field in ("markdown", "xml"):
        if isinstance(result.get(field), str) and len(result[field]) < DETAIL_CHARS - 500:
            assert result[field] in result_text, f"the opened row does not show {read.name}'s {field} as written"


@pytest.mark.rules("log.detail")
def test_opened_row_shows_up_to_10000_characters(on, client):
    text = "".join(f"{i:05d}," for i in range(5_000))  # 30,000 characters
    logged(on, client, *text_call(on.tool, text))
    args_text, _ = on.log.open_row(-1)
    assert DETAIL_CHARS - 100 <= len(args_text) <= DETAIL_CHARS, (
        f"the opened row shows {len(args_text)} characters of the arguments, expected up to {DETAIL_CHARS}"
    )


@pytest.mark.rules("log.text-only")
def test_html_in_arguments_is_shown_as_text(on, client):
    markup = "<img src=x onerror=window.__pwned=1>"
    logged(on, client, *text_call(on.tool, markup))
    log = on.log
    expect(log.rows.last).to_contain_text(markup)
    args_text, _ = log.open_row(-1)
    assert markup in args_text
    expect(log.root.locator("img")).to_have_count(0)
    assert on.page.evaluate("window.__pwned") is None, "the markup in the arguments ran"


# --- the store -----------------------------------------------------------------------------

@pytest.mark.rules("log.capacity")
def test_keeps_the_last_200_calls(on, client):
    first = declined_call(on, client)
    read = contract.reader_of(on.tool)
    calls = [client.start(read.name, read.example) for _ in range(200)]
    assert all(call.result(timeout=60)["ok"] for call in calls)
    rows = on.log.rows
    expect(rows).to_have_count(200)
    expect(rows.filter(has_text=first)).to_have_count(0)


@pytest.mark.rules("log.lifetime")
def test_rows_stay_while_the_switch_is_off(on, client):
    logged(on, client, *text_call(on.tool, "残る行"))
    count = on.log.rows.count()
    last = on.log.row(-1)
    on.turn_off()
    expect(on.log.root).to_be_hidden()
    on.turn_on()
    expect(on.log.rows).to_have_count(count)
    assert on.log.row(-1) == last


@pytest.mark.rules("log.lifetime")
def test_rows_are_gone_after_reload(on, client):
    logged(on, client, *text_call(on.tool, "消える行"))
    on.page.reload()
    expect(on.switch).to_be_checked()
    expect(on.log.root).to_be_visible()
    expect(on.log.rows).to_have_count(0)


STORED_TEXT = """async () => {
  const texts = [];
  for (let i = 0; i < localStorage.length; i++) texts.push(localStorage.key(i), localStorage.getItem(localStorage.key(i)));
  for (const { name } of (await indexedDB.databases?.()) ?? []) {
    const db = await new Promise((resolve, reject) => {
      const request = indexedDB.open(name);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    for (const store of db.objectStoreNames) {
      const all = await new Promise((resolve) => {
        const request = db.transaction(store).objectStore(store).getAll();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => resolve([]);
      });
      try { texts.push(JSON.stringify(all)); } catch { texts.push(String(all)); }
    }
    db.close();
  }
  return texts.join('\\n');
}"""


@pytest.mark.rules("log.memory-only")
def test_log_is_never_written_to_storage(on, client):
    marker = f"harness-marker-{secrets.token_hex(6)}"
    logged(on, client, *text_call(on.tool, marker))
    logged(on, client, *failing_call(on.tool))
    stored = on.page.evaluate(STORED_TEXT)
    assert marker not in stored, "the log's arguments were written to localStorage or IndexedDB"
