"""Sweeps against the local OpenAI-compatible test server (real openai client, real HTTP): every
(run, question, sample) asked once, the budget holding with requests in flight, kill -9 and resume,
a 429 on one run slowing every run on the endpoint, the retry log."""

from __future__ import annotations

import asyncio
import io
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from llm_server import Gate, LLMServer, Reply, chat
from processes import HeldWriteLock, wait_until

from persian_tui.cli import main
from persian_tui.judging.run import execute_judge_run, judge_run_fields
from persian_tui.runs.sweep import create_sweep, execute_sweep, plan_sweep
from persian_tui.runs.sweep_spec import parse_sweep_spec


def spec_of(url: str, *, name="s", models=("a", "b"), connections=4, endpoint_connections=64,
            samples=2, strategies=("zero-shot",), max_cost=None, tolerate=0.2, retries=2, max_tokens=None,
            **model_kw):
    sweep = {"name": name, "questions": "all", "strategies": list(strategies), "samples": samples, "seed": 1}
    if max_tokens is not None:
        sweep["max_tokens"] = max_tokens
    if max_cost is not None:
        sweep["max_cost"] = max_cost
    return {"sweep": sweep, "endpoint": [{"name": "local", "base_url": url, "connections": endpoint_connections,
                                          "tolerate_429": tolerate}],
            "model": [{"name": m, "connections": connections, **model_kw} for m in models]} | \
        {"sweep": {**sweep, "max_retries": retries}}


def toml(data: dict) -> str:
    lines = ["[sweep]"] + [f"{k} = {_value(v)}" for k, v in data["sweep"].items()]
    for section in ("endpoint", "model"):
        for item in data[section]:
            lines += ["", f"[[{section}]]"] + [f"{k} = {_value(v)}" for k, v in item.items()]
    if "judge" in data:
        lines += ["", "[judge]"] + [f"{k} = {_value(v)}" for k, v in data["judge"].items()]
    return "\n".join(lines) + "\n"


def _value(v) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return repr(v)


def asked(body: dict) -> tuple[str, int, int]:
    """(model, question number, seed) of a request: the question's number is in its prompt."""
    text = body["messages"][-1]["content"]
    return body["model"], int(text.split("مصراع اول ")[1].split()[0]), body.get("seed")


def sweep(store, data: dict, **kw):
    spec = parse_sweep_spec(data)
    create_sweep(store, plan_sweep(store, spec))
    return asyncio.run(execute_sweep(store.path, spec, **kw))


def rows_per_run(store) -> dict[int, list[tuple[str, int]]]:
    return {r.id: sorted((p.uid, p.sample) for p in store.runs.predictions(r.id, samples=True))
            for r in store.runs.runs()}


def test_every_run_question_and_sample_is_asked_once_and_the_retries_are_logged(bank6, tmp_path, capsys):
    busy: set[str] = set()
    lock = threading.Lock()

    def script(body, n):  # every fifth first attempt is a 429 (with a Retry-After of 0 s)
        key = repr(asked(body))
        with lock:
            first = key not in busy
            busy.add(key)
        if first and n % 5 == 0:
            return Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "0"})
        return chat("1", cost=0.001)

    with LLMServer(script) as server:
        data = spec_of(server.url, strategies=["zero-shot", "json"])
        path = tmp_path / "s.toml"
        path.write_text(toml(data), encoding="utf-8")
        assert main(["--db", str(bank6.path), "sweep", str(path)]) == 0
        requests = [asked(b) for b in server.requests]
    runs = bank6.runs.runs()
    assert len(runs) == 4 and {r.status for r in runs} == {"done"}
    expected = sorted((f"q-{i:03d}", k) for i in range(6) for k in range(2))
    assert all(rows == expected for rows in rows_per_run(bank6).values())
    throttled = len(requests) - 4 * 12  # the 429s were asked again, nothing else
    assert throttled > 0
    logged = [r for run in runs for r in bank6.sweeps.retries(run.id)]
    assert len(logged) == throttled and {r["status"] for r in logged} == {429}
    out = capsys.readouterr().out
    assert "sweep s done: 48/48 rows, spent $0.0480" in out
    assert main(["--db", str(bank6.path), "sweep", "status"]) == 0
    status = capsys.readouterr().out.splitlines()
    assert status[0].startswith("sweep s (created ")
    assert [line.split()[1] for line in status[1:5]] == ["local/a/zero-shot", "local/a/json",
                                                         "local/b/zero-shot", "local/b/json"]
    assert status[5].split()[:2] == ["total", "48/48"] and f"retries {throttled}" in status[5]
    assert main(["--db", str(bank6.path), "runs"]) == 0
    assert all(line.endswith("  sweep s") for line in capsys.readouterr().out.splitlines())
    # the report of the sweep's runs closes with what each cost (every format: tests/reports/test_sweep_costs.py)
    assert main(["--db", str(bank6.path), "report", "--sweep", "s"]) == 0
    report = capsys.readouterr().out.split("== Sweep s: cost per run")[1].splitlines()
    rows = [line.split() for line in report if line.startswith(("#", " "))]
    assert [r[-1] for r in rows] == ["$0.0120"] * 4 + ["$0.0480"]


@pytest.mark.parametrize("priced", [False, True])
def test_the_budget_stops_new_requests_before_the_cost_could_pass_it(bank10, priced):
    """4 connections per model, 2 models: the spent cost ends at most the budget, and short of
    it by less than one request's cost per connection. Priced: the endpoint reports no cost, the
    tokens (10 in, 2 out) are priced; a request's bound is its prompt's characters as tokens and
    max_tokens out."""
    cost = (10 * 1 + 2 * 500) / 1e6 if priced else 0.01
    with LLMServer(lambda body, n: chat("1", cost=None if priced else cost)) as server:
        prices = {"price_in": 1.0, "price_out": 500.0, "max_tokens": 2} if priced else {}
        budget = 10.5 * cost
        p = sweep(bank10, spec_of(server.url, max_cost=budget, **prices))
        sent = len(server.requests)
    spent = sum(pred.cost or 0 for r in bank10.runs.runs() for pred in bank10.runs.predictions(r.id, samples=True))
    assert spent == pytest.approx(p.spent)
    assert budget - 8 * cost < spent <= budget + 1e-12
    assert sent == round(spent / cost) < 40
    assert p.status == "cancelled" and all("sweep budget reached" in (r.reason or "") for r in bank10.runs.runs())
    # a resume with a larger budget asks only what is missing
    with LLMServer(lambda body, n: chat("1", cost=None if priced else cost)) as server:
        spec = parse_sweep_spec(spec_of(server.url, max_cost=budget, **prices))
        p = asyncio.run(execute_sweep(bank10.path, spec, max_cost=1.0))
        assert len(server.requests) == 40 - sent
    assert p.status == "done" and p.spent == pytest.approx(40 * cost)


def test_a_budget_with_room_does_not_wait_for_the_first_cost(bank6):
    """No price and no reply yet: each request holds what it would cost at prices no model asks;
    a budget with room for the first wave sends it at once (2 models x 4 connections), not one
    request until the endpoint tells a cost. The budget still holds (the tight case: above)."""
    gate = Gate(lambda body, n: chat("1", cost=0.001))
    with LLMServer(gate) as server:
        spec = parse_sweep_spec(spec_of(server.url, max_cost=50.0))
        create_sweep(bank6, plan_sweep(bank6, spec))
        done: list = []
        t = threading.Thread(target=lambda: done.append(asyncio.run(execute_sweep(bank6.path, spec))))
        t.start()
        try:
            wait_until(lambda: len(server.requests) >= 8, what="the first wave")
            assert len(server.requests) == 8
        finally:
            gate.open()
            t.join()
    assert done[0].status == "done" and done[0].spent == pytest.approx(24 * 0.001)  # 6 questions x 2 samples x 2 models


@pytest.mark.parametrize("judge", [False, True])
def test_a_sweep_reads_its_runs_questions_once(bank6, monkeypatch, judge):
    """Its runs (and its judge runs) ask the same questions: one read for all of them (each run
    read its own, 11 ms for the 567 book questions, six times before the first request; each
    judge run the whole bank, for its keys, and its own), each run's own as stored."""
    from persian_tui.store.questions import QuestionsRepo

    reads = []
    for name in ("questions_for_uids", "questions"):
        read = getattr(QuestionsRepo, name)
        monkeypatch.setattr(QuestionsRepo, name,
                            lambda self, *a, read=read, **kw: reads.append(1) or read(self, *a, **kw))
    verdict = '{"verdict": "flawed", "error_category": "surface_lexical", "rationale": "x"}'
    with LLMServer(lambda body, n: chat(verdict if body["model"] == "judge" else "1")) as server:
        data = spec_of(server.url, models=("a", "b", "c"))
        if judge:
            data["judge"] = {"model": "judge", "connections": 2}
        spec = parse_sweep_spec(data)
        create_sweep(bank6, plan_sweep(bank6, spec))
        reads.clear()
        p = asyncio.run(execute_sweep(bank6.path, spec, judge_with=(judge_run_fields, execute_judge_run)))
    assert p.status == "done" and len(reads) == 1
    expected = sorted((f"q-{i:03d}", k) for i in range(6) for k in range(2))
    answers = [r for r in bank6.runs.runs() if r.kind == "llm"]
    assert [sorted((p.uid, p.sample) for p in bank6.runs.predictions(r.id, samples=True)) for r in answers] == \
        [expected] * 3
    judges = [r for r in bank6.runs.runs() if r.kind == "judge"]
    assert len(judges) == 3 * judge and all(len(bank6.judging.judgments(run_id=j.id)) == 6 for j in judges)


def test_a_model_budget_stops_that_model_only(bank6):
    with LLMServer(lambda body, n: chat("1", cost=0.01)) as server:
        data = spec_of(server.url)
        data["model"][0]["max_cost"] = 0.035
        p = sweep(bank6, data)
    a, b = bank6.runs.runs()
    assert a.status == "cancelled" and "model a budget reached" in (a.reason or "")
    assert b.status == "done" and p.status == "cancelled"
    assert 0.035 - 4 * 0.01 < len(bank6.runs.predictions(a.id, samples=True)) * 0.01 <= 0.035


def test_kill_9_mid_sweep_then_resume_asks_each_run_question_and_sample_once(bank6, tmp_path):
    gate = Gate(lambda body, n: chat("1", cost=0.001), free=9)  # 9 replies, then the rest held
    with LLMServer(gate) as server:
        path = tmp_path / "s.toml"
        path.write_text(toml(spec_of(server.url, models=("a", "b", "c"), connections=2)), encoding="utf-8")
        env = {**os.environ, "PERSIAN_TUI_DB": str(bank6.path)}
        proc = subprocess.Popen([sys.executable, "-m", "persian_tui.cli", "sweep", str(path)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_until(lambda: bank6.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] >= 9
                   and len(server.requests) >= 9 + 6, "9 rows committed, 6 more requests in flight")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        # the killed process's runs are shown interrupted, not running, before their leases lapse
        assert {(r.status, r.interrupted) for r in bank6.runs.runs()} == {("running", True)}
        shown = subprocess.run([sys.executable, "-m", "persian_tui.cli", "sweep", "status", "s"], env=env,
                               capture_output=True, text=True).stdout.splitlines()
        assert [line.split()[2] for line in shown[1:4]] == ["interrupted"] * 3
        listed = subprocess.run([sys.executable, "-m", "persian_tui.cli", "runs"], env=env,
                                capture_output=True, text=True).stdout.splitlines()
        assert all(line.split()[2] == "interrupted" for line in listed if line.strip()), listed
        gate.open()
        before = {r.id: set(rows) for r, rows in zip(bank6.runs.runs(), rows_per_run(bank6).values(), strict=True)}
        first = [asked(b) for b in server.requests]
        resumed = subprocess.run([sys.executable, "-m", "persian_tui.cli", "sweep", "resume", "s"], env=env,
                                 capture_output=True, text=True)
        assert resumed.returncode == 0, resumed.stderr
        again = [asked(b) for b in server.requests[len(first):]]
    assert sum(len(v) for v in before.values()) >= 9
    assert len(again) == 3 * 12 - sum(len(v) for v in before.values())  # only the missing ones
    assert len(set(again)) == len(again)
    expected = sorted((f"q-{i:03d}", k) for i in range(6) for k in range(2))
    assert all(rows == expected for rows in rows_per_run(bank6).values())  # each exactly once
    assert {r.status for r in bank6.runs.runs()} == {"done"}
    assert "sweep s done: 36/36 rows" in resumed.stdout


def test_a_429_on_one_run_slows_every_run_on_the_endpoint_and_the_pace_recovers(bank10):
    """The endpoint allows 8 at once, each model 8, and tolerates a tenth of them refused: the
    first 8 requests are held until all have arrived, then model a's get a 429 (one of the eight
    is past the tolerance). The next requests are held too: only 4 reach the endpoint (the
    window halved once for the wave), though model b never got a 429 and alone could have 8 in
    flight; let go, the window grows back as replies succeed."""
    lock = threading.Lock()
    held = {"first": 0, "second": 0}
    first_wave, second_wave = threading.Event(), threading.Event()

    def script(body, n):
        wave, event = ("first", first_wave) if n < 8 else ("second", second_wave)
        with lock:
            held[wave] += 1
        event.wait(60)
        with lock:
            held[wave] -= 1
        if n < 8 and body["model"] == "a":
            return Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "0"})
        return chat("1")

    with LLMServer(script) as server:
        spec = parse_sweep_spec(spec_of(server.url, connections=8, endpoint_connections=8, samples=3,
                                        tolerate=0.1))
        create_sweep(bank10, plan_sweep(bank10, spec))
        result = {}

        def go():
            result["p"] = asyncio.run(execute_sweep(bank10.path, spec))
        t = threading.Thread(target=go)
        t.start()
        try:
            wait_until(lambda: held["first"] == 8, "8 requests in flight")
            assert "a" in {b["model"] for b in server.requests}
            first_wave.set()
            wait_until(lambda: held["first"] == 0 and held["second"] >= 4, "4 requests of the next wave")
            time.sleep(0.3)  # time for a wrongly let-through request to arrive (it must not)
            assert held["second"] == 4
        finally:
            first_wave.set()
            second_wave.set()
            t.join(120)
    p = result["p"]
    assert p.status == "done"
    endpoint = p.endpoints[0]
    assert endpoint.decreases == 1 and endpoint.lowest == 4  # once for the wave
    assert endpoint.window > endpoint.lowest  # the pace recovered
    assert sum(r.pace.throttled for r in p.runs if r.slot.startswith("local/b/")) == 0
    assert sum(r.pace.throttled for r in p.runs if r.slot.startswith("local/a/")) >= 1


@pytest.mark.parametrize("retry_after", ["0", "0.3"])
def test_sporadic_429s_with_a_retry_after_slow_no_run(bank10, retry_after):
    """An endpoint refusing every tenth first attempt, each refusal with a Retry-After (as real
    rate limiters send): within the tolerance, so the window stays whole and the endpoint is
    never paused; only the refused requests wait. (Each refusal had halved the window and paused
    every run: a sweep of 23 s took 234 s with `Retry-After: 0`, 545 s with 1.)"""
    seen: set[str] = set()
    lock = threading.Lock()

    def script(body, n):
        with lock:
            first = repr(asked(body)) not in seen
            seen.add(repr(asked(body)))
            count = len(seen)
        if first and count % 10 == 0:
            return Reply(429, {"error": {"message": "rate limited"}}, headers={"Retry-After": retry_after})
        return chat("1")

    with LLMServer(script) as server:
        p = sweep(bank10, spec_of(server.url, connections=8, endpoint_connections=16, samples=3))
    endpoint = p.endpoints[0]
    assert p.status == "done" and sum(r.pace.throttled for r in p.runs) == 6
    assert endpoint.decreases == 0 and endpoint.lowest == 16 and endpoint.paused_until == 0


@pytest.mark.parametrize("headers, wait", [
    ({"retry-after-ms": "250"}, 0.25),  # OpenAI's and Azure's, preferred to retry-after
    ({"retry-after-ms": "250", "Retry-After": "1"}, 0.25),
    ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # an HTTP date already past
    ({"Retry-After": "soon"}, None),  # unreadable: backoff
])
def test_each_form_of_a_429s_wait_is_honoured(bank6, headers, wait):
    lock = threading.Lock()
    refused: set[str] = set()

    def script(body, n):
        with lock:
            first = not refused
            refused.add("x")
        if first:
            return Reply(429, {"error": {"message": "rate limited"}}, headers=headers)
        return chat("1")

    with LLMServer(script) as server:
        p = sweep(bank6, spec_of(server.url, models=("a",), connections=1, samples=1))
    assert p.status == "done"
    (retry,) = [r for run in bank6.runs.runs() for r in bank6.sweeps.retries(run.id)]
    if wait is None:
        assert 0.375 <= retry["delay"] <= 0.5  # the first backoff (docs/guide/runs.md)
    else:
        assert retry["delay"] == wait


def test_sigterm_stops_every_run_cancelled_and_resumable(bank6, tmp_path):
    gate = Gate(lambda body, n: chat("1"), free=4)
    with LLMServer(gate) as server:
        path = tmp_path / "s.toml"
        path.write_text(toml(spec_of(server.url)), encoding="utf-8")
        env = {**os.environ, "PERSIAN_TUI_DB": str(bank6.path)}
        proc = subprocess.Popen([sys.executable, "-m", "persian_tui.cli", "sweep", str(path)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_until(lambda: len(server.requests) >= 6, "4 replies, 2 more requests in flight")
        proc.send_signal(signal.SIGTERM)
        gate.open()  # the requests in flight finish
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and "Traceback" not in err, err
    assert "`persian-tui sweep resume s` goes on" in err
    rows = sum(len(v) for v in rows_per_run(bank6).values())
    assert f"sweep s cancelled: {rows}/24 rows" in out
    assert {r.status for r in bank6.runs.runs()} == {"cancelled"}


def test_a_model_without_price_or_reported_cost_is_asked_at_its_pace_and_said_uncounted(bank6, tmp_path, capsys):
    """Its cost cannot be known: after its first reply its requests are not held one at a time
    (the budget's rule for a cost not known yet), and the sweep says the budget did not count it."""
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def script(body, n):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return chat("1")

    with LLMServer(script) as server:
        path = tmp_path / "s.toml"
        path.write_text(toml(spec_of(server.url, models=("a",), max_cost=1.0)), encoding="utf-8")
        assert main(["--db", str(bank6.path), "sweep", str(path)]) == 0
    assert state["peak"] > 1
    assert "warning: a: the endpoint reports no cost and the spec gives no price_in/price_out" in \
        capsys.readouterr().err


def test_a_judge_judges_each_answer_run_once_it_is_done(bank6, tmp_path, capsys):
    verdict = '{"verdict": "flawed", "error_category": "surface_lexical", "rationale": "x"}'

    def script(body, n):
        if body["model"] == "judge":
            return chat(verdict, cost=0.002)
        return chat("1", cost=0.001)  # right for q-000 and q-004 (keys 1, 1): 4 of 6 wrong

    with LLMServer(script) as server:
        data = spec_of(server.url)
        data["judge"] = {"model": "judge", "connections": 2, "only_wrong": True}
        data["sweep"]["cache"] = False  # (else a and b's alike answers are judged once)
        path = tmp_path / "s.toml"
        path.write_text(toml(data), encoding="utf-8")
        assert main(["--db", str(bank6.path), "sweep", str(path)]) == 0
        judged = [b for b in server.requests if b["model"] == "judge"]
    runs = bank6.runs.runs()
    answers, judges = [r for r in runs if r.kind == "llm"], [r for r in runs if r.kind == "judge"]
    assert len(answers) == 2 and len(judges) == 2 and {r.status for r in runs} == {"done"}
    assert sorted(r.params["target_run"] for r in judges) == [a.id for a in answers]
    assert all(len(bank6.judging.judgments(run_id=j.id)) == 4 for j in judges) and len(judged) == 8
    out = capsys.readouterr().out
    assert "judge:local/a/zero-shot" in out and "sweep s done: 32/32 rows, spent $0.0400" in out


def test_a_judge_starts_on_an_answer_run_once_it_is_done_while_another_still_asks(bank6):
    """Each answer run is judged as soon as it is done, not once the slowest is: model b's
    answers are held until a's judge asks (at most 5 s: then the test has failed)."""
    verdict = '{"verdict": "flawed", "error_category": "surface_lexical", "rationale": "x"}'
    judge_asked, gave_up = threading.Event(), threading.Event()

    def script(body, n):
        if body["model"] == "judge":
            judge_asked.set()
            return chat(verdict)
        if body["model"] == "b" and not gave_up.is_set() and not judge_asked.wait(5):
            gave_up.set()
        return chat("1")

    with LLMServer(script) as server:
        data = spec_of(server.url)
        data["judge"] = {"model": "judge", "connections": 2}
        data["sweep"]["cache"] = False
        p = sweep(bank6, data, judge_with=(judge_run_fields, execute_judge_run))
    assert not gave_up.is_set(), "a's judge waited for b's answers"
    runs = bank6.runs.runs()
    assert p.status == "done" and {r.status for r in runs} == {"done"}
    assert sorted(r.kind for r in runs) == ["judge", "judge", "llm", "llm"]


def test_a_resumed_sweep_shows_the_rows_it_already_has_from_its_first_report(bank6):
    """The live view (CLI and TUI) of a resumed sweep starts from the rows stored, not from 0,
    before any of its runs has had a reply in this session."""
    with LLMServer(lambda body, n: chat("1", cost=0.01)) as server:
        first = sweep(bank6, spec_of(server.url, max_cost=0.075))
    stored = {r.id: len(bank6.runs.predicted_samples(r.id)) for r in bank6.runs.runs()}
    assert first.status == "cancelled" and 0 < sum(stored.values()) < 24
    gate = Gate(lambda body, n: chat("1", cost=0.01))
    seen: list[tuple[int, dict[int, int]]] = []

    def report(p) -> None:
        if not seen:
            seen.append((p.done, {r.run_id: r.progress.done if r.progress else 0 for r in p.runs}))
            gate.open()  # the first report came before any reply of this session

    with LLMServer(gate) as server:
        spec = parse_sweep_spec(spec_of(server.url))
        p = asyncio.run(execute_sweep(bank6.path, spec, on_progress=report))
    assert seen == [(sum(stored.values()), stored)]
    assert p.status == "done" and p.done == 24


def test_a_sweep_another_process_is_asking_is_refused_without_a_budget_hint(bank6, tmp_path, capsys):
    """`sweep resume` while another process holds the runs asks nothing and says so, without
    advising a larger --max-cost (no budget was reached)."""
    with LLMServer(lambda body, n: chat("1", cost=0.01)) as server:
        spec = parse_sweep_spec(spec_of(server.url))
        create_sweep(bank6, plan_sweep(bank6, spec))
        other = f"{os.getppid()}@{__import__('socket').gethostname()}"  # a live process, not this one
        for r in bank6.runs.runs():
            bank6.runs.take_lease(r.id, 60, holder=other)
        assert main(["--db", str(bank6.path), "sweep", "resume", "s"]) == 1
        assert server.requests == []
    err = capsys.readouterr().err
    assert f"is being worked on by process {other}" in err
    assert "--max-cost" not in err, err


@pytest.mark.parametrize("width", [80, 140])
def test_the_live_view_says_why_a_run_stopped_short(bank6, width):
    """The CLI's live view and the TUI's dashboard draw the same view: a run refused because
    another process holds it says so under the figures, not only in the final lines."""
    from rich.console import Console

    from persian_tui.runs.sweep_view import render

    with LLMServer(lambda body, n: chat("1", cost=0.01)) as server:
        spec = parse_sweep_spec(spec_of(server.url))
        create_sweep(bank6, plan_sweep(bank6, spec))
        other = f"{os.getppid()}@{__import__('socket').gethostname()}"  # a live process, not this one
        held = bank6.runs.runs()[0]
        bank6.runs.take_lease(held.id, 60, holder=other)
        seen = []
        asyncio.run(execute_sweep(bank6.path, spec, on_progress=seen.append))
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(render(seen[-1]))
    text = console.export_text()
    assert f"local/a/zero-shot: run {held.id} is being worked on by process {other}" in " ".join(text.split())


@pytest.mark.parametrize("width", [80, 140])
def test_one_budget_that_stops_several_runs_is_said_once(bank10, width):
    """The sweep's budget stops all three runs: the view says so on one line naming the three,
    with what the budget has spent, not once a run with the figure each saw when it stopped."""
    from rich.console import Console

    from persian_tui.runs.sweep_view import render

    with LLMServer(lambda body, n: chat("1", cost=0.01)) as server:
        spec = parse_sweep_spec(spec_of(server.url, models=("a", "b", "c"), max_cost=0.105))
        create_sweep(bank10, plan_sweep(bank10, spec))
        p = asyncio.run(execute_sweep(bank10.path, spec))
    assert p.status == "cancelled" and all(r.pace.stopped for r in p.runs)
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(render(p))
    text = " ".join(console.export_text().split())
    assert text.count("budget reached") == 1, text
    assert (f"local/a/zero-shot, local/b/zero-shot, local/c/zero-shot: sweep budget reached: "
            f"${p.budget.spent:.4f} spent of $0.105") in text
    assert p.stops() == [f"local/a/zero-shot, local/b/zero-shot, local/c/zero-shot: sweep budget reached: "
                         f"${p.budget.spent:.4f} spent of $0.105"]


def test_the_budget_a_sweep_was_last_asked_under_is_the_one_its_report_and_resume_name(bank6, capsys):
    """`--max-cost` overrides the spec's budget: the report's "of the budget" and a later
    `sweep resume NAME` are of that budget, not the spec's (the report said $5.00 of a sweep
    stopped at $0.03)."""
    from persian_tui.reports.sweep_costs import sweep_cost

    with LLMServer(lambda body, n: chat("1", cost=0.01)) as server:
        spec = parse_sweep_spec(spec_of(server.url, max_cost=5.0))
        create_sweep(bank6, plan_sweep(bank6, spec))
        p = asyncio.run(execute_sweep(bank6.path, spec, max_cost=0.035))
        assert p.status == "cancelled" and p.spent <= 0.035
        assert sweep_cost(bank6, "s").budget == 0.035
        sent = len(server.requests)
        assert main(["--db", str(bank6.path), "sweep", "resume", "s"]) == 1  # still that budget: nothing more
        assert len(server.requests) == sent
    assert "sweep budget reached" in capsys.readouterr().err


def test_a_sweeps_judge_runs_count_in_its_cost_and_its_report_is_of_its_answer_runs(bank6, tmp_path, capsys):
    """The judge's replies cost what they cost: `sweep status`, the report's cost section and a
    resume's budget count them (they showed — and the total left them out); `report --sweep`
    ranks the answer runs (it failed: "run 3, 4 has no predictions")."""
    from persian_tui.reports.sweep_costs import sweep_cost

    verdict = '{"verdict": "flawed", "error_category": "surface_lexical", "rationale": "x"}'

    def script(body, n):
        return chat(verdict, cost=0.002) if body["model"] == "judge" else chat("1", cost=0.001)

    with LLMServer(script) as server:
        data = spec_of(server.url)
        data["judge"] = {"model": "judge", "connections": 2, "only_wrong": True}
        data["sweep"]["cache"] = False
        path = tmp_path / "s.toml"
        path.write_text(toml(data), encoding="utf-8")
        assert main(["--db", str(bank6.path), "sweep", str(path)]) == 0
    out = capsys.readouterr().out
    assert "sweep s done: 32/32 rows, spent $0.0400" in out
    total = [line for line in out.splitlines() if line.split()[:1] == ["total"]][0]
    assert total.endswith("$0.0400"), total  # 24 answers at $0.001, 8 judgments at $0.002
    cost = sweep_cost(bank6, "s")
    assert cost.spent == pytest.approx(0.04)
    assert [r.cost for r in cost.runs if r.slot.startswith("judge:")] == [pytest.approx(0.008)] * 2
    assert main(["--db", str(bank6.path), "report", "--sweep", "s"]) == 0
    report = capsys.readouterr().out
    assert "2 run(s) ranked" in report  # the answer runs; their judge runs' cost closes the report
    assert "judge:local/a/zero-shot" in report.split("== Sweep s: cost per run")[1]


def test_a_finished_runs_rate_is_its_own_not_diluted_by_the_runs_still_asking(bank6):
    """A run's requests a second are over its own time: once done it stops counting, rather
    than its rate falling while the slower runs go on (the dashboard showed the fast run at a
    fraction of its pace by the sweep's end)."""
    from persian_tui.runs.sweep_view import render

    with LLMServer(lambda body, n: chat("1")) as server:
        spec = parse_sweep_spec(spec_of(server.url))
        create_sweep(bank6, plan_sweep(bank6, spec))
        p = asyncio.run(execute_sweep(bank6.path, spec))
    assert p.status == "done"
    first = [row.rate for row in render(p).rows]
    time.sleep(0.05)
    assert [row.rate for row in render(p).rows] == first and all(rate > 0 for rate in first)


def test_kill_9_while_a_judge_runs_beside_an_answer_run_then_resume_asks_each_once(bank6, tmp_path):
    """Model a is done and its judge half way while b still asks: kill -9, then `sweep resume`
    asks b's missing answers, a's missing verdicts and all of b's, each once."""
    verdict = '{"verdict": "flawed", "error_category": "surface_lexical", "rationale": "x"}'
    hold = threading.Event()
    lock = threading.Lock()
    judged = [0]

    def script(body, n):
        if body["model"] == "judge":
            with lock:
                judged[0] += 1
                free = judged[0] <= 2
            if not free:
                hold.wait(60)
            return chat(verdict)
        if body["model"] == "b":
            hold.wait(60)
        return chat("1")

    def count(table: str, kind: str) -> int:
        return bank6.conn.execute(f"SELECT COUNT(*) FROM {table} t JOIN runs r ON r.id = t.run_id "
                                  "WHERE r.kind = ?", (kind,)).fetchone()[0]

    with LLMServer(script) as server:
        data = spec_of(server.url)
        data["judge"] = {"model": "judge", "connections": 2}
        data["sweep"]["cache"] = False
        path = tmp_path / "s.toml"
        path.write_text(toml(data), encoding="utf-8")
        env = {**os.environ, "PERSIAN_TUI_DB": str(bank6.path)}
        proc = subprocess.Popen([sys.executable, "-m", "persian_tui.cli", "sweep", str(path)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            wait_until(lambda: count("predictions", "llm") >= 12 and count("judgments", "judge") >= 2
                       and judged[0] >= 4, "a answered, two of its verdicts stored, two more asked")
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            hold.set()
        kept = {j.uid for j in bank6.judging.judgments()}
        before = len(server.requests)
        resumed = subprocess.run([sys.executable, "-m", "persian_tui.cli", "sweep", "resume", "s"], env=env,
                                 capture_output=True, text=True)
        assert resumed.returncode == 0, resumed.stderr
        again = server.requests[before:]
    runs = bank6.runs.runs()
    assert {r.status for r in runs} == {"done"} and sorted(r.kind for r in runs) == ["judge", "judge", "llm", "llm"]
    expected = sorted((f"q-{i:03d}", k) for i in range(6) for k in range(2))
    answers = [r for r in runs if r.kind == "llm"]
    assert [sorted((p.uid, p.sample) for p in bank6.runs.predictions(r.id, samples=True)) for r in answers] == \
        [expected] * 2
    for j in (r for r in runs if r.kind == "judge"):
        uids = [row.uid for row in bank6.judging.judgments(run_id=j.id)]
        assert sorted(uids) == [f"q-{i:03d}" for i in range(6)]  # each once
    verdicts_again = [b for b in again if b["model"] == "judge"]
    assert len(verdicts_again) == 12 - len(kept)  # a's missing ones and all of b's
    assert not [b for b in again if b["model"] == "a"]


def test_a_busy_database_when_a_judge_run_is_made_is_waited_for_not_the_end_of_the_sweep(bank6, monkeypatch):
    """Another process holds the write lock past the busy timeout as a judge run is made, mid
    sweep: it is tried again after a moment, as a run's rows are, rather than stopping every run."""
    from persian_tui.store import StoreBusy
    from persian_tui.store.sweeps import SweepsRepo

    add_run, refused = SweepsRepo.add_run, []

    def busy_once(self, *args):
        if not refused:
            refused.append(1)
            raise StoreBusy("database busy: another process holds the write lock")
        return add_run(self, *args)

    monkeypatch.setattr(SweepsRepo, "add_run", busy_once)
    verdict = '{"verdict": "flawed", "error_category": "surface_lexical", "rationale": "x"}'
    with LLMServer(lambda body, n: chat(verdict if body["model"] == "judge" else "1")) as server:
        data = spec_of(server.url)
        data["judge"] = {"model": "judge", "connections": 2}
        p = sweep(bank6, data, judge_with=(judge_run_fields, execute_judge_run))
    assert refused and p.status == "done"
    assert sorted((r.kind, r.status) for r in bank6.runs.runs()) == [("judge", "done")] * 2 + [("llm", "done")] * 2


def test_a_sweep_keeps_asking_while_another_process_holds_the_database(store):
    """Another connection holding the write lock for 1.5 s in the middle of a sweep whose
    endpoint refuses some first attempts: the runs' rows, cache entries and retry log wait for
    it without stopping the event loop, so the requests go on meanwhile; every row and every
    retry is written once the lock is free."""
    from factories import keyed_bank

    bank = keyed_bank(store, 100)
    arrivals: list[float] = []
    seen: set[str] = set()
    lock = threading.Lock()
    holder = HeldWriteLock(bank.path, 1.5)

    def script(body, n):
        key = repr(asked(body))
        with lock:
            arrivals.append(time.monotonic())
            first = key not in seen
            seen.add(key)
            if len(arrivals) == 10:
                holder.start()
        time.sleep(0.02)  # 240 requests 8 at a time: over half a second of them, all in the hold
        if first and n % 5 == 0:
            return Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "0"})
        return chat("1", cost=0.001)

    with LLMServer(script) as server:
        p = sweep(bank, spec_of(server.url, samples=1))
        requests = len(server.requests)
    holder.join()
    assert p.status == "done" and {r.status for r in bank.runs.runs()} == {"done"}
    assert all(len(rows) == 100 for rows in rows_per_run(bank).values())
    logged = [r for run in bank.runs.runs() for r in bank.sweeps.retries(run.id)]
    assert len(logged) == requests - 200 > 0
    during = holder.within(arrivals, after=0.3, before=0.1)
    assert len(during) >= 20, (len(during), len(arrivals))
