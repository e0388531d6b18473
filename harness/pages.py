"""Page objects, in the spec's words: the tool page, its switch and Notice, the confirmation
dialog, the operation log, and the permission stored in localStorage."""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from harness import limits
from harness.checks import HarnessError
from harness.targets import Target

SWITCH_LABEL = "AI からの操作"
START_FAILURE_TITLE = "AI からの操作を始められません"
DONT_ASK_LABEL = "このページでは今後尋ねない"
CANCEL_LABEL = "やめる"
CONNECT_HELP_LABEL = "AI のエージェントのつなぎ方"
STORAGE_PREFIX = "fd-ai-operations:"
SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000
# The relay keeps a tab id in sessionStorage; fixing it per tab makes relay names predictable.
RELAY_TAB_ID_KEY = "__webmcp_relay_tab_id"


class ToolPage:
    """One tool page in one tab."""

    def __init__(self, page: Page, target: Target, tool: str, relay_tab_id: str, url: str):
        self.page = page
        self.url = url  # the tool page's address in the target
        self.relay_tab_id = relay_tab_id
        self.target = target
        self.tool = tool
        self.console: list[str] = []
        page.on("console", lambda message: self.console.append(f"[{message.type}] {message.text}"))
        page.on("pageerror", lambda error: self.console.append(f"[pageerror] {error}"))
        # Every origin the page contacts, WebSockets included (the report's network findings).
        self.contacted: set[str] = set()
        self.in_flight: set = set()
        page.on("request", self._request_started)
        page.on("requestfinished", lambda request: self.in_flight.discard(request))
        page.on("requestfailed", lambda request: self.in_flight.discard(request))
        page.on("websocket", lambda socket: self.contacted.add(_origin(socket.url)))

    def _request_started(self, request) -> None:
        self.contacted.add(_origin(request.url))
        self.in_flight.add(request)

    @property
    def switch(self) -> Locator:
        return self.page.get_by_role("switch", name=SWITCH_LABEL, exact=True)

    @property
    def start_failure(self) -> Locator:
        return self.page.get_by_role("alert").filter(has_text=START_FAILURE_TITLE)

    @property
    def log(self) -> "OperationLog":
        return OperationLog(self.page.get_by_role("log", name=SWITCH_LABEL))

    @property
    def dialog(self) -> "ConfirmDialog":
        return ConfirmDialog(self.page.get_by_role("dialog"))

    @property
    def storage(self) -> "PermissionStorage":
        return PermissionStorage(self.page, self.tool)

    def goto(self, url: str, wait_until: str = "load") -> "ToolPage":
        self.page.goto(url, wait_until=wait_until)
        return self

    def turn_on(self) -> None:
        expect(self.switch).not_to_be_checked()
        self.switch.click()
        expect(self.switch).to_be_checked()

    def turn_off(self) -> None:
        expect(self.switch).to_be_checked()
        self.switch.click()
        expect(self.switch).not_to_be_checked()

    def settle(self, quiet_ms: int = 500, timeout_ms: float = limits.PAGE_SETTLED * 1000) -> None:
        """Wait until no HTTP request of the page has been in flight for `quiet_ms`.

        Unlike `networkidle` it ignores WebSockets, so a relay widget that keeps retrying does
        not keep the page from settling."""
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            try:
                # Any request starting or ending restarts the quiet period.
                self.page.wait_for_event("request", timeout=quiet_ms) if not self.in_flight else \
                    self.page.wait_for_event("requestfinished", timeout=quiet_ms)
            except PlaywrightTimeoutError:
                if not self.in_flight:
                    return
            if time.monotonic() > deadline:
                pending = sorted(request.url for request in self.in_flight)[:5]
                raise HarnessError(f"{self.page.url} did not settle in {timeout_ms / 1000:.0f} s; in flight: {pending}")

    def settled_scripts(self) -> set[str]:
        """Scripts and frames the page has loaded once it has settled (Resource Timing)."""
        self.settle()
        return scripts_loaded(self.page)

    def console_text(self) -> str:
        return "\n".join(self.console[-200:]) or "(no console output)"


@dataclass
class PermissionStorage:
    """The `fd-ai-operations:<tool>` key of localStorage (Design Doc スイッチと確認の状態の保存)."""

    page: Page
    tool: str

    @property
    def key(self) -> str:
        return STORAGE_PREFIX + self.tool

    def raw(self) -> str | None:
        return self.page.evaluate("key => localStorage.getItem(key)", self.key)

    def read(self) -> dict | None:
        raw = self.raw()
        return None if raw is None else json.loads(raw)

    def write_raw(self, value: str) -> None:
        self.page.evaluate("([key, value]) => localStorage.setItem(key, value)", [self.key, value])

    def write(self, enabled_until: int, skip_confirm_until: int | None = None) -> None:
        self.write_raw(json.dumps({"v": 1, "enabledUntil": enabled_until, "skipConfirmUntil": skip_confirm_until}))

    def now(self) -> int:
        """The page's clock (faked when the scenario installed page.clock)."""
        return self.page.evaluate("Date.now()")


class ConfirmDialog:
    """The confirmation dialog (Design Doc 確認の画面), found the way a user sees it: the dialog role,
    its heading, its two buttons and the checkbox by their labels."""

    def __init__(self, root: Locator):
        self.root = root

    @property
    def title(self) -> Locator:
        return self.root.get_by_role("heading")

    @property
    def cancel(self) -> Locator:
        return self.root.get_by_role("button", name=CANCEL_LABEL, exact=True)

    def action(self, label: str) -> Locator:
        return self.root.get_by_role("button", name=label, exact=True)

    @property
    def dont_ask(self) -> Locator:
        return self.root.get_by_role("checkbox", name=DONT_ASK_LABEL)

    @property
    def detail(self) -> Locator:
        """The Disclosure with the full content (detail)."""
        return self.root.locator("details")

    def open_detail(self) -> Locator:
        """Open the Disclosure; returns it."""
        detail = self.detail
        if detail.get_attribute("open") is None:
            detail.locator("summary").click()
        return detail

    def body_text(self) -> str:
        return self.root.inner_text()


LOG_FIELDS = ("time", "name", "args", "badge", "result")


@dataclass(frozen=True)
class LogRow:
    """One row's header, in the Design Doc's order: 時刻、操作の名前、引数の要約、StatusBadge、結果の要約."""

    time: str
    name: str
    args: str
    badge: str
    result: str


class OperationLog:
    """The `role="log"` panel (Design Doc 操作の記録の欄)."""

    def __init__(self, root: Locator):
        self.root = root

    @property
    def rows(self) -> Locator:
        # Rows hidden while the panel is collapsed still count.
        return self.root.get_by_role("listitem", include_hidden=True)

    @property
    def connect_help(self) -> Locator:
        return self.root.get_by_text(CONNECT_HELP_LABEL)

    @property
    def toggle(self) -> Locator:
        """The panel's title, the button that opens and closes it."""
        return self.root.get_by_role("button", name=SWITCH_LABEL, exact=True)

    def is_expanded(self) -> bool:
        return self.toggle.get_attribute("aria-expanded") != "false"

    def collapse(self) -> None:
        if self.is_expanded():
            self.toggle.click()
        expect(self.toggle).to_have_attribute("aria-expanded", "false")

    def expand(self) -> None:
        if not self.is_expanded():
            self.toggle.click()
        expect(self.toggle).to_have_attribute("aria-expanded", "true")

    def row_header(self, row: Locator) -> Locator:
        """The always-visible line of a row (the part one clicks to open it)."""
        return row.locator("summary").first

    def row(self, index: int) -> LogRow:
        """Parse row `index` (negative counts from the end): the header's five cells in order."""
        count = self.rows.count()
        row = self.rows.nth(index % count if count else index)
        cells = self.row_header(row).locator(":scope > *")
        texts = [text.strip() for text in cells.all_inner_texts()]
        if len(texts) != len(LOG_FIELDS):
            raise AssertionError(f"a log row's header has {len(texts)} cells, expected {len(LOG_FIELDS)} "
                                 f"({', '.join(LOG_FIELDS)}): {texts}")
        return LogRow(*texts)

    def open_row(self, index: int) -> tuple[str, str]:
        """Open row `index`; returns the full (arguments, result) texts it shows."""
        count = self.rows.count()
        row = self.rows.nth(index % count if count else index)
        if row.locator("details").first.get_attribute("open") is None:
            self.row_header(row).click()
        texts = row.locator("pre")
        expect(texts).to_have_count(2)
        expect(texts.first).to_be_visible()
        return texts.nth(0).text_content() or "", texts.nth(1).text_content() or ""


def new_tool_page(context: BrowserContext, target: Target, tool: str, url: str) -> ToolPage:
    """A new tab for `tool`, with a relay tab id of its own so the relay client can tell tabs apart."""
    page = context.new_page()
    relay_tab_id = secrets.token_hex(4)
    page.add_init_script(
        f"try {{ sessionStorage.setItem({json.dumps(RELAY_TAB_ID_KEY)}, {json.dumps(relay_tab_id)}) }} catch {{}}"
    )
    return ToolPage(page, target, tool, relay_tab_id, url)


SCRIPTS_LOADED = """() => performance.getEntriesByType('resource')
  .filter((e) => e.initiatorType === 'script' || e.initiatorType === 'iframe').map((e) => e.name)"""


def scripts_loaded(page_or_frame) -> set[str]:
    return set(page_or_frame.evaluate(SCRIPTS_LOADED))


def ai_scripts(open_tool, tool: str, wait_for_operations) -> tuple[ToolPage, set[str]]:
    """The scripts and frames a tool page loads because its switch is on (the polyfill, the relay
    script): what a switched-on tab has loaded once its operations are registered, and a tab
    left off has not, once settled. Returns the switched-on tab (ON is then stored for the
    origin) and those URLs."""
    off = open_tool(tool)
    loaded_when_off = off.settled_scripts()
    on = open_tool(tool)
    on.turn_on()
    wait_for_operations(on)
    return on, scripts_loaded(on.page) - loaded_when_off


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else parts.scheme + ":"


TIME_OF_DAY = re.compile(r"^\d{2}:\d{2}:\d{2}$")
