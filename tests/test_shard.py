"""`--shard I/N`: the main job split over machines, joined again by `report --merge`."""

import subprocess
import sys

import pytest

from harness.paths import ROOT
from harness.pytest_plugin import in_shard, parse_shard


def test_shards_partition_the_scenarios_whatever_the_collection_order():
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
