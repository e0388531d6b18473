"""Fixtures every scenario folder shares: an agent on its tool's page (the tool on and loaded), one
on Playwright's clock, and names of each scenario's own — a folder of the project, a table of the
database — so that no scenario reads what another one wrote."""

from __future__ import annotations

import secrets

import pytest

from harness.agent import Agent, clocked_switch_on, switch_on


@pytest.fixture
def agent(tool_page, client) -> Agent:
    return switch_on(tool_page, client)


@pytest.fixture
def clocked_agent(context, open_tool, client_for, tool) -> Agent:
    return clocked_switch_on(context, open_tool, client_for, tool)


@pytest.fixture
def folder() -> str:
    """A directory name no other scenario uses (it does not exist until a scenario writes in it);
    no hyphen: a Go package may be named after it."""
    return f"harness{secrets.token_hex(4)}"


@pytest.fixture
def table() -> str:
    """A table name no other scenario uses (the database lives as long as the page's worker)."""
    return f"harness_{secrets.token_hex(4)}"
