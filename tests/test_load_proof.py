"""The load proof's verdict: each loaded run judged on its own, the cores kept busy only while it runs."""

import argparse
import json
from collections import Counter
from pathlib import Path

from harness import selftest


def busy_loops() -> list[str]:
    """The load proof's busy loops still running (their command line holds BUSY)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # ended meanwhile
        if selftest.BUSY in text:
            found.append(text)
    return found


def fake_main_job(outcomes):
    """Stands in for the main job (20 minutes each): returns the runs' outcomes in turn, and
    notes how many busy processes were alive while each ran."""
    seen_busy = []

    def run(out, workers):
        seen_busy.append(len(busy_loops()))
        counts, rows = outcomes.pop(0)
        return 60.0, Counter(counts), rows

    return run, seen_busy


def test_every_loaded_run_must_be_clean(monkeypatch, capsys):
    clean = ({"passed": 10}, [])
    flaky = ({"passed": 10}, [{"nodeid": "s::t", "flaky": "setup: the relay never listed the tab"}])
    run, seen_busy = fake_main_job([clean, clean, flaky])
    monkeypatch.setattr(selftest, "_main_job", run)
    assert selftest.under_load(argparse.Namespace(workers="1", runs=2)) == 1  # 1 of 20 flaky: 5 % > 0.5 %
    out = capsys.readouterr().out
    assert "run 1: 0 failed, 0 errors, 0 flaky" in out and "flaky s::t: setup: the relay never listed" in out
    assert "1 of 2 loaded runs" in out
    assert seen_busy[0] == 0 and all(n > 0 for n in seen_busy[1:])  # idle first, then busy cores
    assert not busy_loops()  # every busy loop ended


def main_job_row(browser: str, call_path: str, outcome: str, latitudes: list[str] | None = None) -> dict:
    """A row as the test command's main job writes it: every latitude on chromium in-page only."""
    params = {"browser_name": browser, "call_path": call_path}
    return {
        "nodeid": f"s::t[{browser}-{call_path}]",
        "browser": browser,
        "params": params,
        "outcome": outcome,
        "latitudes": selftest.expected_latitudes(params) if latitudes is None else latitudes,
    }


def test_an_earlier_main_job_can_be_the_idle_run(tmp_path, monkeypatch, capsys):
    rows = [main_job_row("chromium", "in-page", "passed"), main_job_row("chromium-noflag", "relay", "skipped")]
    assert rows[0]["latitudes"] and not rows[1]["latitudes"]
    (tmp_path / "results.json").write_text(json.dumps(rows))
    (tmp_path / "junit.xml").write_text('<testsuites><testsuite name="pytest" time="1200.5"/></testsuites>')
    run, seen_busy = fake_main_job([({"passed": 10}, [])])
    monkeypatch.setattr(selftest, "_main_job", run)
    assert selftest.under_load(argparse.Namespace(workers="1", runs=1, idle=str(tmp_path))) == 0
    out = capsys.readouterr().out
    assert "idle (recorded in" in out and "in 20.0 min" in out and "wall time loaded / idle = 0.05" in out
    assert len(seen_busy) == 1 and seen_busy[0] > 0  # no idle run of its own: only the loaded one


def test_a_folder_that_is_no_main_job_on_both_chromiums_is_refused(tmp_path, capsys):
    (tmp_path / "results.json").write_text(json.dumps([{"browser": "chromium", "outcome": "passed"}]))
    (tmp_path / "junit.xml").write_text('<testsuite name="pytest" time="1"/>')
    assert selftest.under_load(argparse.Namespace(workers="1", runs=1, idle=str(tmp_path))) == 2
    assert "not the load proof's" in capsys.readouterr().out
    assert selftest.under_load(argparse.Namespace(workers="1", runs=1, idle=str(tmp_path / "none"))) == 2
    assert "holds no verify run" in capsys.readouterr().out


def test_an_idle_run_with_other_latitudes_is_refused(tmp_path, capsys):
    """Its runs would differ from the loaded ones by design (a latitude can leave a rule 未確認),
    not by the load."""
    (tmp_path / "junit.xml").write_text('<testsuite name="pytest" time="1"/>')
    without = [
        main_job_row("chromium", "in-page", "passed", latitudes=[]),
        main_job_row("chromium-noflag", "relay", "passed"),
    ]
    (tmp_path / "results.json").write_text(json.dumps(without))
    assert selftest.under_load(argparse.Namespace(workers="1", runs=1, idle=str(tmp_path))) == 2
    assert "s::t[chromium-in-page] ran with latitudes none, the load proof's with" in capsys.readouterr().out
    unnamed = [{k: v for k, v in row.items() if k != "latitudes"} for row in without]
    (tmp_path / "results.json").write_text(json.dumps(unnamed))
    assert selftest.under_load(argparse.Namespace(workers="1", runs=1, idle=str(tmp_path))) == 2
    assert "do not name their latitudes" in capsys.readouterr().out


def test_the_load_proofs_runs_are_the_test_commands_main_job():
    main_job = selftest.main_job_args(Path("main"), "2")
    loaded = selftest.main_job_args(Path("loaded"), "2", selftest.LOAD_BROWSERS)
    assert main_job.pytest_args == loaded.pytest_args and "--latitudes-only-on" in loaded.pytest_args
