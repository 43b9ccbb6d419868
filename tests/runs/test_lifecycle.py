"""What every run shares (runs/lifecycle.py): failure is a status, the circuit breaker, the
lease that keeps a second process off a run."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
from factories import ROOT, llm_run, llm_run_at
from llm_server import Gate, LLMServer, Reply, chat
from processes import HeldWriteLock, closed_port, wait_until

from persian_tui.cli import main
from persian_tui.runs import LLMRunSpec, create_llm_run, execute_llm_run

KEY = "sk-live-TOPSECRET-0123456789abcdef"


# ------------------------------------------------------------------ failure is a status


def test_nothing_listening_ends_failed_not_done(bank10, capsys):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    code = main(["--db", str(bank10.path), "run", "llm", "--base-url", url, "--model", "x",
                 "--max-retries", "0", "--limit", "3"])
    out, err = capsys.readouterr()
    assert code == 1
    (run,) = bank10.runs.runs()
    assert run.status == "failed" and run.reason.startswith("endpoint unreachable: 2 failures in a row")
    assert "failed" in out and "accuracy —" in out and "0.0%" not in out + err
    assert main(["--db", str(bank10.path), "runs"]) == 0  # no traceback on a failed run
    listed = capsys.readouterr().out
    assert "failed" in listed and "acc      —" in listed and "0.0%" not in listed
    assert bank10.runs.run_summaries(archived=True)[0].accuracy is None


def test_circuit_breaker_stops_an_unreachable_endpoint(bank10):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    spec = LLMRunSpec(base_url=url, model="m", max_retries=0, concurrency=1, max_failures=3)
    r = create_llm_run(bank10, spec)
    p = asyncio.run(execute_llm_run(bank10.path, r.id))
    assert p.status == "failed" and p.done == 2  # refused twice: stopped, not 10 (nor 3)
    run = bank10.runs.get_run(r.id)
    assert run.status == "failed" and run.reason.startswith("endpoint unreachable: 2 failures in a row")


def test_a_success_resets_the_breaker_and_some_errors_still_end_done(bank10):
    def script(body, n):
        return Reply(500, {"error": {"message": "boom"}}) if n % 2 else chat("Answer: 1")

    r, p, _ = llm_run(bank10, script, concurrency=1, max_failures=2)
    assert p.status == "done" and p.errors == 5 and p.done == 10


def test_breaker_counts_auth_failures_and_echoed_keys_are_redacted(bank10, monkeypatch):
    monkeypatch.setenv("MY_KEY", KEY)

    def script(body, n):  # the endpoint echoes the key it was given, as some proxies do
        return Reply(401, {"error": {"message": f"Invalid token: Bearer {KEY} (sk-other-123456789)"}})

    r, p, _ = llm_run(bank10, script, api_key_env="MY_KEY", concurrency=1, max_failures=2)
    assert p.status == "failed" and p.done == 2
    dump = json.dumps([(x.error, x.raw_output) for x in bank10.runs.predictions(r.id)])
    dump += bank10.runs.get_run(r.id).reason
    assert KEY not in dump and "sk-other-123456789" not in dump and "Bearer ***" in dump


# ------------------------------------------------------------------ one process per run


def test_two_resumers_one_works_the_other_names_the_holder(bank10, tmp_path):
    gate = Gate(lambda b, n: chat("Answer: 1"))  # no reply until one of the two has given up
    with LLMServer(gate) as server:
        spec = LLMRunSpec(base_url=server.url, model="m", concurrency=1, max_retries=0)
        r = create_llm_run(bank10, spec)
        procs = [subprocess.Popen([sys.executable, "-m", "persian_tui.cli", "--db", str(bank10.path), "run",
                                   "llm", "--resume", str(r.id)], env={**os.environ, "PYTHONPATH": str(ROOT)},
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        wait_until(lambda: any(p.poll() is not None for p in procs), "one of the two resumers ended")
        gate.open()
        results = [p.communicate(timeout=300) for p in procs]
        codes = sorted(p.returncode for p in procs)
        assert codes == [0, 1]
        loser = next(err for p, (out, err) in zip(procs, results) if p.returncode == 1)
        assert "being worked on by process" in loser and "@" in loser
        assert len(server.requests) == 10  # every question asked once, not twice


@pytest.mark.parametrize("status, message", [
    (429, "You exceeded your current quota (insufficient_quota)"),  # retried, then failed for good
    (503, "Service Unavailable"),
    (402, "Insufficient credits"),
    (404, "The model `m` does not exist"),
])
def test_an_endpoint_that_keeps_failing_trips_the_breaker_too(bank6, status, message):
    """Out of quota (429 forever), down behind a proxy (503), out of credits (402), a model that
    does not exist (404): the account or endpoint fails, not the item; the run stops after
    --max-failures of them in a row instead of asking every question."""
    r, p = llm_run_at(bank6, lambda body, n: Reply(status, {"error": {"message": message}},
                                                   headers={"Retry-After": "0"}),
                      concurrency=1, max_failures=3, max_retries=1)
    assert p.status == "failed" and p.done == 3
    assert bank6.runs.get_run(r.id).reason.startswith(f"endpoint failing: 3 failures in a row (last: HTTP {status}")


def test_item_specific_rejections_do_not_trip_the_breaker(bank6):
    """A 400 (a prompt too long for the context, a content filter) is about the item."""
    r, p = llm_run_at(bank6, lambda body, n: Reply(400, {"error": {"message": "context length exceeded"}}),
                      concurrency=1, max_failures=2)
    assert p.done == 6 and p.status == "failed" and "no request succeeded" in bank6.runs.get_run(r.id).reason


# ------------------------------------------------------------------ rows written in batches


def test_rows_ready_together_are_written_in_one_transaction():
    """Replies ready in the same turn of the event loop share one write; each save returns
    once its row is written; a request cancelled while its batch is written still has its
    row written, and drain() waits for the last batch."""
    from persian_tui.runs.lifecycle import RowWriter

    batches: list[list[int]] = []
    writer = RowWriter(lambda rows: batches.append(list(rows)))

    async def main() -> None:
        written = []

        async def one(i: int) -> None:
            await writer.save(i)
            written.append(i in [r for b in batches for r in b])

        await asyncio.gather(*(one(i) for i in range(5)))
        assert batches == [[0, 1, 2, 3, 4]] and written == [True] * 5
        task = asyncio.ensure_future(writer.save(9))
        await asyncio.sleep(0)
        task.cancel()
        await writer.drain()
        assert batches[-1] == [9]

    asyncio.run(main())


def test_rows_arriving_within_the_window_share_one_transaction():
    """Replies a few milliseconds apart (each in its own turn of the loop) are written together:
    one transaction a window, not one a reply (at 400 replies a second, a turn holds about one)."""
    from persian_tui.runs.lifecycle import RowWriter

    batches: list[list[int]] = []
    writer = RowWriter(lambda rows: batches.append(list(rows)), window=0.05)

    async def main() -> None:
        async def one(i: int) -> None:
            await asyncio.sleep(i * 0.005)
            await writer.save(i)

        await asyncio.gather(*(one(i) for i in range(4)))
        await writer.drain()

    asyncio.run(main())
    assert batches == [[0, 1, 2, 3]]


def busy_once(tries: list[list], refused: asyncio.Event, written: list | None = None):
    """A batch write that keeps each try's rows in `tries` and refuses the first as busy (another
    process holding the database), setting `refused`; the rows it writes go to `written`."""
    from persian_tui.store import StoreBusy

    def write(rows):
        tries.append(list(rows))
        if len(tries) == 1:
            refused.set()
            raise StoreBusy("db.sqlite: database busy (another process is writing); nothing was written")
        if written is not None:
            written.extend(rows)

    return write


def test_drain_waits_for_a_batch_still_retried_on_a_busy_database():
    """A batch refused as busy waits a moment and is written again; a run ending meanwhile (its
    requests cancelled: Ctrl-C) still has that batch written before drain() returns."""
    from persian_tui.runs.lifecycle import RowWriter

    written: list[int] = []
    tries: list[list[int]] = []

    async def main() -> None:
        refused = asyncio.Event()
        writer = RowWriter(busy_once(tries, refused, written), window=0.01)
        task = asyncio.ensure_future(writer.save(7))
        await refused.wait()  # the batch was tried and refused: it waits to be tried again
        task.cancel()
        await writer.drain()

    asyncio.run(main())
    assert tries == [[7], [7]] and written == [7]


def test_rows_that_come_while_a_batch_waits_for_the_database_join_it():
    """While another process holds the database the batch stays open: the rows that come
    meanwhile are written with it, one write waiting rather than one a window (each trying the
    lock every few milliseconds)."""
    from persian_tui.runs.lifecycle import RowWriter

    tries: list[list[int]] = []

    async def main() -> None:
        refused = asyncio.Event()
        writer = RowWriter(busy_once(tries, refused), window=0.01)
        first = asyncio.ensure_future(writer.save(1))
        await refused.wait()
        await asyncio.gather(first, writer.save(2), writer.save(3))

    asyncio.run(main())
    assert tries == [[1], [1, 2, 3]]


def test_a_batch_nobody_waits_for_keeps_its_failure_for_the_run():
    """Rows put without waiting (the replies' cache entries): a batch that cannot be written
    leaves no unretrieved exception behind; the writer keeps the first failure to report."""
    from persian_tui.runs.lifecycle import RowWriter
    from persian_tui.store import StoreError

    def write(rows):
        raise StoreError("db.sqlite: disk full; nothing was written")

    writer = RowWriter(write, window=0.0)

    async def main() -> None:
        writer.put(1)
        await writer.drain()

    asyncio.run(main())
    assert "disk full" in str(writer.failed)


def test_a_run_keeps_asking_while_another_process_holds_the_database(store):
    """Another connection holding the write lock (an import's transaction, say) for 1.5 s in
    the middle of a run: the run's writes wait for it without stopping its event loop, so the
    requests go on meanwhile (they all stopped until the lock was free), and every row is
    written once it is."""
    import time

    from factories import keyed_bank

    bank = keyed_bank(store, 200)
    arrivals: list[float] = []
    holder = HeldWriteLock(bank.path, 1.5)

    def script(body, n):
        arrivals.append(time.monotonic())
        if len(arrivals) == 10:
            holder.start()
        time.sleep(0.02)  # 200 replies 4 at a time: about a second of requests, most of them in the hold
        return chat("1")

    r, p, _ = llm_run(bank, script, concurrency=4)
    holder.join()
    assert p.status == "done" and p.done == 200 and len(bank.runs.predictions(r.id)) == 200
    during = holder.within(arrivals, after=0.3, before=0.1)
    assert len(during) >= 20, (len(during), len(arrivals))


@pytest.mark.parametrize("when", ["start", "end"])
def test_a_runs_start_and_end_wait_for_the_database_without_stopping_the_event_loop(store, when):
    """Another connection holding the write lock as a run starts (its lease, its status) or ends
    (its status, the lease freed): the run waits for it asleep, so whatever else the event loop
    runs (a sweep's other runs) goes on; a timer ticking beside the run keeps ticking."""

    from factories import keyed_bank

    bank = keyed_bank(store, 8)
    holder = HeldWriteLock(bank.path, 1.0)
    locked, free = holder.taken, holder.freed

    def counted(p) -> None:  # every row written and counted: the lock is taken before the run ends
        if when == "end" and p.done == 8 and not holder.is_alive() and not free.is_set():
            holder.start()
            locked.wait(10)

    ticks: list[float] = []
    with LLMServer(lambda body, n: chat("1")) as server:
        r = create_llm_run(bank, LLMRunSpec(base_url=server.url, model="m", max_retries=0, concurrency=2))

        async def main():
            if when == "start":
                holder.start()
                locked.wait(10)
            ticker = asyncio.ensure_future(holder.ticking(ticks))
            p = await execute_llm_run(bank.path, r.id, on_progress=counted)
            await ticker
            return p

        p = asyncio.run(main())
    holder.join()
    assert p.status == "done" and p.done == 8
    assert bank.runs.get_run(r.id).status == "done"
    during = holder.within(ticks, after=0.2, before=0.2)
    assert len(during) >= 10, (len(during), len(ticks))


def test_a_run_starts_its_requests_as_slots_free_not_all_at_once(store):
    """600 requests 4 at a time: the run keeps a few dozen tasks alive (the requests in flight, a
    few waiting for a slot, the replies waiting for their batch to be written), not one per
    request from its start (10,000 of them in a sweep took 50 ms before the first request)."""
    import time

    from factories import keyed_bank

    bank = keyed_bank(store, 200)
    alive: list[int] = []

    def script(body, n):  # 5 ms a reply: at most a few dozen replies wait for a batch's 20 ms
        time.sleep(0.005)
        return chat("1")

    with LLMServer(script) as server:
        r = create_llm_run(bank, LLMRunSpec(base_url=server.url, model="m", concurrency=4, samples=3, cache=False))
        p = asyncio.run(execute_llm_run(bank.path, r.id, on_progress=lambda p: alive.append(len(asyncio.all_tasks()))))
    assert p.status == "done" and p.done == 600 and len(bank.runs.predicted_samples(r.id)) == 600
    assert len(alive) > 600 and max(alive) <= 100, max(alive)


def _parser_fails_at_the_third_reply(monkeypatch, before=None) -> list:
    """The answer parser raising RuntimeError("boom") at the third reply (a bug, not an API
    error), `before()` called first; returns the replies it was given."""
    from persian_tui.runs import parse

    real, seen = parse.parse_answer, []

    def broken(text, **kw):
        seen.append(text)
        if len(seen) == 3:
            if before:
                before()
            raise RuntimeError("boom")
        return real(text, **kw)

    monkeypatch.setattr(parse, "parse_answer", broken)
    return seen


def test_an_unexpected_error_in_one_request_fails_the_run_and_stops_the_others(bank10, monkeypatch):
    """A bug in handling one reply (not an API error: those are rows) ends the run `failed` with
    the error named, propagates, and leaves no request behind it still running."""
    seen = _parser_fails_at_the_third_reply(monkeypatch)
    with LLMServer(lambda body, n: chat("1")) as server:
        r = create_llm_run(bank10, LLMRunSpec(base_url=server.url, model="m", concurrency=2, cache=False))

        async def main():
            with pytest.raises(RuntimeError, match="boom"):
                await execute_llm_run(bank10.path, r.id)
            return [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

        left = asyncio.run(main())
    assert left == []
    run = bank10.runs.get_run(r.id)
    assert run.status == "failed" and run.reason == "RuntimeError: boom"
    assert len(seen) < 10


def test_a_failed_runs_status_waits_for_the_database_without_stopping_the_event_loop(bank10, monkeypatch):
    """The bug of the test above while another connection holds the write lock: the run's
    `failed` status waits for it asleep (a sweep's other runs go on meanwhile; a timer ticking
    beside the run keeps ticking), then is written."""
    holder = HeldWriteLock(bank10.path, 1.0)

    def take_the_lock() -> None:
        holder.start()
        holder.taken.wait(10)

    _parser_fails_at_the_third_reply(monkeypatch, before=take_the_lock)
    ticks: list[float] = []
    with LLMServer(lambda body, n: chat("1")) as server:
        r = create_llm_run(bank10, LLMRunSpec(base_url=server.url, model="m", concurrency=2, cache=False))

        async def main():
            ticker = asyncio.ensure_future(holder.ticking(ticks))
            with pytest.raises(RuntimeError, match="boom"):
                await execute_llm_run(bank10.path, r.id)
            await ticker

        asyncio.run(main())
    holder.join()
    run = bank10.runs.get_run(r.id)
    assert run.status == "failed" and run.reason == "RuntimeError: boom"
    during = holder.within(ticks, after=0.2, before=0.2)
    assert len(during) >= 10, (len(during), len(ticks))


def test_a_row_is_committed_before_its_progress_is_counted(bank10):
    """With 8 requests in flight the rows go in batches, and every progress report counts
    only rows already in the database (read by another connection)."""
    from persian_tui.store import Store

    seen = []
    with LLMServer(lambda body, n: chat("Answer: 2")) as server:
        r = create_llm_run(bank10, LLMRunSpec(base_url=server.url, model="m", concurrency=8, cache=False))
        with Store(bank10.path) as other:
            def check(p):
                seen.append((p.done, len(other.runs.predictions(r.id))))

            p = asyncio.run(execute_llm_run(bank10.path, r.id, on_progress=check))
    assert p.status == "done" and p.done == 10
    assert all(stored >= done for done, stored in seen) and seen[-1] == (10, 10)
