"""What the switch keeps in localStorage, and for how long (Design Doc スイッチと確認の状態の保存,
登録から実行まで). Time is moved with Playwright's clock, never waited for."""

import json

import pytest
from playwright.sync_api import expect

from harness import contract
from harness.agent import switch_on
from harness.checks import check, each_on_its_own
from harness.clients import InPageClient
from harness.clock import T0, at
from harness.pages import SEVEN_DAYS_MS


@pytest.fixture
def clocked(context):
    """Pages of this context run on a fake clock starting at T0 (install before the first page)."""
    context.clock.install(time=at(T0))
    return context.clock


@pytest.mark.rules("storage.shape", "storage.enabled-until")
def test_turning_on_stores_seven_days_under_the_tools_key(clocked, open_tool, tool):
    tool_page = open_tool(tool)
    clocked.pause_at(at(T0 + 60_000))
    tool_page.turn_on()
    stored = tool_page.storage.read()
    with check("storage.shape"):
        assert isinstance(stored, dict) and sorted(stored) == ["enabledUntil", "skipConfirmUntil", "v"], (
            f"{tool_page.storage.key} holds {stored}"
        )
        assert stored["v"] == 1 and stored["skipConfirmUntil"] is None, f"{tool_page.storage.key} holds {stored}"
    with check("storage.enabled-until"):
        assert stored["enabledUntil"] == T0 + 60_000 + SEVEN_DAYS_MS, (
            f"enabledUntil is {stored['enabledUntil']}, expected the switch-on time + 7 days ({T0 + 60_000 + SEVEN_DAYS_MS})"
        )


@pytest.mark.rules("registration.stored-on", "storage.no-extension")
def test_stored_on_registers_on_open_without_extending(clocked, open_tool, tool):
    tool_page = open_tool(tool)
    until = tool_page.storage.now() + 3 * 24 * 3600 * 1000
    tool_page.storage.write(until)
    tool_page.page.reload()
    with check("registration.stored-on"):
        expect(tool_page.switch).to_be_checked()
        InPageClient(tool_page).wait_for_tools(contract.names_of(tool))
    with check("storage.no-extension"):
        stored = tool_page.storage.read()
        assert stored == {"v": 1, "enabledUntil": until, "skipConfirmUntil": None}, (
            f"{tool_page.storage.key} holds {stored}; opening the page must keep enabledUntil {until}"
        )


# Each from the page's clock (now, in ms): a warm tab of the page, on real time. One after another
# on that tab: each value is written and read by a reload of its own.
INVALID_VALUES = {
    "not-json": lambda now: "{v:1",
    "wrong-version": lambda now: json.dumps({"v": 2, "enabledUntil": now + 10**9, "skipConfirmUntil": None}),
    "until-not-a-number": lambda now: json.dumps({"v": 1, "enabledUntil": "tomorrow", "skipConfirmUntil": None}),
    "skip-not-number-or-null": lambda now: json.dumps({"v": 1, "enabledUntil": now + 10**9, "skipConfirmUntil": "x"}),
    "not-an-object": lambda now: "[1]",
    "expired": lambda now: json.dumps({"v": 1, "enabledUntil": now - 1, "skipConfirmUntil": None}),
}


@pytest.mark.rules("storage.invalid-removed")
def test_invalid_or_expired_value_is_off_and_removed(tool_page):
    with each_on_its_own():
        for name, value in INVALID_VALUES.items():
            tool_page.storage.write_raw(value(tool_page.storage.now()))
            tool_page.page.reload()
            with check("storage.invalid-removed", subject=name):
                expect(tool_page.switch).not_to_be_checked()
                assert tool_page.storage.raw() is None, f"{tool_page.storage.key} was kept: {tool_page.storage.raw()!r}"
                assert not InPageClient(tool_page).tools()


@pytest.mark.rules("storage.off-removes")
def test_turning_off_removes_the_key(tool_page):
    tool_page.turn_on()
    assert tool_page.storage.read() is not None
    tool_page.turn_off()
    with check("storage.off-removes"):
        assert tool_page.storage.raw() is None, f"{tool_page.storage.key} was kept: {tool_page.storage.raw()!r}"


def opened_a_minute_before_expiry(open_tool, tool):
    """A tab of the tool whose stored ON ends a minute from now, its operations registered."""
    tool_page = open_tool(tool)
    tool_page.storage.write(tool_page.storage.now() + 60_000)
    tool_page.page.reload()
    client = InPageClient(tool_page)
    client.wait_for_tools(contract.names_of(tool))
    return tool_page, client


@pytest.mark.rules("storage.expiry-while-open")
def test_expiry_while_open_turns_off_and_unregisters(clocked, open_tool, tool):
    tool_page, client = opened_a_minute_before_expiry(open_tool, tool)
    clocked.run_for(61_000)
    with check("storage.expiry-while-open"):
        expect(tool_page.switch).not_to_be_checked()
        client.wait_for_no_tools()
        assert tool_page.storage.raw() is None, f"{tool_page.storage.key} was kept: {tool_page.storage.raw()!r}"


@pytest.mark.rules("call.after-expiry")
def test_call_after_expiry_is_declined_and_turns_off(clocked, open_tool, tool):
    # A background tab's timers may run late: the clock jumps without firing them.
    tool_page, client = opened_a_minute_before_expiry(open_tool, tool)
    read = contract.reader_of(tool)
    clocked.set_system_time(at(T0 + 10 * 60_000))
    call = client.start(read.name, read.example)
    with check("call.after-expiry"):
        result = call.result()
        assert result["ok"] is False and result["error"]["code"] == "declined", result
        expect(tool_page.switch).not_to_be_checked()


@pytest.mark.rules("call.expiry-before-input")
def test_expired_call_with_bad_input_is_declined(clocked, open_tool, tool):
    """「スイッチの期限を見る」 comes before 「inputSchema で検証する」: expired, a call is declined whatever its input."""
    tool_page, client = opened_a_minute_before_expiry(open_tool, tool)
    read = contract.reader_of(tool)
    clocked.set_system_time(at(T0 + 10 * 60_000))
    call = client.start(read.name, {**read.example, "harness_not_in_the_schema": 1})
    with check("call.expiry-before-input"):
        result = call.result()
        assert result["ok"] is False and result["error"]["code"] == "declined", (
            f"an expired call with input outside the schema answered {result}, not declined"
        )
        expect(tool_page.switch).not_to_be_checked()


@pytest.mark.rules("storage.cross-tab")
def test_other_tabs_follow_the_switch(context, open_tool, tool):
    first, second = open_tool(tool), open_tool(tool)
    first.turn_on()
    with check("storage.cross-tab"):
        expect(second.switch).to_be_checked()
        InPageClient(second).wait_for_tools(contract.names_of(tool))
    second.turn_off()
    with check("storage.cross-tab"):
        expect(first.switch).not_to_be_checked()
        InPageClient(first).wait_for_no_tools()


BLOCKED_STORAGE = """
for (const name of ['getItem', 'setItem', 'removeItem', 'clear', 'key']) {
  Storage.prototype[name] = function () { throw new DOMException('blocked by the harness', 'SecurityError'); };
}
"""


@pytest.mark.rules("storage.unavailable")
def test_switch_works_for_the_page_when_storage_throws(context, open_tool, tool):
    context.add_init_script(BLOCKED_STORAGE)
    tool_page = open_tool(tool)
    client = InPageClient(tool_page)
    # Clicked, not turn_on(): whether the switch turns on is what is checked.
    tool_page.switch.click()
    with check("storage.unavailable"):
        expect(tool_page.switch).to_be_checked()
        client.wait_for_tools(contract.names_of(tool))
        expect(tool_page.start_failure).to_have_count(0)
    tool_page.switch.click()
    with check("storage.unavailable"):
        expect(tool_page.switch).not_to_be_checked()
        client.wait_for_no_tools()
    tool_page.turn_on()
    tool_page.page.reload()
    with check("storage.unavailable"):
        expect(tool_page.switch).not_to_be_checked()


# Every key of localStorage and every database, object store and key of IndexedDB, with its value.
STORAGE_SNAPSHOT = """async () => {
  const kept = {};
  for (let i = 0; i < localStorage.length; i++) kept[`localStorage ${localStorage.key(i)}`] = localStorage.getItem(localStorage.key(i));
  const done = (request) => new Promise((resolve, reject) => { request.onsuccess = () => resolve(request.result); request.onerror = () => reject(request.error); });
  for (const { name } of (await indexedDB.databases?.()) ?? []) {
    const opening = indexedDB.open(name);
    opening.onupgradeneeded = () => opening.transaction.abort();
    let db;
    try { db = await done(opening); } catch { continue; }
    for (const store of db.objectStoreNames) {
      const objects = db.transaction(store).objectStore(store);
      const [keys, values] = await Promise.all([done(objects.getAllKeys()), done(objects.getAll())]);
      keys.forEach((key, i) => { let text; try { text = JSON.stringify(values[i]); } catch { text = String(values[i]); } kept[`IndexedDB ${name}/${store}/${JSON.stringify(key)}`] = text; });
    }
    db.close();
  }
  return kept;
}"""


@pytest.mark.rules("storage.only-key")
def test_the_switch_keeps_its_state_under_its_key_alone(tool_page, tool):
    """スイッチと「このページでは今後尋ねない」の状態は、localStorage の fd-ai-operations:<ツール> の 1 つの
    キーに保存する: スイッチをオフにし、またオンにしても、localStorage と IndexedDB で変わるのはそのキーだけ。
    (The tool on, loaded and read first: what the tool saves of its own as it starts and reads is not the switch's.)"""
    switch_on(tool_page, InPageClient(tool_page))  # what the page stores is the page's, whichever way calls arrive
    tool_page.settle()
    snapshots = [tool_page.page.evaluate(STORAGE_SNAPSHOT)]
    for turn in (tool_page.turn_off, tool_page.turn_on):
        turn()
        snapshots.append(tool_page.page.evaluate(STORAGE_SNAPSHOT))
    with check("storage.only-key"):
        for before, after, what in ((snapshots[0], snapshots[1], "off"), (snapshots[1], snapshots[2], "on")):
            changed = sorted(
                key
                for key in before.keys() | after.keys()
                if before.get(key) != after.get(key) and key != f"localStorage {tool_page.storage.key}"
            )
            assert not changed, f"turning the switch {what}, besides {tool_page.storage.key} the page wrote: {changed}"
