"""The SQL tool (PGlite, Design Doc SQL だけを動かすツールの操作): the input's SQL, and running SQL
of the agent's own.

An agent never changes what the page keeps (the input's SQL, the results table), so there is
no write whose text a read returns."""

from harness import schemas
from harness.tools import Tool


def literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


OPERATIONS = (
    schemas.Operation(
        "sql_read_query",
        "sql",
        "入力欄の SQL を返す",
        frozenset({schemas.READ_ONLY, schemas.UNTRUSTED}),
        schemas.obj(),
        schemas.ok({"sql": schemas.STRING}),
        errors=("not_ready",),
    ),
    schemas.Operation(
        "sql_run_query",
        "sql",
        "渡した SQL を実行し、結果を返す",
        frozenset({schemas.CONSEQUENTIAL, schemas.UNTRUSTED}),
        schemas.obj({"sql": schemas.STRING, "timeoutMs": schemas.TIMEOUT_MS}, ("sql",)),
        schemas.ok({"results": {"type": "array", "items": schemas.SQL_RESULT}, "ms": schemas.NUMBER}),
        errors=("not_ready", "timeout", "failed", "too_large"),
        example={"sql": "select 1"},
    ),
)


TOOL = Tool(
    name="sql",
    order=2,
    canvas=False,
    operations=OPERATIONS,
    hooks=("hold_loading", "engine", "input", "run", "running", "results", "reset_notice"),
    valid_input=lambda op, client, marker: (
        {"sql": f"select {literal(marker)} as marker"} if op.name == "sql_run_query" else None
    ),
    text_call=lambda text: ("sql_run_query", {"sql": f"select {literal(text)}"}),
    kept_text_calls=None,
    failing_call=lambda: ("sql_run_query", {"sql": "select * from no_such_table_harness"}),
    long_call=lambda marker: ("sql_run_query", {"sql": f"select pg_sleep(2), {literal(marker)} as marker"}),
    engine_call=("sql_run_query", {"sql": "select 1"}),
    rules=(
        (
            "DD",
            "SQL だけを動かすツールの操作",
            (
                (
                    "sql.not-ready",
                    "プロジェクトと、保存した SQL の、どちらかを読み終えていないときは、sql_read_query と "
                    "sql_run_query は not_ready を返す",
                ),
                ("sql.read-current", "sql_read_query は、入力欄の今の SQL を返す"),
                ("sql.input-untouched", "どちらの操作も、入力欄の SQL を書き換えない"),
                (
                    "sql.saved-untouched",
                    "利用者が書いて保存した SQL は、エージェントの操作で変わらない: 読み込み直しても、利用者の SQL が出る",
                ),
                (
                    "sql.one-database",
                    "sql_run_query は、画面の実行のボタンと同じ SqlDatabase で実行する: 一方が書いたものを、もう一方が読める",
                ),
                ("sql.db-not-kept", "DB の中身は保存しない: ページを読み込み直すと、DB は初期の状態に戻る"),
                (
                    "sql.results-untouched",
                    "sql_run_query の結果は操作の記録の欄にだけ出し、SQL の画面の結果の表は変えない",
                ),
                ("sql.no-confirm", "sql_run_query は確認を出さない。DROP と DELETE を含む SQL も、確認なしで実行する"),
                (
                    "sql.load-outside-timeout",
                    "PGlite を読み込んでいないときは、読み込んでから実行し、読み込みの時間は timeoutMs に含めない",
                ),
                ("sql.load-failure", "PGlite を読み込めないときは、failed を返す"),
                (
                    "sql.busy",
                    "PGlite の読み込みの間と実行中に来た sql_run_query には not_ready を返す。利用者がボタンで実行している間も同じ",
                ),
                (
                    "sql.run-button-busy",
                    "エージェントの操作で実行している間は、画面の実行のボタンを、実行中の表示にする",
                ),
                (
                    "sql.per-statement",
                    "複数の文を渡したときは、results に文ごとの結果(fields、rows、affectedRows、totalRows、"
                    "truncated)を入れる",
                ),
                (
                    "sql.rows-200",
                    "rows は文ごとに先頭の 200 行までにし、totalRows に全体の行の数を入れ、切り詰めたときは "
                    "truncated を true にする",
                ),
                (
                    "sql.error-fields",
                    "SQL が失敗したときは failed を返し、sqlState と position を error の外に置く。"
                    "SqlResponse の error に無いときは、持たない",
                ),
                ("sql.rollback", "複数の文のうち 1 つが失敗したときは、全ての文の変更を取り消す"),
                (
                    "sql.timeout",
                    "timeoutMs までに終わらないときは、Web Worker を作り直して timeout を返す。DB の中身は初期の"
                    "状態に戻り、SQL の画面はそのことを出す",
                ),
                (
                    "sql.timeout-described",
                    "sql_run_query の説明の文に、時間の上限を過ぎると DB の中身が初期の状態に戻ることを書く",
                ),
                (
                    "sql.sdk-timeout-described",
                    "sql_run_query の説明の文に、node_run_command と同じく、MCP の SDK がリクエストを"
                    "待つ時間のデフォルトの 60 秒のことを書く",
                ),
            ),
        ),
    ),
)
