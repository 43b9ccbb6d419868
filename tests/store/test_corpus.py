"""The corpus tables and their searches (store/corpus.py)."""

from __future__ import annotations

import sqlite3

from factories import HAFEZ_1, HAFEZ_2, SAADI, make_question


def test_fts5_is_available():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")


def test_search_is_normalized_and_zwnj_insensitive(corpus):
    # ZWNJ or none, Arabic ي/ك, diacritics: all the same word
    for query in ("میگذرد", "می‌گذرد", "مي‌گذرد"):
        assert {c.poem for c in corpus.corpus.search_couplets(query)} == {"/khayyam/robaee/sh1"}
    assert len(corpus.corpus.search_couplets("یک نفس", poet="attar")) == 2
    assert len(corpus.corpus.search_couplets("یک نفس", poet="خیام")) == 2
    assert {c.poem for c in corpus.corpus.search_couplets("", form="Ghazal")} == {"/hafez/ghazal/sh1",
                                                                                "/hafez/ghazal/sh2"}
    assert {c.poem for c in corpus.corpus.search_couplets("", metre="متقارب")} == {"/saadi/golestan/sh10"}
    assert corpus.corpus.search_couplets("کجا عشق") == []  # every word must occur in one couplet
    # the index and a scan agree
    for q in ("کجا", "عشق", "آفریدند پریشان", '"OR'):
        assert corpus.corpus.search_couplets(q) == corpus.corpus.search_couplets(q, scan=True)


def test_poet_filters_accept_any_part_of_a_name_or_the_slug(quoting):
    for poet in ("حافظ", "hafez", "HAFEZ", "حاف"):
        assert {c.poem for c in quoting.corpus.search_couplets("", poet=poet)} == {"/hafez/ghazal/sh1",
                                                                                   "/hafez/ghazal/sh2"}
    # part of the full name (حافظ شیرازی, سعدی شیرازی)
    assert {c.poet_slug for c in quoting.corpus.search_couplets("", poet="شیرازی")} == {"hafez", "saadi"}
    assert {c.poet for c in quoting.corpus.search_couplets("", poet="نراقی")} == {"ملا احمد نراقی"}
    assert {c.poet for c in quoting.corpus.search_couplets("", poet="نراقي")} == {"ملا احمد نراقی"}  # Arabic ي
    assert quoting.corpus.search_couplets("", poet="فردوسی") == []
    quoting.questions.add_questions([make_question("q-p", couplets=[HAFEZ_1, HAFEZ_2, SAADI, ("بیتی", "که نیست")])])
    assert quoting.links.provenance_uids(poet="سعد") == {"q-p"}


def test_word_counts_with_a_cap_read_at_most_the_cap(corpus):
    """vocab(cap=N) counts a word's couplets up to N (linking and the similar-couplets pool only
    need to know a word is commoner than their budget), the same as the FTS vocabulary below
    it; words the index cannot search (punctuation only) count 0."""
    words = ["که", "دل", "عشق", "ناولها", "نیست‌در‌پیکره", "؟!"]
    exact = corpus.corpus.vocab(words)
    assert exact["که"] > 2
    for cap in (1, 2, 1000):
        assert corpus.corpus.vocab(words, cap=cap) == {w: min(n, cap) for w, n in exact.items()}
