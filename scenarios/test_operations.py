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


@pytest.mark.rules("network.local-only")
@pytest.mark.call_paths("in-page")
def test_page_contacts_only_its_origin_and_the_local_relay(relay, tool_page, client, tool, target, record_property, call_path):
    # As a user has it: the relay running, so the relay script connects instead of scanning ports.
    # Every operation once, and every value of every enum input (a theme may load its own assets).
    ops = contract.operations_of(tool)
    tool_page.turn_on()
    registered = {info.name: info for info in client.wait_for_tools(contract.names_of(tool))}
    client.call_when_ready(contract.reader_of(tool).name)
    for op in ops:
        if op.confirmation:
            continue
        inputs = [op.example]
        for key, schema in registered[op.name].input_schema.get("properties", {}).items():
            inputs += [{**op.example, key: value} for value in schema.get("enum", [])]
        for arguments in inputs:
            client.call(op.name, arguments)
    tool_page.page.wait_for_load_state("networkidle")
    record_property("contacted", sorted(tool_page.contacted))
    foreign = sorted(o for o in tool_page.contacted
                     if o not in (target.origin, "data:", "blob:") and not o.startswith(("ws://127.0.0.1:", "ws://[::1]:")))
    assert not foreign, f"the {tool} page contacted {foreign} besides {target.origin} and the local relay"
