"""The session every run that asks an endpoint shares (LLM, paraphrase, recall and judge runs):
the run's stored spec, its lease, the client, the concurrency gate, the breaker, the cached
replies and the end (see LLMSession)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from .. import redact
from ..models import Run
from ..store import Store
from .lifecycle import Breaker, RowWriter, drive_requests, end_run, finish_run, save_when_free, take_lease
from .progress import Callback, RunError, RunProgress
from .spec import LLMRunSpec

if TYPE_CHECKING:
    from .llm_client import Completion, LLMClient
    from .pace import RunPace

T = TypeVar("T")
AHEAD = 16  # a run's requests waiting for a slot at once: the next is started when one gets it


def stored_spec(run: Run, overrides: dict | None = None) -> LLMRunSpec:
    """The run's stored spec with the allowed resume overrides (see resume_overrides)."""
    from .spec import RecallRunSpec

    cls = RecallRunSpec if run.kind == "recall" else LLMRunSpec
    fields = cls.model_fields
    data = {k: v for k, v in run.params.items() if k in fields}
    data.update(overrides or {})
    if redact.was_redacted(data.get("base_url")):
        raise RunError(f"run {run.id}'s base URL had a password or key, which is never stored: "
                       "give --base-url again to resume it")
    from pydantic import ValidationError

    from .spec import describe

    try:
        return cls.model_validate(data)
    except ValidationError as e:
        raise RunError(f"run {run.id}: {describe(e)}") from None


@functools.cache
def load_soon(module: str) -> None:
    """Import `module` in a thread of its own, once a process. Called as a run's first request
    goes, the import (the answer parser's patterns: 0.05-0.1 s) runs while the first replies are
    awaited, not in the event loop as they arrive, when every reply of the first round waited
    for it. Importing it meanwhile waits for this import to end (Python's per-module lock)."""
    def load() -> None:
        with contextlib.suppress(Exception):  # a failure shows where the module is used
            importlib.import_module(module)

    threading.Thread(target=load, name=f"import {module}", daemon=True).start()


async def cached_reply(store: Store, client: LLMClient, spec: LLMRunSpec, messages: list[dict],
                       response_format: dict | None = None, sample: int = 0,
                       gate: asyncio.Semaphore | None = None,
                       remember: Callable[[tuple[str, dict]], None] | None = None) -> Completion:
    """A completion from the cache when `spec.cache` and it was asked before, else from the
    endpoint (then cached; errors raise LLMError and are never cached). Sample k has its own
    cache entry (the key's repeat index) and seed. `remember((key, entry))`: how a new reply
    is cached (a session's batches; else at once, in its own transaction)."""
    from .llm_client import Completion, cache_key

    params = spec.request_params(sample)
    if not spec.cache:  # (no key to hash: about 45 µs a request)
        return await client.complete(messages, params=params, response_format=response_format, gate=gate)
    key = cache_key(spec.base_url, spec.model, messages, params, response_format, repeat=sample)
    cached = store.runs.cached_response(key)
    if cached is not None:  # paid for when it was first asked: this run spends nothing on it
        return Completion(**{**cached, "cost": 0.0}, cached=True)
    reply = await client.complete(messages, params=params, response_format=response_format, gate=gate)
    if remember is not None:
        remember((key, reply.to_cache()))
    else:
        store.runs.cache_responses([(key, reply.to_cache())])
    return reply


class LLMSession:
    """One execution of a run that asks an endpoint (LLM, paraphrase, recall or judge): `open()`
    finds the run (of one of `kinds`, else RunError "no `what` run"), its stored spec with
    `overrides`, and takes the run's lease; `start()` marks it running and makes the client, the
    gate and the breaker; `drive(work, items)` asks the requests, each taking its slot with
    `slot()`; `finish(...)` records the end.
    Its writes wait for another process's lock asleep: a sweep's other runs go on meanwhile."""

    client: LLMClient  # these: made by start()
    gate: asyncio.Semaphore
    lobby: asyncio.Semaphore
    breaker: Breaker
    writer: RowWriter
    cache: RowWriter  # new replies cached in batches, not waited for (a transaction a reply cost
    # a tenth of a request's CPU); a killed run loses at most the open batch's entries

    def __init__(self, store: Store, run_id: int, kinds: tuple[str, ...], what: str,
                 overrides: dict | None = None, cancel: threading.Event | None = None,
                 pace: RunPace | None = None) -> None:
        run = store.runs.get_run(run_id)
        if run is None or run.kind not in kinds:
            raise RunError(f"no {what} run {run_id}")
        self.store, self.run, self.overrides = store, run, overrides
        self.spec, self.uids = stored_spec(run, overrides), run.params["uids"]
        self.cancel = cancel or threading.Event()
        self.pace = pace  # a sweep's run: shared endpoint limits, its model's gate, budgets

    @classmethod
    async def open(cls, store: Store, run_id: int, kinds: tuple[str, ...], what: str,
                   overrides: dict | None = None, cancel: threading.Event | None = None,
                   pace: RunPace | None = None) -> LLMSession:
        """The session of the run, its lease taken (before anything of the run is read)."""
        session = cls(store, run_id, kinds, what, overrides, cancel, pace)
        await save_when_free(take_lease, store, run_id, db=store)
        return session

    def limited(self, todo: list) -> list:
        """`todo` cut to the resume's `limit` (a resume may ask only this many more)."""
        if self.overrides and self.overrides.get("limit"):
            return todo[:self.overrides["limit"]]
        return todo

    async def start(self, write: Callable[[list], None] | None = None) -> None:
        """`write(rows)`: how the run's rows are committed (by `writer`, in batches)."""
        from .llm_client import LLMClient, settle_gc

        settle_gc()
        spec = self.spec
        await save_when_free(self.store.runs.set_run_status, self.run.id, "running", db=self.store)
        self.client = LLMClient(spec.base_url, spec.model, api_key_env=spec.api_key_env,
                                timeout=spec.timeout, max_retries=spec.max_retries, pace=self.pace)
        self.gate = self.pace.model.gate if self.pace else asyncio.Semaphore(spec.concurrency)
        self.breaker = Breaker(spec.max_failures, self.cancel)
        self.writer = RowWriter(write or (lambda rows: None), db=self.store)
        self.cache = RowWriter(self.store.runs.cache_responses, db=self.store)
        self.lobby = asyncio.Semaphore(AHEAD)  # see drive and slot

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """A slot of the gate, held while asking (a retry's wait gives it up: see reply). Once
        the request has it, the run's next request is started to wait for one (drive)."""
        waiting = True
        try:
            async with self.gate:
                waiting = False
                self.lobby.release()
                yield
        finally:
            if waiting:  # cancelled before its turn
                self.lobby.release()

    async def reply(self, messages: list[dict], response_format: dict | None = None, sample: int = 0) -> Completion:
        """The reply (cached or asked); the caller holds a slot of `gate`, given up while a retry waits."""
        return await cached_reply(self.store, self.client, self.spec, messages, response_format, sample,
                                  self.gate, self.cache.put)

    async def drive(self, work: Callable[[T], Coroutine[Any, Any, object]], items: Iterable[T]) -> None:
        """`work(item)` for each item, each its own task, started while fewer than AHEAD of
        them wait for a slot (`work` takes its slot with `slot()`)."""
        try:
            await drive_requests(work, items, self.lobby.acquire, self.store, self.run.id, self.client,
                                 self.cancel, self.writer)
        finally:
            await self.cache.drain()

    async def finish(self, progress: RunProgress, finished: bool, on_progress: Callback | None) -> RunProgress:
        """The run's end recorded (its status, its lease freed; each write idempotent, so a busy
        refusal of the second asks both again)."""
        if self.cache.failed is not None:  # the rows hold the replies: only a later run's reuse is lost
            progress.message = f"some replies were not cached: {str(self.cache.failed)[:200]}"
        if self.pace is not None and self.pace.stopped and not finished:
            return await save_when_free(end_run, self.store, progress, "cancelled", self.pace.stopped, on_progress,
                                        db=self.store)
        return await save_when_free(finish_run, self.store, progress, finished and not self.cancel.is_set(),
                                    on_progress, self.breaker, db=self.store)
