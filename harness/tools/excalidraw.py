"""The Excalidraw tool: the open drawing's elements."""

from harness import schemas
from harness.tools import Tool


def valid_input(op: schemas.Operation, client, marker: str) -> dict | None:
    if op.name == "excalidraw_add_elements":
        return {"elements": [{"type": "rectangle", "x": 0, "y": 0, "text": marker}]}
    if op.name == "excalidraw_update_element":
        elements = client.call("excalidraw_read").get("elements") or []
        assert elements, "the open drawing has no element to update"
        return {"id": elements[0]["id"], "x": 10}
    return None


def text_call(text: str):
    return "excalidraw_add_elements", {"elements": [{"type": "text", "x": 0, "y": 0, "text": text}]}


OPERATIONS = (
    schemas.Operation(
        "excalidraw_read",
        "excalidraw",
        "要素の一覧を返す",
        frozenset({schemas.READ_ONLY, schemas.UNTRUSTED}),
        schemas.obj(),
        schemas.ok({"document": schemas.DOCUMENT, "elements": {"type": "array", "items": schemas.ELEMENT}}),
        errors=("not_ready",),
    ),
    schemas.Operation(
        "excalidraw_add_elements",
        "excalidraw",
        "図形、文字、図形をつなぐ矢印を足す",
        frozenset(),
        schemas.obj({"elements": {"type": "array", "items": schemas.NEW_ELEMENT}}, ("elements",)),
        schemas.ok({"ids": {"type": "array", "items": schemas.STRING}}),
        errors=("invalid_input", "not_found", "too_large", "not_ready"),
        example={"elements": [{"type": "rectangle", "x": 0, "y": 0}]},
    ),
    schemas.Operation(
        "excalidraw_update_element",
        "excalidraw",
        "指定した要素の位置、大きさ、色を変える",
        frozenset(),
        schemas.obj(
            {
                "id": schemas.STRING,
                "x": schemas.NUMBER,
                "y": schemas.NUMBER,
                "width": schemas.NUMBER,
                "height": schemas.NUMBER,
                "strokeColor": schemas.COLOUR,
                "backgroundColor": schemas.BACKGROUND,
            },
            ("id",),
        ),
        schemas.ok({"id": schemas.STRING}),
        errors=("invalid_input", "not_found", "not_ready"),
        example={"id": "missing", "x": 1},
    ),
    schemas.Operation(
        "excalidraw_clear",
        "excalidraw",
        "全ての要素を消す",
        frozenset({schemas.CONSEQUENTIAL}),
        schemas.obj(),
        schemas.ok({"count": {"type": "integer", "minimum": 0}}),
        schemas.Confirmation("図「{name}」の全ての要素を削除する", "削除する", counts=("excalidraw_read", "elements")),
        errors=("not_ready", "declined"),
    ),
)


TOOL = Tool(
    name="excalidraw",
    order=5,
    canvas=True,
    operations=OPERATIONS,
    hooks=("hold_loading", "view"),
    valid_input=valid_input,
    text_call=text_call,
    kept_text_calls=lambda text: (text_call(text), ("excalidraw_read", {})),
    failing_call=lambda: ("excalidraw_update_element", {"id": "no-such-element-harness", "x": 1}),
    rules=(
        (
            "DD",
            "入力と結果(Excalidraw)",
            (
                (
                    "excalidraw.read",
                    "excalidraw_read の elements は id、type、x、y、width、height、text、strokeColor、backgroundColor と、矢印の from と to を持つ",
                ),
                ("excalidraw.add", "excalidraw_add_elements は要素を足し、ids を返す"),
                ("excalidraw.arrows", "矢印は from と to で図形をつなぐ。同じ呼び出しの図形も指せる"),
                ("excalidraw.limit", "elements は 1 回に 200 個までで、超えると too_large"),
                ("excalidraw.id-clash", "id が今の要素か同じ呼び出しの要素と重なるときは invalid_input"),
                ("excalidraw.missing-target", "from と to が指す図形が無いときは not_found"),
                (
                    "excalidraw.update",
                    "excalidraw_update_element は位置、大きさ、色を変え、id を返す。無い id は not_found",
                ),
                ("excalidraw.colors", "色は # と 6 桁の 16 進。backgroundColor は transparent も受け付ける"),
                ("excalidraw.clear", "excalidraw_clear は全ての要素を消し、count を返す"),
            ),
        ),
    ),
)
