"""Target profiles: where the playground under test is, how to reach each tool page, which
document each page opens, and how to see what the spec leaves to the page's own markup.

A profile is a TOML file (see harness/profiles/): `reference` (the default; the harness serves
fixtures/reference itself), `localhost`, `production`, or a path to your own file.

What a profile does not say, the scenarios that need it do not observe: they end 未確認
(skipped, naming the missing key), never failed.
"""

from __future__ import annotations

import json
import re
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from harness import tools
from harness.checks import reads_profile

TOOLS = tools.NAMES
PROFILES = Path(__file__).parent / "profiles"
DEFAULT_RELAY_PORT = 9333


class TargetError(Exception):
    """A profile that cannot be used: malformed, or its target does not answer."""


@dataclass(frozen=True)
class Document:
    """What a page opens (Design Doc 操作の対象の図とスライド): for node, sql and go only the
    name, the embed id."""

    name: str  # what <title> contains, reads' document.name, the confirmation's 「<名前>」
    id: str | None = None  # reads' document.id (canvas tools)


CANVAS_TOOLS = tools.CANVAS
HOLD_LOADING_KINDS = ("fetch", "child-frame", "indexeddb")
HOOK_HELP = {
    "hold_loading": '"fetch" (fetch/xhr requests), "child-frame" (every request of a child frame), "indexeddb" '
    "(the page opening an IndexedDB database), a URL glob, or a list of these",
    "view": "a Playwright selector",
    "theme_picker": "a Playwright selector",
    "restart": "a Playwright selector",
    "excluded_directory": "a directory name",
    "engine": "a URL glob of the requests that load the tool's engine (sql: PGlite's files; go: Yaegi's WASM)",
    "input": "a Playwright selector",
    "run": "a Playwright selector",
    "running": "a Playwright selector",
    "results": "a Playwright selector",
    "reset_notice": "a Playwright selector",
    "editor": "a Playwright selector",
    "binary_file": "a path of the project",
    "test": "a Playwright selector",
    "test_running": "a Playwright selector",
    "output": "a Playwright selector",
}
# The hooks a tool section may give for what the spec leaves to the page: as its descriptor says.
HOOKS = {hook: tuple(name for name, tool in tools.TOOLS.items() if hook in tool.hooks) for hook in HOOK_HELP}
DOCUMENT_OF = {"page": "document", "other_page": "other_document"}
# What a scenario may read of a tool's section (@pytest.mark.profile): pages and documents, and the hooks.
PROFILE_KEYS = ("document", "other_page", "empty_page", *HOOK_HELP)


@dataclass(frozen=True)
class ToolPages:
    page: str  # a page with an open document (canvas tools) or an embed id (node, sql, go)
    document: Document | None = None  # what `page` opens, where the profile knows it
    other_page: str | None = None  # a second document of the same tool
    other_document: Document | None = None  # what `other_page` opens
    empty_page: str | None = None  # the tool with no open document
    # How to hold the tool's loading, so that operations can be called before it ends: "fetch",
    # "child-frame", "indexeddb", a URL glob of the requests to hold, or several of these.
    hold_loading: str | tuple[str, ...] | None = None
    # Where the page shows the document rendered: slides, each rendered slide; excalidraw, the
    # scene's <canvas>; drawio, the editor's <iframe>.
    view: str | None = None
    theme_picker: str | None = None  # slides: the <select> of the editor's themes
    restart: str | None = None  # node: the control that starts the runtime again
    # node: one directory name of the saved-files rule's exclude list (that rule is the
    # playground's own, not the Design Doc's)
    excluded_directory: str | None = None
    # sql: the requests that load PGlite (held to see calls during its load, aborted for a load
    # that fails); the SQL input; the run button, and the same control while it shows a run; where
    # the user's runs show their results; the notice that an AI operation reset the DB.
    engine: str | None = None
    input: str | None = None
    run: str | None = None
    running: str | None = None
    results: str | None = None
    reset_notice: str | None = None
    # go: the editor showing the open file; the test button, and the same while it shows a run; the
    # output pane (`run` and `running` are the run button's, as for sql).
    editor: str | None = None
    binary_file: str | None = None  # go: a file of the project that is not UTF-8 text
    test: str | None = None
    test_running: str | None = None
    output: str | None = None


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

    def page_url(self, tool: str) -> str:
        """The tool's page, which every profile gives."""
        return self.url(self.tools[tool].page)

    def other_url(self, tool: str, which: str) -> str | None:
        """`which` page of the tool (other_page, empty_page), or None where the profile gives none."""
        reads_profile(which)
        path = getattr(self.tools[tool], which)
        return self.url(path) if path is not None else None

    def document(self, tool: str, which: str = "page") -> Document:
        """The document that `which` page of `tool` opens. A scenario that needs it is 未確認
        (skipped) where the profile does not say."""
        reads_profile("document" if which == "page" else which)
        key = DOCUMENT_OF[which]
        document = getattr(self.tools[tool], key)
        if document is None:
            pytest.skip(f"未確認: the profile gives no {key} for {tool}")
        return document

    def hook(self, tool: str, name: str) -> str:
        """The profile's `name` hook for `tool`; a scenario (or the part of it) that needs it is
        未確認 (skipped) where the profile gives none."""
        reads_profile(name)
        value = getattr(self.tools[tool], name)
        if value is None:
            pytest.skip(f"未確認: the profile gives no {name} for {tool}")
        return value


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
    named = data.get("ai_tools", [])
    if not isinstance(named, list) or not all(isinstance(tool, str) for tool in named):
        raise fail(f'ai_tools must be a list of tool names, e.g. ["slides"] (tools are {", ".join(TOOLS)})')
    unknown = [tool for tool in named if tool not in TOOLS]
    if unknown:
        raise fail(f"ai_tools names unknown tools {unknown} (tools are {', '.join(TOOLS)})")
    tools_data = data.get("tools")
    if not isinstance(tools_data, dict) or not tools_data:
        raise fail("needs a [tools.<tool>] table for each tool page")
    pages = {tool: _tool_pages(tool, entry, fail) for tool, entry in tools_data.items()}
    ai_tools = tuple(data.get("ai_tools", pages))
    missing = [tool for tool in ai_tools if tool not in pages]
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
        tools=pages,
        served=served,
    )


def _tool_pages(tool: str, entry, fail) -> ToolPages:
    if tool not in TOOLS:
        raise fail(f"unknown tool {tool!r} (tools are {', '.join(TOOLS)})")
    if not isinstance(entry, dict) or not isinstance(entry.get("page"), str):
        raise fail(f'[tools.{tool}] needs page = "/path"')
    hooks = [name for name, takers in HOOKS.items() if tool in takers]
    known = {"page", "document", "other_page", "other_document", "empty_page", *hooks}
    unknown = set(entry) - known
    if unknown:
        hint = "; title gave way to document = { name = ... }" if "title" in unknown else ""
        raise fail(f"[tools.{tool}] has unknown keys {sorted(unknown)} (known: {', '.join(sorted(known))}){hint}")
    for key in ("other_page", "empty_page"):
        if key in entry and not isinstance(entry[key], str):
            raise fail(f"[tools.{tool}] {key} must be a path string")
    if "other_document" in entry and "other_page" not in entry:
        raise fail(f"[tools.{tool}] gives other_document without other_page")
    values = dict(entry)
    for key in DOCUMENT_OF.values():
        if key in entry:
            values[key] = _document(tool, key, entry[key], fail)
    for name in hooks:
        value = entry.get(name)
        if value is None:
            continue
        several = name == "hold_loading" and isinstance(value, list) and value
        for one in value if several else [value]:
            if (
                not isinstance(one, str)
                or not one.strip()
                or (name == "hold_loading" and one not in HOLD_LOADING_KINDS and not any(c in one for c in "/*"))
            ):
                raise fail(f"[tools.{tool}] {name} must be {HOOK_HELP[name]}, not {value!r}")
        if several:
            values[name] = tuple(value)
    return ToolPages(**values)


def _document(tool: str, key: str, value, fail) -> Document:
    needed = ("id", "name") if tool in CANVAS_TOOLS else ("name",)
    form = '{ id = "...", name = "..." }' if tool in CANVAS_TOOLS else '{ name = "<embed id>" }'
    if (
        not isinstance(value, dict)
        or set(value) - {"id", "name"}
        or any(k not in value for k in needed)
        or not all(isinstance(v, str) and v for v in value.values())
    ):
        raise fail(f"[tools.{tool}] {key} must be {form} with non-empty strings, not {value!r}")
    return Document(**value)


def served_at(target: Target, origin: str, relay_port: int) -> Target:
    """The reference profile once the harness serves it at `origin`."""
    return Target(target.name, origin, origin, relay_port, target.ai_tools, target.tools, served=True)


def reference_as_real(base_url: str, relay_port: int, tools: tuple[str, ...]) -> str:
    """A profile of the reference served as a real playground is (`python -m harness serve`): not
    `served`, at `base_url`, its pages knowing one relay port, with only `tools`' sections."""
    text = (PROFILES / "reference.toml").read_text(encoding="utf-8")
    sections = re.split(r"(?m)^(?=\[tools\.)", text)[1:]
    kept = [section for section in sections if section.split("]")[0].removeprefix("[tools.") in tools]
    head = (
        f'name = "reference-as-real"\nbase_url = "{base_url}"\nwidget_origin = "{base_url}"\n'
        f"relay_port = {relay_port}\nai_tools = {json.dumps(list(tools))}\n\n"
    )
    return head + "".join(kept)


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
