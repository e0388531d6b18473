"""Every attempt has its watchdog, a rerun and a teardown after a failure included; only harness
trouble is run again (harness/watchdog.py, RERUN_ONLY in harness/pytest_plugin.py)."""

import json
import time

SCENARIOS = """
import pathlib
import time
import pytest
from harness.checks import HarnessError

ATTEMPTED = pathlib.Path({attempted!r})

@pytest.mark.rules("switch.control")
def test_hangs_on_its_rerun():
    if not ATTEMPTED.exists():
        ATTEMPTED.write_text("1")
        raise HarnessError("relay: the tab was never listed")
    time.sleep(600)

@pytest.fixture
def closing_hangs():
    yield
    time.sleep(600)

@pytest.mark.rules("switch.control")
def test_teardown_hangs_after_a_failure(closing_hangs):
    raise HarnessError("the page went away")

@pytest.mark.rules("switch.control")
def test_result_shape_is_final():
    assert {{"ok": False}}["ok"] is True, "go_write_file answered declined"

@pytest.mark.rules("switch.control")
def test_after_them_the_run_goes_on():
    pass
"""


def test_a_rerun_and_a_teardown_that_hang_end_at_the_limit(pytester, tmp_path):
    pytester.makepyfile(test_s=SCENARIOS.format(attempted=str(tmp_path / "attempted")))
    started = time.monotonic()
    pytester.runpytest_subprocess(
        "-p", "harness.pytest_plugin", "-p", "no:cacheprovider", "--timeout=3",
        f"--results-json={tmp_path / 'r.json'}", "test_s.py",
        timeout=120,
    )  # fmt: skip
    took = time.monotonic() - started
    rows = {r["nodeid"].split("::")[1]: r for r in json.loads((tmp_path / "r.json").read_text())}
    rerun = rows["test_hangs_on_its_rerun"]
    assert rerun["outcome"] == "error" and "relay: the tab was never listed" in rerun["flaky"]
    assert "the watchdog ended the call of" in rerun["message"], rerun["message"]
    assert "test_s.py:13 test_hangs_on_its_rerun: time.sleep(600)" in rerun["message"], rerun["message"]
    teardown = rows["test_teardown_hangs_after_a_failure"]
    assert teardown["outcome"] == "error" and not teardown["flaky"], "a hang is never run again"
    assert "closing_hangs: time.sleep(600)" in json.dumps(teardown), teardown
    shape = rows["test_result_shape_is_final"]
    assert shape["outcome"] == "error" and not shape["flaky"], "an assertion outside harness trouble: never rerun"
    assert rows["test_after_them_the_run_goes_on"]["outcome"] == "passed"
    # Two hanging attempts of 3 s and two hanging teardowns of 3 s, and Python's start.
    assert took < 60, f"the run took {took:.0f} s"
