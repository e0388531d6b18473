"""Every tool page of the target opens at the top level, with the title and the WebMCP API the
browser configuration promises (ADR-0044 Context and Verification)."""

import re

import pytest
from playwright.sync_api import expect

from harness.checks import check


@pytest.mark.rules("page.title")
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
