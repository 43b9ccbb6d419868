"""Similar couplets from the corpus: candidates from the FTS index (any of the couplet's rarer
words), ranked by cosine similarity, TF-IDF by default or any embedder (e.g. a cached
sentence-transformers model). Never a scan of the whole corpus."""

from __future__ import annotations

import numpy as np

from ..models import CorpusCouplet
from ..store import Store
from ..text import corpus_key

POOL = 400  # candidates ranked per query


def similar_couplets(store: Store, mesra1: str, mesra2: str, *, limit: int = 20, embedder=None,
                     poet: str | None = None, form: str | None = None) -> list[tuple[float, CorpusCouplet]]:
    """(cosine, couplet) best first. The couplet itself is left out, and so is any copy of it
    (the same hemistichs after normalization, whatever the spacing or their order)."""
    query = f"{corpus_key(mesra1)} {corpus_key(mesra2)}".strip()
    if not query:
        return []
    itself = _halves(mesra1, mesra2)
    pool = store.corpus.related_couplets(query, limit=POOL, poet=poet, form=form, exclude=itself)
    if not pool:
        return []
    texts = [f"{mesra1} {mesra2}", *(f"{c.mesra1} {c.mesra2}" for c in pool)]
    if embedder is None:  # TF-IDF fitted on the couplet and its pool, kept sparse
        from ..runs.embedders import TfidfEmbedder

        m = TfidfEmbedder.fitted_sparse(texts)
        norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1), dtype=np.float32).ravel())
        norms[norms == 0] = 1.0
        sims = (m[1:] @ m[0].T).toarray().ravel() / (norms[1:] * norms[0])
    else:
        vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1)
        norms[norms == 0] = 1.0
        vectors = vectors / norms[:, None]
        sims = vectors[1:] @ vectors[0]
    order = np.argsort(-sims, kind="stable")[:limit]
    return [(float(sims[i]), pool[i]) for i in order]


def _halves(mesra1: str, mesra2: str) -> frozenset[str]:
    """The couplet's hemistichs as spacing-free corpus keys, in either order."""
    return frozenset(k for k in (corpus_key(mesra1).replace(" ", ""), corpus_key(mesra2).replace(" ", "")) if k)


def similar_embedder(spec: str | None):
    """None for TF-IDF (fitted per query), else the model (sentence-transformers folder or cached
    hub name, or openai:MODEL with PERSIAN_TUI_SIMILAR_BASE_URL); EmbedderError says why not."""
    if not spec or spec == "tfidf":
        return None
    from .. import settings
    from ..runs.embedders import make_embedder

    return make_embedder(spec, base_url=settings.similar_base_url())
