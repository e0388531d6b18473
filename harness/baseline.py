"""The baseline: scenarios known to fail with the parts used here, each with its reason.

Matching scenarios are marked strict-xfail, so a run fails on a new failure and also on an
expected failure that now passes (the entry is stale).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from harness import versions

BASELINE = Path(__file__).with_name("baseline.toml")
CONDITIONS = ("relay", "polyfill", "browser", "call_path", "tool")


@dataclass(frozen=True)
class Expected:
    scenario: str
    reason: str
    conditions: dict[str, object] = field(default_factory=dict)

    def matches(self, scenario: str, params: dict[str, object], parts: dict[str, str | None]) -> bool:
        if scenario != self.scenario:
            return False
        for key, wanted in self.conditions.items():
            if key in ("relay", "polyfill"):
                if parts.get(key) != wanted:
                    return False
            else:
                actual = params.get("browser_name" if key == "browser" else key)
                if actual not in (wanted if isinstance(wanted, list) else [wanted]):
                    return False
        return True


def load(path: Path = BASELINE) -> list[Expected]:
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("expected", [])
    expected = []
    for entry in entries:
        unknown = set(entry) - {"scenario", "reason", *CONDITIONS}
        if unknown or "scenario" not in entry or not entry.get("reason"):
            raise ValueError(f"{path}: each [[expected]] needs scenario and reason; unknown keys {sorted(unknown)}")
        expected.append(Expected(entry["scenario"], entry["reason"], {k: entry[k] for k in CONDITIONS if k in entry}))
    return expected


def installed_parts() -> dict[str, str | None]:
    return {"relay": versions.npm(versions.RELAY), "polyfill": versions.npm(versions.POLYFILL)}


def reason_for(scenario: str, params: dict[str, object], entries: list[Expected], parts: dict[str, str | None]) -> str | None:
    for entry in entries:
        if entry.matches(scenario, params, parts):
            return entry.reason
    return None
