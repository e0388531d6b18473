"""What changed between two runs' reports: each cell of Table 2 (a rule in one environment) whose
verdict moved, as a person looks for it after a push.

`report --compare OLD NEW` and `verify --compare OLD` write NEW/changes.json, show the changes at
the top of NEW/index.html and exit 1 when a cell is newly 不合格 (a CI step can fail on that alone).
A cell of OLD that NEW lacks (a rule, a browser or a call path not run this time) is "gone".
Where GITHUB_STEP_SUMMARY names a file, the summary and the changes are appended to it in Markdown.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from harness import html_report, report
from harness.report import BROKEN, UNVERIFIED, VERIFIED
from harness.rules import RULES

CHANGES = "changes.json"
NEWLY_BROKEN, FIXED, NEWLY_UNVERIFIED, NEWLY_VERIFIED, GONE = (
    "newly-broken",
    "fixed",
    "newly-unverified",
    "newly-verified",
    "gone",
)
LABELS = {
    NEWLY_BROKEN: "新たに不合格",
    FIXED: "直った",
    NEWLY_UNVERIFIED: "新たに未確認",
    NEWLY_VERIFIED: "新たに確認済み",
    GONE: "なくなった",
}


def read_run(folder: Path) -> tuple[list[dict], dict]:
    """(results.json, run.json) of a verify or merge folder; ValueError in one line where it is none."""
    missing = [name for name in ("run.json", "results.json") if not (folder / name).is_file()]
    if missing:
        raise ValueError(f"{folder} is not a verify folder (no {', '.join(missing)})")
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    return results, json.loads((folder / "run.json").read_text(encoding="utf-8"))


def cells(results: list[dict], run: dict) -> dict[tuple[str, str, str], str]:
    """Every cell of Table 2: (rule, browser, call path) → its verdict."""
    unavailable = {s["name"]: s["detail"] for s in run["statuses"] if not s["available"]}
    return {
        (rule.id, browser, path): report.rule_cell(rule.id, browser, path, results, unavailable).verdict
        for rule in RULES
        for browser, path in report.environments(run)
    }


def kind_of(old: str | None, new: str | None) -> str | None:
    if new is None:
        return GONE
    if new == BROKEN and old != BROKEN:
        return NEWLY_BROKEN
    if new == UNVERIFIED and old in (VERIFIED, BROKEN):  # a broken cell no longer seen is not fixed
        return NEWLY_UNVERIFIED
    if old == BROKEN:
        return FIXED
    if new == VERIFIED and old in (UNVERIFIED, None):
        return NEWLY_VERIFIED
    return None


def changes(old: dict[tuple[str, str, str], str], new: dict[tuple[str, str, str], str]) -> list[dict]:
    found = []
    for key in [*new, *(key for key in old if key not in new)]:
        kind = kind_of(old.get(key), new.get(key))
        if kind:
            rule, browser, path = key
            found.append(
                {
                    "kind": kind,
                    "label": LABELS[kind],
                    "rule": rule,
                    "browser": browser,
                    "path": path,
                    "old": old.get(key),
                    "new": new.get(key),
                }
            )
    return sorted(found, key=lambda change: list(LABELS).index(change["kind"]))


def markdown(found: list[dict]) -> str:
    if not found:
        return "### 前の実行からの変化\n\nありません。\n"
    lines = ["### 前の実行からの変化", "", "| 変化 | 規則 | 環境 | 前 | 今 |", "|---|---|---|---|---|"]
    words = report.TEXT["ja"]
    lines += [
        f"| {c['label']} | `{c['rule']}` | {c['browser']} · {c['path']} | "
        f"{words[c['old']] if c['old'] else '—'} | {words[c['new']] if c['new'] else '—'} |"
        for c in found
    ]
    return "\n".join(lines) + "\n"


def compare(old_folder: Path, new_folder: Path) -> list[dict]:
    """Compare, write NEW/changes.json and NEW/index.html with the changes on top; the changes."""
    old_results, old_run = read_run(old_folder)
    new_results, new_run = read_run(new_folder)
    found = changes(cells(old_results, old_run), cells(new_results, new_run))
    (new_folder / CHANGES).write_text(
        json.dumps({"compared_with": str(old_folder), "changes": found}, ensure_ascii=False, indent=1),
        encoding="utf-8",
    )
    html_report.write(new_folder, new_results, new_run, found)
    return found


def print_changes(found: list[dict], command: str) -> None:
    for c in found:
        print(f"{command}: {c['kind']}: {c['rule']} [{c['browser']} · {c['path']}]: {c['old']} → {c['new']}")
    newly_broken = sum(c["kind"] == NEWLY_BROKEN for c in found)
    print(f"{command}: {len(found)} cells changed, {newly_broken} newly 不合格", flush=True)


def step_summary(results: list[dict], run: dict, found: list[dict] | None) -> None:
    """Append the summary (and the changes) to GitHub's job summary, where the variable is set."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    with open(target, "a", encoding="utf-8") as summary:
        summary.write(report.summary_markdown(results, run))
        if found is not None:
            summary.write("\n" + markdown(found))
