"""TF-IDF rows of a few texts of a fit on many (TfidfEmbedder.fitted_sparse's values) without
analysing the many again: each text's word and character n-gram counts are read once (`Counts`),
a fit adds counts up (the vocabulary cut to its max_features most frequent terms as sklearn cuts
it, the idf as sklearn computes it), and only the rows asked for are built.

The lexical baseline of `corpus propose` fits on a seed's pool and 2,000 reference couplets that
are the same for every seed: their counts are read once per proposal instead of once per seed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache

import numpy as np
import numpy.typing as npt

MAX_FEATURES = 20_000  # per part, as TfidfEmbedder


def _vectorizers():
    from sklearn.feature_extraction.text import TfidfVectorizer

    from .embedders import _char_wb_grams

    common = dict(sublinear_tf=True, lowercase=False, dtype=np.float32, max_features=MAX_FEATURES)
    return [TfidfVectorizer(analyzer="word", token_pattern=r"(?u)\b\w\w+\b", **common),
            TfidfVectorizer(analyzer=_char_wb_grams, **common)]


@cache
def _analyzers() -> list:
    """The two parts' analyzers (text -> its terms), made once."""
    return [v.build_analyzer() for v in _vectorizers()]


class Counts:
    """Each text's term counts, per part (word unigrams, character 2-4-grams), the totals over
    the texts (occurrences and documents), and each term's rank of first appearance (the order
    sklearn stores a row's terms in)."""

    def __init__(self, texts: Sequence[str]):
        from itertools import chain

        from ..text import ZWNJ
        from .embedders import _prepare

        self.texts = list(texts)
        docs = [t.replace(ZWNJ, " ") for t in _prepare(self.texts, "hazm")]
        analyzers = _analyzers()
        self.n = len(docs)
        self.docs: list[list[Counter[str]]] = []
        self.total: list[Counter[str]] = []
        self.df: list[Counter[str]] = []
        self.first: list[dict[str, int]] = []
        self.ids: list[npt.NDArray[np.int64]] = []
        self.counts: list[npt.NDArray[np.float32]] = []
        self.ptr: list[npt.NDArray[np.int64]] = []
        for a in analyzers:
            tokens = [a(d) for d in docs]
            part = [Counter(t) for t in tokens]
            self.docs.append(part)
            self.total.append(Counter(chain.from_iterable(tokens)))
            self.df.append(Counter(chain.from_iterable(part)))
            first = {t: i for i, t in enumerate(dict.fromkeys(chain.from_iterable(part)))}
            self.first.append(first)
            # every (text, term) as flat arrays: the term's first-appearance rank, its count
            sizes = [len(c) for c in part]
            self.ids.append(np.fromiter((first[t] for c in part for t in c), dtype=np.int64, count=sum(sizes)))
            self.counts.append(np.fromiter((v for c in part for v in c.values()), dtype=np.float32,
                                           count=sum(sizes)))
            self.ptr.append(np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]))


class Fit:
    """A TF-IDF fit on the texts of several Counts, as TfidfEmbedder.fitted_sparse fits on them
    all: `rows(counts, indices)` are those texts' rows of its matrix (dense, float32)."""

    def __init__(self, *parts: Counts):
        self.vocab: list[dict[str, int]] = []
        self.idf: list[npt.NDArray[np.float32]] = []
        self.cut = False  # a part's vocabulary was cut to MAX_FEATURES
        n = sum(c.n for c in parts)
        big = sorted(parts, key=lambda c: -c.n)  # the largest copied, the others added to it
        for k in range(2):
            total = Counter(big[0].total[k])
            df = Counter(big[0].df[k])
            for c in big[1:]:
                total.update(c.total[k])
                df.update(c.df[k])
            terms = sorted(total)  # sklearn's order: the terms sorted
            if len(terms) > MAX_FEATURES:  # sklearn's _limit_features: the most frequent, its argsort
                self.cut = True
                tfs = np.array([total[t] for t in terms], dtype=np.float32)
                keep = np.zeros(len(terms), dtype=bool)
                keep[(-tfs).argsort()[:MAX_FEATURES]] = True
                terms = [t for t, kept in zip(terms, keep) if kept]
            self.vocab.append({t: i for i, t in enumerate(terms)})
            # sklearn's TfidfTransformer.fit with smooth_idf, in float32
            d = np.array([df[t] for t in terms], dtype=np.float32)
            d += 1.0
            idf = np.full_like(d, fill_value=n + 1, dtype=np.float32)
            idf /= d
            np.log(idf, out=idf)
            idf += 1.0
            self.idf.append(idf)

    def rows(self, counts: Counts, indices: Sequence[int]) -> npt.NDArray[np.float32]:
        return np.asarray(self.sparse_rows(counts, indices).toarray(), dtype=np.float32)

    def sparse_rows(self, counts: Counts, indices: Sequence[int], *, stored_order: bool = False):
        """The rows as a CSR matrix (float32); `stored_order`: each row's terms in the order
        sklearn stores them for a fit on `counts` alone (first appearance), so that sums over a
        row (products, norms) are made in the same order and give the same float32 values."""
        import scipy.sparse as sp
        from sklearn.preprocessing import normalize

        out = []
        rows = np.asarray(indices, dtype=np.int64)
        for k in range(2):
            vocab = self.vocab[k]
            column = np.array([vocab.get(t, -1) for t in counts.first[k]], dtype=np.int64)  # rank -> column
            starts, lengths = counts.ptr[k][rows], counts.ptr[k][rows + 1] - counts.ptr[k][rows]
            offsets = np.cumsum(lengths) - lengths  # each row's entries, where they are in `counts`
            pos = np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(starts - offsets, lengths)
            row_of = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
            ids = counts.ids[k][pos]
            cols = column[ids]
            kept = cols >= 0
            ids, cols, row_of, vals = ids[kept], cols[kept], row_of[kept], counts.counts[k][pos][kept]
            order = np.lexsort((ids if stored_order else cols, row_of))  # by row, then as stored
            indptr = np.concatenate([[0], np.cumsum(np.bincount(row_of, minlength=len(rows)))])
            m = sp.csr_matrix((vals[order], cols[order], indptr), shape=(len(rows), len(vocab)), dtype=np.float32)
            np.log(m.data, m.data)  # sublinear tf
            m.data += 1
            m.data *= self.idf[k][m.indices]
            out.append(normalize(m, norm="l2", copy=False))
        return (sp.hstack(out, format="csr") * np.float32(1 / np.sqrt(2))).astype(np.float32, copy=False)
