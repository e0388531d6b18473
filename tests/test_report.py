"""The Verification tables rendered from results of every shape a run can produce (harness/report.py)."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from harness import checks, publish, report
from harness.results import fold
from harness.verify import ConfigStatus

STATUSES = [
    ConfigStatus("chromium", True, "Chromium 156 (system)"),
    ConfigStatus("chromium-noflag", True, "Chromium 156 (system)"),
    ConfigStatus(
        "firefox", False, "firefox is not installed; install it with `python -m playwright install --with-deps firefox`"
    ),
]


def args(**overrides):
    return argparse.Namespace(**{"target": "reference", "call_path": None, **overrides})


def row(
    scenario="scenarios/test_switch.py::test_a",
    browser="chromium",
    path="in-page",
    tool="slides",
    rules=("switch.control",),
    outcome="passed",
    checked=None,
    broken=None,
    message="",
    findings=None,
    op=None,
):
    """A result row as results.json holds it; `checked` maps rule -> check outcome."""
    params = {"browser_name": browser, "tool": tool, "call_path": path, "op": op}
    params = {k: v for k, v in params.items() if v is not None}
    if checked is None:
        checked = {rule: "passed" for rule in rules} if outcome in ("passed", "stale") else {}
    return {
        "nodeid": f"{scenario}[{'-'.join(str(v) for v in params.values())}]",
        "scenario": scenario,
        "browser": browser,
        "call_path": path,
        "tool": tool,
        "op": op,
        "fault": None,
        "params": params,
        "rules": list(rules),
        "outcome": outcome,
        "broken": broken,
        "subject": None,
        "message": message,
        "checks": [
            {
                "rule": r,
                "subject": None,
                "outcome": o,
                "message": "m" if o == "failed" else "",
                "reason": "why" if o in ("expected", "stale") else "",
            }
            for r, o in checked.items()
        ],
        "findings": findings or {},
        "duration": 1.0,
        "artifacts": "a",
    }


REFERENCE_TOOLS = ("slides", "excalidraw", "drawio")


def rendered(rows, statuses=STATUSES, lang="ja", ai_tools=REFERENCE_TOOLS, **kw):
    return report.render(rows, report.describe_run(statuses, args(**kw), ai_tools), lang)


def rule_line(text: str, rule: str) -> list[str]:
    """The rule's cells as words (a cell's link to its picture or artifacts left out)."""
    line = next(each for each in text.splitlines() if f"`{rule}`" in each)
    return [re.sub(r"^\[(.+?)\]\([^)]*\)", r"\1", cell.strip()) for cell in re.split(r"(?<!\\)\|", line)[1:-1]][2:]


def header(text: str) -> list[str]:
    line = next(each for each in text.splitlines() if each.startswith("| 節 | 規則 |"))
    return [cell.strip() for cell in line.split("|")[1:-1]][2:]


ENVS = [
    "chromium · in-page",
    "chromium · relay",
    "chromium · webmcp",
    "chromium · extension",
    "chromium-noflag · in-page",
    "chromium-noflag · relay",
    "firefox · in-page",
    "firefox · relay",
]


def test_environments_are_every_browser_by_every_call_path_it_supports():
    # The browser's own WebMCP needs the flag: no column for it without.
    assert header(rendered([row()])) == ENVS


def test_a_rule_is_verified_only_where_a_check_of_it_passed():
    text = rendered([row(), row(path="relay", outcome="skipped", message="needs the relay")])
    cells = rule_line(text, "switch.control")
    assert cells[0] == "確認済み"
    assert cells[1].startswith("未確認 [")
    assert "needs the relay" in text
    # No row of chromium-noflag at all: not run; firefox is missing: its reason.
    assert cells[4].startswith("未確認 [") and cells[6].startswith("未確認 [")
    assert "firefox is not installed" in text


def test_all_skipped_says_so_and_verifies_nothing():
    rows = [
        row(outcome="skipped", message="not here", browser=b, path=p)
        for b in ("chromium", "chromium-noflag")
        for p in ("in-page", "relay")
    ]
    text = rendered(rows)
    assert "確認済み" not in "".join(rule_line(text, "switch.control"))
    assert "全ての行がスキップされた" in text
    assert "4 件: not here" in text


def test_harness_error_is_unverified_never_broken():
    text = rendered([row(outcome="error", message="setup: relay: timed out after 60 s waiting for tools")])
    assert rule_line(text, "switch.control")[0].startswith("未確認")
    assert "不合格" not in "".join(rule_line(text, "switch.control"))
    errors = text.split("### ハーネスのエラー")[1]
    assert "timed out after 60 s" in errors
    assert "### 守られていない規則" not in text


def test_failed_check_is_broken_and_listed():
    text = rendered(
        [row(outcome="failed", broken="switch.control", checked={"switch.control": "failed"}, message="no switch")]
    )
    assert rule_line(text, "switch.control")[0] == "不合格"
    assert "no switch" in text.split("### 守られていない規則")[1]


def test_failure_of_one_rule_leaves_the_other_unverified_unless_its_check_passed():
    rules = ("switch.control", "switch.default-off")
    stopped = row(rules=rules, outcome="failed", broken="switch.control", checked={"switch.control": "failed"})
    text = rendered([stopped])
    assert rule_line(text, "switch.default-off")[0].startswith("未確認 [")
    after = row(
        rules=rules,
        outcome="failed",
        broken="switch.default-off",
        checked={"switch.control": "passed", "switch.default-off": "failed"},
    )
    text = rendered([after])
    assert rule_line(text, "switch.control")[0] == "確認済み"
    assert rule_line(text, "switch.default-off")[0] == "不合格"


def test_mixed_pass_and_fail_in_one_environment_is_broken():
    text = rendered(
        [row(), row(tool="drawio", outcome="failed", broken="switch.control", checked={"switch.control": "failed"})]
    )
    assert rule_line(text, "switch.control")[0] == "不合格"


def test_passing_row_without_a_check_of_its_rule_verifies_nothing():
    text = rendered([row(rules=("switch.control", "switch.default-off"), checked={"switch.control": "passed"})])
    assert rule_line(text, "switch.default-off")[0].startswith("未確認 [")
    assert "この実行で走らせていない" in text


def test_rule_checked_only_on_the_other_path_is_not_applicable_where_its_rows_did_not_check_it():
    rules = ("switch.off-unregisters", "relay.tools-follow-page")
    text = rendered(
        [
            row(rules=rules, checked={"switch.off-unregisters": "passed"}),
            row(
                path="relay",
                rules=rules,
                checked={"relay.tools-follow-page": "passed", "switch.off-unregisters": "passed"},
            ),
        ]
    )
    assert rule_line(text, "relay.tools-follow-page")[:2] == ["—", "確認済み"]


def test_known_difference_is_neither_verified_nor_broken():
    text = rendered([row(rules=("operations.annotations",), checked={"operations.annotations": "expected"})])
    assert rule_line(text, "operations.annotations")[0].startswith("既知の違い [")
    assert "### 既知の違い" in text and "- why" in text


def test_rows_without_a_call_path_speak_for_every_path_and_rows_without_a_tool_render():
    text = rendered([row(path=None, tool=None, op="slides_write", rules=("storage.shape",))])
    assert rule_line(text, "storage.shape")[:2] == ["確認済み", "確認済み"]


def test_rule_run_only_on_another_path_is_not_applicable_here():
    text = rendered([row(path="relay", rules=("relay.names",))])
    assert rule_line(text, "relay.names")[:2] == ["—", "確認済み"]


def test_in_page_only_run_shows_the_relay_row_and_relay_rules_unverified():
    text = rendered([row(rules=("switch.control",))], call_path=["in-page"])
    assert header(text) == ["chromium · in-page", "chromium-noflag · in-page", "firefox · in-page"]
    relay_row = next(each for each in text.splitlines() if each.startswith("| MCP-B の relay"))
    assert "未確認" in relay_row
    assert rule_line(text, "relay.names")[0].startswith("未確認 [")
    assert "この実行で走らせていない" in text


def test_one_browser_only():
    text = rendered([row()], statuses=STATUSES[:1])
    assert header(text) == ["chromium · in-page", "chromium · relay", "chromium · webmcp", "chromium · extension"]


CALLS = "scenarios/test_operations.py::test_every_operation_answers"


def calls(tool, browser="chromium", path="in-page", outcome="passed", ops=None):
    from harness import contract

    ops = ops or {op.name: "ok" for op in contract.operations_of(tool)}
    return {
        **row(
            CALLS,
            browser,
            path,
            tool,
            ("relay.calls",),
            outcome,
            findings={checks.OPERATIONS_CALLED: ops},
            broken="relay.calls" if outcome == "failed" else None,
            checked={"relay.calls": "failed" if outcome == "failed" else "passed"},
            message="boom" if outcome == "failed" else "",
        ),
        "calls_row": True,
    }


def test_call_path_row_counts_operations_that_answered_ok():
    rows = [calls(t) for t in ("slides", "excalidraw", "drawio")]
    text = rendered(rows)
    in_page = next(each for each in text.splitlines() if each.startswith("| ページの中の API"))
    assert "10 個の全てを呼べた" in in_page and "[chromium]" in in_page
    assert "未確認: chromium-noflag、firefox" in in_page
    assert "node、sql、go の 13 個の操作は、配信に無いので未確認である。" in text


def test_tools_served_but_not_called_are_not_run_rather_than_absent():
    text = rendered([calls("slides")])
    assert "excalidraw、drawio の 7 個の操作は、この実行で呼んでいないので未確認である。" in text
    assert "node、sql、go の 13 個の操作は、配信に無いので未確認である。" in text


def test_call_path_row_with_a_failure_says_broken_not_all():
    rows = [calls("slides"), calls("drawio", outcome="failed", ops={"drawio_read": "ok", "drawio_write": "not_ready"})]
    text = rendered(rows)
    in_page = next(each for each in text.splitlines() if each.startswith("| ページの中の API"))
    assert "全て" not in in_page and "不合格: chromium drawio: boom" in in_page


def test_contacted_hosts_only_for_pages_that_ran_the_network_scenario():
    text = rendered(
        [
            row(findings={checks.CONTACTED: ["http://localhost:1", "ws://127.0.0.1:2"]}),
            row(tool=None, op="slides_write"),
        ]
    )
    assert "slides のページが通信した先は" in text
    assert "go のページ" not in text and "None" not in text


def test_results_fold_phases_setup_error_then_teardown():
    base = {
        "nodeid": "scenarios/test_x.py::test_y[chromium-slides-in-page]",
        "rules": ["switch.control"],
        "params": {"browser_name": "chromium", "tool": "slides", "call_path": "in-page"},
        "checks": [],
        "findings": {},
    }
    folded = fold(
        [
            {**base, "phase": "setup", "kind": "error", "message": "setup: boom"},
            {**base, "phase": "teardown", "kind": "passed", "message": ""},
        ]
    )
    assert folded["outcome"] == "error" and folded["message"] == "setup: boom"
    folded = fold(
        [
            {**base, "phase": "setup", "kind": "passed", "message": ""},
            {**base, "phase": "call", "kind": "failed", "rule": "switch.control", "message": "E"},
            {**base, "phase": "teardown", "kind": "error", "message": "teardown: gone"},
        ]
    )
    assert (
        folded["outcome"] == "failed" and folded["broken"] == "switch.control" and "teardown: gone" in folded["message"]
    )
    folded = fold(
        [
            {**base, "phase": "setup", "kind": "passed", "message": ""},
            {**base, "phase": "call", "kind": "passed", "message": ""},
            {**base, "phase": "teardown", "kind": "error", "message": "teardown: gone"},
        ]
    )
    assert folded["outcome"] == "error"


@pytest.mark.parametrize(
    "rows",
    [
        [row()],
        [row(outcome="skipped", message="x")],
        [row(outcome="failed", broken="switch.control", checked={"switch.control": "failed"})],
        [row(outcome="error", message="setup: x"), row(path="relay")],
        [row(rules=("operations.annotations",), checked={"operations.annotations": "expected"})],
    ],
    ids=["passed", "skipped", "failed", "error", "known"],
)
def test_check_report_accepts_what_render_wrote(tmp_path, rows):
    write(tmp_path, rows)
    assert report.check_report(tmp_path) == []


def write(folder, rows, text=None, statuses=STATUSES):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(rows), encoding="utf-8")
    publish.write_reports(folder, rows, report.describe_run(statuses, args(), REFERENCE_TOOLS), ["ja", "en"])
    if text:
        (folder / "verification.md").write_text(text, encoding="utf-8")


def test_check_report_finds_a_cell_the_results_do_not_bear_out(tmp_path):
    rows = [row(outcome="skipped", message="x")]
    text = rendered(rows)
    line = next(each for each in text.splitlines() if "`switch.control`" in each)
    forged = line.replace("未確認 [1]", "確認済み", 1)
    write(tmp_path, rows, text.replace(line, forged))
    problems = report.check_report(tmp_path)
    assert any("switch.control [chromium · in-page]: 確認済み" in p for p in problems), problems


def test_check_report_finds_missing_files_and_malformed_tables(tmp_path):
    assert report.check_report(tmp_path) == [f"{name} is missing" for name in report.REPORT_FILES]
    (tmp_path / "results.json").unlink(missing_ok=True)
    rows = [row()]
    text = rendered(rows)
    write(tmp_path, rows, text.replace("| 確認済み |", "| 確認済み | extra |", 1))
    assert any("cells" in p for p in report.check_report(tmp_path))


def test_merge_of_runs_on_different_browser_sets_is_one_run_over_both(tmp_path):
    flagged = [row(), row(path="relay", rules=("relay.names",))]
    noflag = [
        row(browser="chromium-noflag"),
        row(
            browser="chromium-noflag",
            outcome="failed",
            broken="switch.control",
            tool="drawio",
            checked={"switch.control": "failed"},
        ),
    ]
    missing = STATUSES[2]
    first = [STATUSES[0], ConfigStatus("chromium-noflag", False, "not asked for"), missing]
    second = [ConfigStatus("chromium", False, "not asked for"), STATUSES[1], missing]
    write(tmp_path / "a", flagged, statuses=first)
    write(tmp_path / "b", noflag, statuses=second)
    publish.merge([tmp_path / "a", tmp_path / "b"], tmp_path / "merged", ["ja"])
    write(tmp_path / "both", flagged + noflag)
    assert (tmp_path / "merged" / "verification.md").read_text() == (tmp_path / "both" / "verification.md").read_text()
    assert report.check_report(tmp_path / "merged") == ["verification.en.md is missing"]  # only Japanese was asked for


def test_merge_names_each_machine(tmp_path):
    write(tmp_path / "a", [row()])
    run = json.loads((tmp_path / "a" / "run.json").read_text())
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "results.json").write_text(json.dumps([row(browser="chromium-noflag")]))
    (tmp_path / "b" / "run.json").write_text(json.dumps({**run, "machine": "mac: macOS 15 (arm64, 8 cores)"}))
    publish.merge([tmp_path / "a", tmp_path / "b"], tmp_path / "merged", ["ja"])
    text = (tmp_path / "merged" / "verification.md").read_text()
    assert "mac: macOS 15" in text and run["machine"] in text
    assert "on mac: macOS 15" in text


def test_merge_refuses_a_folder_that_is_not_a_run(tmp_path):
    with pytest.raises(SystemExit, match="not a verify folder"):
        publish.merge([tmp_path], tmp_path / "out", ["ja"])


def test_merge_of_the_shards_of_one_run_is_that_run(tmp_path):
    rows = [
        row(),
        row(path="relay", rules=("relay.names",)),
        row(tool="drawio"),
        row(tool="excalidraw", outcome="failed", broken="switch.control", checked={"switch.control": "failed"}),
    ]
    write(tmp_path / "one", rows[0::2])
    write(tmp_path / "two", rows[1::2])
    publish.merge([tmp_path / "one", tmp_path / "two"], tmp_path / "merged", ["ja"])
    write(tmp_path / "whole", rows)
    assert (tmp_path / "merged" / "verification.md").read_text() == (tmp_path / "whole" / "verification.md").read_text()


def test_native_only_rows_name_only_configurations_with_the_flag():
    rows = [calls(t, path=p) for t in ("slides", "excalidraw", "drawio") for p in ("in-page", "webmcp", "extension")]
    text = rendered(rows)
    for start in ("| ブラウザ自身の WebMCP", "| 拡張機能の content script"):
        line = next(each for each in text.splitlines() if each.startswith(start))
        assert "10 個の全てを呼べた" in line and "[chromium]" in line
        assert "chromium-noflag" not in line and "firefox" not in line  # they cannot carry it: absent, not unverified
    # The finding: the registration reached the browser's implementation, as each such path saw it.
    assert text.count("ブラウザの実装だけを見る呼び方") == 2


def test_the_markdown_opens_on_the_counts_per_environment_and_the_runs_time():
    rows = [
        row(rules=("switch.control",)),
        row(
            scenario="scenarios/test_switch.py::test_b",
            rules=("switch.default-off",),
            outcome="failed",
            checked={"switch.default-off": "failed"},
            broken="switch.default-off",
        ),
    ]
    run = {**report.describe_run(STATUSES, args(), ("slides",)), "seconds": 1500}
    for lang, head, took in (
        ("ja", ["環境", "確認済み", "不合格"], "実行にかかった時間は 25 分である。"),
        ("en", ["Environment", "verified", "broken"], "The run took 25 minutes."),
    ):
        text = report.render(rows, run, lang)
        summary = report._tables(text)[0]  # the first table, before Table 1
        assert summary[0][:3] == head
        assert next(cells for cells in summary if cells[0] == "chromium · in-page")[1:3] == ["1", "1"]
        assert took in text.split(report.TEXT[lang]["head1"])[0]
