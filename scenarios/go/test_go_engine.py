"""Yaegi's load (Design Doc Go を動かすツールの操作): loaded before the first run, outside the run's time
limit; calls during the load are not_ready; a load that fails is failed. Seen where the page loads
Yaegi on its first run and the profile names its files (`engine`)."""

import pytest

from harness import limits
from harness.agent import assert_success
from harness.checks import check
from harness.clients import decided_within
from harness.loading import HeldRequests

pytestmark = pytest.mark.tool("go")


# The held run's limit, and how long the load is held past it: a run of the project's main takes well
# under a second even on a busy machine, once Yaegi is loaded.
LIMIT_MS = 2000


def engine_held(agent, target, arguments: dict | None = None) -> tuple[HeldRequests, object]:
    """A first run started with Yaegi's files held: the run waits on the load."""
    held = HeldRequests(agent.tool_page, target.hook("go", "engine"))
    first = agent.client.start("go_run", arguments or {})
    if not held.seen():
        held.release()
        first.result()
        pytest.skip(
            "未確認: the page loaded Yaegi before its first run (or the profile's engine matched none of its requests)"
        )
    return held, first


@pytest.mark.rules("go.load-outside-timeout")
@pytest.mark.profile("engine")
def test_the_load_does_not_count_towards_timeoutms(agent, target):
    """Yaegi の WASM を読み込んでいないときは、読み込んでから実行する。読み込みの時間は、timeoutMs に含めない。"""
    held, first = engine_held(agent, target, {"timeoutMs": LIMIT_MS})
    with check("go.load-outside-timeout", subject="during the load"):
        assert not decided_within(first, LIMIT_MS / 1000 + 0.5), (
            f"decided during a load longer than its timeoutMs of {LIMIT_MS:,}: {first.result()}"
        )
    held.release()
    result = first.result()
    with check("go.load-outside-timeout", subject="after the load"):
        assert_success("go_run", result)


@pytest.mark.rules("go.busy")
@pytest.mark.profile("engine")
def test_a_call_during_the_load_is_not_ready(agent, target):
    """読み込みの間に来た呼び出しにも、実行中に来た呼び出しと同じく、not_ready を返す。"""
    held, first = engine_held(agent, target)
    during = agent.client.start("go_test", {})
    with check("go.busy", subject="during the load"):
        assert decided_within(during, limits.ANSWERED_AT_ONCE), "the call made during the load waited for it"
        result = during.result()
        assert result.get("ok") is False and result["error"]["code"] == "not_ready", result
    held.release()
    assert_success("go_run", first.result())


@pytest.mark.rules("go.load-failure")
@pytest.mark.profile("engine")
def test_a_load_that_fails_answers_failed(agent, target):
    """Yaegi の WASM を読み込めないときは、failed を返す。"""
    held, first = engine_held(agent, target)
    held.fail()
    result = first.result()
    held.release()
    with check("go.load-failure"):
        assert result.get("ok") is False and result["error"]["code"] == "failed", result
