"""index.html, opened in Chromium as a reader would open it (file://): filtered to 不合格, a cell
opened shows its run, the failure's picture loaded and the command that runs it again."""

from __future__ import annotations

import base64
import json

from test_report import STATUSES, args, row

from harness import publish, report
from harness.html_report import rerun_command
from harness.rules import RULES

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


def test_the_page_opens_on_the_counts_per_environment(tmp_path, noflag_chromium):
    written(tmp_path)
    page = noflag_chromium.new_page()
    page.goto((tmp_path / "index.html").as_uri())
    summary = page.get_by_role("region", name="summary")
    counts = summary.get_by_role("table")
    header = [cell.inner_text() for cell in counts.get_by_role("row").first.get_by_role("columnheader").all()]
    assert header[1:3] == ["確認済み", "不合格"]
    chromium_in_page = counts.get_by_role("row").filter(has_text="chromium · in-page")
    cells = [cell.inner_text() for cell in chromium_in_page.get_by_role("cell").all()]
    assert cells[:2] == ["1", "1"]  # switch.control passed, switch.default-off broken
    assert "対象: reference" in summary.inner_text()
    page.close()


def test_the_search_finds_a_rule_by_its_id_and_by_a_word_of_its_text(tmp_path, noflag_chromium):
    written(tmp_path)
    page = noflag_chromium.new_page()
    page.goto((tmp_path / "index.html").as_uri())
    table = page.locator("#table2")
    search = page.get_by_role("searchbox", name="検索")
    search.fill("switch.default-off")
    assert [code.inner_text() for code in table.locator("code").all()] == ["switch.default-off"]
    search.fill("the switch is on")  # a word of the failed run's message
    assert [code.inner_text() for code in table.locator("code").all()] == ["switch.default-off"]
    search.fill("ヘッダの右端に")  # a word of switch.control's text
    assert [code.inner_text() for code in table.locator("code").all()] == ["switch.control"]
    search.fill("")
    assert table.locator("code").count() == len(RULES)
    page.close()
