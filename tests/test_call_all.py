"""Calls sent together (harness.clients.call_all): all in flight before the first answers, started
in the order given, each answer given back in that order."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import Page

from harness import clients

# A page whose one operation answers only once `expected` calls have arrived: calls sent one at a
# time would never be answered.
PAGE = """<script>
  const arrived = [];
  let release;
  const all = new Promise((resolve) => { release = resolve; });
  const tool = { name: 'echo', description: '', inputSchema: '{}' };
  document.modelContext = {
    getTools: async () => [tool],
    executeTool: async (_, input) => {
      const { n, expected } = JSON.parse(input);
      arrived.push(n);
      if (arrived.length === expected) release();
      await all;
      return JSON.stringify({ ok: true, n });
    },
  };
  window.arrived = arrived;
</script>"""


@dataclass
class BarePage:
    page: Page

    def console_text(self) -> str:
        return "(not kept)"


@pytest.fixture
def bare_page(noflag_chromium):
    page = noflag_chromium.new_page()
    page.set_content(PAGE)
    yield page
    page.close()


def test_calls_are_in_flight_together_and_answered_in_the_order_given(bare_page):
    inputs = [{"n": n, "expected": 5} for n in range(5)]
    results = clients.call_all(clients.InPageClient(BarePage(bare_page)), "echo", inputs, timeout=10)
    assert [result["n"] for result in results] == [0, 1, 2, 3, 4]
    assert bare_page.evaluate("window.arrived") == [0, 1, 2, 3, 4]


def test_a_call_left_unanswered_is_a_timeout_not_a_hang(bare_page):
    with pytest.raises(clients.ConditionTimedOut, match="did not settle"):
        clients.call_all(clients.InPageClient(BarePage(bare_page)), "echo", [{"n": 0, "expected": 2}], timeout=1)
