"""`--shard I/N`: the scenario runs split over N machines by their measured durations.

Every `python -m harness verify` adds its runs' durations to `durations.json` in its folder; a later
sharded run reads such a file (`--shard-durations FILE`, by default the one in its own folder) and
deals the runs out longest first, each to the shard with the least time so far. A run no file knows
counts as the median of those it knows; with no file at all every run counts the same, which splits by
count. The same file gives the same split on every machine, whatever order collection gave.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

DURATIONS = "durations.json"


def parse_shard(text: str) -> tuple[int, int]:
    """'2/4' → (2, 4); anything else is one usage error."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--shard takes I/N (e.g. 1/4), not {text!r}") from None
    if not 1 <= index <= count:
        raise pytest.UsageError(f"--shard {text}: I must be between 1 and N")
    return index, count


def parts(nodeids: list[str], count: int, durations: dict[str, float] | None = None) -> list[set[str]]:
    """The `count` shards of `nodeids`: every nodeid in exactly one, their expected times as even as
    dealing longest first allows."""
    known = [durations[n] for n in nodeids if durations and n in durations]
    default = statistics.median(known) if known else 1.0
    expected = {n: (durations or {}).get(n, default) for n in nodeids}
    shards: list[set[str]] = [set() for _ in range(count)]
    totals = [0.0] * count
    for nodeid in sorted(set(nodeids), key=lambda n: (-expected[n], n)):
        least = min(range(count), key=lambda i: (totals[i], i))
        shards[least].add(nodeid)
        totals[least] += expected[nodeid]
    return shards


def in_shard(nodeids: list[str], index: int, count: int, durations: dict[str, float] | None = None) -> set[str]:
    """The nodeids of part `index` (1-based) of `count`."""
    return parts(nodeids, count, durations)[index - 1]


def read_durations(path: Path) -> dict[str, float]:
    """A durations file's seconds per scenario run; one usage error for a file that is not one."""
    try:
        durations = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise pytest.UsageError(f"--shard-durations {path}: not a durations file ({error})") from None
    if not isinstance(durations, dict) or not all(isinstance(v, (int, float)) for v in durations.values()):
        raise pytest.UsageError(f"--shard-durations {path}: not a durations file (nodeid → seconds)")
    return durations


def write_durations(path: Path, rows: list[dict]) -> None:
    """Add the runs of `rows` (results.json's) to the durations file at `path`, keeping what it knew
    of the others: a sharded or partial run measures only its own runs."""
    durations = read_durations(path) if path.is_file() else {}
    durations.update(
        {row["nodeid"]: row["duration"] for row in rows if row.get("duration") and row.get("outcome") != "skipped"}
    )
    path.write_text(json.dumps(dict(sorted(durations.items())), indent=0) + "\n", encoding="utf-8")
