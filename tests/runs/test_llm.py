"""LLM runs (runs/llm.py) with the real openai client against a local OpenAI-compatible server:
reply formats, retries, errors, the cache, cancel and resume, resume overrides, secrets never stored."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading

import pytest
from factories import keyed_bank, llm_run
from llm_server import Gate, LLMServer, Reply, chat
from processes import closed_port, wait_until

from persian_tui.cli import main
from persian_tui.runs import LLMRunSpec, RunError, create_llm_run, execute_llm_run

SECRET = "sk-test-SECRET-never-stored-123"


@pytest.fixture
def bank(store):
    return keyed_bank(store, 12)


def key_of(body):
    """The test server answers with the key, read back from the question text (option ids)."""
    text = body["messages"][-1]["content"]
    i = int(text.split("مصراع اول ")[1].split()[0])
    return (i % 4) + 1


def run(store, script, **kw):
    return llm_run(store, script, **{"model": "test-model", "max_retries": 2, **kw})


FORMATS = ["{k}", "Answer: {k}", '{{"answer": {k}}}', "```json\n{{\"answer\": \"{k}\"}}\n```",
           "<think>Answer: 9 maybe 1</think>\nپاسخ: {kfa}", "گزینه {kfa}", "The outlier is ({kl}).",
           "Options 1 and 3 share love", "", "I'm sorry, I can't help with that."]


def test_every_reply_format_and_parse_status(bank):
    def script(body, n):
        k = key_of(body)
        fmt = FORMATS[int(body["messages"][-1]["content"].split("مصراع اول ")[1].split()[0]) % len(FORMATS)]
        return chat(fmt.format(k=k, kfa="۰۱۲۳۴"[k], kl="ABCD"[k - 1]), cost=0.001)

    r, p, _ = run(bank, script)
    preds = {x.uid: x for x in bank.runs.predictions(r.id)}
    assert len(preds) == 12 and p.status == "done"
    statuses = [preds[f"q-{i:03d}"].parse_status for i in range(12)]
    assert statuses[:7] == ["ok"] * 7 and statuses[7] == "invalid" and statuses[8] == "empty"
    assert statuses[9] == "refusal" and statuses[10:] == ["ok", "ok"]
    assert all(preds[f"q-{i:03d}"].predicted == (i % 4) + 1 for i in (0, 1, 2, 3, 4, 5, 6, 10, 11))
    assert preds["q-004"].reasoning and "maybe" in preds["q-004"].reasoning
    assert preds["q-000"].tokens_in == 10 and preds["q-000"].cost == 0.001
    assert (p.correct, p.scored, p.invalid) == (9, 12, 3)
    assert bank.runs.run_summaries()[0].correct == 9


def test_rate_limits_and_server_errors_are_retried(bank):
    attempts = {}

    def script(body, n):
        k = key_of(body)
        attempts[k] = attempts.get(k, 0) + 1
        if attempts[k] == 1:
            return Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "0.05"})
        if attempts[k] == 2 and k % 2:
            return Reply(500, {"error": {"message": "boom"}})
        return chat(str(k))

    r, p, server = run(bank, script, concurrency=1, cache=False)
    assert p.errors == 0 and p.correct == 12


def test_persistent_errors_become_api_error_rows_then_retry_errors(bank):
    broken = {"on": True}

    def script(body, n):
        if broken["on"] and key_of(body) == 2:
            return Reply(503, {"error": {"message": "unavailable"}})
        if broken["on"] and key_of(body) == 3:
            return Reply(200, "{not json")
        return chat(str(key_of(body)))

    with LLMServer(script) as server:
        spec = LLMRunSpec(base_url=server.url, model="m", max_retries=1)
        r = create_llm_run(bank, spec)
        p = asyncio.run(execute_llm_run(bank.path, r.id))
        assert p.errors == 6 and p.done == 12
        rows = [x for x in bank.runs.predictions(r.id) if x.parse_status == "api_error"]
        assert any("HTTP 503" in x.error for x in rows) and any("malformed" in x.error for x in rows)
        broken["on"] = False
        p = asyncio.run(execute_llm_run(bank.path, r.id, retry_errors=True))
        assert p.errors == 0 and p.correct == 12
    assert len(bank.runs.predictions(r.id)) == 12  # retried rows replaced, not added


def test_timeouts(bank):
    # the 3 questions keyed 1 get no reply before the run ends; the others get theirs at once, well
    # inside a timeout that even a busy machine meets (the count does not depend on the clock)
    ended = threading.Event()

    def script(body, n):
        if key_of(body) == 1:
            ended.wait(3600)
        return chat(str(key_of(body)))

    try:
        r, p, _ = run(bank, script, timeout=5, max_retries=0, concurrency=6)
    finally:
        ended.set()
    errors = [x for x in bank.runs.predictions(r.id) if x.parse_status == "api_error"]
    assert len(errors) == 3 and all("timeout" in x.error for x in errors)


def test_cache_hits_and_errors_never_cached(bank):
    count = {"n": 0}

    def script(body, n):
        count["n"] += 1
        if count["n"] <= 12 and key_of(body) == 4:
            return Reply(500, {"error": {"message": "down"}})
        return chat(str(key_of(body)))

    def once(**kw):
        r = create_llm_run(bank, LLMRunSpec(base_url=server.url, model="m", max_retries=0, **kw))
        return asyncio.run(execute_llm_run(bank.path, r.id))

    with LLMServer(script) as server:
        assert once().errors == 3 and count["n"] == 12
        p = once()  # answers from the cache; the 3 failed ones are asked again (errors are not cached)
        assert count["n"] == 15 and p.correct == 12 and p.errors == 0
        once(temperature=0.7)  # a parameter that changes the output: asked again
        assert count["n"] == 27


def test_a_reply_from_the_cache_costs_nothing(bank):
    """A run answered from the cache spent nothing: its rows' cost is 0 (what a budget, a
    resume's budget and the report count), the first run's the endpoint's."""
    with LLMServer(lambda body, n: chat(str(key_of(body)), cost=0.01)) as server:
        runs = []
        for _ in range(2):
            r = create_llm_run(bank, LLMRunSpec(base_url=server.url, model="m", max_retries=0))
            asyncio.run(execute_llm_run(bank.path, r.id))
            runs.append(r)
        assert len(server.requests) == 12
    first, again = ([p.cost for p in bank.runs.predictions(r.id)] for r in runs)
    assert first == [0.01] * 12 and again == [0.0] * 12


def _cache_writes(monkeypatch, fail_first: bool = False) -> list[int]:
    """The replies each of the store's cache writes holds, one entry a call (a transaction); the
    first refused as busy when `fail_first` (another process holding the database past the wait)."""
    from persian_tui.store import StoreBusy
    from persian_tui.store.runs import RunsRepo

    calls: list[int] = []
    original = RunsRepo.cache_responses

    def counted(self, entries):
        calls.append(len(entries))
        if fail_first and len(calls) == 1:
            raise StoreBusy("db.sqlite: database busy (another process is writing); nothing was written")
        return original(self, entries)

    monkeypatch.setattr(RunsRepo, "cache_responses", counted)
    return calls


def _cached(store) -> int:
    return store.conn.execute("SELECT COUNT(*) FROM response_cache").fetchone()[0]


def test_replies_that_arrive_together_are_cached_in_one_write(store, monkeypatch):
    """The cache is written in batches, as the rows are: one transaction a reply was a tenth of a
    request's CPU with the cache on (the default). 40 replies let through at once take a few writes."""
    bank40 = keyed_bank(store, 40)
    writes = _cache_writes(monkeypatch)
    together = threading.Barrier(40, timeout=60)

    def script(body, n):
        together.wait()
        return chat(str(key_of(body)))

    r, p, server = run(bank40, script, concurrency=40, max_retries=0)
    assert p.status == "done" and p.correct == 40
    assert sum(writes) == 40 and len(writes) <= 4, writes
    assert _cached(bank40) == 40


def test_a_busy_database_when_replies_are_cached_is_waited_for_not_the_end_of_the_run(bank, monkeypatch):
    """Another process holding the database past the wait when a reply is cached: the write is
    tried again after a moment (as a row's is); the run ends done and every reply is cached."""
    writes = _cache_writes(monkeypatch, fail_first=True)
    r, p, server = run(bank, lambda body, n: chat(str(key_of(body))))
    assert p.status == "done" and p.correct == 12, p.message
    assert sum(writes) > 12 and _cached(bank) == 12  # the refused write's replies written after all


def test_replies_that_cannot_be_cached_leave_the_run_done_and_say_so(bank, monkeypatch):
    """The cache only spares a later run its requests: a cache write that keeps failing leaves
    every row written and the run done, with a message naming why."""
    from persian_tui.store import StoreError
    from persian_tui.store.runs import RunsRepo

    def refuse(self, entries):
        raise StoreError("db.sqlite: no such table: response_cache; nothing was written")

    monkeypatch.setattr(RunsRepo, "cache_responses", refuse)
    r, p, _ = run(bank, lambda body, n: chat(str(key_of(body))))
    assert p.status == "done" and p.correct == 12 and len(bank.runs.predictions(r.id)) == 12
    assert p.message.startswith("some replies were not cached: ") and "response_cache" in p.message


def test_shuffle_is_undone_when_scoring(bank):
    def script(body, n):  # the server answers with the displayed position of the true key
        text = body["messages"][-1]["content"]
        i = int(text.split("مصراع اول ")[1].split()[0])
        lines = [l for l in text.splitlines() if l[:2] in ("1.", "2.", "3.", "4.")]
        true = (i % 4) + 1
        shown = next(int(l[0]) for l in lines if f"مصراع اول {i} {true - 1} " in l + " ")
        return chat(str(shown))

    r, p, _ = run(bank, script, shuffle_seed=7)
    preds = bank.runs.predictions(r.id)
    assert p.correct == 12 and any(x.permutation != [1, 2, 3, 4] for x in preds)


def test_api_key_is_sent_but_never_stored(bank, monkeypatch):
    monkeypatch.setenv("MY_KEY", SECRET)
    r, p, server = run(bank, lambda body, n: chat("1"), api_key_env="MY_KEY")
    assert {k.lower(): v for k, v in server.headers[0].items()}["authorization"] == f"Bearer {SECRET}"
    bank.conn.commit()
    raw = open(bank.path, "rb").read() + open(f"{bank.path}-wal", "rb").read()
    assert SECRET.encode() not in raw
    assert "MY_KEY" in json.dumps(bank.runs.get_run(r.id).params)  # the variable's name only


def test_cancel_stops_cleanly(bank):
    cancel = threading.Event()

    def script(body, n):
        if n == 3:
            cancel.set()
        return Reply(body=chat(str(key_of(body))).body, delay=0.05)

    with LLMServer(script) as server:
        r = create_llm_run(bank, LLMRunSpec(base_url=server.url, model="m", concurrency=1))
        p = asyncio.run(execute_llm_run(bank.path, r.id, cancel=cancel))
    assert p.status == "cancelled" and bank.runs.get_run(r.id).status == "cancelled"
    assert 3 <= p.done < 12


def test_resume_after_kill_9(bank, tmp_path):
    # 4 replies, then the rest held: the run is killed with 4 rows committed and requests in flight
    gate = Gate(lambda body, n: chat(str(key_of(body))), free=4)
    with LLMServer(gate) as server:
        env = {**os.environ, "PERSIAN_TUI_DB": str(bank.path)}
        cmd = [sys.executable, "-m", "persian_tui.cli", "run", "llm", "--base-url", server.url,
               "--model", "m", "--concurrency", "2"]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_until(lambda: bank.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] >= 4
                   and len(server.requests) >= 6, "4 rows committed, 2 more requests in flight")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        gate.open()
        run_id = bank.runs.runs()[0].id
        done_before = len(bank.runs.predictions(run_id))
        assert done_before == 4 and bank.runs.get_run(run_id).status == "running"
        resumed = subprocess.run([sys.executable, "-m", "persian_tui.cli", "run", "llm", "--resume",
                                  str(run_id)], env=env, capture_output=True, text=True)
        assert resumed.returncode == 0, resumed.stderr
    preds = bank.runs.predictions(run_id)
    assert len(preds) == 12 and len({p.uid for p in preds}) == 12
    assert bank.runs.get_run(run_id).status == "done"
    assert sum(p.predicted == (int(p.uid[2:]) % 4) + 1 for p in preds) == 12


def test_paraphrase_run_then_embed_the_prose(bank):
    from persian_tui.runs import EmbedRunSpec, run_embedding

    def script(body, n):
        first = body["messages"][-1]["content"].splitlines()[0]
        i, j = first.split()[2:4]
        theme = "گل" if int(j) == int(i) % 4 else "سنگ"  # the key's couplet gets other words
        return chat(f"<think>...</think>این بیت درباره {theme} {theme} است")

    with LLMServer(script) as server:
        r = create_llm_run(bank, LLMRunSpec(base_url=server.url, model="m"), kind="paraphrase")
        p = asyncio.run(execute_llm_run(bank.path, r.id))
    assert p.status == "done" and len(server.requests) == 48  # 12 questions x 4 couplets
    prose = bank.runs.paraphrases(r.id)
    assert len(prose) == 12 and prose["q-001"][1] == "این بیت درباره گل گل است"
    e = run_embedding(bank, EmbedRunSpec(paraphrase_run=r.id))
    assert e.correct == 12


# ------------------------------------------------------------------ secrets and specs


def test_passwords_in_urls_are_never_stored_or_printed(bank10, capsys):
    with LLMServer(lambda b, n: chat("Answer: 1")) as server:
        url = server.url.replace("http://", "http://alice:hunter2pw@")
        assert main(["--db", str(bank10.path), "run", "llm", "--base-url", url, "--model", "m",
                     "--limit", "2"]) == 0
    out, err = capsys.readouterr()
    stored = json.dumps([r.params for r in bank10.runs.runs()])
    assert "hunter2pw" not in out + err + stored and "***@127.0.0.1" in stored
    # resuming needs the URL again: the password was never stored
    assert main(["--db", str(bank10.path), "run", "llm", "--resume", "1"]) == 1
    assert "give --base-url again" in capsys.readouterr().err


# ------------------------------------------------------------------ resume overrides, lifecycle


def test_resume_overrides_are_checked_recorded_and_honour_limit(bank10, capsys):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    r = create_llm_run(bank10, LLMRunSpec(base_url=url, model="m", max_retries=0, concurrency=1,
                                          max_failures=1))
    asyncio.run(execute_llm_run(bank10.path, r.id))
    assert bank10.runs.get_run(r.id).status == "failed"
    assert main(["--db", str(bank10.path), "run", "llm", "--resume", str(r.id), "--strategy", "json"]) == 1
    assert "different strategy" in capsys.readouterr().err
    with LLMServer(lambda b, n: chat("Answer: 1")) as server:
        assert main(["--db", str(bank10.path), "run", "llm", "--resume", str(r.id), "--base-url", server.url,
                     "--retry-errors", "--limit", "4", "--concurrency", "2"]) == 1  # 4 more, not all
        assert len(server.requests) == 4
        assert main(["--db", str(bank10.path), "run", "llm", "--resume", str(r.id), "--base-url",
                     server.url, "--retry-errors"]) == 0
    history = bank10.runs.run_history(r.id)
    assert [h["event"] for h in history][:2] == ["resume-overrides", "resume-overrides"]
    assert history[0]["detail"]["limit"] == 4 and history[0]["detail"]["base_url"] == server.url
    assert bank10.runs.get_run(r.id).status == "done"


def test_stored_spec_resumes_in_python_too(bank10):
    r = create_llm_run(bank10, LLMRunSpec(base_url="http://127.0.0.1:9/v1", model="m"))
    with pytest.raises(RunError, match="different model"):
        from persian_tui.runs import resume_overrides

        resume_overrides(bank10, r, {"model": "other"})


FIRST_REQUEST = """
import json, sys, threading
from persian_tui.runs import llm_client
from persian_tui.cli import main

seen, importer = [], []

def imports(event, args):  # the module's body run: by the thread that imports it
    if event == "exec" and getattr(args[0], "co_filename", "").endswith("runs/parse.py"):
        importer.append(threading.current_thread().name)

sys.addaudithook(imports)
complete = llm_client.LLMClient.complete

async def recording(self, *a, **kw):
    if not seen:
        seen.append(bool(importer) and importer[0] == threading.current_thread().name)
    return await complete(self, *a, **kw)

llm_client.LLMClient.complete = recording
code = main(sys.argv[1:])
print(json.dumps({"code": code, "parser_before_first_request": seen[0], "imported_by": importer[:1]}))
"""


@pytest.mark.parametrize("kind", ["llm", "judge"])
def test_the_reply_parser_is_loaded_after_the_first_request(bank, kind):
    """Compiling the reply parser's patterns is start-up work no request waits for: a fresh
    `run llm` (or `judge`) process does not import the parser in its event loop before its
    first request, and imports it in a thread of its own, not in the event loop as the first
    replies arrive (checked as a user starts it, in a new process)."""
    with LLMServer(lambda body, n: chat(str(key_of(body)) if n < 12 else '{"verdict": "correct"}')) as server:
        argv = ["run", "llm", "--base-url", server.url, "--model", "m", "--concurrency", "2"]
        if kind == "judge":
            assert main(["--db", str(bank.path), *argv]) == 0
            argv = ["judge", str(bank.runs.runs()[0].id), "--base-url", server.url, "--judge-model", "j"]
        out = subprocess.run([sys.executable, "-c", FIRST_REQUEST, "--db", str(bank.path), *argv],
                             capture_output=True, text=True, env={**os.environ, "PERSIAN_TUI_DB": ""})
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["code"] == 0 and result["parser_before_first_request"] is False
    assert result["imported_by"] == ["import persian_tui.runs.parse"]
