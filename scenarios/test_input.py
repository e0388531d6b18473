"""The page validates every input itself (Design Doc 入力と結果; ADR-0044 Decision 5): the
browser's executeTool hands over whatever it gets, so these go through the paths that hand the
input over as given (the in-page API, the browser's own WebMCP)."""

import pytest

from harness import contract, drivers
from harness.checks import OPERATIONS_CALLED, check, finding
from harness.clients import NotJsonResult
from harness.tools import valid_input

pytestmark = pytest.mark.needs(drivers.UNVALIDATED_INPUT)


@pytest.fixture
def switched_on(agent):
    """The client of a tab whose tool is on and loaded (valid inputs read its document)."""
    return agent.client


@pytest.mark.rules("input.no-extra-properties", "result.failure-shape", "result.json-string")
def test_property_outside_the_schema_is_invalid_input(switched_on, tool, call_path):
    for op in contract.operations_of(tool):
        arguments = {**valid_input(op, switched_on), "harnessUnexpected": True}
        with check("input.no-extra-properties", subject=op.name):
            result = switched_on.call(op.name, arguments)
            assert result["ok"] is False and result.get("error", {}).get("code") == "invalid_input", (
                f"{op.name}: {result}"
            )
        with check("result.failure-shape", subject=op.name):
            contract.assert_shape(contract.FAILURE, result, f"{op.name}: the failure is not its shape")
            assert result["error"]["message"].strip(), f"{op.name}: the failure gives no reason: {result}"


@pytest.mark.rules("input.schema")
def test_missing_or_mistyped_input_is_invalid_input(switched_on, tool, call_path):
    # Confirming operations last: an input that passes unvalidated waits for its dialog's 50 s.
    for op in sorted(contract.operations_of(tool), key=lambda op: op.confirmation is not None):
        required = op.input_schema["required"]
        if not required:
            continue
        valid = valid_input(op, switched_on)
        missing = {k: v for k, v in valid.items() if k != required[0]}
        mistyped = {**valid, required[0]: 12345}
        with check("input.schema", subject=op.name):
            for arguments in (missing, mistyped):
                result = switched_on.call(op.name, arguments)
                assert result["ok"] is False and result["error"]["code"] == "invalid_input", (
                    f"{op.name}({arguments}): {result}"
                )


# What the reference's operations render with, broken: Marp's slides go in with innerHTML,
# Excalidraw measures label text on a canvas, draw.io's editor is driven by postMessage to its
# frame. The operation log writes with textContent and append, left intact, so that a result
# still reaches the caller.
BREAK_DOM_WRITES = """() => {
  const fail = () => { throw new Error('harness: DOM writes fail on this page'); };
  Object.defineProperty(Element.prototype, 'innerHTML', { configurable: true, set: fail });
  CanvasRenderingContext2D.prototype.measureText = fail;
  for (const frame of document.querySelectorAll('iframe')) {
    try { frame.contentWindow.postMessage = fail; } catch {}  // a cross-origin frame is not the page's to break
  }
}"""


@pytest.mark.rules("result.exception-failed")
def test_operation_whose_internals_throw_still_answers_json(switched_on, tool_page, tool, call_path):
    # Whatever throws inside an operation must come back as a JSON result (failed), never as a
    # rejected executeTool. Confirming operations would need a person; the others show the rule.
    ops = [op for op in contract.operations_of(tool) if not op.confirmation]
    inputs = {op.name: valid_input(op, switched_on) for op in ops}  # read while the page still works
    tool_page.page.evaluate(BREAK_DOM_WRITES)
    codes = {}
    try:
        for op in ops:
            with check("result.exception-failed", subject=op.name):
                try:
                    result = switched_on.call(op.name, inputs[op.name])
                except NotJsonResult as error:
                    raise AssertionError(
                        f"an exception inside {op.name} did not become failed: {error.message}"
                    ) from None
                codes[op.name] = "ok" if result["ok"] else result["error"]["code"]
                # A valid call on a ready page: it ran, or what threw inside it came back as failed.
                assert codes[op.name] in ("ok", "failed"), (
                    f"{op.name}: an exception inside became {codes[op.name]}: {result}"
                )
    finally:
        finding(OPERATIONS_CALLED, codes)  # which operations threw (failed) with DOM writes broken
    if "failed" not in codes.values():
        pytest.skip(f"nothing inside {tool}'s operations threw with DOM writes broken: not observable")
