"""Fixtures the test folders share: a fresh database, small banks (three plain questions, six or
ten keyed ones), the mini corpus (and one with works quoting others), a judged run, tied votes,
the seed data and the Ganjoor sample (skipped when absent), a tiny local sentence-transformers
model. A fixture only one folder uses is in that folder's conftest.py; plain builders are in
factories.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import (
    HAFEZ_1,
    MINI,
    SAMPLE,
    SEED,
    TIE_KEYS,
    add_questions,
    add_run,
    copy_mini,
    keyed_bank,
    make_question,
    need_st,
    voted_run,
    write_poem,
    write_poet,
    write_quoting_works,
)

from persian_tui.store import Store

# ---------------------------------------------------------------- no network

LOOPBACK = ("127.", "::1", "localhost")


def loopback_only(address: object) -> None:
    """Refuses a connection anywhere but this machine (a Unix socket, 127.x, ::1)."""
    host = address[0] if isinstance(address, tuple) else None
    if host is not None and not str(host).startswith(LOOPBACK):
        raise OSError(f"a test tried to reach {host!r}: tests never reach the network")


@pytest.fixture(autouse=True, scope="session")
def no_network():
    """No test reaches the network: the hub and `datasets` offline (in this process and in every
    process a test starts, through the environment), and a connection to any address but
    loopback refused before it is made."""
    import socket

    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def connect(self, address):
        loopback_only(address)
        return real_connect(self, address)

    def connect_ex(self, address):
        loopback_only(address)
        return real_connect_ex(self, address)

    with pytest.MonkeyPatch.context() as mp:
        for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_TELEMETRY"):
            mp.setenv(var, "1")
        mp.setenv("INSPECT_DISABLE_TELEMETRY", "1")
        mp.setattr(socket.socket, "connect", connect)
        mp.setattr(socket.socket, "connect_ex", connect_ex)
        yield


@pytest.fixture
def store(tmp_path) -> Store:
    s = Store(tmp_path / "test.db")
    yield s
    s.close()


@pytest.fixture
def seed() -> Path:
    if not SEED.is_dir():
        pytest.skip("../shared/seed-data is not available")
    return SEED


@pytest.fixture
def sample() -> Path:
    if not SAMPLE.is_dir():
        pytest.skip("../shared/ganjoor-sample is not available")
    return SAMPLE


@pytest.fixture
def small_db(tmp_path) -> Path:
    """A database file holding three plain questions (q-0, q-1, q-2)."""
    path = tmp_path / "x.db"
    with Store(path) as s:
        s.questions.add_questions([make_question(f"q-{i}") for i in range(3)])
    return path


@pytest.fixture
def bank6(store):
    """The store with six keyed questions (factories.keyed_questions)."""
    return keyed_bank(store, 6)


@pytest.fixture
def bank10(store):
    """The store with ten keyed questions (factories.keyed_questions)."""
    return keyed_bank(store, 10)


@pytest.fixture
def corpus(store):
    """The store with the mini Ganjoor export (tests/data/ganjoor-mini) imported."""
    from persian_tui.corpus.ganjoor import import_corpus

    import_corpus(store, MINI)
    return store


@pytest.fixture
def quoting(store, tmp_path):
    """The mini export, plus: a prose book of ethics (listed by its title, as Naraghi's Me'raj)
    quoting Hafez; a later poet's anthology (not listed) quoting Hafez and Saadi, with one couplet
    of its own; a later poet's ghazal that quotes one couplet of Hafez among its own."""
    from persian_tui.corpus.ganjoor import import_corpus

    root = copy_mini(tmp_path)
    write_quoting_works(root)
    write_poet(root, "later", "شاعر پسین", 1100)
    write_poem(root, "later", "ghazal/sh1", [("غزلی نو سرودم به یاد شیراز", "که دلم در آن شهر مانده است باز"),
                                            HAFEZ_1,
                                            ("سخن از دل آمد و بر دل نشست", "که نوای او ز سر گرفته ساز"),
                                            ("شب و روز در فکر آن یار بودم", "که مرا برد از سر آن ناز")],
               full_title="شاعر پسین » غزلیات")
    p = import_corpus(store, root)
    assert p.skipped == 0 and p.quoting == 2  # the anthology and Attar's quatrain (Khayyam's, earlier)
    return store


@pytest.fixture
def judged(store):
    """Six keyed questions and a done LLM run answering them (right on q-0 and q-1), with reasoning:
    (store, run id)."""
    from persian_tui.models import Prediction

    store.questions.add_questions([make_question(f"q-{i}", couplets=[(f"الف {i} {j}", f"ب {i} {j}") for j in range(4)],
                                                 key=1, explanation="سه بیت از عشق می‌گویند") for i in range(6)])
    run = store.runs.create_run("llm", "model-x", {}, status="done", predictions=[
        Prediction(f"q-{i}", 1 if i < 2 else 3, "ok", raw_output="Answer: 3", reasoning="گزینه ۳ متفاوت است")
        for i in range(6)])
    return store, run.id


@pytest.fixture
def tied(store):
    """Four curated questions, a run asked 4 times whose votes tie on q1 and q4 (factories.TIE_SAMPLES)
    and a run asked once, 3 of 4 right: (store, voted run, single run)."""
    add_questions(store, TIE_KEYS, status=["curated"] * 4)
    voter = voted_run(store)
    single = add_run(store, "single", [1, 2, 3, 1])  # 3 of 4 right
    return store, voter, single


def pytest_addoption(parser, pluginmanager):
    """`--dist` (in addopts) stays accepted when pytest-xdist is off (`-p no:xdist`)."""
    if not pluginmanager.has_plugin("xdist"):
        parser.addoption("--dist", help="pytest-xdist's option (ignored: xdist is not loaded)")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items):
    """The tests using sentence-transformers (the `offline` fixture, which tiny_st uses) are one
    group: with -n, one worker imports torch and builds the tiny model."""
    for item in items:
        if "offline" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("sentence-transformers"))


# ---------------------------------------------------------------- sentence-transformers

_CHARS = "ابپتثجچحخدذرزژسشصضطظعغفقکگلمنوهیآءئأؤيك"
_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *_CHARS, *("##" + c for c in _CHARS)]
_VOCAB += ["عشق", "دل", "آفتاب", "فلک", "query", ":", "-", "،", "؟"]


@pytest.fixture(scope="session")
def offline():
    """Hub access off for the session: a load that would need the network fails at once."""
    need_st()
    import huggingface_hub.constants

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
        yield


@pytest.fixture(scope="session")
def tiny_st(tmp_path_factory, offline):
    """A random 2-layer BERT (hidden 32) with a Persian WordPiece vocabulary, saved as
    sentence-transformers folders: plain, with a configured "query" prompt, and e5-named."""
    need_st()
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import BertConfig, BertModel, BertTokenizer

    try:
        from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers.models import Pooling, Transformer

    root = tmp_path_factory.mktemp("tiny-st")
    (root / "vocab.txt").write_text("\n".join(_VOCAB) + "\n", encoding="utf-8")
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(_VOCAB), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=128,
    )
    bert = root / "bert"
    BertModel(config).save_pretrained(bert)
    BertTokenizer(str(root / "vocab.txt"), do_lower_case=False).save_pretrained(bert)
    paths = {}
    for name, kw in [
        ("plain", {}),
        ("prompted", {"prompts": {"query": "query: "}, "default_prompt_name": "query"}),
        ("tiny-multilingual-e5-small", {}),
    ]:
        transformer = Transformer(str(bert))
        dim = getattr(transformer, "get_embedding_dimension", None) or transformer.get_word_embedding_dimension
        pooling = Pooling(dim(), "mean")
        SentenceTransformer(modules=[transformer, pooling], device="cpu", **kw).save(str(root / name))
        paths[name] = str(root / name)
    return paths
