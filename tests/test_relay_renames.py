"""A call through the relay made just as a second tab of the tool turns on: the relay renames the
first tab's tools (a tab suffix, once two tabs publish the same names), and the harness lists again
instead of reporting harness trouble (a flaky run of CI's main job: 「Tool node_list_files not found」)."""

import pytest
from playwright.sync_api import expect

from harness import contract
from harness.pages import GIVEN_TAB_IDS, new_tool_page
from harness.relay import NotListedAtCall


def test_a_call_by_a_name_the_relay_has_just_renamed_lists_again(relayed_reference):
    target, relay, context = relayed_reference
    first = new_tool_page(context, target, "slides", target.page_url("slides"))
    first.goto(first.url)
    first.turn_on()
    client = relay.client_for(first)
    client.wait_for_tools(contract.names_of("slides"))
    alone = client.exposed_name("slides_read")

    second = new_tool_page(context, target, "slides", target.page_url("slides"))
    second.goto(second.url)
    expect(second.switch).to_be_checked()  # the stored state turned it on
    relay.client_for(second).wait_for_tools(contract.names_of("slides"))
    assert client.exposed_name("slides_read") != alone, "the relay kept the name with two tabs publishing it"

    with pytest.raises(NotListedAtCall):
        client.start("slides_read", {}, alone).result()
    # The race: the name looked up before the second tab's tools arrived, the call after.
    lookups = iter([alone])
    looked_up = client.exposed_name
    client.exposed_name = lambda name: next(lookups, None) or looked_up(name)
    assert client.call("slides_read")["ok"] is True


def test_a_second_tab_is_told_as_the_harnesss_or_not(relayed_reference):
    """relay.names sees one tab of the tool: a tab the harness opened before leaves the list (or the
    run is harness trouble); a tab it never opened is named, as the page's or another client's."""
    target, relay, context = relayed_reference
    mine = new_tool_page(context, target, "slides", target.page_url("slides"))
    mine.goto(mine.url)
    mine.turn_on()
    client = relay.client_for(mine)
    client.wait_for_tools(contract.names_of("slides"))
    assert client.others_publishing(contract.names_of("slides")) == []

    earlier = new_tool_page(context, target, "slides", target.page_url("slides"))
    earlier.goto(earlier.url)
    relay.client_for(earlier).wait_for_tools(contract.names_of("slides"))
    earlier.page.close()  # a tab of an earlier scenario: it leaves the list
    assert client.others_publishing(contract.names_of("slides")) == []

    foreign = new_tool_page(context, target, "slides", target.page_url("slides"))
    GIVEN_TAB_IDS.discard(foreign.relay_tab_id)  # as if another client of this relay had opened it
    foreign.goto(foreign.url)
    relay.client_for(foreign).wait_for_tools(contract.names_of("slides"))
    assert client.others_publishing(contract.names_of("slides")) == [
        f"tab {foreign.relay_tab_id} 「{foreign.page.title()}」"
    ]
