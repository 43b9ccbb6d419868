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
    for i in range(40):  # 40 requests, every tenth answered 429 (10 % <= 20 %)
        e.release(asyncio.run(e.acquire(10)), throttled=i % 10 == 0)
    assert e.decreases == 0 and e.window == 8


def test_429s_answered_at_once_are_weighed_against_the_requests_sent_not_the_replies(clock):
    """An endpoint that refuses every tenth request at once and answers the others in 200 ms:
    the first moments' replies are all 429s, but a tenth of what was sent is within what it
    tolerates; one that refuses everything is slowed."""
    e = EndpointPace("e", "http://127.0.0.1:9/v1", "k", connections=96, timeout=5, tolerate_429=0.2)
    wave = [asyncio.run(e.acquire(10)) for _ in range(96)]
    for n in wave[::10]:  # 10 refused at once, 86 still in flight
        e.release(n, throttled=True)
    assert e.decreases == 0 and e.window == 96
    clock[0] += 0.2
    for n in [n for i, n in enumerate(wave) if i % 10]:
        e.release(n, throttled=False)
    assert e.decreases == 0
    refusing = EndpointPace("e", "http://127.0.0.1:9/v1", "k", connections=96, timeout=5, tolerate_429=0.2)
    for k, n in enumerate([asyncio.run(refusing.acquire(10)) for _ in range(96)]):
        refusing.release(n, throttled=True)
        assert refusing.decreases == (k + 1 > 0.2 * 96)  # once a fifth of what was sent is refused
    assert refusing.window == 48  # (once: the rest were sent before the decrease)


def test_the_429_share_forgets_what_is_older_than_its_window(clock):
    e = EndpointPace("e", "http://127.0.0.1:9/v1", "k", connections=16, timeout=5, tolerate_429=0.2)
    for n in [asyncio.run(e.acquire(10)) for _ in range(12)]:  # 12 of 12 refused: halved
        e.release(n, throttled=True)
    assert e.decreases == 1
    clock[0] += pace.RECENT + 1
    for i in range(20):  # later: 2 of 20 refused, the old ones no longer counted
        e.release(asyncio.run(e.acquire(10)), throttled=i % 10 == 9)
    assert e.decreases == 1 and e.recent_429 == 2 and len(e.sends) == 20


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


def test_after_an_outage_the_window_climbs_fast_to_half_what_it_was_then_one_by_one(clock):
    """An outage halves the window again and again (each wave sent after a halving is refused
    too): 64 -> 4. Once replies succeed it doubles each window's worth (slow start, RFC 5681) back
    to half the width before the outage, then adds one a window's worth: one by one from 4 it
    took 28 windows to reach 32 (a 3 s outage cost a 23 s sweep 17 s)."""
    e = EndpointPace("e", "http://127.0.0.1:9/v1", "k", connections=64, timeout=5, tolerate_429=0.2)
    for _ in range(4):  # four waves refused, each sent after the last halving
        for n in [asyncio.run(e.acquire(10)) for _ in range(max(1, int(e.window)))]:
            e.release(n, throttled=True)
        clock[0] += 1.0
    assert e.window == 4 and e.decreases == 4
    clock[0] += pace.RECENT + 1  # the outage over
    replies = 0
    while e.window < 32:
        e.release(asyncio.run(e.acquire(10)), throttled=False)
        replies += 1
    assert replies == 28  # one a reply: 4 -> 32 in three doublings' worth (4 + 8 + 16)
    for _ in range(32):
        e.release(asyncio.run(e.acquire(10)), throttled=False)
    assert e.window == 33  # past half the former width: one a window's worth again


def test_one_halving_is_followed_by_one_by_one_growth(clock):
    """A single slow-down (the endpoint's limit found) grows back one connection a window's
    worth, as before: slow start only returns from what an outage took."""
    e = endpoint(tolerate_429=0.2)
    for n in [asyncio.run(e.acquire(10)) for _ in range(8)]:
        e.release(n, throttled=True)
    assert e.window == 4
    clock[0] += pace.RECENT + 1
    while e.window < 5:
        e.release(asyncio.run(e.acquire(10)), throttled=False)
    replies = 0
    while e.window < 6:
        e.release(asyncio.run(e.acquire(10)), throttled=False)
        replies += 1
    assert replies == 5


def test_a_sporadic_429s_retry_after_is_the_wait_of_its_own_request_only(clock):
    """Every tenth request refused with a Retry-After: the endpoint is not saturated, so only the
    refused request waits (its retry, runs/llm_client.py); pausing every run for each would
    stall a sweep whose endpoint refuses a tenth of first attempts (once 545 s for 23 s)."""
    e = endpoint(tolerate_429=0.2)
    for i in range(40):
        e.release(asyncio.run(e.acquire(10)), throttled=i % 10 == 0, retry_after=1 if i % 10 == 0 else None)
        assert e.paused_until <= clock[0], f"paused by request {i}"
    assert e.decreases == 0 and e.window == 8


def test_429s_past_the_tolerance_pause_the_endpoint_for_the_retry_after_they_give(clock):
    e = endpoint(tolerate_429=0.2)
    wave = [asyncio.run(e.acquire(10)) for _ in range(8)]
    for n in wave[:6]:
        e.release(n, throttled=False)
    e.release(wave[6], throttled=True, retry_after=7)  # 1 of 8: sporadic
    assert e.paused_until == 0 and e.window == 8
    e.release(wave[7], throttled=True, retry_after=7)  # 2 of 8 sent: a quarter refused
    assert e.paused_until == pytest.approx(clock[0] + 7) and e.window == 4 and e.decreases == 1


def test_a_small_endpoint_is_slowed_by_a_wave_of_429s(clock):
    """Fewer connections than the ten replies the share otherwise waits for: a window's worth
    of replies is enough to judge it."""
    e = EndpointPace("e", "http://127.0.0.1:9/v1", "k", connections=4, timeout=5, tolerate_429=0.2)
    for n in [asyncio.run(e.acquire(10)) for _ in range(4)]:
        e.release(n, throttled=True, retry_after=2)
    assert e.decreases == 1 and e.window == 2 and e.paused_until == pytest.approx(clock[0] + 2)


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
