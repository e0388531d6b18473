"""The harness's command line."""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from harness import limits
from harness.processes import left_after


def _serve(args: argparse.Namespace) -> int:
    from harness.server import FixtureServer, ReferenceConfig

    config = ReferenceConfig(relay_port=args.relay_port, faults=args.fault or [], latitudes=args.latitude or [])
    # Blocked signals wait for sigwait below, so the servers always shut down cleanly.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    with FixtureServer(config, ports=(args.port, args.other_port)) as server:
        print(f"reference playground: {server.origin}/slides/  (other origin: {server.other_origin})", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    return 0


def _browsers(args: argparse.Namespace) -> int:
    from harness import provision

    if args.provision:
        return provision.provision()
    provision.report()
    return 0


def _faults(args: argparse.Namespace) -> int:
    from harness import faults

    if args.only:
        unknown = faults.unknown_faults(args.only)
        if unknown:
            raise SystemExit(f"python -m harness faults: {unknown}")
    if args.prove:
        if args.with_latitudes:
            from harness.latitudes import catalog

            # Latitudes are the page's: proven in-page, where they show whichever way a call arrives.
            leg = faults.Leg(
                tuple(args.browser or ["chromium"]),
                latitudes=tuple(latitude.name for latitude in catalog()),
                call_paths=("in-page",),
            )
        else:
            leg = faults.Leg(tuple(args.browser or faults.PROOF_BROWSERS))
        if args.one_per_section:
            leg = dataclasses.replace(leg, one_per_section=True)
        return faults.run_proof([leg], workers=args.workers, only=args.only)
    return faults.list_catalog([arg for browser in args.browser for arg in ("--browser-config", browser)])


def _latitudes(args: argparse.Namespace) -> int:
    from harness import latitudes

    if args.only:
        unknown = latitudes.unknown_latitudes(args.only)
        if unknown:
            raise SystemExit(f"python -m harness latitudes: {unknown}")
    if args.prove:
        return latitudes.run_proof(
            args.browser or ["chromium"], workers=args.workers, only=args.only, call_paths=args.call_path or []
        )
    for latitude in latitudes.catalog():
        print(f"{latitude.name}\n  allows: {latitude.allows}\n  changes: {latitude.changes}")
    return 0


def _rules(args: argparse.Namespace) -> int:
    from harness import faults, spec_index
    from harness.rules import RULES

    by_rule = faults.scenarios_by_rule([])
    if args.coverage:
        index = spec_index.load_index()
        print("\n".join(spec_index.coverage_lines(spec_index.coverage(by_rule, index), index)))
        return 0
    for rule in RULES:
        scenarios = sorted({node.split("[")[0] for node in by_rule.get(rule.id, [])})
        print(f"{rule.id}  ({rule.source} {rule.section})\n  {rule.text}\n  scenarios: {', '.join(scenarios) or '—'}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    from harness import verify

    return verify.run(args)


def _browser_server(args: argparse.Namespace) -> int:
    from harness import browser_server

    try:
        return browser_server.serve(args.config, args.host, args.port)
    except browser_server.BrowserServerError as error:
        print(f"browser-server: {error}", file=sys.stderr)
        return 2


def _doctor(args: argparse.Namespace) -> int:
    from harness import doctor

    return doctor.run(args)


def _report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from harness import compare, publish, report

    if args.compare:
        old, new = (Path(folder) for folder in args.compare)
        try:
            found = compare.compare(old, new)
        except ValueError as error:
            print(f"report --compare: {error}", file=sys.stderr)
            return 2
        compare.print_changes(found, "report")
        compare.step_summary(*compare.read_run(new), found)
        print(f"report: wrote {new / compare.CHANGES} and the changes into {new / 'index.html'}")
        return 1 if any(c["kind"] == compare.NEWLY_BROKEN for c in found) else 0
    publish.merge([Path(folder) for folder in args.merge], Path(args.out), ["ja", "en"])
    problems = report.check_report(Path(args.out))
    for problem in problems:
        print(f"report: {problem}")
    compare.step_summary(*compare.read_run(Path(args.out)), None)
    print(f"report: wrote {Path(args.out) / 'verification.md'} from {len(args.merge)} runs")
    return 1 if problems else 0


def _selftest(args: argparse.Namespace) -> int:
    from harness import selftest

    return selftest.run(args)


def _target_and_browsers(command: argparse.ArgumentParser) -> None:
    """What verify and doctor both look at: a target and the browser configurations."""
    from harness.browsers import CONFIGS

    command.add_argument(
        "--target", default="reference", help="reference (default), localhost, production, or a .toml profile"
    )
    command.add_argument("--base-url", help="the target's address, overriding the profile's")
    command.add_argument(
        "--browser", action="append", choices=list(CONFIGS), help="browser configuration (default: all four)"
    )
    command.add_argument(
        "--connect",
        action="append",
        default=[],
        metavar="CONFIG=WS",
        help="open this configuration's browser on a Playwright browser server (`python -m harness "
        "browser-server CONFIG` starts one; the same as HARNESS_CONNECT_<CONFIG>=WS)",
    )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with own_temporary_folder():
        return args.run(args)


def build_parser() -> argparse.ArgumentParser:
    """Every command's arguments (the test command builds verify's from here too)."""
    from harness.browsers import CONFIGS
    from harness.drivers import CALL_PATHS

    parser = argparse.ArgumentParser(prog="python -m harness")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the reference playground until Ctrl-C")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--other-port", type=int, default=8001)
    serve.add_argument("--relay-port", type=int, default=9333)
    serve.add_argument("--fault", action="append", help="switch on a named fault (repeatable)")
    serve.add_argument(
        "--latitude", action="append", help="switch on a named latitude, a conformant alternative (repeatable)"
    )
    serve.set_defaults(run=_serve)

    browsers = commands.add_parser("browsers", help="list the browser configurations and where their browsers are")
    browsers.add_argument("--provision", action="store_true", help="install what is missing where possible")
    browsers.set_defaults(run=_browsers)

    faults = commands.add_parser("faults", help="the reference's fault catalog; --prove shows each is caught")
    faults.add_argument("--prove", action="store_true", help="run each fault against the scenarios of its rule")
    faults.add_argument("--only", action="append", help="prove only this fault (repeatable)")
    faults.add_argument(
        "--one-per-section",
        action="store_true",
        help="only the first fault of each section of the spec per call path (a sample for a slower browser)",
    )
    faults.add_argument(
        "--with-latitudes",
        action="store_true",
        help="with every latitude of the reference on (in-page; default browser chromium)",
    )
    faults.add_argument(
        "--browser",
        action="append",
        default=[],
        choices=list(CONFIGS),
        help="browser configuration (default: chromium and chromium-noflag)",
    )
    faults.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (default 2)")
    faults.set_defaults(run=_faults)

    latitudes = commands.add_parser(
        "latitudes",
        help="the reference's latitudes (conformant alternatives); --prove shows the scenarios pass with them on",
    )
    latitudes.add_argument("--prove", action="store_true", help="run every scenario with the latitudes on")
    latitudes.add_argument("--only", action="append", help="only this latitude (repeatable)")
    latitudes.add_argument(
        "--browser",
        action="append",
        default=[],
        choices=list(CONFIGS),
        help="browser configuration (default: chromium)",
    )
    latitudes.add_argument(
        "--call-path",
        action="append",
        choices=list(CALL_PATHS),
        help="call path (default: every one the browser supports)",
    )
    latitudes.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (default 2)")
    latitudes.set_defaults(run=_latitudes)

    rules = commands.add_parser("rules", help="every rule id with its source and the scenarios that check it")
    rules.add_argument(
        "--coverage",
        action="store_true",
        help="per spec section: its sentences, how many map to rules, why the others do not",
    )
    rules.set_defaults(run=_rules)

    verify = commands.add_parser("verify", help="run the scenarios and write the Verification tables")
    _target_and_browsers(verify)
    verify.add_argument(
        "--call-path",
        action="append",
        choices=list(CALL_PATHS),
        help="call path (default: every one the browser supports)",
    )
    verify.add_argument("--fault", action="append", help="run against a named fault of the reference")
    verify.add_argument("--out", default="verification", help="output folder (default: verification/)")
    verify.add_argument(
        "--lang", default="en", choices=["ja", "en"], help="also write this language (ja is always written)"
    )
    verify.add_argument("--workers", default="2", help="pytest-xdist workers (default 2)")
    verify.add_argument("--real-time", action="store_true", help="wait out the 50-second rule in real time")
    verify.add_argument(
        "--shard", metavar="I/N", help="run only the I-th of N parts (one per machine; join them with `report --merge`)"
    )
    verify.add_argument(
        "--shard-durations",
        metavar="FILE",
        help="with --shard: deal the runs out by these measured durations (an earlier run's durations.json; "
        "default: the output folder's, where an earlier run wrote one)",
    )
    verify.add_argument(
        "--compare",
        metavar="DIR",
        help="an earlier run's folder: list the cells that changed since (changes.json, on top of index.html)",
    )
    verify.add_argument("pytest_args", nargs="*", help="further pytest arguments (after --)")
    verify.set_defaults(run=_verify)

    server = commands.add_parser(
        "browser-server", help="serve a browser configuration to a harness elsewhere (Playwright's browser server)"
    )
    server.add_argument("config", choices=list(CONFIGS), help="the browser configuration, with its launch arguments")
    server.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    server.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    server.set_defaults(run=_browser_server)

    doctor = commands.add_parser("doctor", help="before a long run: what the harness will see of a target, in a table")
    _target_and_browsers(doctor)
    doctor.set_defaults(run=_doctor)

    report = commands.add_parser(
        "report", help="one Verification table from several verify runs' folders, or what changed between two"
    )
    way = report.add_mutually_exclusive_group(required=True)
    way.add_argument("--merge", nargs="+", metavar="DIR", help="verify output folders (run.json, results.json)")
    way.add_argument(
        "--compare",
        nargs=2,
        metavar=("OLD", "NEW"),
        help="the cells that changed from OLD's run to NEW's: NEW/changes.json, on top of NEW/index.html; "
        "exit 1 when one is newly 不合格",
    )
    report.add_argument("--out", default="verification/merged", help="output folder (default: verification/merged)")
    report.set_defaults(run=_report)

    selftest = commands.add_parser("selftest", help="unit tests, the scenarios on Chromium, and the fault proof")
    selftest.add_argument("--workers", default="2", help="processes at once (default 2; the fault proof two more)")
    selftest.add_argument(
        "--under-load",
        action="store_true",
        help="the load proof: the main job on both Chromium configurations idle, then with every core busy",
    )
    selftest.add_argument(
        "--runs", type=int, default=1, help="with --under-load: how many loaded runs follow the idle one (default 1)"
    )
    selftest.add_argument(
        "--idle",
        metavar="DIR",
        help="with --under-load: the idle run from an earlier main job's folder on this machine "
        "(e.g. verification/selftest) instead of running it again",
    )
    selftest.add_argument(
        "--real-target-only",
        action="store_true",
        help="only the real-target slice (the test command runs it beside the fault proof)",
    )
    selftest.set_defaults(run=_selftest)
    return parser


@contextmanager
def own_temporary_folder() -> Iterator[None]:
    """Everything the command starts (pytest and its workers, Playwright's driver, the browsers
    and their profiles, the relay's HOME) keeps its temporary files in one folder, removed when the
    command ends, also on a failure or Ctrl-C: a browser or driver that was killed leaves nothing
    in the machine's /tmp. A command started by another one uses the outer one's folder."""
    if os.environ.get(TEMPORARY_FOLDER):
        yield
        return
    base = tempfile.gettempdir()
    if len(base) > SHORT_PATH and os.path.isdir("/tmp"):
        base = "/tmp"  # Chromium's SingletonSocket must fit a Unix socket's path (~104 bytes) below it
    folder = tempfile.mkdtemp(prefix="harness-run-", dir=base)
    os.environ[TEMPORARY_FOLDER] = os.environ["TMPDIR"] = folder
    tempfile.tempdir = None  # tempfile read TMPDIR once already
    try:
        yield
    finally:
        # After Ctrl-C the browsers and workers end on their own, and may still write as they go.
        left_after(TEMPORARY_FOLDER, folder, limits.ENDED)
        shutil.rmtree(folder, ignore_errors=True)


TEMPORARY_FOLDER = "HARNESS_TMPDIR"
SHORT_PATH = 30


if __name__ == "__main__":
    sys.exit(main())
