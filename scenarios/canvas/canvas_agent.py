"""The canvas scenarios' agent (slides, excalidraw, drawio): a client whose tool is switched on and
loaded, the ways through a call the scenarios share, and what the open document is."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import expect

from harness import contract
from harness.clients import parse_result
from harness.pages import ToolPage



class Agent:
    """An agent calling one tab's operations, the switch on and the tool loaded."""

    def __init__(self, tool_page: ToolPage, client):
        self.tool_page = tool_page
        self.client = client

    def ok(self, name: str, arguments: dict | None = None) -> dict:
        """A call that must succeed with the operation's result shape."""
        result = self.client.call(name, arguments or {})
        assert result["ok"] is True, f"{name} failed: {result}"
        contract.BY_NAME[name].validate_result(result)
        return result

    def fails(self, name: str, arguments: dict, code: str) -> dict:
        """A call that must fail with `code`, decided before any confirmation dialog."""
        rows = self.tool_page.log.root.get_by_role("listitem", include_hidden=True)
        before = rows.count()
        pending = self.client.start(name, arguments)
        # The call's log row (added once its result is decided) or a dialog, whichever comes first.
        expect(self.tool_page.dialog.root.or_(rows.nth(before)).first).to_be_visible()
        asked = self.tool_page.dialog.root.is_visible()
        if asked:
            self.tool_page.dialog.cancel.click()
        result = pending.result()
        assert not asked, f"{name} asked for confirmation instead of failing with {code}: {result}"
        assert result["ok"] is False and result["error"]["code"] == code, f"{name}({_short(arguments)}): expected {code}, got {result}"
        return result

    def rejects_input(self, name: str, arguments: dict) -> None:
        """Input the schema refuses: invalid_input from the page, or the relay's own validation error."""
        pending = self.client.start(name, arguments)
        if self.client.path == "relay":
            # The relay validates input itself (ADR-0044 Verification), and marks the page's
            # failures as errors too: either answer refuses the input.
            is_error, text = pending.raw()
            if is_error and "validation" in text.lower():
                return
            result = parse_result(text, name)
        else:
            result = pending.result()
        assert result["ok"] is False and result["error"]["code"] == "invalid_input", (
            f"{name}({_short(arguments)}) was not refused as invalid_input: {result}"
        )

    def confirmed(self, name: str, arguments: dict | None = None) -> dict:
        """A confirming operation: start it, press the dialog's action button, take the result."""
        pending = self.client.start(name, arguments or {})
        action = self.tool_page.dialog.action(contract.BY_NAME[name].confirmation.action_label)
        expect(action, f"{name} opened no confirmation dialog").to_be_visible()
        action.click()
        result = pending.result()
        assert result["ok"] is True, f"{name} failed: {result}"
        contract.BY_NAME[name].validate_result(result)
        expect(self.tool_page.dialog.root).to_be_hidden()
        return result

    def read(self) -> dict:
        return self.ok(contract.reader_of(self.tool_page.tool).name)


def _short(arguments: dict) -> str:
    text = repr(arguments)
    return text if len(text) < 200 else text[:200] + "…"


def switch_on(tool_page: ToolPage, client) -> Agent:
    """Turn the switch on, wait for the operations and for the tool to finish loading."""
    # The switch comes with the tool's module, which for the editors is a large script.
    expect(tool_page.switch).to_be_visible(timeout=30_000)
    tool_page.turn_on()
    client.wait_for_tools(contract.names_of(tool_page.tool))
    loaded = client.call_when_ready(contract.reader_of(tool_page.tool).name)
    assert loaded["ok"] is True, f"{tool_page.tool} never became ready: {loaded}"
    return Agent(tool_page, client)


def expected_document_id(tool_page: ToolPage) -> str | None:
    """The document the page's URL opens: its `doc` query parameter, when the profile's URL has one."""
    values = parse_qs(urlsplit(tool_page.page.url).query).get("doc")
    return values[0] if values else None


def assert_is_open_document(tool_page: ToolPage, document: dict) -> None:
    """`document` is the page's open document: its name is the page's <title>, its id the URL's."""
    title = tool_page.page.title()
    assert document["name"] == title, f"document {document} is not the open one (title {title!r})"
    profile_title = tool_page.target.tools[tool_page.tool].title
    if tool_page.page.url.endswith(tool_page.target.tools[tool_page.tool].page) and profile_title:
        assert title == profile_title, f"<title> is {title!r}, the profile says {profile_title!r}"
    expected_id = expected_document_id(tool_page)
    if expected_id is not None:
        assert document["id"] == expected_id, f"document.id is {document['id']!r}, the page opened {expected_id!r}"


def example_input(client, op: contract.Operation) -> dict:
    """An input of the right shape; the theme comes from the registered enum (the contract has none)."""
    if op.name == "slides_set_theme":
        info = next(i for i in client.tools() if i.name == op.name)
        return {"theme": info.input_schema["properties"]["theme"]["enum"][0]}
    return op.example
