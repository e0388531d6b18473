"""The switch 「AI からの操作」 and what turning it on and off registers (Design Doc 許可のスイッチ,
登録から実行まで; ADR-0044 Decisions 1, 4)."""

import pytest
from playwright.sync_api import expect

from harness import contract
from harness.pages import SWITCH_LABEL


@pytest.mark.rules("switch.control", "switch.default-off")
def test_switch_is_in_the_header_and_off_by_default(tool_page):
    switch = tool_page.switch
    expect(switch).to_have_count(1)
    expect(switch).not_to_be_checked()
    header = tool_page.page.get_by_role("banner")
    expect(header.get_by_role("switch", name=SWITCH_LABEL, exact=True)).to_be_visible()
    # "at the right end of the header": nothing of the header's content lies to its right.
    right_end = tool_page.page.evaluate(
        """() => {
          const header = document.querySelector('header');
          const sw = [...header.querySelectorAll('[role=switch], input')].find((e) => e.offsetParent);
          const edge = sw.getBoundingClientRect().right;
          const beyond = [...header.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().left > edge + 1 && e.offsetParent);
          return { gap: header.getBoundingClientRect().right - edge, beyond: beyond.length };
        }"""
    )
    assert right_end["beyond"] == 0 and right_end["gap"] < 64, f"the switch is not at the header's right end: {right_end}"


@pytest.mark.rules("switch.no-status-text")
def test_switch_adds_no_on_off_wording(tool_page):
    header = tool_page.page.get_by_role("banner")
    before = header.inner_text()
    tool_page.turn_on()
    expect(tool_page.log.root).to_be_visible()
    assert header.inner_text() == before, "turning the switch on changed the header's text"
    for word in ("オン", "オフ", "有効", "無効", "ON", "OFF"):
        expect(tool_page.page.get_by_text(word, exact=True)).to_have_count(0)


@pytest.mark.rules("switch.on-registers", "registration.operations")
def test_turning_on_registers_exactly_the_tools_operations(tool_page, client, tool):
    expected = {op.name: op for op in contract.operations_of(tool)}
    assert not client.tools(), "operations were registered before the switch was turned on"
    tool_page.turn_on()
    registered = {info.name: info for info in client.wait_for_tools(set(expected))}
    assert set(registered) == set(expected), f"registered {sorted(registered)}, expected {sorted(expected)}"
    problems = []
    for name, op in expected.items():
        info = registered[name]
        if client.path == "relay":
            continue  # the relay's view of schemas and annotations is checked in scenarios/test_relay.py
        problems += [f"{name}: {p}" for p in contract.schema_mismatches(op.input_schema, info.input_schema)]
        if not info.description.strip():
            problems.append(f"{name}: no description")
    assert not problems, "\n".join(problems)
    expect(tool_page.log.root).to_be_visible()


@pytest.mark.rules("switch.off-unregisters", "relay.tools-follow-page")
def test_turning_off_unregisters_and_hides_the_log(tool_page, client, tool):
    tool_page.turn_on()
    client.wait_for_tools({op.name for op in contract.operations_of(tool)})
    tool_page.turn_off()
    client.wait_for_no_tools()
    expect(tool_page.log.root).to_be_hidden()


@pytest.mark.rules("operations.annotations")
@pytest.mark.call_paths("in-page")
def test_registered_annotations_follow_decision_4(tool_page, client, tool, call_path):
    expected = {op.name: op.annotations for op in contract.operations_of(tool)}
    tool_page.turn_on()
    registered = {info.name: info.annotations for info in client.wait_for_tools(set(expected))}
    wrong = {name: f"{sorted(registered[name])}, expected {sorted(hints)}"
             for name, hints in expected.items() if registered[name] != hints}
    assert not wrong, f"annotations seen through getTools(): {wrong}"
