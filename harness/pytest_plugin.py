"""The harness's pytest plugin: browser configurations, the target, tool pages and clients.

It builds on pytest-playwright's fixture chain (`browser_type_launch_args`, `browser_context_args`,
`browser`, `context`, `page`) and keeps its options (--browser, --headed, --tracing,
--screenshot, --output, --base-url); it adds --browser-config (the harness's configurations,
chromium-noflag among them), --target, --call-path, --fault and --real-time.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import BrowserContext, expect
from playwright.sync_api import Error as PlaywrightError

from harness import baseline, browser_server, checks, limits, results
from harness.browsers import CONFIGS, BrowserConfig, BrowserMissing, cannot_open_a_page, resolve
from harness.checks import HarnessDefect, HarnessError, RuleBroken
from harness.clients import ConditionTimedOut, ToolClient
from harness.drivers import CALL_PATHS, DRIVERS, MCP_RELAY, Driver, paths_for, unknown_capabilities
from harness.extension import launch_context
from harness.pages import ToolPage, new_tool_page
from harness.pages import scripts_when_off as read_scripts_when_off
from harness.paths import SCENARIOS
from harness.rules import BY_ID
from harness.shards import in_shard, parse_shard, read_durations
from harness.targets import PROFILE_KEYS, Target, TargetError, check_reachable, load_profile, served_at
from harness.watchdog import Watchdog, WatchdogExpired
from harness.watchdog import available as watchdog_available

if TYPE_CHECKING:
    from harness.relay import Relay  # imported where a relay starts: it loads the MCP SDK

TARGET_KEY = pytest.StashKey[Target]()


# --- options -------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    harness = parser.getgroup("harness", "fukuemon playground harness")
    harness.addoption(
        "--browser-config",
        action="append",
        default=[],
        choices=list(CONFIGS),
        help="browser configuration (repeatable): " + ", ".join(CONFIGS) + "; beside pytest-playwright's "
        "--browser, which names only the three engines",
    )
    harness.addoption(
        "--target",
        default="reference",
        help="target profile: reference (default), localhost, production, or a .toml file",
    )
    harness.addoption(
        "--call-path",
        action="append",
        choices=CALL_PATHS,
        default=[],
        help="call path (repeatable): " + ", ".join(CALL_PATHS) + " (default: every one the browser "
        "configuration supports)",
    )
    harness.addoption(
        "--fault", action="append", default=[], help="switch on a named fault of the reference playground (repeatable)"
    )
    harness.addoption(
        "--latitude",
        action="append",
        default=[],
        help="switch on a named latitude of the reference playground, a conformant alternative "
        "(repeatable; 'all' for every one)",
    )
    harness.addoption(
        "--latitudes-only-on",
        default=None,
        metavar="BROWSER:CALL_PATH[,…]",
        help="with --latitude: only the runs on these browser configurations and call paths (and those of "
        "those browsers without a call path) have them; the others run the reference as it is",
    )
    harness.addoption(
        "--prove-faults",
        default=None,
        metavar="NAMES",
        help="the fault proof's session (python -m harness faults --prove): each scenario once per "
        "fault of its rules, for these comma-separated faults",
    )
    harness.addoption(
        "--prove-with-clean",
        action="store_true",
        help="with --prove-faults: also each proving scenario once without a fault",
    )
    harness.addoption(
        "--prove-sentinels",
        default=None,
        metavar="NAMES",
        help="with --prove-faults: the faults that also run the sentinel (default: every one)",
    )
    harness.addoption(
        "--results-json", default=None, help="write every result with its parameters here (python -m harness verify)"
    )
    harness.addoption(
        "--baseline",
        default=str(baseline.BASELINE),
        help="the known differences to expect (default: harness/baseline.toml)",
    )
    harness.addoption(
        "--trace-failures",
        action="store_true",
        help="keep a light trace (actions, console, network) and a screenshot of each page of each "
        "failing scenario under --output; pytest-playwright's --tracing records DOM snapshots too, "
        "at twice the run time",
    )
    harness.addoption(
        "--evidence",
        default=None,
        metavar="DIR",
        help="keep a picture of what a passing check of a rule about the screen looked at, one per "
        "rule and browser configuration, in DIR (python -m harness verify: <out>/evidence)",
    )
    harness.addoption(
        "--real-time", action="store_true", help="wait the 50-second rule out in real time instead of page.clock"
    )
    harness.addoption(
        "--shard",
        default=None,
        metavar="I/N",
        help="run only the I-th of N parts of the scenarios (1-based), one part per machine; "
        "python -m harness report --merge joins their folders into one table",
    )
    harness.addoption(
        "--shard-durations",
        default=None,
        metavar="FILE",
        help="with --shard: split by these measured durations (a run's durations.json) instead of by count",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    # The watchdog of every attempt (harness.watchdog) takes pytest-timeout's --timeout; its own
    # timer, which a rerun and a teardown after a failure never had, is switched off before it
    # reads its settings.
    config.stash[WATCHDOG_LIMIT_KEY] = float(
        getattr(config.option, "timeout", None) or os.environ.get("PYTEST_TIMEOUT") or limits.SCENARIO
    )
    if watchdog_available():  # elsewhere (no SIGALRM) pytest-timeout's timer is what there is
        config.option.timeout = 0
    else:
        config.option.timeout = config.stash[WATCHDOG_LIMIT_KEY]
    if config.getoption("--browser-config"):  # pytest-playwright's browser_name: every configuration asked for
        config.option.browser = list(
            dict.fromkeys([*(config.option.browser or []), *config.getoption("--browser-config")])
        )
    expect.set_options(timeout=limits.EXPECT_MS)
    config.addinivalue_line("markers", "rules(*ids): the spec rules (harness/rules.py) this scenario checks")
    config.addinivalue_line("markers", "tool(name): the scenario is about one tool; skipped where the target lacks it")
    config.addinivalue_line(
        "markers",
        "needs(*capabilities): the call paths' capabilities this scenario needs "
        "(harness/drivers.py); it runs on every path that has them",
    )
    config.addinivalue_line(
        "markers",
        "one_driver(why): the rule is the page's, whichever way a call arrives: "
        "the scenario runs on the first call path that can run it",
    )
    config.addinivalue_line(
        "markers", "new_context(why): the scenario's tab is opened in a new browser context, never a warm tab"
    )
    config.addinivalue_line(
        "markers",
        "calls_row: the scenario calls every operation of its tool; its rows fill the call path's row of Table 1",
    )
    config.addinivalue_line(
        "markers",
        "takes_input(bool): scenarios/test_confirmation.py: only the confirming operations "
        "that take input (True) or none (False)",
    )
    config.addinivalue_line(
        "markers",
        "profile(*keys): the target profile's keys the scenario may read (document, "
        "other_page, empty_page, or a hook): where the profile lacks one, it is 未確認",
    )
    try:
        target = load_profile(config.getoption("--target"), config.getoption("--base-url", default=None))
    except TargetError as error:
        raise pytest.UsageError(str(error)) from None
    if (
        config.getoption("--fault") or config.getoption("--prove-faults") or config.getoption("--latitude")
    ) and not target.served:
        raise pytest.UsageError(
            "--fault and --latitude need the reference target: they live in the reference playground"
        )
    only_on = config.getoption("--latitudes-only-on")
    if only_on and any(pair.count(":") != 1 or pair.split(":")[1] not in CALL_PATHS for pair in only_on.split(",")):
        raise pytest.UsageError(
            f"--latitudes-only-on takes BROWSER:CALL_PATH[,…] (call paths of {', '.join(CALL_PATHS)}), not {only_on!r}"
        )
    if config.getoption("--latitude"):
        from harness.latitudes import catalog, unknown_latitudes

        if "all" in config.option.latitude:
            config.option.latitude = [latitude.name for latitude in catalog()]
        unknown = unknown_latitudes(config.getoption("--latitude"))
        if unknown:
            raise pytest.UsageError(unknown)
    proven = [name for name in (config.getoption("--prove-faults") or "").split(",") if name]
    if config.getoption("--fault") or proven:
        from harness.faults import FaultProofPlugin, unknown_faults

        unknown = unknown_faults([*config.getoption("--fault"), *proven])
        if unknown:
            raise pytest.UsageError(unknown)
        if proven:
            sentinels = config.getoption("--prove-sentinels")
            config.pluginmanager.register(
                FaultProofPlugin(
                    proven, config.getoption("--prove-with-clean"), None if sentinels is None else sentinels.split(",")
                ),
                "harness-fault-proof",
            )
    if not target.served and not hasattr(config, "workerinput") and not config.getoption("collectonly"):
        try:
            check_reachable(target)  # once, before any scenario: one line instead of a failure per test
        except TargetError as error:
            raise pytest.UsageError(str(error)) from None
    config.stash[TARGET_KEY] = target
    if config.getoption("--evidence"):
        checks.evidence_folder = Path(config.getoption("--evidence"))
    if config.getoption("--shard"):
        durations = config.getoption("--shard-durations")
        config.stash[SHARD_KEY] = (
            *parse_shard(config.getoption("--shard")),
            read_durations(Path(durations)) if durations else None,
        )
    if config.getoption("--results-json"):
        config.pluginmanager.register(
            results.ResultsRecorder(Path(config.getoption("--results-json"))), "harness-results"
        )


SHARD_KEY = pytest.StashKey[tuple[int, int, dict[str, float] | None]]()


RELAY_GROUP = "relay-fixed-port"


def _params(item: pytest.Item) -> dict[str, Any]:
    """The parameters of a parametrized scenario run (none for a plain item)."""
    return getattr(getattr(item, "callspec", None), "params", {})


def uses_relay(item: pytest.Item) -> bool:
    """Whether the scenario run talks to the relay: its call path goes through it, or it asks for it."""
    path = _params(item).get("call_path")
    return (path in DRIVERS and DRIVERS[path].has(MCP_RELAY)) or "relay" in getattr(item, "fixturenames", ())


def pytest_itemcollected(item: pytest.Item) -> None:
    """A real target's page knows one relay port: the runs that use the relay share one, on one
    worker (xdist's --dist loadgroup, which `python -m harness verify` passes, keeps a group on
    one worker; it reads the marker in its own pytest_collection_modifyitems, after this)."""
    if not item.config.stash[TARGET_KEY].served and uses_relay(item):
        item.add_marker(pytest.mark.xdist_group(RELAY_GROUP))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A call path the browser configuration cannot carry (webmcp without the flag) is never
    # generated there; the table shows — for it, with the driver's reason.
    unsupported = [item for item in items if not _driver_runs_on(_params(item))]
    if unsupported:
        config.hook.pytest_deselected(items=unsupported)
        items[:] = [item for item in items if _driver_runs_on(_params(item))]
    if config.getoption("--results-json") and config.getoption("reruns", None) is None:
        # In a recorded run a scenario that stopped on harness trouble runs once more
        # (pytest-rerunfailures); results.json names it flaky. Nothing else is run again.
        for item in items:
            item.add_marker(pytest.mark.flaky(reruns=1, only_rerun=list(RERUN_ONLY), rerun_except=list(NEVER_RERUN)))
    if SHARD_KEY in config.stash:
        mine = in_shard([results.plain_nodeid(item.nodeid) for item in items], *config.stash[SHARD_KEY])
        others = [item for item in items if results.plain_nodeid(item.nodeid) not in mine]
        if others:
            config.hook.pytest_deselected(items=others)
            items[:] = [item for item in items if results.plain_nodeid(item.nodeid) in mine]
    # One browser configuration after the other, each in the order pytest gave: a worker's browser
    # (and its warm tabs) is torn down whenever the next scenario needs the other configuration,
    # and pytest's grouping of the session-scoped parameters left 27 such switches.
    browsers_in_order = list(dict.fromkeys(_browser_name(item) for item in items))
    items.sort(key=lambda item: browsers_in_order.index(_browser_name(item)))
    missing = _missing_browsers({_params(item)["browser_name"] for item in items if "browser_name" in _params(item)})
    target = config.stash[TARGET_KEY]
    for item in items:
        params = _params(item)
        marker = item.get_closest_marker("tool")
        if marker and "tool" not in params and not set(marker.args) & set(target.ai_tools):
            # A scenario folder of a tool the target lacks (its runs take no `tool` parameter).
            item.add_marker(
                pytest.mark.skip(reason=f"target {target.name} has no {' or '.join(marker.args)} operations")
            )
        driver = DRIVERS.get(params.get("call_path", ""))
        if driver and driver.loads_extension and browser_server.endpoint(params.get("browser_name", "")):
            item.add_marker(
                pytest.mark.skip(reason=f"{params['browser_name']}: {browser_server.NO_PERSISTENT_CONTEXT}")
            )
        if params.get("browser_name") in missing:
            # Marked at collection: never launched, never counted as passed, one summary line per file.
            item.add_marker(pytest.mark.skip(reason=missing[params["browser_name"]]))
            item.stash[MISSING_BROWSER_KEY] = params["browser_name"]
        unknown_keys = [key for key in profile_keys(item) if key not in PROFILE_KEYS]
        if unknown_keys:
            raise pytest.UsageError(
                f"{item.nodeid}: unknown profile keys {unknown_keys} (known: {', '.join(PROFILE_KEYS)})"
            )
        for marker in item.iter_markers("rules"):
            unknown = [rule for rule in marker.args if rule not in BY_ID]
            if unknown:
                raise pytest.UsageError(f"{item.nodeid}: unknown rule ids {unknown} (see harness/rules.py)")


def _browser_name(item: pytest.Item) -> str | None:
    return _params(item).get("browser_name")


def _driver_runs_on(params: dict) -> bool:
    if "call_path" not in params:
        return True
    path, browser = params["call_path"], params.get("browser_name")
    if path not in DRIVERS:
        return False  # no selected path has what the scenario needs: pytest's empty parameter set
    return browser is None or DRIVERS[path].supports(CONFIGS[browser])


@pytest.fixture(scope="session")
def browser_config(browser_name: str) -> BrowserConfig:
    return CONFIGS[browser_name]


def _missing_browsers(names: set[str]) -> dict[str, str]:
    """Configurations among `names` whose browser is not installed, with the reason."""
    if not names:
        return {}
    from playwright.sync_api import sync_playwright

    missing = {}
    with sync_playwright() as playwright:
        for name in names:
            config = CONFIGS[name]
            browser_type = getattr(playwright, config.engine)
            server = browser_server.endpoint(name)
            if server:
                try:
                    browser_server.connect(browser_type, name, server).close()
                except browser_server.BrowserServerError as error:
                    missing[name] = str(error)
                continue
            try:
                unusable = cannot_open_a_page(browser_type, resolve(config, browser_type.executable_path))
            except BrowserMissing as error:
                unusable = str(error)
            if unusable:
                missing[name] = unusable
    return missing


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    target = metafunc.config.stash[TARGET_KEY]
    if "tool" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker("tool")
        tools = [
            tool
            if tool in target.ai_tools
            else pytest.param(tool, marks=pytest.mark.skip(reason=f"target {target.name} has no {tool} operations"))
            for tool in (marker.args if marker else target.ai_tools)
        ]
        metafunc.parametrize("tool", tools, scope="session")
    if "page_tool" in metafunc.fixturenames:
        metafunc.parametrize("page_tool", list(target.tools), scope="session")
    if "call_path" in metafunc.fixturenames:
        needs = needed_capabilities(metafunc.definition)
        unknown = unknown_capabilities(needs)
        if unknown:
            raise pytest.UsageError(
                f"{metafunc.definition.nodeid}: unknown capabilities {unknown} (see harness/drivers.py)"
            )
        paths = paths_for(
            needs,
            metafunc.definition.get_closest_marker("one_driver") is not None,
            metafunc.config.getoption("--call-path") or list(CALL_PATHS),
        )
        metafunc.parametrize("call_path", paths, scope="session")


def needed_capabilities(node) -> set[str]:
    return {capability for marker in node.iter_markers("needs") for capability in marker.args}


# --- the target ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def held_relay_port(pytestconfig: pytest.Config):
    """The served reference's relay port for this worker, held from the rest of the machine until
    the worker's relay starts on it (None for a target whose page knows its own relay port)."""
    from harness.relay import HeldPort

    if not pytestconfig.stash[TARGET_KEY].served:
        yield None
        return
    held = HeldPort()
    yield held
    held.release()


@pytest.fixture(scope="session")
def fixture_server(pytestconfig: pytest.Config, held_relay_port):
    """The local fixture server: the reference playground and the embedding host, per worker."""
    from harness.server import FixtureServer, ReferenceConfig

    relay_port = held_relay_port.number if held_relay_port else pytestconfig.stash[TARGET_KEY].relay_port
    with FixtureServer(ReferenceConfig(relay_port=relay_port)) as server:
        yield server


@pytest.fixture(scope="session")
def target(pytestconfig: pytest.Config, fixture_server) -> Target:
    target = pytestconfig.stash[TARGET_KEY]
    if target.served:
        return served_at(target, fixture_server.origin, fixture_server.config.relay_port)
    return target


@pytest.fixture
def reference_fault() -> str | None:
    """The fault under proof; the fault proof parametrizes it (python -m harness faults --prove)."""
    return None


@pytest.fixture
def reference_latitudes(request: pytest.FixtureRequest) -> list[str]:
    """The reference's latitudes (conformant alternatives) switched on for this scenario."""
    return _latitudes_of(request.node)


def latitudes_apply(only_on: str | None, params: dict) -> bool:
    """Whether a run with these parameters has the latitudes, under --latitudes-only-on BROWSER:CALL_PATH[,…]."""
    if not only_on:
        return True
    return any(
        params.get("browser_name") == browser and params.get("call_path") in (call_path, None)
        for browser, call_path in (pair.split(":") for pair in only_on.split(","))
    )


@pytest.fixture
def reference_faults(pytestconfig: pytest.Config, reference_fault: str | None) -> list[str]:
    """The reference's faults switched on for this scenario: --fault, and the fault under proof."""
    return [*pytestconfig.getoption("--fault"), *([reference_fault] if reference_fault else [])]


@pytest.fixture
def open_tool(context: BrowserContext, target: Target, request: pytest.FixtureRequest) -> Callable[..., ToolPage]:
    """Open a tool page in a new tab: `open_tool(tool)`, `open_tool(tool, "empty_page")`.

    `navigate=False` gives the tab without loading the page (to route requests first; then
    `tool_page.goto(tool_page.url, wait_until=...)`).
    """
    opened = request.node.stash.setdefault(OPENED_KEY, [])

    def open_(
        tool: str, which: str = "page", in_context: BrowserContext | None = None, navigate: bool = True
    ) -> ToolPage:
        url = target.page_url(tool) if which == "page" else target.other_url(tool, which)
        if url is None:
            pytest.skip(f"target {target.name} has no {which} for {tool}")
        tool_page = new_tool_page(in_context or context, target, tool, url)
        opened.append(tool_page)
        if navigate:
            tool_page.goto(url)
        return tool_page

    return open_


@pytest.fixture(scope="session")
def _scripts_when_off_read() -> dict[tuple, set[str]]:
    return {}


@pytest.fixture
def scripts_when_off(
    open_tool,
    browser_config: BrowserConfig,
    reference_faults: list[str],
    reference_latitudes: list[str],
    _scripts_when_off_read: dict,
) -> Callable[[str], set[str]]:
    """`scripts_when_off(tool)`: what a tool page left off loads (pages.scripts_when_off), read
    in this scenario's context the first time the worker needs it for this browser, tool, faults
    and latitudes, then remembered (a tab's load and its 2 s of quiet each time otherwise)."""

    def read(tool: str) -> set[str]:
        key = (browser_config.name, tool, tuple(reference_faults), tuple(reference_latitudes))
        if key not in _scripts_when_off_read:
            _scripts_when_off_read[key] = read_scripts_when_off(open_tool, tool)
        return _scripts_when_off_read[key]

    return read


@pytest.fixture(scope="session")
def extension_profiles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the agent extension's persistent contexts keep their profiles: pytest's own temporary
    folder, which pytest prunes."""
    return tmp_path_factory.mktemp("extension-profiles")


@pytest.fixture(scope="session")
def warm_tabs(
    browser,
    browser_type,
    browser_type_launch_args: dict,
    browser_context_args: dict,
    target: Target,
    pytestconfig: pytest.Config,
    extension_profiles: Path,
) -> Iterator:
    from harness.warm_tabs import WarmTabs

    tabs = WarmTabs(
        browser,
        browser_context_args,
        target,
        trace=pytestconfig.getoption("--trace-failures"),
        extension_context=lambda: launch_context(
            browser_type, browser_type_launch_args, browser_context_args, extension_profiles
        ),
    )
    yield tabs
    tabs.close()


@pytest.fixture
def tab_of(
    request: pytest.FixtureRequest,
    warm_tabs,
    reference_faults: list[str],
    reference_latitudes: list[str],
    output_path: str,
) -> Iterator[Callable[[str], ToolPage]]:
    """The scenario's one tab of a tool: `tab_of(tool)`.

    A warm tab (harness/warm_tabs.py: kept per worker, reset to a new tab's start) unless the
    scenario works on its browser context — asks for `context` or `open_tool` (a clock, an init
    script, a second tab) — or is marked `new_context`; those get a new tab in their context."""
    if "context" in request.fixturenames or request.node.get_closest_marker("new_context"):
        yield request.getfixturevalue("open_tool")
        return
    call_path = _params(request.node).get("call_path")
    taken: list[ToolPage] = []

    def tab(tool: str) -> ToolPage:
        tool_page = warm_tabs.take(tool, call_path, reference_faults, reference_latitudes, request.node.nodeid)
        taken.append(tool_page)
        request.node.stash.setdefault(OPENED_KEY, []).append(tool_page)
        return tool_page

    yield tab
    for tool_page in taken:
        warm_tabs.give_back(
            tool_page,
            failed=failed_before_teardown(request.node),
            artifacts=Path(output_path),
            finding=request.node.stash.get(FINDING_KEY, False),
        )


@pytest.fixture
def tool_page(tab_of, tool: str) -> ToolPage:
    return tab_of(tool)


def failed_before_teardown(item: pytest.Item) -> bool:
    """From the phase reports pytest-playwright keeps on the item (rep_setup, rep_call)."""
    for phase in ("rep_call", "rep_setup"):
        report = getattr(item, phase, None)
        if report is not None:
            return report.failed
    return True  # interrupted before any report: keep what there is


@pytest.fixture(autouse=True)
def _artifacts_folder(request: pytest.FixtureRequest, output_path: str) -> None:
    """Where this run's artifacts go (pytest-playwright's output_path): its trace, screenshots, page
    console and relay stderr, and the report's link to them."""
    request.node.stash[ARTIFACTS_KEY] = output_path


ARTIFACTS_KEY = pytest.StashKey[str]()
OPENED_KEY = pytest.StashKey[list]()
FINDING_KEY = pytest.StashKey[bool]()  # the scenario failed on a broken rule, not on harness trouble
MISSING_BROWSER_KEY = pytest.StashKey[str]()


# --- clients -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def relay(tmp_path_factory: pytest.TempPathFactory, target: Target, held_relay_port) -> Iterator:
    """One relay per worker, with a HOME of its own (it writes $HOME/.webmcp/relay-port.json)."""
    from harness.relay import Relay

    with Relay(
        port=target.relay_port,
        widget_origin=target.widget_origin,
        home=tmp_path_factory.mktemp("relay"),
        held=held_relay_port,
    ) as running:
        yield running


@pytest.fixture
def client_for(call_path: str, request: pytest.FixtureRequest) -> Callable[[ToolPage], ToolClient]:
    """Make the tool client of this test's call path for a tab."""
    if DRIVERS[call_path].has(MCP_RELAY):  # its client needs the relay process, not only the tab
        relay = request.getfixturevalue("relay")
        request.node.stash[RELAY_KEY] = relay
        return relay.client_for
    return DRIVERS[call_path].client_class()


def driver_of(item: pytest.Item) -> Driver | None:
    path = _params(item).get("call_path")
    return DRIVERS.get(path) if path else None


RELAY_KEY: pytest.StashKey[Relay] = pytest.StashKey()


@pytest.fixture
def client(client_for, tool_page: ToolPage) -> ToolClient:
    return client_for(tool_page)


# --- checks and result rows ---------------------------------------------------------------

OBSERVED_KEY = pytest.StashKey[checks.Observed]()
# Harness trouble, the only failures run again: what the harness could not do (a relay that never
# listed the tab, a page gone), a condition on what the page shows its clients that did not come in
# time, and Playwright's own errors and timeouts outside any check (a browser that went away).
RERUN_ONLY = (HarnessError, ConditionTimedOut, PlaywrightError)
# Final on the first attempt, whatever they were raised from: a failed check (a broken rule, a
# result that is no JSON), the scenario's own defect, and the watchdog (a hang costs once). Every
# other failure — an assertion on a result's shape, an expectation outside a check — is final too,
# as it is not harness trouble.
NEVER_RERUN = (RuleBroken, HarnessDefect, WatchdogExpired)
WATCHDOG_LIMIT_KEY = pytest.StashKey[float]()
WATCHDOG = Watchdog()
BASELINE_KEY = pytest.StashKey[tuple]()


def _latitudes_of(item: pytest.Item) -> list[str]:
    """The latitudes the run had on, as the reference_latitudes fixture gives them."""
    config = item.config
    if not latitudes_apply(config.getoption("--latitudes-only-on"), _params(item)):
        return []
    return sorted(config.getoption("--latitude"))


def _plain_params(item: pytest.Item) -> dict:
    """The scenario run's parameters as plain values (an operation by its name)."""
    params = _params(item)
    plain = {}
    for key, value in params.items():
        if isinstance(value, (str, int)) or value is None:
            plain[key] = value
        elif hasattr(value, "name") and isinstance(value.name, str):
            plain[key] = value.name  # an Operation
        elif callable(value):
            plain[key] = value.__name__
    return plain


def profile_keys(item: pytest.Item) -> tuple[str, ...]:
    return tuple(key for marker in item.iter_markers("profile") for key in marker.args)


def _declared_rules(item: pytest.Item) -> tuple[str, ...]:
    return tuple(rule for marker in item.iter_markers("rules") for rule in marker.args)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    """Each attempt of a scenario (a retry is another) records its own checks and findings."""
    config = item.config
    if BASELINE_KEY not in config.stash:
        config.stash[BASELINE_KEY] = (baseline.load(Path(config.getoption("--baseline"))), baseline.installed_parts())
    entries, parts = config.stash[BASELINE_KEY]
    scenario = item.nodeid.split("[")[0]
    params = _params(item)
    observed = checks.Observed(
        scenario,
        _plain_params(item),
        _declared_rules(item),
        baseline.for_scenario(scenario, params, entries, parts),
        profile_keys(item) if item.path.is_relative_to(SCENARIOS) else None,
    )
    item.stash[OBSERVED_KEY] = observed
    checks.begin(observed)
    # One limit for the attempt's set-up and call, a rerun's as much as the first's.
    WATCHDOG.arm(config.stash[WATCHDOG_LIMIT_KEY], f"the set-up of {item.nodeid}")
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    WATCHDOG.arm(WATCHDOG.remaining(item.config.stash[WATCHDOG_LIMIT_KEY]), f"the call of {item.nodeid}")
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item):
    # A teardown of its own limit: after a call the watchdog ended it still closes the tabs and contexts.
    WATCHDOG.arm(min(item.config.stash[WATCHDOG_LIMIT_KEY], limits.TEARDOWN), f"the teardown of {item.nodeid}")
    try:
        yield
    finally:
        WATCHDOG.disarm()
        checks.begin(None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    missing = item.stash.get(MISSING_BROWSER_KEY, None)
    if missing and report.skipped and isinstance(report.longrepr, tuple):
        # One summary line per configuration instead of one per scenario.
        report.longrepr = (f"--browser-config {missing}", None, report.longrepr[2])
    observed = item.stash.get(OBSERVED_KEY, None)
    broken = None
    if call.excinfo is not None and isinstance(call.excinfo.value, checks.RuleBroken):
        error = call.excinfo.value
        broken = (error.rule, error.subject)
        item.stash[FINDING_KEY] = True
        if observed is not None and not any(c.outcome == "failed" and c.rule == error.rule for c in observed.checks):
            observed.checks.append(checks.CheckRecord(error.rule, error.subject, "failed", error.message))
    seen = observed.as_dict() if observed is not None else {"checks": [], "findings": {}}
    artifacts = item.stash.get(ARTIFACTS_KEY, None)
    phase = {
        "phase": report.when,
        "rules": list(_declared_rules(item)),
        "params": _plain_params(item),
        "artifacts": Path(artifacts).name if artifacts else "",
        "latitudes": _latitudes_of(item),
        "calls_row": item.get_closest_marker("calls_row") is not None,
        **seen,
    }
    phase.update(results.phase_outcome(report, seen, broken))
    if phase["kind"] == "stale":
        # A baseline entry whose check now holds fails the run until the entry is removed.
        report.outcome = "failed"
        report.longrepr = f"stale baseline entry: the check now holds — {phase['message']}"
    report.user_properties.append((results.PROPERTY, phase))
    if report.failed:
        sections = [
            (f"page console {tool_page.tool} {tool_page.page.url}", tool_page.console_text())
            for tool_page in item.stash.get(OPENED_KEY, [])
        ]
        relay = item.stash.get(RELAY_KEY, None)
        if relay is not None:
            sections.append(("relay stderr", relay.stderr_tail()))
        report.sections.extend(sections)
        if sections and artifacts:
            # Beside the trace and screenshots of this test.
            folder = Path(artifacts)
            folder.mkdir(parents=True, exist_ok=True)
            attempt = getattr(item, "execution_count", 1)
            (folder / f"attempt{attempt}-{report.when}-console-and-relay.txt").write_text(
                "\n\n".join(f"--- {title} ---\n{text}" for title, text in sections), encoding="utf-8"
            )
