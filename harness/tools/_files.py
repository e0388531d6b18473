"""What the tools with files (node, go) share: their file operations' example calls."""

from __future__ import annotations

from harness import schemas
from harness.tools import Call

FILE = "harness.txt"
MISSING = "no-such-file-harness.txt"


def valid_input(op: schemas.Operation, client, marker: str) -> dict | None:
    """Reading and deleting take a file the project has (the first one listed; for a read, the first
    one that reads as text: a project may hold files that are not); a write writes the marker."""
    if op.name.endswith("_write_file"):
        return {"path": FILE, "contents": marker}
    if op.name.endswith(("_read_file", "_delete_file")):
        listed = client.call(f"{op.tool}_list_files", {})
        files = [entry["path"] for entry in listed.get("entries", []) if entry["kind"] == "file"]
        if op.name.endswith("_read_file"):
            files = [next((path for path in files if client.call(op.name, {"path": path}).get("ok")), None)]
        assert files and files[0], f"{op.tool}: no file to {op.name.rsplit('_', 2)[1]} in {listed}"
        return {"path": files[0]}
    return None


def text_call(tool: str, text: str) -> Call:
    return f"{tool}_write_file", {"path": FILE, "contents": text}


def kept_text_calls(tool: str, text: str) -> tuple[Call, Call]:
    return text_call(tool, text), (f"{tool}_read_file", {"path": FILE})


def failing_call(tool: str) -> Call:
    return f"{tool}_read_file", {"path": MISSING}
