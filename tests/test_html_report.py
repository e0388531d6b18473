"""index.html, opened in Chromium as a reader would open it (file://): filtered to 不合格, a cell
opened shows its run, the failure's picture loaded and the command that runs it again."""

from __future__ import annotations

import base64
import json

from test_report import STATUSES, args, row

from harness import publish, report
from harness.html_report import rerun_command

# A 1×1 PNG: what a failure's screenshot or a check's picture is, as far as a browser can tell.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def written(tmp_path):
    passed = {**row(rules=("switch.control",)), "evidence": {"switch.control": "switch.control--chromium.jpg"}}
    failed = {
        **row(
            scenario="scenarios/test_switch.py::test_b",
            rules=("switch.default-off",),
            outcome="failed",
            checked={"switch.default-off": "failed"},
            broken="switch.default-off",
            message="the switch is on",
        ),
        "artifacts": "scenarios-test-switch-py-test-b",
    }
    (tmp_path / "evidence").mkdir()
    (tmp_path / "evidence" / "switch.control--chromium.jpg").write_bytes(PIXEL)
    artifacts = tmp_path / "artifacts" / failed["artifacts"]
    artifacts.mkdir(parents=True)
    (artifacts / "page-1-failed.png").write_bytes(PIXEL)
    (artifacts / "attempt1-call-console-and-relay.txt").write_text(
        "--- page console ---\n[error] boom", encoding="utf-8"
    )
    rows = [passed, failed]
    (tmp_path / "results.json").write_text(json.dumps(rows), encoding="utf-8")
    publish.write_reports(tmp_path, rows, report.describe_run(STATUSES, args(), ("slides",)), ["ja", "en"])
    return failed


def test_the_markdown_links_a_verified_cell_to_its_picture_and_a_broken_one_to_its_artifacts(tmp_path):
    written(tmp_path)
    text = (tmp_path / "verification.md").read_text(encoding="utf-8")
    assert "[確認済み](evidence/switch.control--chromium.jpg)" in text
    assert "[不合格](artifacts/scenarios-test-switch-py-test-b/)" in text
    assert report.check_report(tmp_path) == []


def test_a_broken_cell_opens_on_its_run_with_its_picture_and_rerun_command(tmp_path, noflag_chromium):
    failed = written(tmp_path)
    page = noflag_chromium.new_page()
    page.goto((tmp_path / "index.html").as_uri())
    for word in ("確認済み", "未確認", "既知の違い", "—"):  # only 不合格 left
        page.get_by_role("checkbox", name=word).uncheck()
    table = page.locator("#table2")
    assert table.get_by_text("switch.control", exact=True).count() == 0
    table.locator("td.cell", has_text="不合格").first.click()
    runs = page.get_by_role("region", name="runs")
    picture = runs.locator("img").first
    picture.wait_for()
    assert picture.evaluate("(img) => img.complete && img.naturalWidth") > 0
    assert runs.locator("code.rerun").first.inner_text() == rerun_command(failed, "reference")
    assert "[error] boom" in runs.locator("pre.console").first.inner_text()
    page.close()
