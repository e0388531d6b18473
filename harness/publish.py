"""A run's report folder, written: run.json, the Verification tables in Markdown (verification.md, in
Japanese, and verification.<lang>.md) and index.html to click through; and one folder from the
folders of several runs (`python -m harness report --merge`), their pictures and artifacts with it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from harness import html_report
from harness.report import merge_runs, render
from harness.shards import DURATIONS, write_durations


def write_reports(out: Path, results: list[dict], run: dict, langs: list[str]) -> None:
    (out / "run.json").write_text(json.dumps(run, ensure_ascii=False, indent=1), encoding="utf-8")
    for lang in langs:
        name = "verification.md" if lang == "ja" else f"verification.{lang}.md"
        (out / name).write_text(render(results, run, lang), encoding="utf-8")
    html_report.write(out, results, run)


def merge(folders: list[Path], out: Path, langs: list[str]) -> int:
    """`python -m harness report --merge DIR…`: one Verification table from several runs' folders."""
    runs, rows = [], []
    for folder in folders:
        missing = [name for name in ("run.json", "results.json") if not (folder / name).is_file()]
        if missing:
            raise SystemExit(f"report --merge: {folder} is not a verify folder (no {', '.join(missing)})")
        run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
        runs.append(run)
        rows += [
            {**row, "machine": run["machine"]}
            for row in json.loads((folder / "results.json").read_text(encoding="utf-8"))
        ]
    out.mkdir(parents=True, exist_ok=True)
    for folder in folders:  # the pictures and the failures' artifacts, beside the merged tables
        for part in ("evidence", "artifacts"):
            if (folder / part).is_dir():
                shutil.copytree(folder / part, out / part, dirs_exist_ok=True)
    (out / "results.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    write_durations(out / DURATIONS, rows)  # the next sharded run's split, from every shard's measurements
    write_reports(out, rows, merge_runs(runs), langs)
    return 0
