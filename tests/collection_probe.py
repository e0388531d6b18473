"""A pytest plugin for the unit tests of real-target mode (tests/test_real_targets.py): with
HARNESS_PROBE=<folder> it records every scenario run pytest collected, and which worker was given
each one, without running any (no browser starts)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

FOLDER = Path(os.environ.get("HARNESS_PROBE", "."))


def _worker(config: pytest.Config) -> str:
    return getattr(config, "workerinput", {}).get("workerid", "controller")


def pytest_collection_finish(session: pytest.Session) -> None:
    runs = []
    for item in session.items:
        skip = item.get_closest_marker("skip")
        tool = item.get_closest_marker("tool")
        params = getattr(getattr(item, "callspec", None), "params", {})
        runs.append(
            {
                "nodeid": item.nodeid,
                "skip": skip.kwargs.get("reason", "") if skip else None,
                "tool_marker": list(tool.args) if tool else [],
                "params": {k: v if isinstance(v, str) else getattr(v, "name", repr(v)) for k, v in params.items()},
            }
        )
    (FOLDER / f"collected-{_worker(session.config)}.json").write_text(json.dumps(runs), encoding="utf-8")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> bool:
    with (FOLDER / f"given-{_worker(item.config)}.txt").open("a", encoding="utf-8") as given:
        given.write(item.nodeid + "\n")
    return True  # not run
