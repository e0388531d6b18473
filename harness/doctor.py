"""`python -m harness doctor --target PROFILE`: what the harness will see of a target, in a minute,
before a long run.

Each tool page of the profile is opened once per browser configuration (all of a configuration's
tabs load at once): is the page reachable, does <title> hold the document's name, is the switch
there by its role and label, which operations register once it is on (against the contract), does
each hook of the profile resolve (a selector matches, a hold_loading or engine kind or glob
catches a request), and does the relay list the tab. Then which rules will end 未確認 and why:
the profile keys a tool lacks, and the rules of the scenarios that read them
(@pytest.mark.profile). It exits non-zero when a page cannot be reached or has no switch.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Request, Route, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from harness import browser_server, contract, limits, tools
from harness.browsers import CONFIGS, BrowserMissing, cannot_open_a_page, resolve
from harness.checks import HarnessError
from harness.clients import ConditionTimedOut, InPageClient
from harness.pages import ToolPage, new_tool_page
from harness.paths import ROOT
from harness.relay import HeldPort, Relay, RelayError
from harness.targets import HOLD_LOADING_KINDS, Target, TargetError, check_reachable, load_profile, served_at

# Hooks that show only in a state the doctor does not bring about.
STATE_HOOKS = {
    "running": "shows only during a run",
    "test_running": "shows only during a test run",
    "reset_notice": "shows only after a reset",
    "excluded_directory": "a directory name",
}
# Counts the IndexedDB databases a page opens (hold_loading = "indexeddb"), holding none.
COUNT_INDEXEDDB = """(() => {
  const open = IDBFactory.prototype.open;
  globalThis.__harnessIndexedDBOpened = 0;
  IDBFactory.prototype.open = function (...args) { globalThis.__harnessIndexedDBOpened += 1; return open.apply(this, args); };
})();"""
RELAY_LISTED_WITHIN = 15 * limits.SCALE


@dataclass
class Seen:
    """What one tab's page asked for while it loaded and ran, by the profile's hold_loading and engine."""

    requests: list[Request] = field(default_factory=list)
    routed: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # glob → URLs (workers' too)


@dataclass
class Row:
    browser: str
    tool: str
    cells: dict[str, str] = field(default_factory=dict)
    fatal: bool = False  # the page is unreachable or has no switch


COLUMNS = ("page", "title", "switch", "operations", "hooks", "relay")


def run(args) -> int:
    started = time.monotonic()
    try:
        os.environ.update(browser_server.parse_connect(args.connect))
    except ValueError as error:
        print(f"doctor: {error}")
        return 2
    try:
        target = load_profile(args.target, args.base_url)
        if not target.served:
            check_reachable(target)
    except TargetError as error:
        print(f"doctor: {error}")
        return 2
    unverified = missing_keys_and_rules(target, args.target, args.base_url)
    rows, notes = [], []
    with contextlib.ExitStack() as stack:
        if target.served:
            from harness.server import FixtureServer, ReferenceConfig

            held = HeldPort()
            server = stack.enter_context(FixtureServer(ReferenceConfig(relay_port=held.number)))
            target = served_at(target, server.origin, held.number)
        else:
            held = None
        home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="doctor-relay-")))
        try:
            relay = stack.enter_context(
                Relay(port=target.relay_port, widget_origin=target.widget_origin, home=home, held=held)
            )
        except RelayError as error:
            relay = None
            notes.append(f"relay: {str(error).splitlines()[0]}")
        playwright = stack.enter_context(sync_playwright())
        for name in args.browser or list(CONFIGS):
            try:
                browser = open_browser(playwright, name)
            except Unusable as why:
                notes.append(str(why))
                continue
            try:
                rows += examine(browser, name, target, relay)
            finally:
                browser.close()
    print_table(target, rows, notes, unverified)
    print(f"doctor: {len(rows)} pages in {time.monotonic() - started:.0f} s")
    return 1 if any(row.fatal for row in rows) or not rows else 0


class Unusable(Exception):
    """A configuration's browser cannot be had here, in one line."""


def open_browser(playwright, name: str) -> Browser:
    """The configuration's browser: on its browser server where one is named (the pages then show
    whether that browser reaches the target's address), else launched here."""
    config = CONFIGS[name]
    browser_type = getattr(playwright, config.engine)
    server = browser_server.endpoint(name)
    try:
        if server:
            return browser_server.connect(browser_type, name, server)
        resolved = resolve(config, browser_type.executable_path)
        unusable = cannot_open_a_page(browser_type, resolved)
        if unusable:
            raise Unusable(unusable)
        return browser_type.launch(**resolved.launch_options(), args=config.launch_args())
    except browser_server.BrowserServerError as error:
        raise Unusable(str(error)) from None
    except BrowserMissing as missing:
        raise Unusable(f"{name}: {missing}") from None
    except PlaywrightError as error:
        raise Unusable(f"{name}: does not start: {error.message.splitlines()[0]}") from None


def examine(browser: Browser, browser_name: str, target: Target, relay: Relay | None) -> list[Row]:
    """Every tool page of the target in its own context of `browser`, loaded at once, then looked at one by one."""
    opened = []
    for tool in target.tools:
        context = browser.new_context()
        tool_page = new_tool_page(context, target, tool, target.page_url(tool))
        tool_page.page.add_init_script(COUNT_INDEXEDDB)
        seen = watch(tool_page.page, target, tool)
        row = Row(browser_name, tool)
        try:
            response = tool_page.page.goto(tool_page.url, wait_until="commit")
            row.cells["page"] = "ok" if response is None or response.ok else f"HTTP {response.status}"
            row.fatal = response is not None and not response.ok
        except PlaywrightError as error:
            row.cells["page"], row.fatal = f"unreachable: {error.message.splitlines()[0]}", True
        opened.append((tool_page, seen, row))
    for tool_page, seen, row in opened:
        if not row.fatal:
            look_at(tool_page, seen, row, target, relay)
        tool_page.page.context.close()
    return [row for _, _, row in opened]


def watch(page: Page, target: Target, tool: str) -> Seen:
    """Record the page's requests, and (through routes, which see a worker's requests too) those of
    the profile's hold_loading and engine globs."""
    seen = Seen()
    page.on("request", lambda request: seen.requests.append(request))
    pages = target.tools[tool]
    hold = pages.hold_loading
    globs = [kind for kind in ((hold,) if isinstance(hold, str) else hold or ()) if kind not in HOLD_LOADING_KINDS]
    for glob in [*globs, *([pages.engine] if pages.engine else [])]:
        page.route(glob, recorder(seen.routed[glob]))
    return seen


def recorder(urls: list[str]):
    def record(route: Route) -> None:  # one parameter: Playwright passes the request to a second
        urls.append(route.request.url)
        route.fallback()

    return record


def look_at(tool_page: ToolPage, seen: Seen, row: Row, target: Target, relay: Relay | None) -> None:
    page, tool = tool_page.page, tool_page.tool
    with contextlib.suppress(PlaywrightError):  # a page that never fires load is looked at as it is
        page.wait_for_load_state("load", timeout=limits.PAGE_SETTLED * 1000)
    document = target.tools[tool].document
    row.cells["title"] = (
        "— (no document in the profile)"
        if document is None
        else "ok"
        if limits.poll(lambda: document.name in page.title())[1]
        else f"lacks 「{document.name}」: {page.title()!r}"
    )
    try:
        tool_page.switch.wait_for(state="visible", timeout=30_000)
    except PlaywrightError:
        row.cells["switch"], row.fatal = "not found (role switch, name 「AI からの操作」)", True
        return
    row.cells["switch"] = "found"
    if tool_page.switch.get_attribute("aria-checked") != "true" and not tool_page.switch.is_checked():
        tool_page.switch.click()
    client = InPageClient(tool_page)
    expected = contract.names_of(tool)
    try:
        registered = {info.name for info in client.wait_for_tools(expected)}
    except (ConditionTimedOut, PlaywrightError):
        registered = {info.name for info in client.tools()}
    missing, extra = sorted(expected - registered), sorted(registered - expected)
    differences = [
        *([f"missing {', '.join(missing)}"] if missing else []),
        *([f"extra {', '.join(extra)}"] if extra else []),
    ]
    row.cells["operations"] = "; ".join(differences) or f"{len(expected)} of {len(expected)}"
    ready = not missing and client.call_when_ready(contract.reader_of(tool).name)["ok"]
    row.cells["hooks"] = "; ".join(hook_states(tool_page, seen, target, client, ready)) or "—"
    row.cells["relay"] = relay_state(tool_page, relay, expected - set(missing))


def hook_states(tool_page: ToolPage, seen: Seen, target: Target, client: InPageClient, ready: bool) -> list[str]:
    tool, page = tool_page.tool, tool_page.page
    pages, descriptor = target.tools[tool], tools.of(tool)
    states = []
    if descriptor.engine_call and pages.engine and ready:
        client.call(*descriptor.engine_call)  # loads the engine
    for hook in descriptor.hooks:
        value = getattr(pages, hook)
        if value is None:
            continue
        if hook == "hold_loading":
            kinds = value if isinstance(value, tuple) else (value,)
            caught = [kind for kind in kinds if loading_caught(kind, seen, page)]
            states.append(f"hold_loading {'catches ' + ', '.join(caught) if caught else 'caught nothing'}")
        elif hook == "engine":
            states.append(
                f"engine {'matched ' + str(len(seen.routed[value])) + ' requests' if seen.routed[value] else 'matched nothing'}"
            )
        elif hook == "binary_file":
            listed = client.call(f"{tool}_list_files", {}) if ready else {}
            paths = {entry["path"] for entry in listed.get("entries", [])}
            states.append(f"binary_file {'listed' if value in paths else 'not in the project'}")
        elif hook in STATE_HOOKS:
            states.append(f"{hook} not checked ({STATE_HOOKS[hook]})")
        else:
            states.append(f"{hook} {'ok' if page.locator(value).count() else 'matches nothing'}")
    return states


def loading_caught(kind: str, seen: Seen, page: Page) -> bool:
    if kind == "fetch":
        return any(request.resource_type in ("fetch", "xhr") for request in seen.requests)
    if kind == "child-frame":
        return any(request.frame.parent_frame is not None for request in seen.requests)
    if kind == "indexeddb":
        return page.evaluate("globalThis.__harnessIndexedDBOpened ?? 0") > 0
    return bool(seen.routed[kind])


def relay_state(tool_page: ToolPage, relay: Relay | None, names: set[str]) -> str:
    if relay is None:
        return "not started"
    try:
        listed = relay.client_for(tool_page).wait_for_tools(names, timeout=RELAY_LISTED_WITHIN)
    except (HarnessError, ConditionTimedOut):
        return f"not listed in {RELAY_LISTED_WITHIN:.0f} s"
    return f"lists {len(listed)}"


# --- what will be 未確認 --------------------------------------------------------------------------


class _Collected:
    """Collects each scenario run's tool, rules and profile keys (pytest --collect-only)."""

    def __init__(self) -> None:
        self.runs: list[tuple[str | None, tuple[str, ...], tuple[str, ...]]] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        from harness.faults import _item_tool
        from harness.pytest_plugin import _declared_rules, profile_keys

        for item in session.items:
            params = getattr(getattr(item, "callspec", None), "params", {})
            marker = item.get_closest_marker("tool")
            tool = _item_tool(params) or (marker.args[0] if marker and len(marker.args) == 1 else None)
            self.runs.append((tool, _declared_rules(item), profile_keys(item)))


def missing_keys_and_rules(target: Target, profile: str, base_url: str | None) -> dict[str, dict[str, set[str]]]:
    """Per tool of the target: each profile key it lacks that a scenario reads, and those scenarios' rules."""
    collected = _Collected()
    with contextlib.redirect_stdout(io.StringIO()):
        pytest.main(
            [
                "--collect-only",
                "-q",
                "-p",
                "no:cacheprovider",
                str(ROOT / "scenarios"),
                "--target",
                profile,
                *(["--base-url", base_url] if base_url else []),
                "--browser",
                "chromium",
            ],
            plugins=[collected],
        )
    missing: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for tool, rules, keys in collected.runs:
        for key in keys:
            for one in [tool] if tool else list(target.tools):
                if one in target.tools and getattr(target.tools[one], key, None) is None:
                    missing[one][key].update(rule for rule in rules if _applies(rule, one))
    return missing


def _applies(rule: str, tool: str) -> bool:
    """Whether a run on `tool` can decide `rule`: a canvas rule only on the canvas tools, a tool's
    own rule only on that tool (a scenario of several tools declares them all)."""
    section = rule.split(".")[0]
    if section == "canvas":
        return tool in tools.CANVAS
    return section == tool or section not in tools.NAMES


def print_table(target: Target, rows: list[Row], notes: list[str], unverified: dict[str, dict[str, set[str]]]) -> None:
    print(f"doctor: target {target.name} at {target.base_url} (relay port {target.relay_port})\n")
    print("| browser | tool | " + " | ".join(COLUMNS) + " |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for row in rows:
        print(f"| {row.browser} | {row.tool} | " + " | ".join(row.cells.get(column, "—") for column in COLUMNS) + " |")
    for note in notes:
        print(f"\n{note}")
    absent = [tool for tool in tools.NAMES if tool not in target.ai_tools]
    print("\nWill end 未確認 on this profile:")
    if absent:
        print(f"- the tools it does not have: {', '.join(absent)} (their scenarios are skipped)")
    for tool, keys in unverified.items():
        for key, rules in sorted(keys.items()):
            print(f"- {tool}: no {key} → {', '.join(sorted(rules))}")
    if not absent and not unverified:
        print("- nothing for want of a profile key")
    if not target.served:
        print("- relay.widget-origin: it needs the same page on a second origin, which only the served reference has")
