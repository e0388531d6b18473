"""`python -m harness doctor`: one table of what the harness will see of a target, before a long
run; one line and a non-zero exit for a target it cannot reach or a page without the switch."""

from __future__ import annotations

import subprocess
import sys

from harness.paths import ROOT
from harness.server import FixtureServer, ReferenceConfig


def doctor(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness", "doctor", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def rows_of(output: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.split("|")[1:-1]]
        for line in output.splitlines()
        if line.startswith("| ") and not line.startswith("| browser")
    ]


def test_the_reference_shows_every_page_switch_operation_hook_and_the_relay(noflag_chromium):
    run = doctor("--browser", "chromium-noflag")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    rows = {
        row[1]: dict(zip(("page", "title", "switch", "operations", "hooks", "relay"), row[2:], strict=True))
        for row in rows_of(run.stdout)
    }
    assert sorted(rows) == sorted(["node", "sql", "go", "slides", "excalidraw", "drawio"])
    for tool, row in rows.items():
        assert (row["page"], row["title"], row["switch"]) == ("ok", "ok", "found"), (tool, row)
        count = row["operations"].split(" of ")
        assert count[0] == count[1], (tool, row)
        assert row["relay"] == f"lists {count[0]}", (tool, row)
        assert "matches nothing" not in row["hooks"] and "caught nothing" not in row["hooks"], (tool, row)
    assert "engine matched" in rows["sql"]["hooks"] and "hold_loading catches child-frame" in rows["drawio"]["hooks"]
    # The reference profile gives no second page for node, sql and go: what the doctor says follows from
    # that, and names no rule a run on sql could not decide anyway (canvas.open-document is the canvas tools').
    assert "- sql: no other_page → relay.two-tabs\n" in run.stdout


def test_an_unreachable_target_is_one_line_and_fails():
    run = doctor("--target", "localhost", "--base-url", "http://127.0.0.1:9")
    assert run.returncode == 2
    assert run.stdout.strip().splitlines() == [
        "doctor: target localhost is unreachable at http://127.0.0.1:9/node: [Errno 111] Connection refused"
    ]


def test_a_page_without_the_switch_fails(tmp_path, noflag_chromium):
    with FixtureServer(ReferenceConfig(relay_port=9)) as server:
        profile = tmp_path / "mine.toml"
        profile.write_text(
            f'base_url = "{server.origin}"\nrelay_port = 9\n[tools.slides]\npage = "/embed-host/"\n', encoding="utf-8"
        )
        run = doctor("--target", str(profile), "--browser", "chromium-noflag")
    assert run.returncode == 1, run.stdout
    assert rows_of(run.stdout)[0][4].startswith("not found"), run.stdout
