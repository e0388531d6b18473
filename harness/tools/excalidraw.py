"""The Excalidraw tool: the open drawing's elements."""

from harness import contract
from harness.tools import Tool


def valid_input(op: contract.Operation, client, marker: str) -> dict | None:
    if op.name == "excalidraw_add_elements":
        return {"elements": [{"type": "rectangle", "x": 0, "y": 0, "text": marker}]}
    if op.name == "excalidraw_update_element":
        elements = client.call("excalidraw_read").get("elements") or []
        assert elements, "the open drawing has no element to update"
        return {"id": elements[0]["id"], "x": 10}
    return None


def text_call(text: str):
    return "excalidraw_add_elements", {"elements": [{"type": "text", "x": 0, "y": 0, "text": text}]}


TOOL = Tool(
    name="excalidraw",
    order=5,
    canvas=True,
    hooks=("hold_loading", "view"),
    valid_input=valid_input,
    text_call=text_call,
    kept_text_calls=lambda text: (text_call(text), ("excalidraw_read", {})),
    failing_call=lambda: ("excalidraw_update_element", {"id": "no-such-element-harness", "x": 1}),
    rules=(("DD", "入力と結果(Excalidraw)", (
        ("excalidraw.read", "excalidraw_read の elements は id、type、x、y、width、height、text、strokeColor、backgroundColor と、矢印の from と to を持つ"),
        ("excalidraw.add", "excalidraw_add_elements は要素を足し、ids を返す"),
        ("excalidraw.arrows", "矢印は from と to で図形をつなぐ。同じ呼び出しの図形も指せる"),
        ("excalidraw.limit", "elements は 1 回に 200 個までで、超えると too_large"),
        ("excalidraw.id-clash", "id が今の要素か同じ呼び出しの要素と重なるときは invalid_input"),
        ("excalidraw.missing-target", "from と to が指す図形が無いときは not_found"),
        ("excalidraw.update", "excalidraw_update_element は位置、大きさ、色を変え、id を返す。無い id は not_found"),
        ("excalidraw.colors", "色は # と 6 桁の 16 進。backgroundColor は transparent も受け付ける"),
        ("excalidraw.clear", "excalidraw_clear は全ての要素を消し、count を返す"),
    )),),
)
