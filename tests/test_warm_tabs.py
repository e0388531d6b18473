"""A warm tab is given to the next scenario as a new tab would be (harness/warm_tabs.py)."""

from __future__ import annotations

import pytest

from harness import warm_tabs as warm_tabs_module
from harness.pages import RELAY_TAB_ID_KEY
from harness.server import FixtureServer, ReferenceConfig
from harness.targets import load_profile, served_at
from harness.warm_tabs import BLANK_PATH, WarmTabs


@pytest.fixture(scope="module")
def warm_tabs(noflag_chromium):
    with FixtureServer(ReferenceConfig(relay_port=9)) as server:
        tabs = WarmTabs(noflag_chromium, {}, served_at(load_profile("reference", None), server.origin, 9), trace=True)
        yield tabs
        tabs.close()


def test_the_next_scenario_gets_the_tab_reset_to_a_new_tabs_start(warm_tabs, tmp_path):
    first = warm_tabs.take("slides", "in-page", [], [], "first")
    first.storage.write(1)
    first.page.evaluate("sessionStorage.setItem('left', 'behind')")
    first.page.context.new_page()
    first.console.append("first scenario's line")
    old_tab_id = first.relay_tab_id
    warm_tabs.give_back(first, failed=False, artifacts=tmp_path)
    assert first.page.url.endswith(BLANK_PATH), "the tab runs its page on while it waits"

    second = warm_tabs.take("slides", "in-page", [], [], "second")
    assert second.page is first.page, "not warm: a new page"
    assert second.storage.raw() is None
    assert second.page.evaluate("sessionStorage.getItem('left')") is None
    assert second.page.context.pages == [second.page]
    assert "first scenario's line" not in second.console
    assert second.relay_tab_id != old_tab_id
    assert second.page.evaluate("(key) => sessionStorage.getItem(key)", RELAY_TAB_ID_KEY) == second.relay_tab_id
    warm_tabs.give_back(second, failed=False, artifacts=tmp_path)


def test_a_tab_whose_scenario_hit_harness_trouble_is_never_given_again(warm_tabs, tmp_path):
    failed = warm_tabs.take("slides", "in-page", [], [], "failing")
    warm_tabs.give_back(failed, failed=True, artifacts=tmp_path)
    assert failed.page.is_closed()
    assert (tmp_path / "warm-tab-failed.png").exists()
    assert warm_tabs.take("slides", "in-page", [], [], "next").page.context is not failed.page.context


def test_a_tab_whose_database_cannot_be_deleted_is_never_given_again(warm_tabs, tmp_path, monkeypatch):
    # A connection that outlives the tool page (here: the blank document's own, which ignores
    # versionchange) leaves the deletion pending, and the tool page's next open would wait behind it.
    monkeypatch.setattr(warm_tabs_module, "DELETE_BLOCKED_MS", 200)
    held = warm_tabs.take("slides", "in-page", [], [], "held")
    held.page.evaluate(
        "new Promise((done) => { const r = indexedDB.open('held', 1); r.onsuccess = () => { r.result.close(); done(); }; })"
    )
    held.page.add_init_script("if (location.pathname === %r) indexedDB.open('held', 1);" % BLANK_PATH)
    warm_tabs.give_back(held, failed=False, artifacts=tmp_path)
    assert held.page.is_closed()
    assert warm_tabs.take("slides", "in-page", [], [], "next").page.context is not held.page.context


def test_a_tab_whose_scenario_found_a_broken_rule_is_emptied_and_given_again(warm_tabs, tmp_path):
    found = warm_tabs.take("slides", "in-page", ["log-kept-over-reload"], [], "finding")
    found.page.evaluate("localStorage.setItem('left-over', '1')")
    warm_tabs.give_back(found, failed=True, artifacts=tmp_path, finding=True)
    assert (tmp_path / "warm-tab-failed.png").exists()
    again = warm_tabs.take("slides", "in-page", [], [], "next")
    assert again.page is found.page
    assert again.page.evaluate("localStorage.getItem('left-over')") is None


def test_without_traces_a_failed_tab_leaves_no_artifacts(warm_tabs, tmp_path):
    untraced = WarmTabs(warm_tabs.browser, {}, warm_tabs.target, trace=False)  # as the fault proof runs
    failed = untraced.take("slides", "in-page", [], [], "failing")
    untraced.give_back(failed, failed=True, artifacts=tmp_path)
    untraced.close()
    assert failed.page.is_closed()
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def test_call_paths_never_share_a_context(warm_tabs, tmp_path):
    in_page = warm_tabs.take("slides", "in-page", [], [], "in-page")
    warm_tabs.give_back(in_page, failed=False, artifacts=tmp_path)
    relay = warm_tabs.take("slides", "relay", [], [], "relay")
    assert relay.page.context is not in_page.page.context


def test_faults_and_latitudes_are_the_scenarios_own_also_in_a_warm_tab(warm_tabs, tmp_path):
    told = "() => [globalThis.referenceConfig.faults, globalThis.referenceConfig.latitudes]"
    fault = warm_tabs.take("slides", "in-page", ["log-kept-over-reload"], [], "fault")
    assert fault.page.evaluate(told) == [["log-kept-over-reload"], []]
    fault.page.reload()
    assert fault.page.evaluate(told) == [["log-kept-over-reload"], []], "lost on the scenario's own reload"
    warm_tabs.give_back(fault, failed=False, artifacts=tmp_path)
    latitude = warm_tabs.take("slides", "in-page", [], ["late-ui"], "latitude")
    assert latitude.page is fault.page, "not warm: a new page"
    assert latitude.page.evaluate(told) == [[], ["late-ui"]]
    warm_tabs.give_back(latitude, failed=False, artifacts=tmp_path)
    clean = warm_tabs.take("slides", "in-page", [], [], "clean")
    assert clean.page.evaluate(told) == [[], []]
