"""The bank's incremental search (bank/search.py): words, statuses and categories, writes of other
connections, a word typed with ZWNJ, a space or nothing between its parts."""

import pytest
from factories import couplets, make_question

from persian_tui.access import solo
from persian_tui.bank.search import BankSearch
from persian_tui.store import Store

ADMIN = solo()


def test_search_filters_by_words_status_and_category(store):
    store.questions.add_questions([
        make_question("q-1", category="عشق"),
        make_question("q-2", category="قناعت", status="draft", key=None,
                      stem="كدام بيت متفاوت است؟"),
    ])
    search = BankSearch(store)
    for text, kw, found in [("", {}, ["q-1", "q-2"]), ("کدام", {}, ["q-2"]), ("عشق مجنون", {}, ["q-1", "q-2"]),
                            ("", {"status": "draft"}, ["q-2"]), ("", {"category": "عشق"}, ["q-1"]),
                            ("نیست‌در‌بانک", {}, [])]:
        assert search.uids(text, who=ADMIN, **kw) == found, (text, kw)
    assert search.uids("کدام بیت", who=ADMIN) == ["q-2"]  # Persian letters find the Arabic-letter stem


def test_search_sees_writes_of_this_and_other_connections(store, tmp_path):
    search = BankSearch(store)
    assert search.uids(who=ADMIN) == []
    store.questions.add_questions([make_question("q-1")])
    assert search.uids(who=ADMIN) == ["q-1"]
    with Store(store.path) as other:
        other.questions.add_questions([make_question("q-2")])
    assert search.uids(who=ADMIN) == ["q-1", "q-2"]


def test_zwnj_space_or_nothing_between_the_parts_of_a_word_all_match(store):
    zwnj = "\u200c"
    couplets = [(f"ساقی به می{zwnj}خانه رو", "بیفتد آن که در این راه با شتاب رود"),
                ("در می خانه گشاده است", "بالله از آفتاب فلک خوبتر شوی"),
                ("برو به میخانه ای دل", "فلک به شعشعه آفتاب، شانه کند"),
                ("فرزانه درآید به پری خانه مقصود", "هر کس که در این بادیه دیوانه عشق است")]
    store.questions.add_questions([make_question(f"q-{i}", [couplets[i]] + couplets[:i] + couplets[i + 1:])
                                   for i in range(3)])
    search = BankSearch(store)
    for query in (f"می{zwnj}خانه", "میخانه", "می خانه"):
        assert search.uids(query, who=ADMIN) == ["q-0", "q-1", "q-2"], query
    stored = store.questions.get_question("q-0").options[0].mesra1
    assert zwnj in stored  # only the search copy is compacted


def test_an_annotators_search_matches_only_what_an_annotator_sees(tmp_path):
    """One search index served everyone: an annotator typing a poet's name learnt which
    questions (and, one word at a time, which couplets) are that poet's, which the label screen
    hides on purpose. A blind person's search runs over the couplets, stem, ids, category and
    tags only; the poet: and form: facets (corpus links) are refused; reviewers keep all."""
    from dataclasses import replace

    from persian_tui.access import AccessDenied, acting
    from persian_tui.models.users import check_role

    with Store(tmp_path / "b.db") as store:
        q = make_question("q-1", category="عشق", poet="حافظ", source_page=17, tags=["غزل"])
        q = replace(q, options=[replace(o, poet="سعدی" if o.position == 2 else None) for o in q.options])
        store.questions.add_questions([q, make_question("q-2", couplets(2), category="قناعت")])
        for name, role in (("boss", "admin"), ("ali", "annotator"), ("sara", "reviewer")):
            store.users.add(name, check_role(role))
        search = BankSearch(store)
        ali, sara = acting(store, "ali"), acting(store, "sara")
        for poet in ("حافظ", "سعدی", "سعدي"):
            assert search.uids(poet, who=sara) == ["q-1"]
            assert search.uids(poet, who=ali) == [], poet
        first = q.options[0].mesra1
        for seen in (first, "q-1", "عشق", "غزل"):
            assert search.uids(seen, who=ali) == ["q-1"], seen
        for facet in ("poet:حافظ", "form:Ghazal عشق"):
            with pytest.raises(AccessDenied, match="^ali is an annotator: .* is for reviewers and admins$"):
                search.uids(facet, who=ali)
        with pytest.raises(AccessDenied):
            search.uids("", who=ali, status="ready")
        store.labels.add_label("q-2", "ali", 1, note="یادداشت‌علی")
        store.labels.add_label("q-1", "sara", 1, note="یادداشت سارا")
        assert search.uids("یادداشت", who=ali) == ["q-2"]  # their own note, never a colleague's
        assert search.uids("", who=sara, status="ready") == ["q-1", "q-2"]
