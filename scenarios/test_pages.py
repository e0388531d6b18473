"""Every tool page of the target opens at the top level, with the title and the WebMCP API the
browser configuration promises (ADR-0044 Context and Verification)."""

import re

import pytest
from playwright.sync_api import expect

from harness import contract, tools
from harness.checks import check
from harness.clients import InPageClient


@pytest.mark.rules("page.title")
@pytest.mark.profile("document")
def test_page_opens_with_its_documents_name_in_the_title(open_tool, target, page_tool):
    """「ツールのページは、タイトル(<title>)に、開いているものの名前を入れる」: the title contains
    the name (「四半期報告 — スライドのエディタ」 holds for 四半期報告)."""
    name = target.document(page_tool).name
    tool_page = open_tool(page_tool)
    with check("page.title"):
        expect(tool_page.page).to_have_title(re.compile(re.escape(name)))


@pytest.mark.rules("switch.default-off")
def test_webmcp_api_is_native_only_with_the_flag(open_tool, target, browser_config):
    tool_page = open_tool(target.ai_tools[0])
    with check("switch.default-off"):
        expect(tool_page.switch).not_to_be_checked()  # nothing loaded the polyfill yet
    # The browser configuration itself, not the page: a wrong one makes the run unobserved.
    has_api = tool_page.page.evaluate("'modelContext' in document")
    assert has_api is browser_config.webmcp_flag, (
        f"{browser_config.name}: document.modelContext is {'present' if has_api else 'absent'} before the switch is on"
    )


# An origin-trial token comes in a <meta http-equiv="origin-trial"> (also one a script adds) or in
# the document's Origin-Trial header.
ORIGIN_TRIAL_META = "meta[http-equiv='origin-trial' i]"


@pytest.mark.rules("page.no-origin-trial")
def test_page_carries_no_origin_trial_token(open_tool, tool):
    """「本番に、origin trial のトークンを入れない」: not in the page as served, nor once the switch is on."""
    tool_page = open_tool(tool, navigate=False)
    response = tool_page.page.goto(tool_page.url)
    assert response is not None, f"{tool_page.url} gave no response"
    with check("page.no-origin-trial"):
        assert "origin-trial" not in response.all_headers(), f"{tool_page.url} is served with an Origin-Trial header"
        expect(tool_page.page.locator(ORIGIN_TRIAL_META), "the page carries an origin-trial token").to_have_count(0)
    tool_page.turn_on()
    InPageClient(tool_page).wait_for_tools(contract.names_of(tool))
    with check("page.no-origin-trial"):
        expect(tool_page.page.locator(ORIGIN_TRIAL_META), "the switch added an origin-trial token").to_have_count(0)


ISOLATION = ("cross-origin-opener-policy", "cross-origin-embedder-policy")


@pytest.mark.rules("page.isolation-headers")
def test_isolation_headers_only_on_the_node_page(context, target):
    """「isolation のヘッダは、Node の実行環境のパスにだけ返す」: COOP same-origin and COEP on node's page,
    neither on any other tool's (harness/tools: the descriptor says which page gets them)."""
    for tool in target.tools:
        headers = context.request.get(target.page_url(tool)).headers
        sent = {name: headers.get(name) for name in ISOLATION if name in headers}
        with check("page.isolation-headers", subject=tool):
            if tools.of(tool).isolation_headers:
                assert sent.get(ISOLATION[0]) == "same-origin", f"{tool}'s page sends {sent or 'no isolation headers'}"
                assert sent.get(ISOLATION[1]) in ("require-corp", "credentialless"), f"{tool}'s page sends {sent}"
            else:
                assert not sent, f"{tool}'s page sends isolation headers: {sent}"
