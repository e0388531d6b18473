"""`python -m harness verify`: run the scenarios over every browser configuration and both call
paths, then write the Verification tables (verification.md, in the ADRs' form), results.json
and junit.xml into one folder."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from harness import browser_server, compare
from harness.browsers import CONFIGS, BrowserMissing, cannot_open_a_page, resolve
from harness.drivers import DRIVERS
from harness.paths import ROOT
from harness.publish import write_reports
from harness.report import check_report, describe_run
from harness.results import session_seconds
from harness.sessions import scenarios_command
from harness.shards import DURATIONS, parse_shard, write_durations
from harness.targets import TargetError, check_reachable, load_profile


@dataclass
class ConfigStatus:
    name: str
    available: bool
    detail: str  # the browser and version, or why it could not run


def launch_failure(message: str) -> str:
    """Playwright's first line, and the browser's own fatal error from its log where it gave one
    (e.g. Chromium's 「Socket path too long」 under a deep TMPDIR)."""
    lines = message.splitlines()
    fatal = [line.rsplit("] ", 1)[-1] for line in lines if ":FATAL:" in line]
    return "; ".join([lines[0], *fatal[:1]]) if lines else message


ENGINES = {"chromium": "Chromium", "firefox": "Firefox", "webkit": "WebKit"}


def browser_statuses(names: list[str]) -> list[ConfigStatus]:
    statuses = []
    with sync_playwright() as playwright:
        for name in names:
            config = CONFIGS[name]
            browser_type = getattr(playwright, config.engine)
            server = browser_server.endpoint(name)
            if server:  # a BrowserServerError goes to the caller: the user named a server that cannot serve
                browser = browser_server.connect(browser_type, name, server)
                statuses.append(
                    ConfigStatus(name, True, f"{ENGINES[config.engine]} {browser.version} (browser server {server})")
                )
                browser.close()
                continue
            try:
                resolved = resolve(config, browser_type.executable_path)
            except BrowserMissing as missing:
                statuses.append(ConfigStatus(name, False, str(missing)))
                continue
            unusable = cannot_open_a_page(browser_type, resolved)
            if unusable:
                statuses.append(ConfigStatus(name, False, unusable))
                continue
            try:
                browser = browser_type.launch(**resolved.launch_options(), args=config.launch_args())
            except Exception as error:  # a browser that is installed but does not start
                statuses.append(ConfigStatus(name, False, f"{name}: does not start: {launch_failure(str(error))}"))
                continue
            engine = ENGINES[config.engine]
            source = "Playwright" if resolved.source == "playwright" else resolved.source
            if config.engine == "chromium" and resolved.source == "playwright":
                source += " headless shell"  # what Playwright launches for a headless run
            if (
                config.engine == "chromium"
                and resolved.source != "system"
                and any(driver.loads_extension and driver.supports(config) for driver in DRIVERS.values())
            ):
                source += "; the extension path in its full Chromium"  # a headless shell loads no extension
            statuses.append(ConfigStatus(name, True, f"{engine} {browser.version} ({source})"))
            browser.close()
    return statuses


def run(args) -> int:
    if args.fault:
        from harness.faults import unknown_faults

        unknown = unknown_faults(args.fault)
        if unknown:
            print(f"verify: {unknown}", file=sys.stderr)
            return 2
    if args.shard:
        try:
            parse_shard(args.shard)
        except pytest.UsageError as error:
            print(f"verify: {error}", file=sys.stderr)
            return 2
    try:
        target = load_profile(args.target, args.base_url)
        if not target.served:
            check_reachable(target)  # before anything is written: a run that cannot start writes no report
    except TargetError as error:
        print(f"verify: {error}", file=sys.stderr)
        return 2
    ai_tools = target.ai_tools
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "evidence", ignore_errors=True)  # this run's pictures, never an earlier run's
    if args.compare:
        try:
            compare.read_run(Path(args.compare))  # before the run, not after it
        except ValueError as error:
            print(f"verify --compare: {error}", file=sys.stderr)
            return 2
    try:
        os.environ.update(browser_server.parse_connect(args.connect))
    except ValueError as error:
        print(f"verify: {error}", file=sys.stderr)
        return 2
    names = args.browser or list(CONFIGS)
    try:
        statuses = browser_statuses(names)
    except browser_server.BrowserServerError as error:
        print(f"verify: {error}", file=sys.stderr)
        return 2
    for status in statuses:
        print(f"verify: {status.name}: {status.detail}", flush=True)
    runnable = [s.name for s in statuses if s.available]
    # A shard is dealt by the durations an earlier run measured: the file named, else this folder's.
    measured = Path(args.shard_durations) if args.shard_durations else out / DURATIONS
    if args.shard_durations and not measured.is_file():
        print(f"verify: --shard-durations {measured}: no such file", file=sys.stderr)
        return 2
    durations = measured if measured.is_file() else None
    code = 0
    if runnable:
        # Scenario paths among the pytest arguments replace the default (every scenario).
        chosen = [arg for arg in args.pytest_args if arg.split("::")[0].startswith("scenarios")]
        command = scenarios_command(
            workers=args.workers,
            nodeids=chosen,
            rows=out / "results.json",
            artifacts=out / "artifacts",
            browsers=runnable,
            call_paths=args.call_path or [],
            faults=args.fault or [],
            extra=[
                "--target",
                args.target,
                f"--junitxml={out / 'junit.xml'}",
                f"--evidence={out / 'evidence'}",
                *(["--base-url", args.base_url] if args.base_url else []),
                *(["--real-time"] if args.real_time else []),
                *(["--shard", args.shard] if args.shard else []),
                *(["--shard-durations", str(durations)] if args.shard and durations else []),
                *(arg for arg in args.pytest_args if arg not in chosen),
            ],
        )
        code = subprocess.run(command, cwd=ROOT).returncode
    results = json.loads((out / "results.json").read_text()) if (out / "results.json").exists() else []
    write_durations(out / DURATIONS, results)
    run = describe_run(statuses, args, ai_tools)
    if runnable:
        with contextlib.suppress(OSError, ValueError):  # a session that stopped before writing it
            run["seconds"] = session_seconds(out / "junit.xml")
    write_reports(out, results, run, langs=["ja", args.lang] if args.lang != "ja" else ["ja"])
    if not runnable:
        print(
            f"verify: wrote {out / 'verification.md'}: no selected browser configuration can run here, every "
            "cell is 未確認 with the reason",
            flush=True,
        )
        return 1  # nothing ran: not a verification
    print(f"verify: wrote {out / 'verification.md'}, results.json and junit.xml", flush=True)
    found = None
    if args.compare:
        try:
            found = compare.compare(Path(args.compare), out)
        except ValueError as error:
            print(f"verify --compare: {error}", file=sys.stderr)
            code = code or 2
        else:
            compare.print_changes(found, "verify")
    compare.step_summary(results, run, found)
    for problem in check_report(out) + ([] if (out / "junit.xml").is_file() else ["junit.xml is missing"]):
        print(f"verify: the report does not bear out its results: {problem}", flush=True)
        code = code or 1
    if code == 5:
        return 1  # nothing ran: not a verification
    return code
