"""The go page's loading (Design Doc Go を動かすツールの操作): every go_ operation is not_ready until the
project and the saved files are read."""

import pytest

from harness.agent import every_operation_is_not_ready
from harness.loading import HeldLoading

pytestmark = pytest.mark.tool("go")


@pytest.mark.rules("go.not-ready")
@pytest.mark.profile("hold_loading")
def test_every_operation_is_not_ready_until_the_project_and_saved_files_are_read(target, open_tool, client_for):
    """プロジェクトと、保存したファイルの、どちらかを読み終えていないときは、go_ で始まるどの操作も not_ready を返す。"""
    tool_page = open_tool("go", navigate=False)
    loading = HeldLoading(tool_page, target.hook("go", "hold_loading"))
    client = client_for(tool_page)
    every_operation_is_not_ready(tool_page, client, "go.not-ready")
    loading.release()
    loaded = client.call_when_ready("go_list_files")
    assert loaded["ok"] is True, f"go did not become ready once its loading went on: {loaded}"
