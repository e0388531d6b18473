"""Speed targets, as ratios of measured to target (below 1.0 meets the target). Not a test.

    .venv/bin/python bench/speed.py

- setup: a second `bin/setup` with everything in place (target: 10 s — "starts within seconds");
- 50-second rule: wall time of the clock-driven 50-second scenarios, each (target: 1 s);
- call cost: a call through each call path's client (harness/drivers.py) against a raw
  `page.evaluate(executeTool)`: in-page (target: 1.5×), the relay (target: 5×), the browser's own
  WebMCP through page.webmcp (target: 5×), an extension's content script (target: 5×; its tab is in
  a persistent context of its own, measured against a raw call there);
- a scenario's tab: a warm tab (harness/warm_tabs.py) against a new browser context, each until
  the tool's read answers after the switch is turned on (target: 0.5×); and per tool, where a warm
  tab's set-up and teardown go (page load, switch on, operations registered, tool ready, its log
  row, back to the blank document), as shares;
- the main job's wall time against its runs' tool pages' ready times in new contexts, on two workers;
- the sql page: until its read answers in a new context, and its first `select 1` (PGlite loaded on it)
  and later ones through the in-page client, against PGlite's own start and query in a worker of the same
  page (the reference's db.worker.js, given the files' bytes);
- xdist: the log's and the storage's scenarios on two workers against one (target: 1.6× faster);
- a broken rule's cost: go's scenarios with go_write_file asking for confirmation (a fault) against
  the conformant reference (target: at most 1.5×; `--fault-cost` for this one alone);
- where a main job's worker time went (from its results.json, by default the test command's
  verification/selftest/results.json; `--results FILE` for another): the share of set-up and
  teardown (target: at most 30 %), per call path; the main job's wall time (target: 10 min), and what
  its scenarios' bodies alone would take at the same parallelism;
- the push-sized run (`--shards N`, 8 by default, alone: two whole runs of one configuration):
  a whole `verify` of chromium-noflag, then each of its N shards one after the other, dealt by
  the whole run's durations.json; the longest shard's wall time against the whole run's divided by
  N (target: at most 1.2×), the merge's time, and whether the merged tables equal the whole run's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.checks import WALL_SECONDS_FOR_50_SECONDS
from harness.paths import ROOT
from harness.results import session_seconds


def timed(command: list[str], check: bool = True) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def fifty_second_scenarios() -> list[tuple[str, float]]:
    """Wall time of the 50 seconds themselves, as the scenario records it."""
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results.json"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "-q",
                "--call-path",
                "in-page",
                "-k",
                "test_open_dialog_is_declined_after_50_seconds",
                "scenarios/test_confirmation.py",
                f"--results-json={results}",
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if not results.exists():
            return []
        return [
            (r["nodeid"].split("::")[-1], r["findings"][WALL_SECONDS_FOR_50_SECONDS])
            for r in json.loads(results.read_text())
            if WALL_SECONDS_FOR_50_SECONDS in r["findings"]
        ]


RAW_CALL = """async () => {
  const mc = document.modelContext;
  const tool = (await mc.getTools()).find((t) => t.name === 'slides_read');
  return mc.executeTool(tool, {});
}"""


def median_seconds(call, calls: int) -> float:
    call()
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def call_latency(calls: int = 40) -> dict[str, tuple[float, float]]:
    """Per call path, median seconds of slides_read through its client and through a raw
    page.evaluate(executeTool) in the same tab."""
    from playwright.sync_api import sync_playwright

    from harness.browsers import CONFIGS, resolve
    from harness.clients import InPageClient, ToolClient
    from harness.extension import ExtensionClient, launch_context
    from harness.pages import new_tool_page
    from harness.relay import HeldPort, Relay
    from harness.server import FixtureServer, ReferenceConfig
    from harness.targets import load_profile, served_at
    from harness.webmcp import WebMCPClient

    held = HeldPort()
    relay_port = held.number
    with (
        FixtureServer(ReferenceConfig(relay_port=relay_port)) as server,
        sync_playwright() as playwright,
        tempfile.TemporaryDirectory() as home,
    ):
        target = served_at(load_profile("reference"), server.origin, relay_port)
        config = CONFIGS["chromium"]
        resolved = resolve(config, playwright.chromium.executable_path)
        launch_args = {**resolved.launch_options(), "args": config.launch_args()}
        browser = playwright.chromium.launch(**launch_args)

        def slides_tab(context):
            tool_page = new_tool_page(context, target, "slides", target.page_url("slides"))
            tool_page.goto(tool_page.url)
            tool_page.turn_on()
            return tool_page

        with Relay(relay_port, target.widget_origin, Path(home), held=held) as relay:
            tool_page = slides_tab(browser.new_context())
            clients: dict[str, ToolClient] = {
                "in-page": InPageClient(tool_page),
                "relay": relay.client_for(tool_page),
                "webmcp": WebMCPClient(tool_page),
            }
            for client in clients.values():
                client.wait_for_tools({"slides_read"})
            raw = median_seconds(lambda: tool_page.page.evaluate(RAW_CALL), calls)
            medians = {
                path: (median_seconds(lambda c=client: c.call("slides_read"), calls), raw)
                for path, client in clients.items()
            }
        extension_context = launch_context(playwright.chromium, launch_args, {}, Path(home))
        extension_tab = slides_tab(extension_context)
        extension = ExtensionClient(extension_tab)
        extension.wait_for_tools({"slides_read"})
        medians["extension"] = (
            median_seconds(lambda: extension.call("slides_read"), calls),
            median_seconds(lambda: extension_tab.page.evaluate(RAW_CALL), calls),
        )
        extension_context.close()
        browser.close()
    return medians


WARM_STEPS = ("page load", "switch on", "operations registered", "tool ready", "log row", "back to blank")


def tab_setup(rounds: int = 4) -> tuple[list[tuple[str, float, float]], dict[str, dict[str, float]]]:
    """Per canvas tool, median seconds until its read answers: in a new context, in a warm tab.
    And per tool, where a warm tab's set-up goes (WARM_STEPS, median seconds each): the steps of
    every scenario that takes a warm tab and turns the switch on, as its fixtures make them."""
    from playwright.sync_api import sync_playwright

    from harness import contract, tools
    from harness.browsers import CONFIGS, resolve
    from harness.clients import InPageClient
    from harness.pages import new_tool_page
    from harness.server import FixtureServer, ReferenceConfig
    from harness.targets import load_profile, served_at
    from harness.warm_tabs import WarmTabs

    def ready(tool_page) -> None:
        tool_page.turn_on()
        client, read = InPageClient(tool_page), contract.reader_of(tool_page.tool)
        client.wait_for_tools({read.name})
        client.call_when_ready(read.name, read.example)

    def warm_steps(warm, tool: str) -> list[float]:
        marks = [time.perf_counter()]
        tool_page = warm.take(tool, "in-page", [], [], "bench")
        marks.append(time.perf_counter())
        tool_page.turn_on()
        marks.append(time.perf_counter())
        client, read = InPageClient(tool_page), contract.reader_of(tool)
        client.wait_for_tools({op.name for op in contract.operations_of(tool)})
        marks.append(time.perf_counter())
        client.call_when_ready(read.name, read.example)
        marks.append(time.perf_counter())
        tool_page.log.wait_for_success_row(read.name)
        marks.append(time.perf_counter())
        warm.give_back(tool_page, failed=False, artifacts=Path(tempfile.gettempdir()))
        marks.append(time.perf_counter())
        return [end - start for start, end in pairwise(marks)]

    measured, steps = [], {}
    with FixtureServer(ReferenceConfig(relay_port=9)) as server, sync_playwright() as playwright:
        target = served_at(load_profile("reference"), server.origin, 9)
        config = CONFIGS["chromium"]
        browser = playwright.chromium.launch(
            executable_path=resolve(config, playwright.chromium.executable_path).executable_path,
            args=config.launch_args(),
        )
        warm = WarmTabs(browser, {}, target, trace=False)

        def new_context(tool: str) -> None:
            context = browser.new_context()
            tool_page = new_tool_page(context, target, tool, target.page_url(tool))
            ready(tool_page.goto(tool_page.url))
            context.close()

        def warm_tab(tool: str) -> None:
            tool_page = warm.take(tool, "in-page", [], [], "bench")
            ready(tool_page)
            warm.give_back(tool_page, failed=False, artifacts=Path(tempfile.gettempdir()))

        for tool in ("slides", "excalidraw", "drawio"):
            measured.append(
                (
                    tool,
                    median_seconds(partial(new_context, tool), rounds),
                    median_seconds(partial(warm_tab, tool), rounds),
                )
            )
        for tool in tools.NAMES:
            warm_steps(warm, tool)  # its context opened and its files cached, as a worker's second scenario finds them
            samples = [warm_steps(warm, tool) for _ in range(rounds)]
            steps[tool] = {
                step: statistics.median(sample[i] for sample in samples) for i, step in enumerate(WARM_STEPS)
            }
        warm.close()
        browser.close()
    return measured, steps


# PGlite's own start (from the bytes of its files, fetched first) and a `select 1` round trip, in
# the reference's worker: what the sql page's load and calls cost at the least.
RAW_PGLITE = """async () => {
  const files = ["pglite.wasm", "initdb.wasm", "pglite.data", "seed.tgz"];
  const [pgliteWasm, initdbWasm, data, seed] = await Promise.all(
    files.map(async (file) => (await fetch(`/sql/pglite/${file}`)).arrayBuffer()));
  const worker = new Worker("/sql/db.worker.js", { type: "module" });
  const reply = () => new Promise((resolve) => (worker.onmessage = ({ data }) => resolve(data)));
  let began = performance.now();
  worker.postMessage({ start: { pgliteWasm, initdbWasm, data, seed } });
  await reply();
  const start = performance.now() - began;
  const queries = [];
  for (let id = 0; id < 21; id++) {
    began = performance.now();
    worker.postMessage({ id, sql: "select 1" });
    await reply();
    queries.push(performance.now() - began);
  }
  worker.terminate();
  queries.sort((a, b) => a - b);
  return { start: start / 1000, query: queries[10] / 1000 };
}"""


def sql_against_pglite(calls: int = 20) -> dict[str, float]:
    """Seconds: the sql page until its read answers (new context), its first select 1 and the
    median later one through the in-page client, and PGlite's own start and select 1."""
    from playwright.sync_api import sync_playwright

    from harness.browsers import CONFIGS, resolve
    from harness.clients import InPageClient
    from harness.pages import new_tool_page
    from harness.server import FixtureServer, ReferenceConfig
    from harness.targets import load_profile, served_at

    with FixtureServer(ReferenceConfig(relay_port=9)) as server, sync_playwright() as playwright:
        target = served_at(load_profile("reference"), server.origin, 9)
        config = CONFIGS["chromium"]
        browser = playwright.chromium.launch(
            executable_path=resolve(config, playwright.chromium.executable_path).executable_path,
            args=config.launch_args(),
        )
        context = browser.new_context()
        began = time.perf_counter()
        tool_page = new_tool_page(context, target, "sql", target.page_url("sql"))
        tool_page.goto(tool_page.url)
        tool_page.turn_on()
        client = InPageClient(tool_page)
        client.wait_for_tools({"sql_read_query", "sql_run_query"})
        client.call_when_ready("sql_read_query")
        ready = time.perf_counter() - began
        began = time.perf_counter()
        assert client.call("sql_run_query", {"sql": "select 1"})["ok"] is True
        first = time.perf_counter() - began
        later = median_seconds(lambda: client.call("sql_run_query", {"sql": "select 1"}), calls)
        raw = tool_page.page.evaluate(RAW_PGLITE)
        context.close()
        browser.close()
    return {"ready": ready, "first": first, "later": later, "pglite_start": raw["start"], "pglite_query": raw["query"]}


def two_runs(nodeids: list[str], first: dict, second: dict, extra: tuple[str, ...] = ()) -> tuple[int, float, float]:
    """Wall time of the same scenarios (chromium-noflag, in-page) run twice, with `first` and then
    `second` as scenarios_command's settings: (runs, first seconds, second seconds)."""
    from harness.sessions import scenarios_command

    seconds = []
    with tempfile.TemporaryDirectory() as tmp:
        for number, settings in enumerate((first, second)):
            rows = Path(tmp) / f"rows-{number}.json"
            command = scenarios_command(
                nodeids=nodeids,
                rows=rows,
                artifacts=Path(tmp) / "artifacts",
                browsers=["chromium-noflag"],
                call_paths=["in-page"],
                quiet=True,
                extra=extra,
                **settings,
            )
            seconds.append(timed(command, check=False))
        runs = len(json.loads(rows.read_text(encoding="utf-8"))) if rows.exists() else 0
    return runs, seconds[0], seconds[1]


SPEEDUP_SCENARIOS = ["scenarios/test_log.py", "scenarios/test_storage.py"]


def workers_speedup() -> tuple[int, float, float]:
    """The log's and the storage's scenarios on one xdist worker and on two."""
    return two_runs(SPEEDUP_SCENARIOS, {"workers": 1}, {"workers": 2})


# One tool's scenarios, and a fault of it that asks where the spec says nothing asks.
FAULT_COST_SCENARIOS = ["scenarios/go", "scenarios/test_files.py"]
FAULT_COST_FAULT = "go-write-confirms"


def fault_cost() -> tuple[int, float, float]:
    """Go's scenarios on two workers against the reference as it is and with go_write_file asking."""
    return two_runs(
        FAULT_COST_SCENARIOS, {"workers": 2}, {"workers": 2, "faults": [FAULT_COST_FAULT]}, extra=("-k", "go")
    )


def print_fault_cost() -> None:
    runs, clean, faulty = fault_cost()
    ratio = faulty / clean
    print(
        f"{runs} go scenario runs with {FAULT_COST_FAULT} against the conformant reference: {faulty:.1f} s / "
        f"{clean:.1f} s = {ratio:.2f}× / 1.5× target = {ratio / 1.5:.2f}"
    )


CALL_COST_TARGETS = {"in-page": 1.5, "relay": 5, "webmcp": 5, "extension": 5}
MAIN_JOB_RESULTS = ROOT / "verification" / "selftest" / "results.json"


def setup_share(results: Path) -> None:
    """Set-up and teardown against the scenarios' bodies, over a main job's rows."""
    rows = [r for r in json.loads(results.read_text(encoding="utf-8")) if r.get("phases")]
    by_path: dict[str, list[float]] = {}
    for r in rows:
        spent = by_path.setdefault(r["call_path"] or "page-level", [0.0, 0.0])
        spent[0] += r["phases"].get("setup", 0) + r["phases"].get("teardown", 0)
        spent[1] += r["phases"].get("call", 0)
    total_around = sum(around for around, _ in by_path.values())
    total = total_around + sum(body for _, body in by_path.values())
    if not total:
        print(f"{results}: no rows with phase times")
        return
    share = total_around / total
    print(
        f"{results.relative_to(ROOT) if results.is_relative_to(ROOT) else results}: {len(rows)} runs, "
        f"{total:.0f} s of worker time; set-up and teardown {100 * share:.0f} % / 30 % target = {share / 0.3:.2f}"
    )
    for path, (around, body) in sorted(by_path.items()):
        print(
            f"  {path}: set-up and teardown {around:.0f} s, bodies {body:.0f} s ({100 * around / (around + body):.0f} %)"
        )
    pictures = sum(r.get("picture_seconds", 0) for r in rows)
    taken = sum(len(r.get("evidence") or {}) for r in rows)
    # Worker time spent on pictures is wall time the main job grows by, at its parallelism.
    print(
        f"evidence: {taken} pictures took {pictures:.1f} s = {100 * pictures / total:.2f} % of the worker time "
        f"/ 5 % target = {pictures / total / 0.05:.2f}"
    )
    try:
        wall = session_seconds(results.with_name("junit.xml"))
    except (OSError, ValueError):
        return
    if wall:
        # The workers' overlap as measured; with no set-up at all the bodies would still take this long.
        bodies = (total - total_around) / (total / wall)
        print(
            f"main job's wall time {wall / 60:.1f} min / 10 min target = {wall / 600:.2f}; its bodies alone, as "
            f"parallel as its runs were ({total / wall:.2f} at once): {bodies / 60:.1f} min / 10 min = {bodies / 600:.2f}"
        )


def wall_against_ready_times(results: Path, fresh_ready: dict[str, float], workers: int = 2) -> None:
    """The main job's wall time (its junit.xml) against what its runs' tool pages cost to get ready:
    each run's tool page opened in a new context until its read answers, spread over the workers."""
    from harness import contract

    try:
        wall = session_seconds(results.with_name("junit.xml"))
    except (OSError, ValueError):
        print(f"main job against the tool pages' ready times: no {results.with_name('junit.xml')}")
        return
    rows = json.loads(results.read_text(encoding="utf-8"))
    tools = [r["tool"] or (contract.by_name(r["op"]).tool if r.get("op") in contract.names() else None) for r in rows]
    ready = sum(fresh_ready[tool] for tool in tools if tool in fresh_ready) / workers
    print(
        f"main job's wall time {wall / 60:.1f} min against its {sum(t in fresh_ready for t in tools)} canvas runs' "
        f"tool pages ready in new contexts ({ready / 60:.1f} min on {workers} workers) = {wall / ready:.2f}×"
    )


SHARD_CONFIG = "chromium-noflag"


def verify_seconds(out: Path, *args: str) -> float:
    return timed(
        [sys.executable, "-m", "harness", "verify", "--browser", SHARD_CONFIG, "--out", str(out), *args], check=False
    )


def tables(folder: Path) -> list[str]:
    """The Verification tables' rows of a report, without the run's own lines (its time, its folder)."""
    text = (folder / "verification.md").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.startswith("|")]


def shard_balance(shards: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        whole = Path(tmp) / "whole"
        whole_seconds = verify_seconds(whole)
        walls = []
        for number in range(1, shards + 1):
            walls.append(
                verify_seconds(
                    Path(tmp) / f"shard-{number}",
                    "--shard",
                    f"{number}/{shards}",
                    "--shard-durations",
                    str(whole / "durations.json"),
                )
            )
        merged = Path(tmp) / "merged"
        merge_seconds = timed(
            [
                sys.executable,
                "-m",
                "harness",
                "report",
                "--merge",
                *(str(Path(tmp) / f"shard-{n}") for n in range(1, shards + 1)),
                "--out",
                str(merged),
            ]
        )
        ratio = max(walls) / (whole_seconds / shards)
        print(
            f"{shards} shards of {SHARD_CONFIG}: longest {max(walls):.0f} s, shortest {min(walls):.0f} s, against the "
            f"whole run's {whole_seconds:.0f} s / {shards} = {ratio:.2f}× / 1.2× target = {ratio / 1.2:.2f}"
        )
        same = tables(merged) == tables(whole)
        print(f"merge of {shards} shards: {merge_seconds:.2f} s; tables equal the whole run's: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--results",
        type=Path,
        metavar="FILE",
        help="only the set-up share of this main job's results.json (takes no browser)",
    )
    parser.add_argument(
        "--fault-cost", action="store_true", help="only the cost of a fault that asks where nothing asks"
    )
    parser.add_argument(
        "--shards", type=int, nargs="?", const=8, metavar="N", help="only the push-sized run: N shards (default 8)"
    )
    args = parser.parse_args()
    if args.shards:
        shard_balance(args.shards)
        return
    if args.fault_cost:
        print_fault_cost()
        return
    if args.results:
        setup_share(args.results)
        return
    setup = timed(["bin/setup"])
    print(f"setup (second run): {setup:.2f} s / 10 s target = {setup / 10:.2f}")
    for name, seconds in fifty_second_scenarios():
        print(f"50-second rule {name}: {seconds:.2f} s / 1 s target = {seconds:.2f}")
    for path, (seconds, raw) in call_latency().items():
        ratio, target = seconds / raw, CALL_COST_TARGETS[path]
        print(
            f"slides_read through the {path} client: {seconds * 1000:.1f} ms against a raw page.evaluate(executeTool) "
            f"{raw * 1000:.1f} ms = {ratio:.2f}× raw / {target}× target = {ratio / target:.2f}"
        )
    measured, steps = tab_setup()
    for tool, fresh, warm in measured:
        ratio = warm / fresh
        print(
            f"{tool} tab until its read answers: warm {warm:.2f} s / new context {fresh:.2f} s = {ratio:.2f}× "
            f"/ 0.5× target = {ratio / 0.5:.2f}"
        )
    for tool, by_step in steps.items():
        total = sum(by_step.values())
        print(
            f"{tool} warm tab's set-up and teardown (in-page, one worker): {total:.2f} s = "
            + ", ".join(f"{step} {100 * part / total:.0f} %" for step, part in by_step.items())
        )
    sql = sql_against_pglite()
    print(f"sql page until its read answers (new context): {sql['ready']:.2f} s")
    print(
        f"sql's first select 1 (PGlite loaded on it): {sql['first']:.2f} s against PGlite's own start "
        f"{sql['pglite_start']:.2f} s = {sql['first'] / sql['pglite_start']:.2f}×"
    )
    print(
        f"select 1 through the in-page client: {sql['later'] * 1000:.1f} ms against PGlite's own "
        f"{sql['pglite_query'] * 1000:.1f} ms = {sql['later'] / sql['pglite_query']:.2f}×"
    )
    runs, one, two = workers_speedup()
    print(
        f"{runs} scenario runs on -n 2 against -n 1: {one:.1f} s / {two:.1f} s = {one / two:.2f}× faster "
        f"/ 1.6× target = {1.6 / (one / two):.2f}"
    )
    print_fault_cost()
    if MAIN_JOB_RESULTS.exists():
        setup_share(MAIN_JOB_RESULTS)
        wall_against_ready_times(MAIN_JOB_RESULTS, {tool: fresh for tool, fresh, _ in measured})
    else:
        print(f"set-up share: no main job's results at {MAIN_JOB_RESULTS.relative_to(ROOT)} (run bin/test first)")


if __name__ == "__main__":
    main()
