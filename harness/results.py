"""A pytest plugin (active with --results-json) that records every scenario result with its
browser configuration, call path, tool, rule ids and findings, for the Verification report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_playwright.pytest_playwright import _truncate_file_name
from slugify import slugify


class ResultsRecorder:
    def __init__(self, path: Path):
        self.path = path
        self.results: list[dict] = []

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            props = dict(report.user_properties)
            params = props.pop("params", {})
            outcome = report.outcome
            if hasattr(report, "wasxfail"):
                outcome = "xfailed" if report.skipped else "xpassed"
            reason = ""
            if report.skipped and isinstance(report.longrepr, tuple):
                reason = report.longrepr[2].removeprefix("Skipped: ")
            elif report.failed:
                reason = (report.longreprtext or "").strip().splitlines()[-1][:300] if report.longreprtext else ""
            self.results.append({
                "scenario": report.nodeid.split("[")[0],
                "nodeid": report.nodeid,
                "outcome": outcome,
                "reason": reason or getattr(report, "wasxfail", ""),
                "browser": params.get("browser_name"),
                "call_path": params.get("call_path"),
                "tool": params.get("tool") or params.get("page_tool"),
                "rules": props.pop("rules", []),
                "properties": {k: v for k, v in props.items()},
                "duration": round(report.duration, 3),
                "artifacts": _truncate_file_name(slugify(report.nodeid)),
            })

    @pytest.hookimpl
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return  # the controller writes the file
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.results, ensure_ascii=False, indent=1), encoding="utf-8")
