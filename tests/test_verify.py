"""`python -m harness verify` writes the Verification tables from a real run, and fails with them."""

import json
import subprocess
import sys

import pytest

from harness.paths import ROOT


def verify(out, *args):
    return subprocess.run(
        [sys.executable, "-m", "harness", "verify", "--out", str(out), "--workers", "1", "--call-path", "in-page",
         *args],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    out = tmp_path_factory.mktemp("verification")
    run = verify(out, "--", "-k", "test_switch_is_in_the_header or test_every_operation_answers")
    return run, out


def test_clean_run_passes_and_writes_all_files(clean):
    run, out = clean
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    for name in ("verification.md", "verification.en.md", "results.json", "junit.xml"):
        assert (out / name).is_file(), name


def test_markdown_has_the_adr_form(clean):
    _, out = clean
    text = (out / "verification.md").read_text(encoding="utf-8")
    assert "| 呼び方 | 確認した環境 | 結果 |" in text
    assert "| 規則 | 確認した環境 | 結果 |" in text
    assert "@mcp-b/webmcp-local-relay" in text and "headless" in text
    assert "個の全てを呼べた" in text


def test_configuration_that_cannot_run_is_unverified_not_passed(clean):
    _, out = clean
    text = (out / "verification.md").read_text(encoding="utf-8")
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    ran = {r["browser"] for r in results}
    for config in ("firefox", "webkit"):
        if config not in ran:
            assert f"| {config} | 未確認(" in text


def test_fault_run_fails_the_command_and_shows_in_the_table(tmp_path):
    run = verify(tmp_path, "--browser", "chromium", "--fault", "switch-default-on",
                 "--", "-k", "test_switch_is_in_the_header")
    assert run.returncode != 0
    text = (tmp_path / "verification.md").read_text(encoding="utf-8")
    switch_row = next(line for line in text.splitlines() if line.startswith("| Design Doc「AI からの操作」 許可のスイッチ"))
    assert "守られていない" in switch_row and "switch.default-off" in switch_row, switch_row
    assert "失敗: `scenarios/test_switch.py::test_switch_is_in_the_header" in text
