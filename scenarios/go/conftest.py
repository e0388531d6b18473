"""Fixtures of the go scenarios: an agent on the go page, and a folder of the project's own for
each scenario, so that no scenario reads what another one wrote."""

from __future__ import annotations

import secrets

import pytest

from harness.agent import Agent, clocked_switch_on, switch_on


@pytest.fixture
def agent(tool_page, client) -> Agent:
    return switch_on(tool_page, client)


@pytest.fixture
def clocked_agent(context, open_tool, client_for) -> Agent:
    return clocked_switch_on(context, open_tool, client_for, "go")


@pytest.fixture
def folder() -> str:
    """A directory name no other scenario uses (it does not exist until a scenario writes in it)."""
    return f"harness{secrets.token_hex(4)}"
