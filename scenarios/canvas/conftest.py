"""Fixtures of the canvas scenarios (slides, excalidraw, drawio)."""

from __future__ import annotations

import pytest

from harness.agent import Agent, switch_on
from harness.pages import ToolPage
from harness.targets import Document


@pytest.fixture
def opened(target, tool) -> Document:
    """The document the profile says the tool's page opens. Named before `agent`, it makes a
    scenario 未確認 before any page loads where the profile does not say."""
    return target.document(tool)


@pytest.fixture
def make_agent(client_for):
    """An Agent for another tab: its switch turned on unless the stored state already did."""

    def make(tool_page: ToolPage) -> Agent:
        return switch_on(tool_page, client_for(tool_page))

    return make
