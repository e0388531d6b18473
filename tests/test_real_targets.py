"""A playground the harness does not serve: the runs that use the relay share the target's one
relay port on one worker, the rest keep both workers, and a tool the target lacks gives no error.

pytest runs the scenarios with tests/collection_probe.py, which records what was collected and
which worker was given each run instead of running it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from harness.paths import ROOT
from harness.results import plain_nodeid
from harness.server import FixtureServer, ReferenceConfig
from harness.targets import reference_as_real


@pytest.fixture(scope="module")
def served():
    """The reference, served as a real playground would be: reachable, but not the harness's own."""
    with FixtureServer(ReferenceConfig(relay_port=9333)) as server:
        yield server


def probe(tmp_path, served, tools: tuple[str, ...], *args: str) -> tuple[list[dict], dict[str, list[str]]]:
    """Run pytest on the scenarios against the served reference as a real target with `tools`:
    (the runs collected, by the first collector; the node ids given to each worker)."""
    profile = tmp_path / "mine.toml"
    profile.write_text(reference_as_real(served.origin, 9333, tools), encoding="utf-8")
    env = {**os.environ, "HARNESS_PROBE": str(tmp_path), "PYTHONPATH": str(ROOT / "tests")}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "scenarios",
            "-p",
            "collection_probe",
            "-p",
            "no:cacheprovider",
            "--target",
            str(profile),
            "--browser-config",
            "chromium",
            "--browser-config",
            "chromium-noflag",
            *args,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    collected = json.loads(next(tmp_path.glob("collected-*.json")).read_text(encoding="utf-8"))
    given = {
        path.stem.removeprefix("given-"): path.read_text(encoding="utf-8").split()
        for path in tmp_path.glob("given-*.txt")
    }
    return collected, given


def test_every_run_that_uses_the_relay_goes_to_one_worker_and_the_rest_to_both(tmp_path, served):
    _, given = probe(tmp_path, served, ("sql", "slides"), "-n", "2", "--dist", "loadgroup")
    assert sorted(given) == ["gw0", "gw1"], given
    relay_runs = {worker: [n for n in nodeids if n.endswith("@relay-fixed-port")] for worker, nodeids in given.items()}
    holders = [worker for worker, runs in relay_runs.items() if runs]
    assert len(holders) == 1, {worker: len(runs) for worker, runs in relay_runs.items()}
    relay_run_ids = {plain_nodeid(n) for n in relay_runs[holders[0]]}
    assert any("-relay]" in n for n in relay_run_ids)
    # The in-page scenario that runs beside a relay (what a page contacts) is in the group too.
    assert any("contacts_only_its_origin_and_the_local_relay" in n and "-in-page]" in n for n in relay_run_ids)
    # Every run on the relay path is in the group; the other paths' runs went to both workers.
    assert not [n for nodeids in given.values() for n in nodeids if "-relay]" in n and "@" not in n]
    others = {worker: [n for n in nodeids if "@" not in n] for worker, nodeids in given.items()}
    assert all(others.values()), {worker: len(runs) for worker, runs in others.items()}


def test_a_tool_the_target_lacks_gives_no_run_that_could_error(tmp_path, served):
    collected, _ = probe(tmp_path, served, ("sql",))
    assert collected
    for run in collected:
        if run["skip"] is not None:
            continue
        tools = {run["params"].get(key) for key in ("tool", "page_tool")} - {None}
        op = run["params"].get("op")
        if op:
            tools.add(op.split("_")[0])
        tools |= set(run["tool_marker"]) if not tools else set()
        assert tools <= {"sql"}, f"{run['nodeid']} runs for {tools} on a target with sql only"
    skipped = {run["nodeid"].split("[")[0]: run["skip"] for run in collected if run["skip"]}
    assert (
        skipped["scenarios/node/test_node_page.py::test_the_log_is_a_tab_beside_the_terminal_console_and_http"]
        == "target reference-as-real has no node operations"
    )
