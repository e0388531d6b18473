"""The operation contract, declared once: the 23 operations of the Design Doc and ADR-0044.

Each tool's descriptor (harness/tools/<tool>.py) declares its operations with harness/schemas.py's
parts; this module gathers them and gives the parts by their old names. Scenarios and the report
read it; the reference playground never does, so a mistake here cannot pass on both sides at once.
"""

from __future__ import annotations

from harness import tools
from harness.schemas import (
    ANNOTATION_NAMES,
    CONSEQUENTIAL,
    ERROR_CODES,
    FAILURE,
    FROM_EDITOR,
    MAX_NEW_ELEMENTS,
    ONE_MEGABYTE,
    READ_ONLY,
    RUN_TIMEOUT,
    SQL_FAILURE,
    UNTRUSTED,
    Confirmation,
    Operation,
    assert_shape,
    schema_mismatches,
)

__all__ = [
    "ANNOTATION_NAMES",
    "CONSEQUENTIAL",
    "ERROR_CODES",
    "FAILURE",
    "FROM_EDITOR",
    "MAX_NEW_ELEMENTS",
    "ONE_MEGABYTE",
    "READ_ONLY",
    "RUN_TIMEOUT",
    "SQL_FAILURE",
    "UNTRUSTED",
    "Confirmation",
    "Operation",
    "assert_shape",
    "by_name",
    "confirming",
    "names",
    "names_of",
    "operations",
    "operations_of",
    "reader_of",
    "schema_mismatches",
]


def operations() -> tuple[Operation, ...]:
    return tuple(op for tool in tools.TOOLS.values() for op in tool.operations)


def by_name(name: str) -> Operation:
    return next(op for op in operations() if op.name == name)


def names() -> set[str]:
    return {op.name for op in operations()}


def operations_of(tool: str) -> list[Operation]:
    return list(tools.of(tool).operations)


def names_of(tool: str) -> set[str]:
    return {op.name for op in operations_of(tool)}


def reader_of(tool: str) -> Operation:
    """The tool's first read-only operation: every tool has one, and it never asks a person."""
    return next(op for op in operations_of(tool) if READ_ONLY in op.annotations)


def confirming(tool: str | None = None) -> list[Operation]:
    return [op for op in operations() if op.confirmation and (tool is None or op.tool == tool)]
