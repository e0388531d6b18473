"""The tool descriptors (harness/tools/): one per tool of the contract, their example calls valid."""

import jsonschema
import pytest

from harness import contract, tools
from harness.tools import TOOLS

# The Design Doc's 操作の一覧 (its tools in the order of 操作を公開するページ): what the descriptors declare together.
DESIGN_DOC_OPERATIONS = (
    "node_list_files",
    "node_read_file",
    "node_write_file",
    "node_delete_file",
    "node_run_command",
    "sql_read_query",
    "sql_run_query",
    "go_list_files",
    "go_read_file",
    "go_write_file",
    "go_delete_file",
    "go_run",
    "go_test",
    "slides_read",
    "slides_write",
    "slides_set_theme",
    "excalidraw_read",
    "excalidraw_add_elements",
    "excalidraw_update_element",
    "excalidraw_clear",
    "drawio_read",
    "drawio_add_cells",
    "drawio_write",
)


def test_the_descriptors_declare_the_design_docs_23_operations():
    assert tuple(op.name for op in contract.operations()) == DESIGN_DOC_OPERATIONS
    assert all(op.tool == name for name, tool in TOOLS.items() for op in tool.operations)
    assert tools.NAMES == ("node", "sql", "go", "slides", "excalidraw", "drawio")  # the Design Doc's order


def schema_valid(call) -> None:
    name, arguments = call
    op = contract.by_name(name)
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
        assert contract.READ_ONLY in contract.by_name(read[0]).annotations, f"{read[0]} does not read"
        calls += [write, read]
    for call in calls:
        assert call[0] in own, f"{name}: {call[0]} is not one of its operations"
        schema_valid(call)


def test_hooks_are_the_profiles_and_canvas_tools_take_the_view():
    from harness.targets import HOOK_HELP

    for tool in TOOLS.values():
        assert set(tool.hooks) <= set(HOOK_HELP), tool.name
        assert ("view" in tool.hooks) == tool.canvas, tool.name
