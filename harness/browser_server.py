"""Browsers on a Playwright browser server: a configuration may name one instead of a local browser.

`HARNESS_CONNECT_<CONFIG>=ws://…` (`verify --connect CONFIG=ws://…` sets it) makes every scenario of
that configuration open its browser with `browser_type.connect`. The browser and its CPU are then
the server's; the scenarios, the relay and the reference server stay where the harness runs, and
the server's browser must reach them at the target's address (on one machine: localhost).

The server owns the launch: its executable and its arguments, the WebMCP flag of `chromium`
among them (`connect` takes none). `python -m harness browser-server CONFIG` starts one with the
configuration's own (playwright-core's launchServer, the npm package of the same version as the
Python one). The agent extension needs a persistent context, which a server cannot give: its path
is not run on a connected configuration.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import subprocess
import time

from harness import limits
from harness.browsers import CONFIGS, resolve
from harness.checks import HarnessError
from harness.paths import ROOT
from harness.processes import dying_with_parent

ENV_PREFIX = "HARNESS_CONNECT_"
CONNECT_TIMEOUT_MS = 30_000  # a port that accepts and never answers would wait for ever
SERVER_START = 30 * limits.SCALE
NO_PERSISTENT_CONTEXT = "a browser server gives no persistent context, which the agent extension needs"
# The server: the configuration's browser launched by playwright-core, its endpoint printed as
# one line, closed (and its browser with it) on SIGTERM, SIGINT or a closed stdin.
SERVER_SCRIPT = """
const { chromium, firefox, webkit } = require("playwright-core");
const [engine, options] = [process.argv[1], JSON.parse(process.argv[2])];
({ chromium, firefox, webkit })[engine].launchServer(options).then((server) => {
  console.log("ws-endpoint " + server.wsEndpoint());
  const close = () => server.close().then(() => process.exit(0));
  process.on("SIGTERM", close);
  process.on("SIGINT", close);
  process.stdin.on("end", close);
  process.stdin.resume();
}, (error) => { console.error(String(error && error.message || error)); process.exit(1); });
"""


class BrowserServerError(HarnessError):
    """A browser server that is not there, does not start, or speaks another Playwright version."""


def env_name(config: str) -> str:
    return ENV_PREFIX + re.sub(r"[^A-Z0-9]", "_", config.upper())


def endpoint(config: str) -> str | None:
    """The browser server the configuration is to connect to, or None for a local launch."""
    return os.environ.get(env_name(config)) or None


def parse_connect(values: list[str]) -> dict[str, str]:
    """`--connect CONFIG=ws://…` values as {environment variable: endpoint}; ValueError, in one line, for a bad one."""
    settings = {}
    for value in values:
        config, _, url = value.partition("=")
        if config not in CONFIGS:
            raise ValueError(f"--connect {value}: no browser configuration {config!r} (known: {', '.join(CONFIGS)})")
        if not re.match(r"^wss?://", url):
            raise ValueError(f"--connect {value}: give the server's ws:// or wss:// endpoint after {config}=")
        settings[env_name(config)] = url
    return settings


def connect(browser_type, config: str, url: str):
    """The server's browser, or one BrowserServerError that says which server and why not."""
    try:
        return browser_type.connect(url, timeout=CONNECT_TIMEOUT_MS)
    except Exception as error:
        first = (str(getattr(error, "message", error)).strip().splitlines() or [""])[0]
        if "version" in str(error).lower() and "mismatch" in str(error).lower():
            first = "it runs another Playwright version than this harness's " + _python_playwright() + f" ({first})"
        raise BrowserServerError(f"{config}: the browser server at {url} cannot be used: {first}") from None


def _python_playwright() -> str:
    from importlib.metadata import version

    return version("playwright")


class BrowserServer:
    """A browser server for a configuration on this machine, ended with this process (also on a kill)."""

    def __init__(self, config: str, host: str = "127.0.0.1", port: int = 0):
        from playwright.sync_api import sync_playwright

        browser_config = CONFIGS[config]
        with sync_playwright() as playwright:
            resolved = resolve(browser_config, getattr(playwright, browser_config.engine).executable_path)
        options = {
            "headless": True,
            "args": browser_config.launch_args(),
            "host": host,
            "port": port,
            **{
                "executablePath" if key == "executable_path" else key: value
                for key, value in resolved.launch_options().items()
            },
        }
        self.config = config
        self.process = subprocess.Popen(
            dying_with_parent(["node", "-e", SERVER_SCRIPT, browser_config.engine, json.dumps(options)]),
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.ws_endpoint = self._wait_for_endpoint()

    def _wait_for_endpoint(self) -> str:
        assert self.process.stdout is not None
        deadline = time.monotonic() + SERVER_START
        said: list[str] = []
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.process.stdout], [], [], left)
            line = self.process.stdout.readline() if ready else ""
            if line.startswith("ws-endpoint "):
                return line.split(" ", 1)[1].strip()
            if line:
                said.append(line.rstrip())
            elif self.process.poll() is not None:
                break
        self.close()
        raise BrowserServerError(
            f"{self.config}: the browser server did not start within {SERVER_START:.0f} s: {' | '.join(said[-5:]) or 'no output'}"
        )

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()  # the script closes the server, and its browser, at the end of stdin
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> BrowserServer:
        return self

    def __exit__(self, *_) -> None:
        self.close()


def serve(config: str, host: str, port: int) -> int:
    """`python -m harness browser-server`: serve until Ctrl-C."""
    with BrowserServer(config, host, port) as server:
        print(f"browser-server: {config} at {server.ws_endpoint}", flush=True)
        print(f"browser-server: on the harness's machine: export {env_name(config)}={server.ws_endpoint}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server.process.wait()
    return 0
