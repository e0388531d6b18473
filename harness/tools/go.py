"""The Go tool (Yaegi, Design Doc Go を動かすツールの操作): the project's files, its run and its tests."""

from harness import schemas
from harness.tools import Tool, _files

OPERATIONS = (
    *schemas.file_operations("go"),
    schemas.Operation(
        "go_run",
        "go",
        "ファイルを実行し、終了コードと出力を返す",
        frozenset({schemas.CONSEQUENTIAL, schemas.UNTRUSTED}),
        schemas.obj({"timeoutMs": schemas.TIMEOUT_MS}),
        schemas.RUN_RESULT,
        errors=("not_ready", "timeout", "failed"),
    ),
    schemas.Operation(
        "go_test",
        "go",
        "テストを実行し、終了コードと出力を返す",
        frozenset({schemas.CONSEQUENTIAL, schemas.UNTRUSTED}),
        schemas.obj({"timeoutMs": schemas.TIMEOUT_MS}),
        schemas.RUN_RESULT,
        errors=("not_ready", "timeout", "failed"),
    ),
)


TOOL = Tool(
    name="go",
    order=3,
    canvas=False,
    operations=OPERATIONS,
    hooks=("hold_loading", "engine", "binary_file", "editor", "run", "running", "test", "test_running", "output"),
    valid_input=_files.valid_input,
    text_call=lambda text: _files.text_call("go", text),
    kept_text_calls=lambda text: _files.kept_text_calls("go", text),
    failing_call=lambda: _files.failing_call("go"),
    engine_call=("go_run", {}),
    rules=(
        (
            "DD",
            "Go を動かすツールの操作",
            (
                (
                    "go.not-ready",
                    "プロジェクトと、保存したファイルの、どちらかを読み終えていないときは、go_ で始まるどの操作も not_ready を返す",
                ),
                ("go.relative-paths", "パスは相対パスだけを受け付け、.. で外へ出るパスと絶対パスは invalid_input"),
                ("go.list-all-levels", "go_list_files は path の下の全ての階層を返す"),
                (
                    "go.list-empty-directories",
                    "src/go/ のモジュールは空のディレクトリも保存し、go_list_files は空のディレクトリも entries に入れる",
                ),
                ("go.list-truncated", "go_list_files は 1,000 件までにし、切り詰めたときは truncated を true にする"),
                (
                    "go.list-no-exclude",
                    "保存しないファイルの規則の exclude は使わない(go_list_files は node_modules も返す)",
                ),
                (
                    "go.read-not-text",
                    "ファイルは UTF-8 のテキストで、テキストとして読めないファイルの go_read_file は invalid_input",
                ),
                ("go.read-missing", "go_read_file は、無いファイルに not_found を返す"),
                (
                    "go.read-current",
                    "go_read_file は、src/go/ のモジュールが持つ今のファイルを返す: エディタが今見せているもの、"
                    "利用者の保存前の書き換えも",
                ),
                (
                    "go.write",
                    "go_write_file は、ファイルがあれば上書きし、無ければ作り、親のディレクトリが無ければ作る",
                ),
                ("go.write-no-confirm", "go_write_file は、上書きの前に確認を出さない"),
                (
                    "go.delete-files-only",
                    "go_delete_file はファイルだけを消し、ディレクトリは invalid_input、無いパスは not_found",
                ),
                (
                    "go.editor-saved",
                    "ファイルの操作では、エディタの表示と IndexedDB への保存が、利用者が書き換えたときと同じように更新される",
                ),
                (
                    "go.run-main",
                    "go_run は、今のファイルの、ルートのディレクトリの直下にある main の package を実行する",
                ),
                (
                    "go.test-all-packages",
                    "go_test は全ての package のテストを実行し、出力(=== RUN、--- PASS、--- FAIL)をそのまま返す",
                ),
                (
                    "go.exit-codes",
                    "コンパイルのエラーとテストの失敗は ok を true、exitCode を 1 にして output にエラーを入れる。"
                    "os.Exit は渡した値を、panic は 2 を exitCode にする",
                ),
                (
                    "go.snapshot",
                    "実行を始めたときのファイルの写しを実行し、実行中の go_write_file と go_delete_file は実行しているコードを変えない",
                ),
                ("go.output-pane", "出力は出力のペインにも、利用者がボタンを押したときと同じ表示で出す"),
                (
                    "go.timeout",
                    "timeoutMs(デフォルトは 30,000)までに終わらないときは、実行を止めて timeout を、それまでの output と "
                    "truncated とともに返す",
                ),
                ("go.output-tail", "output は末尾の 100,000 文字で、切り詰めたときは truncated を true にする"),
                (
                    "go.busy",
                    "Yaegi の読み込みの間と実行中に来た go_run と go_test には not_ready を返す。利用者がボタンで実行している間も同じ",
                ),
                (
                    "go.run-buttons-busy",
                    "エージェントの操作で実行している間は、画面の実行のボタンとテストのボタンを、実行中の表示にする",
                ),
                (
                    "go.load-outside-timeout",
                    "Yaegi の WASM を読み込んでいないときは、読み込んでから実行し、読み込みの時間は timeoutMs に含めない",
                ),
                ("go.load-failure", "Yaegi の WASM を読み込めないときは、failed を返す"),
                (
                    "go.sandbox",
                    "Yaegi に渡す symbol は stdlib.Symbols だけで、動かすコードは syscall/js、syscall、unsafe を import できない",
                ),
                ("go.net-http", "Yaegi で動かすコードは、net/http を import できる"),
                (
                    "go.sdk-timeout-described",
                    "go_run と go_test の説明の文に、node_run_command と同じく、MCP の SDK がリクエストを待つ時間の"
                    "デフォルトの 60 秒のことを書く",
                ),
            ),
        ),
    ),
)
