"""The node tool's file operations (Design Doc 実行環境の操作, 入力と結果)."""

import pytest
from node_agent import run, write_bytes, write_many, write_size

from harness import contract, drivers
from harness.agent import assert_success
from harness.checks import check, each_on_its_own
from harness.clients import start_and_see

pytestmark = pytest.mark.tool("node")

OUTSIDE = ("../harness-outside.txt", "harness-x/../../harness-outside.txt", "/etc/hostname", "/harness.txt")


def listed(agent, path: str | None = None) -> dict:
    result = agent.client.call("node_list_files", {} if path is None else {"path": path})
    assert_success("node_list_files", result)
    return result


def under_working_directory(entries: list[dict], path: str) -> dict[str, str]:
    """Entries as {path from the working directory: kind}. The Design Doc does not say whether the
    paths of a listing under `path` start at the working directory or at `path`: either is read."""
    paths = [entry["path"] for entry in entries]
    from_path = not all(p == path or p.startswith(f"{path}/") for p in paths)
    return {(f"{path}/{entry['path']}" if from_path else entry["path"]): entry["kind"] for entry in entries}


# Each path one after another on one page: each call is refused before it touches a file.
@pytest.mark.rules("node.relative-paths")
def test_paths_outside_the_working_directory_are_invalid_input(agent):
    """パスは作業ディレクトリからの相対パスだけ: .. で外へ出るパスと絶対パスは invalid_input(確認の前に)。"""
    with each_on_its_own():
        for outside in OUTSIDE:
            for name, arguments in (("node_read_file", {"path": outside}),
                                    ("node_write_file", {"path": outside, "contents": "harness"}),
                                    ("node_delete_file", {"path": outside}),
                                    ("node_list_files", {"path": outside})):
                with check("node.relative-paths", subject=f"{name} {outside}"):
                    agent.fails(name, arguments, "invalid_input")


@pytest.mark.rules("node.list-all-levels")
def test_list_returns_every_level_under_path_and_the_whole_tree(agent, folder):
    """node_list_files は path の下の全ての階層を返す。path を省くと作業ディレクトリの全体を返す。"""
    for path in (f"{folder}/top.txt", f"{folder}/sub/deeper/leaf.txt"):
        agent.ok("node_write_file", {"path": path, "contents": "harness"})
    want = {f"{folder}/top.txt": "file", f"{folder}/sub": "directory", f"{folder}/sub/deeper": "directory",
            f"{folder}/sub/deeper/leaf.txt": "file"}
    under = listed(agent, folder)
    with check("node.list-all-levels", subject="path"):
        assert under_working_directory(under["entries"], folder) == want, f"listing {folder}: {under['entries']}"
        assert under["truncated"] is False, under
    whole = listed(agent)
    with check("node.list-all-levels", subject="whole tree"):
        kinds = {entry["path"]: entry["kind"] for entry in whole["entries"]}
        assert want.items() <= kinds.items(), f"the whole tree lacks {set(want) - set(kinds)}: {whole['entries'][:20]}"
        assert {entry["kind"] for entry in whole["entries"]} <= {"file", "directory"}, whole["entries"]
        assert folder in kinds and kinds[folder] == "directory", f"{folder} is not listed as a directory"


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


@pytest.mark.rules("node.read-missing")
def test_read_of_a_missing_file_is_not_found(agent, folder):
    """node_read_file は、無いファイルに not_found を返す。"""
    with check("node.read-missing"):
        agent.fails("node_read_file", {"path": f"{folder}/missing.txt"}, "not_found")


@pytest.mark.rules("node.write")
def test_write_creates_parent_directories_and_overwrites(agent, folder):
    """node_write_file は、親のディレクトリが無ければ作り、ファイルがあれば上書きする。"""
    path = f"{folder}/a/b/c.txt"
    written = agent.client.call("node_write_file", {"path": path, "contents": "一回目"})
    with check("node.write", subject="parents"):
        assert_success("node_write_file", written)
        assert written["path"] == path, written
        kinds = under_working_directory(listed(agent, folder)["entries"], folder)
        assert kinds.get(f"{folder}/a") == kinds.get(f"{folder}/a/b") == "directory", f"parents not created: {kinds}"
        assert agent.ok("node_read_file", {"path": path})["contents"] == "一回目"
    agent.ok("node_write_file", {"path": path, "contents": "二回目"})
    with check("node.write", subject="overwrite"):
        assert agent.ok("node_read_file", {"path": path})["contents"] == "二回目", "the second write did not replace the file"


@pytest.mark.rules("node.write-no-confirm")
def test_overwriting_asks_for_no_confirmation(agent, tool_page, folder):
    """node_write_file は、上書きの前に確認を出さない。"""
    path = f"{folder}/kept.txt"
    write_size(agent, path, 6)  # by a program: the first write is not what the rule is about
    pending, asked = start_and_see(tool_page, agent.client, "node_write_file", {"path": path, "contents": "after"})
    if asked:
        tool_page.dialog.cancel.click()
    result = pending.result()
    with check("node.write-no-confirm"):
        assert not asked, "node_write_file asked for confirmation before overwriting"
        assert_success("node_write_file", result)


@pytest.mark.rules("node.delete-files-only")
def test_delete_removes_files_only(agent, folder):
    """node_delete_file はファイルだけを消す: ディレクトリは invalid_input、無いパスは not_found(確認の前に)。"""
    path = f"{folder}/doomed.txt"
    agent.ok("node_write_file", {"path": path, "contents": "harness"})
    with check("node.delete-files-only", subject="directory"):
        agent.fails("node_delete_file", {"path": folder}, "invalid_input")
        assert agent.ok("node_read_file", {"path": path})["contents"] == "harness", "the directory's file is gone"
    with check("node.delete-files-only", subject="missing"):
        agent.fails("node_delete_file", {"path": f"{folder}/missing.txt"}, "not_found")
    _, deleted = agent.confirm("node_delete_file", {"path": path})
    with check("node.delete-files-only", subject="file"):
        assert_success("node_delete_file", deleted)
        assert deleted["path"] == path, deleted
        agent.fails("node_read_file", {"path": path}, "not_found")


@pytest.mark.rules("limits.one-megabyte")
def test_contents_over_one_megabyte_of_utf8_is_too_large(agent, folder):
    """contents は UTF-8 で 1 MB まで(文字ではなくバイト): 350,000 文字の日本語(1.05 MB)は too_large。"""
    path = f"{folder}/large.txt"
    with check("limits.one-megabyte"):
        agent.fails("node_write_file", {"path": path, "contents": "あ" * 350_000}, "too_large")
        agent.fails("node_write_file", {"path": path, "contents": "a" * (contract.ONE_MEGABYTE + 1)}, "too_large")
        agent.fails("node_read_file", {"path": path}, "not_found")


@pytest.mark.rules("limits.one-megabyte")
def test_contents_of_exactly_one_megabyte_are_written(agent, folder):
    """1 MB ちょうどの contents は上限を超えない(書いた大きさは、プログラムに数えさせる)。"""
    path = f"{folder}/exactly.txt"
    written = agent.client.call("node_write_file", {"path": path, "contents": "あ" + "a" * (contract.ONE_MEGABYTE - 3)})
    with check("limits.one-megabyte"):
        assert_success("node_write_file", written)
        size = run(agent, "node", ["-e", f"console.log(require('fs').readFileSync({path!r}).length)"])
        assert size.get("output", "").strip() == str(contract.ONE_MEGABYTE), size
