"""Call paths as drivers: scenarios ask for capabilities and run on every driver that has them."""

import subprocess
import sys

from harness import drivers
from harness.browsers import CONFIGS
from harness.paths import ROOT


def test_a_scenario_runs_on_every_selected_path_with_what_it_needs():
    assert drivers.paths_for(set(), False, list(drivers.CALL_PATHS)) == ["in-page", "relay", "webmcp", "extension"]
    assert drivers.paths_for({drivers.ANNOTATIONS}, False, list(drivers.CALL_PATHS)) == [
        "in-page",
        "webmcp",
        "extension",
    ]
    assert drivers.paths_for({drivers.RESULT_TEXT}, False, list(drivers.CALL_PATHS)) == [
        "in-page",
        "relay",
        "extension",
    ]
    assert drivers.paths_for({drivers.MCP_RELAY}, False, ["in-page", "webmcp"]) == []


def test_a_page_level_scenario_runs_once_on_a_path_every_browser_has():
    assert drivers.paths_for(set(), True, list(drivers.CALL_PATHS)) == ["in-page"]
    assert drivers.paths_for(set(), True, ["webmcp", "relay"]) == ["relay"]
    assert drivers.paths_for(set(), True, ["webmcp"]) == ["webmcp"]


def test_the_browsers_own_webmcp_and_the_extension_need_chromium_with_the_flag():
    for name in ("webmcp", "extension"):
        assert [config for config in CONFIGS if drivers.DRIVERS[name].supports(CONFIGS[config])] == ["chromium"]
    assert all(drivers.DRIVERS[name].supports(config) for name in ("in-page", "relay") for config in CONFIGS.values())


def test_collection_generates_no_run_a_configuration_cannot_carry(collected):
    ids = collected("scenarios/test_switch.py", "--browser-config", "chromium", "--browser-config", "chromium-noflag")
    native_only = [i for i in ids if i.endswith(("-webmcp]", "-extension]"))]
    assert native_only and all("[chromium-" in i and "[chromium-noflag-" not in i for i in native_only)
    annotations = [i for i in ids if "test_registered_annotations_follow_decision_4" in i]
    assert annotations and not any("relay" in i for i in annotations)  # the relay forwards no annotations


def test_every_capability_a_scenario_asks_for_is_declared():
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "scenarios"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert "unknown capabilities" not in out.stdout + out.stderr
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
