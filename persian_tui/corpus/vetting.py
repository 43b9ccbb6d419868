"""Vetting candidates (admins only, checked here): accepting one makes a draft question, origin
`fresh`, with the candidate's couplets as its options, their corpus links as its provenance and
the intended outlier as its key (labelled blind like any other draft); rejecting one keeps the
reason. The acceptance rate and the reasons are counted (store.candidates.counts)."""

from __future__ import annotations

from ..access import Access
from ..models import Option, Question
from ..models.candidates import MAX_REASON, Candidate, couplet_link
from ..models.keys import new_uid
from ..store import Store

STEM = "کدام بیت از نظر معنا با سه بیت دیگر متفاوت است؟"
SOURCE = "corpus propose"


class VettingError(Exception):
    """A candidate that is not there or no longer proposed, or a bad reason: one line."""


def _proposed(store: Store, candidate_id: int) -> Candidate:
    c = store.candidates.get(candidate_id)
    if c is None:
        raise VettingError(f"no candidate {candidate_id} (`persian-tui candidates list` shows them)")
    if c.state != "proposed":
        by = f" by {c.decided_by}" if c.decided_by else ""
        raise VettingError(f"candidate {candidate_id} was already {c.state}{by}")
    return c


def draft(c: Candidate) -> Question:
    """The draft question a candidate becomes (what the editor opens before accepting)."""
    return Question(
        uid="", options=[Option(i, x.mesra1, x.mesra2, x.poet) for i, x in enumerate(c.couplets, 1)],
        stem=STEM, key=c.outlier, status="draft", source_name=SOURCE, source_id=str(c.id),
        explanation=None, tags=["fresh"], origin="fresh")


def accept(store: Store, who: Access, candidate_id: int, edited: Question | None = None) -> Question:
    """Accept the candidate: its draft (or `edited`, the draft as the admin changed it) saved as
    a new question whose options keep their corpus links where their text is the couplet's.
    The candidate is claimed first (of two admins, one wins); if the question cannot be written
    the claim is undone."""
    who.require("propose")
    c = _proposed(store, candidate_id)
    q = edited or draft(c)
    q.uid = q.uid or new_uid()
    q.origin, q.status, q.source_name, q.source_id = "fresh", "draft", SOURCE, str(c.id)
    problems = q.problems()
    if problems:
        raise VettingError(f"candidate {candidate_id}: " + "; ".join(problems))
    if not store.candidates.decide(candidate_id, "accepted", who.user, question_uid=q.uid):
        raise VettingError(f"candidate {candidate_id} was decided meanwhile by someone else")
    try:
        saved = store.curation.create_question(q, who.user)
    except Exception:
        store.candidates.reopen(candidate_id, q.uid)
        raise
    for o, x in zip(sorted(saved.options, key=lambda o: o.position), c.couplets):
        if (o.mesra1, o.mesra2) == (x.mesra1, x.mesra2):  # an edited option is linked by its text
            store.links.choose_link(saved.uid, o.position, x.poem, x.couplet)
    return saved


def reject(store: Store, who: Access, candidate_id: int, reason: str) -> Candidate:
    """Reject the candidate with a reason (one line, at most MAX_REASON characters)."""
    who.require("propose")
    reason = " ".join((reason or "").split())
    if not reason:
        raise VettingError("a rejection needs a reason (--reason TEXT)")
    if len(reason) > MAX_REASON:
        raise VettingError(f"a reason is at most {MAX_REASON} characters (got {len(reason)})")
    _proposed(store, candidate_id)
    if not store.candidates.decide(candidate_id, "rejected", who.user, reason=reason):
        raise VettingError(f"candidate {candidate_id} was decided meanwhile by someone else")
    c = store.candidates.get(candidate_id)
    assert c is not None
    return c


def provenance(c: Candidate) -> list[str]:
    """One line per couplet: position, poet, poem and couplet, link (outlier marked)."""
    return [f"{i}{'*' if i == c.outlier else ' '} {x.poet} · {x.title} · couplet {x.couplet + 1} · {couplet_link(x)}"
            for i, x in enumerate(c.couplets, 1)]
