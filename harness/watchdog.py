"""The per-attempt watchdog: every attempt of a scenario (its set-up, call and teardown, a rerun
included) ends at its limit, whatever it waits on.

pytest-timeout sets its timer once per test and stops it at the first failure, and
pytest-rerunfailures runs a rerun inside the same test protocol: a rerun, and a teardown after a
failure, had no watchdog. This one is armed by the plugin around each phase (harness.pytest_plugin)
and takes over `--timeout` (pytest-timeout keeps the option; its own timer is switched off).

It raises in the scenario's code from SIGALRM. Where the scenario waits in a Playwright call, the
signal lands in Playwright's dispatcher greenlet, which throws what it raises into the waiting
greenlet and stays alive (playwright/sync_api/_context_manager.py): the browser can still be closed
afterwards.
"""

from __future__ import annotations

import signal
import sysconfig
import time
from pathlib import Path
from types import FrameType

import greenlet

from harness.paths import ROOT

# The frames that say what a scenario waited on are its own and the harness's: not Python's, not
# the installed packages' (Playwright's, pytest's), not the watchdog's or the plugin's.
_LIBRARIES = tuple(
    {Path(sysconfig.get_paths()[key]).resolve() for key in ("stdlib", "platstdlib", "purelib", "platlib")}
)
_NOT_TELLING = {Path(__file__).resolve(), (ROOT / "harness" / "pytest_plugin.py").resolve()}


class WatchdogExpired(BaseException):
    """An attempt outlived its limit. A BaseException, so that no `except Exception` in the code it
    interrupts takes it for that code's own trouble: it ends the phase, and the scenario is 未確認."""


def available() -> bool:
    return hasattr(signal, "SIGALRM")


class Watchdog:
    """One timer at a time, for the phase running now."""

    def __init__(self) -> None:
        self._deadline: float | None = None
        self._what = ""
        self._limit = 0.0
        self._waiter: greenlet.greenlet | None = None

    def arm(self, seconds: float, what: str) -> None:
        """End what runs now after `seconds` (what: 'the call of <scenario>', for the message)."""
        if seconds <= 0 or not available():
            return
        self._deadline, self._what, self._limit = time.monotonic() + seconds, what, seconds
        self._waiter = greenlet.getcurrent()
        signal.signal(signal.SIGALRM, self._expired)
        signal.setitimer(signal.ITIMER_REAL, seconds)

    def remaining(self, otherwise: float) -> float:
        """The seconds left of the running timer (at least a moment), or `otherwise` where none runs."""
        return otherwise if self._deadline is None else max(0.001, self._deadline - time.monotonic())

    def disarm(self) -> None:
        if available():
            signal.setitimer(signal.ITIMER_REAL, 0)
        self._deadline, self._waiter = None, None

    def _expired(self, signum: int, frame: FrameType | None) -> None:
        waiter = self._waiter
        self.disarm()
        here = greenlet.getcurrent()
        # In a Playwright call the scenario's greenlet is suspended: its own frame says where it waits.
        waiting_frame = frame if waiter is None or waiter is here else waiter.gr_frame
        raise WatchdogExpired(
            f"the watchdog ended {self._what} after {self._limit:.0f} s, waiting in {waited_on(waiting_frame)}"
        )


def waited_on(frame: FrameType | None) -> str:
    """The innermost frame of the scenario's or the harness's code, as `file:line function: source`."""
    while frame is not None:
        path = Path(frame.f_code.co_filename).resolve()
        if path.is_file() and path not in _NOT_TELLING and not any(path.is_relative_to(lib) for lib in _LIBRARIES):
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
            return f"{shown}:{frame.f_lineno} {frame.f_code.co_name}: {_source_line(path, frame.f_lineno)}"
        frame = frame.f_back
    return "code outside the harness"


def _source_line(path: Path, number: int) -> str:
    try:
        return path.read_text(encoding="utf-8").splitlines()[number - 1].strip()
    except (OSError, IndexError):
        return ""
