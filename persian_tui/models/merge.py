"""Three-way merge of question edits: what an editor saves is compared with the version it
loaded (the base) and the version now stored (theirs), field by field. A field only one side
changed takes that side's value; a field both changed to different values is a conflict that
the person saving chooses (never a silent revert of someone else's change)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from .bank import Option, Question

# the question's own editable fields, then each option's three (as the editor names them)
QUESTION_FIELDS = ("stem", "key", "status", "explanation", "category", "poet", "source_name",
                   "source_id", "tags")
OPTION_PARTS = (("mesra1", "hemistich 1"), ("mesra2", "hemistich 2"), ("poet", "poet"))
# a flat field's value: a text, the key, the tags (a tuple, so comparable), or None
Value = str | int | tuple[str, ...] | None


def fields(q: Question) -> dict[str, Value]:
    """The editable fields of a question, flat: "stem", "key", … "option 2 hemistich 1" …"""
    out: dict[str, Value] = {f: getattr(q, f) for f in QUESTION_FIELDS}
    out["tags"] = tuple(q.tags)
    by_pos = {o.position: o for o in q.options}
    for pos in range(1, 5):
        o = by_pos.get(pos)
        for attr, name in OPTION_PARTS:
            out[f"option {pos} {name}"] = getattr(o, attr) if o else None
    return out


def with_fields(q: Question, values: Mapping[str, Value]) -> Question:
    """``q`` with these flat fields (as ``fields`` names them) set."""
    # Question's own fields, each of the type `fields` gave it (mypy cannot follow **kwargs by name)
    own: dict[str, Any] = {f: values[f] for f in QUESTION_FIELDS if f in values}
    if "tags" in own:
        own["tags"] = list(own["tags"])
    by_pos = {o.position: o for o in q.options}
    options = []
    for pos in range(1, 5):
        o = by_pos.get(pos) or Option(pos, "", "")
        m1, m2, poet = (cast("str | None", values.get(f"option {pos} {name}", getattr(o, attr)))
                        for attr, name in OPTION_PARTS)
        options.append(Option(pos, m1 or "", m2 or "", poet))
    return dataclasses.replace(q, options=options, **own)


@dataclass(frozen=True)
class Conflict:
    """A field both sides changed, to different values."""

    field: str
    base: Value
    mine: Value
    theirs: Value


@dataclass
class Merged:
    """The merge's outcome: the question to save (their changes kept where only they changed
    a field), the fields kept from theirs, and the conflicts left to choose."""

    question: Question
    kept: list[str]
    conflicts: list[Conflict]


def merge(base: Question, mine: Question, theirs: Question) -> Merged:
    """Merge ``mine`` (the editor's, made from ``base``) with ``theirs`` (stored since)."""
    b, m, t = fields(base), fields(mine), fields(theirs)
    values: dict[str, Value] = dict(m)
    kept: list[str] = []
    conflicts: list[Conflict] = []
    for f in b:
        mine_changed, theirs_changed = m[f] != b[f], t[f] != b[f]
        if theirs_changed and not mine_changed:
            values[f] = t[f]
            kept.append(f)
        elif theirs_changed and mine_changed and m[f] != t[f]:
            conflicts.append(Conflict(f, b[f], m[f], t[f]))
    merged = with_fields(dataclasses.replace(mine, updated_at=theirs.updated_at), values)
    return Merged(merged, kept, conflicts)


def shown(value: object) -> str:
    """A field's value as the conflict dialog shows it."""
    if value is None or value == "" or value == ():
        return "(empty)"
    if isinstance(value, tuple):
        return ", ".join(map(str, value))
    return str(value)
