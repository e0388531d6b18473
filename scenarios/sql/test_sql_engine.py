"""PGlite's load (Design Doc SQL だけを動かすツールの操作): loaded before the first run, outside the
run's time limit; calls during the load are not_ready; a load that fails is failed. Seen where the
page loads PGlite on its first run and the profile names its files (`engine`)."""

import pytest

from harness import limits
from harness.agent import assert_success
from harness.checks import check
from harness.clients import decided_within
from harness.loading import HeldRequests

pytestmark = pytest.mark.tool("sql")


def engine_held(agent, target) -> tuple[HeldRequests, object]:
    """A first run started with PGlite's files held: the run waits on the load."""
    held = HeldRequests(agent.tool_page, target.hook("sql", "engine"))
    first = agent.client.start("sql_run_query", {"sql": "select 'harness-first' as marker", "timeoutMs": 1000})
    if not held.seen():
        held.release()
        first.result()
        pytest.skip(
            "未確認: the page loaded PGlite before its first run (or the profile's engine matched none of its requests)"
        )
    return held, first


@pytest.mark.rules("sql.load-outside-timeout")
@pytest.mark.profile("engine")
def test_the_load_does_not_count_towards_timeoutms(agent, target):
    """PGlite を読み込んでいないときは、読み込んでから実行する。読み込みの時間は、timeoutMs に含めない。"""
    held, first = engine_held(agent, target)
    with check("sql.load-outside-timeout", subject="during the load"):
        assert not decided_within(first, 1.5), (
            f"decided during a load longer than its timeoutMs of 1,000: {first.result()}"
        )
    held.release()
    result = first.result()
    with check("sql.load-outside-timeout", subject="after the load"):
        assert_success("sql_run_query", result)


@pytest.mark.rules("sql.busy")
@pytest.mark.profile("engine")
def test_a_call_during_the_load_is_not_ready(agent, target):
    """読み込みの間に来た呼び出しにも、実行中に来た呼び出しと同じく、not_ready を返す。"""
    held, first = engine_held(agent, target)
    during = agent.client.start("sql_run_query", {"sql": "select 'harness-during-load'"})
    with check("sql.busy", subject="during the load"):
        # Decided while the load is still held: a call that waits for the load is not not_ready.
        assert decided_within(during, limits.ANSWERED_AT_ONCE), "the call made during the load waited for it"
        result = during.result()
        assert result.get("ok") is False and result["error"]["code"] == "not_ready", result
    held.release()
    assert_success("sql_run_query", first.result())


@pytest.mark.rules("sql.load-failure")
@pytest.mark.profile("engine")
def test_a_load_that_fails_answers_failed(agent, target):
    """PGlite を読み込めないときは、failed を返す。"""
    held, first = engine_held(agent, target)
    held.fail()
    result = first.result()
    held.release()
    with check("sql.load-failure"):
        assert result.get("ok") is False and result["error"]["code"] == "failed", result
