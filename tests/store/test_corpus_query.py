"""FTS5 query text for the corpus (store/corpus_query.py): words typed apart or together, the
repairs of a PDF's damaged «لا»."""

from __future__ import annotations

import json

from factories import MINI, copy_mini, ganjoor_poem

from persian_tui.corpus.ganjoor import import_corpus


def test_search_joins_words_typed_apart_and_ignores_the_form_case(store):

    from persian_tui.store.corpus_query import MAX_JOINS, spellings_query

    import_corpus(store, MINI)
    khayyam = {"/khayyam/robaee/sh1"}
    # the corpus has می‌گذرد (ZWNJ); a space typed instead still finds it, alone or among other words
    for query in ("می گذرد", "می‌گذرد", "عمر عجب می گذرد", "قافله عمر"):
        assert {c.poem for c in store.corpus.search_couplets(query)} == khayyam, query
    assert {c.poem for c in store.corpus.search_couplets("مشکل ها")} == {"/hafez/ghazal/sh1"}
    assert store.corpus.search_couplets("مشکل ها کجا") == []  # every word must still occur
    assert store.corpus.search_couplets("", form="ghazal") == store.corpus.search_couplets("", form="Ghazal") != []
    # the query stays small however long the search
    assert spellings_query(["a b".split()[0]]) == '"a"'
    assert spellings_query(list("abcdefghij")).count(" OR ") == 2**MAX_JOINS - 1


def test_a_word_the_corpus_writes_apart_is_found_typed_as_one(store, tmp_path):
    root = copy_mini(tmp_path)
    f = root / "poets" / "hafez" / "ghazal" / "apart.json"
    poem = ganjoor_poem("/hafez/ghazal/apart", "درس ها می داد بی نطق و کلام", "دوختند این ریسمان ها را به هم")
    f.write_text(json.dumps(poem, ensure_ascii=False))
    import_corpus(store, root)
    for query in ("ریسمانها", "ریسمان ها", "ریسمان‌ها", "درسها ریسمانها", "میداد"):
        assert [c.poem for c in store.corpus.search_couplets(query)] == ["/hafez/ghazal/apart"], query
    # the halves must be neighbours: a phrase, not two words anywhere in the couplet
    assert store.corpus.search_couplets("کلامدرس") == []
    assert store.corpus.search_couplets("", form="nothing") == []


def test_pdf_repairs():
    from persian_tui.store.corpus_query import pdf_repairs

    assert pdf_repairs(["انقالب", "ساالری", "الله", "دل"]) == {"انقالب": ["انقلاب"], "ساالری": ["سالاری"]}
