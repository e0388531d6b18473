"""A call the page answers after the relay widget's 10 s is 未確認 with that reason, never a harness
error (harness/relay.py): @mcp-b/webmcp-local-relay 2.2.0's widget gives up on its own."""

import pytest

from harness import contract, limits
from harness.pages import new_tool_page
from harness.relay import WIDGET_LIMIT_SECONDS


def test_a_call_past_the_widgets_limit_is_unobserved_with_the_reason(relayed_reference):
    target, relay, context = relayed_reference
    tab = new_tool_page(context, target, "sql", target.page_url("sql"))
    tab.goto(tab.url)
    tab.turn_on()
    client = relay.client_for(tab)
    client.wait_for_tools(contract.names_of("sql"), limits.RELAY_TOOLS_LISTED)
    assert client.call_when_ready("sql_run_query", {"sql": "select 1"})["ok"] is True
    with pytest.raises(pytest.skip.Exception, match=r"^未確認: sql_run_query took longer than the relay's widget"):
        client.call("sql_run_query", {"sql": f"select pg_sleep({WIDGET_LIMIT_SECONDS + 2})"})
