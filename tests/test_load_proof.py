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


def test_an_earlier_main_job_can_be_the_idle_run(tmp_path, monkeypatch, capsys):
    rows = [{"browser": "chromium", "outcome": "passed"}, {"browser": "chromium-noflag", "outcome": "skipped"}]
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
