"""The one pytest command behind `verify`, the latitude proof and the fault proof: the scenarios on
xdist workers, every result recorded as a row, a light trace and screenshots of each failure
(not in the fault proof, whose runs fail by design)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path


def _repeated(option: str, values: Iterable[str]) -> list[str]:
    return [part for value in values for part in (option, value)]


def scenarios_command(
    *,
    workers: int | str,
    nodeids: Iterable[str] = (),
    rows: Path,
    artifacts: Path,
    browsers: Iterable[str] = (),
    call_paths: Iterable[str] = (),
    latitudes: Iterable[str] = (),
    faults: Iterable[str] = (),
    quiet: bool = False,
    failure_traces: bool = True,
    extra: Iterable[str] = (),
) -> list[str]:
    """All scenarios, or `nodeids`; `quiet` for the proofs: their failures are data, judged afterwards.
    Without `failure_traces` a failure leaves only its console and relay text under `artifacts`."""
    return [
        sys.executable,
        "-m",
        "pytest",
        *(nodeids or ["scenarios"]),
        "-p",
        "no:cacheprovider",
        *(["-q", "--tb=no", "--no-summary"] if quiet else []),
        "-n",
        str(workers),
        "--dist",
        "loadgroup",
        f"--results-json={rows}",
        f"--output={artifacts}",
        *(["--trace-failures"] if failure_traces else []),
        *_repeated("--browser-config", browsers),
        *_repeated("--call-path", call_paths),
        *_repeated("--latitude", latitudes),
        *_repeated("--fault", faults),
        *extra,
    ]
