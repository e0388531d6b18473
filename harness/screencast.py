"""The frames a Chromium page paints, with the time each was painted: the picture of a state that
lasts a few frames (an action button busy while its operation runs), which a screenshot — it
waits for its element to be there and still — comes too late for. Chromium's DevTools protocol
(`Page.startScreencast`, through Playwright's public CDP session); other browsers give no frames."""

from __future__ import annotations

import base64
import time
from types import TracebackType

from playwright.sync_api import CDPSession, Page
from playwright.sync_api import Error as PlaywrightError

from harness import checks


class Screencast:
    """`with Screencast(page) as frames:` keeps every frame painted meanwhile (JPEG), each with its
    time in ms since the epoch (as `performance.timeOrigin + performance.now()` in the page)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.frames: list[tuple[float, bytes]] = []
        self._session: CDPSession | None = None

    def __enter__(self) -> Screencast:
        if checks.evidence_folder is None:
            return self  # no pictures wanted: no frames either
        started = time.monotonic()
        try:
            session = self.page.context.new_cdp_session(self.page)
        except PlaywrightError:
            return self  # not Chromium
        self._session = session  # before the first frame, which may come while starting
        session.on("Page.screencastFrame", self._on_frame)
        session.send("Page.startScreencast", {"format": "jpeg", "quality": 70})
        checks.spent_on_pictures(time.monotonic() - started)
        return self

    def _on_frame(self, frame: dict) -> None:
        self.frames.append((frame["metadata"]["timestamp"] * 1000, base64.b64decode(frame["data"])))
        if self._session is not None:  # the next frame comes only once this one is acknowledged
            self._session.send("Page.screencastFrameAck", {"sessionId": frame["sessionId"]})

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None):
        if self._session is None:
            return
        started = time.monotonic()
        session, self._session = self._session, None
        try:
            session.send("Page.stopScreencast")
            session.detach()
        except PlaywrightError:
            pass  # the page went away with its session
        checks.spent_on_pictures(time.monotonic() - started)

    def painted_between(self, start_ms: float, end_ms: float) -> bytes | None:
        """The frame painted last before `end_ms` and after `start_ms` (epoch ms), if any was."""
        inside = [jpeg for at, jpeg in self.frames if start_ms < at < end_ms]
        return inside[-1] if inside else None
