"""go_run and go_test (Design Doc Go を動かすツールの操作): what runs, its exit code, its output in the
result and in the pane, the copy of the files a run takes, its time limit, and what Yaegi may import."""

import re

import pytest
from go_agent import MAIN, part, program, ran, run, write, write_main
from playwright.sync_api import expect

from harness import contract, drivers, limits
from harness.agent import assert_success, times_out_at_30_seconds
from harness.checks import check, each_on_its_own, picture

pytestmark = pytest.mark.tool("go")

MAX_OUTPUT = 100_000
SLEEPY = 'time.Sleep(2 * time.Second)\nfmt.Println("harness-slept")'


def go_test_file(package: str, *tests: tuple[str, bool]) -> str:
    """A _test.go file of `package` with tests that pass or fail."""
    fails = 't.Fatal("harness-failed")'
    bodies = "".join(f"\nfunc {name}(t *testing.T) {{\n\t{'' if passes else fails}\n}}\n" for name, passes in tests)
    return f'package {package}\n\nimport "testing"\n{bodies}'


@pytest.mark.rules("go.run-main")
def test_run_runs_the_root_main_package_as_it_is_now(agent, folder):
    """go_run は、今のファイルの、ルートのディレクトリの直下にある main の package を実行する。"""
    # The root's main package in two files: the one with func main calls the other's function.
    write_main(agent, "fmt.Println(harnessMarker())", "fmt")
    write(
        agent, f"zz_{folder}.go", f'package main\n\nfunc harnessMarker() string {{ return "harness-root-{folder}" }}\n'
    )
    write(agent, f"{folder}/other/main.go", program(f'fmt.Println("harness-other-{folder}")', "fmt"))
    result = run(agent)
    with check("go.run-main"):
        assert_success("go_run", result)
        assert result["exitCode"] == 0, result
        assert f"harness-root-{folder}" in result["output"], result
        assert f"harness-other-{folder}" not in result["output"], f"another main package ran: {result}"


@pytest.mark.rules("go.test-all-packages", "go.exit-codes")
def test_test_runs_every_packages_tests_and_returns_their_output_as_is(agent, folder):
    """go_test は全ての package のテストを実行し、出力をそのまま返す。テストの失敗は ok を true、exitCode を 1 にする。"""
    write(
        agent, f"{folder}/calc/calc_test.go", go_test_file("calc", ("TestHarnessAdd", True), ("TestHarnessSub", False))
    )
    write(agent, f"{folder}/more/more_test.go", go_test_file("more", ("TestHarnessMore", True)))
    result = run(agent, "go_test")
    output = result.get("output", "")
    with check("go.test-all-packages"):
        for line in (
            "=== RUN   TestHarnessAdd",
            "--- PASS: TestHarnessAdd",
            "--- FAIL: TestHarnessSub",
            "harness-failed",
            "--- PASS: TestHarnessMore",
        ):
            assert line in output, f"{line!r} is not in go_test's output: {output[-2000:]!r}"
        # The output as it is, not split into each test's result: exitCode, output, truncated and no more.
        assert_success("go_test", result)
    with check("go.exit-codes", subject="failing test"):
        assert_success("go_test", result)
        assert result["exitCode"] == 1, result


@pytest.mark.rules("go.exit-codes")
def test_a_compile_error_is_ok_with_exit_code_1(agent):
    """コンパイルのエラーは、ok を true にし、exitCode を 1 にして、output にエラーを入れる(使わない import も)。"""
    write(agent, MAIN, program('fmt.Println("harness")', "fmt", "strings"))
    result = run(agent)
    with check("go.exit-codes"):
        assert_success("go_run", result)
        assert result["exitCode"] == 1, result
        assert "strings" in result["output"], f"the error is not in the output: {result}"


@pytest.mark.rules("go.exit-codes")
def test_os_exit_gives_its_code_and_a_panic_2(agent):
    """os.Exit を呼んだときは渡した値を、panic で終わったときは 2 を exitCode にする。"""
    write_main(agent, 'fmt.Println("harness-exit")\nos.Exit(3)', "fmt", "os")
    exited = run(agent)
    with check("go.exit-codes", subject="os.Exit(3)"):
        assert_success("go_run", exited)
        assert exited["exitCode"] == 3 and "harness-exit" in exited["output"], exited
    write_main(agent, 'panic("harness-panic")')
    panicked = run(agent)
    with check("go.exit-codes", subject="panic"):
        assert_success("go_run", panicked)
        assert panicked["exitCode"] == 2 and "harness-panic" in panicked["output"], panicked


@pytest.mark.rules("go.net-http")
def test_code_can_import_net_http(agent):
    """Yaegi で動かすコードは、net/http を import できる(リクエストの扱いは ADR-0064 のもの: ここでは送らない)。"""
    write_main(agent, 'fmt.Println("harness-status", http.StatusOK)', "fmt", "net/http")
    result = run(agent)
    with check("go.net-http"):
        assert_success("go_run", result)
        assert result["exitCode"] == 0 and "harness-status 200" in result["output"], (
            f"a program importing net/http: {result}"
        )


# Each package one after another on one page; syscall/js last, the one whose program could leave a
# mark in the page's storage.
@pytest.mark.rules("go.sandbox")
def test_code_cannot_import_what_reaches_the_page(agent):
    """Yaegi に渡す symbol は stdlib.Symbols だけ: syscall/js、syscall、unsafe を import できない(ビルドの失敗)。"""
    uses = {
        "syscall": "_ = syscall.Getpid()",
        "unsafe": "_ = unsafe.Sizeof(0)",
        "syscall/js": 'js.Global().Get("localStorage").Call("setItem", "harness", "pwned")',
    }
    with each_on_its_own():
        for package, use in uses.items():
            write_main(agent, f'{use}\nfmt.Println("harness-imported")', "fmt", package)
            result = run(agent)
            with check("go.sandbox", subject=package):
                assert_success("go_run", result)
                assert result["exitCode"] == 1 and "harness-imported" not in result["output"], (
                    f"a program importing {package} ran: {result}"
                )
                assert package.split("/")[-1] in result["output"], f"the output does not name {package}: {result}"
                assert agent.tool_page.page.evaluate("localStorage.getItem('harness')") is None


@pytest.mark.rules("go.snapshot")
def test_a_write_during_a_run_does_not_change_the_running_code(agent, folder):
    """実行を始めたときのファイルの写しを実行する。実行中に go_write_file が呼ばれても、実行しているコードは変わらない。"""
    ran(agent)  # Yaegi loaded: a run's copy is taken when it starts, after the load
    write_main(agent, f'{SLEEPY}\nfmt.Println("harness-before-{folder}")', "fmt", "time")
    pending = agent.client.start("go_run", {})
    agent.client.call("go_list_files", {})  # answered only once the run before it has arrived
    write_main(agent, f'fmt.Println("harness-after-{folder}")', "fmt")
    result = pending.result()
    with check("go.snapshot"):
        assert_success("go_run", result)
        assert f"harness-before-{folder}" in result["output"] and f"harness-after-{folder}" not in result["output"], (
            result
        )


@pytest.mark.rules("go.output-pane")
@pytest.mark.profile("output")
def test_an_agents_run_shows_in_the_output_pane(agent, tool_page, target, folder):
    """出力は、出力のペインにも出す。利用者がボタンを押したときと、同じ表示にする。"""
    pane = part(tool_page, target, "output")
    write_main(agent, f'fmt.Println("harness-pane-{folder}")', "fmt")
    ran(agent)
    with check("go.output-pane"):
        expect(pane).to_contain_text(f"harness-pane-{folder}")


@pytest.mark.rules("go.timeout")
def test_past_its_timeout_the_run_is_stopped_and_the_output_so_far_returned(agent, folder):
    """timeoutMs までに終わらないときは、実行を止めて timeout を、それまでの output と truncated とともに返す。"""
    write_main(agent, f'fmt.Println("harness-before-{folder}")\nfor {{\n}}', "fmt")
    result = run(agent, timeout_ms=1000)
    with check("go.timeout", subject="result"):
        assert result.get("ok") is False and result["error"]["code"] == "timeout", result
        contract.assert_shape(contract.RUN_TIMEOUT, result, "a timeout is error, the output so far and truncated")
        assert f"harness-before-{folder}" in result.get("output", ""), f"the output so far is missing: {result}"
        assert result.get("truncated") is False, result
    write_main(agent, f'fmt.Println("harness-next-{folder}")', "fmt")
    after = agent.client.call_when_ready("go_run", {})
    with check("go.timeout", subject="stopped"):
        assert_success("go_run", after)
        assert f"harness-next-{folder}" in after["output"], after


@pytest.mark.rules("go.timeout")
@pytest.mark.needs(drivers.PAGE_CLOCK)
@pytest.mark.one_driver("the default limit is the page's, whichever way the call arrives")
def test_without_timeout_ms_the_limit_is_30_seconds(context, clocked_agent):
    """timeoutMs のデフォルトは 30,000: 省いた呼び出しは、30 秒までは終わらず、30 秒を過ぎると timeout になる。"""
    ran(clocked_agent)  # Yaegi loaded: its load is outside the limit
    write_main(clocked_agent, "for {\n}")
    times_out_at_30_seconds(
        context,
        clocked_agent.tool_page,
        lambda: clocked_agent.client.start("go_run", {}),
        lambda: clocked_agent.client.call("go_list_files", {}),  # answered only once the run before it has arrived
        "go.timeout",
    )


@pytest.mark.rules("go.output-tail")
def test_output_is_its_last_100000_characters(agent, folder):
    """output は、末尾の 100,000 文字である。切り詰めたときは、truncated を true にする。"""
    write_main(
        agent,
        f'fmt.Print("harness-head-{folder}")\nfmt.Print(strings.Repeat("x", {MAX_OUTPUT}))\nfmt.Print("harness-tail")',
        "fmt",
        "strings",
    )
    long = ran(agent)
    with check("go.output-tail", subject="long"):
        assert len(long["output"]) == MAX_OUTPUT and long["output"].endswith("harness-tail"), (
            f"{len(long['output'])} characters ending {long['output'][-40:]!r}"
        )
        assert long["truncated"] is True, long["truncated"]
    write_main(agent, 'fmt.Print("harness-short")', "fmt")
    short = ran(agent)
    with check("go.output-tail", subject="short"):
        assert (short["output"].strip(), short["truncated"]) == ("harness-short", False), short


@pytest.mark.rules("go.busy")
def test_a_second_run_during_a_run_is_not_ready(agent):
    """実行中に、もう 1 つの go_run か go_test が呼ばれたときは、後の呼び出しに not_ready を返す。"""
    write_main(agent, SLEEPY, "fmt", "time")
    first = agent.client.start("go_run", {})
    agent.client.call("go_list_files", {})  # answered only once the run before it has arrived
    for name in ("go_run", "go_test"):
        second = run(agent, name)
        with check("go.busy", subject=name):
            assert second.get("ok") is False and second["error"]["code"] == "not_ready", second
    assert_success("go_run", first.result())


@pytest.mark.rules("go.busy")
@pytest.mark.profile("run", "running")
def test_a_call_during_the_users_button_run_is_not_ready(agent, tool_page, target):
    """利用者がボタンで実行している間も、go_run と go_test には not_ready を返す。"""
    write_main(agent, SLEEPY, "fmt", "time")
    part(tool_page, target, "run").click()
    running = part(tool_page, target, "running")
    expect(running).to_be_visible()
    result = run(agent, "go_test")
    with check("go.busy"):
        assert result.get("ok") is False and result["error"]["code"] == "not_ready", result
    # The user's run ends as a call would answer (on a busy machine, the interpreter's first load may be in it).
    expect(running).to_have_count(0, timeout=limits.CALL_RESULT * 1000)


@pytest.mark.rules("go.run-buttons-busy")
@pytest.mark.profile("running", "test_running")
def test_the_run_and_test_buttons_show_an_agents_run(agent, tool_page, target):
    """エージェントの操作で実行している間は、画面の実行のボタンとテストのボタンを、実行中の表示にする。"""
    running, testing = part(tool_page, target, "running"), part(tool_page, target, "test_running")
    write_main(agent, SLEEPY, "fmt", "time")
    pending = agent.client.start("go_run", {})
    with check("go.run-buttons-busy"):
        expect(running).to_be_visible()
        expect(testing).to_be_visible()
        picture("go.run-buttons-busy", running, testing)
    assert_success("go_run", pending.result())
    with check("go.run-buttons-busy", subject="after the run"):
        expect(running).to_have_count(0)
        expect(testing).to_have_count(0)


@pytest.mark.rules("go.sdk-timeout-described")
def test_run_and_test_descriptions_tell_of_the_sdks_60_seconds(agent):
    """60 秒を超える値の扱いは、node_run_command と同じ: 説明の文に、MCP の SDK が待つ時間のデフォルトの 60 秒を書く。"""
    descriptions = {info.name: info.description for info in agent.client.tools()}
    for name in ("go_run", "go_test"):
        with check("go.sdk-timeout-described", subject=name):
            assert re.search(r"60\s*秒", descriptions[name]) and "SDK" in descriptions[name], descriptions[name]
