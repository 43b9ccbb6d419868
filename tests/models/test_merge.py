"""Three-way merge of question edits (models/merge.py): what only the other side changed is
kept, a field both changed differently is a conflict."""

from __future__ import annotations

import dataclasses

from factories import make_question

from persian_tui.models import Option
from persian_tui.models.merge import fields, merge, with_fields


def edited(q, **kw):
    return dataclasses.replace(q, **kw)


def test_merge_keeps_their_fields_and_finds_conflicts():
    base = make_question("q-1", key=1, stem="")
    theirs = edited(base, stem="کدام بیت", options=[Option(1, "الف", "ب"), *base.options[1:]])
    mine = edited(base, key=3)
    out = merge(base, mine, theirs)
    assert out.conflicts == []
    assert (out.question.stem, out.question.key) == ("کدام بیت", 3)
    assert out.question.options[0].mesra1 == "الف"
    assert sorted(out.kept) == ["option 1 hemistich 1", "option 1 hemistich 2", "stem"]
    both = merge(base, edited(base, stem="mine", key=2), edited(base, stem="theirs", key=2))
    assert [(c.field, c.mine, c.theirs) for c in both.conflicts] == [("stem", "mine", "theirs")]
    assert both.question.key == 2  # the same change on both sides is no conflict


def test_fields_round_trip():
    q = make_question("q-1", tags=["a", "b"], category="عرفانی")
    assert fields(with_fields(q, fields(q))) == fields(q)
