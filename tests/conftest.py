"""Shared fixtures: a fresh database, the seed data and the Ganjoor sample (skipped when absent),
a tiny local sentence-transformers model. Plain builders are in factories.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import SAMPLE, SEED, need_st

from persian_tui.store import Store


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
