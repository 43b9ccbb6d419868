"""Embedders (runs/embedders.py): TF-IDF, a tiny sentence-transformers model built here, and an
OpenAI-compatible server on 127.0.0.1 (hostile vectors included). Nothing else is contacted (hub
access is switched to offline mode)."""

from __future__ import annotations

import json
import os
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from llm_server import LLMServer, Reply

from persian_tui.runs import EmbedRunSpec, RunError, run_embedding
from persian_tui.runs.embedders import (
    Embedder,
    EmbedderError,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    TfidfEmbedder,
    _folder_revision,
    make_embedder,
)

CORPUS = [
    "طریق عشق پرآشوب و فتنه است ای دل - بیفتد آن که در این راه با شتاب رود",
    "گر نور عشق حق به دل و جانت اوفتد - بالله از آفتاب فلک خوبتر شوی",
    "شکوه عشق نگه کن که موی مجنون را - فلک به شعشعه آفتاب، شانه کند",
    "فرزانه درآید به پری خانه مقصود - هر کس که در این بادیه دیوانه عشق است",
    "شمشیر نیک از آهن بد چون کند کسی؟ - ناکس به تربیت نشود ای حکیم کس",
    "سگ به دریای هفت گانه بشوی - که چو تر شد پلیدتر باشد",
    "می‌روم تا که به کوی تو رسم - دل من در هوای تو بماند",
]


def _cos(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# ---------------------------------------------------------------- TF-IDF


def test_tfidf_shapes_and_interface():
    e = TfidfEmbedder(CORPUS)
    assert isinstance(e, Embedder)
    assert (e.model_id, e.prefix, e.normalization) == ("tfidf", "", "hazm")
    X = e.embed(CORPUS[:3])
    assert X.shape == (3, e.dim) and X.dtype == np.float32 and e.dim > 100
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1, rtol=1e-5)
    assert e.embed([]).shape == (0, e.dim)
    assert not e.embed(["xyz qqq"]).any()  # nothing known: a zero vector, no error


def test_tfidf_is_deterministic_and_revision_follows_the_corpus():
    a, b = TfidfEmbedder(CORPUS), TfidfEmbedder(random.Random(1).sample(CORPUS, len(CORPUS)))
    assert a.revision == b.revision and len(a.revision) == 64
    assert np.array_equal(a.embed(CORPUS), b.embed(CORPUS))
    assert np.array_equal(a.embed(CORPUS), a.embed(CORPUS))
    assert TfidfEmbedder(CORPUS[:-1]).revision != a.revision
    assert TfidfEmbedder(CORPUS + ["دل"]).revision != a.revision


def test_tfidf_zwnj_and_hazm_normalization():
    e = TfidfEmbedder(CORPUS)
    zwnj, space = e.embed(["می‌روم به کوی تو", "می روم به کوی تو"])
    assert zwnj.any() and np.array_equal(zwnj, space)  # ZWNJ is a word break
    arabic, persian = e.embed(["دل من در هواي تو بماند كه", "دل من در هوای تو بماند که"])
    assert np.array_equal(arabic, persian)  # ي/ك → ی/ک
    raw = TfidfEmbedder(CORPUS, normalization="none")
    assert raw.normalization == "none"
    arabic, persian = raw.embed(["دل من در هواي تو بماند كه", "دل من در هوای تو بماند که"])
    assert not np.array_equal(arabic, persian)


def test_tfidf_similar_texts_are_closer_than_unrelated():
    e = TfidfEmbedder(CORPUS)
    text, edited, unrelated = e.embed([CORPUS[1], "گر نور عشق حق به دل و جان تو افتد - از آفتاب فلک خوبتر شوی", CORPUS[5]])  # noqa: E501
    assert _cos(text, edited) > 0.6 > 0.2 > _cos(text, unrelated)


def test_tfidf_errors():
    with pytest.raises(EmbedderError, match="cannot fit on a corpus of 0"):
        TfidfEmbedder([])
    with pytest.raises(EmbedderError, match="unknown normalization 'nfkc'"):
        TfidfEmbedder(CORPUS, normalization="nfkc")


# ---------------------------------------------------------------- sentence-transformers


@pytest.fixture(scope="session")
def plain_st(tiny_st):
    return SentenceTransformerEmbedder(tiny_st["plain"], prefix="")


def test_st_shape_and_identity(tiny_st, plain_st):
    e = plain_st
    assert isinstance(e, Embedder)
    assert e.model_id == f"st:{os.path.realpath(tiny_st['plain'])}"
    assert e.revision.startswith("files:") and (e.prefix, e.normalization) == ("", "none")
    X = e.embed(CORPUS)
    assert X.shape == (len(CORPUS), 32) and X.dtype == np.float32
    assert e.embed([]).shape == (0, 32)
    assert SentenceTransformerEmbedder(tiny_st["plain"]).prefix == ""  # no prompts, not e5


def test_st_prefix_is_applied(tiny_st, plain_st):
    prefixed = SentenceTransformerEmbedder(tiny_st["plain"], prefix="query: ")
    assert prefixed.prefix == "query: "
    texts = CORPUS[:3]
    np.testing.assert_allclose(prefixed.embed(texts), plain_st.embed(["query: " + t for t in texts]), atol=1e-6)
    assert not np.allclose(prefixed.embed(texts), plain_st.embed(texts), atol=1e-4)


def test_st_prefix_from_model_prompts_and_e5_name(tiny_st, plain_st):
    prompted = SentenceTransformerEmbedder(tiny_st["prompted"])
    assert prompted.prefix == "query: "
    # the default prompt is not added a second time
    np.testing.assert_allclose(prompted.embed(CORPUS[:2]), plain_st.embed(["query: " + t for t in CORPUS[:2]]),
                               atol=1e-6)
    assert SentenceTransformerEmbedder(tiny_st["prompted"], prefix="").prefix == ""  # explicit wins
    e5 = SentenceTransformerEmbedder(tiny_st["tiny-multilingual-e5-small"])
    assert e5.prefix == "query: "


def test_st_batches_keep_input_order(tiny_st):
    texts = sorted(CORPUS, key=len)[::-1] + ["دل", "عشق و آفتاب"]
    random.Random(3).shuffle(texts)
    e = SentenceTransformerEmbedder(tiny_st["plain"], prefix="", batch_size=2)
    batched = e.embed(texts)
    one_by_one = np.vstack([e.embed([t]) for t in texts])
    np.testing.assert_allclose(batched, one_by_one, atol=1e-5)


def test_st_hazm_normalization(tiny_st, plain_st):
    e = SentenceTransformerEmbedder(tiny_st["plain"], prefix="", normalization="hazm")
    arabic, persian = e.embed(["دلي كه", "دلی که"])
    assert np.array_equal(arabic, persian)
    raw_arabic, raw_persian = plain_st.embed(["دلي كه", "دلی که"])
    assert not np.allclose(raw_arabic, raw_persian)


def test_st_missing_model_is_a_clear_error(monkeypatch, offline, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EmbedderError,
                       match=r"cannot load model no-such-org/no-such-model: .*no network: pass a local folder"):
        SentenceTransformerEmbedder("no-such-org/no-such-model")
    with pytest.raises(EmbedderError, match="no such folder"):
        SentenceTransformerEmbedder(str(tmp_path / "missing"))
    (tmp_path / "file.bin").write_bytes(b"x")
    with pytest.raises(EmbedderError, match="not a folder"):
        SentenceTransformerEmbedder(str(tmp_path / "file.bin"))


def test_folder_revision_follows_the_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "w.bin").write_bytes(b"12345")
    (tmp_path / "config.json").write_text("{}")
    before = _folder_revision(tmp_path)
    assert before == _folder_revision(tmp_path)
    os.utime(tmp_path / "sub" / "w.bin", ns=(1, 1))
    assert _folder_revision(tmp_path) != before


# ---------------------------------------------------------------- OpenAI-compatible


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass

    def do_POST(self):
        server = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if server.mode == "fail":
            boom = f"boom (key {self.headers.get('Authorization')})"
            self._send(500, {"error": {"message": boom, "type": "server_error"}},
                       {"retry-after-ms": "1"})
            return
        inputs = body["input"]
        data = [{"object": "embedding", "index": i, "embedding": _fake_vector(t)} for i, t in enumerate(inputs)]
        if server.mode == "short":
            data = data[:-1]
        data.reverse()  # out of order: the client must sort by index
        self._send(200, {"object": "list", "data": data, "model": body["model"],
                         "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}})

    def _send(self, status, payload, headers=()):
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for k, v in dict(headers).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(raw)


def _fake_vector(text: str) -> list[float]:
    return [float(len(text)), float(sum(map(ord, text)) % 997), 1.0]


@pytest.fixture
def api(monkeypatch):
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.requests, server.mode = [], "ok"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    server.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield server
    server.shutdown()
    server.server_close()


def test_openai_embeds_in_batches_and_sorts_by_index(api, monkeypatch):
    monkeypatch.setenv("TEST_EMBED_KEY", "sk-test-secret")
    e = OpenAIEmbedder(api.base_url + "/", "tiny-embed", api_key_env="TEST_EMBED_KEY", batch_size=2)
    assert isinstance(e, Embedder)
    assert (e.model_id, e.revision, e.prefix) == (f"openai:{api.base_url}#tiny-embed", "", "")
    texts = ["دل", "عشق", "آفتاب فلک", "ای دل", "شانه کند"]
    X = e.embed(texts)
    assert X.dtype == np.float32
    np.testing.assert_array_equal(X, np.array([_fake_vector(t) for t in texts], dtype=np.float32))
    assert [len(r["body"]["input"]) for r in api.requests] == [2, 2, 1]
    assert {r["path"] for r in api.requests} == {"/v1/embeddings"}
    assert all(r["body"]["model"] == "tiny-embed" and r["body"]["encoding_format"] == "float" for r in api.requests)
    assert all(r["auth"] == "Bearer sk-test-secret" for r in api.requests)
    assert all("sk-test-secret" not in repr(v) for k, v in vars(e).items() if k != "_client")


def test_openai_prefix_normalization_and_no_key(api, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    e = OpenAIEmbedder(api.base_url, "m", prefix="query: ", normalization="hazm")
    X = e.embed(["دلي كه"])
    assert api.requests[0]["body"]["input"] == ["query: دلی که"]
    assert api.requests[0]["auth"] == "Bearer not-needed"
    assert X.shape == (1, 3)
    assert e.embed([]).shape == (0, 0) and len(api.requests) == 1


def test_openai_server_error_is_clear_and_hides_the_key(api, monkeypatch):
    monkeypatch.setenv("TEST_EMBED_KEY", "sk-test-secret")
    api.mode = "fail"
    e = OpenAIEmbedder(api.base_url, "tiny-embed", api_key_env="TEST_EMBED_KEY")
    with pytest.raises(EmbedderError) as info:
        e.embed(["دل"])
    message = str(info.value)
    assert api.base_url in message and "HTTP 500" in message and "boom" in message
    assert "sk-test-secret" not in message
    assert len(api.requests) == 4  # the first try and max_retries=3


def test_openai_wrong_count_and_no_server(api):
    api.mode = "short"
    with pytest.raises(EmbedderError, match=r"expected 2 embeddings"):
        OpenAIEmbedder(api.base_url, "m").embed(["a", "b"])
    port = api.server_address[1]
    api.shutdown()
    api.server_close()
    with pytest.raises(EmbedderError, match=rf"127\.0\.0\.1:{port}/v1 .*cannot connect"):
        OpenAIEmbedder(f"http://127.0.0.1:{port}/v1", "m", max_retries=0, timeout=5).embed(["a"])


# ---------------------------------------------------------------- factory


def test_make_embedder(api):
    assert make_embedder("tfidf", corpus=CORPUS).revision == TfidfEmbedder(CORPUS).revision
    assert make_embedder("", corpus=CORPUS).model_id == "tfidf"
    assert make_embedder("tfidf", corpus=CORPUS, normalization="none").normalization == "none"
    with pytest.raises(EmbedderError, match="needs a corpus"):
        make_embedder("tfidf")
    with pytest.raises(EmbedderError, match="prefix does not apply"):
        make_embedder("tfidf", corpus=CORPUS, prefix="query: ")
    e = make_embedder("openai:tiny-embed", base_url=api.base_url, prefix="query: ")
    assert isinstance(e, OpenAIEmbedder) and e.model_id == f"openai:{api.base_url}#tiny-embed" and e.prefix == "query: "
    with pytest.raises(EmbedderError, match="needs a base URL"):
        make_embedder("openai:tiny-embed")
    with pytest.raises(EmbedderError, match="no model name"):
        make_embedder("openai:", base_url=api.base_url)


def test_make_embedder_st(tiny_st):
    st = make_embedder(f"st:{tiny_st['plain']}", prefix="query: ")
    assert isinstance(st, SentenceTransformerEmbedder) and st.prefix == "query: "
    bare = make_embedder(tiny_st["tiny-multilingual-e5-small"])
    assert isinstance(bare, SentenceTransformerEmbedder) and bare.prefix == "query: "


def embeddings(body, vector):
    return Reply(body={"object": "list", "model": "e", "usage": {"prompt_tokens": 1, "total_tokens": 1},
                       "data": [{"object": "embedding", "index": i, "embedding": vector(i)}
                                for i in range(len(body["input"]))]})


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


def test_vectors_from_the_endpoint_keep_the_scores_finite(bank6):
    """Large but finite components (1e30) are scored, not overflowed into NaN."""
    with LLMServer(lambda body, n: embeddings(body, lambda i: [1e30 * (1 + i % 3), 1e30, 1.0])) as server:
        p = run_embedding(bank6, EmbedRunSpec(model="openai:e", base_url=server.url))
    assert p.status == "done"
    assert all(np.isfinite(x.scores).all() for x in bank6.runs.predictions(p.run_id))


def test_tfidf_fitted_vectors_are_the_fitted_embedders_vectors():
    """One pass (fit_transform) gives the vectors of fitting and then embedding the same texts,
    bit for bit (similar couplets use it)."""
    import numpy as np

    from persian_tui.runs.embedders import TfidfEmbedder

    texts = ["الا یا ایها الساقی ادر کاسا و ناولها", "که عشق آسان نمود اول ولی افتاد مشکل‌ها",
             "به بوی نافه‌ای کاخر صبا زان طره بگشاید", "ز تاب جعد مشکینش چه خون افتاد در دل‌ها", "عشق"]
    assert np.array_equal(TfidfEmbedder.fitted_vectors(texts), TfidfEmbedder(texts).embed(texts))


def test_tfidf_fitted_sparse_is_fitted_vectors_and_its_ngrams_sklearns():
    """Similar couplets keep the TF-IDF sparse, its character n-grams cut by slicing: the same
    n-grams as sklearn's char_wb (short words, one-letter words, runs of spaces) and the same
    values as fitted_vectors."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    from persian_tui.runs.embedders import TfidfEmbedder, _char_wb_grams

    texts = ["الا یا ایها الساقی ادر کاسا و ناولها", "که عشق آسان نمود اول ولی افتاد مشکل‌ها",
             "به بوی نافه‌ای کاخر صبا زان طره بگشاید", "ز تاب جعد مشکینش چه خون افتاد در دل‌ها", "عشق",
             "a  bb ccc\tdddd eeeee"]
    sklearn = TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), lowercase=False).build_analyzer()
    assert all(_char_wb_grams(t) == sklearn(t) for t in texts)
    assert np.array_equal(TfidfEmbedder.fitted_sparse(texts).toarray(), TfidfEmbedder.fitted_vectors(texts))
