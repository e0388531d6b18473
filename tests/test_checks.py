"""Checks that go on past a failure (harness/checks.py each_on_its_own) and how the fault proof
reads them (harness/faults.py broken_rules)."""

import pytest

from harness import checks
from harness.faults import broken_rules

RULES = ("confirm.title-action", "confirm.body", "confirm.checkbox")


def observed():
    return checks.Observed("scenarios/t.py::test_x", {}, RULES)


def test_each_check_is_decided_and_the_first_broken_rule_ends_the_block():
    seen = observed()
    checks.begin(seen)
    try:
        with pytest.raises(checks.RuleBroken) as raised, checks.each_on_its_own():
            with checks.check("confirm.title-action"):
                raise AssertionError("wrong title")
            with checks.check("confirm.body"):
                pass
            with checks.check("confirm.checkbox"):
                raise AssertionError("checked")
    finally:
        checks.begin(None)
    assert raised.value.rule == "confirm.title-action"
    assert [(c.rule, c.outcome) for c in seen.checks] == [
        ("confirm.title-action", "failed"),
        ("confirm.body", "passed"),
        ("confirm.checkbox", "failed"),
    ]


def test_a_step_that_stops_the_block_after_a_broken_rule_leaves_the_rule_as_the_verdict():
    checks.begin(observed())
    try:
        with pytest.raises(checks.RuleBroken, match=r"confirm\.body"), checks.each_on_its_own():
            with checks.check("confirm.body"):
                raise AssertionError("no undo sentence")
            raise RuntimeError("the page went away")
    finally:
        checks.begin(None)


def test_outside_the_block_a_failing_check_stops_at_once():
    checks.begin(observed())
    try:
        with pytest.raises(checks.RuleBroken, match=r"confirm\.body"):
            with checks.check("confirm.body"):
                raise AssertionError("no undo sentence")
            raise AssertionError("not reached")  # pragma: no cover
    finally:
        checks.begin(None)


def test_the_fault_proof_counts_every_rule_a_run_found_broken():
    row = {
        "outcome": "failed",
        "broken": "confirm.title-action",
        "checks": [
            {"rule": "confirm.title-action", "outcome": "failed"},
            {"rule": "confirm.body", "outcome": "passed"},
            {"rule": "confirm.checkbox", "outcome": "failed"},
        ],
    }
    assert broken_rules(row) == {"confirm.title-action", "confirm.checkbox"}
    assert broken_rules({**row, "outcome": "error"}) == set()
