"""The pace of runs that share endpoints (a sweep): what every run reaching one base URL shares in
this process, and the budgets they spend.

- `EndpointPace`: one openai client (one connection pool) for every run reaching the base URL, its
  connection limit as an adaptive window (additive increase, multiplicative decrease: a share of
  429s above what the endpoint tolerates halves it for every run and pauses the endpoint for the
  Retry-After they give; each window's worth of good replies adds one connection back, up to the
  limit; after an outage that halved it again and again, each good reply adds one until it is
  back to half its width before the outage: TCP's slow start to its threshold, RFC 5681), and
  its requests- and tokens-per-minute buckets. The share is the 429s answered in the
  last RECENT seconds over the requests sent in them: not over the replies, of which the 429s an
  endpoint refuses at once would be most in the first moments. A sporadic 429 (within the
  tolerance) slows no one: its Retry-After is the wait of its own request's retry.
- `Budget`: USD that may be spent; a request reserves an upper bound of its cost first and is
  refused (`BudgetReached`) when what is spent plus what it may cost would pass the limit;
  requests in flight hold their reservations, so the limit holds with them counted.
- `RunPace`: what one run of the sweep asks through (its endpoint, its model's shared gate and
  budget, the sweep's budget) and its figures (requests, 429s, retries, cost) for the live view.

`LLMClient.complete` calls `begin` before each attempt and `end` after it."""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .progress import RunError

if TYPE_CHECKING:
    from .spec import LLMRunSpec

RECENT = 5.0  # seconds over which the endpoint's 429 share is measured
DEFAULT_REPLY_TOKENS = 1024  # an output bound for a reservation when max_tokens is not set
# USD per million input and output tokens: the dearest published prices (OpenAI's o1-pro), a
# request's bound before any reply has told a cost
DEAREST = (150.0, 600.0)


class BudgetReached(RunError):
    """No new request: its cost could pass a budget (the run stops, resumable)."""


class Budget:
    """`limit` USD (None: no limit) over the requests of its runs; `spent` starts at what the
    runs have recorded already (a resume)."""

    def __init__(self, limit: float | None, what: str, spent: float = 0.0):
        self.limit, self.what, self.spent = limit, what, spent
        self.reserved = 0.0
        self.in_flight = 0
        self.most = 0.0  # the largest cost of one reply seen
        self._settled: asyncio.Event | None = None

    def _fits(self, amount: float, pending: float) -> bool:
        return self.limit is None or self.spent + pending + amount <= self.limit + 1e-12

    async def reserve(self, bound: Callable[[], float | None], dearest: float | None = None) -> float | None:
        """Hold what `bound()` gives (asked again after each wait; None: unknown) and return it;
        wait while requests in flight may still free room; BudgetReached when even without them
        the request could pass. An unknown cost holds `dearest` (the request at the dearest
        published prices) while that fits, else goes one request at a time until a cost is known."""
        if self.limit is None:
            self.in_flight += 1
            return None
        while True:
            amount = bound()
            if amount is None and dearest is not None and self._fits(dearest, self.reserved):
                amount = dearest
                break
            if amount is None and self.in_flight == 0 and self.spent < self.limit:
                break
            if amount is not None and self._fits(amount, self.reserved):
                break
            if (amount is None and self.spent >= self.limit) or \
                    (amount is not None and not self._fits(amount, 0.0)) or self.in_flight == 0:
                raise BudgetReached(self.reached())
            self._settled = self._settled or asyncio.Event()
            await self._settled.wait()
        self.reserved += amount or 0.0
        self.in_flight += 1
        return amount

    def reached(self) -> str:
        return f"{self.what} budget reached: ${self.spent:.4f} spent of ${self.limit:g}"

    def settle(self, amount: float | None, cost: float) -> None:
        self.reserved -= amount or 0.0
        self.in_flight -= 1
        self.spent += cost
        self.most = max(self.most, cost)
        if self._settled is not None:
            self._settled.set()
            self._settled = None


class _Bucket:
    """A per-minute allowance refilled continuously (capacity: one minute's worth)."""

    def __init__(self, per_minute: int):
        self.rate, self.level, self.stamp = per_minute / 60.0, float(per_minute), time.monotonic()
        self.capacity = float(per_minute)

    def wait(self, amount: float) -> float:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        need = min(amount, self.capacity) - self.level
        return need / self.rate if need > 0 else 0.0


class EndpointPace:
    """One base URL's shared client and limits (see the module's doc)."""

    def __init__(self, name: str, base_url: str, api_key: str, *, connections: int, timeout: float,
                 requests_per_minute: int | None = None, tokens_per_minute: int | None = None,
                 tolerate_429: float = 0.2):
        self.name, self.base_url, self.api_key, self.timeout = name, base_url, api_key, timeout
        self.limit = connections
        self.window = float(connections)
        self.tolerate = tolerate_429
        self.in_flight = 0
        self.paused_until = 0.0
        self.sends: deque[float] = deque()  # when the attempts of the last RECENT seconds were sent
        self.replies: deque[tuple[float, bool]] = deque()  # their replies: (when, a 429)
        self.recent_429 = 0  # the 429s among `replies`
        self.since_change = 0  # replies since the window last changed
        self.sent = 0  # attempts let through so far (an attempt's number: its epoch)
        self.epoch = 0  # attempts numbered below this were sent before the last decrease
        self.requests = self.throttled = self.decreases = 0
        self.lowest = connections  # the narrowest the window has been
        # slow start's threshold: half the width before an outage's first halving; below it the
        # window grows one a good reply (doubling a window's worth), above it one a window's worth
        self.threshold = float(connections)
        self.last_decrease = -RECENT
        self.rpm = _Bucket(requests_per_minute) if requests_per_minute else None
        self.tpm = _Bucket(tokens_per_minute) if tokens_per_minute else None
        self._changed: asyncio.Event | None = None
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def client(self, make: Callable[[str, str, float], Any]) -> Any:
        """The openai client every run on this endpoint posts through (of the running loop),
        made by `make(base_url, api_key, timeout)` at its first use."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client, self._loop = make(self.base_url, self.api_key, self.timeout), loop
        return self._client

    async def close(self) -> None:
        if self._client is not None and self._loop is asyncio.get_running_loop():
            client, self._client = self._client, None
            await client.close()

    def _notify(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    async def acquire(self, tokens: float) -> int:
        """A connection of the window, once the endpoint is not paused and the per-minute
        allowances have room for one request of about `tokens` tokens; the attempt's number."""
        while True:
            now = time.monotonic()
            delay = max(self.paused_until - now,
                        self.rpm.wait(1) if self.rpm else 0.0, self.tpm.wait(tokens) if self.tpm else 0.0)
            if delay <= 0 and self.in_flight < max(1, int(self.window)):
                break
            self._changed = self._changed or asyncio.Event()
            try:
                await asyncio.wait_for(self._changed.wait(), delay if delay > 0 else None)
            except TimeoutError:
                pass
        self.in_flight += 1
        self.requests += 1
        self.sends.append(time.monotonic())
        if self.rpm:
            self.rpm.level -= 1
        if self.tpm:
            self.tpm.level -= tokens
        self.sent += 1
        return self.sent - 1

    def release(self, number: int, throttled: bool, retry_after: float | None = None,
                tokens_off: float = 0.0) -> None:
        """Attempt `number` over: `throttled` (a 429) with the Retry-After it gave; `tokens_off`:
        the estimate minus the tokens the reply used (given back to the allowance). The window
        is halved once per epoch: a 429 of an attempt sent before the last decrease was answered
        to the load that decrease already answered."""
        self.in_flight -= 1
        if self.tpm:
            self.tpm.level = min(self.tpm.capacity, self.tpm.level + tokens_off)
        now = time.monotonic()
        self.replies.append((now, throttled))
        self.recent_429 += throttled
        while self.replies[0][0] < now - RECENT:
            self.recent_429 -= self.replies.popleft()[1]
        while self.sends and self.sends[0] < now - RECENT:
            self.sends.popleft()
        self.since_change += 1
        if throttled:
            self.throttled += 1
            share = self.recent_429 / max(1, len(self.sends))
            # saturated: more refused than tolerated of at least a window's worth (or ten) of
            # requests; a sporadic 429's Retry-After is its own request's wait (llm_client)
            saturated = len(self.sends) >= min(10, self.limit) and share > self.tolerate
            if saturated and retry_after is not None:
                self.paused_until = max(self.paused_until, now + retry_after)
            if saturated and number >= self.epoch:
                if now - self.last_decrease > RECENT:  # a new episode: its first halving
                    self.threshold = self.window / 2
                self.last_decrease = now
                self.window = max(1.0, self.window / 2)  # multiplicative decrease, once per epoch
                self.lowest = min(self.lowest, int(self.window))
                self.decreases += 1
                self.since_change = 0
                self.epoch = self.sent
        elif self.window < self.limit and (self.window < self.threshold or self.since_change >= self.window):
            self.window = min(float(self.limit), self.window + 1)  # slow start, else additive increase
            self.since_change = 0
        self._notify()


@dataclass
class ModelShare:
    """What the runs of one model share: their gate (its connections), budget, the costs seen."""

    gate: asyncio.Semaphore
    budget: Budget
    most_cost: float = 0.0  # the largest reply cost seen (an estimate's floor)
    most_out: int = 0  # the most output tokens seen
    uncounted: bool = False  # a reply had no cost and the model no price: its spending is unknown


@dataclass
class RunPace:
    """One run's way through the shared limits, and its figures."""

    run_id: int
    endpoint: EndpointPace
    model: ModelShare
    sweep_budget: Budget
    spec: LLMRunSpec
    on_retry: Callable[[dict], None] | None = None
    requests: int = 0
    errors: int = 0
    throttled: int = 0
    retries: int = 0
    cost: float = 0.0
    stopped: str | None = None  # why it stopped asking (a budget)
    stopped_by: Budget | None = None  # the budget that stopped it
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None  # when its run ended (its rate is over its own time)

    def rate(self) -> float:
        """Requests a second, from its start to its end (or now, while it runs)."""
        end = time.monotonic() if self.ended is None else self.ended
        return self.requests / max(1e-9, end - self.started)

    def estimate(self, chars: int) -> tuple[float, float | None]:
        """(tokens, cost bound) of a request of `chars` characters: input at most one token per
        character, output at most max_tokens (else twice the most seen, at least 1024); the cost
        bound by the prices, else one and a half times the largest reported cost of the model (of
        the sweep until the model has one; None: no cost seen yet, see Budget.reserve)."""
        out = self.reply_bound()
        tokens = chars / 3 + out
        if self.model.uncounted:
            return tokens, 0.0  # nothing to count: not one request at a time for ever
        seen = self.model.most_cost or self.sweep_budget.most  # another model's, until this one's
        bound = self.spec.priced(chars, out)
        if bound is not None:
            return tokens, max(bound, seen)
        return tokens, 1.5 * seen if seen else None

    def reply_bound(self) -> int:
        """A reply's output tokens at most: max_tokens, else twice the most seen, at least 1024."""
        return self.spec.max_tokens or max(DEFAULT_REPLY_TOKENS, 2 * self.model.most_out)

    def dearest(self, chars: int) -> float:
        """What a request of `chars` characters could cost at the dearest published prices."""
        return (chars * DEAREST[0] + self.reply_bound() * DEAREST[1]) / 1e6

    async def begin(self, body: dict) -> tuple[int, float, float | None, float | None]:
        """Reserve the request's cost in the budgets and a connection of the endpoint: the
        ticket `end` takes. BudgetReached: not to be asked."""
        chars = len(json.dumps(body.get("messages"), ensure_ascii=False))

        def bound() -> float | None:
            return self.estimate(chars)[1]
        dearest = self.dearest(chars)
        try:
            held = await self.model.budget.reserve(bound, dearest)
        except BudgetReached as e:
            self.stopped, self.stopped_by = str(e), self.model.budget
            raise
        try:
            kept = await self.sweep_budget.reserve(bound, dearest)
        except BaseException as e:
            self.model.budget.settle(held, 0.0)
            if isinstance(e, BudgetReached):
                self.stopped, self.stopped_by = str(e), self.sweep_budget
            raise
        tokens = self.estimate(chars)[0]
        try:
            number = await self.endpoint.acquire(tokens)
        except BaseException:
            self.sweep_budget.settle(kept, 0.0)
            self.model.budget.settle(held, 0.0)
            raise
        self.requests += 1
        return number, tokens, held, kept

    def end(self, ticket: tuple[int, float, float | None, float | None], *, reply: Any = None,
            status: int | None = None, retry_after: float | None = None) -> None:
        """After an attempt: the reply (its cost counted: reported, else by the prices) or the
        HTTP status it failed with."""
        number, tokens, held, kept = ticket
        cost, used = 0.0, tokens
        if reply is not None:
            priced = reply.cost if reply.cost is not None else self.spec.priced(reply.tokens_in, reply.tokens_out)
            self.model.uncounted |= priced is None
            cost = priced or 0.0
            used = (reply.tokens_in or 0) + (reply.tokens_out or 0)
            self.model.most_cost = max(self.model.most_cost, cost)
            self.model.most_out = max(self.model.most_out, reply.tokens_out or 0)
        else:
            self.errors += 1
        self.throttled += status == 429
        self.cost += cost
        self.sweep_budget.settle(kept, cost)
        self.model.budget.settle(held, cost)
        self.endpoint.release(number, status == 429, retry_after, tokens - used)

    def retried(self, attempt: int, status: int | None, kind: str, delay: float, message: str) -> None:
        self.retries += 1
        if self.on_retry:
            self.on_retry({"run_id": self.run_id, "attempt": attempt, "status": status, "kind": kind,
                           "delay": round(delay, 3), "message": message[:300]})
