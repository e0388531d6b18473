"""Checks: the assertions that decide whether a rule holds.

A scenario's body is steps (open a page, turn the switch on, call an operation) and checks.
Only a failing check is a broken rule:

    with check("confirm.which"):
        expect(tool_page.dialog.root).to_be_visible()

An assertion or a Playwright timeout inside the block becomes `RuleBroken` naming the rule;
the same outside any check is a precondition that did not hold or a harness error, which the
report shows as 未確認 (not observed), never as a broken rule. A check names one of the rules
its scenario declares in `@pytest.mark.rules`, and may name a subject (an operation, a field)
so that a baseline entry can expect exactly that check to fail with exactly that message.

Checks that observe one state independently of one another (the parts of one dialog) can go
on past a failure: inside `each_on_its_own()` a failing check is recorded and the next one still
runs; the first broken rule ends the block.

`finding(name, value)` records an observation for the report (which implementation received
the registration, which origins a page contacted, …).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

# Kinds of finding the report reads (results.json's `findings`).
REGISTRATION_RECEIVER = "registration-receiver"
RELAY_DROPPED_ANNOTATIONS = "relay-dropped-annotations"
CONTACTED = "contacted"
OPERATIONS_CALLED = "operations-called"
WALL_SECONDS_FOR_50_SECONDS = "wall-seconds-for-50-seconds"
FINDINGS = (REGISTRATION_RECEIVER, RELAY_DROPPED_ANNOTATIONS, CONTACTED, OPERATIONS_CALLED, WALL_SECONDS_FOR_50_SECONDS)


class RuleBroken(AssertionError):
    """A check of `rule` failed: the target does not do what the rule says."""

    def __init__(self, rule: str, message: str, subject: str | None = None):
        self.rule, self.subject, self.message = rule, subject, message
        where = f"{rule} ({subject})" if subject else rule
        super().__init__(f"rule {where} is broken: {message}")


class HarnessError(RuntimeError):
    """The harness could not do what a scenario asked (no such operation registered, a call that
    never settled, a relay that never listed the tab, a page that never settled): never a broken
    rule, wherever it happens. Carries the page console (and the relay's stderr)."""


class HarnessDefect(Exception):
    """The scenario itself is wrong (a check of a rule it does not declare, an unknown finding)."""


@dataclass
class CheckRecord:
    rule: str
    subject: str | None
    outcome: str  # passed | failed | expected (a baseline entry matched) | stale (expected to fail, passed)
    message: str = ""
    reason: str = ""  # the baseline's reason, for expected and stale


@dataclass
class Observed:
    """What one running scenario's checks and findings recorded."""

    scenario: str
    params: dict[str, Any]
    declared: tuple[str, ...]
    baseline: Any = None  # a callable (rule, subject, message | None) -> entry | None
    # The target profile's keys it may read (@pytest.mark.profile); None where nothing is declared (the unit tests).
    profile_keys: tuple[str, ...] | None = None
    checks: list[CheckRecord] = field(default_factory=list)
    findings: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, str] = field(default_factory=dict)  # rule → its picture's file (picture())
    picture_seconds: float = 0.0  # what taking them cost (bench/speed.py: the evidence's share of a main job)

    def as_dict(self) -> dict:
        return {
            "checks": [asdict(c) for c in self.checks],
            "findings": self.findings,
            "evidence": self.evidence,
            "picture_seconds": round(self.picture_seconds, 3),
        }


_current: Observed | None = None
_going_on: list[RuleBroken] | None = None  # inside each_on_its_own(): the rules found broken so far


def begin(observed: Observed | None) -> None:
    """Called by the pytest plugin around each scenario."""
    global _current
    _current = observed


def current() -> Observed | None:
    return _current


def _short(error: BaseException) -> str:
    text = str(error).strip()
    # Playwright's assertion messages carry a call log; its first lines say what was expected.
    text = re.split(r"\n\s*Call log:", text)[0]
    return text[:2000]


@contextmanager
def check(rule: str, subject: str | None = None) -> Iterator[None]:
    observed = _current
    if observed is not None and rule not in observed.declared:
        raise HarnessDefect(
            f"{observed.scenario} checks {rule!r} but declares only {list(observed.declared)} in @pytest.mark.rules"
        )
    try:
        yield
    except RuleBroken:
        raise  # a check within (or a result that is no JSON) already names its rule
    except (AssertionError, PlaywrightTimeoutError) as error:
        message = _short(error)
        entry = observed.baseline(rule, subject, message) if observed and observed.baseline else None
        if observed is not None and entry is not None:
            observed.checks.append(CheckRecord(rule, subject, "expected", message, entry.reason))
            return  # a known difference with the parts used here: the scenario goes on
        if observed is not None:
            observed.checks.append(CheckRecord(rule, subject, "failed", message))
        broken = RuleBroken(rule, message, subject)
        if _going_on is None:
            raise broken from error
        _going_on.append(broken)
    else:
        if observed is None:
            return
        entry = observed.baseline(rule, subject, None) if observed.baseline else None
        if entry is not None:
            observed.checks.append(CheckRecord(rule, subject, "stale", "", entry.reason))
        else:
            observed.checks.append(CheckRecord(rule, subject, "passed"))


@contextmanager
def each_on_its_own() -> Iterator[None]:
    """The checks within go on past a failing one (each is recorded); the first broken rule is
    raised when the block ends, also when a later step stops it."""
    global _going_on
    outer, _going_on = _going_on, []
    noted = _going_on
    try:
        yield
    except Exception as error:
        if noted and not isinstance(error, RuleBroken):
            raise noted[0] from error
        raise
    finally:
        _going_on = outer
    if noted:
        raise noted[0]


def reads_profile(key: str) -> None:
    """A scenario reads the profile's `key` (harness/targets.py): it must say so in
    @pytest.mark.profile, which `python -m harness doctor` reads to tell what a profile leaves 未確認."""
    observed = _current
    if observed is not None and observed.profile_keys is not None and key not in observed.profile_keys:
        raise HarnessDefect(
            f"{observed.scenario} reads the profile's {key!r} but declares only "
            f"{list(observed.profile_keys)} in @pytest.mark.profile"
        )


def held(rule: str) -> None:
    """Record that `rule` held where the harness checks it in passing (every result that parses
    as JSON holds result.json-string), once per scenario run that declares it."""
    observed = _current
    if observed is not None and rule in observed.declared and not any(c.rule == rule for c in observed.checks):
        observed.checks.append(CheckRecord(rule, None, "passed"))


# Where pictures of passing checks go (`--evidence DIR`, which `python -m harness verify` passes).
evidence_folder: Path | None = None


def evidence_name(rule: str, browser: str, what: str = "") -> str:
    """The file of the picture of `rule` on a browser configuration (and of `what`, where the rule
    has several: one per confirming operation)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", "--".join(filter(None, (rule, browser, what)))) + ".jpg"


def _wanted_picture(rule: str, what: str) -> tuple[Observed, Path] | None:
    """Where the picture of `rule` (and `what`) goes, unless none is wanted: no --evidence, no
    running scenario, or one taken already on this browser configuration."""
    observed = _current
    if evidence_folder is None or observed is None or observed.params.get("browser_name") is None:
        return None
    path = evidence_folder / evidence_name(rule, observed.params["browser_name"], what)
    return None if path.exists() else (observed, path)


def spent_on_pictures(seconds: float) -> None:
    """Time the running scenario spent on its pictures besides `picture` (a screencast's start and stop)."""
    if _current is not None:
        _current.picture_seconds += seconds


def picture_painted(rule: str, jpeg: bytes | None, what: str = "") -> None:
    """A frame the page painted (harness/screencast.py), as the picture of `rule`: for a state too
    short-lived for `picture`, which waits for its element to be there and still."""
    wanted = _wanted_picture(rule, what)
    if wanted is None or jpeg is None:
        return
    observed, path = wanted
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(jpeg)
    observed.evidence[rule] = path.name


def picture(rule: str, *parts: Any, what: str = "") -> None:
    """A picture of the elements (Playwright locators of one page) a check of `rule` looked at, as
    they looked then: the first passing run of the rule on a browser configuration takes it, and the
    report links the rule's cells to it. A picture is a courtesy: one that cannot be taken is none,
    never a failure."""
    wanted = _wanted_picture(rule, what)
    if wanted is None:
        return
    observed, path = wanted
    options = {"path": path, "type": "jpeg", "quality": 70, "caret": "initial", "timeout": 3_000}
    started = time.monotonic()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if len(parts) == 1:
            parts[0].screenshot(**options)
        else:  # the smallest rectangle that holds them all
            boxes = [box for part in parts if (box := part.bounding_box(timeout=3_000))]
            left, top = min(b["x"] for b in boxes), min(b["y"] for b in boxes)
            clip = {
                "x": left,
                "y": top,
                "width": max(b["x"] + b["width"] for b in boxes) - left,
                "height": max(b["y"] + b["height"] for b in boxes) - top,
            }
            parts[0].page.screenshot(clip=clip, full_page=True, **options)
    except Exception:
        return
    finally:
        observed.picture_seconds += time.monotonic() - started
    observed.evidence[rule] = path.name


def finding(kind: str, value: Any) -> None:
    if kind not in FINDINGS:
        raise HarnessDefect(f"unknown finding {kind!r}; known: {FINDINGS}")
    if _current is not None:
        _current.findings[kind] = value
