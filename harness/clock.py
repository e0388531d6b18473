"""Instants for Playwright's fake clock (the 50-second and 7-day rules are never waited for)."""

from datetime import UTC, datetime

T0 = 1_900_000_000_000  # a fixed instant (2030) for the pages' clocks, in ms since the epoch


def at(ms: int) -> datetime:
    """Playwright's Python clock reads plain numbers as seconds; say the instant unambiguously."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC)
