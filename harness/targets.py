"""Target profiles: where the playground under test is, and how to reach each tool page.

A profile is a TOML file (see harness/profiles/): `reference` (the default; the harness serves
fixtures/reference itself), `localhost`, `production`, or a path to your own file.
"""

from __future__ import annotations

import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

TOOLS = ("node", "sql", "go", "slides", "excalidraw", "drawio")
PROFILES = Path(__file__).parent / "profiles"
DEFAULT_RELAY_PORT = 9333


class TargetError(Exception):
    """A profile that cannot be used: malformed, or its target does not answer."""


@dataclass(frozen=True)
class ToolPages:
    page: str  # a page with an open document (canvas tools) or an embed id (node, sql, go)
    title: str | None = None  # the expected <title>, where the profile knows it
    other_page: str | None = None  # a second document of the same tool
    empty_page: str | None = None  # the tool with no open document


@dataclass(frozen=True)
class Target:
    name: str
    base_url: str
    widget_origin: str
    relay_port: int
    ai_tools: tuple[str, ...]
    tools: dict[str, ToolPages] = field(default_factory=dict)
    served: bool = False  # the harness serves it (the reference)

    @property
    def origin(self) -> str:
        parts = urlsplit(self.base_url)
        return f"{parts.scheme}://{parts.netloc}"

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path

    def page_url(self, tool: str, which: str = "page") -> str | None:
        path = getattr(self.tools[tool], which)
        return self.url(path) if path is not None else None


def profile_path(name_or_path: str) -> Path:
    builtin = PROFILES / f"{name_or_path}.toml"
    if builtin.is_file():
        return builtin
    path = Path(name_or_path)
    if path.suffix == ".toml":
        if not path.is_file():
            raise TargetError(f"target profile {path} does not exist")
        return path
    known = ", ".join(sorted(p.stem for p in PROFILES.glob("*.toml")))
    raise TargetError(f"unknown target {name_or_path!r}: use one of {known}, or a path to a .toml profile")


def load_profile(name_or_path: str, base_url: str | None = None) -> Target:
    """Read a profile; `base_url` (pytest's --base-url) overrides the profile's address."""
    path = profile_path(name_or_path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise TargetError(f"target profile {path} is not valid TOML: {error}") from None
    return _target_from(data, path, base_url)


def _target_from(data: dict, path: Path, base_url: str | None) -> Target:
    def fail(message: str) -> TargetError:
        return TargetError(f"target profile {path}: {message}")

    name = data.get("name", path.stem)
    served = name == "reference"
    base = base_url or data.get("base_url")
    if not served and not base:
        raise fail("needs base_url (or pass --base-url)")
    tools_data = data.get("tools")
    if not isinstance(tools_data, dict) or not tools_data:
        raise fail("needs a [tools.<tool>] table for each tool page")
    tools: dict[str, ToolPages] = {}
    for tool, entry in tools_data.items():
        if tool not in TOOLS:
            raise fail(f"unknown tool {tool!r} (tools are {', '.join(TOOLS)})")
        if not isinstance(entry, dict) or not isinstance(entry.get("page"), str):
            raise fail(f"[tools.{tool}] needs page = \"/path\"")
        unknown = set(entry) - {"page", "title", "other_page", "empty_page"}
        if unknown:
            raise fail(f"[tools.{tool}] has unknown keys {sorted(unknown)}")
        tools[tool] = ToolPages(**entry)
    ai_tools = tuple(data.get("ai_tools", tools))
    missing = [tool for tool in ai_tools if tool not in tools]
    if missing:
        raise fail(f"ai_tools names tools without a page: {missing}")
    relay_port = data.get("relay_port", DEFAULT_RELAY_PORT)
    if not isinstance(relay_port, int):
        raise fail("relay_port must be an integer")
    base = base or "http://localhost:0"  # the reference's address is known once it is served
    origin = f"{urlsplit(base).scheme}://{urlsplit(base).netloc}"
    return Target(
        name=name,
        base_url=base,
        widget_origin=data.get("widget_origin", origin) if not base_url else origin,
        relay_port=relay_port,
        ai_tools=ai_tools,
        tools=tools,
        served=served,
    )


def served_at(target: Target, origin: str, relay_port: int) -> Target:
    """The reference profile once the harness serves it at `origin`."""
    return Target(target.name, origin, origin, relay_port, target.ai_tools, target.tools, served=True)


def check_reachable(target: Target, timeout: float = 10.0) -> None:
    """One request to the target's first page; raises TargetError naming the URL if it fails."""
    url = target.page_url(next(iter(target.tools)))
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read(1)
    except urllib.error.HTTPError as error:
        raise TargetError(f"target {target.name} answered {error.code} at {url}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise TargetError(f"target {target.name} is unreachable at {url}: {reason}") from None
