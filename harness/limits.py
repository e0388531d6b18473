"""Every time limit of the harness, in one place, scaled for slow machines.

HARNESS_TIME_SCALE=2 doubles them all (a busy, shared CI runner). Limits bound waits for
conditions; nothing here is a sleep. `poll` is the one bounded wait for a condition that no event
announces (what a page holds, a process ending): the harness waits for events where there are.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def _scale() -> float:
    raw = os.environ.get("HARNESS_TIME_SCALE", "1")
    try:
        scale = float(raw)
    except ValueError:
        raise SystemExit(f"HARNESS_TIME_SCALE must be a number, not {raw!r}") from None
    if scale <= 0:
        raise SystemExit(f"HARNESS_TIME_SCALE must be positive, not {raw!r}")
    return scale


SCALE = _scale()

TOOLS_REGISTERED = 15 * SCALE  # in-page: a tab's operations appear or disappear after the switch
RELAY_TOOLS_LISTED = 60 * SCALE  # relay: the widget finds its relay and the tab's operations are listed
RELAY_FIRST_CONNECT = 15 * SCALE  # relay: after this with nothing of a tab listed, its widget is restarted
RELAY_TOOLS_REMOVED = 15 * SCALE  # relay: a tab's operations leave the list
TOOL_READY = 30 * SCALE  # a tool page finishes loading (its operations stop answering not_ready)
ANSWERED_AT_ONCE = 10 * SCALE  # a call the page must answer while something it waits for is held (a load, a dialog)
CALL_RESULT = 60 * SCALE  # an operation answers (writing a 1 MB deck renders it: tens of seconds on a busy machine)
RELAY_START = 30 * SCALE  # the relay CLI starts and answers its server-hello
PAGE_SETTLED = 20 * SCALE  # no HTTP request in flight
EXPECT_MS = int(10_000 * SCALE)  # Playwright's expect(): a locator reaches the expected state
SCENARIO = 300 * SCALE  # the watchdog of each attempt's set-up and call (harness.watchdog; --timeout)
TEARDOWN = 60 * SCALE  # the watchdog of each attempt's teardown (closing its tabs and contexts)
ENDED = 10 * SCALE  # a command's processes end after it (Ctrl-C: browsers and workers end on their own)


def poll(
    attempt: Callable[[], T], done: Callable[[T], bool] = bool, limit: float = EXPECT_MS / 1000, pause: float = 0.05
) -> tuple[T, bool]:
    """attempt() until done(its value) or `limit` seconds have passed, `pause` seconds apart: the last
    value, and whether it was done."""
    deadline = time.monotonic() + limit
    while True:
        value = attempt()
        if done(value):
            return value, True
        if time.monotonic() > deadline:
            return value, False
        time.sleep(pause)
