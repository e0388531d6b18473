"""Fixtures of the sql scenarios: an agent on the sql page, and a table name of each scenario's own,
so that no scenario reads what another one wrote (the database lives as long as the page's worker)."""

from __future__ import annotations

import secrets

import pytest

from harness.agent import Agent, clocked_switch_on, switch_on


@pytest.fixture
def agent(tool_page, client) -> Agent:
    return switch_on(tool_page, client)


@pytest.fixture
def clocked_agent(context, open_tool, client_for) -> Agent:
    return clocked_switch_on(context, open_tool, client_for, "sql")


@pytest.fixture
def table() -> str:
    """A table name no other scenario uses (it does not exist until a scenario creates it)."""
    return f"harness_{secrets.token_hex(4)}"
