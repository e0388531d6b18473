"""The baseline names single checks and the failure each must show (harness/baseline.py, harness/checks.py)."""

from pathlib import Path

import pytest

from harness import baseline, checks

ENTRY = baseline.Expected(
    "scenarios/test_relay.py::test_x",
    "relay.annotations",
    "does not see",
    "why",
    None,
    {"relay": "2.2.0", "browser": ["chromium"]},
)
PARTS = {"relay": "2.2.0", "polyfill": "5.1.0"}


def test_applies_when_every_condition_holds():
    assert ENTRY.applies("scenarios/test_relay.py::test_x", {"browser_name": "chromium"}, PARTS)


@pytest.mark.parametrize(
    "scenario, params, parts",
    [
        ("scenarios/test_relay.py::test_y", {"browser_name": "chromium"}, PARTS),
        ("scenarios/test_relay.py::test_x", {"browser_name": "firefox"}, PARTS),
        ("scenarios/test_relay.py::test_x", {"browser_name": "chromium"}, {**PARTS, "relay": "6.2.0"}),
    ],
)
def test_does_not_apply_to_another_scenario_browser_or_version(scenario, params, parts):
    assert not ENTRY.applies(scenario, params, parts)


def test_matches_only_its_rule_subject_and_message():
    entry = baseline.Expected(
        "s::t", "operations.annotations", r"expected \['consequentialHint'\]", "why", "drawio_write"
    )
    assert entry.matches("operations.annotations", "drawio_write", "registered [], expected ['consequentialHint']")
    assert not entry.matches(
        "operations.annotations", "excalidraw_clear", "registered [], expected ['consequentialHint']"
    )
    assert not entry.matches("operations.annotations", "drawio_write", "registered [], expected ['readOnlyHint']")
    assert not entry.matches("registration.operations", "drawio_write", None)
    assert entry.matches("operations.annotations", "drawio_write", None)  # asked when the check passed: stale


@pytest.mark.parametrize(
    "text, complaint",
    [
        ('[[expected]]\nscenario = "a::b"\nrule = "r"\nmessage = "m"\n', "reason"),
        ('[[expected]]\nscenario = "a::b"\nrule = "r"\nreason = "x"\n', "message"),
        ('[[expected]]\nscenario = "a::b"\nrule = "r"\nmessage = "("\nreason = "x"\n', "regular expression"),
        ('[[expected]]\nscenario = "a::b"\nrule = "r"\nmessage = "m"\nreason = "x"\nbrowsers = "y"\n', "unknown keys"),
    ],
)
def test_load_refuses_an_incomplete_entry(tmp_path: Path, text, complaint):
    bad = tmp_path / "baseline.toml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=complaint):
        baseline.load(bad)


def test_committed_baseline_loads_and_names_existing_scenarios_and_rules():
    from harness.rules import BY_ID

    for entry in baseline.load():
        path, function = entry.scenario.split("::")
        assert function in Path(path).read_text(encoding="utf-8"), entry.scenario
        assert entry.rule in BY_ID


def observed(entries):
    return checks.Observed(
        "scenarios/t.py::test_x",
        {},
        ("switch.control",),
        baseline.for_scenario("scenarios/t.py::test_x", {}, entries, PARTS),
    )


def test_check_swallows_only_the_expected_failure():
    entries = [baseline.Expected("scenarios/t.py::test_x", "switch.control", "label is wrong", "why")]
    seen = observed(entries)
    checks.begin(seen)
    try:
        with checks.check("switch.control"):
            raise AssertionError("the label is wrong")
        with pytest.raises(checks.RuleBroken, match="the switch is missing"), checks.check("switch.control"):
            raise AssertionError("the switch is missing")
    finally:
        checks.begin(None)
    assert [c.outcome for c in seen.checks] == ["expected", "failed"]


def test_check_of_an_undeclared_rule_is_a_harness_defect():
    checks.begin(observed([]))
    try:
        with pytest.raises(checks.HarnessDefect, match="declares only"), checks.check("log.order"):
            pass
    finally:
        checks.begin(None)


SCENARIO = """
import pytest
from harness.checks import check

@pytest.mark.rules("switch.control")
def test_x():
    with check("switch.control"):
        assert {holds}, "the label is wrong"
"""


def run_with_baseline(pytester, holds: bool, message: str):
    pytester.makepyfile(test_x=SCENARIO.format(holds=holds))
    pytester.path.joinpath("baseline.toml").write_text(
        f'[[expected]]\nscenario = "test_x.py::test_x"\nrule = "switch.control"\nmessage = "{message}"\nreason = "why"\n',
        encoding="utf-8",
    )
    return pytester.runpytest_subprocess(
        "-p", "harness.pytest_plugin", "-p", "no:cacheprovider", "--baseline", "baseline.toml", "test_x.py"
    )


def test_expected_failure_with_its_message_passes(pytester):
    run_with_baseline(pytester, False, "label is wrong").assert_outcomes(passed=1)


def test_baseline_entry_with_a_wrong_message_pattern_fails_the_run(pytester):
    run_with_baseline(pytester, False, "something else entirely").assert_outcomes(failed=1)


def test_stale_entry_fails_the_run(pytester):
    result = run_with_baseline(pytester, True, "label is wrong")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*stale baseline entry*"])
