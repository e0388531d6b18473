"""go's four file operations (Design Doc Go を動かすツールの操作): node's contract, with directories
that may be empty, no exclude rule, and the editor and IndexedDB updated as by the user."""

import pytest
from go_agent import is_field, reloaded, text_of, write, write_all
from playwright.sync_api import expect

from harness import contract, drivers
from harness.agent import assert_success
from harness.checks import check
from harness.clients import start_and_see

pytestmark = pytest.mark.tool("go")

MAX_ENTRIES = 1000


def listed(agent, path: str | None = None) -> dict:
    result = agent.client.call("go_list_files", {} if path is None else {"path": path})
    assert_success("go_list_files", result)
    return {entry["path"]: entry["kind"] for entry in result["entries"]}


@pytest.mark.rules("go.relative-paths")
def test_paths_outside_or_absolute_are_invalid_input(agent, folder):
    """パスは相対パスだけ: .. で外へ出るパスと絶対パスは invalid_input。"""
    for path in ("../outside.txt", f"{folder}/../../outside.txt", "/etc/hostname", "/main.go"):
        with check("go.relative-paths", subject=path):
            agent.fails("go_read_file", {"path": path}, "invalid_input")
            agent.fails("go_write_file", {"path": path, "contents": "x"}, "invalid_input")
            agent.fails("go_delete_file", {"path": path}, "invalid_input")
    with check("go.relative-paths", subject="list"):
        agent.fails("go_list_files", {"path": "../"}, "invalid_input")


@pytest.mark.rules("go.list-all-levels")
def test_list_returns_every_level_under_path(agent, folder):
    """go_list_files は path の下の全ての階層を返し、path を省くと全体を返す。"""
    write(agent, f"{folder}/a/b/c.txt", "c")
    write(agent, f"{folder}/top.txt", "t")
    expected = {f"{folder}/a": "directory", f"{folder}/a/b": "directory", f"{folder}/a/b/c.txt": "file",
                f"{folder}/top.txt": "file"}
    under, whole = listed(agent, folder), listed(agent)
    with check("go.list-all-levels", subject="path"):
        assert under == expected, f"go_list_files({folder!r}) gave {under}"
    with check("go.list-all-levels", subject="whole"):
        assert expected.items() <= whole.items(), f"the whole list lacks {set(expected) - set(whole)}"


@pytest.mark.rules("go.list-empty-directories")
def test_an_emptied_directory_is_listed_and_kept(agent, tool_page, folder):
    """空のディレクトリも保存し、go_list_files は空のディレクトリも entries に入れる(読み込み直した後も)。"""
    write(agent, f"{folder}/empty/only.txt", "x")
    _, deleted = agent.confirm("go_delete_file", {"path": f"{folder}/empty/only.txt"})
    assert_success("go_delete_file", deleted)
    with check("go.list-empty-directories", subject="after the delete"):
        assert listed(agent, folder) == {f"{folder}/empty": "directory"}
    reloaded(agent, absent=(f"{folder}/empty/only.txt",))
    with check("go.list-empty-directories", subject="after a reload"):
        assert listed(agent, folder) == {f"{folder}/empty": "directory"}


@pytest.mark.rules("go.list-truncated")
@pytest.mark.needs(drivers.BULK_CALLS)
def test_list_stops_at_1000_entries_with_truncated(agent, folder):
    """go_list_files は 1,000 件までにし、切り詰めたときは truncated を true にする。"""
    write_all(agent, {f"{folder}/f{index}.txt": "x" for index in range(MAX_ENTRIES)})
    exactly = agent.client.call("go_list_files", {"path": folder})
    with check("go.list-truncated", subject="1,000"):
        assert_success("go_list_files", exactly)
        assert (len(exactly["entries"]), exactly["truncated"]) == (MAX_ENTRIES, False)
    write(agent, f"{folder}/one-more.txt", "x")
    over = agent.client.call("go_list_files", {"path": folder})
    with check("go.list-truncated", subject="1,001"):
        assert_success("go_list_files", over)  # its shape allows 1,000 entries at most
        assert (len(over["entries"]), over["truncated"]) == (MAX_ENTRIES, True), \
            {"entries": len(over["entries"]), "truncated": over["truncated"]}


@pytest.mark.rules("go.list-no-exclude")
def test_no_exclude_rule_hides_a_path(agent, folder):
    """保存しないファイルの規則の exclude は、使わない: node_modules も .git も一覧に出る。"""
    for path in (f"{folder}/node_modules/x.txt", f"{folder}/.git/config", f"{folder}/dist/out.txt"):
        write(agent, path, "x")
    found = listed(agent, folder)
    with check("go.list-no-exclude"):
        for path in ("node_modules/x.txt", ".git/config", "dist/out.txt"):
            assert found.get(f"{folder}/{path}") == "file", f"{path} is not listed: {sorted(found)}"


@pytest.mark.rules("go.read-not-text")
@pytest.mark.profile("binary_file")
def test_a_file_that_is_not_text_is_invalid_input(agent, target):
    """ファイルは UTF-8 のテキスト: テキストとして読めないファイルは invalid_input。"""
    path = target.hook("go", "binary_file")
    with check("go.read-not-text"):
        agent.fails("go_read_file", {"path": path}, "invalid_input")


@pytest.mark.rules("go.read-missing")
def test_a_missing_file_is_not_found(agent, folder):
    with check("go.read-missing"):
        agent.fails("go_read_file", {"path": f"{folder}/missing.go"}, "not_found")


@pytest.mark.rules("go.write")
def test_write_creates_parents_and_overwrites(agent, folder):
    """go_write_file は、ファイルがあれば上書きし、無ければ作り、親のディレクトリが無ければ作る。"""
    path = f"{folder}/new/deep/file.txt"
    created = agent.client.call("go_write_file", {"path": path, "contents": "first"})
    with check("go.write", subject="parents"):
        assert_success("go_write_file", created)
        assert created["path"] == path, created
        assert listed(agent, folder).get(f"{folder}/new/deep") == "directory"
    write(agent, path, "second")
    with check("go.write", subject="overwrite"):
        assert agent.ok("go_read_file", {"path": path})["contents"] == "second"


@pytest.mark.rules("go.write-no-confirm")
def test_write_never_asks(agent, tool_page, folder):
    """go_write_file は、上書きの前に確認を出さない。"""
    path = f"{folder}/asked.txt"
    for contents, subject in (("first", "new file"), ("second", "overwrite")):
        pending, asked = start_and_see(tool_page, agent.client, "go_write_file", {"path": path, "contents": contents})
        if asked:
            tool_page.dialog.cancel.click()
        with check("go.write-no-confirm", subject=subject):
            assert not asked, f"go_write_file asked ({subject})"
            assert_success("go_write_file", pending.result())


@pytest.mark.rules("go.delete-files-only")
def test_delete_takes_files_only(agent, folder):
    """go_delete_file はファイルだけを消す: ディレクトリは invalid_input、無いパスは not_found。"""
    path = f"{folder}/sub/file.txt"
    write(agent, path, "x")
    with check("go.delete-files-only", subject="directory"):
        agent.fails("go_delete_file", {"path": f"{folder}/sub"}, "invalid_input")
        assert agent.ok("go_read_file", {"path": path})["contents"] == "x"
    with check("go.delete-files-only", subject="missing"):
        agent.fails("go_delete_file", {"path": f"{folder}/missing.txt"}, "not_found")
    _, deleted = agent.confirm("go_delete_file", {"path": path})
    with check("go.delete-files-only", subject="file"):
        assert_success("go_delete_file", deleted)
        agent.fails("go_read_file", {"path": path}, "not_found")


@pytest.mark.rules("limits.one-megabyte")
def test_contents_over_one_megabyte_of_utf8_is_too_large(agent, folder):
    """contents は UTF-8 で 1 MB まで(文字ではなくバイト): 350,000 文字の日本語(1.05 MB)は too_large。"""
    path = f"{folder}/large.txt"
    with check("limits.one-megabyte"):
        agent.fails("go_write_file", {"path": path, "contents": "あ" * 350_000}, "too_large")
        agent.fails("go_read_file", {"path": path}, "not_found")


@pytest.mark.rules("go.editor-saved")
@pytest.mark.profile("editor")
def test_an_agents_write_shows_in_the_editor_and_is_saved(agent, tool_page, target):
    """ファイルを書く操作では、エディタの表示と IndexedDB への保存が、利用者が書き換えたときと同じように更新される。"""
    editor = tool_page.page.locator(target.hook("go", "editor"))
    shown = text_of(editor)
    files = [path for path, kind in listed(agent).items() if kind == "file"]
    open_file = next((path for path in files if agent.client.call("go_read_file", {"path": path}).get("contents") == shown), None)
    assert open_file, "no file of the project holds what the editor shows"
    contents = shown + "\n// harness: written by the agent\n"
    write(agent, open_file, contents)
    with check("go.editor-saved", subject="editor"):
        if is_field(editor):
            expect(editor).to_have_value(contents)
        else:  # an editor of its own markup (CodeMirror, Monaco) shows the text as its lines
            expect(editor).to_contain_text("// harness: written by the agent")
    reloaded(agent, present=(contents,))
    with check("go.editor-saved", subject="saved"):
        assert agent.ok("go_read_file", {"path": open_file})["contents"] == contents, "the write was not saved"
