"""Runs under failure and hostility: statuses, the circuit breaker, hostile replies, deadlines,
secrets, leases, signals, resume overrides, archive and delete. Real openai client, local server."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from factories import ROOT, cli_process, closed_port, llm_run, wait_until
from llm_server import Gate, LLMServer, Reply, chat
from pydantic import ValidationError

from persian_tui.cli import main
from persian_tui.runs import LLMRunSpec, RunError, create_llm_run, execute_llm_run
from persian_tui.runs.spec import EmbedRunSpec, field_errors

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


def test_retry_waits_are_bounded_in_total(bank10):
    """A Retry-After past the retry budget gives up at once (the row says why); a short one
    is honoured; exponential backoff stops once the budget is spent."""
    from persian_tui.runs.llm_client import LLMClient, LLMError

    def script(body, n):
        return Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "3600"})

    r, p, server = llm_run(bank10, script, max_retries=5, limit=2, concurrency=1, cache=False)
    assert len(server.requests) == 2 and p.errors == 2  # one request each: no hour-long wait
    (err,) = {x.error for x in bank10.runs.predictions(r.id)}
    assert "HTTP 429" in err and "retry budget" in err

    with LLMServer(lambda body, n: Reply(503, {"error": {"message": "down"}})) as server:
        client = LLMClient(server.url, "m", timeout=5, max_retries=20, backoff=0.05, max_wait=0.5)
        with pytest.raises(LLMError, match="retry budget"):
            asyncio.run(client.complete([{"role": "user", "content": "x"}], params={}))
        assert 3 <= len(server.requests) < 10  # 0.05 doubling: the budget, not 20 retries, ends it


def test_circuit_breaker_stops_an_unreachable_endpoint(bank10):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    spec = LLMRunSpec(base_url=url, model="m", max_retries=0, concurrency=1, max_failures=3)
    r = create_llm_run(bank10, spec)
    p = asyncio.run(execute_llm_run(bank10.path, r.id))
    assert p.status == "failed" and p.done == 2  # refused twice: stopped, not 10 (nor 3)
    run = bank10.runs.get_run(r.id)
    assert run.status == "failed" and run.reason.startswith("endpoint unreachable: 2 failures in a row")


def test_a_refused_connection_is_not_retried_like_a_busy_server(bank10):
    """Nothing listens at the URL: each request is retried once, shortly (not 4 times with
    backoff), and two refusals in a row stop the run whatever max_failures says (the default
    5 with 4 retries took a minute); no ETA is made up from errors."""
    from persian_tui.runs.lifecycle import CONNECT_LIMIT
    from persian_tui.runs.llm_client import CONNECT_BACKOFF, CONNECT_RETRIES, LLMClient, LLMError

    url = f"http://127.0.0.1:{closed_port()}/v1"
    client = LLMClient(url, "m", max_retries=4)
    with pytest.raises(LLMError) as e:
        asyncio.run(client.complete([{"role": "user", "content": "x"}], params={}))
    assert e.value.kind == "connect" and e.value.unreachable
    seen = []
    spec = LLMRunSpec(base_url=url, model="m", concurrency=1)  # max_retries 4, max_failures 5
    r = create_llm_run(bank10, spec)
    p = asyncio.run(execute_llm_run(bank10.path, r.id, on_progress=lambda p: seen.append(p.eta)))
    assert p.status == "failed" and p.done == CONNECT_LIMIT == 2
    assert "cannot connect" in bank10.runs.get_run(r.id).reason
    assert set(seen) == {None}
    # the waits a failing endpoint costs before the run stops: well under 10 s
    assert CONNECT_LIMIT * CONNECT_RETRIES * CONNECT_BACKOFF < 10


def test_the_eta_waits_for_real_progress():
    from persian_tui.runs.progress import RunProgress

    p = RunProgress(1, 10)
    from persian_tui.models import Prediction

    p.count(Prediction("q-1", None, "api_error"), 1)
    assert p.eta is None  # an error is no progress
    p.count(Prediction("q-2", 1, "ok"), 1)
    assert p.eta is not None and p.eta > 0


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


# ------------------------------------------------------------------ hostile replies


HOSTILE = [
    ({"choices": "Answer: 1"}, "choices should be a non-empty list"),
    ({"choices": []}, "choices should be a non-empty list"),
    ({"choices": [{"message": {"content": ["Answer", 1]}}]}, "content should be text"),
    ({"choices": [{"message": {"content": 3}}]}, "content should be text"),
    ({"choices": [{"message": "Answer: 1"}]}, "message should be an object"),
    ({"choices": [None]}, "choices[0] should be an object, got nothing"),
    ("[1, 2", "malformed reply"),
    ("", "malformed reply"),
    ("[]", "the reply is not a completion object: []"),
    ("null", "the reply is not a completion object: null"),
    ('"Answer: 1"', "the reply is not a completion object: Answer: 1"),
    ({"choices": {"0": {"message": {"content": "Answer: 1"}}}}, "choices should be a non-empty list"),
    ({"choices": [{"message": {"content": {"text": "Answer: 1"}}}]}, "content should be text"),
    ({"choices": [{"message": {"content": True}}]}, "content should be text"),
]


@pytest.mark.parametrize("body, reason", HOSTILE)
def test_replies_of_the_wrong_shape_are_errors_not_crashes(bank10, body, reason):
    r, p, _ = llm_run(bank10, lambda b, n: Reply(body=body), limit=2)
    rows = bank10.runs.predictions(r.id)
    assert len(rows) == 2 and all(x.parse_status == "api_error" and reason in x.error for x in rows)
    assert p.status == "failed"


@pytest.mark.parametrize("extra, warning", [
    ({"finish_reason": 5}, "finish_reason 5 ignored"),
    ({"finish_reason": "length"}, "cut short"),
    ({"message": {"content": "Answer: 1", "reasoning": {"steps": [1]}}}, None),
    ({"message": {"content": "Answer: 1", "reasoning_content": 7}}, None),
])
def test_odd_fields_around_a_good_answer_keep_the_answer(bank10, extra, warning):
    choice = {"index": 0, "message": {"content": "Answer: 1"}, "finish_reason": "stop", **extra}
    r, p, _ = llm_run(bank10, lambda b, n: Reply(body={"choices": [choice]}), limit=2)
    rows = bank10.runs.predictions(r.id)
    assert p.status == "done" and all(x.parse_status == "ok" and x.predicted == 1 for x in rows)
    assert all(x.reasoning is None for x in rows)
    assert all((warning in (x.error or "")) if warning else x.error is None for x in rows)


@pytest.mark.parametrize("usage, field", [
    ({"prompt_tokens": 10**20, "completion_tokens": 2}, "prompt_tokens"),
    ({"prompt_tokens": "many", "completion_tokens": 2}, "prompt_tokens"),
    ({"prompt_tokens": 5, "completion_tokens": -3}, "completion_tokens"),
    ({"prompt_tokens": 5, "completion_tokens": True}, "completion_tokens"),
    ({"prompt_tokens": 5, "completion_tokens": 2, "cost": float("inf")}, "cost"),
    ({"prompt_tokens": 5, "completion_tokens": 2, "cost": "free"}, "cost"),
])
def test_usage_of_the_wrong_type_is_dropped_never_stored(bank10, usage, field, capsys):
    def script(body, n):
        reply = chat("Answer: 1")
        reply.body["usage"] = usage
        return reply

    r, p, _ = llm_run(bank10, script, limit=2)
    rows = bank10.runs.predictions(r.id)
    assert all(x.parse_status == "ok" and x.predicted == 1 for x in rows)
    assert all(isinstance(x.tokens_in, (int, type(None))) and isinstance(x.tokens_out, (int, type(None)))
               for x in rows)
    assert all(x.cost is None or x.cost < 1e6 for x in rows)
    assert all(field in (x.error or "") for x in rows)
    # and every later report still works, strictly JSON
    out = bank10.path.parent / "rep"
    assert main(["--db", str(bank10.path), "report", "--format", "json", "-o", str(out)]) == 0
    json.loads((out / "report.json").read_text(), parse_constant=lambda c: pytest.fail(f"{c} in JSON"))


def test_timeout_is_a_deadline_for_the_whole_reply(bank10):
    start = time.monotonic()
    r, p, _ = llm_run(bank10, lambda b, n: Reply(body=chat("Answer: 1").body, drip=1.0), limit=1, timeout=1.5)
    took = time.monotonic() - start
    (row,) = bank10.runs.predictions(r.id)
    assert row.parse_status == "api_error" and "timeout" in row.error
    assert took < 120  # the body alone would take over 200 s at this drip (a byte a second, each within 1.5 s)


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


def test_a_key_pasted_as_the_variable_name_is_refused_everywhere_and_not_echoed(bank10, capsys):
    assert main(["--db", str(bank10.path), "run", "llm", "--base-url", "http://127.0.0.1:9/v1",
                 "--model", "m", "--api-key-env", KEY]) == 1
    err = capsys.readouterr().err
    assert "--api-key-env" in err and KEY not in err
    with pytest.raises(ValidationError) as e:
        LLMRunSpec(base_url="http://x/v1", model="m", api_key_env=KEY)
    assert KEY not in str(field_errors(e.value))
    with pytest.raises(ValidationError):
        EmbedRunSpec(api_key_env="has space")
    assert bank10.runs.runs() == []


@pytest.mark.parametrize("flag, value", [("--max-retries", "-1"), ("--concurrency", "0"),
                                         ("--timeout", "0"), ("--limit", "0"), ("--temperature", "9"),
                                         ("--strategy", "telepathy"), ("--base-url", "ftp://host")])
def test_spec_bounds_are_one_line_errors(bank10, capsys, flag, value):
    args = {"--base-url": "http://127.0.0.1:9/v1", flag: value}
    argv = ["--db", str(bank10.path), "run", "llm", "--model", "m"]
    for k, v in args.items():
        argv += [k, v]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag in err and "Traceback" not in err


def test_several_bad_fields_are_one_line_each_and_the_key_is_not_echoed(bank10, capsys):
    argv = ["--db", str(bank10.path), "run", "llm", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
            "--concurrency", "0", "--max-retries", "-1", "--api-key-env", KEY]
    assert main(argv) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3 and all(line.startswith("persian-tui: error: --") for line in lines)
    assert {line.split()[2] for line in lines} == {"--concurrency:", "--max-retries:", "--api-key-env:"}
    assert KEY not in "\n".join(lines) and "sk-" not in "\n".join(lines)


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


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_cancel_and_resume_finishes(bank10, sig):
    gate = Gate(lambda b, n: chat("Answer: 1"), free=2)  # 2 replies, the 3rd held: the signal comes mid-run
    with LLMServer(gate) as server:
        r = create_llm_run(bank10, LLMRunSpec(base_url=server.url, model="m", concurrency=1, max_retries=0))
        proc = subprocess.Popen([sys.executable, "-m", "persian_tui.cli", "--db", str(bank10.path), "run", "llm",
                                 "--resume", str(r.id)], env={**os.environ, "PYTHONPATH": str(ROOT)},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_until(lambda: len(bank10.runs.predictions(r.id)) == 2 and len(server.requests) == 3,
                   "2 answers stored, the 3rd asked")
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=300)
        gate.open()
        assert proc.returncode == 1 and "cancelled" in out
        assert bank10.runs.get_run(r.id).status == "cancelled"
        assert 2 <= len(bank10.runs.predictions(r.id)) < 10
        done = cli_process(bank10.path, "run", "llm", "--resume", str(r.id), timeout=120)
        assert done.returncode == 0, done.stderr
    assert bank10.runs.get_run(r.id).status == "done" and len(bank10.runs.predictions(r.id)) == 10


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


def test_archive_hides_and_delete_removes_in_one_go(bank10, capsys):
    with LLMServer(lambda b, n: chat('{"verdict": "flawed", "error_category": "other", "rationale": "x"}'
                                     if "judge" in json.dumps(b) or "verdict" in json.dumps(b)
                                     else "Answer: 2")) as server:
        r, p, _ = llm_run(bank10, lambda b, n: chat("Answer: 2"), limit=4)
        assert main(["--db", str(bank10.path), "judge", "--run", str(r.id), "--judge-model", "j",
                     "--base-url", server.url]) == 0
    judge = bank10.runs.runs()[-1]
    assert judge.kind == "judge"
    assert main(["--db", str(bank10.path), "runs", "archive", str(r.id)]) == 0
    assert r.id not in [x.id for x in bank10.runs.runs()] and r.id in [x.id for x in bank10.runs.runs(archived=True)]
    capsys.readouterr()
    main(["--db", str(bank10.path), "runs"])
    assert "archived" not in capsys.readouterr().out
    main(["--db", str(bank10.path), "runs", "--all"])
    assert "(archived)" in capsys.readouterr().out
    assert main(["--db", str(bank10.path), "runs", "delete", str(r.id)]) == 1  # no terminal to ask: --yes
    assert main(["--db", str(bank10.path), "runs", "delete", str(r.id), "--yes"]) == 0
    assert bank10.runs.runs(archived=True) == []
    assert bank10.conn.execute("SELECT COUNT(*) FROM predictions").fetchone()[0] == 0
    assert bank10.conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == 0
    assert [h["event"] for h in bank10.runs.run_history(r.id)][-1] == "delete"
    assert main(["--db", str(bank10.path), "runs", "delete", "99", "--yes"]) == 1


def test_stored_spec_resumes_in_python_too(bank10):
    r = create_llm_run(bank10, LLMRunSpec(base_url="http://127.0.0.1:9/v1", model="m"))
    with pytest.raises(RunError, match="different model"):
        from persian_tui.runs import resume_overrides

        resume_overrides(bank10, r, {"model": "other"})


def test_default_report_leaves_out_failed_and_archived_runs_and_says_so(bank10, capsys):
    good, _, _ = llm_run(bank10, lambda b, n: chat("Answer: 1"))
    other, _, _ = llm_run(bank10, lambda b, n: chat("Answer: 2"))
    url = f"http://127.0.0.1:{closed_port()}/v1"
    broken = create_llm_run(bank10, LLMRunSpec(base_url=url, model="down", max_retries=0, max_failures=2))
    asyncio.run(execute_llm_run(bank10.path, broken.id))
    bank10.runs.archive_run(other.id)
    assert main(["--db", str(bank10.path), "report"]) == 0
    out = capsys.readouterr().out
    assert "10 question(s) answered by all" in out
    assert f"#{other.id} (archived)" in out and f"#{broken.id} (failed)" in out
    assert main(["--db", str(bank10.path), "report", "--runs", f"{good.id},{other.id}"]) == 0
    assert "2 run(s) ranked" in capsys.readouterr().out  # named: included, archived or not


def test_reports_are_strict_json_and_never_show_non_finite_figures(bank10, tmp_path, capsys):
    """Figures stored before replies were validated (or by other writers) may be infinite:
    every report format shows them as missing, report.json is strict JSON."""
    from persian_tui.models import Prediction

    r = bank10.runs.create_run("llm", "old", {}, total=10, status="done", predictions=[
        Prediction(f"q-{i:03d}", (i % 4) + 1, "ok", tokens_in=5, tokens_out=1,
                   latency=float("inf") if i == 0 else 0.5, cost=float("inf") if i == 1 else 0.01)
        for i in range(10)])
    with bank10.tx():  # as an older version or another writer may have left them
        bank10.conn.execute("UPDATE predictions SET cost = 1e309, tokens_in = 'many', latency = 1e309 "
                          "WHERE run_id = ? AND question_id = (SELECT id FROM questions WHERE uid = 'q-002')",
                          (r.id,))
    assert [p.cost for p in bank10.runs.predictions(r.id)][:3] == [0.01, None, None]
    for fmt in ("json", "md", "csv", "table"):
        out_dir = tmp_path / fmt
        assert main(["--db", str(bank10.path), "report", "--runs", str(r.id), "--format", fmt,
                     "--output", str(out_dir)]) == 0, fmt
        text = capsys.readouterr().out + "".join(
            p.read_text() for p in out_dir.glob("*") if p.suffix in (".json", ".md", ".csv"))
        assert "inf" not in text.lower().replace("information", "") and "nan" not in text.lower(), fmt
    data = json.loads((tmp_path / "json" / "report.json").read_text(),
                      parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    (row,) = data["leaderboard"]
    assert row["accuracy"] == 1.0 and row["cost"] == 0.08 and row["latency_mean"] == 0.5  # the known ones
    assert row["tokens_in"] == 45
