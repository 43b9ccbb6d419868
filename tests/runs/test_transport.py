"""Every reply read through a cap (runs/transport.py): endless bodies and gzip bombs from a chat
or embeddings endpoint end in one line, in a process whose address space is limited (as under
`ulimit -v`), within the deadline; the run ends failed, never running, and resumes; a redirect
is never followed, so a redirected POST is never stored as an answer."""

from __future__ import annotations

import gzip
import resource
import sqlite3
import zlib

import pytest
from llm_server import LLMServer, Reply, chat, endless_chat, gzip_bomb
from processes import cli_process

from persian_tui.runs.transport import Inflater, ReplyEncodingError, ReplyTooLarge

ADDRESS_SPACE = 700 * 2**20  # the app's own footprint is about 400 MB of address space


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


@pytest.fixture
def sample_db(tmp_path):
    db = tmp_path / "s.db"
    assert cli_process(db, "sample").returncode == 0
    return db


def statuses(db) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [s for (s,) in conn.execute("SELECT status FROM runs ORDER BY id")]


def run_llm(db, script, *extra):
    with LLMServer(script) as server:
        return cli_process(db, "run", "llm", "--base-url", server.url, "--model", "m", "--limit", "2",
                           "--timeout", "30", "--max-retries", "0", *extra, preexec_fn=limited)


@pytest.mark.parametrize("script, reason", [
    (lambda b, n: endless_chat(), "larger than 32 MB"),
    (lambda b, n: gzip_bomb(), "larger than 32 MB inflated"),
])
def test_an_endless_or_inflating_chat_reply_ends_in_one_line_in_bounded_memory(sample_db, script, reason):
    done = run_llm(sample_db, script)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert reason in done.stderr.splitlines()[-1]
    assert statuses(sample_db) == ["failed"]
    again = run_llm(sample_db, lambda b, n: chat("Answer: 2"), "--resume", "1", "--retry-errors")
    assert again.returncode == 0, again.stderr
    assert statuses(sample_db) == ["done"]


def run_embed(db, script, *extra):
    with LLMServer(script) as server:
        return cli_process(db, "run", "embed", "--model", "openai:m", "--base-url", server.url, "--limit", "2",
                           *extra, preexec_fn=limited)


EMBED_HEAD = '{"data": [{"index": 0, "embedding": [0.1'


def vectors(body, n):
    return Reply(body={"data": [{"index": i, "embedding": [1.0, float(i), 0.5]} for i in range(len(body["input"]))]})


@pytest.mark.parametrize("script, reason", [
    (lambda b, n: Reply(body=EMBED_HEAD, endless=True), "larger than 64 MB"),
    (lambda b, n: gzip_bomb(body=EMBED_HEAD), "larger than 64 MB inflated"),
])
def test_an_endless_or_inflating_embeddings_reply_fails_the_run_which_resumes(sample_db, script, reason):
    done = run_embed(sample_db, script)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert reason in done.stderr.splitlines()[-1]
    assert statuses(sample_db) == ["failed"]
    again = run_embed(sample_db, vectors, "--resume", "1")
    assert again.returncode == 0, again.stderr
    assert statuses(sample_db) == ["done"]
    assert "done" in cli_process(sample_db, "run", "embed", "--resume", "1").stderr  # nothing left to do


def test_a_dripping_embeddings_reply_ends_at_the_timeout(sample_db):
    with LLMServer(lambda b, n: Reply(body=EMBED_HEAD + "]}]}", drip=0.5)) as server:
        from persian_tui.runs.embedders import EmbedderError, OpenAIEmbedder

        with pytest.raises(EmbedderError, match="no answer within 1"):
            OpenAIEmbedder(server.url, "m", timeout=1, max_retries=0).embed(["x"])


@pytest.mark.parametrize("status", [301, 307, 308])
def test_a_redirected_post_is_never_stored_as_an_answer(sample_db, status):
    def script(body, n):
        if body.get("model") == "m":  # the POST: sent elsewhere (another host, or itself: a loop)
            return Reply(status, {}, headers={"Location": "http://elsewhere.example/v1/chat/completions"})
        return chat("Answer: 2")

    done = run_llm(sample_db, script)
    assert done.returncode == 1
    with sqlite3.connect(sample_db) as conn:
        rows = conn.execute("SELECT parse_status, raw_output, error FROM predictions").fetchall()
    assert rows and all(status == "api_error" and raw is None and "redirect" in error for status, raw, error in rows)


def inflated(encoding, body, cap=2**20):
    inflater = Inflater(encoding, cap)
    out = b"".join(part for i in range(0, len(body), 1000) for part in inflater.feed(body[i:i + 1000]))
    return out + inflater.end()


def test_gzip_and_deflate_are_read_and_counted_inflated():
    text = ("سلام " * 5000).encode()
    assert inflated("gzip", gzip.compress(text)) == text
    assert inflated("deflate", zlib.compress(text)) == text
    assert inflated(None, text) == text
    with pytest.raises(ReplyTooLarge, match="inflated"):
        inflated("gzip", gzip.compress(bytes(3 * 2**20)))
    with pytest.raises(ReplyTooLarge):
        inflated("identity", bytes(2**20 + 1))


def test_other_encodings_and_corrupt_bodies_are_named():
    with pytest.raises(ReplyEncodingError, match="'br' is not one the tool reads"):
        Inflater("br", 10)
    with pytest.raises(ReplyEncodingError, match="corrupt"):
        inflated("gzip", b"\x1f\x8b\x08\x00garbage" * 10)


@pytest.fixture
def self_signed(tmp_path):
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("no openssl to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


@pytest.mark.parametrize("userinfo", ["", "user:pw@"], ids=["aiohttp", "httpx"])
def test_an_untrusted_certificate_is_a_tls_error_asked_once_never_a_timeout(self_signed, userinfo):
    import asyncio
    import ssl

    from persian_tui.runs.llm_client import LLMClient, LLMError

    with LLMServer(lambda b, n: chat("Answer: 2")) as server:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(*self_signed)
        server.httpd.socket = context.wrap_socket(server.httpd.socket, server_side=True)
        url = server.url.replace("http://", f"https://{userinfo}")
        client = LLMClient(url, "m", timeout=20, max_retries=4, backoff=5.0)

        async def ask() -> None:
            try:
                await client.complete([{"role": "user", "content": "x"}], params={})
            finally:
                await client.close()  # (its connection pool, as every run closes it)
        with pytest.raises(LLMError) as e:
            asyncio.run(ask())
    assert e.value.kind == "tls" and "TLS error" in str(e.value) and "certificate verify failed" in str(e.value)
    assert "timeout" not in str(e.value)
