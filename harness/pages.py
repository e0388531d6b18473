"""Page objects, in the spec's words: the tool page, its switch and Notice, the confirmation
dialog, the operation log, and the permission stored in localStorage."""

from __future__ import annotations

import colorsys
import json
import re
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Frame, Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from harness import limits, tools
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
# The path of the WebSockets the harness itself opens from a page (harness/relay.py's
# LIFT_THROTTLE): they are not the page's contacts, or a page that never reached its relay
# would seem to have.
HARNESS_SOCKET_PATH = "/harness-handshake"
# Every relay tab id this process gave a tab: a tab the relay lists under another id is not the harness's.
GIVEN_TAB_IDS: set[str] = set()


class ToolPage:
    """One tool page in one tab."""

    def __init__(self, page: Page, target: Target, tool: str, relay_tab_id: str, url: str):
        self.page = page
        self.url = url  # the tool page's address in the target
        self.relay_tab_id = relay_tab_id
        self.target = target
        self.tool = tool
        self.console: list[str] = []
        # Calls of operations that ask, started and not seen decided: a dialog may be theirs (harness.clients).
        self.asking: list = []
        page.on("console", lambda message: self.console.append(f"[{message.type}] {message.text}"))
        page.on("pageerror", lambda error: self.console.append(f"[pageerror] {error}"))
        page.on("crash", lambda _: self.console.append("[crash] the tab's renderer process ended"))
        # Every origin the page contacts, WebSockets included (the report's network findings).
        self.contacted: set[str] = set()
        self.in_flight: set = set()
        page.on("request", self._request_started)
        page.on("requestfinished", lambda request: self.in_flight.discard(request))
        page.on("requestfailed", lambda request: self.in_flight.discard(request))
        page.on("websocket", self._socket_opened)

    def _socket_opened(self, socket) -> None:
        if urlsplit(socket.url).path != HARNESS_SOCKET_PATH:
            self.contacted.add(_origin(socket.url))

    def _request_started(self, request) -> None:
        if request.headers.get("sec-websocket-key"):
            # Firefox over WebDriver BiDi fires no websocket event: a socket shows as its handshake,
            # an http(s) request that is never finished.
            url = re.sub(r"^http", "ws", request.url)
            if urlsplit(url).path != HARNESS_SOCKET_PATH:
                self.contacted.add(_origin(url))
            return
        self.contacted.add(_origin(request.url))
        self.in_flight.add(request)

    @property
    def switch(self) -> Locator:
        return self.page.get_by_role("switch", name=SWITCH_LABEL, exact=True)

    @property
    def start_failure(self) -> Locator:
        return self.page.get_by_role("alert").filter(has_text=START_FAILURE_TITLE)

    @property
    def log(self) -> OperationLog:
        return OperationLog(self.page, in_tab=tools.of(self.tool).log_in_tab)

    @property
    def dialog(self) -> ConfirmDialog:
        return ConfirmDialog(self.page.get_by_role("dialog"))

    @property
    def any_confirmation(self) -> ConfirmDialog:
        """The first confirmation dialog shown, told from whatever else the page calls a dialog by the
        spec's やめる button."""
        return ConfirmDialog(
            self.page.get_by_role("dialog")
            .filter(has=self.page.get_by_role("button", name=CANCEL_LABEL, exact=True))
            .first
        )

    @property
    def storage(self) -> PermissionStorage:
        return PermissionStorage(self.page, self.tool)

    def start_afresh(self, relay_tab_id: str) -> None:
        """The tab given to another scenario (harness/warm_tabs.py): its observations start again."""
        GIVEN_TAB_IDS.add(relay_tab_id)
        self.relay_tab_id = relay_tab_id
        self.console.clear()
        self.contacted.clear()
        self.in_flight.clear()

    def goto(
        self, url: str, wait_until: Literal["commit", "domcontentloaded", "load", "networkidle"] = "load"
    ) -> ToolPage:
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
                self.page.wait_for_event(
                    "request", timeout=quiet_ms
                ) if not self.in_flight else self.page.wait_for_event("requestfinished", timeout=quiet_ms)
            except PlaywrightTimeoutError:
                if not self.in_flight:
                    return
            if time.monotonic() > deadline:
                pending = sorted(request.url for request in self.in_flight)[:5]
                raise HarnessError(f"{self.page.url} did not settle in {timeout_ms / 1000:.0f} s; in flight: {pending}")

    def wait_until_saved(
        self, present: tuple[str, ...] = (), absent: tuple[str, ...] = (), timeout: float = limits.ANSWERED_AT_ONCE
    ) -> bool:
        """Whether, within `timeout`, the origin's localStorage and IndexedDB came to hold every text
        of `present` and none of `absent` (in keys or values, bytes read as UTF-8). A page saves a
        change as it saves the user's (Design Doc: IndexedDB への保存は、利用者が書き換えたときと同じよう
        に): after its answer, maybe. Waited for before a reload; a page that saves in a form these
        texts are not in costs the timeout, and what the reload shows is still the check."""
        _, saved = limits.poll(
            lambda: self.page.evaluate(SAVED_TEXT),
            lambda kept: all(text in kept for text in present) and not any(text in kept for text in absent),
            timeout,
            pause=0.1,
        )
        return saved

    def settled_scripts(self) -> set[str]:
        """Scripts and frames the page has loaded once it has settled (Resource Timing)."""
        self.settle()
        return scripts_loaded(self.page)

    def console_text(self) -> str:
        return "\n".join(self.console[-200:]) or "(no console output)"


@dataclass
class PermissionStorage:
    """The `fd-ai-operations:<tool>` key of localStorage (Design Doc スイッチと確認の状態の保存),
    as a tab or a frame sees it."""

    page: Page | Frame
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

    def says_on(self) -> bool:
        """Whether the stored state has the switch on (its period not over by the page's clock).

        Harness set-up asks this rather than the switch as drawn: a page may draw its state late
        (React renders after the state), and a click on a switch not yet drawn on turns it off.
        Whatever is not the spec's shape reads as off; the storage scenarios judge the shape."""
        try:
            stored = self.read()
        except ValueError:
            return False
        until = stored.get("enabledUntil") if isinstance(stored, dict) else None
        return isinstance(until, (int, float)) and until > self.now()

    def now(self) -> int:
        """The page's clock (faked when the scenario installed page.clock)."""
        return self.page.evaluate("Date.now()")


# The colours a person sees of an element, wherever the page puts them: the text colour, the
# background and the drawn borders of the element, of what it holds, and of the wrappers around it
# that hold nothing else (a badge's word in a coloured pill).
COLOURS = """(element) => {
  const colours = [];
  const add = (value) => {
    const parts = value.match(/rgba?\\(([^)]+)\\)/)?.[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    if (parts && (parts[3] ?? 1) > 0.1) colours.push(parts.slice(0, 3));
  };
  const look = (node) => {
    const style = getComputedStyle(node);
    add(style.color);
    add(style.backgroundColor);
    for (const side of ['Top', 'Right', 'Bottom', 'Left']) {
      if (parseFloat(style[`border${side}Width`]) > 0 && style[`border${side}Style`] !== 'none') add(style[`border${side}Color`]);
    }
  };
  look(element);
  element.querySelectorAll('*').forEach(look);
  const text = element.textContent.trim();
  for (let up = element.parentElement; up && up.textContent.trim() === text; up = up.parentElement) look(up);
  return colours;
}"""
# A tone's colour family (@fukuemon/ui's variants as a person tells them apart): danger reads red,
# success green, neutral and secondary grey (no colour saturated beyond this).
SATURATED = 0.35


def tone_of(colours: list[list[float]]) -> str:
    """ "danger", "success", "neutral" or "other", by the most saturated of the colours."""
    hls = [colorsys.rgb_to_hls(*(channel / 255 for channel in colour)) for colour in colours]
    telling = [(saturation, hue * 360) for hue, lightness, saturation in hls if 0.04 < lightness < 0.97]
    if not telling or max(telling)[0] < SATURATED:
        return "neutral"
    hue = max(telling)[1]
    if hue >= 330 or hue <= 25:
        return "danger"
    if 75 <= hue <= 170:
        return "success"
    return "other"


def tone(locator: Locator) -> str:
    return tone_of(locator.evaluate(COLOURS))


# @fukuemon/ui's Disclosure, whatever its markup: a native <summary> in a <details>, or the ARIA
# disclosure pattern (a button with aria-expanded, controlling a region by aria-controls).
DISCLOSURE_TOGGLES = "summary, button[aria-expanded], [role=button][aria-expanded]"
DISCLOSURE_JS = """
const disclosure = {
  isOpen: (toggle) => toggle.tagName === 'SUMMARY' ? toggle.parentElement.open : toggle.getAttribute('aria-expanded') === 'true',
  region: (toggle) => {
    if (toggle.tagName === 'SUMMARY') return toggle.parentElement;
    const controlled = document.getElementById(toggle.getAttribute('aria-controls') ?? '');
    if (controlled) return controlled;
    // Without aria-controls: what follows the toggle (or the heading that wraps it).
    for (let node = toggle; node && node !== document.body; node = node.parentElement) {
      if (node.nextElementSibling) return node.nextElementSibling;
    }
    return null;
  },
};
"""


class Disclosure:
    """One Disclosure, by its toggle (the part one clicks)."""

    def __init__(self, toggle: Locator):
        self.toggle = toggle

    def is_open(self) -> bool:
        return self.toggle.evaluate(f"(toggle) => {{ {DISCLOSURE_JS} return disclosure.isOpen(toggle); }}")

    def wait_open(self, open_: bool) -> None:
        self.toggle.page.wait_for_function(
            f"([toggle, open]) => {{ {DISCLOSURE_JS} return disclosure.isOpen(toggle) === open; }}",
            arg=[self.toggle.element_handle(), open_],
            timeout=limits.EXPECT_MS,
        )

    def open(self) -> None:
        expect(self.toggle, "there is no Disclosure to open").to_be_attached()
        if not self.is_open():
            self.toggle.click()
        self.wait_open(True)

    def close(self) -> None:
        if self.is_open():
            self.toggle.click()
        self.wait_open(False)

    def region_text(self) -> str:
        """The text the opened Disclosure shows besides its toggle."""
        return self.toggle.evaluate(f"""(toggle) => {{ {DISCLOSURE_JS}
          const region = disclosure.region(toggle);
          if (!region) return '';
          const copy = region.cloneNode(true);
          if (region.contains(toggle)) copy.querySelector('summary')?.remove();
          return copy.textContent;
        }}""")


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
    def detail(self) -> Disclosure:
        """The Disclosure with the full content (detail): the dialog's only one."""
        return Disclosure(self.root.locator(DISCLOSURE_TOGGLES).first)

    def open_detail(self) -> str:
        """Open the Disclosure; returns the text it shows."""
        detail = self.detail
        detail.open()
        return detail.region_text()

    def body_text(self) -> str:
        return self.root.inner_text()


LOG_FIELDS = ("time", "name", "args", "badge", "result")
BADGE_WORDS = ("成功", "失敗", "中止")
# 時刻(時、分、秒): in any of the usual notations — 09:05:03, 9:05:03, 9時05分03秒.
TIME_OF_DAY = re.compile(r"^(\d{1,2})[:時](\d{2})[:分](\d{2})秒?$")
# The panel's own Disclosures, told apart from rows by their labels (icons around them aside).
PANEL_TOGGLE_TEXT = re.compile(rf"^\W*({SWITCH_LABEL}|{CONNECT_HELP_LABEL})\W*$")


# A result summary that says ok: true, as JSON or as a `key: value` text.
OK_TRUE = re.compile(r'(?<!\w)"?ok"?\s*:\s*true')


def seconds_of_day(text: str) -> int | None:
    """A row's time as seconds since midnight, or None if it is not a time of day."""
    match = TIME_OF_DAY.match(text.strip())
    if not match:
        return None
    hours, minutes, seconds = map(int, match.groups())
    return hours * 3600 + minutes * 60 + seconds if hours < 24 and minutes < 60 and seconds < 60 else None


@dataclass(frozen=True)
class LogRow:
    """One row's header, in the Design Doc's order: 時刻、操作の名前、引数の要約、StatusBadge、結果の要約."""

    time: str
    name: str
    args: str
    badge: str
    result: str


# The texts a user reads in an element, in order: text nodes, with aria-hidden decoration left out.
READ_TEXTS = """(element) => {
  const texts = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = node.textContent.trim();
      if (text) texts.push(text);
    } else if (node.nodeType === Node.ELEMENT_NODE && node.getAttribute('aria-hidden') !== 'true') {
      node.childNodes.forEach(walk);
    }
  };
  walk(element);
  return texts;
}"""

# What an opened row shows besides its header, as a person reads it: its region's rendered text
# (block by block on lines), once the region shows more than the header's own text.
OPENED_TEXT = (
    """(toggle) => {
  %s
  const region = disclosure.region(toggle);
  if (!region || !disclosure.isOpen(toggle)) return null;
  const text = region.innerText;
  const header = region.contains(toggle) ? toggle.innerText : '';
  return text.replace(header, '').trim() ? text.replace(header, '') : null;
}"""
    % DISCLOSURE_JS
)


def flat(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class OpenedRow:
    """What an opened row lets a person read (「行を開くと、引数と結果の全文を読める」), in whatever
    layout the page shows it — JSON, `key: value` lines, a definition list: its text, on lines.
    Checks find the call's values in it: strings raw, each next to its key."""

    text: str

    def shows(self, text: str) -> bool:
        """Whether `text` is shown as written (white space aside: a layout may wrap or indent)."""
        return flat(text) in flat(self.text)

    def missing(self, value: Any, budget: int = 9_000) -> list[str]:
        """The leaves of `value` (arguments or a result) the text does not show: every key, and
        every scalar right after its key (strings raw); no further than about `budget` characters
        into the value, where a text of up to 10,000 characters may have ended."""
        shown, missing, used = flat(self.text), [], 0
        for key, leaf in _leaves(value):
            written = leaf if isinstance(leaf, str) else json.dumps(leaf, ensure_ascii=False)
            used += len(key or "") + len(written) + 8
            if used > budget:
                break
            pattern = (rf"(?<!\w){re.escape(key)}\W{{0,8}}" if key else "") + re.escape(flat(written))
            if not re.search(pattern, shown):
                missing.append(f"{key}: {written[:60]!r}" if key else repr(written[:60]))
        return missing

    def shown_prefix(self, text: str) -> int:
        """How many characters of `text` (from its start) are shown."""
        shown, low, high = flat(self.text), 0, len(text)
        while low < high:  # shown is monotone in the length
            middle = (low + high + 1) // 2
            low, high = (middle, high) if flat(text[:middle]) in shown else (low, middle - 1)
        return low

    def line_texts(self) -> list[str]:
        """The text from each line's start to the end, white space flattened: a part of the row
        (the arguments, the result) starts at a line."""
        lines = self.text.splitlines()
        return [flat("\n".join(lines[index:])) for index in range(len(lines)) if lines[index].strip()]


def _leaves(value: Any, key: str | None = None) -> Iterator[tuple[str | None, Any]]:
    """(key, scalar) pairs in order; a key with a nested value comes as (key, "") first."""
    if isinstance(value, dict):
        if key is not None:
            yield key, ""
        for name, item in value.items():
            yield from _leaves(item, name)
    elif isinstance(value, list):
        if key is not None:
            yield key, ""
        for item in value:
            yield from _leaves(item)
    else:
        yield key, value


def parse_row(texts: list[str], names: set[str]) -> LogRow:
    """A row header's texts, read by what they are in the spec's order: a time, an operation's
    name, the arguments' summary, a badge word, the result's summary."""

    def fail(why: str) -> AssertionError:
        return AssertionError(
            f"a log row's header does not read 時刻、操作の名前、引数の要約、StatusBadge、結果の要約 ({why}): {texts}"
        )

    at_time = next((i for i, text in enumerate(texts) if seconds_of_day(text) is not None), None)
    if at_time is None:
        raise fail("no time of day")
    at_name = next((i for i in range(at_time + 1, len(texts)) if texts[i] in names), None)
    if at_name is None:
        raise fail("no operation name after the time")
    badge = re.compile(rf"^\W*({'|'.join(BADGE_WORDS)})\W*$")
    word, at_badge = next(
        ((match[1], i) for i in range(at_name + 1, len(texts)) if (match := badge.match(texts[i]))), (None, None)
    )
    if word is None or at_badge is None:
        raise fail(f"no badge word ({'/'.join(BADGE_WORDS)}) after the name")
    return LogRow(
        texts[at_time], texts[at_name], "".join(texts[at_name + 1 : at_badge]), word, "".join(texts[at_badge + 1 :])
    )


class OperationLog:
    """The `role="log"` panel (Design Doc 操作の記録の欄), found by its role; where the page has more
    than one log, the one named 「AI からの操作」. Its rows are the Disclosures in it (「行を開くと」)
    other than the panel's own (its title, 「AI のエージェントのつなぎ方」).

    `in_tab`: the log lives in the tab 「AI からの操作」 of the bottom pane (Node's page). It is
    shown when that tab is, and is read with the tab selected, as a user would."""

    def __init__(self, page: Page, in_tab: bool = False):
        self.page = page
        self.in_tab = in_tab
        self.root = page.get_by_role("log", name=SWITCH_LABEL, exact=True).or_(page.get_by_role("log")).first

    @property
    def tab(self) -> Locator:
        """The bottom pane's tab 「AI からの操作」 (in_tab pages)."""
        return self.page.get_by_role("tab", name=SWITCH_LABEL, exact=True)

    def select_tab(self) -> None:
        """In a tabbed page, select the tab 「AI からの操作」 (a click, as a user). An empty log may take
        no room, so its rows' own expectations tell whether it shows."""
        if not self.in_tab:
            return
        expect(self.tab, "there is no tab 「AI からの操作」").to_be_visible()
        if self.tab.get_attribute("aria-selected") != "true":
            self.tab.click()
        expect(self.tab).to_have_attribute("aria-selected", "true")

    @property
    def rows(self) -> Locator:
        """Each row's header (its toggle), oldest first; hidden ones (a collapsed panel) count too."""
        return self.root.locator(DISCLOSURE_TOGGLES).filter(has_not_text=PANEL_TOGGLE_TEXT)

    @property
    def shown(self) -> Locator:
        """What shows of the panel: the log, or its title where an empty log takes no room (in a
        tabbed page: the tab, or the log)."""
        return self.root.or_(self.tab if self.in_tab else self.toggle).filter(visible=True)

    def expect_shown(self) -> None:
        expect(self.shown, "the panel 「AI からの操作」 is not shown").not_to_have_count(0)
        self.select_tab()

    def expect_hidden(self) -> None:
        expect(self.shown, "the panel 「AI からの操作」 is shown").to_have_count(0)

    @property
    def connect_help(self) -> Locator:
        return self.page.get_by_text(CONNECT_HELP_LABEL, exact=True)

    @property
    def connect_help_disclosure(self) -> Disclosure:
        return Disclosure(self.page.locator(DISCLOSURE_TOGGLES).filter(has_text=CONNECT_HELP_LABEL))

    @property
    def toggle(self) -> Locator:
        """The panel's title, the Disclosure toggle that opens and closes it."""
        return self.page.locator(DISCLOSURE_TOGGLES).filter(has_text=PANEL_TOGGLE_TEXT).filter(has_text=SWITCH_LABEL)

    def wait_for_success_row(self, name: str) -> None:
        """Until the panel shows a row of `name` whose result summary says ok: true. A page may render
        late (React batches updates), and a count of rows taken before a call is only right once
        the rows of the calls before it are on screen (earlier rows of `name` may be not_ready).
        A tabbed page's log is read with its tab selected, which stays so until the switch goes off."""
        self.select_tab()
        expect(self.rows.filter(has_text=name).filter(has_text=OK_TRUE).first).to_be_attached()

    def collapse(self) -> None:
        Disclosure(self.toggle).close()

    def expand(self) -> None:
        Disclosure(self.toggle).open()

    def row(self, index: int) -> LogRow:
        """Parse row `index` (negative counts from the end)."""
        from harness import contract

        count = self.rows.count()
        header = self.rows.nth(index % count if count else index)
        return parse_row(header.evaluate(READ_TEXTS), contract.names())

    def badge_tone(self, index: int) -> str:
        """The tone of row `index`'s StatusBadge: that of the element holding its word."""
        count = self.rows.count()
        colours = self.rows.nth(index % count if count else index).evaluate(
            """(header) => {
              const words = /^\\W*(%s)\\W*$/;
              const walker = document.createTreeWalker(header, NodeFilter.SHOW_TEXT);
              for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                if (node.textContent.trim() && words.test(node.textContent.trim())) return (%s)(node.parentElement);
              }
              return [];
            }"""
            % ("|".join(BADGE_WORDS), COLOURS)
        )
        return tone_of(colours)

    def open_row(self, index: int) -> OpenedRow:
        """Open row `index`; returns what it shows besides its header."""
        self.select_tab()
        count = self.rows.count()
        toggle = self.rows.nth(index % count if count else index)
        Disclosure(toggle).open()
        try:
            text = self.page.wait_for_function(OPENED_TEXT, arg=toggle.element_handle(), timeout=limits.EXPECT_MS)
        except PlaywrightTimeoutError:
            raise AssertionError(f"the opened row {index} shows nothing besides its header") from None
        return OpenedRow(text.json_value())


def new_tool_page(context: BrowserContext, target: Target, tool: str, url: str) -> ToolPage:
    """A new tab for `tool`, with a relay tab id of its own so the relay client can tell tabs apart."""
    page = context.new_page()
    relay_tab_id = secrets.token_hex(4)
    GIVEN_TAB_IDS.add(relay_tab_id)
    # Only where the tab has none yet: a warm tab gets its next id from the harness (warm_tabs.py).
    key = json.dumps(RELAY_TAB_ID_KEY)
    page.add_init_script(
        f"try {{ if (!sessionStorage.getItem({key})) sessionStorage.setItem({key}, {json.dumps(relay_tab_id)}) }} catch {{}}"
    )
    return ToolPage(page, target, tool, relay_tab_id, url)


SCRIPTS_LOADED = """() => performance.getEntriesByType('resource')
  .filter((e) => e.initiatorType === 'script' || e.initiatorType === 'iframe').map((e) => e.name)"""


def scripts_loaded(page_or_frame) -> set[str]:
    return set(page_or_frame.evaluate(SCRIPTS_LOADED))


def scripts_when_off(open_tool, tool: str) -> set[str]:
    """The scripts and frames a tool page left off has loaded, once settled: quiet for long enough
    to include what a tool loads a while after its page (a document it imports late). Read before
    any tab of the context turns on (the tab would follow it)."""
    off = open_tool(tool)
    off.settle(quiet_ms=OFF_TAB_QUIET_MS)
    return scripts_loaded(off.page)


def ai_scripts(open_tool, tool: str, wait_for_operations, loaded_when_off: set[str]) -> tuple[ToolPage, set[str]]:
    """The scripts and frames a tool page loads because its switch is on (the polyfill, the relay
    script): what a switched-on tab has loaded once its operations are registered, and a tab
    left off has not (`loaded_when_off`). Returns the switched-on tab (ON is then stored for
    the origin) and those URLs."""
    on = open_tool(tool)
    on.turn_on()
    wait_for_operations(on)
    return on, scripts_loaded(on.page) - loaded_when_off


OFF_TAB_QUIET_MS = 2_000


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else parts.scheme + ":"


# Everything the page's origin keeps in IndexedDB, as one text: every key and value of every store,
# strings as they are, bytes and Blobs read as UTF-8, objects, arrays, Maps and Sets walked.
INDEXEDDB_TEXT = """async () => {
  const decoder = new TextDecoder();
  const texts = [];
  const walk = async (value, depth) => {
    if (value == null || depth > 10) return;
    if (typeof value === "string") texts.push(value);
    else if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) texts.push(decoder.decode(value));
    else if (value instanceof Blob) texts.push(await value.text());
    else if (typeof value === "object") {
      const parts = value instanceof Map ? [...value.keys(), ...value.values()]
        : value instanceof Set || Array.isArray(value) ? [...value] : [...Object.keys(value), ...Object.values(value)];
      for (const part of parts) await walk(part, depth + 1);
    }
  };
  const done = (request) => new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  for (const { name } of (await indexedDB.databases?.()) ?? []) {
    const opening = indexedDB.open(name);
    opening.onupgradeneeded = () => opening.transaction.abort(); // deleted since it was listed
    let db;
    try { db = await done(opening); } catch { continue; }
    try {
      const stores = [...db.objectStoreNames];
      if (!stores.length) continue;
      const transaction = db.transaction(stores, "readonly");
      // Every request made before the first await: a transaction ends once nothing is asked of it.
      const read = stores.flatMap((store) => [transaction.objectStore(store).getAllKeys(), transaction.objectStore(store).getAll()]);
      await walk(await Promise.all(read.map(done)), 0);
    } finally {
      db.close();
    }
  }
  return texts.join("\\n");
}"""
# Everything the page's origin keeps in localStorage and IndexedDB, as one text.
SAVED_TEXT = (
    """async () => {
  const kept = [];
  for (let i = 0; i < localStorage.length; i++) kept.push(localStorage.key(i), localStorage.getItem(localStorage.key(i)));
  return kept.join("\\n") + "\\n" + await (%s)();
}"""
    % INDEXEDDB_TEXT
)


_AGENT_CLUSTER_HEADERS: dict[str, dict[str, str]] = {}  # per tool page URL, asked once per worker
AGENT_CLUSTER_HEADER = "origin-agent-cluster"


def agent_cluster_header(page: Page, url: str) -> dict[str, str]:
    """The tool page's Origin-Agent-Cluster header as its target serves it, or none: for a
    document the harness makes on the target's origin. The first document of an origin in a
    browsing context group fixes its agent cluster for the ones after it, and the polyfill
    refuses getTools where the page is not origin-keyed (SecurityError)."""
    if url not in _AGENT_CLUSTER_HEADERS:
        response = page.request.get(url)
        value = response.headers.get(AGENT_CLUSTER_HEADER)
        response.dispose()
        _AGENT_CLUSTER_HEADERS[url] = {AGENT_CLUSTER_HEADER: value} if value else {}
    return _AGENT_CLUSTER_HEADERS[url]
