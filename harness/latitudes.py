"""The latitude proof, the twin of the fault proof: where the spec leaves room, a conformant
playground may differ from the reference, and the harness must not fail it for that.

The catalog (fixtures/reference/latitudes.toml) names each latitude with the sentence (or the
silence) that allows it; the reference implements each as an alternative switched on like a
fault. `python -m harness latitudes --prove` runs the scenarios with latitudes on: every
failure there is a false alarm of the harness.
"""

from __future__ import annotations

import json
import subprocess
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from harness.paths import REFERENCE, ROOT
from harness.sessions import scenarios_command

CATALOG = REFERENCE / "latitudes.toml"


@dataclass(frozen=True)
class Latitude:
    name: str
    allows: str  # the spec's sentence, or the silence, that leaves the room
    changes: str  # what the reference does differently while it is on


def catalog() -> list[Latitude]:
    data = tomllib.loads(CATALOG.read_text(encoding="utf-8"))
    latitudes, problems = [], []
    for name, entry in data.items():
        if set(entry) != {"allows", "changes"}:
            problems.append(f"{name}: needs exactly allows and changes, has {sorted(entry)}")
            continue
        latitudes.append(Latitude(name, entry["allows"], entry["changes"]))
    if problems:
        raise ValueError(f"{CATALOG}: " + "; ".join(problems))
    return latitudes


def unknown_latitudes(names: list[str]) -> str | None:
    from harness.faults import unknown_names

    return unknown_names("latitude", names, {latitude.name for latitude in catalog()})


# --- the proof -------------------------------------------------------------------------------

FALSE_ALARMS = ("failed", "error", "stale")


def _pytest(
    browsers: list[str],
    workers: int,
    latitudes: list[str],
    rows_path: Path,
    artifacts: Path,
    call_paths: list[str],
    nodeids: list[str] | None = None,
) -> list[dict]:
    command = scenarios_command(
        workers=workers,
        rows=rows_path,
        artifacts=artifacts,
        browsers=browsers,
        call_paths=call_paths,
        latitudes=latitudes,
        quiet=True,
        nodeids=nodeids or [],
    )
    subprocess.run(command, cwd=ROOT)  # its progress shows; its failures are the proof's data
    return json.loads(rows_path.read_text(encoding="utf-8")) if rows_path.exists() else []


def run_proof(
    browsers: list[str],
    workers: int,
    only: list[str] | None = None,
    out: Path | None = None,
    call_paths: list[str] | tuple[str, ...] = (),
    rows: list[dict] | None = None,
) -> int:
    """Every scenario with all the latitudes on at once; where something fails, each latitude alone
    on the failing scenarios names the ones it comes from. Writes latitude-proof.json into `out`.
    `call_paths` narrows the run: latitudes are the page's, whichever way a call arrives. `rows`:
    the runs with every latitude on, made already (the test command's main job makes them)."""
    latitudes = [latitude.name for latitude in catalog() if not only or latitude.name in only]
    out = out or ROOT / "verification" / "latitude-proof"
    out.mkdir(parents=True, exist_ok=True)
    print(
        f"latitude proof: {len(latitudes)} latitudes together on {', '.join(browsers)}"
        + (f", call paths {', '.join(call_paths)}" if call_paths else "")
        + (f" ({len(rows)} runs made already)" if rows is not None else ""),
        flush=True,
    )
    if rows is None:
        rows = _pytest(
            browsers, workers, latitudes, out / "latitude-proof.json", out / "latitude-artifacts", list(call_paths)
        )
    if not rows:
        print("latitude proof: the proof's pytest session did not run")
        return 1
    alarms = [row for row in rows if row["outcome"] in FALSE_ALARMS]
    blamed: dict[str, list[dict]] = {}
    if alarms and len(latitudes) > 1:
        nodeids = sorted({row["nodeid"] for row in alarms})
        for latitude in latitudes:
            alone = _pytest(
                browsers,
                workers,
                [latitude],
                out / f"latitude-{latitude}.json",
                out / "latitude-artifacts",
                list(call_paths),
                nodeids,
            )
            blamed[latitude] = [row for row in alone if row["outcome"] in FALSE_ALARMS]
    elif alarms:
        blamed[latitudes[0]] = alarms
    for row in alarms:
        print(
            f"FALSE ALARM {row['nodeid']}: {row['outcome']}"
            + (f" ({row['broken']})" if row.get("broken") else "")
            + f": {(row['message'] or '')[:300]}",
            flush=True,
        )
    unobserved = Counter(row["nodeid"].split("[")[0] for row in rows if row["outcome"] == "skipped")
    for latitude in latitudes:
        failing = blamed.get(latitude, [])
        print(
            f"{'passed  ' if not failing else 'FAILED  '} {latitude}"
            + (f": {len(failing)} false alarms, e.g. {failing[0]['nodeid']}" if failing else ""),
            flush=True,
        )
    together_only = bool(alarms) and not any(blamed.values())
    if together_only:
        print(f"latitude proof: {len(alarms)} false alarms only with the latitudes together", flush=True)
    passed = sum(not blamed.get(latitude) for latitude in latitudes) if not together_only else 0
    counts = Counter(row["outcome"] for row in rows)
    print(f"latitude proof: {dict(counts)}; 未確認 (skipped) in {len(unobserved)} scenario functions", flush=True)
    print(f"latitudes passed: {passed}/{len(latitudes)} (rows and artifacts in {out})", flush=True)
    return 0 if not alarms else 1
