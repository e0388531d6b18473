"""The load proof's verdict: each loaded run judged on its own, the cores kept busy only while it runs."""

import argparse
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
