"""Result rows: one per scenario run (a scenario × its parameters), as results.json holds them.

The pytest plugin attaches what each phase observed to the test report (the `harness` user
property: the rules declared, the parameters, the checks and findings, and how the phase
ended); `ResultsRecorder` (active with --results-json) folds the phases of each scenario run
into one row. A row's outcome is one of:

- passed   every check held;
- failed   a check failed: `broken` names the rule (a broken rule);
- error    the scenario stopped outside its checks — at setup or teardown, on a precondition
           that did not hold, a harness timeout, a relay that never connected (未確認);
- skipped  not run here, with the reason (未確認);
- stale    every check held, but a baseline entry expected one of them to fail.

A scenario that stopped on harness trouble runs once more; `flaky` keeps the first attempt's
error, so a pass on the retry is never a pass without a word.
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

PROPERTY = "harness"
# Parameters that name where a row ran and what it was about.
ENV_PARAMS = {
    "browser_name": "browser",
    "call_path": "call_path",
    "tool": "tool",
    "page_tool": "tool",
    "op": "op",
    "reference_fault": "fault",
}


def _first_line(text: str, limit: int = 600) -> str:
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    for line in lines:  # pytest's long representation: the "E   " lines say what went wrong
        if line.lstrip().startswith("E "):
            return line.lstrip()[1:].strip()[:limit]
    return (lines[-1] if lines else "")[:limit]


def phase_outcome(report: pytest.TestReport, observed: dict | None, rule_broken: tuple[str, str | None] | None) -> dict:
    """What one phase (setup, call, teardown) of a scenario run showed."""
    if report.skipped:
        reason = (
            report.longrepr[2].removeprefix("Skipped: ") if isinstance(report.longrepr, tuple) else str(report.longrepr)
        )
        return {"kind": "skipped", "message": reason}
    if report.passed:
        stale = [c for c in (observed or {}).get("checks", []) if c["outcome"] == "stale"]
        if stale and report.when == "call":
            return {"kind": "stale", "message": "; ".join(f"{c['rule']}: {c['reason']}" for c in stale)}
        return {"kind": "passed", "message": ""}
    # A rule seen broken while setting the scenario up (the page's answer to the call that waits
    # for the tool to load) is a finding like one in the scenario's body.
    if report.when in ("setup", "call") and rule_broken is not None:
        return {
            "kind": "failed",
            "rule": rule_broken[0],
            "subject": rule_broken[1],
            "message": _first_line(report.longreprtext),
        }
    return {"kind": "error", "message": f"{report.when}: {_first_line(report.longreprtext)}"}


def plain_nodeid(nodeid: str) -> str:
    """The scenario run's pytest node id, without the `@group` that xdist's loadgroup appends."""
    at, bracket = nodeid.rfind("@"), nodeid.rfind("]")
    return nodeid[:at] if at > bracket else nodeid


def fold(phases: list[dict]) -> dict:
    """One row from the phases of a scenario run (each a `harness` property, in order)."""
    first = phases[0]
    row = {
        "nodeid": plain_nodeid(first["nodeid"]),
        "scenario": first["nodeid"].split("[")[0],
        **{name: None for name in ("browser", "call_path", "tool", "op", "fault")},
        **{ENV_PARAMS[k]: v for k, v in first["params"].items() if k in ENV_PARAMS},
        "params": first["params"],
        "latitudes": first.get("latitudes", []),  # the reference's conformant alternatives it ran with
        "rules": first["rules"],
        "calls_row": first.get("calls_row", False),  # fills its call path's row of Table 1
        "outcome": "passed",
        "broken": None,
        "subject": None,
        "message": "",
        "checks": [],
        "findings": {},
        "duration": round(sum(p.get("duration", 0) for p in phases), 3),
        # Seconds per phase (setup, call, teardown) of the attempt that counts: bench/speed.py's
        # setup+teardown share of worker time.
        "phases": {p["phase"]: round(p.get("duration", 0), 3) for p in phases if "phase" in p},
        "artifacts": next((p["artifacts"] for p in phases if p.get("artifacts")), ""),  # its folder under artifacts/
        "flaky": None,  # the first attempt's error, when a retry ran
        "evidence": {},  # rule → the picture this run took of it (under evidence/)
        "picture_seconds": round(sum(p.get("picture_seconds", 0) for p in phases), 3),  # taking them, every attempt
    }
    for phase in phases:
        row["checks"] = phase.get("checks", row["checks"]) or row["checks"]
        row["findings"] = phase.get("findings", row["findings"]) or row["findings"]
        row["evidence"] = phase.get("evidence", row["evidence"]) or row["evidence"]
        kind = phase["kind"]
        if kind == "passed":
            continue
        if row["outcome"] in ("passed", "stale"):
            row["outcome"], row["message"] = kind, phase["message"]
            if kind == "failed":
                row["broken"], row["subject"] = phase["rule"], phase.get("subject")
        elif kind == "error":
            # A check that failed stays the row's verdict; the teardown's trouble is noted.
            row["message"] += f" (then {phase['message']})"
    return row


class ResultsRecorder:
    """Folds the phase reports of each scenario run into a row; the controller writes results.json."""

    def __init__(self, path: Path):
        self.path = path
        self.phases: dict[str, list[dict]] = {}
        self.retried: dict[str, list[dict]] = {}  # the first attempt of a scenario that ran again

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        phase = props.get(PROPERTY)
        if not isinstance(phase, dict):
            return
        phases = self.phases.setdefault(report.nodeid, [])
        phases.append({**phase, "nodeid": report.nodeid, "duration": report.duration})
        if report.outcome == "rerun":  # pytest-rerunfailures: this attempt ends here, another follows
            self.retried[report.nodeid] = self.phases.pop(report.nodeid)

    def rows(self) -> list[dict]:
        rows = []
        for nodeid, phases in self.phases.items():
            row = fold(phases)
            first = self.retried.get(nodeid)
            if first is not None:
                row["flaky"] = fold(first)["message"]
                row["duration"] = round(row["duration"] + sum(p.get("duration", 0) for p in first), 3)
            rows.append(row)
        return rows

    @pytest.hookimpl
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return  # the controller writes the file
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.rows(), ensure_ascii=False, indent=1), encoding="utf-8")


def session_seconds(junit: Path) -> float:
    """The pytest session's wall time, as the junit.xml a verify run writes holds it. OSError or
    ValueError (ElementTree's ParseError is one) when there is no such file."""
    suite = ElementTree.parse(junit).getroot()
    inner = suite.find("testsuite")
    if suite.tag != "testsuite" and inner is not None:
        suite = inner
    return float(suite.get("time", "nan"))
