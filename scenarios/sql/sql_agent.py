"""What the sql scenarios share: a run of the agent's SQL, a statement's cells whichever way the page
gives rows (objects keyed by field, or arrays in the fields' order: the spec does not fix it), and
the sql page's parts the spec leaves to its markup (the profile's hooks)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Locator

from harness import contract
from harness.agent import Agent, assert_success
from harness.pages import ToolPage
from harness.targets import Target


def run(agent: Agent, sql: str, timeout_ms: int | None = None) -> dict:
    """sql_run_query's result as it comes (a failure or a timeout is a result too)."""
    arguments: dict = {"sql": sql}
    if timeout_ms is not None:
        arguments["timeoutMs"] = timeout_ms
    return agent.client.call("sql_run_query", arguments)


def ran(agent: Agent, sql: str) -> list[dict]:
    """The statements' results of SQL that must succeed (a step, not a check)."""
    result = run(agent, sql)
    assert_success("sql_run_query", result)
    return result["results"]


def field_names(statement: dict) -> list[str]:
    return [field["name"] if isinstance(field, dict) else str(field) for field in statement["fields"]]


def column(statement: dict, name: str) -> list[Any]:
    """The values of field `name` in the statement's rows."""
    at = field_names(statement).index(name)
    return [row[name] if isinstance(row, dict) else row[at] for row in statement["rows"]]


def text_of(locator: Locator) -> str:
    """What an input or an area shows: a form field's value, or the element's text."""
    return locator.evaluate("e => ('value' in e && typeof e.value === 'string') ? e.value : e.innerText")


def part(tool_page: ToolPage, target: Target, hook: str) -> Locator:
    """The sql page's part the profile's `hook` locates (input, run, running, results,
    reset_notice); a scenario that needs it is 未確認 where the profile gives none."""
    return tool_page.page.locator(target.hook("sql", hook))


def reloaded(agent: Agent, saved: tuple[str, ...] = ()) -> None:
    """The page loaded again, once its storage holds `saved` (or the wait's limit passed): the switch
    stays on (its stored state), the operations are registered anew and the project read."""
    agent.tool_page.wait_until_saved(saved)
    agent.tool_page.page.reload()
    agent.client.wait_for_tools(contract.names_of("sql"))
    agent.client.call_when_ready("sql_read_query")
