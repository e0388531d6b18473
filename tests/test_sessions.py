"""The one pytest command behind verify and both proofs (harness/sessions.py)."""

from itertools import pairwise
from pathlib import Path

from harness.sessions import scenarios_command


def test_all_scenarios_or_only_the_named_ones():
    every = scenarios_command(workers=2, rows=Path("rows.json"), artifacts=Path("a"))
    assert "scenarios" in every
    named = scenarios_command(
        workers=2, rows=Path("rows.json"), artifacts=Path("a"), nodeids=["scenarios/test_log.py::x"]
    )
    assert "scenarios" not in named and "scenarios/test_log.py::x" in named


def test_each_value_gets_its_own_option():
    command = scenarios_command(
        workers=1,
        rows=Path("r.json"),
        artifacts=Path("a"),
        browsers=["chromium", "chromium-noflag"],
        call_paths=["in-page"],
        latitudes=["late-ui", "dialog-div"],
        faults=["log-kept-over-reload"],
    )
    pairs = list(pairwise(command))
    for pair in [
        ("--browser-config", "chromium"),
        ("--browser-config", "chromium-noflag"),
        ("--call-path", "in-page"),
        ("--latitude", "late-ui"),
        ("--latitude", "dialog-div"),
        ("--fault", "log-kept-over-reload"),
    ]:
        assert pair in pairs
    assert "--results-json=r.json" in command and "--trace-failures" in command


def test_failure_screenshots_are_left_to_the_harness():
    # pytest-playwright's --screenshot shoots every page before it knows the outcome: 5 s lost on
    # each background tab. The harness shoots a failed scenario's pages itself (--trace-failures).
    command = scenarios_command(workers=2, rows=Path("r.json"), artifacts=Path("a"))
    assert not [arg for arg in command if arg.startswith("--screenshot")]


def test_the_fault_proof_keeps_no_traces_of_its_failures():
    # Its runs fail by design; their traces and screenshots would go with its temporary folder.
    command = scenarios_command(workers=2, rows=Path("r.json"), artifacts=Path("a"), failure_traces=False)
    assert "--trace-failures" not in command and "--output=a" in command
