"""A tab whose WebSockets Chromium throttles still reaches its relay (docs/proofs.md, the load proof: why
such a tab never reaches its relay)."""

from harness import contract, limits
from harness.pages import new_tool_page

# What a widget that missed its relay's port leaves behind: a scan of 9333–9348 on two hosts, all
# refused (ports below 1024 that nothing here listens on refuse as fast).
SCAN_FAILED = """async (count) => {
  await Promise.all(Array.from({ length: count }, (_, i) => new Promise((done) => {
    const socket = new WebSocket(`ws://127.0.0.1:${600 + i}/`);
    socket.onerror = socket.onclose = () => done();
  })));
}"""


def test_a_tab_whose_websockets_chromium_throttles_reaches_its_relay(relayed_reference):
    target, relay, context = relayed_reference
    tab = new_tool_page(context, target, "slides", target.page_url("slides"))
    tab.goto(tab.url)
    # In a new process, 32 failures and no success: each WebSocket now waits 1–5 s to
    # start, past the widget's 1.2 s for its port.
    tab.page.evaluate(SCAN_FAILED, 32)
    tab.turn_on()
    listed = relay.client_for(tab).wait_for_tools(contract.names_of("slides"), limits.RELAY_TOOLS_LISTED)
    assert {info.name for info in listed} == contract.names_of("slides")
