"""Result rows from real pytest runs: checks, harness errors and retries (harness/results.py)."""

import json

SCENARIOS = """
import pathlib
import pytest
from harness.checks import HarnessError, check

@pytest.mark.rules("switch.control")
def test_broken():
    with check("switch.control"):
        assert False, "no switch in the header"

@pytest.mark.rules("switch.control")
def test_precondition_fails():
    assert False, "the page never loaded"  # outside any check: not observed

@pytest.mark.rules("switch.control")
def test_flaky(tmp_path_factory):
    marker = pathlib.Path({marker!r})
    if not marker.exists():
        marker.write_text("1")
        raise HarnessError("relay: timed out")
    with check("switch.control"):
        pass

@pytest.fixture
def broken_fixture():
    raise RuntimeError("setup went wrong")

@pytest.mark.rules("switch.control")
def test_setup_error(broken_fixture):
    pass
"""


def test_rows_say_broken_error_and_flaky(pytester, tmp_path):
    pytester.makepyfile(test_s=SCENARIOS.format(marker=str(tmp_path / "attempted")))
    pytester.runpytest_subprocess(
        "-p", "harness.pytest_plugin", "-p", "no:cacheprovider", f"--results-json={tmp_path / 'r.json'}", "test_s.py"
    )
    rows = {r["nodeid"].split("::")[1]: r for r in json.loads((tmp_path / "r.json").read_text())}
    assert rows["test_broken"]["outcome"] == "failed" and rows["test_broken"]["broken"] == "switch.control"
    assert rows["test_precondition_fails"]["outcome"] == "error"
    assert "the page never loaded" in rows["test_precondition_fails"]["message"]
    assert rows["test_setup_error"]["outcome"] == "error" and rows["test_setup_error"]["message"].startswith("setup:")
    flaky = rows["test_flaky"]
    assert flaky["outcome"] == "passed" and "relay: timed out" in flaky["flaky"]
    assert [c["outcome"] for c in flaky["checks"]] == ["passed"]  # the retry's checks only
    assert not rows["test_broken"]["flaky"], "a failing check is a finding: never retried"
    assert set(rows["test_broken"]["phases"]) == {"setup", "call", "teardown"}
    assert abs(sum(rows["test_broken"]["phases"].values()) - rows["test_broken"]["duration"]) < 0.01
