"""The mutation proof: every named fault of the reference playground is caught by a check of its rule.

The catalog (fixtures/reference/faults.toml) names the rule each fault breaks, and the tool and
call path where it shows (default: slides, in-page). The proof is one pytest session (xdist
spreads it): each scenario that declares a fault's rule runs once with that fault switched on
for its tab, on each Chromium configuration. A fault is caught on a configuration
when one of those runs ends on a failing check *of that rule* — a failure elsewhere (a setup
error, a harness timeout, another rule's check) catches nothing. Each fault also runs the
sentinel, a scenario of another rule (the switch turned on and one read answering): a fault
that breaks it is too broad to prove its rule alone. Breadth is the fault's, so a proof in legs
runs it once per fault, in the first leg that has the fault.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness import drivers, tools
from harness.paths import REFERENCE, ROOT
from harness.rules import BY_ID
from harness.sessions import scenarios_command

CATALOG = REFERENCE / "faults.toml"  # the shared module's; each tool's own are in src/<tool>/faults.toml
SENTINEL = "scenarios/test_operations.py::test_switch_on_then_one_read_succeeds"
PROOF_BROWSERS = ("chromium", "chromium-noflag")
# Scenarios that no fault of the reference can make fail, with why: the proof fails on any other
# scenario that no fault caught.
BEYOND_THE_PAGE = {
    "scenarios/test_relay.py::test_closing_the_tab_removes_its_tools": "the relay drops a closed tab's operations when the tab's connection closes; nothing a page does outlives its tab",
}


@dataclass(frozen=True)
class Fault:
    name: str
    rule: str
    breaks: str
    tool: str  # where the fault shows; proven there
    path: str = "in-page"  # the call path it is proven on, where its scenarios take one
    hangs: str = ""  # a fault that makes the page never answer breaks no rule a check can see: why it is left out


def provable() -> list[Fault]:
    """The faults the proof runs: each breaks a rule that a check of it catches."""
    return [fault for fault in catalog() if not fault.hangs]


def catalog_files() -> list[tuple[Path, str | None]]:
    """Each fault file with the tool its faults show on by default (the shared module's file names its own)."""
    return [(CATALOG, None), *((path, path.parent.name) for path in sorted(CATALOG.parent.glob("src/*/faults.toml")))]


def catalog() -> list[Fault]:
    faults: list[Fault] = []
    problems: list[str] = []
    for path, default_tool in catalog_files():
        entries = tomllib.loads(path.read_text(encoding="utf-8"))
        default_tool = entries.pop("default_tool", default_tool)
        for name, entry in entries.items():
            unknown = set(entry) - {"rule", "breaks", "tool", "path", "hangs"}
            if unknown or ("rule" in entry) == ("hangs" in entry) or "breaks" not in entry:
                problems.append(
                    f"{path.relative_to(ROOT)}: {name}: needs breaks and either rule or hangs; "
                    f"unknown keys {sorted(unknown)}"
                )
                continue
            fault = Fault(
                name,
                entry.get("rule", ""),
                entry["breaks"],
                entry.get("tool", default_tool),
                entry.get("path", "in-page"),
                entry.get("hangs", ""),
            )
            if not fault.hangs and fault.rule not in BY_ID:
                problems.append(f"{path.relative_to(ROOT)}: {name}: unknown rule {fault.rule}")
            if fault.tool not in tools.NAMES or fault.path not in drivers.DRIVERS:
                problems.append(f"{path.relative_to(ROOT)}: {name}: unknown tool {fault.tool!r} or path {fault.path!r}")
            if any(known.name == name for known in faults):
                problems.append(f"{path.relative_to(ROOT)}: {name}: named twice")
            faults.append(fault)
    if problems:
        raise ValueError("the fault catalog: " + "; ".join(problems))
    return faults


def unknown_names(kind: str, names: list[str], known: set[str]) -> str | None:
    """One error naming the `kind`s (fault, latitude) not among `known`, with the known ones; or None."""
    unknown = [name for name in names if name not in known]
    if not unknown:
        return None
    return f"unknown {kind} {', '.join(map(repr, unknown))}; the reference's {kind}s are: {', '.join(sorted(known))}"


def unknown_faults(names: list[str]) -> str | None:
    return unknown_names("fault", names, {fault.name for fault in catalog()})


# --- the proof's pytest session ----------------------------------------------------------------


def _item_tool(params: dict) -> str | None:
    for key in ("tool", "page_tool"):
        if params.get(key):
            return params[key]
    return getattr(params.get("op"), "tool", None)


class FaultProofPlugin:
    """Active with --prove-faults: parametrizes scenarios by the faults of their rules."""

    def __init__(self, only: list[str] | None, with_clean: bool, sentinels: list[str] | None = None):
        self.faults = {f.name: f for f in provable() if not only or f.name in only}
        self.with_clean = with_clean
        self.sentinels = set(self.faults) if sentinels is None else set(sentinels)

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "reference_fault" not in metafunc.fixturenames:
            return
        rules = {rule for marker in metafunc.definition.iter_markers("rules") for rule in marker.args}
        sentinel = metafunc.definition.nodeid.split("[")[0] == SENTINEL
        faults = [
            f.name
            for f in self.faults.values()
            if (f.rule not in rules) == sentinel and (not sentinel or f.name in self.sentinels)
        ]
        values = ([None] if self.with_clean and faults and not sentinel else []) + faults
        metafunc.parametrize("reference_fault", values, ids=[v or "clean" for v in values])

    @pytest.hookimpl(trylast=True)  # after pytest's own grouping by session parameters
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        keep: list[pytest.Item] = []
        drop: list[pytest.Item] = []
        fault_of: dict[str, str] = {}
        for item in items:
            params = getattr(getattr(item, "callspec", None), "params", {})
            name = params.get("reference_fault", "absent")
            fault_of[item.nodeid] = name or ""
            fault = self.faults.get(name)
            if name is None:  # the clean run of a scenario: kept where some fault of it is kept
                fault = next((f for f in self.faults.values() if self._targets(item, params, f)), None)
                (keep if fault else drop).append(item)
                continue
            (keep if fault and self._targets(item, params, fault) else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
        # One fault's runs together: they share a worker's warm tabs (harness/warm_tabs.py).
        items[:] = sorted(keep, key=lambda item: fault_of[item.nodeid])

    @staticmethod
    def _targets(item: pytest.Item, params: dict, fault: Fault) -> bool:
        """Whether this scenario run is where `fault` is proven (or its sentinel)."""
        sentinel = item.nodeid.split("[")[0] == SENTINEL
        if not sentinel and fault.rule not in {r for m in item.iter_markers("rules") for r in m.args}:
            return False
        tool = _item_tool(params)
        if tool is not None and tool != fault.tool:
            return False
        path = params.get("call_path")
        if path is None or path == fault.path:
            return True
        # A scenario that cannot run on the fault's path proves it on the first path it runs on.
        runs_on = drivers.paths_for(
            {c for m in item.iter_markers("needs") for c in m.args},
            item.get_closest_marker("one_driver") is not None,
            list(drivers.CALL_PATHS),
        )
        return fault.path not in runs_on and path == runs_on[0]


# --- running and judging the proof ---------------------------------------------------------------


def _key(row: dict) -> tuple:
    params = {k: v for k, v in row["params"].items() if k != "reference_fault"}
    return row["scenario"], tuple(sorted(params.items()))


@dataclass
class Verdict:
    fault: Fault
    browser: str
    status: str  # caught | not-observable | missed | too-broad
    detail: str


def broken_rules(row: dict) -> set[str]:
    """The rules a failed run found broken: the one that ended it, and those of checks that went on
    past their failure (checks.each_on_its_own)."""
    if row["outcome"] != "failed":
        return set()
    return {row["broken"]} | {c["rule"] for c in row["checks"] if c["outcome"] == "failed"}


def judge(fault: Fault, browser: str, rows: list[dict], clean: dict[tuple, str]) -> Verdict:
    targeted = [r for r in rows if r["scenario"] != SENTINEL]
    sentinels = [r for r in rows if r["scenario"] == SENTINEL]
    # The sentinel may see the fault's own rule broken (every failure thrown breaks its read too):
    # only another rule broken, or an error, shows the fault reaches beyond its rule.
    broken_sentinel = [r for r in sentinels if r["outcome"] != "passed" and broken_rules(r) != {fault.rule}]
    if broken_sentinel:
        r = broken_sentinel[0]
        return Verdict(
            fault, browser, "too-broad", f"breaks the sentinel {r['nodeid']}: {r['outcome']}: {r['message'][:200]}"
        )
    usable = [r for r in targeted if clean.get(_key(r)) == "passed"]
    caught = [r for r in usable if fault.rule in broken_rules(r)]
    if caught:
        r = caught[0]
        first = r["message"].splitlines()[0] if r["message"] else ""
        return Verdict(fault, browser, "caught", f"{r['nodeid']}: {first[:220]}")
    if targeted and all(r["outcome"] == "skipped" for r in targeted):
        return Verdict(fault, browser, "not-observable", f"its scenarios skip here: {targeted[0]['message'][:200]}")
    if targeted and all(clean.get(_key(r)) == "skipped" for r in targeted):
        return Verdict(fault, browser, "not-observable", "its scenarios are 未確認 here even without the fault")
    if not usable:
        why = "no scenario of its rule ran" if not targeted else "none of its scenarios passes without the fault"
        return Verdict(fault, browser, "missed", why)
    seen = "; ".join(
        f"{r['nodeid'].split('::')[-1]} {r['outcome']}" + (f" ({r['broken']})" if r["broken"] else "")
        for r in usable[:4]
    )
    return Verdict(fault, browser, "missed", f"no check of {fault.rule} failed: {seen}")


@dataclass(frozen=True)
class Leg:
    """One pytest session of the proof: its browsers, the latitudes switched on, the call paths it
    takes, and where its clean runs come from (None: run in the same session)."""

    browsers: tuple[str, ...]
    latitudes: tuple[str, ...] = ()
    call_paths: tuple[str, ...] = ()
    clean_results: Path | None = None
    # Only the faults that no earlier leg observed anywhere (not run there, or 未確認 there).
    rest_only: bool = False
    # Only the first fault of each section of the spec and call path (catalog order): a
    # deterministic sample for a browser where the whole catalog costs more than the run can give.
    one_per_section: bool = False

    def where(self, browser: str) -> str:
        return browser + (f" with {len(self.latitudes)} latitudes" if self.latitudes else "")


def _run_leg(
    leg: Leg, faults: list[Fault], sentinels: list[Fault], workers: int, rows_path: Path, artifacts: Path
) -> list[dict] | None:
    command = scenarios_command(
        workers=workers,
        rows=rows_path,
        artifacts=artifacts,
        browsers=leg.browsers,
        call_paths=leg.call_paths,
        latitudes=leg.latitudes,
        quiet=True,
        # Hundreds of runs fail by design: a trace and screenshots of each
        # (5 s per tab in the background) would be thrown away with the folder.
        failure_traces=False,
        extra=[
            "--prove-faults",
            ",".join(f.name for f in faults),
            "--prove-sentinels",
            ",".join(f.name for f in sentinels),
        ],
    )
    if leg.clean_results is None:
        command.append("--prove-with-clean")
    print(
        f"fault proof: {len(faults)} faults on {', '.join(leg.browsers)}"
        + (f" with {len(leg.latitudes)} latitudes on" if leg.latitudes else "")
        + (f", call paths {', '.join(leg.call_paths)}" if leg.call_paths else "")
        + f" ({'clean runs from ' + leg.clean_results.name if leg.clean_results else 'with clean runs'})",
        flush=True,
    )
    subprocess.run(command, cwd=ROOT)  # its progress shows; its failures are the proof's data
    if not rows_path.exists():
        print("fault proof: the proof's pytest session did not run")
        return None
    return json.loads(rows_path.read_text(encoding="utf-8"))


def one_per_section(faults: list[Fault]) -> list[Fault]:
    """The first fault of each section of the spec on each call path, in catalog order."""
    first: dict[tuple[str, str, str], Fault] = {}
    for fault in faults:
        rule = BY_ID[fault.rule]
        first.setdefault((rule.source, rule.section, fault.path), fault)
    return list(first.values())


def unobserved(faults: list[Fault], verdicts: list[Verdict]) -> list[Fault]:
    """The faults no verdict so far observed (caught, missed or too broad) on any configuration."""
    seen = {v.fault.name for v in verdicts if v.status != "not-observable"}
    return [f for f in faults if f.name not in seen]


def run_proof(legs: list[Leg], workers: int, only: list[str] | None = None, out: Path | None = None) -> int:
    """Runs the legs in order and judges every fault on every browser of each. A fault must be
    caught wherever it is observable, and somewhere."""
    chosen = [f for f in provable() if not only or f.name in only]
    verdicts: list[tuple[Leg, Verdict]] = []
    all_rows: list[dict] = []
    # The sentinel shows a fault reaches no other rule: once per fault, in the first leg that runs it.
    sentinel_run: set[str] = set()
    # Where every leg takes a sample, the faults left out may be the ones that catch a scenario.
    sampled = all(leg.one_per_section for leg in legs)
    ok = True
    with tempfile.TemporaryDirectory(prefix="harness-faults-") as tmp:
        for number, leg in enumerate(legs, 1):
            faults = [f for f in chosen if not leg.call_paths or f.path in leg.call_paths]
            if leg.rest_only:
                faults = unobserved(faults, [v for _, v in verdicts])
            if leg.one_per_section:
                faults = one_per_section(faults)
            if not faults:
                continue
            name = "fault-proof" + ("-latitudes" if leg.latitudes else "") + (f"-{number}" if len(legs) > 1 else "")
            sentinels = [f for f in faults if f.name not in sentinel_run]
            sentinel_run |= {f.name for f in sentinels}
            rows = _run_leg(
                leg, faults, sentinels, workers, (out or Path(tmp)) / f"{name}.json", Path(tmp) / "artifacts"
            )
            if rows is None:
                ok = False
                continue
            all_rows += rows
            source = (
                json.loads(leg.clean_results.read_text(encoding="utf-8"))
                if leg.clean_results
                else [r for r in rows if r["fault"] is None]
            )
            clean = {_key(r): r["outcome"] for r in source}
            by_fault: dict[tuple[str, str], list[dict]] = defaultdict(list)
            for r in rows:
                if r["fault"]:
                    by_fault[(r["fault"], r["browser"])].append(r)
            mine = [judge(f, b, by_fault[(f.name, b)], clean) for f in faults for b in leg.browsers]
            for v in mine:
                label = {
                    "caught": "caught  ",
                    "not-observable": "n/a     ",
                    "missed": "MISSED  ",
                    "too-broad": "TOO BROAD",
                }[v.status]
                print(f"{label} {v.fault.name} ({v.fault.rule}) on {leg.where(v.browser)}: {v.detail}", flush=True)
            for browser in leg.browsers:
                here = [v for v in mine if v.browser == browser]
                caught = sum(v.status == "caught" for v in here)
                observable = sum(v.status != "not-observable" for v in here)
                print(
                    f"faults caught: {caught}/{observable} on {leg.where(browser)}"
                    + (f" ({len(here) - observable} not observable there)" if observable < len(here) else ""),
                    flush=True,
                )
                ok &= caught == observable
            verdicts += [(leg, v) for v in mine]
    # Scenario functions that caught no fault anywhere: nothing shows they can fail (a sample
    # leaves that to the whole catalog's proof).
    rule_of = {f.name: f.rule for f in chosen}
    catching = {r["scenario"] for r in all_rows if r["fault"] and rule_of[r["fault"]] in broken_rules(r)}
    targeted = {r["scenario"] for r in all_rows if r["fault"] and r["scenario"] != SENTINEL}
    for scenario in sorted(targeted - catching) if not sampled else []:
        if scenario in BEYOND_THE_PAGE:
            print(f"not provable by a fault: {scenario}: {BEYOND_THE_PAGE[scenario]}", flush=True)
            continue
        print(f"unproven {scenario}: no fault of its rules made one of its checks fail", flush=True)
        # With a chosen few faults, another fault may be the one that catches it.
        ok &= bool(only)
    never = [
        f.name for f in chosen if not sampled and not any(v.fault == f and v.status == "caught" for _, v in verdicts)
    ]
    if never:
        print(f"fault proof: caught on no configuration: {', '.join(never)}")
    return 0 if ok and not never else 1


def list_catalog(pytest_args: list[str]) -> int:
    by_rule = scenarios_by_rule(pytest_args)
    for fault in catalog():
        if fault.hangs:
            print(f"{fault.name}  [{fault.tool}, {fault.path}]\n  {fault.breaks}\n  not proven: {fault.hangs}")
            continue
        scenarios = sorted({node.split("[")[0] for node in by_rule.get(fault.rule, [])})
        print(
            f"{fault.name}  [{fault.tool}, {fault.path}]\n  breaks {fault.rule}: {fault.breaks}\n"
            f"  caught by: {', '.join(scenarios) or 'NO SCENARIO'}"
        )
    return 0


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
    import os

    collector = _Collector()
    with open(os.devnull, "w") as devnull:
        stdout, sys.stdout = sys.stdout, devnull
        try:
            code = pytest.main(
                ["--collect-only", "-q", "-p", "no:cacheprovider", *pytest_args, "scenarios"], plugins=[collector]
            )
        finally:
            sys.stdout = stdout
    if code not in (0, 5):
        raise RuntimeError(f"collecting the scenarios failed (pytest exit {code})")
    return collector.by_rule
