"""The baseline decides which results are expected to fail (harness/baseline.py)."""

from pathlib import Path

import pytest

from harness import baseline

ENTRY = baseline.Expected("scenarios/test_relay.py::test_x", "why", {"relay": "2.2.0", "browser": ["chromium"]})
PARTS = {"relay": "2.2.0", "polyfill": "5.1.0"}


def test_matches_when_every_condition_holds():
    assert ENTRY.matches("scenarios/test_relay.py::test_x", {"browser_name": "chromium"}, PARTS)


@pytest.mark.parametrize("scenario, params, parts", [
    ("scenarios/test_relay.py::test_y", {"browser_name": "chromium"}, PARTS),
    ("scenarios/test_relay.py::test_x", {"browser_name": "firefox"}, PARTS),
    ("scenarios/test_relay.py::test_x", {"browser_name": "chromium"}, {**PARTS, "relay": "6.2.0"}),
])
def test_does_not_match_another_scenario_browser_or_version(scenario, params, parts):
    assert not ENTRY.matches(scenario, params, parts)


def test_load_refuses_an_entry_without_reason(tmp_path: Path):
    bad = tmp_path / "baseline.toml"
    bad.write_text('[[expected]]\nscenario = "a::b"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="reason"):
        baseline.load(bad)


def test_committed_baseline_loads_and_names_existing_scenarios():
    for entry in baseline.load():
        path, function = entry.scenario.split("::")
        assert function in Path(path).read_text(encoding="utf-8"), entry.scenario


def test_expected_failure_that_passes_fails_the_run(pytester):
    """Strict xfail: a stale baseline entry turns into a failing run."""
    pytester.makepyfile("import pytest\n@pytest.mark.xfail(strict=True, reason='baseline')\ndef test_now_passes():\n    pass\n")
    result = pytester.runpytest("-p", "no:harness.pytest_plugin", "-p", "no:playwright", "-p", "no:base_url")
    result.assert_outcomes(failed=1)
