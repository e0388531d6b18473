"""The baseline: checks known to fail with the parts used here, each with its reason.

An entry names one check — a scenario, the rule it checks and, where the scenario checks
several things of one rule, the subject (an operation's name) — and a pattern the failure's
message must match. A matching failure is a known difference: the check is recorded as
expected and the scenario goes on. Any other failure of that check still fails the run, and so
does the check passing (the entry is stale).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from harness import versions

BASELINE = Path(__file__).with_name("baseline.toml")
CONDITIONS = ("relay", "polyfill", "browser", "call_path", "tool")
KEYS = {"scenario", "rule", "subject", "message", "reason", *CONDITIONS}


@dataclass(frozen=True)
class Expected:
    scenario: str
    rule: str
    message: str  # a regular expression the failure's message must contain a match of
    reason: str
    subject: str | None = None
    conditions: dict[str, object] = field(default_factory=dict)

    def applies(self, scenario: str, params: dict[str, object], parts: dict[str, str | None]) -> bool:
        """The entry is about this scenario run: same scenario, every condition holds."""
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

    def matches(self, rule: str, subject: str | None, message: str | None) -> bool:
        """The entry is about this check; with a message, that failure is the expected one."""
        if rule != self.rule or (self.subject is not None and subject != self.subject):
            return False
        return message is None or re.search(self.message, message) is not None


def load(path: Path = BASELINE) -> list[Expected]:
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("expected", [])
    expected = []
    for number, entry in enumerate(entries, 1):
        unknown = set(entry) - KEYS
        missing = {"scenario", "rule", "message", "reason"} - set(entry)
        if unknown or missing or not entry.get("reason"):
            raise ValueError(
                f"{path}: [[expected]] #{number} needs scenario, rule, message and reason"
                f"{f'; unknown keys {sorted(unknown)}' if unknown else ''}"
                f"{f'; missing {sorted(missing)}' if missing else ''}"
            )
        try:
            re.compile(entry["message"])
        except re.error as error:
            raise ValueError(f"{path}: [[expected]] #{number}: message is not a regular expression: {error}") from None
        expected.append(
            Expected(
                entry["scenario"],
                entry["rule"],
                entry["message"],
                entry["reason"],
                entry.get("subject"),
                {k: entry[k] for k in CONDITIONS if k in entry},
            )
        )
    return expected


def installed_parts() -> dict[str, str | None]:
    return {"relay": versions.npm(versions.RELAY), "polyfill": versions.npm(versions.POLYFILL)}


def for_scenario(scenario: str, params: dict[str, object], entries: list[Expected], parts: dict[str, str | None]):
    """The matcher a running scenario's checks consult: (rule, subject, message) -> entry or None."""
    mine = [entry for entry in entries if entry.applies(scenario, params, parts)]

    def match(rule: str, subject: str | None, message: str | None) -> Expected | None:
        return next((entry for entry in mine if entry.matches(rule, subject, message)), None)

    return match
