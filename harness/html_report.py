"""index.html beside verification.md: the same two tables to click through, static, no server.

A summary first (per environment, how many rules are of each outcome; the target, the browsers
with their versions, the run's wall time), a search box over rule ids, rule texts, reasons and
run messages; Table 1 and Table 2 as the Markdown has them, filters by outcome, browser
configuration and call path, and for each cell the runs behind it: the scenario, its checks with their outcomes and
messages, the picture of what a passing check looked at (evidence/) or a failure's screenshots,
the page console and relay stderr of a failure, and the commands that open its trace and run that
one scenario again. Everything it shows is in the page itself or beside it (evidence/,
artifacts/), so it opens from file:// and as a CI artifact.
"""

from __future__ import annotations

import html
import json
import shlex
from pathlib import Path
from typing import Any

from harness import report
from harness.rules import RULES

CONSOLE_CHARS = 20_000  # of a failure's page console and relay stderr, per run
SCREENSHOTS = ("*.png", "*.jpg")


def write(out: Path, results: list[dict], run: dict, changes: list[dict] | None = None) -> None:
    (out / "index.html").write_text(render(out, results, run, changes), encoding="utf-8")


def render(out: Path, results: list[dict], run: dict, changes: list[dict] | None = None) -> str:
    """The page; with `changes` (harness.compare), the cells changed since an earlier run on top."""
    t = report.TEXT["ja"]
    statuses = run["statuses"]
    browsers = [status["name"] for status in statuses]
    unavailable = {status["name"]: status["detail"] for status in statuses if not status["available"]}
    envs = report.environments(run)
    pictures = report.pictures_of(results)
    rules: list[dict[str, Any]] = []
    for rule in RULES:
        cells = []
        for browser, path in envs:
            cell = report.rule_cell(rule.id, browser, path, results, unavailable)
            runs = [
                index
                for index, row in enumerate(results)
                if report._applies(row, browser, path) and report._about(row, rule.id)
            ]
            cells.append(
                {
                    "verdict": cell.verdict,
                    "reasons": [report._reason_text(r, "ja") for r in cell.reasons],
                    "runs": runs,
                    "picture": pictures.get((rule.id, browser)) if cell.verdict == report.VERIFIED else None,
                }
            )
        rules.append({"id": rule.id, "where": f"{rule.source} {rule.section}", "text": rule.text, "cells": cells})
    markdown = report.render(results, run, "ja")
    summary = [
        {"browser": browser, "path": path, "counts": counts}
        for browser, path, counts in report.summary_counts(results, run)
    ]
    # What a search matches beside a rule's id and text: its cells' reasons and its runs' messages.
    for entry in rules:
        entry["haystack"] = " ".join(
            [entry["id"], entry["text"], entry["where"]]
            + [reason for cell in entry["cells"] for reason in cell["reasons"]]
            + [results[index]["message"] or "" for cell in entry["cells"] for index in cell["runs"]]
        ).lower()
    data = {
        "summary": summary,
        "about": {
            "target": run["target"],
            "browsers": [f"{status['name']}: {status['detail']}" for status in statuses],
            "seconds": run.get("seconds"),
        },
        "words": {key: t[key] for key in report.VERDICTS},
        "changes": changes,
        "legend": t["legend"],
        "envs": [{"browser": b, "path": p} for b, p in envs],
        "browsers": browsers,
        "paths": list(run["call_paths"]),
        "table1": _table1(markdown),
        "rules": rules,
        "runs": [_run(out, row, run) for row in results],
    }
    head = html.escape(f"Verification — {run['target']}")
    return PAGE.replace("__TITLE__", head).replace(
        "__DATA__", json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    )


def _table1(markdown: str) -> list[list[str]]:
    """Table 1's rows as the Markdown renders them (one source for both)."""
    head = [cell.strip() for cell in report.TEXT["ja"]["head1"].strip("|").split("|")]
    table = next(table for table in report._tables(markdown) if table[0] == head)
    return [table[0], *table[2:]]


def _run(out: Path, row: dict, run: dict) -> dict:
    folder = out / "artifacts" / row["artifacts"]
    failed = row["outcome"] in ("failed", "error") or bool(row.get("flaky"))
    console = ""
    if failed and folder.is_dir():
        console = "\n\n".join(
            path.read_text(encoding="utf-8", errors="replace")[:CONSOLE_CHARS]
            for path in sorted(folder.glob("*console-and-relay.txt"))
        )
    screenshots = (
        sorted(str(path.relative_to(out)) for pattern in SCREENSHOTS for path in folder.glob(pattern))
        if failed and folder.is_dir()
        else []
    )
    trace = folder / "trace.zip"
    return {
        "nodeid": row["nodeid"],
        "browser": row["browser"],
        "path": row["call_path"],
        "tool": row["tool"],
        "outcome": row["outcome"],
        "message": row["message"],
        "flaky": row.get("flaky"),
        "checks": row["checks"],
        "latitudes": row.get("latitudes", []),
        "pictures": sorted(set((row.get("evidence") or {}).values())),
        "screenshots": screenshots,
        "console": console,
        "trace": f"python -m playwright show-trace {shlex.quote(str(trace.relative_to(out)))}"
        if trace.is_file()
        else None,
        "rerun": rerun_command(row, run["target"]),
    }


def rerun_command(row: dict, target: str) -> str:
    """The command that runs this one scenario again, as it ran (its browser, call path, latitudes, fault)."""
    parts = ["python", "-m", "pytest", row["nodeid"], "--target", target]
    if row["browser"]:
        parts += ["--browser-config", row["browser"]]
    if row["call_path"]:
        parts += ["--call-path", row["call_path"]]
    for latitude in row.get("latitudes") or []:
        parts += ["--latitude", latitude]
    if row.get("fault"):
        parts += ["--fault", row["fault"]]
    return " ".join(shlex.quote(part) for part in parts)


PAGE = """<!doctype html>
<html lang="ja"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 16px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; }
th { background: #f3f4f6; position: sticky; top: 0; }
td.cell { cursor: pointer; white-space: nowrap; }
td.verified { background: #dcfce7; } td.broken { background: #fee2e2; } td.unverified { background: #fef9c3; }
td.known { background: #e0e7ff; } td.selected { outline: 3px solid #2563eb; }
#filters { display: flex; gap: 16px; flex-wrap: wrap; margin: 8px 0; }
#detail { border: 1px solid #999; padding: 8px 12px; margin: 8px 0; }
#detail img { max-width: 640px; border: 1px solid #ccc; display: block; margin: 4px 0; }
pre { background: #f5f5f5; padding: 6px; white-space: pre-wrap; max-height: 300px; overflow: auto; }
.check-failed { color: #991b1b; } .check-passed { color: #166534; }
</style></head>
<body>
<h1>Verification</h1>
<section id="summary" aria-label="summary">
  <p id="about"></p>
  <table id="counts"></table>
  <div id="changes" hidden><h2>前の実行からの変化</h2><table id="changed"></table></div>
  <label>検索 <input type="search" id="search" aria-label="検索" placeholder="規則の id、文、理由、メッセージ"></label>
</section>
<h2>Table 1</h2><table id="table1"></table>
<h2>Table 2</h2>
<p id="legend"></p>
<div id="filters" role="group" aria-label="filters">
  <fieldset id="outcomes"><legend>結果</legend></fieldset>
  <label>ブラウザ <select id="browser"><option value="">すべて</option></select></label>
  <label>呼び方 <select id="path"><option value="">すべて</option></select></label>
</div>
<section id="detail" aria-label="runs" hidden></section>
<table id="table2"></table>
<script id="data" type="application/json">__DATA__</script>
<script>
const data = JSON.parse(document.getElementById('data').textContent);
const el = (tag, props = {}, ...children) => { const node = Object.assign(document.createElement(tag), props); node.append(...children); return node; };
document.getElementById('legend').textContent = data.legend;
const verdictKeys = Object.keys(data.words);
const about = data.about;
document.getElementById('about').textContent = [`対象: ${about.target}`, ...about.browsers,
  about.seconds == null ? '' : `時間: ${Math.round(about.seconds)} 秒`].filter(Boolean).join(' · ');
const counts = document.getElementById('counts');
counts.append(el('tr', {}, el('th', { textContent: '環境' }), ...verdictKeys.map((k) => el('th', { textContent: data.words[k] }))));
data.summary.forEach((e) => counts.append(el('tr', {}, el('th', { textContent: `${e.browser} · ${e.path}` }),
  ...verdictKeys.map((k) => el('td', { className: k.replace('n/a', 'na'), textContent: String(e.counts[k]) })))));
if (data.changes) {
  const changed = document.getElementById('changed');
  document.getElementById('changes').hidden = false;
  changed.append(el('tr', {}, ...['変化', '規則', '環境', '前', '今'].map((h) => el('th', { textContent: h }))));
  if (!data.changes.length) changed.append(el('tr', {}, el('td', { colSpan: 5, textContent: 'ありません' })));
  data.changes.forEach((c) => changed.append(el('tr', { className: c.kind }, el('td', { textContent: c.label }),
    el('td', {}, el('code', { textContent: c.rule })), el('td', { textContent: `${c.browser} · ${c.path}` }),
    el('td', { textContent: c.old ? data.words[c.old] : '—' }), el('td', { textContent: c.new ? data.words[c.new] : '—' }))));
}
const search = document.getElementById('search');
search.oninput = draw;
const t1 = document.getElementById('table1');
data.table1.forEach((cells, i) => t1.append(el('tr', {}, ...cells.map((c) => el(i ? 'td' : 'th', { textContent: c })))));
const outcomes = document.getElementById('outcomes');
for (const [key, word] of Object.entries(data.words)) {
  outcomes.append(el('label', {}, el('input', { type: 'checkbox', checked: true, value: key, onchange: draw }), ' ' + word));
}
const browser = document.getElementById('browser'), path = document.getElementById('path');
data.browsers.forEach((b) => browser.append(el('option', { value: b, textContent: b })));
data.paths.forEach((p) => path.append(el('option', { value: p, textContent: p })));
browser.onchange = path.onchange = draw;
function draw() {
  const wanted = new Set([...outcomes.querySelectorAll('input:checked')].map((i) => i.value));
  const envs = data.envs.map((e, i) => ({ ...e, i })).filter((e) => (!browser.value || e.browser === browser.value) && (!path.value || e.path === path.value));
  const table = document.getElementById('table2');
  table.replaceChildren(el('tr', {}, el('th', { textContent: '節' }), el('th', { textContent: '規則' }), ...envs.map((e) => el('th', { textContent: `${e.browser} · ${e.path}` }))));
  const words = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
  for (const rule of data.rules) {
    const cells = envs.map((e) => rule.cells[e.i]);
    if (!cells.some((c) => wanted.has(c.verdict))) continue;
    if (!words.every((w) => rule.haystack.includes(w))) continue;
    table.append(el('tr', {}, el('td', { textContent: rule.where }), el('td', {}, el('code', { textContent: rule.id }), ' ' + rule.text),
      ...envs.map((e) => { const c = rule.cells[e.i];
        return el('td', { className: 'cell ' + c.verdict.replace('n/a', 'na'), textContent: data.words[c.verdict], title: c.reasons.join('\\n'),
                          onclick: (event) => show(rule, e, c, event.currentTarget) }); })));
  }
}
function show(rule, env, cell, td) {
  document.querySelectorAll('td.selected').forEach((n) => n.classList.remove('selected'));
  td.classList.add('selected');
  const detail = document.getElementById('detail');
  detail.hidden = false;
  detail.replaceChildren(el('h3', { textContent: `${rule.id} — ${env.browser} · ${env.path}: ${data.words[cell.verdict]}` }));
  cell.reasons.forEach((r) => detail.append(el('p', { textContent: r })));
  if (cell.picture) detail.append(el('img', { src: 'evidence/' + cell.picture, alt: rule.id }));
  for (const index of cell.runs) {
    const run = data.runs[index];
    const item = el('article', { className: 'run' }, el('h4', { textContent: `${run.nodeid} — ${run.outcome}` }));
    if (run.message) item.append(el('p', { textContent: run.message }));
    if (run.flaky) item.append(el('p', { textContent: '1 回目: ' + run.flaky }));
    item.append(el('ul', {}, ...run.checks.map((c) => el('li', { className: 'check-' + c.outcome, textContent: `${c.rule}${c.subject ? ' (' + c.subject + ')' : ''}: ${c.outcome}${c.message ? ' — ' + c.message : ''}` }))));
    [...run.pictures.map((p) => 'evidence/' + p), ...run.screenshots].forEach((src) => item.append(el('img', { src, alt: run.nodeid })));
    if (run.console) item.append(el('pre', { className: 'console', textContent: run.console }));
    if (run.trace) item.append(el('p', {}, 'trace: ', el('code', { className: 'trace', textContent: run.trace })));
    item.append(el('p', {}, 'rerun: ', el('code', { className: 'rerun', textContent: run.rerun })));
    detail.append(item);
  }
}
draw();
</script></body></html>
"""
