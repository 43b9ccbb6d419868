"""Concurrent edits of one question merge field by field (merge.py, CurationRepo.save_edit): what only
the other side changed is kept, a field both changed differently is a conflict, never a revert."""

from __future__ import annotations

import dataclasses

import pytest
from factories import make_question

from persian_tui.models import Option
from persian_tui.models.merge import fields, merge, with_fields
from persian_tui.store import EditConflict, Store


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


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "merge.db"
    with Store(path) as s:
        s.questions.add_questions([make_question("q-1", key=1, stem="")])
    return path


def test_the_second_save_keeps_the_first_saves_other_fields(db):
    with Store(db) as alice, Store(db) as bob:
        loaded = alice.questions.get_question("q-1")  # Alice opens the editor
        bob.curation.update_question(edited(bob.questions.get_question("q-1"), stem="ساقه‌ی باب"), "bob")
        saved, changes, kept = alice.curation.save_edit(edited(loaded, key=3), "alice", loaded)
        assert kept == ["stem"] and list(changes) == ["key"]
        q = alice.questions.get_question("q-1")
    assert (q.stem, q.key) == ("ساقه‌ی باب", 3)  # Bob's stem is not reverted (ZWNJ kept)


def test_a_real_conflict_writes_nothing(db):
    with Store(db) as alice, Store(db) as bob:
        loaded = alice.questions.get_question("q-1")
        bob.curation.update_question(edited(bob.questions.get_question("q-1"), stem="bob", category="x"), "bob")
        with pytest.raises(EditConflict) as e:
            alice.curation.save_edit(edited(loaded, stem="alice", key=2), "alice", loaded)
        assert [(c.field, c.mine, c.theirs) for c in e.value.conflicts] == [("stem", "alice", "bob")]
        assert e.value.merged.category == "x" and e.value.merged.key == 2
        q = alice.questions.get_question("q-1")
        assert (q.stem, q.key, q.category) == ("bob", 1, "x")
        assert len(alice.curation.revisions("q-1")) == 1  # Bob's only
        # choosing theirs for the stem, saved against the version read with the conflict
        chosen = with_fields(e.value.merged, {"stem": "bob"})
        alice.curation.save_edit(chosen, "alice", e.value.theirs)
        q = alice.questions.get_question("q-1")
    assert (q.stem, q.key, q.category) == ("bob", 2, "x")


def test_an_adjudication_meanwhile_is_kept(db):
    with Store(db) as alice, Store(db) as maryam:
        loaded = alice.questions.get_question("q-1")
        maryam.curation.adjudicate("q-1", "maryam", "key", key=2, reason="بیت دوم")
        alice.curation.save_edit(edited(loaded, stem="کدام بیت"), "alice", loaded)
        q = alice.questions.get_question("q-1")
    assert (q.stem, q.key, q.status) == ("کدام بیت", 2, "curated")
