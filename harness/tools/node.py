"""The Node runtime (Design Doc 実行環境の操作): files and commands of the project."""

from harness.tools import Tool, _files

TOOL = Tool(
    name="node",
    order=1,
    canvas=False,
    hooks=(),
    valid_input=_files.valid_input,
    text_call=lambda text: _files.text_call("node", text),
    kept_text_calls=lambda text: _files.kept_text_calls("node", text),
    failing_call=lambda: _files.failing_call("node"),
)
