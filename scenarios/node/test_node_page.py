"""The node page: the runtime's boot and restart (Design Doc 実行環境の操作, コードの置き場) and the log in
the bottom pane's tab 「AI からの操作」 (操作の記録の欄, 許可のスイッチ)."""

import pytest
from playwright.sync_api import expect

from harness import drivers
from harness.agent import assert_success, every_operation_is_not_ready, switch_on
from harness.checks import check
from harness.loading import HeldLoading
from harness.pages import SEVEN_DAYS_MS, SWITCH_LABEL

pytestmark = pytest.mark.tool("node")

BOTTOM_TABS = ("端末", "コンソール", "HTTP")


@pytest.mark.rules("node.not-ready")
@pytest.mark.profile("hold_loading")
def test_every_operation_is_not_ready_before_the_runtime_boots(target, open_tool, client_for):
    """実行環境が起動していないときは、どの操作も not_ready を返す。"""
    tool_page = open_tool("node", navigate=False)
    loading = HeldLoading(tool_page, target.hook("node", "hold_loading"))
    client = client_for(tool_page)
    every_operation_is_not_ready(tool_page, client, "node.not-ready")
    loading.release()
    loaded = client.call_when_ready("node_list_files")
    assert loaded["ok"] is True, f"node did not become ready once its loading went on: {loaded}"


@pytest.mark.rules("node.not-ready")
@pytest.mark.profile("hold_loading")
def test_every_operation_is_not_ready_after_a_failed_boot(target, open_tool, client_for):
    """実行環境の起動に失敗したときは、どの操作も not_ready を返す。"""
    tool_page = open_tool("node", navigate=False)
    loading = HeldLoading(tool_page, target.hook("node", "hold_loading"))
    loading.fail()
    every_operation_is_not_ready(tool_page, client_for(tool_page), "node.not-ready")


@pytest.mark.rules("node.restart")
@pytest.mark.profile("restart")
def test_calls_after_a_restart_use_the_new_runtime(agent, tool_page, target, folder):
    """実行環境を起動し直した後も、操作は新しい NodeRuntime を使う。"""
    restart = tool_page.page.locator(target.hook("node", "restart"))
    agent.ok("node_list_files")
    restart.click()
    listed = agent.client.call_when_ready("node_list_files")
    with check("node.restart"):
        assert_success("node_list_files", listed)
        written = agent.client.call("node_write_file", {"path": f"{folder}/after-restart.txt", "contents": "harness"})
        assert_success("node_write_file", written)
        ran = agent.client.call("node_run_command", {"command": "cat", "args": [f"{folder}/after-restart.txt"]})
        assert_success("node_run_command", ran)
        assert ran["exitCode"] == 0 and "harness" in ran["output"], ran


@pytest.mark.rules("node.log-tab", "log.visibility")
def test_the_log_is_a_tab_beside_the_terminal_console_and_http(agent, tool_page):
    """下のペインのタブ(端末、コンソール、HTTP)に「AI からの操作」のタブを足し、記録はそのタブにある。"""
    page = tool_page.page
    ai_tab = page.get_by_role("tab", name=SWITCH_LABEL, exact=True)
    with check("node.log-tab", subject="tabs"):
        expect(ai_tab).to_be_visible()
        tablist = page.get_by_role("tablist").filter(has=ai_tab)
        for label in BOTTOM_TABS:
            expect(tablist.get_by_role("tab", name=label, exact=True)).to_be_visible()
    agent.ok("node_run_command", {"command": "echo", "args": ["harness-in-the-tab"]})
    ai_tab.click()
    with check("node.log-tab", subject="rows"):
        panel = page.get_by_role("tabpanel", name=SWITCH_LABEL, exact=True)
        expect(panel.get_by_role("log")).to_be_visible()
        expect(panel.get_by_role("log").get_by_text("harness-in-the-tab").first).to_be_visible()
    tool_page.turn_off()
    with check("log.visibility"):
        expect(ai_tab).to_have_count(0)


@pytest.mark.rules("node.tab-selection")
def test_switching_off_on_the_ai_tab_shows_the_terminal_and_keeps_the_selection(agent, tool_page):
    """「AI からの操作」のタブを選んでいてオフになると端末のタブを出す。選択は書き換えないので、オンに戻すとまた出る。"""
    page = tool_page.page
    ai_tab = page.get_by_role("tab", name=SWITCH_LABEL, exact=True)
    terminal_tab = page.get_by_role("tab", name="端末", exact=True)
    ai_tab.click()
    expect(ai_tab).to_have_attribute("aria-selected", "true")
    tool_page.switch.click()  # off, as the user
    expect(tool_page.switch).not_to_be_checked()
    with check("node.tab-selection", subject="off"):
        expect(terminal_tab).to_have_attribute("aria-selected", "true")
        expect(page.get_by_role("tabpanel", name="端末")).to_be_visible()
    tool_page.switch.click()  # on again: the selection was still 「AI からの操作」
    expect(tool_page.switch).to_be_checked()
    with check("node.tab-selection", subject="on again"):
        expect(ai_tab).to_have_attribute("aria-selected", "true")
        expect(page.get_by_role("tabpanel", name=SWITCH_LABEL, exact=True).get_by_role("log")).to_be_visible()


def ai_tab_selected_then(tool_page, switched_off) -> None:
    """Select 「AI からの操作」, let `switched_off()` turn the switch off, and see the terminal shown."""
    page = tool_page.page
    page.get_by_role("tab", name=SWITCH_LABEL, exact=True).click()
    switched_off()
    expect(tool_page.switch).not_to_be_checked()
    with check("node.tab-selection"):
        expect(page.get_by_role("tab", name="端末", exact=True)).to_have_attribute("aria-selected", "true")
        expect(page.get_by_role("tabpanel", name="端末")).to_be_visible()


@pytest.mark.rules("node.tab-selection")
def test_the_terminal_is_shown_when_another_tab_switches_off(open_tool, client_for):
    """ほかのタブの操作でオフになったときも、「AI からの操作」を選んでいたタブは端末のタブを出す。"""
    watched, other = open_tool("node"), open_tool("node")
    switch_on(watched, client_for(watched))
    expect(other.switch).to_be_checked()  # the storage event turned it on too
    ai_tab_selected_then(watched, other.turn_off)


@pytest.mark.rules("node.tab-selection")
@pytest.mark.needs(drivers.PAGE_CLOCK)
@pytest.mark.one_driver("the expiry is the page's, whichever way calls arrive")
def test_the_terminal_is_shown_when_the_switch_expires(context, clocked_agent):
    """期限(オンにしてから 7 日)でオフになったときも、「AI からの操作」を選んでいたタブは端末のタブを出す。"""
    ai_tab_selected_then(clocked_agent.tool_page, lambda: context.clock.fast_forward(SEVEN_DAYS_MS + 1_000))
