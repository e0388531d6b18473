"""What changed since an earlier run (harness/compare.py): a run with one fault, compared with a
clean one, has exactly that fault's cells newly 不合格, in changes.json, on top of index.html and in
GitHub's job summary."""

import json
import os
import subprocess
import sys

import pytest

from harness import compare
from harness.paths import ROOT
from harness.report import BROKEN, NOT_APPLICABLE, UNVERIFIED, VERIFIED

SLICE = ["--browser", "chromium-noflag", "--call-path", "in-page", "--", "scenarios/test_switch.py", "-k", "slides"]
FAULT, RULE = "switch-status-text", "switch.no-status-text"


def harness(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def clean_and_faulted(tmp_path_factory):
    clean, faulted = tmp_path_factory.mktemp("clean"), tmp_path_factory.mktemp("faulted")
    assert harness("verify", "--out", str(clean), "--workers", "1", *SLICE).returncode == 0
    harness("verify", "--out", str(faulted), "--workers", "1", "--fault", FAULT, *SLICE)
    return clean, faulted


def test_a_fault_compared_with_a_clean_run_is_exactly_its_cells_newly_broken(clean_and_faulted, tmp_path):
    clean, faulted = clean_and_faulted
    summary = tmp_path / "summary.md"
    run = harness("report", "--compare", str(clean), str(faulted), env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert run.returncode == 1, run.stdout + run.stderr  # a CI step fails on a newly broken cell alone
    changes = json.loads((faulted / compare.CHANGES).read_text(encoding="utf-8"))["changes"]
    assert [(c["kind"], c["rule"], c["browser"], c["path"]) for c in changes] == [
        (compare.NEWLY_BROKEN, RULE, "chromium-noflag", "in-page")
    ]
    written = summary.read_text(encoding="utf-8")
    assert "| chromium-noflag · in-page |" in written and f"| 新たに不合格 | `{RULE}` |" in written


def test_the_changes_are_on_top_of_the_page(clean_and_faulted, noflag_chromium):
    clean, faulted = clean_and_faulted
    harness("report", "--compare", str(clean), str(faulted))
    page = noflag_chromium.new_page()
    page.goto((faulted / "index.html").as_uri())
    changed = page.get_by_role("region", name="summary").get_by_role("table").nth(1)
    assert changed.get_by_role("row").filter(has_text=RULE).get_by_role("cell").first.inner_text() == "新たに不合格"
    page.close()


def test_the_same_run_compared_with_itself_changes_nothing(clean_and_faulted):
    clean, _ = clean_and_faulted
    run = harness("report", "--compare", str(clean), str(clean))
    assert run.returncode == 0
    assert "0 cells changed, 0 newly 不合格" in run.stdout


def test_an_earlier_run_that_is_no_verify_folder_is_one_line_before_the_run(tmp_path):
    run = harness("verify", "--out", str(tmp_path / "out"), "--compare", str(tmp_path / "none"), *SLICE)
    assert run.returncode == 2
    [line] = run.stderr.strip().splitlines()
    assert line.startswith("verify --compare: ") and "is not a verify folder (no run.json, results.json)" in line
    assert not (tmp_path / "out" / "results.json").exists()


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [
        (VERIFIED, BROKEN, compare.NEWLY_BROKEN),
        (None, BROKEN, compare.NEWLY_BROKEN),
        (BROKEN, VERIFIED, compare.FIXED),
        (BROKEN, UNVERIFIED, compare.NEWLY_UNVERIFIED),
        (VERIFIED, UNVERIFIED, compare.NEWLY_UNVERIFIED),
        (UNVERIFIED, VERIFIED, compare.NEWLY_VERIFIED),
        (VERIFIED, None, compare.GONE),
        (VERIFIED, VERIFIED, None),
        (UNVERIFIED, NOT_APPLICABLE, None),
    ],
)
def test_each_move_of_a_cell_has_its_kind(old, new, kind):
    assert compare.kind_of(old, new) == kind
