"""A tool is its descriptor, and a call path its driver: everything else derives from them.

A toy tool (a descriptor with a contract of one operation) and a toy driver, declared here and
registered before the harness's other modules load, are picked up by the rules table, the report's
two tables, the generation of scenario runs (the log scenarios' tool lists among them) and the
fault catalog — with no other file touched."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from harness.paths import ROOT

TOY = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from harness import drivers, schemas, tools
    from harness.tools import Tool

    tools.register(Tool(
        name="toy", order=99, canvas=False, hooks=(),
        operations=(schemas.Operation("toy_read", "toy", "値を返す", frozenset({schemas.READ_ONLY}), schemas.obj(),
                                      schemas.ok({"value": schemas.STRING})),),
        valid_input=lambda op, client, marker: None, text_call=None, kept_text_calls=None, failing_call=None,
        rules=(("DD", "おもちゃの操作", (("toy.read", "toy_read は値を返す"),)),)))
    drivers.register(drivers.Driver("toy-path", frozenset(), {"ja": "おもちゃの呼び方", "en": "A toy call path"},
                                    client="harness.clients:InPageClient"))

    import pytest
    from harness import contract, faults, report, rules
    from harness.verify import ConfigStatus

    folder = Path(sys.argv[1])
    seen = {"rules": "toy.read" in rules.BY_ID, "operations": sorted(contract.names_of("toy"))}
    row = {"nodeid": "scenarios/test_operations.py::test_every_operation_answers[chromium-toy-in-page]",
           "scenario": "scenarios/test_operations.py::test_every_operation_answers", "browser": "chromium",
           "call_path": "in-page", "tool": "toy", "op": None, "fault": None, "params": {}, "rules": ["toy.read"],
           "outcome": "passed", "broken": None, "subject": None, "message": "", "calls_row": True,
           "checks": [{"rule": "toy.read", "subject": None, "outcome": "passed", "message": "", "reason": ""}],
           "findings": {"operations-called": {"toy_read": "ok"}}, "duration": 1.0, "artifacts": "a"}
    run = {"machine": "m", "target": "reference", "ai_tools": ["toy"], "call_paths": ["in-page", "toy-path"], "parts": {},
           "statuses": [{"name": "chromium", "available": True, "detail": "Chromium"}]}
    text = report.render([row], run, "en")
    seen["table1"] = [line for line in text.splitlines() if "toy call path" in line or line.startswith("| In-page")]
    seen["table2"] = [line for line in text.splitlines() if "`toy.read`" in line]

    catalog = folder / "faults.toml"
    catalog.write_text('default_tool = "toy"\\n[toy-reads-nothing]\\nrule = "toy.read"\\nbreaks = "toy_read returns no value"\\n')
    faults.catalog_files = lambda: [(catalog, None)]
    seen["faults"] = [(fault.name, fault.tool) for fault in faults.catalog()]

    profile = folder / "toy.toml"
    profile.write_text('base_url = "http://127.0.0.1:9"\\n[tools.toy]\\npage = "/toy"\\n')

    class Collected:
        ids = []
        def pytest_collection_finish(self, session):
            self.ids += [item.nodeid for item in session.items]

    collected = Collected()
    pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "scenarios", "--target", str(profile),
                 "--browser-config", "chromium", "--call-path", "in-page", "--call-path", "toy-path"], plugins=[collected])
    seen["runs"] = [nodeid for nodeid in collected.ids if "toy" in nodeid]
    print("SEEN " + json.dumps(seen))
""")


def test_a_toy_tool_and_a_toy_driver_are_picked_up_everywhere(tmp_path):
    run = subprocess.run(
        [sys.executable, "-c", TOY, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    line = next((line for line in run.stdout.splitlines() if line.startswith("SEEN ")), None)
    assert line, run.stdout[-3000:] + run.stderr[-3000:]
    seen = json.loads(line.removeprefix("SEEN "))
    assert seen["rules"] and seen["operations"] == ["toy_read"]
    assert any(line.startswith("| A toy call path |") for line in seen["table1"]), seen["table1"]
    assert any("all 1 operations called" in line for line in seen["table1"]), seen["table1"]
    assert seen["table2"] and "verified" in seen["table2"][0], seen["table2"]
    assert seen["faults"] == [["toy-reads-nothing", "toy"]]
    runs = seen["runs"]
    for scenario in (
        "test_operations.py::test_every_operation_answers[chromium-toy-in-page]",
        "test_operations.py::test_every_operation_answers[chromium-toy-toy-path]",
        "test_switch.py::test_turning_on_registers_exactly_the_tools_operations[chromium-toy-in-page]",
        "test_log.py::test_collapsed_log_shows_its_title_and_the_last_row[chromium-toy-in-page]",
    ):
        assert any(nodeid.endswith(scenario) for nodeid in runs), f"no run of {scenario}: {runs[:20]}"
