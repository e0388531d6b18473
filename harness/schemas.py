"""What the contract is made of: what an operation is — its name, tool, annotations (ADR-0044
Decision 4), input schema (Design Doc 入力と結果), success-result schema and confirmation (Design
Doc 確認の画面) — the shapes they are built of, the error codes and the failures' shapes. Each tool's
descriptor (harness/tools/<tool>.py) declares its operations with these; harness/contract.py
gathers them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jsonschema

ERROR_CODES = ("invalid_input", "not_found", "too_large", "not_ready", "declined", "timeout", "failed")

READ_ONLY = "readOnlyHint"
UNTRUSTED = "untrustedContentHint"
CONSEQUENTIAL = "consequentialHint"
ANNOTATION_NAMES = (READ_ONLY, UNTRUSTED, CONSEQUENTIAL)

ONE_MEGABYTE = 1024 * 1024
MAX_NEW_ELEMENTS = 200
# Where the spec builds an enum from the tool (slides_set_theme's themes), the contract says so
# instead of listing values: the Design Doc forbids writing theme names down.
FROM_EDITOR = "from-editor"


def obj(properties: dict[str, Any] | None = None, required: tuple[str, ...] = ()) -> dict:
    return {
        "type": "object",
        "properties": properties or {},
        "required": list(required),
        "additionalProperties": False,
    }


STRING = {"type": "string"}
NUMBER = {"type": "number"}
BOOLEAN = {"type": "boolean"}
TIMEOUT_MS = {"type": "integer", "minimum": 1000, "maximum": 120000}
COLOUR = {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"}
BACKGROUND = {"type": "string", "anyOf": [{"pattern": "^#[0-9a-fA-F]{6}$"}, {"const": "transparent"}]}
NEW_ELEMENT = obj(
    {
        "type": {"type": "string", "enum": ["rectangle", "ellipse", "diamond", "text", "arrow"]},
        "x": NUMBER,
        "y": NUMBER,
        "id": STRING,
        "width": NUMBER,
        "height": NUMBER,
        "text": STRING,
        "from": STRING,
        "to": STRING,
    },
    ("type", "x", "y"),
)

DOCUMENT = obj({"id": STRING, "name": STRING}, ("id", "name"))  # exactly its two fields
ENTRY = obj({"path": STRING, "kind": {"enum": ["file", "directory"]}}, ("path", "kind"))
ELEMENT = {
    "type": "object",
    "properties": {
        "id": STRING,
        "type": STRING,
        "x": NUMBER,
        "y": NUMBER,
        "width": NUMBER,
        "height": NUMBER,
        "text": {"type": ["string", "null"]},
        "strokeColor": STRING,
        "backgroundColor": STRING,
        "from": {"type": ["string", "null"]},
        "to": {"type": ["string", "null"]},
    },
    "required": ["id", "type", "x", "y", "width", "height", "text", "strokeColor", "backgroundColor"],
    "additionalProperties": False,  # the Design Doc's list of an element's fields
}
SQL_RESULT = {
    "type": "object",
    "properties": {
        "fields": {"type": "array"},
        "rows": {"type": "array", "maxItems": 200},
        "affectedRows": {"type": ["integer", "null"]},
        "totalRows": {"type": "integer"},
        "truncated": BOOLEAN,
    },
    "required": ["fields", "rows", "affectedRows", "totalRows", "truncated"],
    "additionalProperties": False,  # SqlResult's fields, no more
}

# sql_run_query's failure (Design Doc SQL だけを動かすツールの操作): sqlState and position beside
# error, never inside it; each one only where Postgres gave it.
SQL_FAILURE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ok": {"const": False},
        "error": {
            "type": "object",
            "properties": {"code": {"const": "failed"}, "message": {"type": "string"}},
            "required": ["code", "message"],
            "additionalProperties": False,
        },
        "sqlState": {"type": "string", "pattern": "^[0-9A-Z]{5}$"},
        "position": {"type": "integer", "minimum": 1},
    },
    "required": ["ok", "error"],
    "additionalProperties": False,
}
# Any failure (Design Doc 結果の形): error holds its code and message, nothing else.
FAILURE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ok": {"const": False},
        "error": {
            "type": "object",
            "properties": {"code": {"enum": list(ERROR_CODES)}, "message": {"type": "string", "minLength": 1}},
            "required": ["code", "message"],
            "additionalProperties": False,
        },
    },
    "required": ["ok", "error"],
}
# A run's timeout (node_run_command, go_run, go_test): besides error, the output until then and truncated.
RUN_TIMEOUT = {
    **FAILURE,
    "properties": {**FAILURE["properties"], "output": {"type": "string", "maxLength": 100000}, "truncated": BOOLEAN},
    "required": ["ok", "error", "output", "truncated"],
    "additionalProperties": False,
}


def ok(properties: dict[str, Any] | None = None) -> dict:
    """A success: ok and exactly the operation's fields (成功のときの結果は、ok のほかに、次の項目を持つ)."""
    props = {"ok": {"const": True}, **(properties or {})}
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


# 結果の表: drawio_write の、ok のほかの項目は「無い」.
ONLY_OK = ok()
ENTRIES_RESULT = ok({"entries": {"type": "array", "items": ENTRY, "maxItems": 1000}, "truncated": BOOLEAN})
RUN_RESULT = ok(
    {"exitCode": {"type": "integer"}, "output": {"type": "string", "maxLength": 100000}, "truncated": BOOLEAN}
)


@dataclass(frozen=True)
class Confirmation:
    title: str  # with {name} (the open document) or {path} (the file)
    action_label: str
    detail_field: str | None = None  # the input whose full text the Disclosure shows
    # The body's summary gives how many it deletes: (the read, its list), e.g. the drawing's elements.
    counts: tuple[str, str] | None = None

    def title_for(self, **values: str) -> str:
        return self.title.format(**values)


@dataclass(frozen=True)
class Operation:
    name: str
    tool: str
    summary: str  # 行うこと, from the Design Doc's table
    annotations: frozenset[str]
    input_schema: dict
    result_schema: dict
    confirmation: Confirmation | None = None
    errors: tuple[str, ...] = field(default=())  # codes the spec names for this operation
    example: dict = field(default_factory=dict)  # an input of the right shape (its targets may not exist)

    @property
    def asks(self) -> Confirmation:
        """Its confirmation: for an operation that asks for one (contract.confirming)."""
        assert self.confirmation is not None, f"{self.name} asks for no confirmation"
        return self.confirmation

    def assert_success(self, result: dict) -> None:
        """`result` is a success of this operation with its result shape (an AssertionError if not)."""
        assert result.get("ok") is True, f"{self.name} answered {result}"
        assert_shape(self.result_schema, result, f"{self.name}'s result is not its success shape")


def assert_shape(schema: dict, value: Any, what: str) -> None:
    """`value` has the shape `schema` gives (an AssertionError naming where it does not)."""
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(value))
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "the top"
        raise AssertionError(f"{what} at {where}: {error.message}")


FILE_OPS = {
    "list_files": ("ファイルの一覧を返す", {READ_ONLY}, obj({"path": STRING}), ENTRIES_RESULT),
    "read_file": (
        "ファイルの中身を返す",
        {READ_ONLY, UNTRUSTED},
        obj({"path": STRING}, ("path",)),
        ok({"path": STRING, "contents": STRING}),
    ),
    "write_file": (
        "ファイルを書く",
        set(),
        obj({"path": STRING, "contents": STRING}, ("path", "contents")),
        ok({"path": STRING}),
    ),
    "delete_file": ("ファイルを消す", {CONSEQUENTIAL}, obj({"path": STRING}, ("path",)), ok({"path": STRING})),
}


# The list's example lists the whole tree (a path names a directory that may not exist).
FILE_EXAMPLES = {"list_files": {}, "write_file": {"path": "harness.txt", "contents": "x"}}


def file_operations(tool: str) -> tuple[Operation, ...]:
    """The four file operations node and go share (their names, inputs and results alike)."""
    return tuple(
        Operation(
            f"{tool}_{suffix}",
            tool,
            summary,
            frozenset(annotations),
            schema,
            result,
            Confirmation("ファイル「{path}」を削除する", "削除する") if suffix == "delete_file" else None,
            example=FILE_EXAMPLES.get(suffix, {"path": "harness.txt"}),
        )
        for suffix, (summary, annotations, schema, result) in FILE_OPS.items()
    )


# Values a leaf of an input schema is tried with: two schemas that accept and refuse the same of
# these agree, whatever words they use (a pattern written another way, anyOf or one pattern).
# The empty string is not among them: a page may refuse an empty id or path the type allows.
PROBES: dict[str, list[Any]] = {
    "string": [
        "abc",
        "#000000",
        "#a1B2c3",
        "#FFFFFF",
        "red",
        "#fff",
        "#12345g",
        "#1234567",
        "transparent",
        "Transparent",
        " #abcdef",
        "#abcdef ",
    ],
    "number": [-1, 0, 1.5, 999, 1000, 120000, 120001, 10**9],
    "integer": [-1, 0, 999, 1000, 1000.5, 30000, 120000, 120001],
    "boolean": [True, False],
}


def _accepts(schema: dict, value: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


def schema_mismatches(declared: dict, registered: dict, where: str = "inputSchema") -> list[str]:
    """Differences between the contract's schema and the one a page registered.

    The page may say more (descriptions, titles) and say it its own way; it must not accept more
    or require less. Objects and arrays are compared by structure, leaves by what they accept.
    """
    problems: list[str] = []
    if declared.get("enum") == FROM_EDITOR:
        if not registered.get("enum"):
            problems.append(f"{where}: must be an enum built from the editor's list")
        return problems
    if declared.get("type") != registered.get("type") and not ("type" not in declared and "enum" in declared):
        problems.append(f"{where}: type {registered.get('type')!r}, expected {declared.get('type')!r}")
    if declared.get("type") == "object":
        if registered.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties must be false")
        want, got = declared.get("properties", {}), registered.get("properties", {})
        if set(want) != set(got):
            problems.append(f"{where}: properties {sorted(got)}, expected {sorted(want)}")
        if sorted(declared.get("required", [])) != sorted(registered.get("required", [])):
            problems.append(
                f"{where}: required {sorted(registered.get('required', []))}, expected {sorted(declared.get('required', []))}"
            )
        for key in set(want) & set(got):
            problems += schema_mismatches(want[key], got[key], f"{where}.{key}")
        return problems
    if declared.get("type") == "array":
        return problems + schema_mismatches(declared.get("items", {}), registered.get("items", {}), f"{where}[]")
    probes = [*PROBES.get(str(declared.get("type")), []), *(declared.get("enum") or [])]
    differ = [value for value in probes if _accepts(declared, value) != _accepts(registered, value)]
    if differ:
        problems.append(
            f"{where}: accepts {[v for v in differ if _accepts(registered, v)]!r} and refuses "
            f"{[v for v in differ if not _accepts(registered, v)]!r} unlike the contract"
        )
    return problems
