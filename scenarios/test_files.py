"""The four file operations node and go share (Design Doc 実行環境の操作, Go を動かすツールの操作: 「ファイルの
4 つの操作の入力と結果は、node の同じ名前の操作と同じである」), checked the same way on each tool that
has them. Each tool's own file rules (node's exclude list, go's empty directories and editor) are
in its folder."""

import pytest

from harness import contract, tools
from harness.agent import assert_success
from harness.checks import check, each_on_its_own
from harness.clients import start_and_see

pytestmark = pytest.mark.tool(*tools.WITH_FILES)

OUTSIDE = ("../harness-outside.txt", "harness-x/../../harness-outside.txt", "/etc/hostname", "/harness.txt")


def rules(kind: str) -> pytest.MarkDecorator:
    """The rule of this kind for each tool with files: a run checks its own tool's."""
    return pytest.mark.rules(*(f"{tool}.{kind}" for tool in tools.WITH_FILES))


def write(agent, path: str, contents: str) -> None:
    operation = f"{agent.tool_page.tool}_write_file"
    assert_success(operation, agent.client.call(operation, {"path": path, "contents": contents}))


def listed(agent, path: str | None = None) -> dict[str, str]:
    """The entries as {path from the working directory: kind}. The Design Doc does not say whether
    the paths of a listing under `path` start at the working directory or at `path`: either is read."""
    operation = f"{agent.tool_page.tool}_list_files"
    result = agent.client.call(operation, {} if path is None else {"path": path})
    assert_success(operation, result)
    paths = [entry["path"] for entry in result["entries"]]
    from_path = path is not None and not all(p == path or p.startswith(f"{path}/") for p in paths)
    return {(f"{path}/{entry['path']}" if from_path else entry["path"]): entry["kind"] for entry in result["entries"]}


@rules("relative-paths")
def test_paths_outside_the_working_directory_are_invalid_input(agent, tool):
    """パスは作業ディレクトリからの相対パスだけ: .. で外へ出るパスと絶対パスは invalid_input(確認の前に)。"""
    with each_on_its_own():
        for outside in OUTSIDE:
            for suffix, arguments in (
                ("read_file", {"path": outside}),
                ("write_file", {"path": outside, "contents": "harness"}),
                ("delete_file", {"path": outside}),
                ("list_files", {"path": outside}),
            ):
                with check(f"{tool}.relative-paths", subject=f"{tool}_{suffix} {outside}"):
                    agent.fails(f"{tool}_{suffix}", arguments, "invalid_input")


@rules("relative-paths")
def test_a_path_whose_dotdot_stays_inside_is_accepted(agent, tool, folder):
    """.. が作業ディレクトリの外へ出ないパスは受け付ける: 外へ出るものだけが invalid_input である(どの操作でも)。"""
    inside, via = f"{folder}/inside.txt", f"{folder}/sub/../inside.txt"
    rule = f"{tool}.relative-paths"
    with each_on_its_own():
        with check(rule, subject=f"{tool}_write_file {via}"):
            write(agent, via, "harness-inside")
        with check(rule, subject=f"{tool}_read_file {via}"):
            read = agent.client.call(f"{tool}_read_file", {"path": via})
            assert_success(f"{tool}_read_file", read)
            assert read["contents"] == "harness-inside", read
        with check(rule, subject=f"{tool}_list_files {folder}/sub/.."):
            assert any(path.endswith("inside.txt") for path in listed(agent, f"{folder}/sub/..")), (
                "inside.txt is not listed"
            )
        with check(rule, subject=f"{tool}_delete_file {via}"):
            _, deleted = agent.confirm(f"{tool}_delete_file", {"path": via})
            assert_success(f"{tool}_delete_file", deleted)
            gone = agent.client.call(f"{tool}_read_file", {"path": inside})
            assert gone.get("error", {}).get("code") == "not_found", f"{inside} is still there: {gone}"


@rules("list-all-levels")
def test_list_returns_every_level_under_path_and_the_whole_tree(agent, tool, folder):
    """ファイルの一覧は path の下の全ての階層を返し、path を省くと作業ディレクトリの全体を返す(kind は file か directory)。"""
    write(agent, f"{folder}/top.txt", "harness")
    write(agent, f"{folder}/sub/deeper/leaf.txt", "harness")
    want = {
        f"{folder}/top.txt": "file",
        f"{folder}/sub": "directory",
        f"{folder}/sub/deeper": "directory",
        f"{folder}/sub/deeper/leaf.txt": "file",
    }
    under, whole = listed(agent, folder), listed(agent)
    with check(f"{tool}.list-all-levels", subject="path"):
        assert under == want, f"listing {folder}: {under}"
    with check(f"{tool}.list-all-levels", subject="whole tree"):
        assert want.items() <= whole.items(), f"the whole tree lacks {set(want) - set(whole)}"
        assert whole.get(folder) == "directory", f"{folder} is not listed as a directory"


@rules("read-missing")
def test_read_of_a_missing_file_is_not_found(agent, tool, folder):
    """ファイルの中身を返す操作は、無いファイルに not_found を返す。"""
    with check(f"{tool}.read-missing"):
        agent.fails(f"{tool}_read_file", {"path": f"{folder}/missing.txt"}, "not_found")


@rules("write")
def test_write_creates_parent_directories_and_overwrites(agent, tool, folder):
    """ファイルを書く操作は、親のディレクトリが無ければ作り、ファイルがあれば上書きし、path を返す。"""
    path = f"{folder}/a/b/c.txt"
    written = agent.client.call(f"{tool}_write_file", {"path": path, "contents": "一回目"})
    with check(f"{tool}.write", subject="parents"):
        assert_success(f"{tool}_write_file", written)
        assert written["path"] == path, written
        kinds = listed(agent, folder)
        assert kinds.get(f"{folder}/a") == kinds.get(f"{folder}/a/b") == "directory", f"parents not created: {kinds}"
        assert agent.ok(f"{tool}_read_file", {"path": path})["contents"] == "一回目"
    write(agent, path, "二回目")
    with check(f"{tool}.write", subject="overwrite"):
        assert agent.ok(f"{tool}_read_file", {"path": path})["contents"] == "二回目", (
            "the second write did not replace the file"
        )


@rules("write-no-confirm")
def test_writing_asks_for_no_confirmation(agent, tool, tool_page, folder):
    """ファイルを書く操作は、確認を出さない(上書きの前にも)。"""
    path = f"{folder}/kept.txt"
    for contents, subject in (("first", "new file"), ("second", "overwrite")):
        pending, asked = start_and_see(
            tool_page, agent.client, f"{tool}_write_file", {"path": path, "contents": contents}
        )
        if asked:
            tool_page.dialog.cancel.click()
        result = pending.result()
        with check(f"{tool}.write-no-confirm", subject=subject):
            assert not asked, f"{tool}_write_file asked for confirmation ({subject})"
            assert_success(f"{tool}_write_file", result)


@rules("delete-files-only")
def test_delete_removes_files_only(agent, tool, folder):
    """ファイルを消す操作はファイルだけを消す: ディレクトリは invalid_input、無いパスは not_found(確認の前に)。"""
    path = f"{folder}/sub/doomed.txt"
    write(agent, path, "harness")
    with check(f"{tool}.delete-files-only", subject="directory"):
        agent.fails(f"{tool}_delete_file", {"path": f"{folder}/sub"}, "invalid_input")
        assert agent.ok(f"{tool}_read_file", {"path": path})["contents"] == "harness", "the directory's file is gone"
    with check(f"{tool}.delete-files-only", subject="missing"):
        agent.fails(f"{tool}_delete_file", {"path": f"{folder}/missing.txt"}, "not_found")
    _, deleted = agent.confirm(f"{tool}_delete_file", {"path": path})
    with check(f"{tool}.delete-files-only", subject="file"):
        assert_success(f"{tool}_delete_file", deleted)
        assert deleted["path"] == path, deleted
        agent.fails(f"{tool}_read_file", {"path": path}, "not_found")


@pytest.mark.rules("limits.one-megabyte")
def test_contents_over_one_megabyte_of_utf8_is_too_large(agent, tool, folder):
    """contents は UTF-8 で 1 MB まで(文字ではなくバイト): 350,000 文字の日本語(1.05 MB)は too_large。"""
    path = f"{folder}/large.txt"
    with check("limits.one-megabyte"):
        agent.fails(f"{tool}_write_file", {"path": path, "contents": "あ" * 350_000}, "too_large")
        agent.fails(f"{tool}_write_file", {"path": path, "contents": "a" * (contract.ONE_MEGABYTE + 1)}, "too_large")
        agent.fails(f"{tool}_read_file", {"path": path}, "not_found")
