"""Breakdown values from corpus provenance: the poet, form and metre of each question's key
couplet, and of the question where all four options agree (else "(mixed)"). Options without
a link count as "(unlinked)" (so do links of one hemistich or of halves of two couplets: the option
is not one couplet of that poem); a question with any unlinked option is "(unlinked)" too."""

from __future__ import annotations

import re

from ..models import OptionLink, Question

DIMENSIONS = ("key poet", "key form", "key metre", "question poet", "question form", "question metre")
UNLINKED = "(unlinked)"
MIXED = "(mixed)"
NONE = "(none)"
_METRE_NAME = re.compile(r"\(([^()]+)\)\s*$")


def metre_name(metre: str | None) -> str | None:
    """The metre's name (e.g. هزج مثمن سالم) when the export gives it in brackets."""
    if not metre:
        return metre
    m = _METRE_NAME.search(metre)
    return m.group(1).strip() if m else metre


def _value(link: OptionLink | None, what: str) -> str:
    c = link.couplet if link is not None else None
    if link is None or c is None or not link.whole:  # one hemistich, or halves of two couplets: not one poem
        return UNLINKED
    value = {"poet": c.poet, "form": c.form, "metre": metre_name(c.metre)}[what]
    return value or NONE


def provenance_values(questions: list[Question], links: dict[str, dict[int, OptionLink]]) -> dict[str, list[str]]:
    """dimension -> one value per question (in order)."""
    out: dict[str, list[str]] = {d: [] for d in DIMENSIONS}
    for q in questions:
        ql = links.get(q.uid, {})
        for what in ("poet", "form", "metre"):
            out[f"key {what}"].append(_value(ql.get(q.key), what) if q.key else UNLINKED)
            values = {_value(ql.get(o.position), what) for o in q.options}
            if UNLINKED in values:
                out[f"question {what}"].append(UNLINKED)
            else:
                out[f"question {what}"].append(values.pop() if len(values) == 1 else MIXED)
    return out
