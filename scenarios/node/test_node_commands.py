"""node_run_command (Design Doc 実行環境の操作): what runs, its exit code, its output, its time limit."""

import json
import re

import pytest
from node_agent import node_script, run
from playwright.sync_api import expect

from harness import contract, drivers
from harness.agent import assert_success, times_out_at_30_seconds
from harness.checks import check

pytestmark = pytest.mark.tool("node")

MAX_OUTPUT = 100_000


@pytest.mark.rules("node.run-as-given")
def test_command_and_args_are_passed_as_given(agent):
    """command と args をそのまま渡す: 引数の空白は引数の中に残り、command の文字列は引数に分けない。"""
    spaced = run(agent, "echo", ["two  spaces", "harness"])
    with check("node.run-as-given", subject="args"):
        assert_success("node_run_command", spaced)
        assert spaced["output"].strip() == "two  spaces harness", f"echo printed {spaced['output']!r}"
    joined = agent.client.call("node_run_command", {"command": "echo harness-split"})
    with check("node.run-as-given", subject="command"):
        # Run as one program name, 「echo harness-split」 is not found; split, it prints the word.
        ran_split = (
            joined.get("ok") is True and joined.get("exitCode") == 0 and "harness-split" in joined.get("output", "")
        )
        assert not ran_split, f"the command 「echo harness-split」 was split into a program and its argument: {joined}"


@pytest.mark.rules("node.run-process")
def test_the_agents_process_shows_in_the_terminal_as_ai_command(agent, tool_page, folder):
    """プロセスの名前は ai: <command> で、端末のペインに、ほかのプロセスと同じように出る。"""
    result = run(agent, "echo", [folder])
    assert_success("node_run_command", result)
    page = tool_page.page
    terminal_tab = page.get_by_role("tab", name="端末", exact=True)
    terminal_tab.click()
    terminal = page.get_by_role("tabpanel", name="端末")
    with check("node.run-process"):
        expect(terminal.get_by_text("ai: echo", exact=True).first).to_be_visible()
        expect(terminal.get_by_text(folder).first).to_be_visible()


@pytest.mark.rules("node.run-exit-code")
def test_a_non_zero_exit_is_ok_with_its_exit_code(agent):
    """0 でない終了コードで終了したときは、ok を true にし、exitCode にその値を入れる。"""
    exited = run(agent, "node", ["-e", "console.log('harness-exit'); process.exit(3)"])
    with check("node.run-exit-code", subject="process.exit(3)"):
        assert_success("node_run_command", exited)
        assert exited["exitCode"] == 3, exited
        assert "harness-exit" in exited["output"], exited
    thrown = run(agent, "node", ["-e", "throw new Error('harness-boom')"])
    with check("node.run-exit-code", subject="uncaught error"):
        assert_success("node_run_command", thrown)
        assert thrown["exitCode"] == 1, thrown  # Node's code for an uncaught exception
        assert "harness-boom" in thrown["output"], thrown


@pytest.mark.rules("node.run-timeout")
def test_past_its_timeout_the_process_is_killed_and_the_output_so_far_returned(agent, folder):
    """timeoutMs までに終わらないときは、プロセスを終了させ、timeout を、それまでの output と truncated とともに返す。"""
    ticks = f"{folder}/ticks.txt"
    code = (
        f"const fs = require('fs'); fs.mkdirSync({json.dumps(folder)}, {{ recursive: true }});"
        "console.log('harness-before');"
        f"setInterval(() => fs.appendFileSync({json.dumps(ticks)}, 'x'), 20);"
    )
    result = run(agent, "node", ["-e", code], timeout_ms=1000)
    with check("node.run-timeout", subject="result"):
        assert result.get("ok") is False and result["error"]["code"] == "timeout", result
        contract.assert_shape(contract.RUN_TIMEOUT, result, "a timeout is error, the output so far and truncated")
        assert "harness-before" in result.get("output", ""), f"the output so far is missing: {result}"
        assert result.get("truncated") is False, f"truncated is {result.get('truncated')!r} for one short line"
    # A killed process writes no more: its file stays as it was while another command runs a while.
    before = agent.ok("node_read_file", {"path": ticks})["contents"]
    assert run(agent, "sleep", ["0.5"])["exitCode"] == 0
    after = agent.ok("node_read_file", {"path": ticks})["contents"]
    with check("node.run-timeout", subject="killed"):
        assert after == before, f"the timed-out process kept running: {len(before)} ticks, then {len(after)}"


@pytest.mark.rules("node.run-output")
def test_output_has_no_terminal_control_characters(agent):
    """output は、端末の制御の文字(色、カーソルの移動)を除いた出力である。"""
    result = node_script(agent, r"process.stdout.write('\x1b[31mharness-red\x1b[0m \x1b[2K\x1b[1Gharness-done\x07\n')")
    with check("node.run-output", subject="control characters"):
        controls = sorted(
            {hex(ord(c)) for c in result["output"] if (ord(c) < 0x20 and c not in "\n\t") or ord(c) == 0x7F}
        )
        assert not controls, f"output keeps control characters {controls}: {result['output']!r}"
        assert "harness-red" in result["output"] and "harness-done" in result["output"], result


@pytest.mark.rules("node.run-output")
def test_output_is_the_last_100000_characters(agent):
    """output は出力の末尾の 100,000 文字で、切り詰めたときは truncated を true にする。"""
    result = node_script(agent, "process.stdout.write('h'.repeat(150000)); process.stdout.write('harness-end');")
    with check("node.run-output", subject="last 100,000"):
        assert len(result["output"]) == MAX_OUTPUT, f"{len(result['output']):,} characters of output"
        assert result["output"].endswith("harness-end"), (
            f"the output does not end as the command's: {result['output'][-40:]!r}"
        )
        assert result["truncated"] is True, "truncated is not true for a cut output"
    short = run(agent, "echo", ["harness"])
    with check("node.run-output", subject="not cut"):
        assert short["truncated"] is False, short


@pytest.mark.rules("node.run-sdk-timeout-described")
def test_run_command_description_tells_of_the_sdks_60_seconds(agent):
    """説明の文に、MCP の SDK がリクエストを待つ時間のデフォルトが 60 秒であることを書く。"""
    info = next(info for info in agent.client.tools() if info.name == "node_run_command")
    with check("node.run-sdk-timeout-described"):
        assert re.search(r"60\s*秒", info.description), f"the description says nothing of 60 秒: {info.description!r}"
        assert "SDK" in info.description, f"the description does not name the SDK: {info.description!r}"


@pytest.mark.rules("node.write", "node.run-exit-code", "node.delete-files-only")
def test_a_program_is_written_run_and_deleted_on_the_isolated_page(agent, tool_page, folder):
    """ADR-0044 Verification: isolation のヘッダを返す実行環境のページでも、ファイルを書き、node sum.js を実行して
    出力と終了コードを受け取り、ファイルを消せた。"""
    if not tool_page.page.evaluate("self.crossOriginIsolated"):
        pytest.skip("未確認: the node page is not cross-origin isolated on this target")
    program = f"{folder}/sum.js"
    code = "const [a, b] = process.argv.slice(2).map(Number); console.log(a + b); process.exit(a + b > 10 ? 4 : 0);"
    with check("node.write"):
        assert agent.client.call("node_write_file", {"path": program, "contents": code}).get("ok") is True
    summed, over = run(agent, "node", [program, "2", "3"]), run(agent, "node", [program, "7", "8"])
    with check("node.run-exit-code"):
        assert_success("node_run_command", summed)
        assert (summed["exitCode"], summed["output"].strip()) == (0, "5"), summed
        assert (over.get("exitCode"), over.get("output", "").strip()) == (4, "15"), over
    _, deleted = agent.confirm("node_delete_file", {"path": program})
    with check("node.delete-files-only"):
        assert_success("node_delete_file", deleted)
        agent.fails("node_read_file", {"path": program}, "not_found")


@pytest.mark.rules("node.run-timeout")
@pytest.mark.needs(drivers.PAGE_CLOCK)
@pytest.mark.one_driver("the default limit is the page's, whichever way the call arrives")
def test_without_timeout_ms_the_limit_is_30_seconds(context, clocked_agent):
    """timeoutMs のデフォルトは 30,000: 省いた呼び出しは、30 秒までは終わらず、30 秒を過ぎると timeout になる。"""
    times_out_at_30_seconds(
        context,
        clocked_agent.tool_page,
        lambda: clocked_agent.client.start("node_run_command", {"command": "sleep", "args": ["600"]}),
        lambda: None,  # the command's start is the call's: started, it has arrived
        "node.run-timeout",
    )
