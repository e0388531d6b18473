"""The sql page and the agent (Design Doc SQL だけを動かすツールの操作; ADR-0044 Decision 4): the
input's SQL and the results table are the user's, the run button shows the agent's runs."""

import pytest
from playwright.sync_api import expect
from sql_agent import column, part, ran, reloaded, run, text_of

from harness import limits
from harness.agent import assert_success, every_operation_is_not_ready
from harness.checks import check, picture
from harness.loading import HeldLoading
from harness.tools import of

pytestmark = pytest.mark.tool("sql")


@pytest.mark.rules("sql.not-ready")
@pytest.mark.profile("hold_loading")
def test_both_operations_are_not_ready_until_the_project_and_saved_sql_are_read(target, open_tool, client_for):
    """プロジェクトと、保存した SQL の、どちらかを読み終えていないときは、どちらの操作も not_ready を返す。"""
    tool_page = open_tool("sql", navigate=False)
    loading = HeldLoading(tool_page, target.hook("sql", "hold_loading"))
    client = client_for(tool_page)
    every_operation_is_not_ready(tool_page, client, "sql.not-ready")
    loading.release()
    loaded = client.call_when_ready("sql_read_query")
    assert loaded["ok"] is True, f"sql did not become ready once its loading went on: {loaded}"


@pytest.mark.rules("sql.read-current")
@pytest.mark.profile("input")
def test_read_returns_what_the_input_holds_now(agent, tool_page, target, table):
    """sql_read_query は、入力欄の今の SQL を返す(利用者が書き換えた直後でも)。"""
    typed = f"select count(*) from {table}; -- harness"
    part(tool_page, target, "input").fill(typed)
    with check("sql.read-current"):
        assert agent.read()["sql"] == typed


@pytest.mark.rules("sql.input-untouched")
@pytest.mark.profile("input")
def test_an_agents_run_leaves_the_input_as_it_was(agent, tool_page, target, table):
    """どちらの操作も、入力欄の SQL を書き換えない。"""
    sql_input = part(tool_page, target, "input")
    typed = "select 'the user''s own query';"
    sql_input.fill(typed)
    result = run(agent, f"create table {table} (id integer); select 'harness-agent';")
    assert_success("sql_run_query", result)
    agent.read()
    with check("sql.input-untouched"):
        assert text_of(sql_input) == typed, f"the input now holds {text_of(sql_input)!r}"


@pytest.mark.rules("sql.saved-untouched")
@pytest.mark.profile("input")
def test_the_users_saved_sql_is_back_after_an_agents_calls_and_a_reload(agent, tool_page, target, table):
    """利用者が書いて保存した SQL は、エージェントの操作で変わらない: 読み込み直しても、利用者の SQL が出る。"""
    typed = f"select 'the user''s saved query' from {table};"
    part(tool_page, target, "input").fill(typed)  # saved as the user types, as the page saves it
    assert_success("sql_run_query", run(agent, f"create table {table} (id integer); select 'harness-agent';"))
    agent.read()
    reloaded(agent, saved=(typed,))
    with check("sql.saved-untouched"):
        shown = text_of(part(tool_page, target, "input"))
        assert shown == typed, f"after the agent's calls and a reload the input holds {shown!r}, not the user's SQL"
        assert agent.read()["sql"] == typed


@pytest.mark.rules("sql.db-not-kept")
def test_a_reload_brings_the_database_back_to_its_start(agent, table):
    """DB の中身は保存しない: エージェントが作った表は、ページを読み込み直すと無い。"""
    assert_success("sql_run_query", run(agent, f"create table {table} (id integer); insert into {table} values (1);"))
    reloaded(agent)
    with check("sql.db-not-kept"):
        statement = ran(agent, f"select to_regclass('{table}') is null as gone;")[0]
        assert column(statement, "gone") == [True], f"{table} is still there after a reload: {statement}"


@pytest.mark.rules("sql.one-database")
@pytest.mark.profile("input", "run", "running", "results")
def test_the_agent_and_the_run_button_use_one_database(agent, tool_page, target, table):
    """sql_run_query は画面の実行のボタンと同じ SqlDatabase の run を呼ぶ: 一方が書いたものを、もう一方が読める。"""
    assert_success(
        "sql_run_query",
        run(agent, f"create table {table} (v text); insert into {table} values ('harness-by-the-agent');"),
    )
    sql_input, results = part(tool_page, target, "input"), part(tool_page, target, "results")
    sql_input.fill(f"select v from {table};")
    part(tool_page, target, "run").click()
    with check("sql.one-database", subject="the agent's, read by the button"):
        expect(results).to_contain_text("harness-by-the-agent")
    sql_input.fill(f"insert into {table} values ('harness-by-the-button');")
    part(tool_page, target, "run").click()
    expect(part(tool_page, target, "running")).to_have_count(0)
    read = agent.client.call_when_ready("sql_run_query", {"sql": f"select v from {table} order by v;"})
    with check("sql.one-database", subject="the button's, read by the agent"):
        assert_success("sql_run_query", read)
        assert "harness-by-the-button" in column(read["results"][0], "v"), read


@pytest.mark.rules("sql.results-untouched")
@pytest.mark.profile("input", "results", "run", "running")
def test_an_agents_run_leaves_the_results_table_as_it_was(agent, tool_page, target):
    """結果は操作の記録の欄にだけ出す。SQL の画面の結果の表は、変えない。"""
    part(tool_page, target, "input").fill("select 'harness-user' as who;")
    part(tool_page, target, "run").click()
    results = part(tool_page, target, "results")
    expect(results).to_contain_text("harness-user")
    expect(part(tool_page, target, "running")).to_have_count(0)
    shown = text_of(results)
    result = run(agent, "select 'harness-agent' as who;")
    assert_success("sql_run_query", result)
    tool_page.log.wait_for_success_row("sql_run_query")  # the run is on screen where it belongs
    with check("sql.results-untouched"):
        expect(results).not_to_contain_text("harness-agent")
        assert text_of(results) == shown, "the results table changed with the agent's run"


@pytest.mark.rules("sql.run-button-busy")
@pytest.mark.profile("running")
def test_the_run_button_shows_an_agents_run(agent, tool_page, target):
    """エージェントの操作で実行している間は、画面の実行のボタンを、実行中の表示にする。"""
    running = part(tool_page, target, "running")
    expect(running).to_have_count(0)
    name, arguments = of("sql").long_call("harness-running")
    pending = agent.client.start(name, arguments)
    with check("sql.run-button-busy"):
        expect(running).to_be_visible()
        picture("sql.run-button-busy", running)
    assert_success(name, pending.result())
    with check("sql.run-button-busy", subject="after the run"):
        expect(running).to_have_count(0)


@pytest.mark.rules("sql.busy")
@pytest.mark.profile("input", "run", "running")
def test_a_call_during_the_users_button_run_is_not_ready(agent, tool_page, target):
    """利用者がボタンで実行している間に来た sql_run_query には not_ready を返す。"""
    part(tool_page, target, "input").fill("select pg_sleep(2), 'harness-user' as who;")
    part(tool_page, target, "run").click()
    running = part(tool_page, target, "running")
    expect(running).to_be_visible()
    pending = agent.client.start("sql_run_query", {"sql": "select 'harness-agent'"})
    with check("sql.busy"):
        result = pending.result()
        assert result.get("ok") is False and result["error"]["code"] == "not_ready", result
    # The user's run ends as a call would answer (on a busy machine, PGlite's first load may be in it).
    expect(running).to_have_count(0, timeout=limits.CALL_RESULT * 1000)
