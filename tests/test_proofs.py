"""The fault proof's verdicts and the latitude catalog, on rows of every shape."""

from __future__ import annotations

import pytest

from harness import faults, latitudes
from harness.faults import SENTINEL, Fault, judge
from harness.pytest_plugin import latitudes_apply
from harness.rules import BY_ID

FAULT = Fault("queue-lifo", "confirm.queue", "answers the newest first", "slides")
SCENARIO = "scenarios/test_confirmation.py::test_confirmations_come_one_at_a_time_in_arrival_order"


def row(outcome: str, broken: str | None = None, scenario: str = SCENARIO, fault: str | None = "queue-lifo") -> dict:
    params = {"browser_name": "chromium", "op": "slides_write", "call_path": "in-page"}
    return {
        "scenario": scenario,
        "nodeid": f"{scenario}[x]",
        "params": {**params, "reference_fault": fault},
        "outcome": outcome,
        "broken": broken,
        "message": "m",
        "fault": fault,
        "checks": [{"rule": broken, "outcome": "failed"}] if broken else [],
    }


def clean_of(*rows: dict) -> dict:
    return {faults._key(r): r["outcome"] for r in rows}


def test_caught_only_by_a_failing_check_of_its_own_rule():
    clean = clean_of(row("passed", fault=None))
    assert judge(FAULT, "chromium", [row("failed", "confirm.queue")], clean).status == "caught"
    assert judge(FAULT, "chromium", [row("failed", "confirm.busy")], clean).status == "missed"
    assert judge(FAULT, "chromium", [row("error")], clean).status == "missed"


def test_not_observable_where_its_scenarios_skip_with_or_without_the_fault():
    assert judge(FAULT, "chromium", [row("skipped")], clean_of(row("passed", fault=None))).status == "not-observable"
    # 未確認 even without the fault (a latitude hides what the check needs): nothing to prove there.
    assert (
        judge(FAULT, "chromium", [row("failed", "confirm.queue")], clean_of(row("skipped", fault=None))).status
        == "not-observable"
    )


def test_a_fault_that_breaks_the_sentinel_is_too_broad():
    rows = [row("failed", "confirm.queue"), row("failed", "switch.on-registers", scenario=SENTINEL)]
    assert judge(FAULT, "chromium", rows, clean_of(row("passed", fault=None))).status == "too-broad"
    errored = [row("failed", "confirm.queue"), row("error", scenario=SENTINEL)]
    assert judge(FAULT, "chromium", errored, clean_of(row("passed", fault=None))).status == "too-broad"


def test_a_sentinel_that_sees_the_faults_own_rule_broken_is_no_sign_of_breadth():
    rows = [row("failed", "confirm.queue"), row("failed", "confirm.queue", scenario=SENTINEL)]
    assert judge(FAULT, "chromium", rows, clean_of(row("passed", fault=None))).status == "caught"


def test_every_latitude_names_what_allows_it_and_what_changes():
    catalog = latitudes.catalog()
    assert len(catalog) >= 12
    for latitude in catalog:
        assert latitude.allows and latitude.changes, latitude.name


def test_unknown_latitudes_are_one_error_listing_the_known_ones():
    message = latitudes.unknown_latitudes(["no-such-latitude"])
    assert "no-such-latitude" in message and "late-ui" in message
    assert latitudes.unknown_latitudes(["late-ui"]) is None


@pytest.mark.parametrize("entry", ['[x]\nallows = "a"\n', '[x]\nallows = "a"\nchanges = "c"\nextra = 1\n'])
def test_a_malformed_latitude_entry_is_refused(tmp_path, monkeypatch, entry):
    catalog = tmp_path / "latitudes.toml"
    catalog.write_text(entry, encoding="utf-8")
    monkeypatch.setattr(latitudes, "CATALOG", catalog)
    with pytest.raises(ValueError, match="needs exactly allows and changes"):
        latitudes.catalog()


def test_the_sentinel_runs_only_for_the_faults_a_leg_names(collected):
    def proof_items(*args: str) -> list[str]:
        return collected("scenarios", "--browser-config", "chromium-noflag", *args)

    proven = ["queue-lifo", "log-at-top"]
    everywhere = proof_items("--prove-faults", ",".join(proven))
    once = proof_items("--prove-faults", ",".join(proven), "--prove-sentinels", "log-at-top")
    sentinels = [item for item in once if item.startswith(SENTINEL)]
    assert sentinels and all("log-at-top" in item for item in sentinels)
    assert [i for i in everywhere if not i.startswith(SENTINEL)] == [i for i in once if not i.startswith(SENTINEL)]
    assert not [
        i for i in proof_items("--prove-faults", ",".join(proven), "--prove-sentinels", "") if i.startswith(SENTINEL)
    ]


def test_the_rest_leg_takes_only_the_faults_no_earlier_leg_observed():
    other = Fault("log-at-top", "page.log-at-bottom", "puts the log at the top", "slides")
    relay_only = Fault("title-set-late", "relay.two-tabs", "sets the title late", "slides", path="relay")
    verdicts = [
        faults.Verdict(FAULT, "chromium", "caught", ""),
        faults.Verdict(other, "chromium", "not-observable", ""),
    ]
    assert faults.unobserved([FAULT, other, relay_only], verdicts) == [other, relay_only]
    missed = [faults.Verdict(FAULT, "chromium", "missed", "")]
    assert faults.unobserved([FAULT], missed) == []  # a miss is a verdict: the proof fails, not the rest leg's job


@pytest.mark.parametrize(
    "params, applies",
    [
        ({"browser_name": "chromium", "call_path": "in-page"}, True),
        ({"browser_name": "chromium"}, True),  # a scenario without a call path, on that browser
        ({"browser_name": "chromium", "call_path": "relay"}, False),
        ({"browser_name": "chromium-noflag", "call_path": "in-page"}, False),
    ],
)
def test_the_test_commands_main_job_has_the_latitudes_only_on_chromium_in_page(params, applies):
    assert latitudes_apply("chromium:in-page", params) is applies
    assert latitudes_apply(None, params) is True


def test_latitudes_only_on_takes_several_browsers():
    only_on = "chromium:in-page,firefox:in-page"
    assert latitudes_apply(only_on, {"browser_name": "firefox", "call_path": "in-page"})
    assert latitudes_apply(only_on, {"browser_name": "chromium"})
    assert not latitudes_apply(only_on, {"browser_name": "firefox", "call_path": "relay"})
    assert not latitudes_apply(only_on, {"browser_name": "chromium-noflag", "call_path": "in-page"})


def test_a_sample_of_the_catalog_has_the_first_fault_of_each_section_and_call_path():
    catalog = faults.provable()
    sample = faults.one_per_section(catalog)
    sections = {(BY_ID[f.rule].source, BY_ID[f.rule].section, f.path) for f in catalog}
    assert len(sample) == len(sections)
    assert {(BY_ID[f.rule].source, BY_ID[f.rule].section, f.path) for f in sample} == sections
    for fault in sample:  # the first in catalog order: the same sample every run
        key = (BY_ID[fault.rule].source, BY_ID[fault.rule].section, fault.path)
        assert next(f for f in catalog if (BY_ID[f.rule].source, BY_ID[f.rule].section, f.path) == key) == fault
