"""The slides editor (Marp): the open deck's Markdown and theme."""

from harness import contract
from harness.tools import Tool


def registered_enum(client, name: str, field: str) -> list[str]:
    info = next(info for info in client.tools() if info.name == name)
    return list(info.input_schema["properties"][field].get("enum") or [])


def valid_input(op: contract.Operation, client, marker: str) -> dict | None:
    if op.name == "slides_write":
        return {"markdown": f"# {marker}\n\n本文の行\n\n---\n\n# 二枚目\n"}
    if op.name == "slides_set_theme":
        themes = registered_enum(client, op.name, "theme")
        assert themes, "slides_set_theme registered no theme enum"
        return {"theme": themes[0]}
    return None


def text_call(text: str):
    return "slides_write", {"markdown": text}


TOOL = Tool(
    name="slides",
    order=4,
    canvas=True,
    hooks=("hold_loading", "view", "theme_picker"),
    valid_input=valid_input,
    text_call=text_call,
    kept_text_calls=lambda text: (text_call(text), ("slides_read", {})),
    failing_call=lambda: ("slides_write", {"markdown": "x" * (contract.ONE_MEGABYTE + 1)}),
    rules=(("DD", "入力と結果(スライド)", (
        ("slides.read", "slides_read は document、markdown、theme、slideCount を返す"),
        ("slides.write", "slides_write は Markdown の全文を置き換え、slideCount を返す"),
        ("slides.theme-enum", "slides_set_theme の theme は、エディタのテーマの一覧から作った enum である"),
        ("slides.set-theme", "slides_set_theme はテーマを変え、theme を返す"),
    )),),
)
