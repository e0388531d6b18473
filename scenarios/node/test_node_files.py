"""The node tool's own file rules (Design Doc 実行環境の操作, 入力と結果): the exclude list, the limits of
reading, text; the rules it shares with go are scenarios/test_files.py's."""

import pytest
from node_agent import run, write_bytes, write_many, write_size

from harness import contract, drivers
from harness.agent import assert_success
from harness.checks import check

pytestmark = pytest.mark.tool("node")


def listed(agent, path: str | None = None) -> dict:
    result = agent.client.call("node_list_files", {} if path is None else {"path": path})
    assert_success("node_list_files", result)
    return result


@pytest.mark.rules("node.list-excluded")
@pytest.mark.profile("excluded_directory")
def test_list_leaves_out_the_excluded_directory(agent, target, folder):
    """node_list_files は、保存しないファイルの規則の exclude に当たるパスを返さない。"""
    excluded = target.hook("node", "excluded_directory")
    package = f"{excluded}/{folder}/index.js"
    write_size(agent, package, 10)
    assert run(agent, "cat", [package])["exitCode"] == 0, f"{package} was not written"
    whole = listed(agent)
    with check("node.list-excluded"):
        shown = [entry["path"] for entry in whole["entries"] if entry["path"].split("/")[0] == excluded]
        assert not shown, f"node_list_files returned paths under {excluded}: {shown[:5]}"


@pytest.mark.rules("node.list-truncated")
def test_list_stops_at_1000_entries_and_says_truncated(agent, folder):
    """node_list_files は 1,000 件までにし、切り詰めたときは truncated を true にする。"""
    write_many(agent, folder, 1005)
    whole = agent.client.call("node_list_files", {})
    with check("node.list-truncated"):
        assert whole.get("ok") is True, whole
        assert len(whole["entries"]) == 1000, f"{len(whole['entries'])} entries for a tree of more than 1,005"
        assert whole["truncated"] is True, f"truncated is {whole.get('truncated')!r} with entries left out"


@pytest.mark.rules("node.read-too-large")
def test_read_over_one_megabyte_is_too_large(agent, folder):
    """node_read_file は、1 MB を超えるファイルに too_large を返す。"""
    write_size(agent, f"{folder}/over.txt", contract.ONE_MEGABYTE + 1)
    with check("node.read-too-large"):
        agent.fails("node_read_file", {"path": f"{folder}/over.txt"}, "too_large")


@pytest.mark.rules("node.read-too-large")
@pytest.mark.needs(drivers.LARGE_MESSAGES)
def test_read_of_exactly_one_megabyte_returns_it_whole(agent, folder):
    """1 MB を超えるファイルだけが too_large: 1 MB ちょうどのファイルは読める。"""
    write_size(agent, f"{folder}/exactly.txt", contract.ONE_MEGABYTE)
    exactly = agent.client.call("node_read_file", {"path": f"{folder}/exactly.txt"})
    with check("node.read-too-large"):
        assert_success("node_read_file", exactly)
        assert len(exactly["contents"]) == contract.ONE_MEGABYTE, f"{len(exactly['contents'])} characters read"


@pytest.mark.rules("node.read-not-text")
def test_read_of_a_file_that_is_not_text_is_invalid_input(agent, folder):
    """node_read_file は、テキストとして読めないファイル(UTF-8 でないバイトと NUL)に invalid_input を返す。"""
    write_bytes(agent, f"{folder}/image.bin", bytes([0x89, 0x50, 0x00, 0xFF, 0xFE, 0x00, 0x9F]))
    with check("node.read-not-text"):
        agent.fails("node_read_file", {"path": f"{folder}/image.bin"}, "invalid_input")


@pytest.mark.rules("limits.one-megabyte")
def test_contents_of_exactly_one_megabyte_are_written(agent, folder):
    """1 MB ちょうどの contents は上限を超えない(書いた大きさは、プログラムに数えさせる)。"""
    path = f"{folder}/exactly.txt"
    written = agent.client.call("node_write_file", {"path": path, "contents": "あ" + "a" * (contract.ONE_MEGABYTE - 3)})
    with check("limits.one-megabyte"):
        assert_success("node_write_file", written)
        size = run(agent, "node", ["-e", f"console.log(require('fs').readFileSync({path!r}).length)"])
        assert size.get("output", "").strip() == str(contract.ONE_MEGABYTE), size
