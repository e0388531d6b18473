"""An operation that never asks and shows a confirmation dialog is a broken confirm.which at once:
not the operation's result rule after the page's 50-second decline, and never run again."""

import json
import subprocess
import sys

import pytest

from harness import limits
from harness.paths import ROOT


def test_a_dialog_where_none_is_due_is_confirm_which_within_seconds(tmp_path):
    run = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "scenarios/canvas/test_canvas_slides.py",
            "-k", "every_theme", "--fault", "slides-set-theme-confirms", "--browser-config", "chromium-noflag",
            "--call-path", "in-page", "--call-path", "relay", f"--results-json={tmp_path / 'r.json'}",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if "chromium-noflag is not installed" in run.stdout:
        pytest.skip("no Chromium here")
    rows = json.loads((tmp_path / "r.json").read_text())
    assert {row["call_path"] for row in rows} == {"in-page", "relay"}, run.stdout[-2000:]
    for row in rows:
        assert (row["outcome"], row["broken"], row["subject"]) == ("failed", "confirm.which", "slides_set_theme"), row
        assert "「スライド「" in row["message"] and "のテーマを変える」" in row["message"], "the dialog's title"
        assert not row["flaky"], "a broken rule is never run again"
        assert row["duration"] < 15 * limits.SCALE, f"{row['call_path']}: {row['duration']} s"
