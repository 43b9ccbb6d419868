"""Questions and their options (store/questions.py)."""

import sqlite3

import pytest
from factories import make_question

from persian_tui.access import solo
from persian_tui.bank.search import BankSearch
from persian_tui.store.rows import QUESTION_FIELDS, prepare

ZWNJ = "\u200c"


def test_prepared_row_has_every_question_field():
    """The row written (rows.QuestionValues, spelled out) holds the columns read back (QUESTION_FIELDS)."""
    row = prepare(make_question("q-1")).row
    assert list(row) == [*QUESTION_FIELDS, "fingerprint", "search_text"]


def test_stored_text_is_exact(store):
    couplets = [(f"می{ZWNJ}رود خُدا", "دلِ ما كجاست"), ("ب ۱۲", "ج"), ("د", "ه"), ("و", "ز")]
    store.questions.add_questions([make_question("q-1", couplets)])
    q = store.questions.get_question("q-1")
    assert (q.options[0].mesra1, q.options[0].mesra2) == couplets[0]
    # search is normalized: Persian ک finds the Arabic ك that was stored, diacritics ignored
    assert BankSearch(store).uids("کجاست", who=solo()) == ["q-1"]
    assert BankSearch(store).uids("خدا", who=solo()) == ["q-1"]


def test_add_questions_is_all_or_nothing(store):
    bad = make_question("q-2")
    bad.key = 7  # violates the CHECK constraint
    with pytest.raises(sqlite3.IntegrityError):
        store.questions.add_questions([make_question("q-1"), bad])
    assert store.questions.counts().total == 0


def test_bank_rows_and_counts(store):
    store.questions.add_questions([
        make_question("q-1", category="عشق"),
        make_question("q-2", category="قناعت", status="draft", key=None),
    ])
    # the given order, missing left out
    assert [r.uid for r in store.questions.rows_for(["q-2", "q-1", "q-9"])] == ["q-2", "q-1"]
    row = store.questions.rows_for(["q-1"])[0]
    assert row.first_couplet.startswith("طریق عشق") and row.labels == 0
    counts = store.questions.counts()
    assert counts.total == 2 and counts.by_status == {"draft": 1, "ready": 1}
    assert counts.categories == ["عشق", "قناعت"]
