"""A page whose getTools rejects — the MCP-B polyfill 5.1.0 outside an origin-keyed agent cluster,
as Firefox has it without `Origin-Agent-Cluster: ?1` — is registration.operations broken with the
cause named, for a listing and for a call alike: not the harness's trouble, run again."""

from __future__ import annotations

import pytest

from harness.clients import InPageClient, ToolsRefused

URL = "http://127.0.0.1:9/refuses.html"  # answered by the test's route
# What the polyfill does there (mcp-b-global-5.1.0.js: `originAgentCluster === false` → SecurityError).
PAGE = """<!doctype html><title>refuses</title><script>
Object.defineProperty(globalThis, "originAgentCluster", { get: () => false });
document.modelContext = { getTools: async () => { throw new DOMException("", "SecurityError"); } };
</script>"""


@pytest.fixture
def client(noflag_chromium, routed_tool_page):
    return InPageClient(routed_tool_page(noflag_chromium, URL, PAGE))


def test_a_refused_listing_names_the_header(client):
    with pytest.raises(ToolsRefused, match=r"SecurityError.*Origin-Agent-Cluster: \?1") as refused:
        client.tools()
    assert refused.value.rule == "registration.operations"


def test_a_refused_call_is_the_same_broken_rule(client):
    with pytest.raises(ToolsRefused, match="getTools"):
        client.call("slides_read", {})
