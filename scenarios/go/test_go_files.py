"""go's own file rules (Design Doc Go を動かすツールの操作): directories that may be empty, no exclude
rule, text, and the editor and IndexedDB updated as by the user; the rules it shares with node are
scenarios/test_files.py's."""

import pytest
from go_agent import is_field, reloaded, text_of, write, write_all
from playwright.sync_api import expect

from harness import drivers
from harness.agent import assert_success
from harness.checks import check

pytestmark = pytest.mark.tool("go")

MAX_ENTRIES = 1000


def listed(agent, path: str | None = None) -> dict:
    result = agent.client.call("go_list_files", {} if path is None else {"path": path})
    assert_success("go_list_files", result)
    return {entry["path"]: entry["kind"] for entry in result["entries"]}


def file_in_editor(agent, shown: str) -> str:
    """The project's file whose contents the editor shows."""
    files = [path for path, kind in listed(agent).items() if kind == "file"]
    open_file = next(
        (path for path in files if agent.client.call("go_read_file", {"path": path}).get("contents") == shown), None
    )
    assert open_file, "no file of the project holds what the editor shows"
    return open_file


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
        assert (len(over["entries"]), over["truncated"]) == (MAX_ENTRIES, True), {
            "entries": len(over["entries"]),
            "truncated": over["truncated"],
        }


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


@pytest.mark.rules("go.read-current")
@pytest.mark.profile("editor")
def test_read_returns_what_the_editor_holds_now(agent, tool_page, target):
    """go_read_file は今のファイルを読む: 利用者がエディタで書き換えた直後(保存の前)の中身を返す。"""
    editor = tool_page.page.locator(target.hook("go", "editor"))
    shown = text_of(editor)
    open_file = file_in_editor(agent, shown)
    typed = "// harness: typed by the user\n"
    if is_field(editor):
        editor.fill(typed + shown)
    else:  # an editor of its own markup (CodeMirror, Monaco): typed at its start
        editor.click()
        tool_page.page.keyboard.press("Control+Home")
        tool_page.page.keyboard.type(typed)
    now = text_of(editor)
    with check("go.read-current"):
        read = agent.client.call("go_read_file", {"path": open_file})
        assert read.get("contents") == now, (
            f"go_read_file({open_file}) does not return what the editor holds now: {read}"
        )


@pytest.mark.rules("go.editor-saved")
@pytest.mark.profile("editor")
def test_an_agents_write_shows_in_the_editor_and_is_saved(agent, tool_page, target):
    """ファイルを書く操作では、エディタの表示と IndexedDB への保存が、利用者が書き換えたときと同じように更新される。"""
    editor = tool_page.page.locator(target.hook("go", "editor"))
    shown = text_of(editor)
    open_file = file_in_editor(agent, shown)
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
