"""`--shard I/N`: the main job split over machines, joined again by `report --merge`."""

import json
import subprocess
import sys

import pytest

from harness.paths import ROOT
from harness.shards import in_shard, parse_shard, parts, read_durations, write_durations


def test_shards_partition_the_scenarios_by_count_where_no_duration_is_known():
    nodeids = [f"scenarios/test_{n % 7}.py::test_{n}" for n in range(101)]
    parts = [in_shard(nodeids, i, 4) for i in (1, 2, 3, 4)]
    assert set().union(*parts) == set(nodeids)
    assert sum(len(part) for part in parts) == len(nodeids)
    assert max(map(len, parts)) - min(map(len, parts)) <= 1
    assert in_shard(list(reversed(nodeids)), 2, 4) == parts[1]


@pytest.mark.parametrize("text", ["0/3", "4/3", "1-3", "a/b", "2"])
def test_a_malformed_shard_is_one_usage_error(text):
    with pytest.raises(pytest.UsageError, match="--shard"):
        parse_shard(text)


def test_pytest_runs_only_its_shard(collected):
    def switch_runs(*args: str) -> set[str]:
        return set(collected("scenarios/test_switch.py", "--browser", "chromium", *args))

    everything = switch_runs()
    halves = switch_runs("--shard", "1/2"), switch_runs("--shard", "2/2")
    assert halves[0] | halves[1] == everything and not halves[0] & halves[1] and all(halves)


def test_verify_refuses_a_malformed_shard_before_running(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "harness", "verify", "--out", str(tmp_path), "--shard", "3/2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and "--shard 3/2" in run.stderr


def test_shards_by_measured_time_end_within_15_percent_of_each_other():
    # A main job's shape: a few long runs (draw.io, the engines) among many short ones.
    nodeids = [f"scenarios/test_{n % 9}.py::test_{n}" for n in range(400)]
    durations = {nodeid: (60.0 if n % 37 == 0 else 2.0 + n % 5) for n, nodeid in enumerate(nodeids)}
    shards = parts(nodeids, 8, durations)
    totals = [sum(durations[n] for n in shard) for shard in shards]
    assert set().union(*shards) == set(nodeids) and sum(map(len, shards)) == len(nodeids)
    assert max(totals) <= 1.15 * min(totals), totals
    by_count = [sum(durations[n] for n in in_shard(nodeids, i, 8)) for i in range(1, 9)]
    assert max(by_count) > max(totals), "the measured split is no better than the count"
    assert parts(list(reversed(nodeids)), 8, durations) == shards


def test_a_run_no_file_knows_counts_as_the_median():
    durations = {"a": 10.0, "b": 1.0, "c": 1.0}
    shards = parts(["a", "b", "c", "new"], 2, durations)
    assert {"a"} in shards and {"b", "c", "new"} in shards


def test_durations_are_added_to_what_the_file_knew(tmp_path):
    path = tmp_path / "durations.json"
    write_durations(path, [{"nodeid": "x", "duration": 3.0, "outcome": "passed"}])
    write_durations(
        path,
        [{"nodeid": "y", "duration": 5.0, "outcome": "failed"}, {"nodeid": "z", "duration": 0.0, "outcome": "skipped"}],
    )
    assert read_durations(path) == {"x": 3.0, "y": 5.0}
    path.write_text(json.dumps(["not", "a", "map"]))
    with pytest.raises(pytest.UsageError, match="not a durations file"):
        read_durations(path)


def test_pytest_deals_its_shard_by_the_durations_file(collected, tmp_path):
    everything = sorted(collected("scenarios/test_switch.py", "--browser", "chromium"))
    heavy = everything[-1]
    durations = tmp_path / "durations.json"
    durations.write_text(json.dumps({heavy: 1000.0, **{nodeid: 1.0 for nodeid in everything[:-1]}}))
    shards = [
        set(collected("scenarios/test_switch.py", "--browser", "chromium", "--shard", f"{i}/2",
                      "--shard-durations", str(durations)))
        for i in (1, 2)
    ]  # fmt: skip
    assert {heavy} in shards and shards[0] | shards[1] == set(everything)
