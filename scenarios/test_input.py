"""The page validates every input itself (Design Doc 入力と結果; ADR-0044 Decision 5): the
browser's executeTool hands over whatever it gets, so these go through the in-page API."""

import pytest

from harness import contract

pytestmark = pytest.mark.call_paths("in-page")


@pytest.fixture
def switched_on(tool_page, client, tool):
    tool_page.turn_on()
    client.wait_for_tools({op.name for op in contract.operations_of(tool)})
    return client


@pytest.mark.rules("input.no-extra-properties", "result.json-string")
def test_property_outside_the_schema_is_invalid_input(switched_on, tool, call_path):
    for op in contract.operations_of(tool):
        result = switched_on.call(op.name, {**op.example, "harnessUnexpected": True})
        assert result["ok"] is False and result["error"]["code"] == "invalid_input", f"{op.name}: {result}"
        assert result["error"]["message"], f"{op.name}: the failure gives no reason"


@pytest.mark.rules("input.schema")
def test_missing_or_mistyped_input_is_invalid_input(switched_on, tool, call_path):
    for op in contract.operations_of(tool):
        required = op.input_schema["required"]
        if not required:
            continue
        missing = {k: v for k, v in op.example.items() if k != required[0]}
        mistyped = {**op.example, required[0]: 12345}
        for arguments in (missing, mistyped):
            result = switched_on.call(op.name, arguments)
            assert result["ok"] is False and result["error"]["code"] == "invalid_input", f"{op.name}({arguments}): {result}"


BREAK_HTML_WRITES = """() => {
  Object.defineProperty(Element.prototype, 'innerHTML', {
    configurable: true,
    set() { throw new Error('harness: HTML writes fail on this page'); },
  });
}"""


@pytest.mark.rules("result.exception-failed")
def test_operation_whose_internals_throw_still_answers_json(switched_on, tool_page, tool, call_path):
    # Break a DOM API that tools commonly render with; whatever throws inside an operation
    # must come back as a JSON result (failed), never as a rejected executeTool.
    registered = {info.name: info for info in switched_on.tools()}
    tool_page.page.evaluate(BREAK_HTML_WRITES)
    for op in contract.operations_of(tool):
        if op.confirmation:
            continue  # a person would have to answer; the other operations show the rule
        arguments = dict(op.example)
        for key, schema in registered[op.name].input_schema.get("properties", {}).items():
            if schema.get("enum") and arguments.get(key) not in schema["enum"]:
                arguments[key] = schema["enum"][-1]  # a value the page itself offers
        result = switched_on.call(op.name, arguments)
        assert result["ok"] or result["error"]["code"] in contract.ERROR_CODES, f"{op.name}: {result}"
