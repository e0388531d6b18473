"""The Excalidraw tool's operations (Design Doc 操作の一覧, 入力と結果)."""

import time

import pytest

from harness import contract

pytestmark = pytest.mark.tool("excalidraw")


def canvas_image(tool_page) -> bytes:
    """What the user sees of the drawing: a screenshot of the page's main area, once it is still."""
    main = tool_page.page.get_by_role("main")
    shot = main.screenshot(animations="disabled")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        again = main.screenshot(animations="disabled")
        if again == shot:
            return shot
        shot = again
    return shot


def assert_canvas_changes(tool_page, before: bytes, what: str) -> None:
    main = tool_page.page.get_by_role("main")
    deadline = time.monotonic() + 10
    while main.screenshot(animations="disabled") == before:
        assert time.monotonic() < deadline, f"the canvas shows no change after {what}"


def by_id(read: dict) -> dict:
    return {el["id"]: el for el in read["elements"]}


def first_shape(read: dict) -> dict:
    return next(el for el in read["elements"] if el["type"] in ("rectangle", "ellipse", "diamond"))


@pytest.mark.rules("excalidraw.read", "canvas.open-document")
def test_read_lists_elements_with_every_field(agent):
    """excalidraw_read の elements の要素は、id、type、x、y、width、height、text、strokeColor、backgroundColor を持つ。"""
    read = agent.read()
    assert read["elements"], "the open drawing has elements, excalidraw_read listed none"
    fields = {"id", "type", "x", "y", "width", "height", "text", "strokeColor", "backgroundColor"}
    for el in read["elements"]:
        assert fields <= set(el), f"element lacks {sorted(fields - set(el))}: {el}"
        if el["type"] == "arrow":
            assert {"from", "to"} <= set(el), f"arrow lacks from/to: {el}"


@pytest.mark.rules("excalidraw.add", "excalidraw.read")
def test_added_shapes_and_text_are_read_back_and_drawn(agent, tool_page):
    """excalidraw_add_elements は図形と文字を足し、ids を返す。足した要素は読み取りに出て、画面に描かれる。"""
    before = canvas_image(tool_page)
    added = agent.ok("excalidraw_add_elements", {"elements": [
        {"type": "rectangle", "x": 400, "y": 120, "width": 120, "height": 60, "text": "足した四角"},
        {"type": "ellipse", "x": 400, "y": 220},
        {"type": "diamond", "x": 560, "y": 220, "id": "harness-diamond"},
        {"type": "text", "x": 560, "y": 120, "text": "足した文字"},
    ]})
    ids = added["ids"]
    assert len(ids) == 4 and len(set(ids)) == 4 and ids[2] == "harness-diamond", added
    elements = by_id(agent.read())
    assert [elements[i]["type"] for i in ids] == ["rectangle", "ellipse", "diamond", "text"]
    assert (elements[ids[0]]["x"], elements[ids[0]]["y"], elements[ids[0]]["width"], elements[ids[0]]["height"]) == (400, 120, 120, 60)
    assert elements[ids[0]]["text"] == "足した四角" and elements[ids[3]]["text"] == "足した文字"
    assert_canvas_changes(tool_page, before, "excalidraw_add_elements")


@pytest.mark.rules("excalidraw.arrows", "excalidraw.read")
def test_arrow_connects_shapes_of_the_same_call(agent):
    """矢印は、from と to に図形の識別子を渡すと、図形をつなぐ。同じ呼び出しで足す図形の id も指せる。"""
    added = agent.ok("excalidraw_add_elements", {"elements": [
        {"type": "rectangle", "x": 400, "y": 400, "id": "harness-a"},
        {"type": "ellipse", "x": 700, "y": 400, "id": "harness-b"},
        {"type": "arrow", "x": 560, "y": 440, "id": "harness-ab", "from": "harness-a", "to": "harness-b"},
    ]})
    assert added["ids"] == ["harness-a", "harness-b", "harness-ab"], added
    arrow = by_id(agent.read())["harness-ab"]
    assert arrow["type"] == "arrow" and (arrow["from"], arrow["to"]) == ("harness-a", "harness-b"), arrow


@pytest.mark.rules("excalidraw.arrows", "excalidraw.read")
def test_arrow_connects_shapes_already_in_the_drawing(agent):
    """矢印の from と to は、今の図の図形の識別子も指せる。"""
    shape = first_shape(agent.read())
    added = agent.ok("excalidraw_add_elements", {"elements": [
        {"type": "ellipse", "x": 700, "y": 500, "id": "harness-c"},
        {"type": "arrow", "x": 300, "y": 500, "from": shape["id"], "to": "harness-c"},
    ]})
    arrow = by_id(agent.read())[added["ids"][1]]
    assert (arrow["from"], arrow["to"]) == (shape["id"], "harness-c"), arrow


@pytest.mark.rules("excalidraw.limit")
def test_more_than_200_elements_are_too_large(agent):
    """elements は、1 回に 200 個までである。超えるときは、too_large を返す。"""
    count = len(agent.read()["elements"])
    agent.fails("excalidraw_add_elements",
                {"elements": [{"type": "rectangle", "x": 10 * i, "y": 700} for i in range(contract.MAX_NEW_ELEMENTS + 1)]},
                "too_large")
    assert len(agent.read()["elements"]) == count, "a refused call added elements"


@pytest.mark.rules("excalidraw.limit", "excalidraw.add")
def test_exactly_200_elements_are_added(agent):
    """200 個ちょうどは、上限を超えない。"""
    count = len(agent.read()["elements"])
    added = agent.ok("excalidraw_add_elements",
                     {"elements": [{"type": "ellipse", "x": 10 * i, "y": 800} for i in range(contract.MAX_NEW_ELEMENTS)]})
    assert len(added["ids"]) == contract.MAX_NEW_ELEMENTS
    assert len(agent.read()["elements"]) == count + contract.MAX_NEW_ELEMENTS


@pytest.mark.rules("excalidraw.id-clash")
def test_id_of_an_element_in_the_drawing_is_invalid_input(agent):
    """id が、今の図の要素と重なるときは、invalid_input を返す。"""
    read = agent.read()
    taken = read["elements"][0]["id"]
    agent.fails("excalidraw_add_elements", {"elements": [{"type": "rectangle", "x": 0, "y": 0, "id": taken}]}, "invalid_input")
    assert agent.read()["elements"] == read["elements"], "a refused call changed the drawing"


@pytest.mark.rules("excalidraw.id-clash")
def test_id_repeated_in_one_call_is_invalid_input(agent):
    """id が、同じ呼び出しのほかの要素と重なるときは、invalid_input を返す。"""
    read = agent.read()
    agent.fails("excalidraw_add_elements", {"elements": [
        {"type": "rectangle", "x": 0, "y": 0, "id": "harness-twice"},
        {"type": "ellipse", "x": 200, "y": 0, "id": "harness-twice"},
    ]}, "invalid_input")
    assert agent.read()["elements"] == read["elements"], "a refused call changed the drawing"


@pytest.mark.rules("excalidraw.missing-target")
@pytest.mark.parametrize("end", ["from", "to"])
def test_arrow_to_a_missing_shape_is_not_found(agent, end):
    """from と to が指す図形が無いときは、not_found を返す。"""
    read = agent.read()
    other = "to" if end == "from" else "from"
    arrow = {"type": "arrow", "x": 0, "y": 0, end: "harness-missing", other: first_shape(read)["id"]}
    agent.fails("excalidraw_add_elements", {"elements": [arrow]}, "not_found")
    assert agent.read()["elements"] == read["elements"], "a refused call changed the drawing"


@pytest.mark.rules("excalidraw.update")
def test_update_changes_position_size_and_colours(agent, tool_page):
    """excalidraw_update_element は、指定した要素の位置、大きさ、色を変え、id を返す。"""
    shape = first_shape(agent.read())
    before = canvas_image(tool_page)
    change = {"x": shape["x"] + 40, "y": shape["y"] + 30, "width": 200, "height": 100,
              "strokeColor": "#c92a2a", "backgroundColor": "#ffec99"}
    result = agent.ok("excalidraw_update_element", {"id": shape["id"], **change})
    assert result["id"] == shape["id"], result
    updated = by_id(agent.read())[shape["id"]]
    assert {k: updated[k] for k in change} == change, updated
    assert_canvas_changes(tool_page, before, "excalidraw_update_element")


@pytest.mark.rules("excalidraw.update")
def test_update_of_an_unknown_id_is_not_found(agent):
    """excalidraw_update_element は、id の要素が無いときに、not_found を返す。"""
    read = agent.read()
    agent.fails("excalidraw_update_element", {"id": "harness-no-such-element", "x": 1}, "not_found")
    assert agent.read()["elements"] == read["elements"]


@pytest.mark.rules("excalidraw.colors")
def test_background_accepts_transparent(agent):
    """backgroundColor は、transparent も受け付ける。"""
    shape = first_shape(agent.read())
    agent.ok("excalidraw_update_element", {"id": shape["id"], "backgroundColor": "transparent"})
    assert by_id(agent.read())[shape["id"]]["backgroundColor"] == "transparent"


@pytest.mark.rules("excalidraw.colors", "input.schema")
@pytest.mark.parametrize("field, colour", [
    ("strokeColor", "red"), ("strokeColor", "#fff"), ("strokeColor", "#12345g"), ("strokeColor", "transparent"),
    ("strokeColor", "#1234567"), ("backgroundColor", "blue"), ("backgroundColor", "#abc"), ("backgroundColor", "Transparent"),
])
def test_colour_not_in_the_pattern_is_refused(agent, field, colour):
    """strokeColor と backgroundColor は、# と 6 桁の 16 進の文字列である。"""
    read = agent.read()
    agent.rejects_input("excalidraw_update_element", {"id": first_shape(read)["id"], field: colour})
    assert agent.read()["elements"] == read["elements"], f"{field}={colour!r} changed the drawing"


@pytest.mark.rules("excalidraw.clear", "confirm.which")
def test_clear_deletes_every_element_and_counts_them(agent, tool_page):
    """excalidraw_clear は全ての要素を消し、count(消した要素の数)を返す。"""
    count = len(agent.read()["elements"])
    assert count > 0
    before = canvas_image(tool_page)
    result = agent.confirmed("excalidraw_clear")
    assert result["count"] == count, f"count {result['count']}, but the drawing had {count} elements"
    assert agent.read()["elements"] == [], "elements are left after excalidraw_clear"
    assert_canvas_changes(tool_page, before, "excalidraw_clear")
