"""The tool descriptors (harness/tools/): one per tool of the contract, their example calls valid."""

import jsonschema
import pytest

from harness import contract, tools
from harness.tools import TOOLS


def test_every_tool_of_the_contract_has_a_descriptor_and_every_descriptor_operations():
    assert set(TOOLS) == {op.tool for op in contract.OPERATIONS}
    assert all(tool.operations for tool in TOOLS.values())
    assert tools.NAMES == ("node", "sql", "go", "slides", "excalidraw", "drawio")  # the Design Doc's order


def schema_valid(call) -> None:
    name, arguments = call
    op = contract.BY_NAME[name]
    jsonschema.validate(arguments, op.input_schema)


@pytest.mark.parametrize("name", list(TOOLS))
def test_example_calls_are_the_tools_own_operations_with_inputs_their_schemas_accept(name):
    tool = TOOLS[name]
    own = contract.names_of(name)
    calls = []
    if tool.text_call:
        calls.append(tool.text_call("ハーネスの文 <b>'\"</b>"))
    if tool.failing_call:
        calls.append(tool.failing_call())
    if tool.kept_text_calls:
        write, read = tool.kept_text_calls("残る文")
        assert contract.READ_ONLY in contract.BY_NAME[read[0]].annotations, f"{read[0]} does not read"
        calls += [write, read]
    for call in calls:
        assert call[0] in own, f"{name}: {call[0]} is not one of its operations"
        schema_valid(call)


def test_hooks_are_the_profiles_and_canvas_tools_take_the_view():
    from harness.targets import HOOK_HELP

    for tool in TOOLS.values():
        assert set(tool.hooks) <= set(HOOK_HELP), tool.name
        assert ("view" in tool.hooks) == tool.canvas, tool.name
