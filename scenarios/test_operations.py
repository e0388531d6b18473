"""Every operation of the tool can be called and answers with a JSON result (ADR-0044 Decisions
4 and 5; the Verification table's rows, one per call path)."""

import json
import re
import secrets
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from harness import contract, drivers
from harness.checks import CONTACTED, OPERATIONS_CALLED, HarnessError, check, finding
from harness.tools import valid_input


def start_answered(tool_page, client, op, arguments):
    """Start a call; a confirming operation's dialog is answered with its action button."""
    call = client.start(op.name, arguments)
    if op.confirmation:
        tool_page.dialog.action(op.asks.action_label).click()
    return call


def wait_for_operations(tool_page, client, tool, target):
    """The tool's operations as the client lists them. On the relay path, a tab that never
    reaches the relay breaks relay.calls when the page never opened a WebSocket to the relay's
    port (the port it was given); otherwise it is the harness's trouble."""
    try:
        return client.wait_for_tools(contract.names_of(tool))
    except HarnessError as error:
        never_listed = error
    if drivers.of(client).has(drivers.MCP_RELAY):
        socket = f"ws://127.0.0.1:{target.relay_port}"
        with check("relay.calls"):
            assert socket in tool_page.contacted, (
                f"the page never connected to the relay at {socket}; it contacted {sorted(tool_page.contacted)}"
            )
    raise never_listed


@pytest.mark.rules("relay.calls", "calls.every-operation", "result.json-string")
@pytest.mark.calls_row
def test_every_operation_answers(tool_page, client, tool, target):
    tool_page.turn_on()
    wait_for_operations(tool_page, client, tool, target)
    client.call_when_ready(contract.reader_of(tool).name)  # the editor has finished loading
    rule = "relay.calls" if drivers.of(client).has(drivers.MCP_RELAY) else "calls.every-operation"
    answers = {}
    try:
        for op in contract.operations_of(tool):
            call = start_answered(tool_page, client, op, valid_input(op, client))
            with check(rule, subject=op.name):
                result = call.result()
                answers[op.name] = "ok" if result["ok"] else result["error"]["code"]
                op.assert_success(result)
    finally:
        finding(OPERATIONS_CALLED, answers)


@pytest.mark.rules("switch.on-registers")
@pytest.mark.one_driver("the fault proof's sentinel: one read, on one path")
def test_switch_on_then_one_read_succeeds(open_tool, client_for, tool, call_path):
    """The fault proof's sentinel, run beside every fault: it leans on as little as it can (any
    switch in the header, already on or not; one read), so that only a fault that breaks the
    switch or registration itself breaks it."""
    tool_page = open_tool(tool)
    switch = tool_page.page.get_by_role("banner").get_by_role("switch")
    expect(switch).to_be_visible()
    if tool_page.storage.says_on():
        expect(switch).to_be_checked()
    else:
        switch.click()
    read = contract.reader_of(tool)
    client = client_for(tool_page)
    with check("switch.on-registers"):
        client.wait_for_tools({read.name})
        result = client.call_when_ready(read.name)
        assert result["ok"] is True, f"{read.name} answered {result}"


@pytest.mark.rules("network.local-only", "network.no-content")
@pytest.mark.one_driver("what the page contacts is the page's, whichever way a call arrives")
@pytest.mark.new_context("a warm tab's cached files would never be requested, so never seen")
def test_page_contacts_only_its_origin_and_the_local_relay(relay, tool_page, client, tool, target, call_path):
    # As a user has it: the relay running, so the relay script connects instead of scanning ports.
    # Every operation once, and every value of every enum input (a theme may load its own assets).
    tool_page.turn_on()
    registered = {info.name: info for info in client.wait_for_tools(contract.names_of(tool))}
    client.call_when_ready(contract.reader_of(tool).name)
    sent = SentWhileCalling(tool_page)
    for op in contract.operations_of(tool):
        valid = valid_input(op, client, marker=f"harness-content-{secrets.token_hex(6)}")
        inputs = [valid]
        for key, schema in registered[op.name].input_schema.get("properties", {}).items():
            inputs += [{**valid, key: value} for value in schema.get("enum", [])]
        for arguments in inputs:
            sent.content(arguments, start_answered(tool_page, client, op, arguments).result())
    tool_page.settle()
    finding(CONTACTED, sorted(tool_page.contacted))
    foreign = sorted(
        o
        for o in tool_page.contacted
        if o not in (target.origin, "data:", "blob:") and not o.startswith(("ws://127.0.0.1:", "ws://[::1]:"))
    )
    with check("network.local-only"):
        assert not foreign, f"the {tool} page contacted {foreign} besides {target.origin} and the local relay"
    if sent.unseen_bodies:
        # Firefox over WebDriver BiDi hands no request body to the harness.
        pytest.skip(
            f"未確認: {len(sent.unseen_bodies)} requests of the {tool} page carried a body this browser does not "
            f"show the harness (first: {sent.unseen_bodies[0]}): network.no-content cannot be observed here"
        )
    with check("network.no-content"):
        carried = sent.carrying_content()
        assert not carried, f"requests of the {tool} page carried the operations' arguments or results: {carried[:3]}"


class SentWhileCalling:
    """What the page sends while the calls run — each request's URL and body, and what its
    WebSockets send — but to the local relay, which is the way a call's content goes."""

    def __init__(self, tool_page) -> None:
        self.sent: list[str] = []
        self.unseen_bodies: list[str] = []  # requests that carried a body Playwright did not hand over
        self.texts: set[str] = set()
        tool_page.page.on("request", self._request)
        # Firefox over WebDriver BiDi fires no websocket event: its sockets' frames go unseen (their
        # handshakes are requests, their origins contacted ones).
        tool_page.page.on("websocket", self._socket)

    def _request(self, request) -> None:
        body = request.post_data_buffer
        if body is None and int(request.headers.get("content-length") or 0) > 0:
            self.unseen_bodies.append(f"{request.method} {request.url}")
        self.sent.append(f"{request.method} {request.url} {body.decode(errors='replace') if body else ''}")

    def _socket(self, socket) -> None:
        if not LOOPBACK.match(socket.url):
            socket.on("framesent", lambda payload: self.sent.append(f"WebSocket {socket.url} {payload}"))

    def content(self, arguments: dict, result: dict) -> None:
        """A call's content: the strings of its arguments and result long enough to tell (a
        marker in each written text) — not the short ones (an id, a file name) a URL may hold anyway —
        as they are and as a request would carry them: in a URL, in JSON, in JSON inside JSON (a
        result is a JSON text already)."""
        for value, shortest in ((arguments, 12), (result, 24)):
            for text in leaves(value):
                if len(text) >= shortest:
                    forms = {text}
                    for _ in range(2):
                        forms |= {
                            json.dumps(form, ensure_ascii=ascii)[1:-1] for form in forms for ascii in (True, False)
                        }
                    self.texts.update({*forms, quote(text)})

    def carrying_content(self) -> list[str]:
        return [f"{sent[:160]}… carries {text[:40]!r}" for sent in self.sent for text in self.texts if text in sent]


LOOPBACK = re.compile(r"^wss?://(127\.0\.0\.1|localhost|\[::1\])[:/]")


def leaves(value) -> list[str]:
    """The strings in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in leaves(item)]
    if isinstance(value, list):
        return [text for item in value for text in leaves(item)]
    return []
