"""The shared limits of an endpoint (runs/pace.py) on a clock the test moves: the per-minute
allowances, the 429s an endpoint tolerates before it is slowed, halving once per epoch."""

from __future__ import annotations

import asyncio

import pytest

from persian_tui.runs import pace
from persian_tui.runs.pace import Budget, BudgetReached, EndpointPace, _Bucket


@pytest.fixture
def clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(pace.time, "monotonic", lambda: now[0])
    return now


def test_a_per_minute_allowance_refills_continuously(clock):
    bucket = _Bucket(60)  # one a second, a minute's worth at once
    assert bucket.wait(1) == 0
    bucket.level -= 60
    assert bucket.wait(1) == pytest.approx(1.0)
    clock[0] += 0.5
    assert bucket.wait(1) == pytest.approx(0.5)
    clock[0] += 3600
    assert bucket.wait(1) == 0 and bucket.level == 60  # never more than a minute's worth
    assert bucket.wait(500) == 0  # a request larger than the allowance waits for a full one only


def endpoint(**kw) -> EndpointPace:
    return EndpointPace("e", "http://127.0.0.1:9/v1", "k", connections=8, timeout=5, **kw)


def test_sporadic_429s_within_the_tolerance_do_not_slow_the_endpoint(clock):
    e = endpoint(tolerate_429=0.2)
    numbers = [asyncio.run(e.acquire(10)) for _ in range(8)]
    for i, n in enumerate(numbers * 5):  # 40 replies, every tenth a 429 (10 % <= 20 %)
        e.in_flight += 1
        e.release(n, throttled=i % 10 == 0)
    assert e.decreases == 0 and e.window == 8


def test_429s_past_the_tolerance_halve_the_window_once_per_epoch_and_it_grows_back(clock):
    e = endpoint(tolerate_429=0.2)
    wave = [asyncio.run(e.acquire(10)) for _ in range(8)]
    for n in wave:  # all eight of one wave throttled: halved once, not three times
        e.release(n, throttled=True)
    for n in wave[:3]:  # (more replies for the tolerance's count: 11 of them)
        e.in_flight += 1
        e.release(n, throttled=True)
    assert e.decreases == 1 and e.window == 4
    later = asyncio.run(e.acquire(10))  # sent after the decrease: its 429 halves again
    e.release(later, throttled=True)
    assert e.decreases == 2 and e.window == 2
    for _ in range(2 + 3):  # a window's worth of good replies adds one connection: 2 -> 3 -> 4
        e.release(asyncio.run(e.acquire(10)), throttled=False)
    assert e.window == 4 and e.lowest == 2


def test_a_retry_after_pauses_the_endpoint_for_every_run(clock):
    e = endpoint()
    e.release(asyncio.run(e.acquire(10)), throttled=True, retry_after=7)
    assert e.paused_until == pytest.approx(clock[0] + 7) and e.window == 4


def test_a_budget_refuses_what_could_pass_it_and_waits_for_requests_in_flight():
    async def go():
        b = Budget(1.0, "sweep")
        assert await b.reserve(lambda: 0.4) == 0.4
        assert await b.reserve(lambda: 0.4) == 0.4
        waiting = asyncio.ensure_future(b.reserve(lambda: 0.4))  # 1.2 could pass 1.0: waits
        await asyncio.sleep(0)
        assert not waiting.done()
        b.settle(0.4, 0.1)  # a reply cheaper than its bound frees room
        assert await waiting == 0.4
        b.settle(0.4, 0.4)
        b.settle(0.4, 0.4)
        assert b.spent == pytest.approx(0.9) and b.in_flight == 0
        with pytest.raises(BudgetReached, match=r"sweep budget reached: \$0.9000 spent of \$1"):
            await b.reserve(lambda: 0.2)
    asyncio.run(go())


def test_an_unknown_cost_holds_the_dearest_price_while_it_fits_else_goes_alone():
    """Before any reply tells a cost, a request holds what it would cost at prices no model
    asks: a budget with room for that lets requests go together and still holds; one without
    room lets one go at a time until the first cost is known."""
    async def go():
        roomy = Budget(1.0, "sweep")
        held = [await roomy.reserve(lambda: None, 0.3) for _ in range(3)]
        assert held == [0.3] * 3 and roomy.in_flight == 3  # three together: 0.9 fits in 1.0
        fourth = asyncio.ensure_future(roomy.reserve(lambda: None, 0.3))
        await asyncio.sleep(0)
        assert not fourth.done()  # 1.2 could pass 1.0: it waits for a reply
        roomy.settle(0.3, 0.01)
        assert await fourth == 0.3

        tight = Budget(0.2, "sweep")
        assert await tight.reserve(lambda: None, 0.3) is None  # alone, nothing held
        second = asyncio.ensure_future(tight.reserve(lambda: None, 0.3))
        await asyncio.sleep(0)
        assert not second.done()
        tight.settle(None, 0.01)
        assert await second is None
    asyncio.run(go())
