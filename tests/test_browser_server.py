"""A browser configuration on a Playwright browser server gives the results of a local launch
(harness/browser_server.py): playwright-core's launchServer on this machine's browsers."""

import json
import subprocess
import sys
import time

import pytest
from test_verify import verify

from harness import browser_server
from harness.browser_server import BrowserServer, BrowserServerError
from harness.browsers import CONFIGS, BrowserMissing, resolve
from harness.paths import ROOT

SLICE = ["--", "scenarios/test_switch.py", "-k", "slides"]


def outcomes(out) -> dict[str, str]:
    rows = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return {row["nodeid"]: row["outcome"] for row in rows}


def installed(config: str) -> bool:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        try:
            resolve(CONFIGS[config], getattr(playwright, CONFIGS[config].engine).executable_path)
        except BrowserMissing:
            return False
    return True


@pytest.mark.parametrize("config", ["chromium", "firefox"])
def test_a_slice_through_a_browser_server_gives_the_results_of_a_local_launch(config, tmp_path):
    if not installed(config):
        pytest.skip(f"{config} is not installed here")
    local = verify(tmp_path / "local", "--browser", config, "--call-path", "in-page", "--call-path", "relay", *SLICE)
    assert local.returncode == 0, local.stdout[-2000:] + local.stderr[-2000:]
    with BrowserServer(config) as server:
        remote = verify(
            tmp_path / "remote",
            "--browser",
            config,
            "--connect",
            f"{config}={server.ws_endpoint}",
            *(["--call-path", "extension"] if config == "chromium" else []),
            "--call-path",
            "in-page",
            "--call-path",
            "relay",
            *SLICE,
        )
    assert remote.returncode == 0, remote.stdout[-2000:] + remote.stderr[-2000:]
    assert f"(browser server {server.ws_endpoint})" in remote.stdout
    through_server = outcomes(tmp_path / "remote")
    extension = {nodeid: outcome for nodeid, outcome in through_server.items() if "-extension" in nodeid}
    assert {nodeid: outcome for nodeid, outcome in through_server.items() if nodeid not in extension} == outcomes(
        tmp_path / "local"
    )
    assert set(outcomes(tmp_path / "local").values()) == {"passed"}
    if config == "chromium":
        assert extension and set(extension.values()) == {"skipped"}
        rows = json.loads((tmp_path / "remote" / "results.json").read_text(encoding="utf-8"))
        assert all(browser_server.NO_PERSISTENT_CONTEXT in row["message"] for row in rows if row["nodeid"] in extension)


def test_a_server_that_is_not_there_is_one_clear_error(tmp_path):
    started = time.monotonic()
    run = verify(tmp_path, "--browser", "chromium", "--connect", "chromium=ws://127.0.0.1:9/none", *SLICE)
    assert run.returncode == 2
    [line] = run.stderr.strip().splitlines()
    assert "chromium: the browser server at ws://127.0.0.1:9/none cannot be used: " in line
    assert time.monotonic() - started < 60
    assert not (tmp_path / "results.json").exists()


def test_a_server_that_stops_at_once_is_one_clear_error(monkeypatch):
    monkeypatch.setattr(browser_server, "SERVER_SCRIPT", "console.error('no browser here'); process.exit(3);")
    with pytest.raises(BrowserServerError, match=r"did not start.*no browser here"):
        BrowserServer("chromium-noflag")


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("chrome=ws://127.0.0.1:1/x", "no browser configuration 'chrome'"),
        ("chromium=http://127.0.0.1:1/x", "ws:// or wss://"),
        ("chromium", "ws:// or wss://"),
    ],
)
def test_a_malformed_connect_value_is_named(value, says):
    with pytest.raises(ValueError, match=says):
        browser_server.parse_connect([value])


def test_a_configuration_name_becomes_its_environment_variable():
    assert browser_server.parse_connect(["chromium-noflag=ws://h:1/x"]) == {
        "HARNESS_CONNECT_CHROMIUM_NOFLAG": "ws://h:1/x"
    }


def test_doctor_looks_at_the_pages_through_a_browser_server():
    with BrowserServer("chromium-noflag") as server:
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "harness",
                "doctor",
                "--browser",
                "chromium-noflag",
                "--connect",
                f"chromium-noflag={server.ws_endpoint}",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "doctor: 6 pages" in run.stdout
