"""Embedding runs end to end (runs/embedding.py): tfidf baseline, an OpenAI-compatible
/v1/embeddings endpoint, the cache, paraphrases; credentials never stored."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from factories import make_question, stored_sql
from llm_server import LLMServer, Reply
from pydantic import ValidationError

from persian_tui.cli import main
from persian_tui.runs import EmbedRunSpec, RunError, couplet_text, run_embedding
from persian_tui.runs.outlier import predict


@pytest.fixture
def bank(store):
    words = ["عشق", "صبر", "قناعت", "دانش", "غرور", "تربیت"]
    qs = []
    for i in range(8):
        theme, odd = words[i % 6], words[(i + 1) % 6]
        couplets = [(f"{theme} {theme} دل جان {j} {i}", f"{theme} راه {theme} {j}") for j in range(3)]
        couplets.insert(i % 4, (f"{odd} {odd} سنگ خاک {i}", f"{odd} باد {odd}"))
        qs.append(make_question(f"q-{i}", couplets=couplets, key=(i % 4) + 1))
    store.questions.add_questions(qs)
    return store


def test_tfidf_run_scores_every_question(bank):
    p = run_embedding(bank, EmbedRunSpec())
    assert p.status == "done" and p.done == 8
    preds = bank.runs.predictions(p.run_id)
    assert all(len(x.scores) == 4 for x in preds)
    assert p.correct == 8  # the outlier shares no words with the others here
    assert bank.runs.get_run(p.run_id).params["model_id"] == "tfidf"


def vectors_for(text: str) -> list[float]:
    """A deterministic fake embedding: the option's theme decides the direction."""
    v = np.zeros(8)
    v[hash(text.split()[0]) % 8] = 1.0
    v[7] += 0.1
    return v.tolist()


def test_openai_endpoint_run_uses_the_cache(bank):
    calls = []

    def script(body, n):
        calls.append(len(body["input"]))
        return Reply(body={"object": "list", "model": "m", "usage": {"prompt_tokens": 1, "total_tokens": 1},
                           "data": [{"object": "embedding", "index": i, "embedding": vectors_for(t)}
                                    for i, t in enumerate(body["input"])]})

    with LLMServer(script) as server:
        spec = EmbedRunSpec(model="openai:emb", base_url=server.url, batch_size=10)
        first = run_embedding(bank, spec)
        assert sum(calls) == 32 and len(calls) == 4  # 32 distinct texts in batches of 10
        second = run_embedding(bank, spec)
        assert sum(calls) == 32  # all from the cache: no model work
    a, b = bank.runs.predictions(first.run_id), bank.runs.predictions(second.run_id)
    assert [x.predicted for x in a] == [x.predicted for x in b]
    E = np.array([[vectors_for(couplet_text(o.mesra1, o.mesra2)) for o in q.options]
                  for q in bank.questions.questions()])
    expected, _ = predict(E.astype(np.float32), "centroid")
    assert [x.predicted for x in a] == list(expected)


def test_endpoint_errors_fail_the_run_cleanly(bank):
    with LLMServer(lambda body, n: Reply(500, {"error": {"message": "down"}})) as server:
        with pytest.raises(RunError, match="500"):
            run_embedding(bank, EmbedRunSpec(model="openai:emb", base_url=server.url))
    assert bank.runs.runs()[-1].status == "failed"


def test_unknown_scorer_and_paraphrases(bank):

    with pytest.raises(ValidationError, match="centroid"):  # the spec refuses it before anything runs
        EmbedRunSpec(scorer="magic")
    with pytest.raises(RunError, match="paraphrase run"):
        run_embedding(bank, EmbedRunSpec(paraphrase_run=99))
    para = bank.runs.create_run("paraphrase", "m", {})
    for q in bank.questions.questions():
        bank.runs.save_paraphrases(para.id, q.uid, [f"نثر {o.mesra1}" for o in q.options])
    p = run_embedding(bank, EmbedRunSpec(paraphrase_run=para.id))
    assert p.done == 8 and json.loads(json.dumps(bank.runs.get_run(p.run_id).params))["paraphrase_run"] == para.id


PASSWORD = "hunter2-Secret"


BASIC = base64.b64encode(f"admin:{PASSWORD}".encode()).decode()


def embeddings(body, vector):
    return Reply(body={"object": "list", "model": "e", "usage": {"prompt_tokens": 1, "total_tokens": 1},
                       "data": [{"object": "embedding", "index": i, "embedding": vector(i)}
                                for i in range(len(body["input"]))]})


def with_userinfo(url: str) -> str:
    return url.replace("http://", f"http://admin:{PASSWORD}@")


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


def test_a_full_disk_fails_the_run_instead_of_leaving_it_running(bank, monkeypatch):
    """The database failing mid-run (a full disk) ends the run as failed, with
    the reason, never `running 0/N` for good."""
    from persian_tui.store import StoreError
    from persian_tui.store.runs import RunsRepo

    def full(self, *a, **kw):
        raise StoreError(f"{bank.path}: disk full (free some space and try again); nothing was written")

    monkeypatch.setattr(RunsRepo, "save_predictions", full)
    with pytest.raises(RunError, match="disk full"):
        run_embedding(bank, EmbedRunSpec())
    run = bank.runs.runs()[-1]
    assert run.status == "failed" and "disk full" in (run.reason or "")
