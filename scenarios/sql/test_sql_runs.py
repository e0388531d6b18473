"""sql_run_query's results (Design Doc SQL だけを動かすツールの操作, 入力と結果): one result per
statement, 200 rows at most, a failure's sqlState and position, one transaction, the time limit,
and no confirmation."""

import re
from itertools import pairwise

import jsonschema
import pytest
from playwright.sync_api import expect
from sql_agent import column, field_names, part, ran, run

from harness import contract, drivers
from harness.agent import assert_success, times_out_at_30_seconds
from harness.checks import check, picture
from harness.clients import start_and_see

pytestmark = pytest.mark.tool("sql")

MAX_ROWS = 200


def assert_sql_failure(result: dict) -> None:
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(contract.SQL_FAILURE).iter_errors(result))
    assert error is None, (
        f"not sql_run_query's failure shape at {'/'.join(map(str, error.absolute_path)) or 'the top'}: "
        f"{error.message}: {result}"
    )


@pytest.mark.rules("sql.per-statement")
def test_each_statement_has_a_result_of_its_own(agent, table):
    """複数の文を渡したときは、results に、文ごとの結果を入れる(affectedRows はその文の行の数)。"""
    result = run(
        agent,
        f"create table {table} (id integer primary key, name text);"
        f"insert into {table} values (1, 'a'), (2, 'b'), (3, 'c');"
        f"update {table} set name = 'x' where id < 3;"
        f"select id, name from {table} order by id;"
        f"select column_name from information_schema.columns where table_name = '{table}' order by ordinal_position;",
    )
    with check("sql.per-statement"):
        assert_success("sql_run_query", result)
        statements = result["results"]
        assert len(statements) == 5, f"{len(statements)} results for 5 statements: {statements}"
        _, inserted, updated, selected, columns = statements
        assert (inserted["affectedRows"], updated["affectedRows"]) == (3, 2), (
            f"affectedRows of the insert and the update: {inserted['affectedRows']}, {updated['affectedRows']}"
        )
        assert field_names(selected) == ["id", "name"], selected["fields"]
        assert column(selected, "id") == [1, 2, 3] and column(selected, "name") == ["x", "x", "c"], selected["rows"]
        assert (selected["totalRows"], selected["truncated"]) == (3, False), selected
        assert column(columns, "column_name") == ["id", "name"], f"information_schema: {columns['rows']}"


@pytest.mark.rules("sql.rows-200")
def test_rows_stop_at_200_with_the_total_and_truncated(agent):
    """rows は、文ごとに、先頭の 200 行までにする。totalRows に全体の行の数、切り詰めたときは truncated を true。"""
    result = run(agent, "select n from generate_series(1, 250) as n; select n from generate_series(1, 200) as n;")
    with check("sql.rows-200", subject="250 rows"):
        assert_success("sql_run_query", result)  # its shape allows 200 rows at most
        over, exactly = result["results"]
        assert column(over, "n") == list(range(1, MAX_ROWS + 1)), (
            f"rows are not the first 200: {len(over['rows'])} rows"
        )
        assert (over["totalRows"], over["truncated"]) == (250, True), {k: over[k] for k in ("totalRows", "truncated")}
    with check("sql.rows-200", subject="200 rows"):
        assert len(exactly["rows"]) == MAX_ROWS
        assert (exactly["totalRows"], exactly["truncated"]) == (MAX_ROWS, False), {
            k: exactly[k] for k in ("totalRows", "truncated")
        }


@pytest.mark.rules("sql.error-fields")
def test_a_failure_carries_sqlstate_and_position_beside_error(agent):
    """SQL が失敗したときは failed を返し、sqlState と position を error の外に置く(Design Doc の例のとおり)。"""
    result = run(agent, "select * from no_such_table_harness")
    with check("sql.error-fields", subject="undefined table"):
        assert_sql_failure(result)
        assert (result.get("sqlState"), result.get("position")) == ("42P01", 15), result


@pytest.mark.rules("sql.error-fields")
def test_a_failure_without_a_position_has_no_position(agent):
    """SqlResponse の error に位置が無いときは、position を持たない(null も置かない)。"""
    result = run(agent, "select 1 / 0")
    with check("sql.error-fields"):
        assert_sql_failure(result)
        assert result.get("sqlState") == "22012", result  # division_by_zero: Postgres gives no position
        assert "position" not in result, f"position is there without a place in the SQL: {result}"


@pytest.mark.rules("sql.rollback")
def test_one_failing_statement_takes_back_every_statement(agent, table):
    """複数の文のうち 1 つが失敗したときは、全ての文の変更を取り消す。"""
    ran(agent, f"create table {table} (id integer primary key); insert into {table} values (1);")
    result = run(
        agent, f"insert into {table} values (2); delete from {table} where id = 1; insert into {table} values (2);"
    )
    [kept] = ran(agent, f"select id from {table} order by id;")
    with check("sql.rollback"):
        assert result.get("ok") is False and result["error"]["code"] == "failed", result
        assert column(kept, "id") == [1], (
            f"the statements before the failing one stayed: the table holds {kept['rows']}"
        )


@pytest.mark.rules("sql.no-confirm")
def test_drop_and_delete_run_without_asking(agent, tool_page, table):
    """確認を出さない。DROP と DELETE を含む SQL も、確認なしで実行する。"""
    ran(agent, f"create table {table} (id integer); insert into {table} values (1), (2);")
    for sql in (f"delete from {table} where id = 1;", f"drop table {table};"):
        pending, asked = start_and_see(tool_page, agent.client, "sql_run_query", {"sql": sql})
        if asked:
            tool_page.dialog.cancel.click()
        with check("sql.no-confirm", subject=sql.split()[0].upper()):
            assert not asked, f"「{sql}」 asked for confirmation"
            assert_success("sql_run_query", pending.result())


@pytest.mark.rules("sql.busy")
def test_a_second_call_during_a_run_is_not_ready(agent):
    """実行中に、もう 1 つの sql_run_query が呼ばれたときは、後の呼び出しに not_ready を返す。"""
    first = agent.client.start("sql_run_query", {"sql": "select pg_sleep(2), 'harness-first' as marker"})
    agent.read()  # answered only once the calls started before it have arrived
    second = agent.client.call("sql_run_query", {"sql": "select 'harness-second'"})
    with check("sql.busy"):
        assert second.get("ok") is False and second["error"]["code"] == "not_ready", second
    assert_success("sql_run_query", first.result())


@pytest.mark.rules("sql.timeout")
@pytest.mark.profile("reset_notice")
def test_past_its_timeout_the_database_is_back_to_its_start_and_the_page_says_so(agent, tool_page, target, table):
    """上限までに終わらないときは、Web Worker を作り直して timeout を返す。DB の中身は初期の状態に戻り、
    SQL の画面は、AI からの操作で DB を初期の状態に戻したことを出す。"""
    notice = part(tool_page, target, "reset_notice")
    expect(notice).not_to_be_visible()
    ran(agent, f"create table {table} (id integer); insert into {table} values (1);")
    result = run(agent, "select pg_sleep(5)", timeout_ms=1000)
    with check("sql.timeout", subject="result"):
        assert result.get("ok") is False and result["error"]["code"] == "timeout", result
    with check("sql.timeout", subject="notice"):
        expect(notice).to_be_visible()
        picture("sql.timeout", notice)
    after = agent.client.call_when_ready("sql_run_query", {"sql": f"select count(*) from {table}"})
    with check("sql.timeout", subject="database"):
        assert after.get("ok") is False and after.get("sqlState") == "42P01", (
            f"the table made before the timeout is still there: {after}"
        )


@pytest.mark.rules("sql.timeout")
@pytest.mark.needs(drivers.PAGE_CLOCK)
@pytest.mark.one_driver("the default limit is the page's, whichever way the call arrives")
def test_without_timeout_ms_the_limit_is_30_seconds(context, clocked_agent):
    """timeoutMs のデフォルトは 30,000: 省いた呼び出しは、30 秒までは終わらず、30 秒を過ぎると timeout になる。"""
    ran(clocked_agent, "select 1")  # PGlite loaded: its load is outside the limit
    times_out_at_30_seconds(
        context,
        clocked_agent.tool_page,
        lambda: clocked_agent.client.start("sql_run_query", {"sql": "select pg_sleep(600)"}),
        clocked_agent.read,  # answered only once the run before it has arrived
        "sql.timeout",
    )


def description_of_run(agent) -> str:
    return next(info for info in agent.client.tools() if info.name == "sql_run_query").description


LIMIT_WORDS = re.compile(r"timeoutMs|時間の上限|上限の時間|制限時間|タイムアウト|time ?limit|time ?out", re.I)
RESET_WORDS = re.compile(r"初期(の)?状態|最初の状態|リセット|作り直|消え|空に|元に戻|reset|initial state", re.I)


@pytest.mark.rules("sql.timeout-described")
def test_the_description_says_the_database_resets_past_the_limit(agent):
    """操作の説明の文に、時間の上限を過ぎると DB の中身が初期の状態に戻ることを書く。"""
    description = description_of_run(agent)
    # What the description must tell, in whatever words: a sentence names the limit, and it or the
    # next one (「このとき…」) the DB going back to its start.
    sentences = [*re.split(r"(?<=[。.!?])", description), ""]
    with check("sql.timeout-described"):
        assert any(
            LIMIT_WORDS.search(sentence) and RESET_WORDS.search(sentence + after)
            for sentence, after in pairwise(sentences)
        ), (
            f"no sentence of the description says that past the time limit the DB goes back to its initial state: {description!r}"
        )


@pytest.mark.rules("sql.sdk-timeout-described")
def test_the_description_tells_of_the_sdks_60_seconds(agent):
    """60 秒を超える値の扱いは、node_run_command と同じ: 説明の文に、MCP の SDK が待つ時間のデフォルトの 60 秒を書く。"""
    description = description_of_run(agent)
    with check("sql.sdk-timeout-described"):
        assert re.search(r"60\s*秒", description), f"the description says nothing of 60 秒: {description!r}"
        assert "SDK" in description, f"the description does not name the SDK: {description!r}"


@pytest.mark.rules("limits.one-megabyte")
def test_sql_over_one_megabyte_of_utf8_is_too_large(agent):
    """sql_run_query の sql は UTF-8 で 1 MB まで(文字ではなくバイト): 350,000 文字の日本語(1.05 MB)は too_large。"""
    with check("limits.one-megabyte"):
        agent.fails("sql_run_query", {"sql": f"select length('{'あ' * 350_000}')"}, "too_large")


@pytest.mark.rules("limits.one-megabyte")
def test_sql_of_exactly_one_megabyte_runs(agent):
    """1 MB ちょうどの sql は上限を超えない。"""
    head, tail = "select length('", "')"
    sql = head + "a" * (contract.ONE_MEGABYTE - len(head) - len(tail)) + tail
    result = run(agent, sql)
    with check("limits.one-megabyte"):
        assert_success("sql_run_query", result)
        assert column(result["results"][0], "length") == [contract.ONE_MEGABYTE - len(head) - len(tail)], result[
            "results"
        ]
