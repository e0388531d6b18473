"""The switch 「AI からの操作」 and what turning it on and off registers (Design Doc 許可のスイッチ,
登録から実行まで; ADR-0044 Decisions 1, 4)."""

import re

import pytest
from playwright.sync_api import expect

from harness import contract, drivers, limits, tools
from harness.agent import switch_on
from harness.checks import check, picture
from harness.pages import SWITCH_LABEL
from harness.relay import DESCRIPTION_PREFIX


@pytest.mark.rules("switch.control", "switch.default-off")
def test_switch_is_in_the_header_and_off_by_default(tool_page):
    header = tool_page.page.get_by_role("banner")
    with check("switch.control"):
        expect(header.get_by_role("switch", name=SWITCH_LABEL, exact=True)).to_be_visible()
        expect(tool_page.switch).to_have_count(1)
        # "at the right end of the header": nothing of the header's content lies to its right.
        right_end = tool_page.page.evaluate(
            """(label) => {
              const header = document.querySelector('header, [role=banner]');
              const sw = [...header.querySelectorAll('[role=switch], input[type=checkbox]')].find((e) => e.checkVisibility());
              const edge = sw.getBoundingClientRect().right;
              const beyond = [...header.querySelectorAll('*')].filter((e) => e.checkVisibility() && e.getBoundingClientRect().left > edge + 1);
              return { gap: header.getBoundingClientRect().right - edge, beyond: beyond.length };
            }""",
            SWITCH_LABEL,
        )
        assert right_end["beyond"] == 0 and right_end["gap"] < 64, (
            f"the switch is not at the header's right end: {right_end}"
        )
    with check("switch.default-off"):
        expect(tool_page.switch).not_to_be_checked()
        picture("switch.default-off", header)


@pytest.mark.rules("switch.no-status-text")
def test_switch_adds_no_on_off_wording(tool_page):
    header = tool_page.page.get_by_role("banner")
    before = header.inner_text()
    tool_page.turn_on()
    tool_page.log.expect_shown()
    with check("switch.no-status-text"):
        assert header.inner_text() == before, "turning the switch on changed the header's text"
        for word in ("オン", "オフ", "有効", "無効", "ON", "OFF"):
            expect(tool_page.page.get_by_text(word, exact=True)).to_have_count(0)


# Kana: the mark of Japanese text (an English description may still name a Japanese document).
KANA = re.compile(r"[\u3041-\u309f\u30a0-\u30ff]")


@pytest.mark.rules("switch.on-registers", "registration.operations", "operations.description-ja")
def test_turning_on_registers_exactly_the_tools_operations(tool_page, client, tool):
    expected = {op.name: op for op in contract.operations_of(tool)}
    with check("switch.on-registers"):
        assert not client.tools(), "operations were registered before the switch was turned on"
    tool_page.turn_on()
    with check("switch.on-registers"):
        registered = {info.name: info for info in client.wait_for_tools(set(expected))}
        assert set(registered) == set(expected), f"registered {sorted(registered)}, expected {sorted(expected)}"
        tool_page.log.expect_shown()
        picture("switch.on-registers", tool_page.page.get_by_role("banner"))
    for name, op in expected.items():
        info = registered[name]
        with check("registration.operations", subject=name):
            problems = contract.schema_mismatches(op.input_schema, info.input_schema)
            assert info.description.strip(), "no description"
            assert not problems, "\n".join(problems)
        with check("operations.description-ja", subject=name):
            # Through the relay the description starts with its tab's id and the page's title.
            own = DESCRIPTION_PREFIX.sub("", info.description, count=1)
            assert KANA.search(own), f"{name}'s description is not written in Japanese: {own!r}"


@pytest.mark.rules("switch.off-unregisters", "relay.tools-follow-page")
def test_turning_off_unregisters_and_hides_the_log(tool_page, client, tool, call_path):
    tool_page.turn_on()
    client.wait_for_tools({op.name for op in contract.operations_of(tool)})
    tool_page.turn_off()
    with check("relay.tools-follow-page" if drivers.of(client).has(drivers.MCP_RELAY) else "switch.off-unregisters"):
        client.wait_for_no_tools()
    with check("switch.off-unregisters"):
        tool_page.log.expect_hidden()


@pytest.mark.rules("operations.annotations")
@pytest.mark.needs(drivers.ANNOTATIONS)
def test_registered_annotations_follow_decision_4(tool_page, client, tool, call_path):
    expected = {op.name: op.annotations for op in contract.operations_of(tool)}
    tool_page.turn_on()
    registered = {info.name: info.annotations for info in client.wait_for_tools(set(expected))}
    for name, hints in expected.items():
        with check("operations.annotations", subject=name):
            assert registered[name] == hints, (
                f"getTools() reports {name}'s annotations: registered {sorted(registered[name])}, expected {sorted(hints)}"
            )


@pytest.mark.tool(*tools.WITH_LONG_CALLS)
@pytest.mark.rules("switch.off-running-continues")
@pytest.mark.one_driver(
    "the page's rule, whichever way the call arrived; the browser may drop the result of an "
    "unregistered tool, so only the log tells"
)
def test_switching_off_leaves_a_running_call_to_finish_into_the_log(tool_page, client, tool, call_path):
    """オフに戻しても、実行が始まっている操作は止めない。結果は、記録の store に足す(オンに戻すと欄に出る)。"""
    marker = "harness-ran-to-the-end"
    name, arguments = tools.of(tool).long_call(marker)
    agent = switch_on(tool_page, client)
    # The ready read's row on screen first: a page that renders late would otherwise draw it after
    # the count, and it would pass for the running call's row.
    tool_page.log.wait_for_success_row(agent.reader)
    rows = tool_page.log.rows
    before = rows.count()
    agent.client.start(name, arguments)  # its answer is the browser's to drop once the tool is unregistered
    tool_page.turn_off()
    tool_page.turn_on()
    tool_page.log.select_tab()
    with check("switch.off-running-continues"):
        expect(rows).to_have_count(before + 1, timeout=limits.EXPECT_MS + 5_000)
        opened = tool_page.log.open_row(-1)
        assert opened.shows(marker) and not opened.missing({"ok": True}), (
            f"the running call's row does not hold its finished result: {opened.text[:300]!r}"
        )
