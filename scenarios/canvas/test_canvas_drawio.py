"""The draw.io tool's operations (Design Doc 操作の一覧, 入力と結果; ADR-0044 Verification)."""

import re

import pytest
from canvas_agent import assert_is_open_document
from playwright.sync_api import expect

from harness import contract
from harness.agent import assert_success
from harness.checks import check
from harness.tools.drawio import EMPTY_MODEL, vertex

pytestmark = pytest.mark.tool("drawio")


def model(*cells: str) -> str:
    return EMPTY_MODEL.replace("</root>", "".join(cells) + "</root>")


def editor(tool_page):
    """The draw.io editor the user sees: the frame of the profile's view (未確認 without it)."""
    return tool_page.page.frame_locator(tool_page.target.hook("drawio", "view"))


def cell_ids(xml: str) -> list[str]:
    return re.findall(r'<mxCell\b[^>]*?\bid="([^"]*)"', xml)


@pytest.mark.rules("drawio.read", "canvas.open-document")
@pytest.mark.profile("document")
def test_read_returns_the_open_diagrams_xml(opened, agent):
    """drawio_read は、document と図の XML を返す。"""
    read = agent.client.call("drawio_read")
    with check("canvas.open-document"):
        assert_is_open_document(read, opened)
    with check("drawio.read"):
        assert_success("drawio_read", read)
        assert "<mxGraphModel" in read["xml"] and cell_ids(read["xml"]), read["xml"][:300]


@pytest.mark.rules("drawio.add-cells")
@pytest.mark.profile("view")
def test_added_cells_are_read_back_and_shown(agent, tool_page):
    """drawio_add_cells は今の XML に mxCell を足して読み込み直し、count を返す。利用者の図にも出る。"""
    before = agent.read()["xml"]
    cells = vertex("harness-a", "ハーネスの四角A") + vertex("harness-b", "ハーネスの四角B", x=240)
    with check("drawio.add-cells"):
        result = agent.ok("drawio_add_cells", {"cells": cells})
        assert result["count"] == 2, result
        after = agent.read()["xml"]
        assert cell_ids(after) == [*cell_ids(before), "harness-a", "harness-b"], after
    shown = editor(tool_page)  # what the user sees is 未確認 where the profile gives no view
    with check("drawio.add-cells"):
        for label in ("ハーネスの四角A", "ハーネスの四角B"):
            expect(shown.get_by_text(label, exact=True).first).to_be_visible()


@pytest.mark.rules("drawio.cell-id-clash")
def test_cell_with_an_id_in_the_diagram_is_invalid_input(agent):
    """drawio_add_cells は、今の図にある id と同じ id の mxCell を渡されたときに、invalid_input を返す。"""
    before = agent.read()["xml"]
    taken = [i for i in cell_ids(before) if i not in ("0", "1")] or cell_ids(before)
    with check("drawio.cell-id-clash"):
        agent.fails("drawio_add_cells", {"cells": vertex(taken[-1], "重なる id")}, "invalid_input")
        assert agent.read()["xml"] == before, "a refused drawio_add_cells changed the diagram"


@pytest.mark.rules("drawio.cell-id-clash")
def test_cell_id_repeated_in_one_call_is_invalid_input(agent):
    """invalid_input を返すとき: 識別子が重なる(同じ呼び出しの 2 つの mxCell の id)。"""
    before = agent.read()["xml"]
    twice = vertex("harness-twice", "一") + vertex("harness-twice", "二", x=240)
    with check("drawio.cell-id-clash"):
        agent.fails("drawio_add_cells", {"cells": twice}, "invalid_input")
        assert agent.read()["xml"] == before, "a refused drawio_add_cells changed the diagram"


@pytest.mark.rules("drawio.invalid-xml")
def test_unreadable_cells_are_invalid_input(agent):
    """XML を読めないときは、invalid_input を返す。"""
    before = agent.read()["xml"]
    with check("drawio.invalid-xml"):
        agent.fails("drawio_add_cells", {"cells": '<mxCell id="harness-broken" parent="1"'}, "invalid_input")
        assert agent.read()["xml"] == before, "a refused drawio_add_cells changed the diagram"


@pytest.mark.rules("drawio.write", "drawio.write-result", "confirm.which")
@pytest.mark.profile("view")
def test_write_replaces_the_diagram_and_reads_back_exactly(agent, tool_page):
    """全体を置き換える操作の後に図を読むと、渡した XML だけが返る。"""
    xml = model(vertex("harness-only", "置き換えた図"))
    asked, result = agent.confirm("drawio_write", {"xml": xml})
    with check("confirm.which"):
        assert asked or result["ok"] is False, (
            f"drawio_write replaced the diagram without the confirmation dialog: {result}"
        )
    with check("drawio.write"):
        assert result["ok"] is True, f"drawio_write answered {result}"
    with check("drawio.write-result"):
        assert_success("drawio_write", result)  # {"ok": true}, nothing else
    with check("drawio.write"):
        assert agent.read()["xml"] == xml, "drawio_read does not return the XML just written"
    shown = editor(tool_page)  # what the user sees is 未確認 where the profile gives no view
    with check("drawio.write"):
        expect(shown.get_by_text("置き換えた図", exact=True).first).to_be_visible()


@pytest.mark.rules("drawio.invalid-xml")
@pytest.mark.parametrize("xml", ['<mxGraphModel><root><mxCell id="0"/>', "これは XML ではない"])
def test_unreadable_xml_is_refused_and_the_diagram_kept(agent, xml):
    """XML を読めないときは、invalid_input を返し、図は変わらない。"""
    before = agent.read()["xml"]
    with check("drawio.invalid-xml"):
        agent.fails("drawio_write", {"xml": xml}, "invalid_input")
        assert agent.read()["xml"] == before, "a refused drawio_write changed the diagram"


@pytest.mark.rules("limits.one-megabyte")
@pytest.mark.parametrize("field", ["xml", "cells"])
def test_over_one_megabyte_is_too_large(agent, field):
    """xml と cells は、UTF-8 で 1 MB まで。超えるときは、too_large を返す(日本語 1.2 MB も)。"""
    before = agent.read()["xml"]
    name = "drawio_write" if field == "xml" else "drawio_add_cells"
    with check("limits.one-megabyte"):
        for label in ("図" * 400_000, "a" * contract.ONE_MEGABYTE):
            text = model(vertex("harness-big", label)) if field == "xml" else vertex("harness-big", label)
            agent.fails(name, {field: text}, "too_large")
        assert agent.read()["xml"] == before, f"a refused {name} changed the diagram"
