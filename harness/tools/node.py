"""The Node runtime (Design Doc 実行環境の操作): files and commands of the project."""

from harness import schemas
from harness.tools import Tool, _files

OPERATIONS = (
    *schemas.file_operations("node"),
    schemas.Operation(
        "node_run_command",
        "node",
        "コマンドを実行し、終了コードと出力を返す",
        frozenset({schemas.CONSEQUENTIAL, schemas.UNTRUSTED}),
        schemas.obj(
            {
                "command": schemas.STRING,
                "args": {"type": "array", "items": schemas.STRING},
                "timeoutMs": schemas.TIMEOUT_MS,
            },
            ("command",),
        ),
        schemas.RUN_RESULT,
        errors=("not_ready", "timeout"),
        example={"command": "node", "args": ["-v"]},
    ),
)


TOOL = Tool(
    name="node",
    order=1,
    canvas=False,
    operations=OPERATIONS,
    hooks=("hold_loading", "restart", "excluded_directory"),
    valid_input=_files.valid_input,
    text_call=lambda text: _files.text_call("node", text),
    kept_text_calls=lambda text: _files.kept_text_calls("node", text),
    failing_call=lambda: _files.failing_call("node"),
    log_in_tab=True,
    isolation_headers=True,
    long_call=lambda marker: (
        "node_run_command",
        {"command": "node", "args": ["-e", f"setTimeout(() => console.log({marker!r}), 2000)"]},
    ),
    rules=(
        (
            "DD",
            "実行環境の操作",
            (
                ("node.not-ready", "実行環境が起動していないときと、起動に失敗したときは、どの操作も not_ready を返す"),
                ("node.restart", "実行環境を起動し直した後は、操作は新しい NodeRuntime を使う"),
                (
                    "node.relative-paths",
                    "パスは作業ディレクトリからの相対パスだけを受け付け、.. で外へ出るパスと絶対パスは invalid_input",
                ),
                (
                    "node.list-all-levels",
                    "node_list_files は path の下の全ての階層を返し、path を省くと作業ディレクトリの全体を返す"
                    "(entries の kind は file か directory)",
                ),
                ("node.list-excluded", "node_list_files は、保存しないファイルの規則の exclude に当たるパスを返さない"),
                (
                    "node.list-truncated",
                    "node_list_files は 1,000 件までにし、切り詰めたときは truncated を true にする",
                ),
                ("node.read-too-large", "node_read_file は、1 MB を超えるファイルに too_large を返す"),
                ("node.read-not-text", "node_read_file は、テキストとして読めないファイルに invalid_input を返す"),
                ("node.read-missing", "node_read_file は、無いファイルに not_found を返す"),
                ("node.write", "node_write_file は、ファイルがあれば上書きし、親のディレクトリが無ければ作る"),
                ("node.write-no-confirm", "node_write_file は、上書きの前に確認を出さない"),
                (
                    "node.delete-files-only",
                    "node_delete_file はファイルだけを消し、ディレクトリは invalid_input、無いパスは not_found",
                ),
                (
                    "node.run-as-given",
                    "node_run_command は command と args をそのまま渡し、コマンドの文字列を引数に分けない",
                ),
                ("node.run-process", "プロセスの名前は ai: <command> で、端末のペインにほかのプロセスと同じように出る"),
                (
                    "node.run-exit-code",
                    "0 でない終了コードで終了したときは、ok を true にし、exitCode にその値を入れる",
                ),
                (
                    "node.run-timeout",
                    "timeoutMs までに終わらないときは、プロセスを終了させ、timeout を、それまでの output と "
                    "truncated とともに返す",
                ),
                (
                    "node.run-output",
                    "output は、端末の制御の文字を除いた出力の、末尾の 100,000 文字で、切り詰めたときは "
                    "truncated を true にする",
                ),
                (
                    "node.run-sdk-timeout-described",
                    "node_run_command の説明の文に、MCP の SDK がリクエストを待つ時間のデフォルトの 60 秒のことを書く",
                ),
            ),
        ),
        (
            "DD",
            "操作の記録の欄(Node の実行環境)",
            (
                (
                    "node.log-tab",
                    "下のペインのタブ(端末、コンソール、HTTP)に「AI からの操作」のタブを足し、記録はそのタブにある",
                ),
                (
                    "node.tab-selection",
                    "「AI からの操作」のタブを選んでいてスイッチがオフになると、端末のタブを出し、選択の状態は書き換えない",
                ),
            ),
        ),
    ),
)
