"""Every operation of the tool can be called and answers with a JSON result (ADR-0044 Decisions
4 and 5; the Verification table's rows, one per call path)."""

import pytest

from harness import contract


@pytest.mark.rules("relay.calls", "result.json-string")
def test_every_operation_answers(tool_page, client, tool, record_property):
    ops = contract.operations_of(tool)
    tool_page.turn_on()
    client.wait_for_tools({op.name for op in ops})
    read = next(op for op in ops if contract.READ_ONLY in op.annotations)
    client.call_when_ready(read.name)  # the editor has finished loading
    answers = {}
    for op in ops:
        call = client.start(op.name, op.example)
        if op.confirmation:
            tool_page.dialog.action(op.confirmation.action_label).click()
        result = call.result()
        code = "ok" if result["ok"] else result["error"]["code"]
        assert code == "ok" or code in contract.ERROR_CODES, f"{op.name}: unknown error code {code!r}"
        if result["ok"]:
            op.validate_result(result)
        answers[op.name] = code
    record_property("operations", answers)
    record_property("contacted", sorted(tool_page.contacted))
