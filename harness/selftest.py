"""`python -m harness selftest`: the project's own tests, as README's test command runs them.

1. lint, format and types (ruff check, ruff format --check, mypy; actionlint on the workflows), then the harness's unit tests
   (tests/);
2. the main job, through the same code as `python -m harness verify`: every scenario against the
   reference on every browser configuration available, writing the Verification tables into
   verification/selftest/, then checking them against results.json. Its runs on chromium in-page
   (and chromium's without a call path) have every latitude of the reference on (conformant
   alternatives of markup and timing): they are
3. the latitude proof: every one of them passes — a failure there is a false alarm of the harness,
   and each latitude alone on the failing scenarios names the one it comes from;
4. a real target, run beside 5 (`--real-target-only`): the reference served as a developer's
   checkout is (`harness serve`, a profile that is not the reference's, two tools, every latitude
   on), a slice of the scenarios with two workers on every call path: no failed run and no harness
   error;
5. the fault proof: each named fault of the reference is caught by a check of its rule and breaks
   no sentinel — on chromium in-page with every latitude on (the main job's runs there are its
   clean runs), and for what that leaves unobservable (the relay path, a fault the latitudes
   hide) on both Chromium configurations as the reference is.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from harness import faults, latitudes, limits, tools, verify
from harness.paths import ROOT
from harness.processes import dying_with_parent, left_after, processes_with
from harness.pytest_plugin import latitudes_apply
from harness.relay import HeldPort
from harness.results import session_seconds
from harness.targets import reference_as_real

# Not under test-results/: pytest-playwright empties its --output folder at every session start.
MAIN_JOB_OUT = ROOT / "verification" / "selftest"
# The main job's runs with every latitude on: the in-page path of one Chromium and of Firefox
# (the polyfill's path there), so that the latitude proof covers both engines at no extra run.
LATITUDE_BROWSERS = ("chromium", "firefox")
WORKFLOWS = ROOT / ".github" / "workflows"
LATITUDES_ONLY_ON = ",".join(f"{browser}:in-page" for browser in LATITUDE_BROWSERS)


def run(args) -> int:
    if getattr(args, "under_load", False):
        return under_load(args)
    if getattr(args, "real_target_only", False):
        return real_target_slice(REAL_TARGET_OUT, args.workers)
    pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    outcomes = []
    # Inherited by everything the run starts (pytest, its workers, Playwright's driver, the
    # browsers, the relay passes it on): what still carries it at the end was left behind.
    run_id = os.environ.setdefault("HARNESS_RUN_ID", os.urandom(6).hex())

    print("selftest: lint, format and types (ruff check, ruff format --check, mypy, actionlint)", flush=True)
    python = [sys.executable, "-m"]
    # Each runs, also after one failed: the output names every problem at once.
    checked = [
        subprocess.run(command, cwd=ROOT).returncode == 0
        for command in (
            [*python, "ruff", "check", "."],
            [*python, "ruff", "format", "--check", "."],
            [*python, "mypy"],
            [str(Path(sys.executable).parent / "actionlint"), *map(str, sorted(WORKFLOWS.glob("*.yml")))],
        )
    ]
    outcomes.append(("lint and types", all(checked)))

    print("selftest: unit tests", flush=True)
    # Spread over the workers: serially they took 121 s here, on two workers 66–77 s.
    outcomes.append(
        ("unit tests", subprocess.run([*pytest, "tests", "-q", "-n", str(args.workers)], cwd=ROOT).returncode == 0)
    )

    print(f"selftest: the main job (python -m harness verify --out {MAIN_JOB_OUT.relative_to(ROOT)})", flush=True)
    outcomes.append(("main job", verify.run(main_job_args(MAIN_JOB_OUT, args.workers)) == 0))
    main_rows = MAIN_JOB_OUT / "results.json"
    # The configurations whose browser the main job found (a missing one's rows are all skipped).
    ran_on = {row["browser"] for row in _existing_rows(main_rows) if row["outcome"] == "passed"}

    latitude_rows = _latitude_rows(main_rows)
    latitude_browsers = [b for b in LATITUDE_BROWSERS if any(row["browser"] == b for row in latitude_rows)]
    print(f"selftest: latitude proof (the main job's runs on {', '.join(latitude_browsers)}, in-page)", flush=True)
    outcomes.append(
        (
            "latitude proof",
            latitudes.run_proof(
                latitude_browsers,
                int(args.workers),
                out=MAIN_JOB_OUT,
                call_paths=["in-page"],
                rows=latitude_rows,
            )
            == 0,
        )
    )

    # Beside the fault proof, whose runs wait out expect limits with the CPU idle: the two together
    # take about as long as the fault proof alone (the load proof shows the verdicts hold on a busy machine).
    print(
        f"selftest: a real target (the reference served as a playground is, {' and '.join(REAL_TARGET_TOOLS)}, every "
        f"latitude on), beside the fault proof: its output in {REAL_TARGET_LOG.relative_to(ROOT)}",
        flush=True,
    )
    beside = start_real_target_slice(args.workers)

    # Every fault caught with every latitude on (chromium in-page, clean runs: the main job's
    # there), its sentinel beside it; a page of other markup and timing is the harder place to
    # catch it, so catching it there proves its scenario can fail. What that leg cannot observe
    # (another call path, a fault the latitudes hide) on both configurations as the reference is,
    # with clean runs of its own (the main job's chromium in-page runs had the latitudes on).
    legs = [
        faults.Leg(
            (LATITUDE_BROWSERS[0],),
            latitudes=tuple(every_latitude()),
            call_paths=("in-page",),
            clean_results=_existing(main_rows),
        ),
        faults.Leg(("chromium", "chromium-noflag"), rest_only=True),
    ]
    if "firefox" in ran_on:
        # Firefox takes a sample, the first fault of each section of the spec per call path: the
        # whole catalog there would cost about as long again as its main job (2.5 min against ~20).
        legs.append(faults.Leg(("firefox",), call_paths=("in-page", "relay"), one_per_section=True))
    print(
        "selftest: fault proof (chromium with every latitude on; the rest on chromium and chromium-noflag"
        + ("; a sample per section on firefox)" if "firefox" in ran_on else ")"),
        flush=True,
    )
    # Two workers more than the rest: its runs fail by design, many by waiting out an expect limit
    # with the CPU idle (its latitude leg here, on the headless shell: 510 s on 3 workers, 413 s on
    # 4, 201/201 caught; the relay leg 140 s and 144 s, 4/4 on each configuration).
    outcomes.append(("fault proof", faults.run_proof(legs, workers=int(args.workers) + 2, out=MAIN_JOB_OUT) == 0))
    outcomes.append(("real target", finish_real_target_slice(beside)))

    outcomes.append(("nothing left running", nothing_left_running(run_id)))

    passed = sum(ok for _, ok in outcomes)
    for name, ok in outcomes:
        print(f"selftest: {name}: {'passed' if ok else 'FAILED'}")
    print(f"{passed} passed, {len(outcomes) - passed} failed")
    return 0 if passed == len(outcomes) else 1


def processes_of_run(run_id: str) -> list[str]:
    """Command lines of the processes (other than this one) started with this HARNESS_RUN_ID."""
    return processes_with("HARNESS_RUN_ID", run_id)


def nothing_left_running(run_id: str, grace: float = limits.ENDED) -> bool:
    left = left_after("HARNESS_RUN_ID", run_id, grace)
    for command in left:
        print(f"selftest: left running: {command}")
    return not left


LOAD_BROWSERS = ["chromium", "chromium-noflag"]
# The real-target slice: the reference served by `python -m harness serve` (as a developer's
# checkout is served: the pages know one relay port) and reached through a profile that is not
# the reference's own, with two of the tools only; every latitude on, so its pages have other
# markup and timing too. What it runs: every call path, both Chromium configurations.
REAL_TARGET_OUT = ROOT / "verification" / "real-target"
# One tool of each kind: the first whose page loads an engine (its run button and held loading),
# and the first that works on an open document.
REAL_TARGET_TOOLS = (next(name for name, tool in tools.TOOLS.items() if tool.engine_call), tools.CANVAS[0])
REAL_TARGET_SCENARIOS = [
    "scenarios/test_switch.py",
    "scenarios/test_log.py",
    "scenarios/test_relay.py",
    "scenarios/test_operations.py",
    f"scenarios/{REAL_TARGET_TOOLS[0]}",
]
REAL_TARGET_LOG = REAL_TARGET_OUT / "output.txt"


def start_real_target_slice(workers: str) -> subprocess.Popen:
    """The slice in a process of its own (`selftest --real-target-only`), its output into REAL_TARGET_LOG."""
    REAL_TARGET_OUT.mkdir(parents=True, exist_ok=True)
    with REAL_TARGET_LOG.open("w", encoding="utf-8") as log:
        return subprocess.Popen(
            dying_with_parent(
                [sys.executable, "-m", "harness", "selftest", "--real-target-only", "--workers", workers]
            ),
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def finish_real_target_slice(process: subprocess.Popen) -> bool:
    """Whether the slice passed, once it has ended; its summary, and on failure its output's end."""
    code = process.wait()
    output = REAL_TARGET_LOG.read_text(encoding="utf-8", errors="replace").splitlines()
    summary = [line for line in output if line.startswith("selftest: real target:")]
    print(*(summary or ["selftest: real target: no summary (see its output)"]), sep="\n", flush=True)
    if code:
        print("\n".join(output[-60:]), flush=True)
    return code == 0


def real_target_slice(out: Path, workers: str) -> int:
    """0 when the slice ran with no failed run and no harness error."""
    out.mkdir(parents=True, exist_ok=True)
    relay_port = HeldPort()
    relay_port.release()  # the relay starts on it later; a free port the pages are told
    server = subprocess.Popen(
        dying_with_parent(
            [
                sys.executable,
                "-m",
                "harness",
                "serve",
                "--port",
                "0",
                "--other-port",
                "0",
                "--relay-port",
                str(relay_port.number),
                *(part for name in every_latitude() for part in ("--latitude", name)),
            ]
        ),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None  # stdout=PIPE
    try:
        served = re.search(r"http://localhost:\d+", server.stdout.readline())
        if served is None:
            print("selftest: real target: the reference did not start", flush=True)
            return 1
        profile = out / "profile.toml"
        profile.write_text(reference_as_real(served[0], relay_port.number, REAL_TARGET_TOOLS), encoding="utf-8")
        code = verify.run(
            verify_args(
                "--target",
                str(profile),
                *(part for browser in LOAD_BROWSERS for part in ("--browser", browser)),
                "--out",
                str(out / "run"),
                "--workers",
                str(workers),
                "--",
                *REAL_TARGET_SCENARIOS,
            )
        )
    finally:
        server.terminate()
        server.wait()
        server.stdout.close()
    rows = json.loads((out / "run" / "results.json").read_text(encoding="utf-8"))
    counts = Counter(row["outcome"] for row in rows)
    print(f"selftest: real target: {dict(counts)}, {sum(bool(row.get('flaky')) for row in rows)} flaky", flush=True)
    return code or counts["failed"] or counts["error"]


# Says it runs before it loops: the loaded run starts only once every core is busy.
BUSY = "print('busy', flush=True)\nwhile True: pass  # harness load proof"


def _existing(path):
    return path if path.exists() else None


def main_job_args(out: Path, workers: str, browsers: list[str] | None = None) -> argparse.Namespace:
    """`verify`'s arguments for the main job of the test command, and of the load proof's runs.

    Latitudes are the page's: the in-page path shows them whichever way a call arrives, so they are
    on for chromium in-page (and chromium's runs without a call path). The other runs show the
    reference as it is, and the relay's, webmcp's and the extension's paths to it."""
    return verify_args(
        *(part for browser in browsers or [] for part in ("--browser", browser)),
        "--out",
        str(out),
        "--workers",
        str(workers),
        "--",
        *(part for name in every_latitude() for part in ("--latitude", name)),
        "--latitudes-only-on",
        LATITUDES_ONLY_ON,
    )


def verify_args(*argv: str) -> argparse.Namespace:
    """`verify`'s arguments as its own parser reads them: every option with its default."""
    from harness.cli import build_parser

    return build_parser().parse_args(["verify", *argv])


def expected_latitudes(params: dict) -> list[str]:
    """The latitudes a main job's run with these parameters has on."""
    return sorted(every_latitude()) if latitudes_apply(LATITUDES_ONLY_ON, params) else []


def every_latitude() -> list[str]:
    return [latitude.name for latitude in latitudes.catalog()]


def _existing_rows(rows: Path) -> list[dict]:
    return json.loads(rows.read_text(encoding="utf-8")) if rows.exists() else []


def _latitude_rows(main_rows: Path) -> list[dict]:
    """The main job's runs that had every latitude on (see --latitudes-only-on); none if it wrote no rows."""
    if not main_rows.exists():
        return []
    return [
        row
        for row in json.loads(main_rows.read_text(encoding="utf-8"))
        if row["browser"] in LATITUDE_BROWSERS and row["call_path"] in ("in-page", None)
    ]


def _main_job(out, workers: str) -> tuple[float, Counter, list[dict]]:
    """The test command's main job on both Chromium configurations: the same scenarios with the
    same latitudes, so that a loaded run's outcomes compare with the idle one's."""
    started = time.monotonic()
    verify.run(main_job_args(out, workers, LOAD_BROWSERS))
    rows = json.loads((out / "results.json").read_text(encoding="utf-8")) if (out / "results.json").exists() else []
    return time.monotonic() - started, Counter(r["outcome"] for r in rows), rows


def recorded_main_job(folder: Path) -> tuple[float, Counter]:
    """The idle run of an earlier main job on this machine (a verify output folder): its
    outcomes, and its pytest session's time from junit.xml. Saves the proof the idle run."""
    try:
        rows = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        seconds = session_seconds(folder / "junit.xml")
    except (OSError, ValueError) as error:
        raise ValueError(f"{folder} holds no verify run (results.json and junit.xml): {error}") from None
    browsers = sorted({row["browser"] for row in rows})
    if browsers != sorted(LOAD_BROWSERS):
        raise ValueError(f"{folder} ran {browsers}, not the load proof's {LOAD_BROWSERS}")
    # Rows that ran with other latitudes differ by design (a latitude can leave a rule 未確認).
    for row in rows:
        if "latitudes" not in row:
            raise ValueError(
                f"{folder}: its runs do not name their latitudes (recorded by an older harness); "
                f"the load proof's runs have every latitude on {LATITUDES_ONLY_ON}"
            )
        if row["latitudes"] != expected_latitudes(row["params"]):
            raise ValueError(
                f"{folder}: {row['nodeid']} ran with latitudes {row['latitudes'] or 'none'}, the load "
                f"proof's with {expected_latitudes(row['params']) or 'none'}"
            )
    return seconds, Counter(row["outcome"] for row in rows)


def under_load(args) -> int:
    """The main job on both Chromium configurations, idle and then `--runs` times with every core
    kept busy by CPU-bound processes; on the clean reference each loaded run must end with no
    failure, no error and under 0.5 % flaky."""
    base = ROOT / "verification" / "load-proof"
    if getattr(args, "idle", None):
        try:
            idle_time, idle = recorded_main_job(Path(args.idle))
        except ValueError as error:
            print(f"load proof: {error}", flush=True)
            return 2
        print(f"load proof: idle (recorded in {args.idle}): {dict(idle)} in {idle_time / 60:.1f} min", flush=True)
    else:
        idle_time, idle, _ = _main_job(base / "idle", args.workers)
        print(f"load proof: idle: {dict(idle)} in {idle_time / 60:.1f} min", flush=True)
    passed = 0
    for run in range(1, args.runs + 1):
        # The kernel ends the busy loops with the harness, also when it is killed.
        busy = [
            subprocess.Popen(dying_with_parent([sys.executable, "-c", BUSY]), stdout=subprocess.PIPE)
            for _ in range(os.cpu_count() or 2)
        ]
        try:
            for process in busy:
                assert process.stdout is not None  # stdout=PIPE
                process.stdout.readline()
            load_time, loaded, rows = _main_job(base / f"loaded-{run}", args.workers)
        finally:
            for process in busy:
                process.kill()
                process.wait()
                if process.stdout:
                    process.stdout.close()
        flaky = [r for r in rows if r.get("flaky")]
        total = sum(loaded.values()) or 1
        print(
            f"load proof: loaded run {run}: {dict(loaded)} in {load_time / 60:.1f} min "
            f"(wall time loaded / idle = {load_time / idle_time:.2f})"
        )
        for r in flaky:
            print(f"load proof: flaky {r['nodeid']}: {r['flaky'][:300]}")
        print(
            f"load proof: run {run}: {loaded['failed']} failed, {loaded['error']} errors, {len(flaky)} flaky "
            f"({100 * len(flaky) / total:.2f} %) under load",
            flush=True,
        )
        passed += not loaded["failed"] and not loaded["error"] and len(flaky) / total < 0.005
    print(f"load proof: {passed} of {args.runs} loaded runs without failures, errors or 0.5 % flaky")
    return 0 if passed == args.runs else 1
