"""The OpenAI-compatible client (runs/llm_client.py) against hostile endpoints: retries and
their bounds, replies of the wrong shape, huge or undecodable replies, deadlines, echoed
credentials redacted."""

from __future__ import annotations

import asyncio
import base64
import json
import time

import pytest
from factories import llm_run, llm_run_at, stored_sql
from llm_server import LLMServer, Reply, chat
from processes import closed_port

from persian_tui.cli import main
from persian_tui.runs import LLMRunSpec, create_llm_run, execute_llm_run
from persian_tui.runs.embedders import OpenAIEmbedder
from persian_tui.runs.llm_client import LLMClient


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


PASSWORD = "hunter2-Secret"


BASIC = base64.b64encode(f"admin:{PASSWORD}".encode()).decode()


def with_userinfo(url: str) -> str:
    return url.replace("http://", f"http://admin:{PASSWORD}@")


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


# ------------------------------------------------------------------ the lean reply path

LEAN_BODIES = [body for body, _ in HOSTILE if isinstance(body, dict)] + [
    chat("Answer: 2").body, chat(None).body, chat("x", reasoning="because", cost=0.5).body,
    chat("x", tokens=(-1, 2)).body, chat("x", cost=float("inf")).body, chat("x", cost="free").body,
    {"error": {"message": "over quota"}}, {"error": "plain"}, {"choices": None, "error": {"code": 5}},
    {"foo": 1}, {},
    {"choices": [{"message": {"content": None, "refusal": "I cannot"}, "finish_reason": "stop"}]},
    {"choices": [{"message": {"content": "a", "reasoning_content": "r"}, "finish_reason": 5}]},
    {"choices": [{"message": {"content": "a"}}], "usage": [1, 2]},
    {"choices": [{"message": {"content": "a"}}], "usage": {"total_tokens": 3}},
    {"choices": [{"message": {"content": "a"}}], "usage": {"prompt_tokens": True, "completion_tokens": 2.5}},
    {"choices": [{"message": {"content": "a"}}], "usage": "many"},
    {"choices": [5]}, {"choices": ["Answer: 1"]}, {"choices": [[1]]}, {"choices": [{"message": None}]},
    {"choices": [{"message": {"content": "a" * 1_000_010}}]},
]


@pytest.mark.parametrize("body", LEAN_BODIES, ids=range(len(LEAN_BODIES)))
def test_the_lean_reply_path_reads_what_the_client_models_read(body):
    """The client posts the body as JSON and reads a JSON object through `Fields` instead of
    building the openai client's models: completion_of gives the same result or the same
    error either way."""
    from openai.types.chat import ChatCompletion

    from persian_tui.runs.llm_client import Fields, completion_of

    client = LLMClient("http://127.0.0.1:9/v1", "m")

    def outcome(reply):
        try:
            return completion_of(reply, 0.1, content_type="application/json")
        except ValueError as e:
            return f"ValueError: {e}"

    data = json.loads(json.dumps(body))
    typed = client.client._process_response_data(data=data, cast_to=ChatCompletion, response=None)
    assert outcome(Fields(data)) == outcome(typed)


def test_the_request_body_is_the_one_the_typed_client_sent(bank10):
    """Posting the plain body sends what `chat.completions.create` sent: model, messages,
    parameters and response_format, nothing more."""
    with LLMServer(lambda body, n: chat("Answer: 1")) as server:
        messages = [{"role": "system", "content": "سلام"}, {"role": "user", "content": "x"}]
        fmt = {"type": "json_object"}

        async def ask() -> None:
            client = LLMClient(server.url, "m", timeout=5)
            await client.complete(messages, params={"temperature": 0, "seed": 3}, response_format=fmt)
            await client.close()

        asyncio.run(ask())
    assert server.requests == [{"model": "m", "messages": messages, "temperature": 0, "seed": 3,
                                "response_format": fmt}]
    assert {k.lower(): v for k, v in server.headers[0].items()}["content-type"] == "application/json"


def test_a_request_waiting_to_retry_gives_its_slot_to_another(bank10):
    """Concurrency 1: while the second question waits out its 429's Retry-After (the endpoint
    answered the first), the third is asked (the limit counts requests in flight, not waits);
    the retry then comes, and at most one request is ever in flight. (An endpoint that answers
    nothing keeps the slots: the breaker tests in test_lifecycle.py.)"""
    in_flight = [0, 0]  # now, most

    def script(body, n):
        in_flight[0] += 1
        in_flight[1] = max(in_flight)
        try:
            if n == 1:
                return Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "2"})
            return chat("Answer: 1")
        finally:
            in_flight[0] -= 1

    r, p, server = llm_run(bank10, script, max_retries=2, limit=3, concurrency=1, cache=False)
    asked = [b["messages"][-1]["content"] for b in server.requests]
    assert p.status == "done" and p.done == 3 and p.errors == 0
    assert len(set(asked[:3])) == 3 and asked[3] == asked[1]
    assert in_flight[1] == 1


def test_requests_go_through_the_clients_aiohttp_transport_unless_the_url_has_a_password():
    """openai's own aiohttp transport (less CPU per request, bench_endpoint.py case c) for every
    URL aiohttp accepts; a URL carrying a password keeps httpx, which sends it as Basic auth."""
    async def transports() -> tuple[str, str]:
        plain, secret = LLMClient("http://127.0.0.1:9/v1", "m"), LLMClient(with_userinfo("http://127.0.0.1:9/v1"), "m")
        names = type(plain.client._client).__mro__, type(secret.client._client).__mro__
        await plain.close()
        await secret.close()
        return tuple(" ".join(c.__module__ for c in mro) for mro in names)  # type: ignore[return-value]

    plain, secret = asyncio.run(transports())
    assert "aiohttp" in plain and "aiohttp" not in secret


def test_the_clients_telemetry_headers_are_not_sent(bank10):
    """Only what the endpoint needs (key, content type, user agent): not the client's platform,
    retry-count and timeout headers, each built and copied again for every request."""
    with LLMServer(lambda body, n: chat("Answer: 1")) as server:
        async def ask() -> None:
            client = LLMClient(server.url, "m", timeout=5)
            await client.complete([{"role": "user", "content": "x"}], params={})
            await client.close()

        asyncio.run(ask())
    sent = {k.lower() for k in server.headers[0]}
    assert "authorization" in sent and "user-agent" in sent
    assert not [k for k in sent if k.startswith("x-stainless")]


def test_a_retry_says_it_is_one(bank10):
    """A retry carries the retry-count header the openai client's own retries send, so an
    endpoint (or a proxy, or a rate limiter) that tells retries from first attempts sees ours as
    retries; a first attempt carries none, as above."""
    def script(body, n):
        if n < 2:
            return Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "0"})
        return chat("Answer: 1")

    with LLMServer(script) as server:
        async def ask() -> None:
            client = LLMClient(server.url, "m", timeout=5, max_retries=3)
            await client.complete([{"role": "user", "content": "x"}], params={})
            await client.close()

        asyncio.run(ask())
    counts = [{k.lower(): v for k, v in h.items()}.get("x-stainless-retry-count") for h in server.headers]
    assert counts == [None, "1", "2"]


def test_a_run_settles_the_garbage_collector_before_its_requests(bank10, monkeypatch):
    """What is loaded (the openai client's modules) is frozen out of the cyclic collector and
    young collections come less often, so that full collections do not stop a run's event loop
    every few seconds (bench/bench_sweep.py)."""
    import gc

    from persian_tui.runs import llm_client
    from persian_tui.runs.llm_client import YOUNG_COLLECTION

    # as in a fresh process (another test of this worker may have settled it already)
    monkeypatch.setattr(llm_client, "_frozen", False)
    threshold = gc.get_threshold()
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)

    seen = []

    def script(body, n):
        seen.append((gc.get_threshold()[0], gc.get_freeze_count()))
        return chat("Answer: 1")

    r, p, server = llm_run(bank10, script, limit=1, cache=False)
    assert p.status == "done"
    assert seen[0][0] == YOUNG_COLLECTION and seen[0][1] > 0
    gc.set_threshold(*threshold)


def test_the_client_is_imported_and_frozen_without_a_collection():
    """Settling imports the openai client without a collection on the way (they rescanned the
    import's own objects, about 30 ms of its 0.39 s) nor after it (a full one scanned the 90,000
    objects loaded by then for the import's 240 KB of garbage: 50 ms before the first request).
    In a fresh process: this one has the client loaded already."""
    import subprocess
    import sys

    code = ("import gc, sys\n"
            "from persian_tui.runs import llm_client\n"
            "assert 'openai' not in sys.modules\n"
            "seen = []\n"
            "gc.callbacks.append(lambda phase, info: phase == 'start' and seen.append(info['generation']))\n"
            "llm_client.settle_gc()\n"
            "print(seen, gc.isenabled())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[] True"
