"""Authoring with edit history, concurrent edits merged on save, and adjudication
(store/curation.py)."""

from __future__ import annotations

import dataclasses

import pytest
from factories import make_question

from persian_tui.models.merge import with_fields
from persian_tui.store import EditConflict, Store


def edited(q, **kw):
    return dataclasses.replace(q, **kw)


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


@pytest.fixture
def bank(store):
    store.questions.add_questions([make_question(f"q-{i}", category="عشق" if i % 2 else "قناعت") for i in range(1, 6)])
    return store


def test_authoring_keeps_revisions(store):
    q = store.curation.create_question(make_question("", status="draft", key=None), "maryam")
    assert q.uid.startswith("q-") and store.questions.get_question(q.uid).author == "maryam"
    q.key, q.status = 3, "ready"
    q.options[0].mesra2 = "بیفتد آن که در این ره به شتاب رود"
    changes = store.curation.update_question(q, "reza")
    assert changes["key"] == [None, 3] and "options" in changes
    assert store.curation.update_question(q, "reza") == {}  # no change, no revision
    revs = store.curation.revisions(q.uid)
    assert [r.author for r in revs] == ["maryam", "reza"]
    assert store.questions.get_question(q.uid).options[0].mesra2.endswith("به شتاب رود")
    with pytest.raises(ValueError, match="needs a key"):
        q.key = None
        store.curation.update_question(q, "reza")


def test_adjudication_sets_key_and_status(bank):
    a = bank.curation.adjudicate("q-1", "judge", "key", key=4, reason="گزینه ۴ معنای مقابل دارد")
    q = bank.questions.get_question("q-1")
    assert (q.key, q.status, a.decision) == (4, "curated", "key")
    bank.curation.adjudicate("q-2", "judge", "retire", reason="دو بیت یک معنا ندارند")
    assert bank.questions.get_question("q-2").status == "retired"
    bank.curation.adjudicate("q-3", "judge", "accept")
    assert bank.questions.get_question("q-3").status == "curated"
    assert [x.decision for x in bank.curation.adjudications()] == ["key", "retire", "accept"]
    with pytest.raises(ValueError):
        bank.curation.adjudicate("q-4", "judge", "key", key=9)
    assert bank.questions.get_question("q-4").status == "ready"


def test_a_merge_never_saves_one_couplet_in_two_options(db):
    """Two stale edits, each putting the same couplet in another option: merged field by field,
    they would save a question with a repeated couplet; refused instead."""
    from persian_tui.models import Option

    def with_option(q, pos, m1, m2):
        return edited(q, options=[Option(pos, m1, m2) if o.position == pos else o for o in q.options])

    with Store(db) as alice, Store(db) as bob:
        loaded = alice.questions.get_question("q-1")
        bob.curation.update_question(with_option(bob.questions.get_question("q-1"), 2, "بیت نو یک", "بیت نو دو"),
                                     "bob")
        with pytest.raises(ValueError, match="the same"):
            alice.curation.save_edit(with_option(loaded, 3, "بیت نو یک", "بیت نو دو"), "alice", loaded)
        q = alice.questions.get_question("q-1")
    assert [o.mesra1 for o in q.options].count("بیت نو یک") == 1
