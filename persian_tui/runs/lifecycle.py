"""What every run shares between its start and its end: the lease that keeps a second process
off the run (taken, kept alive by a heartbeat, released), the circuit breaker that stops asking
an endpoint that is down, writes retried while another process holds the database, and the
run's final status."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from itertools import count
from typing import TYPE_CHECKING, Any, TypeVar

from ..store import LeaseHeld, Store, StoreBusy, StoreError
from ..store.db import LOCK_POLL
from .progress import Callback, RunError, RunProgress

if TYPE_CHECKING:
    from .llm_client import LLMClient

T = TypeVar("T")
LEASE_SECONDS = 60.0  # a killed process's run is free again after this
CONNECT_LIMIT = 2  # refused connections in a row (each retried once) that stop a run at once
BUSY_RETRIES = 8  # a busy database is retried (with backoff) before a run gives up


class Breaker:
    """The circuit breaker: `limit` connection, timeout, auth or endpoint failures (429/5xx after
    the retries, 402, 404) in a row stop the run (an endpoint that is down or out of quota must
    not be asked for an hour). A refused connection (nothing listens at the URL, no such host)
    is not a busy server: CONNECT_LIMIT of them in a row stop it within seconds. Any success,
    or an item's own error, resets it."""

    def __init__(self, limit: int, cancel: threading.Event):
        self.limit, self.cancel = limit, cancel
        self.streak = 0
        self.refused = 0  # refused connections in a row
        self.successes = 0
        self.tripped: str | None = None

    def record(self, error=None) -> None:
        if error is None:
            self.streak, self.refused, self.successes = 0, 0, self.successes + 1
            return
        kind = getattr(error, "kind", "")
        self.streak = self.streak + 1 if getattr(error, "unreachable", False) else 0
        self.refused = self.refused + 1 if kind in ("connect", "tls") else 0  # neither fixes itself
        if (self.streak >= self.limit or self.refused >= min(self.limit, CONNECT_LIMIT)) \
                and self.tripped is None:
            what = "failing" if kind == "unavailable" else "unreachable"
            self.tripped = (f"endpoint {what}: {self.streak} failures in a row "
                            f"(last: {str(error)[:200]})")
            self.cancel.set()


async def save_when_free(call: Callable[..., T], *args, db: Store | None = None, **kw) -> T:
    """A run's write, retried while another process holds the database (an import, say). With
    `db`, the database it writes to, the wait leaves the event loop free, so the run's requests
    go on meanwhile: the write is tried at once and again every few milliseconds (as
    Database._begin does) for up to the database's busy timeout, then after longer pauses."""
    for attempt in range(BUSY_RETRIES + 1):
        try:
            return call(*args, **kw) if db is None else await _when_unlocked(db, call, *args, **kw)
        except StoreError as e:
            if "busy" not in str(e) or attempt == BUSY_RETRIES:
                raise
            await asyncio.sleep(min(5.0, 0.2 * 2 ** attempt))
    raise AssertionError("unreachable")


async def _when_unlocked(db: Store, call: Callable[..., T], *args, **kw) -> T:
    deadline = time.monotonic() + db.busy_ms / 1000
    for poll in count():
        try:
            with db.at_once():
                return call(*args, **kw)
        except StoreBusy:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(LOCK_POLL[min(poll, len(LOCK_POLL) - 1)])
    raise AssertionError("unreachable")


BATCH_WINDOW = 0.02  # seconds a batch stays open for the replies that follow its first


class RowWriter:
    """A run's rows written in batches: `await save(row)` returns once the row is committed,
    in one transaction with the rows of the replies that arrive within `window` seconds of the
    batch's first (at 400 replies a second a turn of the event loop holds about one, and a
    transaction a reply was a tenth of a sweep's CPU). While another process holds the database
    the batch stays open, the rows that come meanwhile joining it: one write waits, not one a
    window. A row is still committed before its progress is counted, and a killed run loses at
    most the replies of the open batch (a resume asks them again); `drain()` waits for it."""

    def __init__(self, write: Callable[[list], None], window: float = BATCH_WINDOW, db: Store | None = None):
        self.write, self.window, self.db = write, window, db  # db: what `write` writes to (see save_when_free)
        self.rows: list = []
        self.batch: asyncio.Future[Exception | None] | None = None  # open until it is written
        self.failed: Exception | None = None  # the first batch that could not be written

    def put(self, row) -> None:
        """Add `row` to the open batch (opening one) without waiting for its write (a write
        that fails is kept in `failed`)."""
        self._batch(row)

    async def save(self, row) -> None:
        """Add `row` and return once its batch is written (its failure raised here)."""
        batch = self._batch(row)
        failure = await asyncio.shield(batch)  # a cancelled request does not cancel its batch's write
        if failure is not None:
            raise failure

    def _batch(self, row) -> asyncio.Future[Exception | None]:
        self.rows.append(row)
        if self.batch is None:
            self.batch = asyncio.ensure_future(self._flush())
        return self.batch

    async def _flush(self) -> Exception | None:
        """Write the batch; its failure is returned, not raised: a batch nobody waits for (put)
        leaves no unretrieved exception behind."""
        await asyncio.sleep(self.window)  # the replies ready meanwhile join the batch
        try:
            await save_when_free(self._write_all, db=self.db)
        except Exception as e:  # noqa: BLE001 - handed to save's callers, kept for put's
            self.rows, self.batch = [], None
            self.failed = self.failed or e
            return e
        return None

    def _write_all(self) -> None:
        """Every row of the open batch, those that joined while it waited too; the batch is
        closed once they are written (a busy refusal wrote nothing and keeps it open)."""
        self.write(self.rows)
        self.rows, self.batch = [], None

    async def drain(self) -> None:
        """Wait for the open batch, one still waiting for the database included."""
        while self.batch is not None:
            await asyncio.gather(self.batch, return_exceptions=True)


def take_lease(store: Store, run_id: int) -> None:
    """Claim the run for this process (RunError names the process that holds it)."""
    try:
        store.runs.take_lease(run_id, LEASE_SECONDS)
    except LeaseHeld as e:
        raise RunError(str(e)) from None


async def keep_lease(store: Store, run_id: int) -> None:
    """Renew the run's lease every third of its length until cancelled."""
    while True:
        await asyncio.sleep(LEASE_SECONDS / 3)
        try:  # a busy database waited for asleep: the requests go on meanwhile
            await save_when_free(store.runs.renew_lease, run_id, LEASE_SECONDS, db=store)
        except StoreError:
            pass  # busy all along: the next beat renews it


async def drive_requests(work: Callable[[T], Coroutine[Any, Any, object]], items: Iterable[T],
                         admit: Callable[[], Awaitable[object]], store: Store, run_id: int, client: LLMClient,
                         cancel: threading.Event, writer: RowWriter | None = None) -> None:
    """Run `work(item)` for each item, each its own task, started in order once `admit()` lets
    it (the session's: when few of the run's requests wait for a slot). A run of 10,000
    requests holds a few dozen tasks, not 10,000 from its start (made before the first request
    could go: 50 ms of a sweep's start). Ctrl-C, SIGTERM or SIGHUP (the task is cancelled)
    cancels them and the run ends `cancelled`; an unexpected error in one marks the run
    `failed`, cancels the others and propagates. The run's lease is renewed meanwhile; the
    writer's last batch is waited for."""
    beat = asyncio.ensure_future(keep_lease(store, run_id))
    try:
        async with asyncio.TaskGroup() as group:
            for item in items:
                await admit()
                if cancel.is_set():
                    break
                group.create_task(work(item))
    except asyncio.CancelledError:
        cancel.set()
    except BaseException as e:
        first = e.exceptions[0] if isinstance(e, BaseExceptionGroup) else e
        reason = f"{type(first).__name__}: {str(first)[:300]}"
        try:  # a busy database waited for asleep: a sweep's other runs go on meanwhile
            await save_when_free(record_end, store, run_id, "failed", reason, db=store)
        except StoreError:
            pass  # busy all along: the lease lapses and the run reads interrupted, resumable
        raise first from None
    finally:
        beat.cancel()
        if writer is not None:
            await writer.drain()
        await client.close()


def record_end(store: Store, run_id: int, status: str, reason: str | None) -> None:
    """A run's end in the database: its status and reason, its lease freed."""
    store.runs.set_run_status(run_id, status, reason=reason)
    store.runs.release_lease(run_id)


def finish_run(store: Store, progress: RunProgress, complete: bool, on_progress: Callback | None,
               breaker: Breaker | None = None) -> RunProgress:
    """The run's final status: `failed` when the breaker stopped it or no request succeeded
    (with the reason), `done` when every item has a row, else `cancelled` (resumable)."""
    reason = None
    if breaker is not None and breaker.tripped:
        progress.status, reason = "failed", breaker.tripped
    elif complete and progress.done and progress.errors >= progress.done:
        progress.status = "failed"
        reason = f"no request succeeded ({progress.errors} API errors; last: {progress.message[:200]})"
    else:
        progress.status = "done" if complete else "cancelled"
    if reason:
        progress.message = reason
    return end_run(store, progress, progress.status, reason, on_progress)


def end_run(store: Store, progress: RunProgress, status: str, reason: str | None,
            on_progress: Callback | None) -> RunProgress:
    """Record a run's end as it is (no breaker, no counting): status, reason, the lease freed."""
    progress.status, progress.reason = status, reason
    record_end(store, progress.run_id, status, reason)
    if on_progress:
        on_progress(progress)
    return progress
