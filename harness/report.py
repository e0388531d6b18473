"""The Verification tables, in the ADRs' form (ADR-0044's Verification section is the model).

Three outcomes, never two: a rule is 確認済み in an environment (a browser configuration × a
call path) only when a scenario run there passed a check of it; 不合格 when a check of it
failed; otherwise 未確認, with the reason (skipped, the harness could not observe it, not run).
A known difference of the baseline is 既知の違い. Each cell is derived from results.json alone,
and `check_report` re-derives every cell from it.
"""

from __future__ import annotations

import json
import os
import platform
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import checks, contract, tools, versions
from harness.browsers import CONFIGS
from harness.drivers import CALL_PATHS, DRIVERS
from harness.rules import BY_ID, RULES

VERIFIED, BROKEN, UNVERIFIED, KNOWN, NOT_APPLICABLE = "verified", "broken", "unverified", "known", "n/a"

TEXT: dict[str, dict[str, Any]] = {
    "ja": {
        "title": "## Verification",
        "env": "端末は {machine}、配信は {target} である。",
        "reference": "http://localhost(ハーネスが配る参照のプレイグラウンド)",
        "browsers": "ブラウザは、{browsers} で、どれも headless である。",
        "flag": "{flagged} は、フラグ enable-webmcp-testing を有効にした。",
        "versions": "バージョンは、{parts} である。",
        "duration": "実行にかかった時間は {minutes} 分である。",
        "summary_env": "環境",
        "head1": "| 呼び方 | 確認した環境 | 結果 |",
        "head2": "| 節 | 規則 | {envs} |",
        VERIFIED: "確認済み",
        BROKEN: "不合格",
        UNVERIFIED: "未確認",
        KNOWN: "既知の違い",
        NOT_APPLICABLE: "—",
        "agent_path": "実物の AI のエージェント",
        "all": "{n} 個の全てを呼べた",
        "some": "{n} 個を呼べた",
        "failed_on": "不合格: {what}",
        "unverified_on": "未確認: {what}",
        "none_env": "無い",
        "not_selected": "未確認(この実行では --call-path {path} を選んでいない)",
        "agent": "未確認",
        "absent_ops": "{ops} の {n} 個の操作は、配信に無いので未確認である。",
        "not_run_ops": "{ops} の {n} 個の操作は、この実行で呼んでいないので未確認である。",
        "legend": "確認済み: その環境で、規則を確かめる検査が通った。不合格: 検査が通らなかった。"
        "未確認: その環境では観測できなかった(注の理由)。既知の違い: 使った部品の版による、ベースラインにある違い。"
        "—: その呼び方では走らせない規則。",
        "h_notes": "### 注",
        "h_findings": "### 見つかったこと",
        "h_broken": "### 守られていない規則",
        "h_errors": "### ハーネスのエラー(規則の違反ではない。未確認として扱った)",
        "h_skipped": "### スキップ(未確認)",
        "h_known": "### 既知の違い(ベースライン)",
        "h_stale": "### もう起きない既知の違い(ベースラインの古い項目)",
        "h_flaky": "### 不安定(1 回目はハーネスのエラーで止まり、2 回目に走った)",
        "receiver": "{config} で、フラグと polyfill の両方がある状態で、登録を受けたのは {who} だった。",
        "browser_holds": "{config} で、フラグと polyfill の両方がある状態で、ブラウザの実装だけを見る呼び方({path})が"
        "{tools} の操作を一覧にして呼べた。登録はブラウザの実装に届いている。",
        "dropped": "relay を通すと、次の注釈が MCP のクライアントに届かなかった: {dropped}",
        "network": "{tool} のページが通信した先は、{hosts} だった。",
        "network_extra": "{tool} のページは、ページの origin と 127.0.0.1 のほかに、{hosts} と通信した。",
        "row": "{rule}`{nodeid}`: {message}(記録: `{artifacts}`)",
        "skip_line": "{count} 件: {reason}",
        "section_all_skipped": "節「{section}」は、この実行では全ての行がスキップされた。",
        "not_run": "この実行で走らせていない",
        "stopped_before": "同じ行のほかの規則の検査で止まった",
        "none": "無い",
    },
    "en": {
        "title": "## Verification",
        "env": "Machine: {machine}; served from {target}.",
        "reference": "http://localhost (the harness's reference playground)",
        "browsers": "Browsers: {browsers}, all headless.",
        "flag": "{flagged} ran with the enable-webmcp-testing flag.",
        "versions": "Versions: {parts}.",
        "duration": "The run took {minutes} minutes.",
        "summary_env": "Environment",
        "head1": "| Call path | Environments | Result |",
        "head2": "| Section | Rule | {envs} |",
        VERIFIED: "verified",
        BROKEN: "broken",
        UNVERIFIED: "not verified",
        KNOWN: "known difference",
        NOT_APPLICABLE: "—",
        "agent_path": "A real AI agent",
        "all": "all {n} operations called",
        "some": "{n} operations called",
        "failed_on": "broken: {what}",
        "unverified_on": "not verified: {what}",
        "none_env": "none",
        "not_selected": "not verified (--call-path {path} was not selected in this run)",
        "agent": "not verified",
        "absent_ops": "The {n} operations of {ops} are not served by this target: not verified.",
        "not_run_ops": "The {n} operations of {ops} were not called in this run: not verified.",
        "legend": "verified: a check of the rule passed in that environment. broken: a check failed. "
        "not verified: not observable there (see the note). known difference: in the baseline, "
        "due to the versions of the parts used. —: the rule is not run on that call path.",
        "h_notes": "### Notes",
        "h_findings": "### Findings",
        "h_broken": "### Broken rules",
        "h_errors": "### Harness errors (not rule violations; counted as not verified)",
        "h_skipped": "### Skipped (not verified)",
        "h_known": "### Known differences (baseline)",
        "h_stale": "### Known differences that no longer occur (stale baseline entries)",
        "h_flaky": "### Flaky (the first attempt stopped on a harness error; a second one ran)",
        "receiver": "On {config}, with both the flag and the polyfill, the registration reached: {who}.",
        "browser_holds": "On {config}, with both the flag and the polyfill, a call path that sees only the browser's "
        "implementation ({path}) listed and called the operations of {tools}: the registration reached it.",
        "dropped": "Through the relay, these annotations did not reach the MCP client: {dropped}",
        "network": "The {tool} page contacted {hosts}.",
        "network_extra": "The {tool} page contacted, beyond its origin and 127.0.0.1: {hosts}.",
        "row": "{rule}`{nodeid}`: {message} (artifacts: `{artifacts}`)",
        "skip_line": "{count}: {reason}",
        "section_all_skipped": 'Section "{section}": every row was skipped in this run.',
        "not_run": "not run in this run",
        "stopped_before": "the row stopped at another rule's check",
        "none": "none",
    },
}


@dataclass(frozen=True)
class Cell:
    verdict: str
    reasons: tuple[str, ...] = ()


def env_label(browser: str, path: str) -> str:
    return f"{browser} · {path}"


def _applies(row: dict, browser: str, path: str) -> bool:
    """A row speaks for an environment: same browser, and its call path or none (a page-level rule)."""
    return row["browser"] == browser and row["call_path"] in (path, None)


def row_verdict(row: dict, rule: str) -> tuple[str, str]:
    """What one scenario run says of one rule: (verdict, reason)."""
    outcome = row["outcome"]
    mine = [c for c in row["checks"] if c["rule"] == rule]
    if outcome == "skipped":
        return UNVERIFIED, row["message"]
    if outcome == "error":
        return UNVERIFIED, row["message"]
    if outcome == "failed" and row["broken"] == rule:
        return BROKEN, row["message"]
    if any(c["outcome"] == "failed" for c in mine):
        return BROKEN, next(c["message"] for c in mine if c["outcome"] == "failed")
    if any(c["outcome"] in ("passed", "stale") for c in mine) and not any(c["outcome"] == "expected" for c in mine):
        return VERIFIED, ""
    if any(c["outcome"] == "expected" for c in mine):
        return KNOWN, next(c["reason"] for c in mine if c["outcome"] == "expected")
    if outcome == "failed":
        return UNVERIFIED, f"stopped-before:{row['broken']}"
    return UNVERIFIED, "no-check"


def _about(row: dict, rule: str) -> bool:
    return rule in row["rules"] or any(c["rule"] == rule for c in row["checks"])


def rule_cell(rule: str, browser: str, path: str, rows: list[dict], unavailable: dict[str, str]) -> Cell:
    if browser in unavailable:
        return Cell(UNVERIFIED, (unavailable[browser],))
    # A row that passed without checking the rule (it checks it only for another tool or call
    # path) says nothing of it.
    mine = [r for r in rows if _about(r, rule) and row_verdict(r, rule) != (UNVERIFIED, "no-check")]
    here = [r for r in mine if _applies(r, browser, path)]
    if not here:
        if any(r["browser"] == browser for r in mine):
            return Cell(NOT_APPLICABLE)
        return Cell(UNVERIFIED, ("not-run",))
    verdicts = [row_verdict(r, rule) for r in here]
    for wanted in (BROKEN, VERIFIED, KNOWN):
        found = [reason for verdict, reason in verdicts if verdict == wanted]
        if found:
            return Cell(wanted, tuple(dict.fromkeys(found)) if wanted != VERIFIED else ())
    return Cell(UNVERIFIED, tuple(dict.fromkeys(reason for _, reason in verdicts)))


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        system = platform.freedesktop_os_release()["PRETTY_NAME"]
    except (OSError, KeyError):
        system = platform.system()
    return f"{platform.node()}: {system}, {platform.system()} {platform.release()} ({cpu}, {os.cpu_count()} cores)"


def _join(items, lang):
    items = list(items)
    return ("、" if lang == "ja" else ", ").join(items) if items else TEXT[lang]["none"]


def _reason_text(reason: str, lang: str) -> str:
    t = TEXT[lang]
    if reason == "not-run":
        return t["not_run"]
    if reason.startswith("stopped-before:"):
        return f"{t['stopped_before']}({reason.split(':', 1)[1]})"
    return reason


def pictures_of(results: list[dict]) -> dict[tuple[str, str], str]:
    """(rule, browser configuration) → the picture a passing run of the rule took there (evidence/)."""
    found: dict[tuple[str, str], str] = {}
    for row in results:
        for rule, name in (row.get("evidence") or {}).items():
            if row_verdict(row, rule)[0] == VERIFIED:
                found.setdefault((rule, row["browser"]), name)
    return found


def failed_run(rule: str, browser: str, path: str, results: list[dict]) -> dict | None:
    """The first run whose check of `rule` failed in that environment (its artifacts)."""
    return next(
        (r for r in results if _applies(r, browser, path) and _about(r, rule) and row_verdict(r, rule)[0] == BROKEN),
        None,
    )


def _linked(text: str, target: str | None) -> str:
    return f"[{text}]({target})" if target else text


def _cell_text(cell: Cell, notes: dict[str, int], lang: str, link: str | None = None) -> str:
    text = _linked(TEXT[lang][cell.verdict], link)
    if cell.verdict in (UNVERIFIED, KNOWN) and cell.reasons:
        refs = []
        for reason in cell.reasons:
            note = _reason_text(reason, lang)[:300].replace("|", "\\|").replace("\n", " ")
            refs.append(notes.setdefault(note, len(notes) + 1))
        text += " " + "".join(f"[{n}]" for n in sorted(set(refs)))
    return text


def _calls_row(
    path: str,
    rows: list[dict],
    browsers: list[str],
    unavailable: dict[str, str],
    served_ops: int,
    detail: dict[str, str],
    lang: str,
) -> str:
    t = TEXT[lang]
    calls = [r for r in rows if r.get("calls_row") and r["call_path"] == path]
    passed_on, failed, unverified = [], [], []
    answered: set[str] = set()
    for browser in (b for b in browsers if DRIVERS[path].supports(CONFIGS[b])):
        mine = [r for r in calls if r["browser"] == browser]
        if browser in unavailable or not mine:
            unverified.append(browser)
            continue
        for r in mine:
            answered |= {op for op, code in (r["findings"].get(checks.OPERATIONS_CALLED) or {}).items() if code == "ok"}
        if any(r["outcome"] == "failed" for r in mine):
            failed += [f"{browser} {r['tool']}: {r['message'][:160]}" for r in mine if r["outcome"] == "failed"]
        elif all(r["outcome"] == "passed" for r in mine):
            passed_on.append(browser)
        else:
            unverified.append(browser)
    envs = _join(
        (detail.get(b, b) + (" + flag" if CONFIGS[b].webmcp_flag else "") + f" [{b}]" for b in passed_on), lang
    )
    if not passed_on:
        envs = t["none_env"]
    parts = []
    if passed_on:
        parts.append((t["all"] if len(answered) == served_ops else t["some"]).format(n=len(answered)))
    if failed:
        parts.append(t["failed_on"].format(what=_join(failed, lang)))
    if unverified:
        parts.append(t["unverified_on"].format(what=_join(unverified, lang)))
    result = ("。" if lang == "ja" else "; ").join(parts) or t[UNVERIFIED]
    return f"| {DRIVERS[path].labels[lang]} | {envs} | {result.replace('|', '/')} |"


def describe_run(statuses, args, ai_tools: tuple[str, ...] = tools.NAMES) -> dict:
    """What a run was (run.json beside results.json): the machine, the target and the tools whose
    operations it serves, the call paths, and each browser configuration with its version or why
    it could not run."""
    return {
        "machine": _machine(),
        "target": args.target,
        "ai_tools": list(ai_tools),
        "call_paths": list(args.call_path or CALL_PATHS),
        "parts": {k: v for k, v in versions.parts().items() if v},
        "statuses": [{"name": s.name, "available": s.available, "detail": s.detail} for s in statuses],
    }


def merge_runs(runs: list[dict]) -> dict:
    """One description for runs made on several machines or with several browser sets: a browser
    configuration that ran anywhere ran; each one is named with the machine it ran on."""
    machines = list(dict.fromkeys(run["machine"] for run in runs))
    statuses: dict[str, dict] = {}
    for run in runs:
        for status in run["statuses"]:
            detail = status["detail"] + (f" on {run['machine']}" if len(machines) > 1 and status["available"] else "")
            known = statuses.get(status["name"])
            if known is None or (status["available"] and not known["available"]):
                statuses[status["name"]] = {**status, "detail": detail}
            elif status["available"] and known["available"] and detail not in known["detail"]:
                known["detail"] += f"; {detail}"
    order = list(CONFIGS)
    return {
        "machine": "; ".join(machines),
        "target": "; ".join(dict.fromkeys(run["target"] for run in runs)),
        "ai_tools": [tool for tool in tools.NAMES if any(tool in run["ai_tools"] for run in runs)],
        "call_paths": [p for p in CALL_PATHS if any(p in run["call_paths"] for run in runs)],
        "parts": {k: v for run in runs for k, v in run["parts"].items()},
        # Runs on several machines run side by side: the merged run took as long as the longest.
        "seconds": max((run.get("seconds") or 0 for run in runs), default=0) or None,
        "statuses": sorted(
            statuses.values(), key=lambda st: order.index(st["name"]) if st["name"] in order else len(order)
        ),
    }


def environments(run: dict) -> list[tuple[str, str]]:
    """Table 2's columns: each browser configuration with each call path it can carry (a driver a
    configuration cannot carry, webmcp without the flag, has no column there)."""
    browsers = [s["name"] for s in run["statuses"]]
    return [(b, p) for b in browsers for p in run["call_paths"] if DRIVERS[p].supports(CONFIGS[b])]


VERDICTS = (VERIFIED, BROKEN, UNVERIFIED, KNOWN, NOT_APPLICABLE)


def summary_counts(results: list[dict], run: dict) -> list[tuple[str, str, dict[str, int]]]:
    """Per environment, how many rules have each verdict."""
    unavailable = {s["name"]: s["detail"] for s in run["statuses"] if not s["available"]}
    counted = []
    for browser, path in environments(run):
        verdicts = [rule_cell(rule.id, browser, path, results, unavailable).verdict for rule in RULES]
        counted.append((browser, path, {v: verdicts.count(v) for v in VERDICTS}))
    return counted


def summary_table(results: list[dict], run: dict, lang: str) -> list[str]:
    """The counts per environment, as the Markdown's first table."""
    t = TEXT[lang]
    return [
        f"| {t['summary_env']} | " + " | ".join(t[v] for v in VERDICTS) + " |",
        "|---|" + "---|" * len(VERDICTS),
        *(
            f"| {browser} · {path} | " + " | ".join(str(counts[v]) for v in VERDICTS) + " |"
            for browser, path, counts in summary_counts(results, run)
        ),
    ]


def summary_markdown(results: list[dict], run: dict) -> str:
    """The counts per environment under the target's name (GitHub's job summary)."""
    return "\n".join([f"### Verification — {run['target']}", "", *summary_table(results, run, "ja")]) + "\n"


def render(results: list[dict], run: dict, lang: str) -> str:
    t = TEXT[lang]
    statuses = run["statuses"]
    browsers = [s["name"] for s in statuses]
    detail = {s["name"]: s["detail"] for s in statuses}
    unavailable = {s["name"]: s["detail"] for s in statuses if not s["available"]}
    ran = [s for s in statuses if s["available"]]
    paths = list(run["call_paths"])
    target_desc = run["target"] if run["target"] != "reference" else t["reference"]
    parts = run["parts"]
    lines = [t["title"], "", t["env"].format(machine=run["machine"], target=target_desc)]
    lines.append(t["browsers"].format(browsers=_join((f"{s['detail']} [{s['name']}]" for s in ran), lang)))
    flagged = [f"{s['detail']} [{s['name']}]" for s in ran if CONFIGS[s["name"]].webmcp_flag]
    if flagged:
        lines.append(t["flag"].format(flagged=_join(flagged, lang)))
    lines.append(t["versions"].format(parts=_join((f"{k} {v}" for k, v in parts.items()), lang)))
    if run.get("seconds"):
        lines.append(t["duration"].format(minutes=f"{run['seconds'] / 60:.0f}"))
    lines += ["", *summary_table(results, run, lang), ""]

    # Table 1: ADR-0044's rows, one per way of calling.
    served_tools = [tool for tool in tools.NAMES if any(r["tool"] == tool for r in results if r.get("calls_row"))]
    served_ops = sum(len(contract.operations_of(tool)) for tool in served_tools)
    lines += [t["head1"], "|---|---|---|"]
    for path in DRIVERS:  # a row per way of calling the harness has (harness/drivers.py), and the real agent's
        if path not in paths:
            lines.append(f"| {DRIVERS[path].labels[lang]} | {t['none_env']} | {t['not_selected'].format(path=path)} |")
        else:
            lines.append(_calls_row(path, results, browsers, unavailable, served_ops, detail, lang))
    lines.append(f"| {t['agent_path']} | {t['none_env']} | {t['agent']} |")
    absent = [tool for tool in tools.NAMES if tool not in run["ai_tools"]]
    if absent:
        n = sum(len(contract.operations_of(tool)) for tool in absent)
        lines += ["", t["absent_ops"].format(ops=_join(absent, lang), n=n)]
    not_run = [tool for tool in run["ai_tools"] if tool not in served_tools]
    if not_run:
        n = sum(len(contract.operations_of(tool)) for tool in not_run)
        lines += ["", t["not_run_ops"].format(ops=_join(not_run, lang), n=n)]

    # Table 2: every rule × every environment.
    # A driver a configuration cannot carry (webmcp without the flag) has no column there.
    envs = environments(run)
    notes: dict[str, int] = {}
    lines += [
        "",
        t["legend"],
        "",
        t["head2"].format(envs=" | ".join(env_label(b, p) for b, p in envs)),
        "|---|---|" + "---|" * len(envs),
    ]
    pictures = pictures_of(results)
    for rule in RULES:
        cells = []
        for b, p in envs:
            cell = rule_cell(rule.id, b, p, results, unavailable)
            link = None
            if cell.verdict == VERIFIED and (rule.id, b) in pictures:
                link = f"evidence/{pictures[rule.id, b]}"
            elif cell.verdict == BROKEN and (failed := failed_run(rule.id, b, p, results)):
                link = f"artifacts/{failed['artifacts']}/"
            cells.append(_cell_text(cell, notes, lang, link))
        lines.append(f"| {rule.source} {rule.section} | `{rule.id}` {rule.text} | " + " | ".join(cells) + " |")
    if notes:
        lines += ["", t["h_notes"], ""] + [f"{n}. {text}" for text, n in notes.items()]

    lines += ["", *_findings(results, detail, lang)]
    return "\n".join(lines) + "\n"


def _findings(results: list[dict], detail: dict[str, str], lang: str) -> list[str]:
    t = TEXT[lang]
    out = [t["h_findings"], ""]
    bullets = []
    for browser in sorted({r["browser"] for r in results if r["browser"]}, key=list(CONFIGS).index):
        who = next(
            (
                r["findings"][checks.REGISTRATION_RECEIVER]
                for r in results
                if r["browser"] == browser
                and r["outcome"] == "passed"
                and checks.REGISTRATION_RECEIVER in r["findings"]
            ),
            None,
        )
        if who:
            bullets.append(t["receiver"].format(config=f"{detail.get(browser, browser)} [{browser}]", who=who))
        for path in (p for p, driver in DRIVERS.items() if driver.needs_native_webmcp):
            held = sorted(
                {
                    r["tool"]
                    for r in results
                    if r["browser"] == browser
                    and r["call_path"] == path
                    and r.get("calls_row")
                    and r["outcome"] == "passed"
                }
            )
            if held:
                bullets.append(
                    t["browser_holds"].format(
                        config=f"{detail.get(browser, browser)} [{browser}]",
                        path=DRIVERS[path].labels[lang],
                        tools=_join(held, lang),
                    )
                )
    dropped: dict[str, list] = {}
    for r in results:
        dropped.update(r["findings"].get(checks.RELAY_DROPPED_ANNOTATIONS) or {})
    if dropped:
        bullets.append(
            t["dropped"].format(dropped=_join((f"{k} ({', '.join(v)})" for k, v in sorted(dropped.items())), lang))
        )
    contacted: dict[str, set] = defaultdict(set)
    for r in results:
        if checks.CONTACTED in r["findings"] and r["tool"]:
            contacted[r["tool"]] |= set(r["findings"][checks.CONTACTED])
    for tool, hosts in sorted(contacted.items()):
        extra = sorted(
            h for h in hosts if not any(s in h for s in ("://localhost", "://127.0.0.1", "://[::1]", "data:", "blob:"))
        )
        bullets.append(
            (t["network_extra"] if extra else t["network"]).format(tool=tool, hosts=_join(extra or sorted(hosts), lang))
        )
    out += [f"- {b}" for b in bullets] or [f"- {t['none']}"]

    def listing(title: str, rows: list[dict]) -> list[str]:
        if not rows:
            return []
        return ["", title, ""] + [
            "- "
            + t["row"].format(
                rule=f"`{r['broken']}` " if r["broken"] else "",
                nodeid=r["nodeid"],
                message=(r["message"] or r["outcome"])[:300].replace("\n", " "),
                artifacts=f"artifacts/{r['artifacts']}",
            )
            for r in rows
        ]

    out += listing(t["h_broken"], [r for r in results if r["outcome"] == "failed"])
    out += listing(t["h_errors"], [r for r in results if r["outcome"] == "error"])
    flaky = [r for r in results if r.get("flaky")]
    if flaky:
        out += ["", t["h_flaky"], ""] + [
            "- "
            + t["row"].format(
                rule="",
                nodeid=r["nodeid"],
                message=f"{r['outcome']}; 1: {r['flaky'][:240]}",
                artifacts=f"artifacts/{r['artifacts']}",
            )
            for r in flaky
        ]
    known = sorted({c["reason"] for r in results for c in r["checks"] if c["outcome"] == "expected"})
    if known:
        out += ["", t["h_known"], ""] + [f"- {reason}" for reason in known]
    stale = sorted({c["reason"] for r in results for c in r["checks"] if c["outcome"] == "stale"})
    if stale:
        out += ["", t["h_stale"], ""] + [f"- {reason}" for reason in stale]
    skipped = Counter(r["message"] for r in results if r["outcome"] == "skipped")
    if skipped:
        out += ["", t["h_skipped"], ""] + [
            f"- {t['skip_line'].format(count=n, reason=reason)}" for reason, n in skipped.most_common()
        ]
        sections = defaultdict(list)
        for r in results:
            for rule in r["rules"]:
                sections[f"{BY_ID[rule].source} {BY_ID[rule].section}"].append(r["outcome"])
        for section, outcomes in sections.items():
            if all(o == "skipped" for o in outcomes):
                out.append(f"- {t['section_all_skipped'].format(section=section)}")
    return out


# --- the report's own check ------------------------------------------------------------------

REPORT_FILES = ("verification.md", "verification.en.md", "results.json", "run.json", "index.html")
_CELL = re.compile(r"^\[?(確認済み|不合格|未確認|既知の違い|—)(?:\]\([^)]+\))?(?: (?:\[\d+\])+)?$")


def _tables(text: str) -> list[list[list[str]]]:
    tables, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


def check_report(out: Path) -> list[str]:
    """Problems with a written report: files missing, tables malformed, or a Japanese rule cell that
    results.json does not bear out. Re-derives each cell from the rows without the renderer."""
    problems = [f"{name} is missing" for name in REPORT_FILES if not (out / name).is_file()]
    if problems:
        return problems
    rows = json.loads((out / "results.json").read_text(encoding="utf-8"))
    text = (out / "verification.md").read_text(encoding="utf-8")
    tables = _tables(text)
    for table in tables:
        widths = {len(row) for row in table}
        if len(widths) != 1:
            problems.append(f"a table has rows of {sorted(widths)} cells: {table[0]}")
    rule_tables = [tb for tb in tables if tb and tb[0][:2] == ["節", "規則"]]
    if len(rule_tables) != 1:
        return [*problems, f"expected one rule table, found {len(rule_tables)}"]
    header, _, *body = rule_tables[0]
    envs = [tuple(label.split(" · ")) for label in header[2:]]
    seen_rules = set()
    for cells in body:
        named = re.match(r"`([^`]+)`", cells[1])
        if not named:
            problems.append(f"a row names no rule: {cells[1]}")
            continue
        rule = named.group(1)
        seen_rules.add(rule)
        for (browser, path), cell in zip(envs, cells[2:], strict=False):  # a row of other width is reported above
            match = _CELL.match(cell)
            if not match:
                problems.append(f"{rule} [{browser} · {path}]: unreadable cell {cell!r}")
                continue
            here = [
                r
                for r in rows
                if r["browser"] == browser
                and r["call_path"] in (path, None)
                and (rule in r["rules"] or any(c["rule"] == rule for c in r["checks"]))
            ]
            passed = [
                r
                for r in here
                if r["outcome"] in ("passed", "stale", "failed")
                and any(c["rule"] == rule and c["outcome"] in ("passed", "stale") for c in r["checks"])
                and not any(c["rule"] == rule and c["outcome"] in ("failed", "expected") for c in r["checks"])
                and r["outcome"] != "error"
            ]
            failed = [
                r
                for r in here
                if r["outcome"] != "error"
                and (
                    (r["outcome"] == "failed" and r["broken"] == rule)
                    or any(c["rule"] == rule and c["outcome"] == "failed" for c in r["checks"])
                )
            ]
            verdict = match.group(1)
            if verdict == "確認済み" and (not passed or failed):
                problems.append(
                    f"{rule} [{browser} · {path}]: 確認済み without a passing check there, or with a failing one"
                )
            if verdict == "不合格" and not failed:
                problems.append(f"{rule} [{browser} · {path}]: 不合格 without a failing check there")
            if verdict in ("未確認", "既知の違い", "—") and (passed or failed):
                problems.append(
                    f"{rule} [{browser} · {path}]: {verdict} although a check of it {'failed' if failed else 'passed'} there"
                )
    missing = {rule.id for rule in RULES} - seen_rules
    if missing:
        problems.append(f"rules missing from the table: {sorted(missing)}")
    return problems
