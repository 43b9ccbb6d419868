"""Outlier scorers over embeddings of four-option questions.

`E` is a batch of shape (n, 4, d): n questions, four option vectors each. Every scorer returns
(n, 4) scores where LOWER means more likely the outlier; the prediction is the first option
whose score is within a RELATIVE tolerance of the row's minimum: TIE_ULPS·eps·max|score| of
that row (eps of the scores' dtype). Options that are mathematically tied can differ in the last
bits: with options a, b, a, b the seed's centroids of options 2 and 4 are (a+a)+b and (a+b)+a,
and which one "wins" is rounding noise (in the seed it even depends on the memory alignment
seen by BLAS). Here the first one always wins. This is NOT the seed's rule (plain argmin, so
near-ties went whichever way rounding fell); it agrees with float64 argmin except where the
float64 scores themselves are within that tolerance. The tolerance is relative so that small
scores (sparse vectors, cosines near 0) are not lumped together as ties.

- ``centroid``: the seed's `find_outlier_index`: cosine of each option to the mean of the RAW
  vectors of the other three. Computed with the seed's operations (np.mean of the three in
  order, then sklearn's `normalize`, then a dot product), so scores match it to rounding and
  exact ties (duplicate options) resolve the same way.
- ``pairwise``: mean cosine of each option to the other three.
- ``isolation``: max cos(i, j) over the others j  minus  min cos(j, k) over the three pairs of
  the others, i.e. i's closest link to the group minus the group's weakest internal link.
  Negative when i is less similar to every other option than the others are to each other.
  (The mean-minus-mean variant is not used: with four options it equals 2·pairwise_i minus a
  per-question constant, so it would always predict the same option as ``pairwise``.)

Cosine with a zero vector is 0 (as sklearn: norms below 10·eps are left unscaled).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .scorers import SCORERS, Scorer

__all__ = ["SCORERS", "Scorer", "predict", "scores", "tie_tolerance"]  # the names: runs/scorers.py

Floats = npt.NDArray[np.floating]  # float32 stays float32, anything else is float64
TIE_ULPS = 4  # scores within TIE_ULPS * eps * max|score| (per row) of the minimum tie with it

# OTHERS[i]: the options other than i, in ascending order (as np.delete(E, i) gives them)
OTHERS = np.array([[j for j in range(4) if j != i] for i in range(4)])
# the three pairs (j, k), j < k, that do not involve option i
_PAIRS_WITHOUT = [[(j, k) for j in range(4) for k in range(j + 1, 4) if i not in (j, k)] for i in range(4)]
_PJ = np.array([[j for j, _ in p] for p in _PAIRS_WITHOUT])
_PK = np.array([[k for _, k in p] for p in _PAIRS_WITHOUT])


def _check(E: npt.ArrayLike) -> Floats:
    E = np.asarray(E)
    if E.ndim != 3 or E.shape[1] != 4 or E.shape[2] == 0:
        raise ValueError(f"expected embeddings of shape (n, 4, d), got {E.shape}")
    if not np.issubdtype(E.dtype, np.number) or np.iscomplexobj(E):
        raise ValueError(f"expected real numeric embeddings, got dtype {E.dtype}")
    if not np.isfinite(E).all():
        raise ValueError("embeddings contain NaN or infinite values")
    # float32 stays float32 (as in the seed with sklearn); anything else is computed in float64
    return E if E.dtype in (np.float32, np.float64) else E.astype(np.float64)


def _unit(X: Floats) -> Floats:
    """Rows scaled to unit length as sklearn's `normalize` does (the same einsum; norms
    below 10·eps are left at 1, so zero vectors stay zero)."""
    flat = X.reshape(-1, X.shape[-1]).copy()
    norms = np.sqrt(np.einsum("ij,ij->i", flat, flat))
    norms[norms < 10 * np.finfo(X.dtype).eps] = 1.0
    flat /= norms[:, None]
    return flat.reshape(X.shape)


# Dot products go through einsum, not BLAS (@): OpenBLAS results depend on memory alignment,
# so two identical options stored at different offsets could get scores differing in the last
# bit, breaking exact ties (first index wins) at random. einsum gives equal inputs equal outputs.


def _gram(E: Floats) -> Floats:
    """(n, 4, 4) cosine similarities between the options of each question."""
    U = _unit(E)
    return np.einsum("nid,njd->nij", U, U)


def _centroid(E: Floats) -> Floats:
    # (n, 4, d): mean of the raw vectors of the others, summed in np.mean's order, ((a+b)+c)/3
    a, b, c = (E[:, OTHERS[:, k]] for k in range(3))
    centroids = (a + b + c) / 3
    return np.einsum("nid,nid->ni", _unit(E), _unit(centroids))


def _pairwise(E: Floats) -> Floats:
    G = _gram(E)
    return (G.sum(axis=2) - np.einsum("nii->ni", G)) / 3.0


def _isolation(E: Floats) -> Floats:
    G = _gram(E)
    link = np.where(np.eye(4, dtype=bool), -np.inf, G).max(axis=2)  # closest other option
    weakest = G[:, _PJ, _PK].min(axis=2)  # weakest pair among the other three
    return link - weakest


_FUNCS = {"centroid": _centroid, "pairwise": _pairwise, "isolation": _isolation}


BLOCK_VALUES = 1 << 22  # values scored at a time: the scorers' temporaries stay small for any n


def scores(E: npt.ArrayLike, scorer: str) -> Floats:
    """(n, 4) scores; lower = more likely the outlier. Rows are scored in blocks (each row's
    scores depend on that row alone), so memory does not grow with n."""
    if scorer not in _FUNCS:
        raise ValueError(f"unknown scorer {scorer!r}; expected one of {', '.join(SCORERS)}")
    E, func = _check(E), _FUNCS[scorer]
    step = max(1, BLOCK_VALUES // (4 * E.shape[2]))
    if len(E) <= step:
        return func(E)
    return np.concatenate([func(E[i:i + step]) for i in range(0, len(E), step)])


def predict(E: npt.ArrayLike, scorer: str) -> tuple[npt.NDArray[np.intp], Floats]:
    """(predicted option 1..4 per question, (n, 4) scores).

    The prediction is the first option scoring within tie_tolerance(s) of the row's minimum:
    np.argmin, except that scores equal up to rounding count as a tie, so the first option wins."""
    s = scores(E, scorer)
    near = s <= s.min(axis=1, keepdims=True) + tie_tolerance(s)
    return near.argmax(axis=1) + 1, s


def tie_tolerance(s: Floats) -> Floats:
    """(n, 1) tie tolerance per row: TIE_ULPS·eps·max|score| of the row (0 for an all-zero row,
    where only exact ties tie)."""
    return TIE_ULPS * np.finfo(s.dtype).eps * np.abs(s).max(axis=1, keepdims=True)
