"""Option -> couplet links (store/links.py): exact, swapped, fuzzy and one-hemistich links, the
source poet of a couplet several poems hold, the poet's hemistich order, links kept through edits."""

from __future__ import annotations

from collections import Counter

import pytest
from factories import (
    BABA,
    HAFEZ_1,
    HAFEZ_2,
    MINI,
    OWN,
    ROBAEE,
    SAADI,
    SAMPLE,
    copy_mini,
    make_question,
    run_import,
    write_poem,
    write_poet,
)

from persian_tui.corpus.ganjoor import import_corpus
from persian_tui.models import Option, Question
from persian_tui.store import Store


def test_a_work_quoting_others_never_wins_a_link(quoting):
    d = quoting.links.link_option(*HAFEZ_2)  # Hafez's ghazal and the prose book hold it
    assert (d.status, d.method, d.candidate.poem) == ("linked", "exact", "/hafez/ghazal/sh1")
    assert [(c.poem, c.poet_slug) for c in d.others] == [("/naraghi/meraj/bab1/sh1", "naraghi")]
    # found only in a work that quotes others: not linked, but the place is told
    d = quoting.links.link_option(*OWN)
    assert (d.status, d.method, d.candidate.poem) == ("unlinked", "quoted", "/naraghi/meraj/bab1/sh1")


def test_the_earliest_poet_holding_the_couplet_is_its_source(quoting):
    d = quoting.links.link_option(*HAFEZ_1)  # Hafez (792), a later ghazal (1100), an anthology (1300)
    assert (d.status, d.candidate.poet) == ("linked", "حافظ")
    assert {c.poet_slug for c in d.others} == {"later", "jong"}
    # the anthology is found from the data: most of its couplets are earlier poets'
    flags = dict(quoting.conn.execute("SELECT path, quoting FROM corpus_poems"))
    assert flags["/jong/majmue/sh1"] == 2 and flags["/naraghi/meraj/bab1/sh1"] == 1
    assert flags["/later/ghazal/sh1"] == 0 and flags["/hafez/ghazal/sh1"] == 0
    d = quoting.links.link_option("بیتی که تنها در این جنگ آمده است", "و کسی دیگر آن را نسروده است")
    assert (d.status, d.method) == ("unlinked", "quoted")
    d = quoting.links.link_option("غزلی نو سرودم به یاد شیراز", "که دلم در آن شهر مانده است باز")
    assert (d.status, d.candidate.poet) == ("linked", "شاعر پسین")  # its own couplet


def test_ambiguous_only_for_really_different_couplets(store, tmp_path):
    root = copy_mini(tmp_path)
    write_poet(root, "one", "یکم", 600)
    write_poet(root, "two", "دوم", 700)
    write_poem(root, "one", "a/sh1", [("دل من در هوای روی تو خون شد", "ز هجران تو حالم دگرگون شد")])
    write_poem(root, "two", "a/sh1", [("دل من در هوای کوی تو خون شد", "ز هجران تو کارم دگرگون شد")])
    import_corpus(store, root)
    # the option sits between two variants (each >= 85 and within a point): they are one
    # couplet to each other (ratio >= 85), so the earlier poet's is the source
    d = store.links.link_option("دل من در هوای روی تو خون شد", "ز هجران تو کارم دگرگون شد")
    assert (d.status, d.candidate.poet_slug) == ("linked", "one")
    root2 = copy_mini(tmp_path / "b")
    write_poet(root2, "one", "یکم", 600)
    write_poet(root2, "two", "دوم", 700)
    write_poem(root2, "one", "a/sh1", [("گل آمد و بهار آمد و می باید خورد", "ای دوست بیا که غم نمی باید خورد")])
    write_poem(root2, "two", "a/sh1", [("گل رفت و خزان آمد و نی باید زد", "ای یار برو که دم نمی باید زد")])
    with Store(tmp_path / "b.db") as other:
        import_corpus(other, root2)
        d = other.links.link_option("گل رفت و بهار آمد و می باید زد", "ای دوست برو که غم نمی باید زد")
        if d.status != "unlinked":  # both far from each other: never one of them by chance
            assert d.status == "ambiguous" and {c.poet_slug for c in d.others} <= {"one", "two"}


def test_the_sample_prose_book_never_takes_hafez(store):
    from factories import SAMPLE

    if not SAMPLE.is_dir():
        pytest.skip("../shared/ganjoor-sample is not available")
    import_corpus(store, SAMPLE)
    quoted = store.conn.execute(
        "SELECT COUNT(*) FROM corpus_poems WHERE path LIKE '/naraghi/meraj/%' AND quoting = 0").fetchone()[0]
    assert quoted == 0  # the whole book is listed
    shared = store.conn.execute(
        "SELECT c.mesra1, c.mesra2 FROM corpus_couplets c JOIN corpus_poems p ON p.id = c.poem_id "
        "WHERE p.path LIKE '/naraghi/%' AND c.norm2 != '' AND (c.norm1, c.norm2) IN (SELECT h.norm1, h.norm2 "
        "FROM corpus_couplets h JOIN corpus_poems hp ON hp.id = h.poem_id WHERE hp.path LIKE '/hafez/%')"
    ).fetchall()  # IN, not a correlated EXISTS: SQLite builds the Hafez set once (seconds, not a minute)
    assert len(shared) >= 5
    for m1, m2 in shared:
        d = store.links.link_option(m1, m2)
        assert d.status == "linked" and d.candidate.poet_slug == "hafez", (m1, d)


def test_a_released_question_keeps_its_order(store):
    from persian_tui.models import ReleaseItem

    store.questions.add_questions([make_question("q-r", couplets=[SAADI[::-1], HAFEZ_1, HAFEZ_2, ("بیتی", "که نیست")])])
    store.releases.freeze_release("v1", [ReleaseItem("q-r", "0" * 64, 1, "{}")])
    import_corpus(store, MINI)
    counts = store.links.link_questions()
    assert (counts["reordered"], counts["released"]) == (0, 1)
    assert store.questions.get_question("q-r").options[0].mesra1 == SAADI[1]
    assert store.links.links(["q-r"])["q-r"][1].order == "reversed"


def test_option_clusters_name_poem_and_poet_of_whole_couplets_only(store):
    import_corpus(store, MINI)
    store.questions.add_questions([make_question("q-k", couplets=[
        HAFEZ_1, HAFEZ_2, (HAFEZ_2[0], "مصراعی که در هیچ دیوانی نیست"), ("بیتی", "که نیست")])])
    assert store.links.option_clusters() == {("q-k", 1): ("/hafez/ghazal/sh1", "hafez"),
                                             ("q-k", 2): ("/hafez/ghazal/sh1", "hafez")}
    assert store.links.links(["q-k"])["q-k"][3].method == "one_hemistich"  # linked, but not one couplet of it


TARGET = ("ز انقلاب جهان هیچ سالاری نپاید دیر", "کلاه خسروی از باد بلا بیفتد زود")


# the PDF wrote «لا» as «ال»: the damaged words are the option's rarest ones, and some are
# words of other couplets (بال, کاله), so a search by the rarest words alone finds only those
DAMAGED = ("ز انقالب جهان هیچ ساالری نپاید دیر", "کاله خسروی از باد بال بیفتد زود")


DECOYS = [("پرنده را بال شکسته بود در قفس", "نه راه رفتن داشت و نه یار هم‌نفس"),
          ("کاله دهقان پیر بر سر دیوار ماند", "و کس از آن خانه نامی به یاد ندارد"),
          ("انقالب نوشت کاتب و خامه بلرزید", "ساالری نوشت و ورق را بگردانید"),
          # the target's other words are commoner than the damaged ones
          ("جهان هیچ نپاید دیر و زود ای دوست", "که خسروی ز سر افتد به باد و دیگر هیچ"),
          ("ز باد خزان بیفتد برگ زود از شاخ", "جهان دیر نپاید و خسروی نماند")]


def test_a_damaged_option_is_found_from_other_word_sets(store, tmp_path):
    root = copy_mini(tmp_path)
    write_poet(root, "sample", "سراینده", 700)
    first = ("سخن ز باد صبا گفتم و دل آرام شد", "که بوی یار به یاد آمد و کار تمام شد")
    write_poem(root, "sample", "ghazal/sh1", [first, TARGET])
    write_poem(root, "sample", "ghazal/sh2", DECOYS)
    import_corpus(store, root)
    d = store.links.link_option(*DAMAGED)
    assert (d.status, d.method, d.candidate.poem, d.candidate.index) == ("linked", "fuzzy", "/sample/ghazal/sh1", 1)
    assert 85 <= d.score < 100 and d.reversed is False


def test_halves_of_two_couplets_are_split_not_one_couplet(store):
    from persian_tui.corpus.provenance import UNLINKED, provenance_values

    import_corpus(store, MINI)
    d = store.links.link_option(HAFEZ_1[0], HAFEZ_2[1])
    assert (d.status, d.method, d.candidate.index) == ("linked", "split", 0)
    store.questions.add_questions([make_question("q-s", couplets=[(HAFEZ_1[0], HAFEZ_2[1]), HAFEZ_1, HAFEZ_2, SAADI],
                                                 key=1)])
    link = store.links.links(["q-s"])["q-s"][1]
    assert link.method == "split" and not link.whole and link.order == "unverified"
    assert provenance_values(store.questions.questions(), store.links.links())["key poet"] == [UNLINKED]


def _link(store, m1, m2, **kw):
    return store.links.link_option(m1, m2, **kw)


def test_link_exact_swapped_fuzzy_hemistich(corpus):
    d = _link(corpus, "الا یا ایها الساقی ادر کاسا و ناولها", "که عشق آسان نمود اول ولی افتاد مشکلها")
    assert (d.status, d.method, d.candidate.poet, d.candidate.index) == ("linked", "exact", "حافظ", 0)
    d = _link(corpus, SAADI[1], SAADI[0])  # hemistichs swapped, as in the book extraction
    assert (d.status, d.method, d.candidate.poet) == ("linked", "swapped", "سعدی")
    d = _link(corpus, "مرا نه سر نه سامان آفريدند", "پريشانم پريشان آفرىدند")  # OCR: ى for ی
    assert d.status == "linked" and d.method in ("exact", "fuzzy")
    d = _link(corpus, "به بوی نافه ای که آخر صبا زان طره بگشاید", "ز تاب جعد مشکینش چه خون افتاده در دلها")
    assert (d.status, d.method, d.candidate.index) == ("linked", "fuzzy", 1) and 85 <= d.score < 100
    d = _link(corpus, HAFEZ_2[0], "مصراعی دیگر که در هیچ دیوانی نیست")
    assert (d.status, d.method, d.candidate.index) == ("linked", "one_hemistich", 1)
    d = _link(corpus, "این بیت در پیکره نیست", "و این مصراع هم نیست")
    assert d.status == "unlinked" and d.candidate is None


def test_one_couplet_under_two_poets_goes_to_the_earliest_unless_the_option_names_one(corpus):
    d = _link(corpus, *ROBAEE)  # Khayyam died 526, Attar 618 (their poet.json)
    assert (d.status, d.candidate.poet, d.candidates) == ("linked", "خیام", 2)
    assert [(c.poem, c.poet_slug) for c in d.others] == [("/attar/robaee/sh7", "attar")]
    d = _link(corpus, *ROBAEE, own_poet="عطار")
    assert d.status == "linked" and d.candidate.poet == "عطار"


def _fts_queries(store, link) -> list[str]:
    """The FTS5 MATCH queries `link()` sends (sqlite3 trace), as SQL text; not the word counts
    (CorpusRepo.vocab with a cap: at most the cap's rows each)."""
    sent: list[str] = []
    store.conn.set_trace_callback(lambda sql: sent.append(sql) if "MATCH" in sql and sql.startswith("SELECT")
                                  and not sql.startswith("SELECT COUNT(*)") else None)
    try:
        link()
    finally:
        store.conn.set_trace_callback(None)
    return sent


def test_a_verbatim_option_is_found_by_one_lookup_of_its_hemistich_keys(corpus):
    """Linking cost: a verbatim option (either order) takes one lookup of its hemistichs' keys
    in corpus_keys and, for its edition variants, one unranked AND of each hemistich's rarest
    words (no ranked FTS query: its cost does not grow with the corpus); only an option not
    found verbatim asks the ranked ORs."""
    from persian_tui.store.links import VARIANT_TOKENS

    sent = _fts_queries(corpus, lambda: _link(corpus, SAADI[1], SAADI[0]))
    assert len(sent) == 3 and "corpus_keys MATCH" in sent[0] and not any("rank" in q for q in sent)
    for sql in sent[1:]:
        assert sql.split("MATCH '")[1].split("' LIMIT")[0].count(" AND ") == VARIANT_TOKENS - 1
    damaged = ("به بوی نافه ای که آخر صبا زان طره بگشاید", "ز تاب جعد مشکینش چه خون افتاده در دلها")
    sent = _fts_queries(corpus, lambda: _link(corpus, *damaged))
    assert "corpus_keys MATCH" in sent[0] and len(sent) > 3 and all("rank" in q for q in sent[1:])


def test_a_ranked_or_takes_the_rarest_words_within_its_budget(corpus, monkeypatch):
    """Each FTS OR ranks at most OR_POSTINGS couplets (its words' counts summed, the rarest
    words first): a word too common for the budget is left out, so the cost of an OR does
    not grow with the corpus."""
    from persian_tui.store import links as links_module

    damaged = ("به بوی نافه ای که آخر صبا زان طره بگشاید", "ز تاب جعد مشکینش چه خون افتاده در دلها")
    df = corpus.corpus.vocab(" ".join(damaged).split())
    for budget in (3, 1):
        monkeypatch.setattr(links_module, "OR_POSTINGS", budget)
        for sql in _fts_queries(corpus, lambda: _link(corpus, *damaged))[1:]:
            words = [w.strip('"') for w in sql.split("MATCH '")[1].split("' ORDER BY")[0].split(" OR ")]
            assert sum(df[w] for w in words) <= budget
    monkeypatch.setattr(links_module, "OR_POSTINGS", 0)
    monkeypatch.setattr(links_module, "AND_POSTINGS", 0)  # the fallback's budget (test_links_fallback.py)
    assert len(_fts_queries(corpus, lambda: _link(corpus, *damaged))) == 1  # the key lookup only
    assert len(_fts_queries(corpus, lambda: _link(corpus, *SAADI))) == 1  # no word within budget for variants


def test_fuzzy_threshold(corpus):
    damaged = ("به بوی نافه ای که آخر صبا زان طره بگشاید", "ز تاب جعد مشکینش چه خون افتاده در دلها")
    assert _link(corpus, *damaged, threshold=99.5).method != "fuzzy"


def test_link_questions_is_provenance_and_follows_edits(corpus):
    q = make_question("q-a", couplets=[HAFEZ_1, SAADI[::-1], BABA, ("بیتی", "که نیست")])
    corpus.questions.add_questions([q])  # linked as it is saved
    links = corpus.links.links(["q-a"])["q-a"]
    assert [links[p].status for p in (1, 2, 3, 4)] == ["linked", "linked", "linked", "unlinked"]
    # the reversed option is put in the poet's order (a revision), nothing else is edited
    assert links[2].method == "exact" and links[2].couplet.poem == "/saadi/golestan/sh10"
    assert links[2].order == "poet" and links[4].order == "unverified"
    stored = corpus.questions.get_question("q-a")
    assert (stored.options[1].mesra1, stored.options[1].mesra2) == SAADI and stored.options[0].poet is None
    assert corpus.curation.revisions("q-a")[-1].changes == {"hemistich_order": [2]}
    again = corpus.links.link_questions()  # unlinked options are retried (the corpus may have grown)
    assert (again["up to date"], again["unlinked"]) == (3, 1)
    # editing an option relinks it, on save
    stored.options[3] = Option(4, *ROBAEE, poet="خیام")
    corpus.curation.update_question(stored, "tester")
    link = corpus.links.links(["q-a"])["q-a"][4]
    assert (link.status, link.couplet.poet) == ("linked", "خیام")


def test_create_question_links_on_save(corpus):
    q = Question(uid="", options=[Option(i, *c) for i, c in enumerate([HAFEZ_1, HAFEZ_2, SAADI, BABA], 1)])
    q = corpus.curation.create_question(q, "author")
    assert {l.status for l in corpus.links.links([q.uid])[q.uid].values()} == {"linked"}


def test_saving_without_corpus_writes_no_links(store):
    store.questions.add_questions([make_question("q-b")])
    assert store.links.links() == {}


def test_a_busy_database_does_not_undo_a_save(corpus, monkeypatch):
    from persian_tui.store import StoreBusy

    def busy(*a, **k):
        raise StoreBusy("busy")

    monkeypatch.setattr(corpus.links, "_save_links", busy)
    corpus.questions.add_questions([make_question("q-busy", couplets=[HAFEZ_1, SAADI, BABA, ROBAEE])])
    assert corpus.questions.get_question("q-busy") is not None and corpus.links.links(["q-busy"]) == {}
    monkeypatch.undo()
    assert corpus.links.link_questions()["linked"] == 4  # linked later


EXCERPT_POETS = {"حافظ", "خیام", "باباطاهر", "پروین اعتصامی"}


def test_book_sample_links_to_the_right_poets(store, seed, sample):  # noqa: F811
    run_import(store, seed / "gherabat-questions-sample.json", answers=seed / "gherabat-answer-keys.json")
    import_corpus(store, SAMPLE)
    store.links.link_questions()
    links = [l for per in store.links.links().values() for l in per.values()]
    assert len(links) == 160
    linked = [l for l in links if l.status == "linked"]
    # the 4 options linked in reversed order were put in the poet's order (now exact)
    assert Counter(l.method for l in linked) == {"exact": 11, "fuzzy": 3, "one_hemistich": 1}
    assert Counter(l.order for l in linked) == {"poet": 14, "unverified": 1}
    assert {l.couplet.poet for l in linked} <= EXCERPT_POETS  # never Naraghi's prose book
    assert not [l for l in links if l.status == "ambiguous"]
    quoted = [l for l in links if l.method == "quoted"]
    assert [l.couplet.poet_slug for l in quoted] == ["naraghi"] * 2  # found only in the prose book
    # known ones, checked by hand: Hafez, ghazal 184 couplet 3 (index 2) and ghazal 200 couplet 10
    found = {(l.couplet.poem, l.couplet.couplet): l.method for l in linked}
    assert found[("/hafez/ghazal/sh184", 2)] == "exact" and found[("/hafez/ghazal/sh200", 9)] == "exact"


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


def test_options_decided_by_threads_link_as_one_at_a_time(corpus, monkeypatch):
    """Many options are decided by threads with their own connections: the links (status,
    couplet, method, score, candidates, others, order) are those of deciding one at a time, on
    options made from the corpus verbatim, swapped, damaged and unknown."""
    import threading

    from persian_tui.store import links as links_module

    rows = corpus.conn.execute("SELECT mesra1, mesra2 FROM corpus_couplets WHERE mesra2 != '' "
                               "ORDER BY id").fetchall()
    options = []
    for i in range(96):  # each couplet in six forms
        (m1, m2), way = rows[i % len(rows)], i // len(rows) % 6
        if way == 1:
            m1, m2 = m2, m1
        elif way == 2:
            m1 = " ".join(w[:-1] if len(w) > 3 and j % 2 else w for j, w in enumerate(m1.split()))
        elif way == 3:
            m2 = "مصراعی که در هیچ دیوانی نیامده است"
        elif way == 4:
            m2 = rows[(i + 1) % len(rows)][1]
        elif way == 5:
            m2 = " ".join(m2.split()[1:])
        options.append((m1, m2))
    corpus.questions.add_questions([make_question(f"q-{n:03d}", couplets=options[n * 4:n * 4 + 4], key=1)
                                    for n in range(len(options) // 4)])

    def linked() -> dict:
        return corpus.links.links()

    monkeypatch.setattr(links_module, "LINK_THREADS", 1)
    corpus.links.link_questions(force=True)  # (swapped options are put in the poet's order here)
    one_at_a_time = corpus.links.link_questions(force=True)
    before = linked()
    threads: set[str] = set()
    decide = links_module.LinksRepo.link_option

    def spy(self, *a, **kw):
        threads.add(threading.current_thread().name)
        return decide(self, *a, **kw)

    monkeypatch.setattr(links_module.LinksRepo, "link_option", spy)
    monkeypatch.setattr(links_module, "LINK_THREADS", 2)
    monkeypatch.setattr(links_module, "THREADED_FROM", 8)
    threaded = corpus.links.link_questions(force=True)
    assert linked() == before and threaded == one_at_a_time
    assert len(before) == len(options) // 4 and one_at_a_time["linked"] > 40
    assert threads and all(name.startswith("link") for name in threads)
