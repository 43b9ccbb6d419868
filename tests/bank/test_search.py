"""The bank's incremental search (bank/search.py): words, statuses and categories, writes of other
connections, a word typed with ZWNJ, a space or nothing between its parts."""

from factories import make_question

from persian_tui.bank.search import BankSearch
from persian_tui.store import Store


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
        assert search.uids(text, **kw) == found, (text, kw)
    assert search.uids("کدام بیت") == ["q-2"]  # Persian letters find the Arabic-letter stem


def test_search_sees_writes_of_this_and_other_connections(store, tmp_path):
    search = BankSearch(store)
    assert search.uids() == []
    store.questions.add_questions([make_question("q-1")])
    assert search.uids() == ["q-1"]
    with Store(store.path) as other:
        other.questions.add_questions([make_question("q-2")])
    assert search.uids() == ["q-1", "q-2"]


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
        assert search.uids(query) == ["q-0", "q-1", "q-2"], query
    stored = store.questions.get_question("q-0").options[0].mesra1
    assert zwnj in stored  # only the search copy is compacted
