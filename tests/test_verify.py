"""`python -m harness verify` writes the Verification tables from a real run, and fails with them."""

import json
import re
import subprocess
import sys

import pytest

from harness import report
from harness.paths import ROOT


def verify(out, *args):
    return subprocess.run(
        [sys.executable, "-m", "harness", "verify", "--out", str(out), "--workers", "1", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def rule_cells(text: str, rule: str) -> list[str]:
    """The rule's cells as words (a cell's link to its picture or artifacts left out)."""
    line = next(each for each in text.splitlines() if f"`{rule}`" in each)
    return [re.sub(r"^\[(.+?)\]\([^)]*\)", r"\1", cell.strip()) for cell in line.split("|")[1:-1]][2:]


@pytest.fixture(scope="module")
def in_page_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("verification")
    run = verify(out, "--call-path", "in-page", "--", "-k", "test_switch_is_in_the_header and slides")
    return run, out


def test_clean_run_passes_and_writes_a_report_that_bears_out_its_results(in_page_run):
    run, out = in_page_run
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert report.check_report(out) == []


def test_markdown_has_the_adr_form_and_every_row(in_page_run):
    _, out = in_page_run
    text = (out / "verification.md").read_text(encoding="utf-8")
    assert "| 呼び方 | 確認した環境 | 結果 |" in text and "| 節 | 規則 |" in text
    assert "@mcp-b/webmcp-local-relay" in text and "headless" in text
    for row in ("| ページの中の API", "| 拡張機能の content script", "| MCP-B の relay", "| 実物の AI のエージェント"):
        assert row in text


def test_in_page_run_shows_the_relay_unverified(in_page_run):
    _, out = in_page_run
    text = (out / "verification.md").read_text(encoding="utf-8")
    relay_row = next(each for each in text.splitlines() if each.startswith("| MCP-B の relay"))
    assert "未確認" in relay_row and "--call-path relay" in relay_row
    assert all(cell.startswith("未確認") for cell in rule_cells(text, "relay.names"))
    assert rule_cells(text, "switch.control")[0] == "確認済み"


def test_configuration_that_cannot_run_is_unverified_not_passed(in_page_run):
    _, out = in_page_run
    text = (out / "verification.md").read_text(encoding="utf-8")
    ran = {r["browser"] for r in json.loads((out / "results.json").read_text(encoding="utf-8"))}
    header = next(each for each in text.splitlines() if each.startswith("| 節 | 規則 |"))
    for config in ("firefox", "webkit"):
        if config not in ran:
            column = [c.strip() for c in header.split("|")[1:-1]].index(f"{config} · in-page") - 2
            assert rule_cells(text, "switch.control")[column].startswith("未確認 [")


def test_fault_run_fails_the_command_and_names_the_broken_rule(tmp_path):
    run = verify(
        tmp_path,
        "--browser",
        "chromium",
        "--call-path",
        "in-page",
        "--fault",
        "switch-default-on",
        "--",
        "-k",
        "test_switch_is_in_the_header and slides",
    )
    assert run.returncode != 0
    text = (tmp_path / "verification.md").read_text(encoding="utf-8")
    assert rule_cells(text, "switch.default-off")[0] == "不合格"
    assert rule_cells(text, "switch.control")[0] == "確認済み"  # checked before the broken one
    broken = text.split("### 守られていない規則")[1]
    assert "`switch.default-off` `scenarios/test_switch.py::test_switch_is_in_the_header" in broken
    assert report.check_report(tmp_path) == []


def test_unknown_fault_or_browser_is_one_clear_error(tmp_path):
    run = verify(tmp_path, "--fault", "no-such-fault")
    assert run.returncode == 2 and "unknown fault 'no-such-fault'" in run.stderr and "switch-default-on" in run.stderr
    run = verify(tmp_path, "--browser", "chrome")
    assert run.returncode == 2 and "invalid choice: 'chrome'" in run.stderr and "chromium-noflag" in run.stderr


def test_an_unreachable_target_is_one_line_and_writes_no_report(tmp_path):
    run = verify(tmp_path, "--target", "localhost", "--base-url", "http://127.0.0.1:9", "--browser", "chromium-noflag")
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "verify: target localhost is unreachable at http://127.0.0.1:9/node: [Errno 111] Connection refused"
    ]
    assert "wrote" not in run.stdout and "does not bear out" not in run.stdout
    assert not (tmp_path / "verification.md").exists()
