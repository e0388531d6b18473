"""One descriptor per tool: its part of the contract (its operations) and what else the harness knows of it.

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

from harness import schemas

Call = tuple[str, dict]  # an operation's name and its arguments


@dataclass(frozen=True)
class Tool:
    name: str
    order: int  # the Design Doc's order of the tools (its 操作の一覧)
    canvas: bool  # its operations act on the page's open drawing or deck
    operations: tuple[schemas.Operation, ...]  # its part of the contract
    hooks: tuple[str, ...]  # the profile hooks it takes besides its pages and documents (harness/targets.py)
    # An input that passes `op`'s schema and check on the open document, or None for the contract's example.
    valid_input: Callable[[schemas.Operation, Any, str], dict | None]
    text_call: Callable[[str], Call] | None  # carries a text as a string the relay lets through
    kept_text_calls: (
        Callable[[str], tuple[Call, Call]] | None
    )  # a write that keeps a text, and the read that returns it
    failing_call: Callable[[], Call] | None  # schema-valid, its check fails with a code other than declined
    # Its own rules (harness/rules.py adds them to the table): (source "DD" or "ADR", section, ((id, text), ...)).
    rules: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = ()
    # A call that runs for about two seconds and whose result carries the marker (an operation still
    # running while a scenario acts), or None where every operation ends in one task.
    long_call: Callable[[str], Call] | None = None
    # Its operation log is a tab 「AI からの操作」 of the page's bottom pane (node), not a collapsible panel.
    log_in_tab: bool = False
    # Its page, alone of the tools', gets the isolation headers (ADR-0044 Context: the Node runtime's path).
    isolation_headers: bool = False
    # A call that makes the page load its engine (the profile's `engine` hook), or None.
    engine_call: Call | None = None


def _load() -> dict[str, Tool]:
    # Modules whose names start with _ are shared helpers, not tools.
    found = [
        importlib.import_module(f"{__name__}.{module.name}").TOOL
        for module in pkgutil.iter_modules(__path__)
        if not module.name.startswith("_")
    ]
    return {tool.name: tool for tool in sorted(found, key=lambda tool: tool.order)}


TOOLS: dict[str, Tool] = _load()
NAMES: tuple[str, ...]
CANVAS: tuple[str, ...]
WITH_LONG_CALLS: tuple[str, ...]
WITH_LOG_PANEL: tuple[str, ...]  # whose log is the panel at the page's bottom edge (not a tab of a pane)
WITH_CONFIRMING: tuple[str, ...]  # with an operation that asks for confirmation (sql has none)
WITH_FILES: tuple[str, ...]  # with the four file operations node and go share (schemas.file_operations)


def _derive() -> None:
    global NAMES, CANVAS, WITH_LONG_CALLS, WITH_LOG_PANEL, WITH_CONFIRMING, WITH_FILES
    NAMES = tuple(TOOLS)
    CANVAS = tuple(name for name, tool in TOOLS.items() if tool.canvas)
    WITH_LONG_CALLS = tuple(name for name, tool in TOOLS.items() if tool.long_call)
    WITH_LOG_PANEL = tuple(name for name, tool in TOOLS.items() if not tool.log_in_tab)
    WITH_CONFIRMING = tuple(name for name, tool in TOOLS.items() if any(op.confirmation for op in tool.operations))
    WITH_FILES = tuple(
        name
        for name, tool in TOOLS.items()
        if {f"{name}_{kind}" for kind in schemas.FILE_OPS} <= {op.name for op in tool.operations}
    )


_derive()


def register(tool: Tool) -> None:
    """Add a tool whose descriptor lives elsewhere (tests/test_extending.py's toy tool): what is
    imported after this sees it as it sees the tools of this package."""
    ordered = sorted(
        [*(known for known in TOOLS.values() if known.name != tool.name), tool], key=lambda known: known.order
    )
    TOOLS.clear()
    TOOLS.update((known.name, known) for known in ordered)
    _derive()


def of(name: str) -> Tool:
    return TOOLS[name]


def valid_input(op: schemas.Operation, client, marker: str = "harness") -> dict:
    """An input that passes `op`'s schema and check on the document the client's page has open,
    reading through the client what it needs. A valid call of a confirming operation opens its dialog."""
    given = TOOLS[op.tool].valid_input(op, client, marker)
    return schema_valid_input(client, op) if given is None else given


def schema_valid_input(client, op: schemas.Operation) -> dict:
    """An input `op`'s schema accepts, made without reading the document (there may be none open,
    or none loaded yet): the contract's example, each enum the editor builds (FROM_EDITOR) taken from
    the schema the page registered."""
    values = dict(op.example)
    for key, schema in op.input_schema.get("properties", {}).items():
        if schema.get("enum") == schemas.FROM_EDITOR:
            choices = registered_enum(client, op.name, key)
            assert choices, f"{op.name} registered no enum for {key}"
            values[key] = choices[0]
    return values


def registered_enum(client, name: str, field: str) -> list:
    """The values of `field`'s enum in the input schema `name` was registered with."""
    info = next(info for info in client.tools() if info.name == name)
    return list(info.input_schema["properties"][field].get("enum") or [])
