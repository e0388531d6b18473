"""The SQL tool (PGlite): the input's SQL, and running SQL of the agent's own.

An agent never changes what the page keeps (the input's SQL, the results table), so there is
no write whose text a read returns."""

from harness.tools import Tool


def literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


TOOL = Tool(
    name="sql",
    order=2,
    canvas=False,
    hooks=(),
    valid_input=lambda op, client, marker: None,
    text_call=lambda text: ("sql_run_query", {"sql": f"select {literal(text)}"}),
    kept_text_calls=None,
    failing_call=lambda: ("sql_run_query", {"sql": "select * from no_such_table_harness"}),
)
