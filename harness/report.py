"""The Verification tables, in the ADRs' form (ADR-0044's Verification section is the model)."""

from __future__ import annotations

import os
import platform
from collections import defaultdict
from pathlib import Path

from harness import contract, versions
from harness.browsers import CONFIGS
from harness.rules import BY_ID

PATH_LABELS = {
    "ja": {"in-page": "ページの中の API(getTools と executeTool)", "relay": "MCP-B の relay と、MCP のクライアント(SDK)"},
    "en": {"in-page": "In-page API (getTools and executeTool)", "relay": "MCP-B relay and an MCP client (SDK)"},
}
TEXT = {
    "ja": {
        "title": "## Verification",
        "env": "端末は {machine}、配信は {target} である。",
        "browsers": "ブラウザは、{browsers} で、どれも headless である。",
        "flag": "{flagged} は、フラグ enable-webmcp-testing を有効にした。",
        "versions": "バージョンは、{parts} である。",
        "head1": "| 呼び方 | 確認した環境 | 結果 |",
        "head2": "| 規則 | 確認した環境 | 結果 |",
        "all": "{n} 個の全てを呼べた",
        "some": "{ok} 個を呼べた。呼べなかった操作: {bad}",
        "unverified": "未確認",
        "not_run": "未確認({reason})",
        "agent": "| 実物の AI のエージェント | 無い | 未確認 |",
        "absent_ops": "{ops} の {n} 個は、配信に無いので未確認である。",
        "rules_ok": "{n} 個の規則を確かめた",
        "rules_bad": "{n} 個の規則のうち、守られていない: {bad}",
        "known": "既知の違い: {reason}",
        "rules_unverified": "未確認: {rules}",
        "receiver": "{config} で、フラグと polyfill の両方がある状態で、登録を受けたのは {who} だった。",
        "dropped": "relay を通すと、次の注釈が MCP のクライアントに届かなかった: {dropped}",
        "network": "{tool} のページが通信した先は、{hosts} だった。",
        "network_extra": "{tool} のページは、ページの origin と 127.0.0.1 のほかに、{hosts} と通信した。",
        "failure": "失敗: `{nodeid}`: {reason}(記録: `{artifacts}`)",
        "none": "無い",
    },
    "en": {
        "title": "## Verification",
        "env": "Machine: {machine}; served from {target}.",
        "browsers": "Browsers: {browsers}, all headless.",
        "flag": "{flagged} ran with the enable-webmcp-testing flag.",
        "versions": "Versions: {parts}.",
        "head1": "| Call path | Environments | Result |",
        "head2": "| Rules | Environments | Result |",
        "all": "all {n} operations called",
        "some": "{ok} operations called; failed: {bad}",
        "unverified": "not verified",
        "not_run": "not verified ({reason})",
        "agent": "| A real AI agent | none | not verified |",
        "absent_ops": "The {n} operations of {ops} are not served by this target: not verified.",
        "rules_ok": "{n} rules verified",
        "rules_bad": "of {n} rules, broken: {bad}",
        "known": "known difference: {reason}",
        "rules_unverified": "not verified: {rules}",
        "receiver": "On {config}, with both the flag and the polyfill, the registration reached: {who}.",
        "dropped": "Through the relay, these annotations did not reach the MCP client: {dropped}",
        "network": "The {tool} page contacted {hosts}.",
        "network_extra": "The {tool} page contacted, beyond its origin and 127.0.0.1: {hosts}.",
        "failure": "Failed: `{nodeid}`: {reason} (artifacts: `{artifacts}`)",
        "none": "none",
    },
}


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    return f"{platform.system()} {platform.release()} ({cpu}, {os.cpu_count()} cores)"


def _join(items, lang):
    items = list(items)
    return ("、" if lang == "ja" else ", ").join(items) if items else TEXT[lang]["none"]


def render(results: list[dict], statuses, args, lang: str) -> str:
    t = TEXT[lang]
    ran = [s for s in statuses if s.available]
    detail = {s.name: s.detail for s in statuses}
    target_desc = args.target if args.target != "reference" else (
        "http://localhost(ハーネスが配る参照のプレイグラウンド)" if lang == "ja" else "http://localhost (the harness's reference playground)")
    parts = {k: v for k, v in versions.parts().items() if v}
    lines = [t["title"], "", t["env"].format(machine=_machine(), target=target_desc)]
    lines.append(t["browsers"].format(browsers=_join((f"{s.detail} [{s.name}]" for s in ran), lang)))
    flagged = [f"{detail[s.name]} [{s.name}]" for s in ran if CONFIGS[s.name].webmcp_flag]
    if flagged:
        lines.append(t["flag"].format(flagged=_join(flagged, lang)))
    lines += [t["versions"].format(parts=_join((f"{k} {v}" for k, v in parts.items()), lang)), ""]

    # Table 1: one row per call path (from test_every_operation_answers).
    calls = [r for r in results if r["scenario"].endswith("test_every_operation_answers")]
    lines += [t["head1"], "|---|---|---|"]
    for path in (args.call_path or ["in-page", "relay"]):
        rows = [r for r in calls if r["call_path"] == path]
        if not rows:
            lines.append(f"| {PATH_LABELS[lang][path]} | — | {t['unverified']} |")
            continue
        configs = sorted({r["browser"] for r in rows}, key=list(CONFIGS).index)
        answered, bad = set(), []
        for r in rows:
            ops = r["properties"].get("operations", {})
            answered |= set(ops)
            if r["outcome"] != "passed":
                bad.append(f"{r['tool']} ({r['browser']}): {r['reason'][:120]}")
        result = t["all"].format(n=len(answered)) if not bad else t["some"].format(ok=len(answered), bad="; ".join(bad))
        lines.append(f"| {PATH_LABELS[lang][path]} | {_join((detail[c] + (' + flag' if CONFIGS[c].webmcp_flag else '') for c in configs), lang)} | {result} |")
    for s in statuses:
        if not s.available:
            lines.append(f"| {_join(PATH_LABELS[lang].values(), lang)} | {s.name} | {t['not_run'].format(reason=s.detail)} |")
    lines.append(t["agent"])
    absent = [tool for tool in ("node", "sql", "go", "slides", "excalidraw", "drawio")
              if not any(r["tool"] == tool for r in calls)]
    if absent and calls:
        n = sum(len(contract.operations_of(tool)) for tool in absent)
        lines += ["", t["absent_ops"].format(ops=_join(absent, lang), n=n)]

    # Table 2: the permission, confirmation, log, storage and embedding rules, by section.
    by_section: dict[str, dict] = defaultdict(lambda: {"rules": set(), "bad": set(), "known": set(), "configs": set()})
    for r in results:
        for rule_id in r["rules"]:
            rule = BY_ID[rule_id]
            entry = by_section[f"{rule.source} {rule.section}"]
            entry["rules"].add(rule_id)
            if r["browser"]:
                entry["configs"].add(r["browser"])
            if r["outcome"] == "failed":
                entry["bad"].add(rule_id)
            if r["outcome"] == "xfailed":
                entry["known"].add(r["reason"].removeprefix("baseline: "))
    lines += ["", t["head2"], "|---|---|---|"]
    checked = {rule_id for r in results for rule_id in r["rules"]}
    unchecked = defaultdict(list)
    for rule in BY_ID.values():
        if rule.id not in checked:
            unchecked[f"{rule.source} {rule.section}"].append(rule.id)
    for section, entry in by_section.items():
        result = (t["rules_bad"].format(n=len(entry["rules"]), bad=_join(sorted(entry["bad"]), lang)) if entry["bad"]
                  else t["rules_ok"].format(n=len(entry["rules"])))
        if entry["known"]:
            result += "。" if lang == "ja" else "; "
            result += _join((t["known"].format(reason=k) for k in sorted(entry["known"])), lang)
        configs = _join(sorted(entry["configs"], key=list(CONFIGS).index), lang)
        if unchecked.get(section):
            result += ("。" if lang == "ja" else "; ") + t["rules_unverified"].format(rules=_join(unchecked.pop(section), lang))
        lines.append(f"| {section} | {configs} | {result} |")
    for section, rule_ids in unchecked.items():
        lines.append(f"| {section} | — | {t['rules_unverified'].format(rules=_join(rule_ids, lang))} |")

    # Findings.
    bullets = []
    for r in results:
        who = r["properties"].get("finding:registration-receiver")
        if who:
            bullets.append(t["receiver"].format(config=detail.get(r["browser"], r["browser"]), who=who))
            break
    dropped: dict[str, list] = {}
    for r in results:
        dropped.update(r["properties"].get("finding:relay-dropped-annotations") or {})
    if dropped:
        bullets.append(t["dropped"].format(dropped=_join((f"{k} ({', '.join(v)})" for k, v in sorted(dropped.items())), lang)))
    contacted: dict[str, set] = defaultdict(set)
    for r in results:
        contacted[r["tool"]] |= set(r["properties"].get("contacted", []))
    for tool, hosts in sorted(contacted.items()):
        extra = sorted(h for h in hosts if not any(s in h for s in ("://localhost", "://127.0.0.1", "data:", "blob:")))
        bullets.append((t["network_extra"] if extra else t["network"]).format(tool=tool, hosts=_join(extra or sorted(hosts), lang)))
    for r in results:
        if r["outcome"] in ("failed", "xpassed"):
            bullets.append(t["failure"].format(nodeid=r["nodeid"], reason=r["reason"][:200] or r["outcome"],
                                               artifacts=f"artifacts/{r['artifacts']}"))
    lines += [""] + [f"- {b}" for b in bullets]
    return "\n".join(lines) + "\n"


def write_reports(out: Path, results: list[dict], statuses, args, langs: list[str]) -> None:
    for lang in langs:
        name = "verification.md" if lang == "ja" else f"verification.{lang}.md"
        (out / name).write_text(render(results, statuses, args, lang), encoding="utf-8")
