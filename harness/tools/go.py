"""The Go tool (Yaegi): the project's files, its run and its tests."""

from harness.tools import Tool, _files

TOOL = Tool(
    name="go",
    order=3,
    canvas=False,
    hooks=(),
    valid_input=_files.valid_input,
    text_call=lambda text: _files.text_call("go", text),
    kept_text_calls=lambda text: _files.kept_text_calls("go", text),
    failing_call=lambda: _files.failing_call("go"),
)
