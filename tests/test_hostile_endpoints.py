"""Endpoints and replies beyond the ones the issue named: embedding endpoints that send NaN,
zero, empty or overflowing vectors or HTML; passwords in embedding URLs; endpoints that echo
Basic credentials; 200 replies that are error objects, HTML or a stream; limited resumes of
failed items. Real openai client, local server."""

from __future__ import annotations

import asyncio
import base64

import numpy as np
import pytest
from factories import couplets, llm_run_at, make_question, stored_sql
from llm_server import LLMServer, Reply, chat
from pydantic import ValidationError

from persian_tui.cli import main
from persian_tui.runs import EmbedRunSpec, LLMRunSpec, RunError, run_embedding
from persian_tui.runs.embedders import OpenAIEmbedder
from persian_tui.runs.llm_client import LLMClient

PASSWORD = "hunter2-Secret"
BASIC = base64.b64encode(f"admin:{PASSWORD}".encode()).decode()


def embeddings(body, vector):
    return Reply(body={"object": "list", "model": "e", "usage": {"prompt_tokens": 1, "total_tokens": 1},
                       "data": [{"object": "embedding", "index": i, "embedding": vector(i)}
                                for i in range(len(body["input"]))]})


def with_userinfo(url: str) -> str:
    return url.replace("http://", f"http://admin:{PASSWORD}@")


# ------------------------------------------------------------------ embedding endpoints


BAD_VECTORS = {
    "nan": (lambda i: [float("nan"), 1.0, 2.0] if i == 0 else [1.0, 2.0, 3.0], "finite"),
    "overflow": (lambda i: [1e308, 1e308, 1.0], "finite"),
    "zero": (lambda i: [0.0, 0.0, 0.0], "zero vector"),
    "empty": (lambda i: [], "no numbers"),
    "text": (lambda i: "AAAAAAAA" if i == 0 else [1.0, 2.0, 3.0], "not a list of numbers"),
    "boolean": (lambda i: [True, False, i % 2 == 0], "not a list of numbers"),
}


@pytest.mark.parametrize("case", sorted(BAD_VECTORS))
def test_hostile_vectors_fail_the_run_with_a_reason_never_a_traceback(bank6, case):
    vector, reason = BAD_VECTORS[case]
    with LLMServer(lambda body, n: embeddings(body, vector)) as server:
        with pytest.raises(RunError, match=reason):
            run_embedding(bank6, EmbedRunSpec(model="openai:e", base_url=server.url))
    (run,) = bank6.runs.runs()
    assert run.status == "failed" and reason in run.reason
    assert bank6.runs.predictions(run.id) == []


@pytest.mark.parametrize("reply, reason", [
    (Reply(body=b"<html><body>Welcome to nginx</body></html>", content_type="text/html"), "not JSON"),
    (Reply(body={"error": {"message": "quota exceeded"}}), "quota exceeded"),
    (Reply(body={"data": "lots"}), "data"),
    (Reply(body=b"[1, 2, 3]"), "not an object"),
])
def test_embedding_replies_that_are_not_embeddings_fail_cleanly(bank6, reply, reason):
    with LLMServer(lambda body, n: reply) as server:
        with pytest.raises(RunError, match=reason):
            run_embedding(bank6, EmbedRunSpec(model="openai:e", base_url=server.url))
    assert bank6.runs.runs()[0].status == "failed"


def test_embedding_url_password_and_echoed_credentials_are_never_stored_or_printed(bank6, capsys):
    def script(body, n):
        if n == 0:
            return embeddings(body, lambda i: [1.0 + i % 3, 1.0, 0.5])
        return Reply(401, {"error": {"message": f"bad credentials: Basic {BASIC} ({PASSWORD})"}})

    with LLMServer(script) as server:
        url = with_userinfo(server.url)
        assert main(["--db", str(bank6.path), "run", "embed", "--model", "openai:e", "--base-url", url]) == 0
        assert main(["--db", str(bank6.path), "run", "embed", "--model", "openai:e2", "--base-url", url]) == 1
        main(["--db", str(bank6.path), "runs"])
    out, err = capsys.readouterr()
    stored = stored_sql(bank6.path)
    for secret in (PASSWORD, BASIC):
        assert secret not in out + err and secret not in stored
    assert "***@127.0.0.1" in stored and "401" in err


def test_a_base_url_with_a_local_model_is_refused(bank6):
    with pytest.raises(ValidationError, match="openai:"):
        EmbedRunSpec(model="text-embedding-3-small", base_url="http://127.0.0.1:1/v1")
    with pytest.raises(ValidationError, match="openai:"):
        EmbedRunSpec(model="st:some/model", base_url="http://127.0.0.1:1/v1")
    assert EmbedRunSpec(model="openai:e", base_url="http://127.0.0.1:1/v1").base_url


def test_clients_refuse_a_key_given_as_the_variable_name():
    key = "sk-live-ABCDEFGH12345678"
    for make in (lambda: LLMClient("http://127.0.0.1:1/v1", "m", api_key_env=key),
                 lambda: OpenAIEmbedder("http://127.0.0.1:1/v1", "m", api_key_env=key)):
        with pytest.raises(ValueError, match="NAME of an environment variable") as e:
            make()
        assert key not in str(e.value)


# ------------------------------------------------------------------ LLM endpoints


def test_echoed_basic_credentials_are_redacted(bank6, capsys):
    """With user-info in the URL the client sends Basic credentials; an endpoint that echoes
    them (or the password) must not get them stored."""
    def script(body, n):
        return Reply(401, {"error": {"message": f"Incorrect API key provided: Basic {BASIC}; pw {PASSWORD}"}})

    r, p = llm_run_at(bank6, script, url=with_userinfo, max_failures=100)
    assert p.status == "failed"
    stored = stored_sql(bank6.path)
    assert PASSWORD not in stored and BASIC not in stored and "Basic ***" in stored


@pytest.mark.parametrize("reply, reason", [
    (Reply(body={"error": {"message": "model overloaded, try later", "code": 503}}),
     "error: model overloaded, try later"),
    (Reply(body={"error": "quota exceeded"}), "error: quota exceeded"),
    (Reply(body=b"<!DOCTYPE html><html><body>Please log in</body></html>", content_type="text/html"),
     "not JSON (text/html): <!DOCTYPE html><html><body>Please log in"),
    (Reply(body=b'data: {"choices": []}\n\ndata: [DONE]\n\n', content_type="text/event-stream"),
     "not JSON (text/event-stream): data:"),
    (Reply(body=b"[1, 2, 3]"), "not a completion object: [1, 2, 3]"),
    (Reply(body=b"null"), "not a completion object"),
])
def test_a_200_that_is_not_a_completion_says_what_it_was(bank6, reply, reason):
    r, p = llm_run_at(bank6, lambda body, n: reply)
    assert p.status == "failed"
    errors = {x.error for x in bank6.runs.predictions(r.id)}
    assert len(errors) == 1 and reason in errors.pop()


def test_usage_of_the_wrong_shape_is_named_not_silently_dropped(bank6):
    def script(body, n):
        reply = chat("Answer: 2")
        reply.body["usage"] = "lots"
        return reply

    r, p = llm_run_at(bank6, script)
    assert p.status == "done"
    assert all(x.error == "usage text 'lots' ignored" and x.tokens_in is None for x in bank6.runs.predictions(r.id))


def test_a_message_that_is_text_is_named_as_such(bank6):
    r, p = llm_run_at(bank6, lambda body, n: Reply(body={"choices": ["Answer: 2"]}))
    assert "choices[0] should be an object, got text 'Answer: 2'" in bank6.runs.predictions(r.id)[0].error


def test_a_limited_resume_of_failed_items_reports_the_run_as_stored(bank6, capsys):
    """`--resume N --retry-errors --limit 1` asks one failed item again: the closing line
    counts the run as it is (the other failed items are still errors), not only that one."""
    r, p = llm_run_at(bank6, lambda body, n: Reply(500, {"error": {"message": "down"}}), max_failures=100)
    assert p.status == "failed" and p.errors == 6
    with LLMServer(lambda body, n: chat("Answer: 1")) as server:
        code = main(["--db", str(bank6.path), "run", "llm", "--resume", str(r.id), "--base-url", server.url,
                     "--retry-errors", "--limit", "1"])
    out, err = capsys.readouterr()
    summary = bank6.runs.run_summaries()[0]
    assert (summary.done, summary.errors) == (6, 5)
    assert "6/6 predictions" in out and "api errors 5" in out, out
    assert code == 0 and "--retry-errors asks them again" in err


def test_resuming_a_failed_run_without_retry_errors_keeps_its_reason_and_says_how(bank6, capsys):
    r, p = llm_run_at(bank6, lambda body, n: Reply(500, {"error": {"message": "down"}}), max_failures=100)
    reason = bank6.runs.get_run(r.id).reason
    assert "last: q-" in reason and "down" in reason
    with LLMServer(lambda body, n: chat("Answer: 1")) as server:
        code = main(["--db", str(bank6.path), "run", "llm", "--resume", str(r.id), "--base-url", server.url])
    out, err = capsys.readouterr()
    assert code == 1
    assert "down" in bank6.runs.get_run(r.id).reason and "last: )" not in bank6.runs.get_run(r.id).reason
    assert "--retry-errors" in err


def test_vectors_from_the_endpoint_keep_the_scores_finite(bank6):
    """Large but finite components (1e30) are scored, not overflowed into NaN."""
    with LLMServer(lambda body, n: embeddings(body, lambda i: [1e30 * (1 + i % 3), 1e30, 1.0])) as server:
        p = run_embedding(bank6, EmbedRunSpec(model="openai:e", base_url=server.url))
    assert p.status == "done"
    assert all(np.isfinite(x.scores).all() for x in bank6.runs.predictions(p.run_id))


def test_a_limited_resume_of_failed_judgments_reports_the_run_as_stored(store, capsys):
    from persian_tui.judging.run import create_judge_run, execute_judge_run
    from persian_tui.models import Prediction

    store.questions.add_questions([make_question(f"j-{i}", couplets=couplets(i), key=1) for i in range(5)])
    target = store.runs.create_run("llm", "x", {}, status="done",
                                   predictions=[Prediction(f"j-{i}", 2, "ok", raw_output="2") for i in range(5)])
    with LLMServer(lambda body, n: Reply(500, {"error": {"message": "down"}})) as server:
        jrun = create_judge_run(store, LLMRunSpec(base_url=server.url, model="j", max_retries=0), target.id)
        p = asyncio.run(execute_judge_run(store.path, jrun.id))
    assert p.status == "failed" and p.errors == 5
    verdict = '{"verdict": "flawed", "error_category": "other", "rationale": "r"}'
    with LLMServer(lambda body, n: chat(verdict)) as server:
        code = main(["--db", str(store.path), "judge", "--resume", str(jrun.id), "--base-url", server.url,
                     "--retry-errors", "--limit", "2"])
    out, err = capsys.readouterr()
    assert code == 0 and "5/5 judged" in out and "api errors 3" in out, out


def test_a_huge_reply_is_stored_cut_in_the_middle_with_a_note(bank6):
    """A 3 MB reply is kept as its head and tail (the answer usually closes a long reply), with
    the cut noted in the row; the database does not grow by the whole reply per question."""
    from persian_tui.runs.llm_client import MAX_REPLY_CHARS

    huge = "x" * (3 * MAX_REPLY_CHARS) + "\nAnswer: 2"
    r, p = llm_run_at(bank6, lambda body, n: chat(huge), limit=2)
    rows = bank6.runs.predictions(r.id)
    assert p.status == "done" and all(x.predicted == 2 for x in rows)
    assert all(len(x.raw_output) <= MAX_REPLY_CHARS + 100 and x.raw_output.endswith("Answer: 2") for x in rows)
    assert all("cut" in x.error and str(len(huge)) in x.error for x in rows)


def test_a_structured_output_refusal_is_stored_as_a_refusal(bank6):
    """OpenAI's structured outputs put a refusal in message.refusal with no content: it is the
    reply (stored, read as `refusal`), not an empty answer."""
    def script(body, n):
        reply = chat(None)
        reply.body["choices"][0]["message"]["refusal"] = "I'm sorry, but I can't help with that request."
        return reply

    r, p = llm_run_at(bank6, script, limit=2, strategy="json")
    rows = bank6.runs.predictions(r.id)
    assert all(x.parse_status == "refusal" and "can't help" in x.raw_output for x in rows)


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


def test_a_run_being_worked_on_cannot_be_deleted_from_under_it(bank6, capsys):
    """Another process works on the run (it holds the lease): `runs delete` names it and deletes
    nothing (the worker died on a FOREIGN KEY error, reported as a damaged file); once the lease
    is released the delete goes through."""
    import socket
    import subprocess
    import sys

    from persian_tui.store import LeaseHeld

    r, p = llm_run_at(bank6, lambda body, n: chat("Answer: 1"), limit=2)
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])  # killed below
    try:
        holder = f"{worker.pid}@{socket.gethostname()}"
        bank6.runs.take_lease(r.id, 3600, holder=holder)  # held for the whole test, however slow the machine
        assert main(["--db", str(bank6.path), "runs", "delete", str(r.id), "--yes"]) == 1
        assert f"being worked on by process {holder}" in capsys.readouterr().err
        with pytest.raises(LeaseHeld):
            bank6.runs.delete_run(r.id)
        assert bank6.runs.get_run(r.id) is not None and len(bank6.runs.predictions(r.id)) == 2
        bank6.runs.release_lease(r.id, holder=holder)
        assert main(["--db", str(bank6.path), "runs", "delete", str(r.id), "--yes"]) == 0
        assert bank6.runs.get_run(r.id) is None
    finally:
        worker.kill()
        worker.wait()


@pytest.mark.parametrize("reply, field", [
    (Reply(body=b'{"choices": [{"message": {"content": "\\ud800 Answer: 2"}}]}'), "raw_output"),
    (Reply(body=b'{"choices": [{"message": {"content": "Answer: 2", "reasoning": "x \\udfff"}}]}'), "reasoning"),
    (Reply(500, b'{"error": {"message": "bad \\ud800 thing"}}'), "error"),
])
def test_lone_surrogates_in_a_reply_are_replaced_not_a_crash(bank6, reply, field):
    """"\\ud800" is valid JSON but not storable text: one such reply crashed the whole run."""
    r, p = llm_run_at(bank6, lambda body, n: reply, limit=2, max_failures=100)
    rows = bank6.runs.predictions(r.id)
    assert len(rows) == 2 and all("\ufffd" in getattr(x, field) for x in rows)
    assert p.status in ("done", "failed") and "UnicodeEncodeError" not in (bank6.runs.get_run(r.id).reason or "")


def test_a_reply_that_cannot_be_decoded_names_the_cause(bank6):
    reply = Reply(body=b"not gzip at all", headers={"content-encoding": "gzip"})
    r, p = llm_run_at(bank6, lambda body, n: reply, limit=1)
    assert "decompress" in bank6.runs.predictions(r.id)[0].error


# ------------------------------------------------------------------ JSON input files, same hostility


def test_json_input_with_lone_surrogates_is_a_one_line_error_never_a_traceback(tmp_path, capsys):
    """"\\ud800" is valid JSON but not text: a question file, a labels file or a JSON file with one
    names the file and line (the question import crashed with UnicodeEncodeError)."""
    import json as _json

    from persian_tui.store import Store

    record = {"schema_version": 1, "uid": "s-1", "status": "ready", "stem": "x", "key": 1,
              "options": [{"position": i, "mesra1": f"الف {i}", "mesra2": f"ب {i}"} for i in range(1, 5)]}
    line = _json.dumps(record).replace('"x"', '"x \\ud800 y"')
    bank = tmp_path / "bank.jsonl"
    bank.write_text(_json.dumps({**record, "uid": "s-0"}) + "\n" + line + "\n", encoding="utf-8")
    db = str(tmp_path / "t.db")
    code = main(["--db", db, "import", str(bank), "--skip-invalid"])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "line 2" in out + err and "surrogate" in out + err
    with Store(db) as s:
        assert [q.uid for q in s.questions.questions(statuses=("draft", "ready", "curated"))] == ["s-0"]
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"uid": "s-0", "annotator": "a\\udc00", "answer": 1}\n', encoding="utf-8")
    main(["--db", db, "import-labels", str(labels)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "surrogate" in out + err
    assert code in (0, 1)
