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


def test_a_hemistich_token_is_the_key_the_triggers_index():
    """corpus_query.hemistich_token is the one FTS5 token migration 20's triggers index for a
    hemistich (its first and last KEY_ENDS letters without spaces), for short hemistichs and
    for one holding a character FTS5 splits at (then its longest piece, which the index holds)."""
    import sqlite3

    from persian_tui.store.corpus_query import hemistich_token
    from persian_tui.store.schema import MIGRATIONS

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE corpus_couplets (id INTEGER PRIMARY KEY, norm1 TEXT, norm2 TEXT)")
    for statement in MIGRATIONS[19]:
        conn.execute(statement)
    texts = ["دل", "ای دل", "الا یا ایها الساقی ادر کاسا و ناولها", "که عشق آسان نمود اول", "یک_دو سه چهار پنج"]
    for t in texts:
        conn.execute("INSERT INTO corpus_couplets (norm1, norm2) VALUES (?, '')", (t,))
    for i, t in enumerate(texts, 1):
        token = hemistich_token(t)
        assert token and i in [r[0] for r in conn.execute(
            "SELECT rowid FROM corpus_keys WHERE corpus_keys MATCH ?", (f'"{token}"',))], t
    assert hemistich_token("") == "" and hemistich_token("الا یا ایها الساقی ادر کاسا") == "الای" + "کاسا"
