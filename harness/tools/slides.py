"""The slides editor (Marp): the open deck's Markdown and theme."""

from harness import schemas
from harness.tools import Tool


def valid_input(op: schemas.Operation, client, marker: str) -> dict | None:
    if op.name == "slides_write":
        return {"markdown": f"# {marker}\n\n本文の行\n\n---\n\n# 二枚目\n"}
    return None


def text_call(text: str):
    return "slides_write", {"markdown": text}


OPERATIONS = (
    schemas.Operation(
        "slides_read",
        "slides",
        "Markdown の全文、テーマ、枚数を返す",
        frozenset({schemas.READ_ONLY, schemas.UNTRUSTED}),
        schemas.obj(),
        schemas.ok(
            {
                "document": schemas.DOCUMENT,
                "markdown": schemas.STRING,
                "theme": schemas.STRING,
                "slideCount": {"type": "integer", "minimum": 0},
            }
        ),
        errors=("not_ready",),
    ),
    schemas.Operation(
        "slides_write",
        "slides",
        "Markdown の全文を置き換える",
        frozenset(),
        schemas.obj({"markdown": schemas.STRING}, ("markdown",)),
        schemas.ok({"slideCount": {"type": "integer", "minimum": 0}}),
        schemas.Confirmation("スライド「{name}」の全文を置き換える", "置き換える", detail_field="markdown"),
        errors=("invalid_input", "too_large", "not_ready", "declined"),
        example={"markdown": "# 一\n\n---\n\n# 二\n"},
    ),
    schemas.Operation(
        "slides_set_theme",
        "slides",
        "テーマを変える",
        frozenset(),
        schemas.obj({"theme": {"type": "string", "enum": schemas.FROM_EDITOR}}, ("theme",)),
        schemas.ok({"theme": schemas.STRING}),
        errors=("invalid_input", "not_ready"),
        example={"theme": ""},
    ),
)


TOOL = Tool(
    name="slides",
    order=4,
    canvas=True,
    operations=OPERATIONS,
    hooks=("hold_loading", "view", "theme_picker"),
    valid_input=valid_input,
    text_call=text_call,
    kept_text_calls=lambda text: (text_call(text), ("slides_read", {})),
    failing_call=lambda: ("slides_write", {"markdown": "x" * (schemas.ONE_MEGABYTE + 1)}),
    rules=(
        (
            "DD",
            "入力と結果(スライド)",
            (
                ("slides.read", "slides_read は document、markdown、theme、slideCount を返す"),
                ("slides.write", "slides_write は Markdown の全文を置き換え、slideCount を返す"),
                ("slides.theme-enum", "slides_set_theme の theme は、エディタのテーマの一覧から作った enum である"),
                ("slides.set-theme", "slides_set_theme はテーマを変え、theme を返す"),
            ),
        ),
    ),
)
