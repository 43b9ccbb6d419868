"""TF-IDF rows of a few texts of a large fit from counts read once (runs/tfidf_rows.py): the same
float32 values as TfidfEmbedder.fitted_sparse on all the texts, the vocabulary cut to 20,000 terms
as sklearn cuts it, and, for a fit on one set, the same stored order (so products and norms are
summed alike)."""

from __future__ import annotations

import random

import numpy as np

from persian_tui.runs.embedders import TfidfEmbedder
from persian_tui.runs.tfidf_rows import MAX_FEATURES, Counts, Fit

LETTERS = "ابپتثجچحخدذرزژسشصضطظعغفقکگلمنوهی"


def texts(n: int, seed: int) -> list[str]:
    """Random Persian-letter couplets (with ZWNJ and Arabic forms): many distinct n-grams."""
    rng = random.Random(seed)

    def word() -> str:
        w = "".join(rng.choice(LETTERS) for _ in range(rng.randint(2, 7)))
        return rng.choice([w, w, w, w.replace("ی", "ي"), w[:2] + "\u200c" + w[2:]])

    return [" ".join(word() for _ in range(rng.randint(6, 12))) for _ in range(n)]


def test_rows_of_a_fit_on_two_sets_are_the_fit_on_all_even_when_the_vocabulary_is_cut():
    pool, reference = texts(300, 1), texts(2500, 2)
    whole = TfidfEmbedder.fitted_sparse([*pool, *reference])
    counts, ref = Counts(pool), Counts(reference)
    fit = Fit(counts, ref)
    assert fit.cut and len(fit.vocab[1]) == MAX_FEATURES  # the character n-grams were cut
    rows = [0, 7, 150, 299]
    assert np.array_equal(fit.rows(counts, rows), whole[rows].toarray())
    assert np.array_equal(Fit(ref, counts).rows(counts, rows), whole[rows].toarray())  # order of sets


def test_a_fit_on_one_set_stores_its_rows_as_sklearn_does():
    pool = texts(200, 3)
    whole = TfidfEmbedder.fitted_sparse(pool)
    counts = Counts(pool)
    fit = Fit(counts)
    m = fit.sparse_rows(counts, range(len(pool)), stored_order=True)
    assert not fit.cut
    assert np.array_equal(m.indptr, whole.indptr) and np.array_equal(m.indices, whole.indices)
    assert np.array_equal(m.data, whole.data)
    assert np.array_equal((m @ m.T).toarray(), (whole @ whole.T).toarray())
