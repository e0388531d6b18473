"""What the go scenarios share: writing the root main package and other files, and a run or a test
as it comes back (a timeout is a failure with output)."""

from __future__ import annotations

from playwright.sync_api import Locator

from harness import clients, contract
from harness.agent import Agent, assert_success
from harness.pages import ToolPage
from harness.targets import Target

MAIN = "main.go"  # the root directory's main package


def write(agent: Agent, path: str, contents: str) -> None:
    assert_success("go_write_file", agent.client.call("go_write_file", {"path": path, "contents": contents}))


def write_all(agent: Agent, files: dict[str, str], at_once: int = 20) -> None:
    """Many files, `at_once` calls in flight at a time: an agent may send calls without waiting for
    each answer, and a page answers every write whatever else is in flight."""
    paths = list(files)
    for start in range(0, len(paths), at_once):
        inputs = [{"path": path, "contents": files[path]} for path in paths[start : start + at_once]]
        for result in clients.call_all(agent.client, "go_write_file", inputs):
            assert_success("go_write_file", result)


def program(body: str, *imports: str) -> str:
    """A main package of `body` in func main, importing `imports`."""
    imported = "".join(f'import "{name}"\n' for name in imports)
    return f"package main\n\n{imported}\nfunc main() {{\n{body}\n}}\n"


def write_main(agent: Agent, body: str, *imports: str) -> None:
    write(agent, MAIN, program(body, *imports))


def run(agent: Agent, name: str = "go_run", timeout_ms: int | None = None) -> dict:
    """go_run's (or go_test's) result as it comes."""
    return agent.client.call(name, {} if timeout_ms is None else {"timeoutMs": timeout_ms})


def ran(agent: Agent, name: str = "go_run") -> dict:
    """A run that must come back ok (a step, not a check)."""
    result = run(agent, name)
    assert_success(name, result)
    return result


def part(tool_page: ToolPage, target: Target, hook: str) -> Locator:
    """The go page's part the profile's `hook` locates; 未確認 where the profile gives none."""
    return tool_page.page.locator(target.hook("go", hook))


def text_of(locator: Locator) -> str:
    """What an editor or a pane shows: a form field's value, or the element's text."""
    return locator.evaluate("e => ('value' in e && typeof e.value === 'string') ? e.value : e.innerText")


def is_field(locator: Locator) -> bool:
    return locator.evaluate("e => 'value' in e && typeof e.value === 'string'")


def reloaded(agent: Agent, present: tuple[str, ...] = (), absent: tuple[str, ...] = ()) -> None:
    """The page loaded again once IndexedDB holds `present` and not `absent` (or the wait's limit
    passed): the switch stays on (its stored state), the operations are registered anew and the
    project read (from what was saved)."""
    agent.tool_page.wait_until_saved(present, absent)
    agent.tool_page.page.reload()
    agent.client.wait_for_tools(contract.names_of("go"))
    agent.client.call_when_ready("go_list_files")
