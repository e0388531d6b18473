"""One descriptor per tool: what the harness knows of a tool besides its operations' contract.

A descriptor names the tool, says whether it works on an open drawing or deck (the canvas
scenarios), which profile hooks it takes, and gives its example calls: a valid input for each
operation on the page's open document, a call that carries a text, a write that keeps a text
and the read that returns it, and a schema-valid call that fails. Every tool list of the harness
and the report derives from these modules; adding a tool is one module here, its reference page
(fixtures/reference/src/<tool>/) and its scenario folder.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness import contract

Call = tuple[str, dict]  # an operation's name and its arguments


@dataclass(frozen=True)
class Tool:
    name: str
    order: int  # the Design Doc's order of the tools (its 操作の一覧)
    canvas: bool  # its operations act on the page's open drawing or deck
    hooks: tuple[str, ...]  # the profile hooks it takes besides its pages and documents (harness/targets.py)
    # An input that passes `op`'s schema and check on the open document, or None for the contract's example.
    valid_input: Callable[[contract.Operation, Any, str], dict | None]
    text_call: Callable[[str], Call] | None  # carries a text as a string the relay lets through
    kept_text_calls: Callable[[str], tuple[Call, Call]] | None  # a write that keeps a text, and the read that returns it
    failing_call: Callable[[], Call] | None  # schema-valid, its check fails with a code other than declined
    # Its own rules (harness/rules.py adds them to the table): (source "DD" or "ADR", section, ((id, text), ...)).
    rules: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = ()
    # A call that runs for about two seconds and whose result carries the marker (an operation still
    # running while a scenario acts), or None where every operation ends in one task.
    long_call: Callable[[str], Call] | None = None
    # Its operation log is a tab 「AI からの操作」 of the page's bottom pane (node), not a collapsible panel.
    log_in_tab: bool = False
    # A call that makes the page load its engine (the profile's `engine` hook), or None.
    engine_call: Call | None = None

    @property
    def operations(self) -> list[contract.Operation]:
        return contract.operations_of(self.name)


def _load() -> dict[str, Tool]:
    # Modules whose names start with _ are shared helpers, not tools.
    found = [importlib.import_module(f"{__name__}.{module.name}").TOOL for module in pkgutil.iter_modules(__path__)
             if not module.name.startswith("_")]
    return {tool.name: tool for tool in sorted(found, key=lambda tool: tool.order)}


TOOLS: dict[str, Tool] = _load()
NAMES: tuple[str, ...] = tuple(TOOLS)
CANVAS: tuple[str, ...] = tuple(name for name, tool in TOOLS.items() if tool.canvas)
WITH_LONG_CALLS: tuple[str, ...] = tuple(name for name, tool in TOOLS.items() if tool.long_call)
# Tools with an operation that asks for confirmation (sql has none).
WITH_CONFIRMING: tuple[str, ...] = tuple(name for name, tool in TOOLS.items()
                                         if any(op.confirmation for op in tool.operations))


def of(name: str) -> Tool:
    return TOOLS[name]


def valid_input(op: contract.Operation, client, marker: str = "harness") -> dict:
    """An input that passes `op`'s schema and check on the document the client's page has open,
    reading through the client what it needs. A valid call of a confirming operation opens its dialog."""
    given = TOOLS[op.tool].valid_input(op, client, marker)
    return dict(op.example) if given is None else given
