"""Fixtures of the canvas scenarios (slides, excalidraw, drawio)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from harness import contract
from harness.agent import Agent, switch_on
from harness.pages import ToolPage
from harness.targets import Document


@pytest.fixture
def agent(tool_page, client) -> Agent:
    return switch_on(tool_page, client)


@pytest.fixture
def opened(target, tool) -> Document:
    """The document the profile says the tool's page opens. Named before `agent`, it makes a
    scenario 未確認 before any page loads where the profile does not say."""
    return target.document(tool)


@pytest.fixture
def make_agent(client_for):
    """An Agent for another tab: its switch turned on unless the stored state already did."""

    def make(tool_page: ToolPage) -> Agent:
        expect(tool_page.switch).to_be_visible()
        client = client_for(tool_page)
        if tool_page.storage.says_on():
            expect(tool_page.switch).to_be_checked()
            client.wait_for_tools(contract.names_of(tool_page.tool))
            assert client.call_when_ready(contract.reader_of(tool_page.tool).name)["ok"] is True
            return Agent(tool_page, client)
        return switch_on(tool_page, client)

    return make
