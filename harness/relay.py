"""The relay call path: the real MCP-B relay CLI from npm, driven by the Python MCP SDK over stdio.

One `Relay` per pytest worker (a session fixture). Its MCP session lives on an asyncio loop in
a background thread so that sync Playwright scenarios can start a call, answer a confirmation
dialog in the page, then wait for the result.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import json
import os
import re
import signal
import socket
import threading
import time
from concurrent.futures import Future
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from playwright.sync_api import BrowserContext

from harness import limits
from harness.clients import ConditionTimedOut, HarnessError, ToolInfo, call_when_ready, parse_result, started, watched
from harness.pages import GIVEN_TAB_IDS, HARNESS_SOCKET_PATH, ToolPage
from harness.paths import NODE_MODULES
from harness.processes import dying_with_parent

RELAY_CLI = NODE_MODULES / "@mcp-b/webmcp-local-relay/dist/cli.js"
# The relay prefixes each page tool's description with its tab id and the page's title.
DESCRIPTION_PREFIX = re.compile(r"^\[WebMCP (?P<tab>[^\s\]•]+)(?: • (?P<title>[^\]]*))?\] ?")
TAB_SUFFIX_LENGTH = 4
# The relay script's widget frame (embed.js marks it); setting its src again restarts it.
RELOAD_WIDGET = """() => { const frame = document.querySelector('iframe[data-webmcp-relay]');
  if (frame) frame.src = frame.src; }"""
# Chromium delays each new WebSocket of a renderer process by rand(1-5 s) x 2^min(pending + failed /
# (succeeded + 1), 16) / 65536, counting for 2-4 minutes (services/network/websocket_throttler.cc).
# A widget that missed its port and scanned 9333-9348 leaves 32 failures; in a process with no
# success yet, every later WebSocket then waits 1-5 s, past the widget's 1.2 s per port, which
# closes it before it starts: one more failure, and a restarted widget is caught the same way.
# Handshakes that succeed, made from the tab's own process without the widget's 1.2 s limit,
# weigh the failures down; the widget restarted after them connects at once.
SUCCEEDED_HANDSHAKES = 64
LIFT_THROTTLE = """([port, path, count, ms]) => Promise.race([
  Promise.all(Array.from({ length: count }, () => new Promise((done) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`);
    socket.onopen = () => { socket.close(); done(1); };
    socket.onerror = () => done(0);
  }))).then((opened) => opened.reduce((a, b) => a + b, 0)),
  new Promise((done) => setTimeout(() => done(-1), ms)),
])"""
TERMINATE_GRACE = 3.0

_live_pids: set[int] = set()


# The relay widget's ports: the one it is given, then a scan of these when that one fails.
WIDGET_SCAN_PORTS = range(9333, 9349)
LOOPBACK_SOCKET = re.compile(r"^wss?://(?:127\.0\.0\.1|localhost|\[::1\]):(\d+)(?:[/?#]|$)")


def keep_off_relay(context: BrowserContext, relay_port: int) -> None:
    """The context's pages never reach a relay: their relay widgets' sockets (to `relay_port` and
    the widget's scan range on a loopback address) are answered by Playwright and closed, never
    opened on the network. On a real target every tab knows the one fixed relay port, so a tab of
    an in-page scenario on the other worker would otherwise join the relay scenarios' list (its
    names then get a tab suffix) while they run."""
    ports = {relay_port, *WIDGET_SCAN_PORTS}

    def to_relay(url: str) -> bool:
        match = LOOPBACK_SOCKET.match(url)
        return match is not None and int(match[1]) in ports

    context.route_web_socket(to_relay, lambda socket: socket.close(code=1008, reason="kept off the relay"))


# The relay's widget rejects a call the page has not answered within 10 s (a constant in its
# browser/widget.js, no option): the MCP client then gets this text instead of the page's result.
WIDGET_LIMIT_ERROR = "Host response timeout: webmcp.tools.invoke"
WIDGET_LIMIT_SECONDS = 10


class RelayError(RuntimeError):
    """The relay could not be started or used; the message carries its stderr."""


def _end_process(pid: int, grace: float = TERMINATE_GRACE) -> None:
    """SIGTERM, then SIGKILL after the grace period."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        _live_pids.discard(pid)
        return
    if not limits.poll(lambda: not _alive(pid), limit=grace)[1]:  # its end raises no event here
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _live_pids.discard(pid)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@atexit.register
def _end_all() -> None:
    for pid in list(_live_pids):
        _end_process(pid)


def _children_running(cli: Path, port: int) -> list[int]:
    """PIDs of this process's children that run the relay CLI on `port` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if ppid != os.getpid():
                continue
            cmdline = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if str(cli).encode() in cmdline and str(port).encode() in cmdline:
            found.append(int(stat.parent.name))
    return found


def await_server_hello(port: int, timeout: float) -> None:
    """Open the page side's WebSocket to the relay and read its server-hello, as the widget does.

    It proves the relay listens, and it warms the relay up: the widget gives a relay only 1.2 s
    to answer before it scans other ports, and a missed answer costs it a ~20 s round.
    """
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: webmcp-discovery.v1\r\n\r\n".encode()
        )
        received = b""
        while b"server-hello" not in received:
            chunk = sock.recv(4096)
            if not chunk:
                raise ConnectionError(f"the relay closed the connection: {received[:200]!r}")
            received += chunk


class HeldPort:
    """A free port kept bound (not listening) until the relay is about to serve it: meanwhile the
    kernel gives it to no other process of the machine (another run's relay or server, an outgoing
    connection), which a port only found free and let go would not prevent."""

    def __init__(self) -> None:
        self._socket: socket.socket | None = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.number: int = self._socket.getsockname()[1]

    def release(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def port_is_held(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def pump(tool_page: ToolPage | None) -> None:
    """Let Playwright dispatch the page's events: route handlers, dialogs and console messages
    run only while this thread calls into Playwright, and the relay's frame may be routed."""
    if tool_page is not None and not tool_page.page.is_closed():
        tool_page.page.evaluate("0")


class NotListedAtCall(HarnessError):
    """The relay knew no tool by the name the call used (「Tool <name> not found」)."""


@dataclass
class RelayCall:
    future: Future
    name: str
    relay: Relay
    tool_page: ToolPage
    exposed: str  # the name the call was made by

    def done(self) -> bool:
        """Whether the call has been decided (without waiting for it)."""
        pump(self.tool_page)
        return self.future.done()

    def wait(self, seconds: float) -> bool:
        """Whether the call is decided within `seconds`."""
        deadline = time.monotonic() + seconds
        while not self.done() and time.monotonic() < deadline:
            with suppress(Exception):
                self.future.result(0.05)
        return self.future.done()

    def raw(self, timeout: float = limits.CALL_RESULT) -> tuple[bool, str]:
        """(isError, text) as the MCP client received it."""
        deadline = time.monotonic() + watched(self.tool_page, self.name, timeout, self.wait)
        while not self.future.done() and time.monotonic() < deadline:
            try:
                self.future.result(0.05)
            except TimeoutError:
                pump(self.tool_page)
            except Exception:
                break
        try:
            result = self.future.result(max(0.0, deadline - time.monotonic()))
        except Exception as error:  # the SDK's own errors (timeouts, closed session)
            raise HarnessError(
                f"{self.name} (relay): {type(error).__name__}: {error}\n{self.relay.diagnostics(self.tool_page)}"
            ) from None
        text = "".join(getattr(block, "text", "") for block in result.content)
        return bool(result.is_error), text

    def result(self, timeout: float = limits.CALL_RESULT) -> dict:
        is_error, text = self.raw(timeout)
        try:
            return parse_result(text, f"{self.name} (relay)")
        except AssertionError:
            if not is_error:
                raise
        # Not the page's JSON: the relay itself refused the call.
        if WIDGET_LIMIT_ERROR in text:
            # The relay's own limit, not the page's fault: what the call would have answered is not seen.
            pytest.skip(
                f"未確認: {self.name} took longer than the relay's widget waits for the page's answer "
                f"({WIDGET_LIMIT_SECONDS} s, fixed in @mcp-b/webmcp-local-relay 2.2.0's widget): {text}"
            )
        error = NotListedAtCall if f"Tool {self.exposed} not found" in text else HarnessError
        raise error(
            f"{self.name} (relay): the relay answered with an error: {text}\n{self.relay.diagnostics(self.tool_page)}"
        )


class RelayClient:
    """The tool client of one tab, through the relay."""

    path = "relay"

    def __init__(self, relay: Relay, tool_page: ToolPage):
        self.relay = relay
        self.tool_page = tool_page

    @property
    def tab_id(self) -> str:
        return self.tool_page.relay_tab_id

    def _mine(self, tools: list[Any]) -> list[ToolInfo]:
        suffix = "_" + re.sub(r"[^a-zA-Z0-9_]", "_", self.tab_id)[:TAB_SUFFIX_LENGTH]
        mine = []
        for tool in tools:
            match = DESCRIPTION_PREFIX.match(tool.description or "")
            if not match or match["tab"] != self.tab_id:
                continue
            name = tool.name[: -len(suffix)] if tool.name.endswith(suffix) else tool.name
            annotations = tool.annotations.model_dump(exclude_none=True) if tool.annotations else {}
            extra = getattr(tool.annotations, "model_extra", None) or {}
            hints = {k for k, v in {**annotations, **extra}.items() if v is True}
            mine.append(ToolInfo(name, tool.name, tool.description, tool.input_schema or {}, frozenset(hints)))
        return mine

    def tools(self) -> list[ToolInfo]:
        return self._mine(self.relay.list_tools())

    def wait_for_tools(self, names: set[str], timeout: float | None = None) -> list[ToolInfo]:
        # The widget gives each port 1.2 s; on a busy page its first round can miss them all
        # and the next comes after a backoff: seen up to ~40 s on 2 loaded cores.
        seen: set[str] = set()

        def listed():
            tools = self.tools()
            seen.update(info.name for info in tools)
            return tools if names <= {info.name for info in tools} else None

        what = f"tools {sorted(names)} of tab {self.tab_id}"
        deadline = time.monotonic() + (timeout or limits.RELAY_TOOLS_LISTED)
        try:
            while True:
                remaining = deadline - time.monotonic()
                try:
                    return self.relay.wait_until(
                        listed, max(min(remaining, limits.RELAY_FIRST_CONNECT), 1.0), what, self.tool_page
                    )
                except HarnessError:
                    if seen or remaining <= limits.RELAY_FIRST_CONNECT:
                        raise
                # Nothing of the tab reached the relay: its widget missed the relay's port (a busy
                # page reads the relay's hello past the widget's 1.2 s) and went scanning 9333–9348,
                # which may have left Chromium throttling the tab's WebSockets (LIFT_THROTTLE). A
                # fresh widget starts again at the port it was given.
                opened = self.tool_page.page.evaluate(
                    LIFT_THROTTLE,
                    [self.relay.port, HARNESS_SOCKET_PATH, SUCCEEDED_HANDSHAKES, limits.RELAY_FIRST_CONNECT * 1000],
                )
                self.tool_page.console.append(
                    f"[harness] the relay widget had not connected after {limits.RELAY_FIRST_CONNECT:.0f} s: "
                    f"{opened if opened >= 0 else 'not all'} of {SUCCEEDED_HANDSHAKES} handshakes with the relay "
                    f"from the tab's process, then reloaded the widget"
                )
                self.tool_page.page.evaluate(RELOAD_WIDGET)
        except HarnessError as error:
            if not seen:
                raise  # the tab never reached the relay: nothing about the page was observed
            # The tab is connected and listed some operations, but not these: the page's doing.
            raise ConditionTimedOut(f"listed {sorted(seen)}, never {sorted(names - seen)}\n{error}") from None

    def others_publishing(self, names: set[str], timeout: float = limits.RELAY_TOOLS_REMOVED) -> list[str]:
        """The other tabs the relay lists with any of these operations, once the harness's own have
        left (a tab of an earlier scenario, its page closed, may linger for a moment): each as
        「tab <id> 「<title>」」. Harness trouble if one of the harness's own stays."""

        def others() -> dict[str, str]:
            found = {}
            for tool in self.relay.list_tools():
                match = DESCRIPTION_PREFIX.match(tool.description or "")
                base = re.sub(rf"_[a-zA-Z0-9]{{{TAB_SUFFIX_LENGTH}}}$", "", tool.name)
                if match and match["tab"] != self.tab_id and (tool.name in names or base in names):
                    found[match["tab"]] = match["title"] or ""
            return found

        try:
            self.relay.wait_until(
                lambda: not any(tab in GIVEN_TAB_IDS for tab in others()),
                timeout,
                f"the harness's other tabs to leave the relay's list beside tab {self.tab_id}",
                self.tool_page,
            )
        except HarnessError as error:
            raise HarnessError(
                f"a tab the harness opened before is still listed by the relay: {sorted(others())}\n{error}"
            ) from None
        return [f"tab {tab} 「{title}」" for tab, title in others().items()]

    def wait_for_no_tools(self, timeout: float | None = None) -> None:
        try:
            self.relay.wait_until(
                lambda: not self.tools(),
                timeout or limits.RELAY_TOOLS_REMOVED,
                f"no tools of tab {self.tab_id}",
                self.tool_page,
            )
        except HarnessError as error:
            raise ConditionTimedOut(str(error)) from None

    def exposed_name(self, name: str) -> str:
        for info in self.tools():
            if info.name == name:
                return info.exposed_name
        raise HarnessError(
            f"{name} (relay): not listed for tab {self.tab_id}\n{self.relay.diagnostics(self.tool_page)}"
        )

    def start(self, name: str, arguments: dict[str, Any], exposed_name: str | None = None) -> RelayCall:
        exposed = exposed_name or self.exposed_name(name)
        return started(
            self.tool_page,
            name,
            RelayCall(
                self.relay.submit(self.relay.session.call_tool(exposed, arguments)),
                name,
                self.relay,
                self.tool_page,
                exposed,
            ),
        )

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict:
        exposed = self.exposed_name(name)
        try:
            return self.start(name, arguments or {}, exposed).result()
        except NotListedAtCall:
            # Renamed between the list and the call: the relay adds a tab suffix to every tool once
            # another tab publishes the same names (a second tab of the tool turned on by the
            # storage event), and says so with tools/list_changed. An agent lists again.
            renamed = self.exposed_name(name)
            if renamed == exposed:
                raise
            return self.start(name, arguments or {}, renamed).result()

    def call_when_ready(
        self, name: str, arguments: dict[str, Any] | None = None, timeout: float = limits.TOOL_READY
    ) -> dict:
        return call_when_ready(self, name, arguments, timeout)


class Relay:
    """A spawned relay CLI with an MCP client session to it; use as a context manager."""

    def __init__(
        self,
        port: int,
        widget_origin: str,
        home: Path,
        start_timeout: float = limits.RELAY_START,
        cli: Path = RELAY_CLI,
        held: HeldPort | None = None,
    ):
        if not 0 < port < 65536:
            raise RelayError(f"relay port {port} is not a TCP port")
        self.cli = cli
        self.port = port
        self.held = held  # `port`, kept from others until this relay starts on it
        self.widget_origin = widget_origin
        self.home = home
        self.start_timeout = start_timeout
        self.stderr_path = home / "relay-stderr.log"
        self._session: ClientSession | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"relay-{port}", daemon=True)
        self._changed = threading.Event()
        self._stop: asyncio.Event | None = None
        self._main: Future | None = None
        self._pid: int | None = None

    # lifecycle ----------------------------------------------------------------------------

    def __enter__(self) -> Relay:
        if not self.cli.is_file():
            raise RelayError(f"the relay CLI is not installed at {self.cli}: run `npm ci`")
        if self.held is not None:
            self.held.release()
        if port_is_held(self.port):
            raise RelayError(
                f"port {self.port} is already held by a process the harness did not start; a relay there would "
                "join it as a client and mix in that relay's real tabs. Stop it, or choose another relay_port."
            )
        self.home.mkdir(parents=True, exist_ok=True)
        self._thread.start()
        ready: Future = Future()
        self._main = asyncio.run_coroutine_threadsafe(self._run(ready), self._loop)
        try:
            ready.result(self.start_timeout)
        except Exception as error:
            self.__exit__(None, None, None)
            raise RelayError(
                f"the relay did not start ({type(error).__name__}: {error})\n--- relay stderr ---\n{self.stderr_tail()}"
            ) from None
        return self

    async def _run(self, ready: Future) -> None:
        self._stop = asyncio.Event()
        # Relay 2.2.0 outlives a closed stdin: the kernel ends it when the harness dies (a CI
        # timeout's SIGKILL included), not only when the harness ends it itself.
        command = dying_with_parent(
            ["node", str(self.cli), "--port", str(self.port), "--widget-origin", self.widget_origin]
        )
        params = StdioServerParameters(
            command=command[0],
            args=command[1:],
            # The relay writes $HOME/.webmcp/relay-port.json; HARNESS_RUN_ID tells whose relay it is.
            env={"HOME": str(self.home), **{k: v for k, v in os.environ.items() if k == "HARNESS_RUN_ID"}},
        )
        try:
            with self.stderr_path.open("w") as errlog:
                async with AsyncExitStack() as stack:
                    read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
                    self._pid = next(iter(_children_running(self.cli, self.port)), None)
                    if self._pid:
                        _live_pids.add(self._pid)
                    self._session = await stack.enter_async_context(
                        ClientSession(read, write, message_handler=self._on_message)
                    )
                    await self._session.initialize()
                    await asyncio.to_thread(await_server_hello, self.port, self.start_timeout)
                    ready.set_result(True)
                    await self._stop.wait()
                    if self._pid:
                        # The relay ignores stdin EOF; end it now instead of after the SDK's wait.
                        await asyncio.to_thread(_end_process, self._pid)
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error)
            else:
                raise

    async def _on_message(self, message: Any) -> None:
        if isinstance(getattr(message, "root", message), types.ToolListChangedNotification):
            self._changed.set()

    def __exit__(self, *exc: object) -> None:
        if self._stop is not None and self._main is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
            with suppress(Exception):
                self._main.result(15)
        if self._pid:
            _end_process(self._pid)
        for pid in _children_running(self.cli, self.port):
            _end_process(pid)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    # use ----------------------------------------------------------------------------------

    def submit(self, coroutine) -> Future:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def list_tools(self) -> list[Any]:
        self._changed.clear()
        return self.submit(self.session.list_tools()).result(15).tools

    @property
    def session(self) -> ClientSession:
        if self._session is None:
            raise RelayError(f"the relay on port {self.port} has no MCP session open")
        return self._session

    def wait_until(self, check, timeout: float, what: str, tool_page: ToolPage | None = None):
        """Re-check after each tools/list_changed notification (or every 250 ms) until the deadline."""
        deadline = time.monotonic() + timeout
        while True:
            value = check()
            if value:
                return value
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise HarnessError(
                    f"relay: timed out after {timeout:.0f} s waiting for {what}\n{self.diagnostics(tool_page)}"
                )
            self._changed.wait(min(remaining, 0.05))
            pump(tool_page)

    def client_for(self, tool_page: ToolPage) -> RelayClient:
        return RelayClient(self, tool_page)

    def stderr_tail(self, lines: int = 60) -> str:
        try:
            text = self.stderr_path.read_text(errors="replace")
        except FileNotFoundError:
            return "(no relay stderr)"
        return "\n".join(text.splitlines()[-lines:]) or "(relay stderr is empty)"

    def diagnostics(self, tool_page: ToolPage | None) -> str:
        parts = [f"--- relay stderr (port {self.port}) ---\n{self.stderr_tail()}"]
        if tool_page is not None:
            parts.append(f"--- page console ({tool_page.page.url}) ---\n{tool_page.console_text()}")
        return "\n".join(parts)


def relay_tools_json(tools: list[Any]) -> str:
    return json.dumps([{"name": t.name, "description": t.description} for t in tools], ensure_ascii=False, indent=1)
