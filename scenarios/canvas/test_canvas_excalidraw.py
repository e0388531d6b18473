"""The Excalidraw tool's operations (Design Doc 操作の一覧, 入力と結果)."""

import pytest
from canvas_agent import assert_is_open_document
from jsonschema.validators import validator_for

from harness import contract, limits
from harness.agent import assert_success
from harness.checks import check, each_on_its_own

pytestmark = pytest.mark.tool("excalidraw")

# What Excalidraw draws of the scene, read from the pixels of its scene canvas (the profile's
# view; the UI over it is HTML, left out): where something is drawn (pixels unlike the background
# at the canvas's corner), where it changed since the kept picture, and where each given colour shows.
_LOOK = r"""
(canvas, { colours, keep }) => {
  if (!(canvas instanceof HTMLCanvasElement)) return null;
  const { width, height } = canvas;
  const px = canvas.getContext('2d').getImageData(0, 0, width, height).data;
  const state = (window.__harnessScene ??= {});
  const near = (i, rgb, d) => Math.abs(px[i] - rgb[0]) <= d && Math.abs(px[i + 1] - rgb[1]) <= d && Math.abs(px[i + 2] - rgb[2]) <= d;
  // The pixels for which test(index into px, index into a kept picture of width w) holds, in the
  // part of the canvas that w × h shares with it (the canvas follows the page's size).
  const region = (test, w = width, h = height) => {
    let count = 0, x0 = width, y0 = height, x1 = -1, y1 = -1;
    for (let y = 0; y < Math.min(h, height); y++) for (let x = 0; x < Math.min(w, width); x++) {
      if (!test((y * width + x) * 4, (y * w + x) * 4)) continue;
      count++; x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    }
    return { count, box: count ? [x0, y0, x1, y1] : null };
  };
  const same = (a) => !!a && a.width === width && a.height === height && a.px.every((v, i) => v === px[i]);
  const background = [px[0], px[1], px[2]];
  const kept = state.kept;
  const look = {
    still: same(state.last),
    drawn: region((i) => !near(i, background, 16)),
    changed: kept ? region((i, k) => !near(i, [kept.px[k], kept.px[k + 1], kept.px[k + 2]], 16), kept.width, kept.height) : null,
    colours: Object.fromEntries(colours.map((hex) =>
      [hex, region((i) => near(i, [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)), 12))])),
  };
  state.last = { px, width, height };
  if (keep) state.kept = state.last;
  return look;
}
"""


class Scene:
    """The drawing as the user sees it: Excalidraw's scene canvas, the profile's view (未確認 without it)."""

    def __init__(self, tool_page):
        self.view = tool_page.target.hook("excalidraw", "view")
        self.canvas = tool_page.page.locator(self.view)

    def look(self, colours=(), keep=False) -> dict:
        look = self.canvas.evaluate(_LOOK, {"colours": list(colours), "keep": keep})
        assert look is not None, f"the profile's view {self.view!r} is not a <canvas>"
        return look

    def until(self, holds, colours=(), timeout: float = 10.0) -> dict:
        """The first still look (the same as the one 0.2 s before) for which `holds`; else the last one."""
        look, _ = limits.poll(
            lambda: self.look(colours), lambda seen: seen["still"] and holds(seen), timeout, pause=0.2
        )
        return look

    def kept_when_still(self, colours=()) -> dict:
        """Wait until the drawing is still and keep it as the picture `changed` compares with."""
        self.until(lambda look: True, colours)
        return self.look(colours, keep=True)


def by_id(read: dict) -> dict:
    return {el["id"]: el for el in read["elements"]}


def first_shape(read: dict) -> dict:
    return next(el for el in read["elements"] if el["type"] in ("rectangle", "ellipse", "diamond"))


def read_arrow(agent, arrow_id: str) -> dict:
    """The arrow as excalidraw_read lists it: with from and to (the read's rule; what they name is the arrows')."""
    read = agent.client.call("excalidraw_read")
    with check("excalidraw.read"):
        assert_success("excalidraw_read", read)
        arrow = by_id(read).get(arrow_id)
        assert arrow and arrow["type"] == "arrow" and {"from", "to"} <= set(arrow), (
            f"excalidraw_read lists {arrow_id} as {arrow}"
        )
    return arrow


@pytest.mark.rules("excalidraw.read", "canvas.open-document")
@pytest.mark.profile("document")
def test_read_lists_elements_with_every_field(opened, agent):
    """excalidraw_read の elements の要素は、id、type、x、y、width、height、text、strokeColor、backgroundColor を持つ。"""
    read = agent.client.call("excalidraw_read")
    with check("canvas.open-document"):
        assert_is_open_document(read, opened)
    with check("excalidraw.read"):
        assert_success("excalidraw_read", read)
        assert read["elements"], "the open drawing has elements, excalidraw_read listed none"
        fields = {"id", "type", "x", "y", "width", "height", "text", "strokeColor", "backgroundColor"}
        for el in read["elements"]:
            assert fields <= set(el), f"element lacks {sorted(fields - set(el))}: {el}"
            if el["type"] == "arrow":
                assert {"from", "to"} <= set(el), f"arrow lacks from/to: {el}"


@pytest.fixture
def room_below(agent, tool_page):
    """A window twice as tall while the scenario lasts. New elements go below the drawing, and nothing
    in the spec makes the view scroll to them. The canvas follows the window, and the page's other
    parts take from it (the log grows with each row: seen here, a canvas that ended 30 px under the
    drawing after eight not_ready reads, so the new elements were drawn outside it)."""
    page = tool_page.page
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": 2 * size["height"]})
    yield
    page.set_viewport_size(size)  # the tab is warm: the next scenario gets it as it was


@pytest.mark.rules("excalidraw.add", "excalidraw.read")
@pytest.mark.usefixtures("room_below")
@pytest.mark.profile("view")
def test_added_shapes_and_text_are_read_back_and_drawn(agent, tool_page):
    """excalidraw_add_elements は図形と文字を足し、ids を返す。足した要素は読み取りに出て、画面に描かれる。"""
    elements = agent.read()["elements"]
    # One row below everything in the drawing: the view scrolls and zooms the scene but keeps
    # what is below below, so the new elements must be drawn below what is drawn now.
    left = round(min((el["x"] for el in elements), default=0))
    top = round(max((el["y"] + el["height"] for el in elements), default=0)) + 40
    scene = Scene(tool_page)
    drawn = scene.kept_when_still()["drawn"]["box"]
    with check("excalidraw.add"):
        added = agent.ok(
            "excalidraw_add_elements",
            {
                "elements": [
                    {"type": "rectangle", "x": left, "y": top, "width": 120, "height": 60, "text": "足した四角"},
                    {"type": "ellipse", "x": left + 180, "y": top},
                    {"type": "diamond", "x": left + 360, "y": top, "id": "harness-diamond"},
                    {"type": "text", "x": left + 540, "y": top, "text": "足した文字"},
                ]
            },
        )
        ids = added["ids"]
        assert len(ids) == 4 and len(set(ids)) == 4 and ids[2] == "harness-diamond", added
    read = by_id(agent.read())
    with check("excalidraw.read"):
        assert all(i in read for i in ids), f"excalidraw_read does not list every added id {ids}: {sorted(read)}"
        assert [read[i]["type"] for i in ids] == ["rectangle", "ellipse", "diamond", "text"]
        rectangle = read[ids[0]]
        assert (rectangle["x"], rectangle["y"], rectangle["width"], rectangle["height"]) == (left, top, 120, 60), (
            rectangle
        )
        assert rectangle["text"] == "足した四角" and read[ids[3]]["text"] == "足した文字"
    with check("excalidraw.add"):
        look = scene.until(lambda look: look["changed"]["count"] > 0)
        changed = look["changed"]
        assert changed["count"] > 0, "the drawing shows nothing new after excalidraw_add_elements"
        below = drawn[3] if drawn else -1
        assert changed["box"][1] > below, (
            f"the drawing changed at {changed['box']} (x0, y0, x1, y1), not only below what it showed (down to y {below})"
        )


@pytest.mark.rules("excalidraw.arrows", "excalidraw.read")
def test_arrow_connects_shapes_of_the_same_call(agent):
    """矢印は、from と to に図形の識別子を渡すと、図形をつなぐ。同じ呼び出しで足す図形の id も指せる。"""
    with check("excalidraw.arrows"):
        added = agent.ok(
            "excalidraw_add_elements",
            {
                "elements": [
                    {"type": "rectangle", "x": 400, "y": 400, "id": "harness-a"},
                    {"type": "ellipse", "x": 700, "y": 400, "id": "harness-b"},
                    {"type": "arrow", "x": 560, "y": 440, "id": "harness-ab", "from": "harness-a", "to": "harness-b"},
                ]
            },
        )
        assert added["ids"] == ["harness-a", "harness-b", "harness-ab"], added
    arrow = read_arrow(agent, "harness-ab")
    with check("excalidraw.arrows"):
        assert (arrow["from"], arrow["to"]) == ("harness-a", "harness-b"), (
            f"the arrow connects {arrow['from']!r} → {arrow['to']!r}"
        )


@pytest.mark.rules("excalidraw.arrows", "excalidraw.read")
def test_arrow_connects_shapes_already_in_the_drawing(agent):
    """矢印の from と to は、今の図の図形の識別子も指せる。"""
    shape = first_shape(agent.read())
    with check("excalidraw.arrows"):
        added = agent.ok(
            "excalidraw_add_elements",
            {
                "elements": [
                    {"type": "ellipse", "x": 700, "y": 500, "id": "harness-c"},
                    {"type": "arrow", "x": 300, "y": 500, "from": shape["id"], "to": "harness-c"},
                ]
            },
        )
    arrow = read_arrow(agent, added["ids"][1])
    with check("excalidraw.arrows"):
        assert (arrow["from"], arrow["to"]) == (shape["id"], "harness-c"), (
            f"the arrow connects {arrow['from']!r} → {arrow['to']!r}"
        )


@pytest.mark.rules("excalidraw.limit")
def test_more_than_200_elements_are_too_large(agent):
    """elements は、1 回に 200 個までである。超えるときは、too_large を返す。"""
    count = len(agent.read()["elements"])
    too_many = [{"type": "rectangle", "x": 10 * i, "y": 700} for i in range(contract.MAX_NEW_ELEMENTS + 1)]
    with check("excalidraw.limit"):
        agent.fails("excalidraw_add_elements", {"elements": too_many}, "too_large")
        assert len(agent.read()["elements"]) == count, "a refused call added elements"


@pytest.mark.rules("excalidraw.limit", "excalidraw.add")
def test_exactly_200_elements_are_added(agent):
    """200 個ちょうどは、上限を超えない。"""
    count = len(agent.read()["elements"])
    result = agent.client.call(
        "excalidraw_add_elements",
        {"elements": [{"type": "ellipse", "x": 10 * i, "y": 800} for i in range(contract.MAX_NEW_ELEMENTS)]},
    )
    with check("excalidraw.limit"):
        assert result["ok"] or result["error"]["code"] != "too_large", (
            f"200 elements were refused as too large: {result}"
        )
    with check("excalidraw.add"):
        assert_success("excalidraw_add_elements", result)
        assert len(result["ids"]) == contract.MAX_NEW_ELEMENTS
        assert len(agent.read()["elements"]) == count + contract.MAX_NEW_ELEMENTS


@pytest.mark.rules("excalidraw.id-clash")
def test_id_of_an_element_in_the_drawing_is_invalid_input(agent):
    """id が、今の図の要素と重なるときは、invalid_input を返す。"""
    read = agent.read()
    taken = read["elements"][0]["id"]
    with check("excalidraw.id-clash"):
        agent.fails(
            "excalidraw_add_elements",
            {"elements": [{"type": "rectangle", "x": 0, "y": 0, "id": taken}]},
            "invalid_input",
        )
        assert agent.read()["elements"] == read["elements"], "a refused call changed the drawing"


@pytest.mark.rules("excalidraw.id-clash")
def test_id_repeated_in_one_call_is_invalid_input(agent):
    """id が、同じ呼び出しのほかの要素と重なるときは、invalid_input を返す。"""
    read = agent.read()
    with check("excalidraw.id-clash"):
        agent.fails(
            "excalidraw_add_elements",
            {
                "elements": [
                    {"type": "rectangle", "x": 0, "y": 0, "id": "harness-twice"},
                    {"type": "ellipse", "x": 200, "y": 0, "id": "harness-twice"},
                ]
            },
            "invalid_input",
        )
        assert agent.read()["elements"] == read["elements"], "a refused call changed the drawing"


@pytest.mark.rules("excalidraw.missing-target")
@pytest.mark.parametrize("end", ["from", "to"])
def test_arrow_to_a_missing_shape_is_not_found(agent, end):
    """from と to が指す図形が無いときは、not_found を返す。"""
    read = agent.read()
    other = "to" if end == "from" else "from"
    arrow = {"type": "arrow", "x": 0, "y": 0, end: "harness-missing", other: first_shape(read)["id"]}
    with check("excalidraw.missing-target"):
        agent.fails("excalidraw_add_elements", {"elements": [arrow]}, "not_found")
        assert agent.read()["elements"] == read["elements"], "a refused call changed the drawing"


# Colours the sample drawing does not use, so that their pixels show the updated element.
NEW_STROKE, NEW_BACKGROUND = "#c92a2a", "#d0bfff"


@pytest.mark.rules("excalidraw.update")
@pytest.mark.profile("view")
def test_update_changes_position_size_and_colours(agent, tool_page):
    """excalidraw_update_element は、指定した要素の位置、大きさ、色を変え、id を返す。"""
    shape = first_shape(agent.read())
    scene = Scene(tool_page)
    before = scene.kept_when_still((NEW_STROKE, NEW_BACKGROUND))["colours"]
    change = {
        "x": shape["x"] + 40,
        "y": shape["y"] + 30,
        "width": 240,
        "height": 80,
        "strokeColor": NEW_STROKE,
        "backgroundColor": NEW_BACKGROUND,
    }
    with check("excalidraw.update"):
        result = agent.ok("excalidraw_update_element", {"id": shape["id"], **change})
        assert result["id"] == shape["id"], result
        updated = by_id(agent.read())[shape["id"]]
        assert {k: updated[k] for k in change} == change, updated

        # The element is drawn in its new colours, as wide as it is high three times over.
        def drawn(look) -> bool:
            return all(look["colours"][c]["count"] > before[c]["count"] + 100 for c in (NEW_STROKE, NEW_BACKGROUND))

        look = scene.until(drawn, (NEW_STROKE, NEW_BACKGROUND))
        assert drawn(look), (
            f"the drawing does not show the new colours (pixels before {before}, after {look['colours']})"
        )
        x0, y0, x1, y1 = look["colours"][NEW_BACKGROUND]["box"]
        ratio = (x1 - x0 + 1) / (y1 - y0 + 1)
        assert 2.6 < ratio < 3.4, f"the new background is drawn {x1 - x0 + 1}×{y1 - y0 + 1} pixels, not 240×80 to scale"


@pytest.mark.rules("excalidraw.update")
def test_update_of_an_unknown_id_is_not_found(agent):
    """excalidraw_update_element は、id の要素が無いときに、not_found を返す。"""
    read = agent.read()
    with check("excalidraw.update"):
        agent.fails("excalidraw_update_element", {"id": "harness-no-such-element", "x": 1}, "not_found")
        assert agent.read()["elements"] == read["elements"], "an update of an unknown id changed the drawing"


@pytest.mark.rules("excalidraw.colors")
def test_background_accepts_transparent(agent):
    """backgroundColor は、transparent も受け付ける。"""
    shape = first_shape(agent.read())
    with check("excalidraw.colors"):
        agent.ok("excalidraw_update_element", {"id": shape["id"], "backgroundColor": "transparent"})
        assert by_id(agent.read())[shape["id"]]["backgroundColor"] == "transparent"


# Each value one after another on one page: a refused update leaves the drawing as it was.
OUTSIDE_THE_PATTERN = [
    ("strokeColor", "red"),
    ("strokeColor", "#fff"),
    ("strokeColor", "#12345g"),
    ("strokeColor", "transparent"),
    ("strokeColor", "#1234567"),
    ("backgroundColor", "blue"),
    ("backgroundColor", "#abc"),
    ("backgroundColor", "Transparent"),
]


@pytest.mark.rules("excalidraw.colors", "input.schema")
def test_colour_not_in_the_pattern_is_refused(agent):
    """strokeColor と backgroundColor は、# と 6 桁の 16 進の文字列である。"""
    schema = next(info.input_schema for info in agent.client.tools() if info.name == "excalidraw_update_element")
    with each_on_its_own():
        for field, colour in OUTSIDE_THE_PATTERN:
            read = agent.read()
            arguments = {"id": first_shape(read)["id"], field: colour}
            subject = f"{field}={colour}"
            with check("excalidraw.colors", subject=subject):
                assert not validator_for(schema)(schema).is_valid(arguments), (
                    f"the registered inputSchema accepts {subject!r}"
                )
            with check("input.schema", subject=subject):
                agent.rejects_input("excalidraw_update_element", arguments)
                assert agent.read()["elements"] == read["elements"], f"{subject!r} changed the drawing"


@pytest.mark.rules("excalidraw.clear", "confirm.which")
@pytest.mark.profile("view")
def test_clear_deletes_every_element_and_counts_them(agent, tool_page):
    """excalidraw_clear は全ての要素を消し、count(消した要素の数)を返す。"""
    count = len(agent.read()["elements"])
    assert count > 0, "the open drawing has no element to clear"
    scene = Scene(tool_page)
    assert scene.kept_when_still()["drawn"]["count"] > 0, "the drawing shows nothing before excalidraw_clear"
    asked, result = agent.confirm("excalidraw_clear")
    with check("confirm.which"):
        assert asked or result["ok"] is False, (
            f"excalidraw_clear deleted the drawing without the confirmation dialog: {result}"
        )
    with check("excalidraw.clear"):
        assert_success("excalidraw_clear", result)
        assert result["count"] == count, f"count {result['count']}, but the drawing had {count} elements"
        assert agent.read()["elements"] == [], "elements are left after excalidraw_clear"
        look = scene.until(lambda look: look["drawn"]["count"] == 0)
        assert look["drawn"]["count"] == 0, (
            f"the drawing still shows something at {look['drawn']['box']} after excalidraw_clear"
        )
