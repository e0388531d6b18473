"""Every time limit of the harness, in one place, scaled for slow machines.

HARNESS_TIME_SCALE=2 doubles them all (a busy, shared CI runner). Limits bound waits for
conditions; nothing here is a sleep.
"""

from __future__ import annotations

import os


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
SCENARIO = 300 * SCALE  # the per-scenario watchdog (pytest-timeout)
ENDED = 10 * SCALE  # a command's processes end after it (Ctrl-C: browsers and workers end on their own)
