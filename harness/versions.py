"""Versions of the parts actually used in a run (for the baseline and the Verification report)."""

from __future__ import annotations

import json
from functools import cache
from importlib.metadata import PackageNotFoundError, version

from harness.paths import NODE_MODULES

POLYFILL = "@mcp-b/global"
RELAY = "@mcp-b/webmcp-local-relay"


@cache
def npm(package: str) -> str | None:
    try:
        return json.loads((NODE_MODULES / package / "package.json").read_text())["version"]
    except (OSError, KeyError, ValueError):
        return None


@cache
def python(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def parts() -> dict[str, str | None]:
    return {
        POLYFILL: npm(POLYFILL),
        RELAY: npm(RELAY),
        "mcp (Python SDK)": python("mcp"),
        "playwright (Python)": python("playwright"),
        "pytest-playwright": python("pytest-playwright"),
    }
