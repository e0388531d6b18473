"""Which drawing or deck the canvas operations act on (Design Doc 操作の対象の図とスライド, 結果の形)."""

import json

import pytest
from canvas_agent import assert_is_open_document

from harness import contract, tools
from harness.agent import assert_success, every_operation_is_not_ready
from harness.checks import check
from harness.loading import HeldLoading

CANVAS = pytest.mark.tool(*tools.CANVAS)


@CANVAS
@pytest.mark.rules("canvas.open-document", "slides.read", "excalidraw.read", "drawio.read")
@pytest.mark.profile("document")
def test_read_names_the_open_document(opened, agent, tool):
    """読み取りの結果の document は、ページで開いている図かスライドの識別子と名前である。"""
    read = agent.client.call(agent.reader)
    with check("canvas.open-document"):
        assert_is_open_document(read, opened)
    with check(f"{tool}.read"):
        assert_success(agent.reader, read)


@CANVAS
@pytest.mark.rules("canvas.open-document")
@pytest.mark.profile("document", "other_page")
def test_two_tabs_each_report_their_own_document(target, open_tool, make_agent, tool):
    """同じツールを 2 つのタブで開くと、エージェントは読み取りの結果の document でタブを見分ける。"""
    opened = [target.document(tool, which) for which in ("page", "other_page")]
    agents = [make_agent(open_tool(tool)), make_agent(open_tool(tool, "other_page"))]
    documents = []
    for agent, document in zip(agents, opened, strict=True):
        read = agent.client.call(agent.reader)
        with check("canvas.open-document"):
            assert_is_open_document(read, document)
        documents.append(read["document"])
    with check("canvas.open-document"):
        assert documents[0]["id"] != documents[1]["id"], f"two documents share an id: {documents}"


def canvas_operations_are_not_ready(tool_page, client):
    """Each operation called with an input its schema accepts."""
    every_operation_is_not_ready(tool_page, client, "canvas.not-ready", lambda op: tools.schema_valid_input(client, op))


@CANVAS
@pytest.mark.rules("canvas.not-ready")
@pytest.mark.profile("empty_page")
def test_every_operation_is_not_ready_without_an_open_document(open_tool, client_for, tool):
    """開いている図かスライドが無いときは、not_ready を返す。"""
    tool_page = open_tool(tool, "empty_page")
    canvas_operations_are_not_ready(tool_page, client_for(tool_page))


@CANVAS
@pytest.mark.rules("canvas.not-ready")
@pytest.mark.profile("hold_loading")
def test_every_operation_is_not_ready_while_the_tool_loads(target, open_tool, client_for, tool):
    """ツールの読み込みが終わっていないときは、not_ready を返す。"""
    how = target.hook(tool, "hold_loading")
    tool_page = open_tool(tool, navigate=False)
    loading = HeldLoading(tool_page, how)
    client = client_for(tool_page)
    canvas_operations_are_not_ready(tool_page, client)
    loading.release()
    loaded = client.call_when_ready(contract.reader_of(tool).name)
    assert loaded["ok"] is True, f"{tool} did not become ready once loading went on: {loaded}"


@CANVAS
@pytest.mark.rules("result.reads-unbounded")
def test_read_returns_a_large_document_whole(agent, tool):
    """大きさの上限を持つ読み取りの結果は contents、entries、output、rows だけ: 図とスライドの読み取りは、
    コマンドの output の上限(100,000 文字)を超える中身も全てを返す。"""
    text = "".join(f"行{n:06d} " for n in range(15_000))  # 120,000 characters, 150 KB of UTF-8
    (write, arguments), (reader, _) = tools.TOOLS[tool].kept_text_calls(text)
    _, written = agent.confirm(write, arguments)  # presses the action where the write asks
    assert_success(write, written)
    read = agent.ok(reader)
    with check("result.reads-unbounded"):
        assert text in json.dumps(read, ensure_ascii=False), (
            f"{reader} did not return the {len(text):,} characters just written whole"
            f" (its result is {len(json.dumps(read, ensure_ascii=False)):,} characters)"
        )
        assert "truncated" not in read, f"{reader} says truncated: {read['truncated']}"
