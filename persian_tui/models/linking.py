"""Deciding which corpus couplet an option is (pure functions; the store fetches candidates).

Order: verbatim on the normalized hemistichs (either order: `exact`, `swapped`), then fuzzy
(rapidfuzz ratio over the whole couplet, best of both orders, above a threshold), then single
hemistichs that match exactly: both, from two different couplets (`split`: the option joins
halves of two couplets), or one (`one_hemistich`).

Several poems holding the couplet are one couplet, not an ambiguity: the source is the poem of
the poet who died first (poets without a death year come last), never a work that quotes others
(`Candidate.quoting`) while any other poem holds it; the other poems are kept as `others`
(also_in). A couplet found only in quoting works is not linked (`quoted`). Ambiguous means the
best candidates are really different couplets (or two poets with the same death year), unless
the option's own poet picks one.

`reversed` says whether the option's hemistichs are the poet's order reversed: known for the
verbatim methods and for a fuzzy match whose two readings differ by ORDER_MARGIN points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .vocabulary import LinkStatus

FUZZY_THRESHOLD = 85.0
TIE = 1.0  # fuzzy scores this close to the best count as a tie
ORDER_MARGIN = 10.0  # a fuzzy match decides the order when one reading beats the other by this


@dataclass(frozen=True)
class Candidate:
    couplet_id: int
    poem_id: int
    index: int
    norm1: str
    norm2: str
    poet_id: int
    poet: str  # nickname
    death_year: int | None = None  # the poet's, in lunar Hijri years
    quoting: bool = False  # the poem quotes others (an anthology, a prose work)
    poem: str = ""  # its path
    poet_slug: str = ""


@dataclass(frozen=True)
class Decision:
    status: LinkStatus
    method: str | None = None
    score: float | None = None
    candidate: Candidate | None = None
    candidates: int = 0
    others: tuple[Candidate, ...] = ()  # also_in (linked) or the candidates (ambiguous)
    reversed: bool | None = None  # the option's hemistichs in reverse of the poet's order


def squash(text: str) -> str:
    return text.replace(" ", "")


def _text(c: Candidate) -> tuple[str, str]:
    return squash(c.norm1), squash(c.norm2)


def _age(c: Candidate) -> tuple[bool, int, int, int]:
    """Sort key: the earliest poet first (unknown death years last), then poem and couplet."""
    year = c.death_year if c.death_year and c.death_year > 0 else None
    return (year is None, year or 0, c.poem_id, c.index)


def _same(c: Candidate, lead: Candidate, threshold: float) -> bool:
    """One couplet: the same text, or edition variants scoring at least the threshold."""
    from rapidfuzz import fuzz

    return _text(c) == _text(lead) or fuzz.ratio(f"{c.norm1} {c.norm2}", f"{lead.norm1} {lead.norm2}") >= threshold


def _pick(found: list[tuple[Candidate, float]], own_poet: str | None, threshold: float,
          how: Callable[[Candidate], tuple[str, bool | None]] = lambda c: ("exact", False)) -> Decision:
    """One decision from the candidates scoring at least the threshold (`how` gives a chosen
    candidate's method and order)."""
    mine = [(c, s) for c, s in found if own_poet and (c.poet == own_poet or own_poet in c.poet)]
    sources = mine or [(c, s) for c, s in found if not c.quoting]
    if not sources:  # only works that quote others hold it: their author is not its poet
        best, score = min(found, key=lambda cs: (-cs[1], _age(cs[0])))
        return Decision("unlinked", "quoted", round(score, 1), best, len(found),
                        tuple(c for c, _ in found if c is not best))
    ranked = sorted(sources, key=lambda cs: (-cs[1], _age(cs[0])))
    lead, top = ranked[0]
    if any(c.poet_id != lead.poet_id and not _same(c, lead, threshold) for c, s in ranked if s >= top - TIE):
        # the best candidates are really different couplets, by different poets
        return Decision("ambiguous", how(lead)[0], round(top, 1), lead, len(found),
                        tuple(c for c, _ in ranked[1:]))
    best, score = min(((c, s) for c, s in ranked if _same(c, lead, threshold)), key=lambda cs: _age(cs[0]))
    method, reversed_ = how(best)
    return Decision("linked", method, round(score, 1), best, len(found),
                    tuple(c for c, _ in found if c is not best and _same(c, best, threshold)), reversed_)


def decide(a: str, b: str, candidates: list[Candidate], *, own_poet: str | None = None,
           threshold: float = FUZZY_THRESHOLD) -> Decision:
    """a, b: the option's hemistichs as corpus keys (see text.corpus_key)."""
    from rapidfuzz import fuzz

    if not (a or b) or not candidates:
        return Decision("unlinked")
    ka, kb = squash(a), squash(b)
    whole, whole_swapped = f"{a} {b}", f"{b} {a}"
    scored: list[tuple[Candidate, float]] = []
    orders: dict[int, bool | None] = {}
    for c in candidates:
        if _text(c) in ((ka, kb), (kb, ka)):
            scored.append((c, 100.0))
            orders[c.couplet_id] = _text(c) == (kb, ka)
            continue
        theirs = f"{c.norm1} {c.norm2}"
        straight, swapped = fuzz.ratio(whole, theirs), fuzz.ratio(whole_swapped, theirs)
        scored.append((c, max(straight, swapped)))
        orders[c.couplet_id] = (None if abs(straight - swapped) < ORDER_MARGIN else swapped > straight)

    def how(c: Candidate) -> tuple[str, bool | None]:
        if _text(c) == (ka, kb):
            return "exact", False
        if _text(c) == (kb, ka):
            return "swapped", True
        return "fuzzy", orders[c.couplet_id]

    pool = [(c, s) for c, s in scored if s >= threshold]
    if pool:
        return _pick(pool, own_poet, threshold, how)
    first = [c for c in candidates if ka and ka in _text(c)]
    second = [c for c in candidates if kb and kb in _text(c)]
    if first and second and not {c.couplet_id for c in first} & {c.couplet_id for c in second}:
        # the halves of two different couplets (a book option joining two)
        return _pick([(c, 100.0) for c in first], own_poet, threshold, lambda c: ("split", None))
    half = []
    for c in first + second:
        k1, k2 = _text(c)
        mine, other = (ka, b) if c in first else (kb, a)
        rest = c.norm2 if k1 == mine else c.norm1
        half.append((c, float(fuzz.ratio(other, rest))))
    if half:
        return _pick(half, own_poet, threshold, lambda c: ("one_hemistich", None))
    return Decision("unlinked", candidates=len(candidates))
