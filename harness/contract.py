"""The operation contract, declared once: the 23 operations of the Design Doc and ADR-0044.

Names, tools, annotations (ADR-0044 Decision 4), input schemas (Design Doc 入力と結果),
success-result schemas, confirmations (Design Doc 確認の画面) and the error codes. Scenarios and
the report read it; the reference playground never does, so a mistake here cannot pass on
both sides at once.
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


def _obj(properties: dict[str, Any] | None = None, required: tuple[str, ...] = ()) -> dict:
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
NEW_ELEMENT = _obj(
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

DOCUMENT = _obj({"id": STRING, "name": STRING}, ("id", "name"))
ENTRY = _obj({"path": STRING, "kind": {"enum": ["file", "directory"]}}, ("path", "kind"))
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
}

# sql_run_query's failure (Design Doc SQL だけを動かすツールの操作): sqlState and position beside
# error, never inside it; each one only where Postgres gave it.
SQL_FAILURE = {
    "type": "object",
    "properties": {
        "ok": {"const": False},
        "error": {"type": "object", "properties": {"code": {"const": "failed"}, "message": {"type": "string"}},
                  "required": ["code", "message"],
                  "not": {"anyOf": [{"required": ["sqlState"]}, {"required": ["position"]}]}},
        "sqlState": {"type": "string", "pattern": "^[0-9A-Z]{5}$"},
        "position": {"type": "integer", "minimum": 1},
    },
    "required": ["ok", "error"],
}


def _ok(properties: dict[str, Any] | None = None) -> dict:
    props = {"ok": {"const": True}, **(properties or {})}
    return {"type": "object", "properties": props, "required": list(props)}


# 結果の表: drawio_write の、ok のほかの項目は「無い」.
ONLY_OK = {**_ok(), "additionalProperties": False}
ENTRIES_RESULT = _ok({"entries": {"type": "array", "items": ENTRY, "maxItems": 1000}, "truncated": BOOLEAN})
RUN_RESULT = _ok({"exitCode": {"type": "integer"}, "output": {"type": "string", "maxLength": 100000}, "truncated": BOOLEAN})


@dataclass(frozen=True)
class Confirmation:
    title: str  # with {name} (the open document) or {path} (the file)
    action_label: str
    detail_field: str | None = None  # the input whose full text the Disclosure shows

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

    def assert_success(self, result: dict) -> None:
        """`result` is a success of this operation with its result shape (an AssertionError if not)."""
        assert result.get("ok") is True, f"{self.name} answered {result}"
        error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(self.result_schema).iter_errors(result))
        if error is not None:
            where = "/".join(map(str, error.absolute_path)) or "the top"
            raise AssertionError(f"{self.name}'s result is not its success shape at {where}: {error.message}")


FILE_OPS = {
    "list_files": ("ファイルの一覧を返す", {READ_ONLY}, _obj({"path": STRING}), ENTRIES_RESULT),
    "read_file": ("ファイルの中身を返す", {READ_ONLY, UNTRUSTED}, _obj({"path": STRING}, ("path",)), _ok({"path": STRING, "contents": STRING})),
    "write_file": ("ファイルを書く", set(), _obj({"path": STRING, "contents": STRING}, ("path", "contents")), _ok({"path": STRING})),
    "delete_file": ("ファイルを消す", {CONSEQUENTIAL}, _obj({"path": STRING}, ("path",)), _ok({"path": STRING})),
}


# The list's example lists the whole tree (a path names a directory that may not exist).
FILE_EXAMPLES = {"list_files": {}, "write_file": {"path": "harness.txt", "contents": "x"}}


def _file_ops(tool: str) -> list[Operation]:
    return [
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
    ]


OPERATIONS: tuple[Operation, ...] = (
    Operation("slides_read", "slides", "Markdown の全文、テーマ、枚数を返す", frozenset({READ_ONLY, UNTRUSTED}), _obj(),
              _ok({"document": DOCUMENT, "markdown": STRING, "theme": STRING, "slideCount": {"type": "integer", "minimum": 0}}),
              errors=("not_ready",)),
    Operation("slides_write", "slides", "Markdown の全文を置き換える", frozenset(), _obj({"markdown": STRING}, ("markdown",)),
              _ok({"slideCount": {"type": "integer", "minimum": 0}}),
              Confirmation("スライド「{name}」の全文を置き換える", "置き換える", detail_field="markdown"),
              errors=("invalid_input", "too_large", "not_ready", "declined"),
              example={"markdown": "# 一\n\n---\n\n# 二\n"}),
    Operation("slides_set_theme", "slides", "テーマを変える", frozenset(), _obj({"theme": {"type": "string", "enum": FROM_EDITOR}}, ("theme",)),
              _ok({"theme": STRING}), errors=("invalid_input", "not_ready"),
              example={"theme": ""}),
    Operation("excalidraw_read", "excalidraw", "要素の一覧を返す", frozenset({READ_ONLY, UNTRUSTED}), _obj(),
              _ok({"document": DOCUMENT, "elements": {"type": "array", "items": ELEMENT}}), errors=("not_ready",)),
    Operation("excalidraw_add_elements", "excalidraw", "図形、文字、図形をつなぐ矢印を足す", frozenset(),
              _obj({"elements": {"type": "array", "items": NEW_ELEMENT}}, ("elements",)),
              _ok({"ids": {"type": "array", "items": STRING}}),
              errors=("invalid_input", "not_found", "too_large", "not_ready"),
              example={"elements": [{"type": "rectangle", "x": 0, "y": 0}]}),
    Operation("excalidraw_update_element", "excalidraw", "指定した要素の位置、大きさ、色を変える", frozenset(),
              _obj({"id": STRING, "x": NUMBER, "y": NUMBER, "width": NUMBER, "height": NUMBER,
                    "strokeColor": COLOUR, "backgroundColor": BACKGROUND}, ("id",)),
              _ok({"id": STRING}), errors=("invalid_input", "not_found", "not_ready"),
              example={"id": "missing", "x": 1}),
    Operation("excalidraw_clear", "excalidraw", "全ての要素を消す", frozenset({CONSEQUENTIAL}), _obj(),
              _ok({"count": {"type": "integer", "minimum": 0}}),
              Confirmation("図「{name}」の全ての要素を削除する", "削除する"), errors=("not_ready", "declined")),
    Operation("drawio_read", "drawio", "図の XML を返す", frozenset({READ_ONLY, UNTRUSTED}), _obj(),
              _ok({"document": DOCUMENT, "xml": STRING}), errors=("not_ready",)),
    Operation("drawio_add_cells", "drawio", "図に mxCell を足す", frozenset(), _obj({"cells": STRING}, ("cells",)),
              _ok({"count": {"type": "integer", "minimum": 0}}), errors=("invalid_input", "too_large", "not_ready"),
              example={"cells": '<mxCell id="harness-1" value="A" vertex="1" parent="1"><mxGeometry x="0" y="0" width="80" height="40" as="geometry"/></mxCell>'}),
    Operation("drawio_write", "drawio", "図の全体を、渡した XML に置き換える", frozenset({CONSEQUENTIAL}), _obj({"xml": STRING}, ("xml",)),
              ONLY_OK, Confirmation("図「{name}」の全体を置き換える", "置き換える", detail_field="xml"),
              errors=("invalid_input", "too_large", "not_ready", "declined"),
              example={"xml": '<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/></root></mxGraphModel>'}),
    *_file_ops("node"),
    Operation("node_run_command", "node", "コマンドを実行し、終了コードと出力を返す", frozenset({CONSEQUENTIAL, UNTRUSTED}),
              _obj({"command": STRING, "args": {"type": "array", "items": STRING}, "timeoutMs": TIMEOUT_MS}, ("command",)),
              RUN_RESULT, errors=("not_ready", "timeout"),
              example={"command": "node", "args": ["-v"]}),
    Operation("sql_read_query", "sql", "入力欄の SQL を返す", frozenset({READ_ONLY, UNTRUSTED}), _obj(), _ok({"sql": STRING}),
              errors=("not_ready",)),
    Operation("sql_run_query", "sql", "渡した SQL を実行し、結果を返す", frozenset({CONSEQUENTIAL, UNTRUSTED}),
              _obj({"sql": STRING, "timeoutMs": TIMEOUT_MS}, ("sql",)),
              _ok({"results": {"type": "array", "items": SQL_RESULT}, "ms": NUMBER}),
              errors=("not_ready", "timeout", "failed", "too_large"),
              example={"sql": "select 1"}),
    *_file_ops("go"),
    Operation("go_run", "go", "ファイルを実行し、終了コードと出力を返す", frozenset({CONSEQUENTIAL, UNTRUSTED}),
              _obj({"timeoutMs": TIMEOUT_MS}), RUN_RESULT, errors=("not_ready", "timeout", "failed")),
    Operation("go_test", "go", "テストを実行し、終了コードと出力を返す", frozenset({CONSEQUENTIAL, UNTRUSTED}),
              _obj({"timeoutMs": TIMEOUT_MS}), RUN_RESULT, errors=("not_ready", "timeout", "failed")),
)

BY_NAME: dict[str, Operation] = {op.name: op for op in OPERATIONS}
assert len(OPERATIONS) == 23 and len(BY_NAME) == 23


def operations_of(tool: str) -> list[Operation]:
    return [op for op in OPERATIONS if op.tool == tool]


def names_of(tool: str) -> set[str]:
    return {op.name for op in operations_of(tool)}


def reader_of(tool: str) -> Operation:
    """The tool's first read-only operation: every tool has one, and it never asks a person."""
    return next(op for op in operations_of(tool) if READ_ONLY in op.annotations)


def confirming(tool: str | None = None) -> list[Operation]:
    return [op for op in OPERATIONS if op.confirmation and (tool is None or op.tool == tool)]


# Values a leaf of an input schema is tried with: two schemas that accept and refuse the same of
# these agree, whatever words they use (a pattern written another way, anyOf or one pattern).
# The empty string is not among them: a page may refuse an empty id or path the type allows.
PROBES = {
    "string": ["abc", "#000000", "#a1B2c3", "#FFFFFF", "red", "#fff", "#12345g", "#1234567", "transparent",
               "Transparent", " #abcdef", "#abcdef "],
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
            problems.append(f"{where}: required {sorted(registered.get('required', []))}, expected {sorted(declared.get('required', []))}")
        for key in set(want) & set(got):
            problems += schema_mismatches(want[key], got[key], f"{where}.{key}")
        return problems
    if declared.get("type") == "array":
        return problems + schema_mismatches(declared.get("items", {}), registered.get("items", {}), f"{where}[]")
    probes = [*PROBES.get(declared.get("type"), []), *(declared.get("enum") or [])]
    differ = [value for value in probes if _accepts(declared, value) != _accepts(registered, value)]
    if differ:
        problems.append(f"{where}: accepts {[v for v in differ if _accepts(registered, v)]!r} and refuses "
                        f"{[v for v in differ if not _accepts(registered, v)]!r} unlike the contract")
    return problems
