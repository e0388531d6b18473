"""The slides editor's operations (Design Doc 操作の一覧, 入力と結果, 操作の対象の図とスライド)."""

import pytest
from canvas_agent import assert_is_open_document
from playwright.sync_api import expect

from harness import contract

pytestmark = pytest.mark.tool("slides")

DECK = "---\nmarp: true\n---\n\n# ハーネスの一枚目\n\n---\n\n## ハーネスの二枚目\n\n---\n\n## ハーネスの三枚目\n"


def slides_shown(tool_page):
    """The slides the page renders in its main area (Marp renders one <section> per slide)."""
    return tool_page.page.get_by_role("main").locator("section")


def theme_picker(tool_page):
    return tool_page.page.get_by_role("main").get_by_role("combobox")


@pytest.mark.rules("slides.read", "canvas.open-document")
def test_read_returns_the_open_deck_and_its_slide_count(agent, tool_page):
    """slides_read は Markdown の全文、テーマ、枚数を返す; document は開いているスライド。"""
    result = agent.read()
    assert_is_open_document(tool_page, result["document"])
    expect(slides_shown(tool_page)).to_have_count(result["slideCount"])
    assert result["markdown"].strip(), "slides_read returned no Markdown for a deck with slides"
    expect(theme_picker(tool_page)).to_have_value(result["theme"])


@pytest.mark.rules("slides.write", "slides.read")
def test_write_replaces_the_whole_markdown_and_rerenders(agent, tool_page):
    """slides_write は Markdown の全文を置き換える: 読み直すと渡した Markdown だけが返り、画面が描き直される。"""
    written = agent.confirmed("slides_write", {"markdown": DECK})
    assert written["slideCount"] == 3, written
    expect(slides_shown(tool_page)).to_have_count(3)
    expect(tool_page.page.get_by_role("main").get_by_text("ハーネスの三枚目").last).to_be_visible()
    read = agent.read()
    assert read["markdown"] == DECK, f"slides_read returned {read['markdown']!r} after writing {DECK!r}"
    assert read["slideCount"] == 3, read


@pytest.mark.rules("slides.theme-enum")
def test_theme_enum_is_the_pickers_list(agent, tool_page):
    """slides_set_theme の theme は、スライドのエディタが持つテーマの名前の一覧から作った enum である。"""
    info = next(i for i in agent.client.tools() if i.name == "slides_set_theme")
    enum = info.input_schema["properties"]["theme"].get("enum")
    options = theme_picker(tool_page).locator("option")
    choices = [options.nth(i).get_attribute("value") or options.nth(i).inner_text() for i in range(options.count())]
    assert choices, "the slides page shows no theme choices"
    assert sorted(enum or []) == sorted(choices), f"enum {enum} differs from the themes the page offers {choices}"


@pytest.mark.rules("slides.set-theme", "slides.theme-enum")
def test_every_theme_can_be_set(agent, tool_page):
    """slides_set_theme はテーマを変え、theme を返す(enum の全ての値で)。"""
    info = next(i for i in agent.client.tools() if i.name == "slides_set_theme")
    themes = info.input_schema["properties"]["theme"]["enum"]
    for theme in [*themes[1:], themes[0]]:
        result = agent.ok("slides_set_theme", {"theme": theme})
        assert result["theme"] == theme, result
        expect(theme_picker(tool_page)).to_have_value(theme)
        assert agent.read()["theme"] == theme, f"slides_read does not report the theme {theme} just set"


@pytest.mark.rules("slides.theme-enum", "input.schema")
def test_unknown_theme_is_refused(agent):
    """enum に無いテーマは、schema に合わない入力として断る。"""
    before = agent.read()["theme"]
    agent.rejects_input("slides_set_theme", {"theme": "no-such-theme-xyz"})
    assert agent.read()["theme"] == before


@pytest.mark.rules("limits.one-megabyte")
def test_markdown_over_one_megabyte_of_utf8_is_too_large(agent):
    """markdown は UTF-8 で 1 MB まで: 400,000 文字の日本語(1.2 MB)は too_large。"""
    before = agent.read()["markdown"]
    agent.fails("slides_write", {"markdown": "あ" * 400_000}, "too_large")
    agent.fails("slides_write", {"markdown": "a" * (contract.ONE_MEGABYTE + 1)}, "too_large")
    assert agent.read()["markdown"] == before, "a refused slides_write changed the deck"


@pytest.mark.rules("limits.one-megabyte")
# The relay (webmcp-local-relay 2.2.0) closes a page's WebSocket on a message over 1,000,000 bytes,
# so slides_read cannot bring 1 MB of Markdown back through it.
@pytest.mark.call_paths("in-page")
def test_markdown_of_exactly_one_megabyte_is_accepted(agent):
    """1 MB ちょうどの markdown は上限を超えない。"""
    markdown = "# 一\n\n" + "a" * (contract.ONE_MEGABYTE - len("# 一\n\n".encode()))
    assert len(markdown.encode()) == contract.ONE_MEGABYTE
    agent.confirmed("slides_write", {"markdown": markdown})
    assert agent.read()["markdown"] == markdown
