"""Inputs for calling an operation on the open document: one place for what "a valid call" is.

`valid_input` gives an input that passes the operation's schema and its check on the page's
open document, reading through the client what it needs (the registered theme enum, an element
that exists, a file to delete). A valid call of a confirming operation opens its dialog.
"""

from __future__ import annotations

import secrets

from harness import contract

EMPTY_DRAWIO_MODEL = '<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/></root></mxGraphModel>'


def drawio_vertex(cell_id: str, label: str, x: int = 40, y: int = 240) -> str:
    return (f'<mxCell id="{cell_id}" value="{label}" style="rounded=0;whiteSpace=wrap;html=1;" vertex="1" parent="1">'
            f'<mxGeometry x="{x}" y="{y}" width="140" height="60" as="geometry"/></mxCell>')


def registered_enum(client, name: str, field: str) -> list[str]:
    info = next(info for info in client.tools() if info.name == name)
    return list(info.input_schema["properties"][field].get("enum") or [])


def valid_input(op: contract.Operation, client, marker: str = "harness") -> dict:
    """An input that passes `op`'s schema and check on the document the client's page has open."""
    name = op.name
    if name == "slides_write":
        return {"markdown": f"# {marker}\n\n本文の行\n\n---\n\n# 二枚目\n"}
    if name == "drawio_write":
        return {"xml": EMPTY_DRAWIO_MODEL.replace('id="1"', f'id="1" value="{marker}"')}
    if name == "drawio_add_cells":
        return {"cells": drawio_vertex(f"harness-{secrets.token_hex(4)}", marker)}
    if name == "slides_set_theme":
        themes = registered_enum(client, name, "theme")
        assert themes, "slides_set_theme registered no theme enum"
        return {"theme": themes[0]}
    if name == "excalidraw_add_elements":
        return {"elements": [{"type": "rectangle", "x": 0, "y": 0, "text": marker}]}
    if name == "excalidraw_update_element":
        elements = client.call("excalidraw_read").get("elements") or []
        assert elements, "the open drawing has no element to update"
        return {"id": elements[0]["id"], "x": 10}
    if name.endswith("_delete_file"):
        listed = client.call(f"{op.tool}_list_files", {})
        files = [entry["path"] for entry in listed.get("entries", []) if entry["kind"] == "file"]
        assert files, f"{op.tool}: no file to delete in {listed}"
        return {"path": files[0]}
    return dict(op.example)
