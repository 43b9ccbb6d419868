"""Deciding which corpus couplet an option is (pure functions; the store fetches candidates).

Order: exact on the normalized hemistichs (either order), then fuzzy (rapidfuzz ratio over
the whole couplet, best of both orders, above a threshold), then a single hemistich that
matches exactly. Candidates from several poets that tie are ambiguous unless the option's
own poet picks one.
"""

from __future__ import annotations

from dataclasses import dataclass

FUZZY_THRESHOLD = 85.0
TIE = 1.0  # fuzzy scores this close to the best count as a tie


@dataclass(frozen=True)
class Candidate:
    couplet_id: int
    poem_id: int
    index: int
    norm1: str
    norm2: str
    poet_id: int
    poet: str  # nickname


@dataclass(frozen=True)
class Decision:
    status: str  # linked | ambiguous | unlinked
    method: str | None = None
    score: float | None = None
    candidate: Candidate | None = None
    candidates: int = 0


def squash(text: str) -> str:
    return text.replace(" ", "")


def _pick(found: list[tuple[Candidate, float]], method: str, own_poet: str | None) -> Decision:
    """One decision from the tied best candidates of one method."""
    poets = {c.poet_id for c, _ in found}
    if len(poets) > 1 and own_poet:
        mine = [(c, s) for c, s in found if c.poet == own_poet or own_poet in c.poet]
        if mine:
            found, poets = mine, {mine[0][0].poet_id}
    best, score = min(found, key=lambda cs: (-cs[1], cs[0].poem_id, cs[0].index))
    status = "linked" if len(poets) == 1 else "ambiguous"
    return Decision(status, method, round(score, 1), best, len(found))


def decide(a: str, b: str, candidates: list[Candidate], *, own_poet: str | None = None,
           threshold: float = FUZZY_THRESHOLD) -> Decision:
    """a, b: the option's hemistichs as corpus keys (see text.corpus_key)."""
    from rapidfuzz import fuzz

    if not (a or b) or not candidates:
        return Decision("unlinked")
    ka, kb = squash(a), squash(b)
    exact = [(c, 100.0) for c in candidates if squash(c.norm1) == ka and squash(c.norm2) == kb]
    if exact:
        return _pick(exact, "exact", own_poet)
    swapped = [(c, 100.0) for c in candidates if squash(c.norm1) == kb and squash(c.norm2) == ka]
    if swapped:
        return _pick(swapped, "swapped", own_poet)
    whole, whole_swapped = f"{a} {b}", f"{b} {a}"
    scored = []
    for c in candidates:
        theirs = f"{c.norm1} {c.norm2}"
        scored.append((c, max(fuzz.ratio(whole, theirs), fuzz.ratio(whole_swapped, theirs))))
    top = max(s for _, s in scored)
    if top >= threshold:
        return _pick([(c, s) for c, s in scored if s >= top - TIE], "fuzzy", own_poet)
    half = []
    for c in candidates:
        k1, k2 = squash(c.norm1), squash(c.norm2)
        if k1 and (k1 in (ka, kb)) or k2 and (k2 in (ka, kb)):
            other = b if k1 == ka or k2 == ka else a
            rest = c.norm2 if k1 in (ka, kb) else c.norm1
            half.append((c, float(fuzz.ratio(other, rest))))
    if half:
        return _pick(half, "hemistich", own_poet)
    return Decision("unlinked", candidates=len(candidates))
