"""The lexical baseline and TF-IDF similarities of `corpus propose` as they were before the
counts were read once (runs/tfidf_rows.py): every seed fits TF-IDF on its pool for the
similarities, and on its pool and the 2,000 reference couplets for the baseline. bench_propose.py
runs both in the same run, checks they make the same candidates, and prints the ratio."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from persian_tui.corpus import propose as propose_module


def _similarities(texts: list[str], embedder, counts=None):
    if embedder is None:
        from persian_tui.runs.embedders import TfidfEmbedder

        m = TfidfEmbedder.fitted_sparse(texts)
        norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1), dtype=np.float32).ravel())
        norms[norms == 0] = 1.0
        return np.asarray((m @ m.T).toarray(), dtype=np.float32) / np.outer(norms, norms)
    u = propose_module._unit(embedder.embed(texts))
    return u @ u.T


def _pick(self, rows: Sequence[int]) -> tuple[int, list[float]]:
    from persian_tui.runs.embedders import TfidfEmbedder
    from persian_tui.runs.outlier import predict

    if self._matrix is None:
        reference = getattr(self.reference, "texts", self.reference)
        self._matrix = TfidfEmbedder.fitted_sparse([*self.texts, *reference])
    vectors = self._matrix[list(rows)].toarray()
    picked, scores = predict(vectors[None, :, :], "centroid")
    return int(picked[0]), [round(float(x), 4) for x in scores[0]]


@contextmanager
def old_code(on: bool = True) -> Iterator[None]:
    """Within it, propose() fits as before (when `on`)."""
    saved = propose_module._similarities, propose_module.LexicalBaseline.pick
    if on:
        propose_module._similarities = _similarities  # type: ignore[assignment]
        propose_module.LexicalBaseline.pick = _pick  # type: ignore[method-assign]
    try:
        yield
    finally:
        propose_module._similarities, propose_module.LexicalBaseline.pick = saved  # type: ignore[method-assign]
