"""The mutation proof: every named fault of the reference playground is caught by a scenario.

The catalog (fixtures/reference/faults.toml) names the rule each fault breaks; the scenarios
that check that rule carry it in their `rules` marker. A fault is caught when at least one of
those scenarios fails with the fault switched on, while they all pass without it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.paths import REFERENCE, ROOT
from harness.rules import BY_ID

CATALOG = REFERENCE / "faults.toml"


@dataclass(frozen=True)
class Fault:
    name: str
    rule: str
    breaks: str


def catalog() -> list[Fault]:
    data = tomllib.loads(CATALOG.read_text(encoding="utf-8"))
    faults = [Fault(name, entry["rule"], entry["breaks"]) for name, entry in data.items()]
    unknown = [f"{f.name} → {f.rule}" for f in faults if f.rule not in BY_ID]
    if unknown:
        raise ValueError(f"{CATALOG}: faults name unknown rules: {unknown}")
    return faults


class _Collector:
    def __init__(self) -> None:
        self.by_rule: dict[str, list[str]] = {}

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            for marker in item.iter_markers("rules"):
                for rule in marker.args:
                    self.by_rule.setdefault(rule, []).append(item.nodeid)


def scenarios_by_rule(pytest_args: list[str]) -> dict[str, list[str]]:
    """Node ids of the scenarios that check each rule, as collected with `pytest_args`."""
    collector = _Collector()
    with open(os.devnull, "w") as devnull:
        stdout, sys.stdout = sys.stdout, devnull
        try:
            code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *pytest_args, "scenarios"],
                               plugins=[collector])
        finally:
            sys.stdout = stdout
    if code not in (0, 5):
        raise RuntimeError(f"collecting the scenarios failed (pytest exit {code})")
    return collector.by_rule


@dataclass
class Verdict:
    fault: Fault
    scenarios: list[str]
    failed: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def caught(self) -> bool:
        return bool(self.failed) and not self.error


def run_scenarios(node_ids: list[str], pytest_args: list[str], faults: list[str]) -> tuple[int, list[str], str]:
    """Run scenarios in a child pytest; returns (exit code, failed node ids, tail of its output)."""
    with tempfile.TemporaryDirectory(prefix="harness-fault-") as tmp:
        junit = Path(tmp) / "junit.xml"
        args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                f"--junitxml={junit}", f"--output={Path(tmp) / 'artifacts'}", *pytest_args, *node_ids]
        for fault in faults:
            args += ["--fault", fault]
        result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        failed = []
        if junit.exists():
            for case in ET.parse(junit).iter("testcase"):
                if case.find("failure") is not None or case.find("error") is not None:
                    failed.append(f"{case.get('classname')}::{case.get('name')}")
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        return result.returncode, failed, tail


def _node_id(junit_name: str) -> str:
    """`scenarios.canvas.test_x::test_y[p]` (JUnit's classname::name) as pytest's node id."""
    module, name = junit_name.split("::", 1)
    return module.replace(".", "/") + ".py::" + name


def prove(fault: Fault, node_ids: list[str], pytest_args: list[str]) -> Verdict:
    verdict = Verdict(fault, node_ids)
    if not node_ids:
        verdict.error = f"no scenario of rule {fault.rule} passes without the fault"
        return verdict
    code, failed, tail = run_scenarios(node_ids, [*pytest_args, "-x"], [fault.name])
    verdict.failed = failed
    if code not in (0, 1):
        verdict.error = f"pytest exit {code}:\n{tail}"
    return verdict


EXPECTED_CLEAN = ("passed", "xfailed", "skipped")  # xfailed: a baseline entry


def clean_failures(targeted: list[str], pytest_args: list[str], workers: int, clean_results: Path | None) -> set[str]:
    """The targeted scenarios that do not pass without a fault. Read from an earlier run's
    results.json (`python -m harness selftest` has just run them), or run them now."""
    if clean_results is not None:
        outcomes = {r["nodeid"]: r["outcome"] for r in json.loads(clean_results.read_text(encoding="utf-8"))}
        bad = {node for node in targeted if outcomes.get(node) not in EXPECTED_CLEAN}
        print(f"clean run: {len(targeted)} scenarios, from {clean_results.name}", flush=True)
    else:
        print(f"clean run: {len(targeted)} scenarios without any fault", flush=True)
        code, failed, tail = run_scenarios(targeted, [*pytest_args, "-n", str(workers)], [])
        if code not in (0, 1):
            raise RuntimeError(f"the clean run did not run (pytest exit {code}):\n{tail}")
        bad = {_node_id(name) for name in failed}
    for node in sorted(bad):
        print(f"not clean: {node} fails without a fault, so it proves nothing", flush=True)
    return bad


def prove_all(pytest_args: list[str], only: list[str] | None = None, workers: int = 2,
              clean_results: Path | None = None) -> int:
    faults = [f for f in catalog() if not only or f.name in only]
    by_rule = scenarios_by_rule(pytest_args)
    targeted = sorted({node for f in faults for node in by_rule.get(f.rule, [])})
    not_clean = clean_failures(targeted, pytest_args, workers, clean_results)
    by_rule = {rule: [node for node in nodes if node not in not_clean] for rule, nodes in by_rule.items()}
    with ThreadPoolExecutor(workers) as pool:
        verdicts = pool.map(lambda f: prove(f, by_rule.get(f.rule, []), pytest_args), faults)
        caught = 0
        for verdict in verdicts:
            if verdict.caught:
                caught += 1
                print(f"caught   {verdict.fault.name} ({verdict.fault.rule}) by {verdict.failed[0]}", flush=True)
            else:
                why = verdict.error or f"all {len(verdict.scenarios)} scenarios passed"
                print(f"MISSED   {verdict.fault.name} ({verdict.fault.rule}): {why}", flush=True)
    print(f"faults caught: {caught}/{len(faults)}")
    return 0 if caught == len(faults) and not not_clean else 1


def list_catalog(pytest_args: list[str]) -> int:
    by_rule = scenarios_by_rule(pytest_args)
    for fault in catalog():
        scenarios = sorted({node.split("[")[0] for node in by_rule.get(fault.rule, [])})
        print(f"{fault.name}\n  breaks {fault.rule}: {fault.breaks}\n  caught by: {', '.join(scenarios) or 'NO SCENARIO'}")
    return 0
