"""The draw.io tool: the open diagram's XML."""

import secrets

from harness import schemas
from harness.tools import Tool

EMPTY_MODEL = '<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/></root></mxGraphModel>'


def vertex(cell_id: str, label: str, x: int = 40, y: int = 240) -> str:
    return (
        f'<mxCell id="{cell_id}" value="{label}" style="rounded=0;whiteSpace=wrap;html=1;" vertex="1" parent="1">'
        f'<mxGeometry x="{x}" y="{y}" width="140" height="60" as="geometry"/></mxCell>'
    )


def valid_input(op: schemas.Operation, client, marker: str) -> dict | None:
    if op.name == "drawio_write":
        return {"xml": EMPTY_MODEL.replace('id="1"', f'id="1" value="{marker}"')}
    if op.name == "drawio_add_cells":
        return {"cells": vertex(f"harness-{secrets.token_hex(4)}", marker)}
    return None


OPERATIONS = (
    schemas.Operation(
        "drawio_read",
        "drawio",
        "図の XML を返す",
        frozenset({schemas.READ_ONLY, schemas.UNTRUSTED}),
        schemas.obj(),
        schemas.ok({"document": schemas.DOCUMENT, "xml": schemas.STRING}),
        errors=("not_ready",),
    ),
    schemas.Operation(
        "drawio_add_cells",
        "drawio",
        "図に mxCell を足す",
        frozenset(),
        schemas.obj({"cells": schemas.STRING}, ("cells",)),
        schemas.ok({"count": {"type": "integer", "minimum": 0}}),
        errors=("invalid_input", "too_large", "not_ready"),
        example={
            "cells": '<mxCell id="harness-1" value="A" vertex="1" parent="1"><mxGeometry x="0" y="0" width="80" height="40" as="geometry"/></mxCell>'
        },
    ),
    schemas.Operation(
        "drawio_write",
        "drawio",
        "図の全体を、渡した XML に置き換える",
        frozenset({schemas.CONSEQUENTIAL}),
        schemas.obj({"xml": schemas.STRING}, ("xml",)),
        schemas.ONLY_OK,
        schemas.Confirmation("図「{name}」の全体を置き換える", "置き換える", detail_field="xml"),
        errors=("invalid_input", "too_large", "not_ready", "declined"),
        example={"xml": '<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/></root></mxGraphModel>'},
    ),
)


TOOL = Tool(
    name="drawio",
    order=6,
    canvas=True,
    operations=OPERATIONS,
    hooks=("hold_loading", "view"),
    valid_input=valid_input,
    # The whole XML as the text: a summary and a full text of markup, whatever it says.
    text_call=lambda text: ("drawio_write", {"xml": text}),
    kept_text_calls=lambda text: (("drawio_add_cells", {"cells": vertex("harness-kept", text)}), ("drawio_read", {})),
    failing_call=lambda: ("drawio_write", {"xml": "これは XML ではない"}),
    rules=(
        (
            "ADR",
            "Verification(draw.io)",
            (
                ("drawio.read", "drawio_read は document と xml を返す"),
                (
                    "drawio.add-cells",
                    "drawio_add_cells は今の XML に mxCell を足して load で読み込み直し、count を返す",
                ),
                ("drawio.cell-id-clash", "今の図にある id の mxCell は invalid_input"),
                ("drawio.write", "全体を置き換えた後に図を読むと、渡した XML だけが返る"),
                ("drawio.invalid-xml", "読めない XML は invalid_input で、図は変わらない"),
            ),
        ),
        (
            "DD",
            "入力と結果",
            (("drawio.write-result", "drawio_write の成功の結果は、ok のほかに項目を持たない(表の「無い」)"),),
        ),
    ),
)
