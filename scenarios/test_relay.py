"""What an MCP client sees through the MCP-B relay (Design Doc 操作の一覧, 操作の対象の図とスライド;
ADR-0044 Decision 3 and Verification). These scenarios need the relay, so they run on that
call path only."""

import re

import pytest
from playwright.sync_api import expect

from harness import contract, drivers
from harness.checks import RELAY_DROPPED_ANNOTATIONS, check, finding
from harness.relay import DESCRIPTION_PREFIX

pytestmark = pytest.mark.needs(drivers.MCP_RELAY)


@pytest.fixture
def listed(tool_page, client, tool):
    tool_page.turn_on()
    return client.wait_for_tools(contract.names_of(tool))


@pytest.mark.rules("relay.names")
def test_names_reach_the_client_sanitized(listed, client, tool, call_path):
    # One tab of the tool: the relay suffixes names only when a second publishes the same ones.
    others = client.others_publishing(contract.names_of(tool))
    if others:
        listed = client.tools()
    for info in listed:
        with check("relay.names", subject=info.name):
            assert re.fullmatch(r"[a-zA-Z0-9_]+", info.exposed_name), info.exposed_name
            assert info.exposed_name == info.name, f"{info.name} was listed as {info.exposed_name}" + (
                f": beside the scenario's one tab, {', '.join(others)}, which the harness did not open, publishes "
                "the same operations (the page's own doing, e.g. a second registration, or another page on this "
                "relay)"
                if others
                else ""
            )


@pytest.mark.rules("relay.two-tabs")
@pytest.mark.profile("document")
def test_description_starts_with_the_page_title(target, tool, listed, tool_page, call_path):
    # The relay copies the title, whatever it is, once the page has it: known by the open
    # document's name in it (a title set late is the rule broken, not an earlier title).
    name = target.document(tool).name
    expect(tool_page.page).to_have_title(re.compile(re.escape(name)))
    title = tool_page.page.title()
    for info in listed:
        with check("relay.two-tabs", subject=info.name):
            prefix = DESCRIPTION_PREFIX.match(info.description)
            assert prefix and prefix["title"] == title, (
                f"{info.name}: {info.description[:120]!r} lacks the title {title!r}"
            )


@pytest.mark.rules("relay.two-tabs", "canvas.open-document")
@pytest.mark.profile("document", "other_page")
def test_two_tabs_are_told_apart(target, open_tool, client_for, tool, call_path):
    read = contract.reader_of(tool)
    first = open_tool(tool)
    first.turn_on()
    client_for(first).wait_for_tools(contract.names_of(tool))
    client_for(first).call_when_ready(read.name)  # the first tab has loaded before the second opens
    second = open_tool(tool, "other_page")  # ON is stored: the second tab registers as it opens
    expect(second.switch).to_be_checked()
    clients = [client_for(first), client_for(second)]
    for client in clients:
        client.wait_for_tools(contract.names_of(tool))
    opened = []  # (the read's document, the profile's page it is of)
    for tool_page, client, which in zip((first, second), clients, ("page", "other_page"), strict=True):
        # Each tab's title once its document is open (a title set late is the rule broken).
        expect(tool_page.page).to_have_title(re.compile(re.escape(target.document(tool, which).name)))
        info = next(i for i in client.tools() if i.name == read.name)
        suffix = "_" + tool_page.relay_tab_id[:4]
        with check("relay.two-tabs"):
            assert info.exposed_name == read.name + suffix, f"{info.exposed_name} lacks the tab suffix {suffix}"
            prefix = DESCRIPTION_PREFIX.match(info.description)
            assert prefix and prefix["title"] == tool_page.page.title(), (
                f"{info.description[:120]!r} lacks the title {tool_page.page.title()!r}"
            )
        result = client.call_when_ready(read.name)
        assert result["ok"] is True, result
        if "document" in result:
            opened.append((result["document"], which))
    # Which document each tab opened is the profile's: 未確認 from here where it does not say.
    for named, which in opened:
        with check("canvas.open-document"):
            assert named["name"] == target.document(tool, which).name, named


@pytest.mark.rules("relay.tools-follow-page")
def test_closing_the_tab_removes_its_tools(listed, tool_page, client, call_path):
    tool_page.page.close()
    with check("relay.tools-follow-page"):
        client.wait_for_no_tools()


@pytest.mark.rules("relay.widget-origin")
def test_page_of_another_origin_never_reaches_the_client(
    open_tool, target, fixture_server, relay, client_for, tool, context, call_path
):
    if not target.served:
        pytest.skip("needs the same tool page on a second origin, which only the served reference has")
    tool_page = open_tool(tool)
    tool_page.page.goto(target.page_url(tool).replace(target.origin, fixture_server.other_origin))
    tool_page.switch.click()
    expect(tool_page.switch).to_be_checked()
    relay.wait_until(
        lambda: "disallowed host origin" in relay.stderr_tail(400), 15, "the relay to refuse the page", tool_page
    )
    with check("relay.widget-origin"):
        assert not client_for(tool_page).tools(), "a page of an origin outside --widget-origin reached the client"


@pytest.mark.rules("relay.input-validation")
def test_relay_validates_enums_before_the_page(listed, client, tool, call_path):
    enum_inputs = [
        (info, key, schema)
        for info in listed
        for key, schema in info.input_schema.get("properties", {}).items()
        if schema.get("enum")
    ]
    if not enum_inputs:
        pytest.skip(f"no {tool} operation has an enum input")
    info, key, _schema = enum_inputs[0]
    call = client.start(info.name, {key: "harness-not-in-enum"})
    is_error, text = call.raw()
    with check("relay.input-validation"):
        assert is_error and "Input validation error" in text, (
            f"the page answered {text[:300]} (isError={is_error}) instead of the relay's Input validation error"
        )


@pytest.mark.rules("relay.annotations")
def test_annotations_reach_the_client(listed, tool, call_path):
    dropped = {info.name: sorted(contract.by_name(info.name).annotations - info.annotations) for info in listed}
    dropped = {name: hints for name, hints in dropped.items() if hints}
    finding(RELAY_DROPPED_ANNOTATIONS, dropped)
    with check("relay.annotations"):
        assert not dropped, f"annotations the client does not see through the relay: {dropped}"
