"""Hostile corpus files: each is skipped with one line naming it and the reason, and never
stops the import of the others; re-import stays idempotent."""

from __future__ import annotations

import json

import pytest
from factories import BABA, HAFEZ_1, HAFEZ_2, MINI, ROBAEE, SAADI, copy_mini, ganjoor_poem, make_question

from persian_tui.corpus.ganjoor import import_corpus


@pytest.mark.parametrize("content, reason", [
    # a lone surrogate is valid JSON but not text: it cannot be stored (UTF-8) or shown
    (b'{"FullUrl": "/hafez/x", "Title": "\\ud800", "Verses": []}', "a lone surrogate \\ud800 (not a character)"),
    (b'{"FullUrl": "/hafez/x", "Verses": [{"Position": "Right", "Text": "a \\udfff", "CoupletIndex": 0}]}',
     "a lone surrogate \\udfff (not a character)"),
    # numbers SQLite cannot store
    (json.dumps(ganjoor_poem("/hafez/x", "a", "b") | {"Id": 2**70}).encode(), "'Id' must be"),
    (json.dumps({"FullUrl": "/hafez/x", "Verses": [{"Position": "Right", "Text": "a",
                                                     "CoupletIndex": 10**30}]}).encode(), "a number with 31 digits"),
    # a "hemistich" of 100,000 letters is not one
    (json.dumps(ganjoor_poem("/hafez/x", "ا" * 100_000, "b")).encode(), "verse 1 is longer than"),
], ids=["surrogate-title", "surrogate-verse", "huge-id", "huge-couplet-index", "huge-hemistich"])
def test_hostile_poem_files_are_skipped(store, tmp_path, content, reason):
    root = copy_mini(tmp_path)
    bad = root / "poets" / "hafez" / "ghazal" / "bad.json"
    bad.write_bytes(content)
    p = import_corpus(store, root)
    assert (p.new, p.skipped) == (7, 1)
    assert len(p.errors) == 1 and str(bad) in p.errors[0] and reason in p.errors[0]
    assert "\n" not in p.errors[0]


def test_a_byte_order_mark_is_accepted(store, tmp_path):
    root = copy_mini(tmp_path)
    f = root / "poets" / "hafez" / "ghazal" / "bom.json"
    f.write_bytes(b"\xef\xbb\xbf" + json.dumps(ganjoor_poem("/hafez/ghazal/bom", "الف ب", "ج د"),
                                                  ensure_ascii=False).encode())
    p = import_corpus(store, root)
    assert (p.new, p.skipped) == (8, 0)
    assert store.corpus.couplet_at("/hafez/ghazal/bom", 0).mesra1 == "الف ب"


def test_duplicate_poem_paths_keep_the_first_file_and_stay_idempotent(store, tmp_path):
    root = copy_mini(tmp_path)
    twin = root / "poets" / "hafez" / "ghazal" / "sh1x.json"
    twin.write_text(json.dumps(ganjoor_poem("/hafez/ghazal/sh1", "نسخه‌ای دیگر", "از همان غزل"), ensure_ascii=False))
    p = import_corpus(store, root)
    assert (p.new, p.updated, p.skipped) == (7, 0, 1)
    assert len(p.errors) == 1 and "sh1x.json" in p.errors[0] and "sh1.json" in p.errors[0]
    assert "/hafez/ghazal/sh1" in p.errors[0]
    again = import_corpus(store, root)
    assert (again.new, again.updated, again.unchanged, again.skipped) == (0, 0, 7, 1)
    assert store.corpus.search_couplets("نسخه‌ای دیگر") == []  # the second file never replaced the first


def test_a_folder_without_poet_json_is_named(store, tmp_path):
    root = copy_mini(tmp_path)
    stray = root / "poets" / "nopoet" / "cat"
    stray.mkdir(parents=True)
    (stray / "sh1.json").write_text(json.dumps(ganjoor_poem("/nopoet/cat/sh1", "a", "b")))
    p = import_corpus(store, root)
    assert p.new == 7
    assert any("nopoet" in e and "no poet.json" in e for e in p.errors)


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


def test_an_edit_during_a_link_run_keeps_the_editors_link(store, tmp_path):
    """`corpus link` reads the options, matches them (seconds on a large bank), then writes.
    An option edited (and linked on save) by another process meanwhile must keep its new
    link: the run's result for the old text is dropped, not written over it."""

    from persian_tui.models import Option
    from persian_tui.store import Store

    import_corpus(store, MINI)
    store.questions.add_questions([make_question("q-e", couplets=[HAFEZ_1, HAFEZ_2, SAADI, BABA])])
    real = store.links.link_option
    edited = []

    def link_option(m1, m2, **kw):  # the other process edits option 1 while this run matches
        if not edited:
            with Store(store.path) as other:
                q = other.questions.get_question("q-e")
                q.options[0] = Option(1, *ROBAEE, poet="خیام")
                other.curation.update_question(q, "editor")
            edited.append(1)
        return real(m1, m2, **kw)

    store.links.link_option = link_option
    store.links.link_questions(force=True)
    link = store.links.links(["q-e"])["q-e"][1]
    assert (link.status, link.couplet.poet) == ("linked", "خیام")
    assert link.couplet.mesra1 == ROBAEE[0]


def test_progress_is_not_repeated_in_a_log(tmp_path, capsys):

    from persian_tui.cli import main

    assert main(["--db", str(tmp_path / "p.db"), "corpus", "import", str(MINI)]) == 0
    err = capsys.readouterr().err  # not a terminal: one line per update, the last one once
    assert err.count("7/7") == 1


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
