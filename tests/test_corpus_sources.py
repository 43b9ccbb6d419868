"""Couplets as the poets wrote them: the source poet of a couplet several poems hold (earliest
death year, never a work that quotes others), the poet's hemistich order (per option, recorded
and reversible, never in a release), and the links' `others`. Fixtures are built from the mini
export plus poems written here in the export's layout."""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import pytest
from factories import HAFEZ_1, HAFEZ_2, MINI, OWN, SAADI, copy_mini, make_question, write_poem, write_poet

from persian_tui.cli import main
from persian_tui.corpus.ganjoor import import_corpus
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


# ---------------------------------------------------------------- the poet's order


def _book_page(tmp_path: Path) -> Path:
    """A book page (the seed's book format) whose extraction mixed both orders: options 1 and 3
    are stored reversed, 2 and 4 in the poet's order (after the importer's file-wide swap)."""
    opts = [HAFEZ_1[::-1], SAADI, HAFEZ_2[::-1], ("مرا نه سر نه سامان آفریدند", "پریشانم پریشان آفریدند")]
    # the book format stores mesra2 first: the importer swaps every option back
    data = {"pages": [{"page_number": 1, "data": {"questions": [
        {"id": 1, "stem": "کدام بیت با بقیه فرق دارد؟",
         "options": [{"label": i, "mesra1": b, "mesra2": a} for i, (a, b) in enumerate(opts, 1)]}]}}]}
    f = tmp_path / "book.json"
    f.write_text(json.dumps(data, ensure_ascii=False))
    (tmp_path / "keys.json").write_text(json.dumps({"1": 2}))
    return f


def test_import_puts_each_option_in_the_poets_order_and_reports_it(tmp_path, capsys):
    db = str(tmp_path / "o.db")
    assert main(["--db", db, "corpus", "import", str(MINI)]) == 0
    book = _book_page(tmp_path)
    capsys.readouterr()
    assert main(["--db", db, "import", str(book), "--format", "book", "--answers", str(tmp_path / "keys.json")]) == 0
    out = capsys.readouterr().out
    assert "corpus: linked 4, ambiguous 0, unlinked 0; 2 option(s) put in the poet's hemistich order" in out
    with Store(db) as s:
        q = s.questions.questions()[0]
        assert [(o.mesra1, o.mesra2) for o in q.options][:3] == [HAFEZ_1, SAADI, HAFEZ_2]
        links = s.links.links([q.uid])[q.uid]
        assert {p: l.order for p, l in links.items()} == {1: "poet", 2: "poet", 3: "poet", 4: "poet"}
        assert s.curation.revisions(q.uid)[-1].author == "corpus-order"
        assert s.curation.revisions(q.uid)[-1].changes == {"hemistich_order": [1, 3]}
    # reversible: the file's order comes back, and stays
    assert main(["--db", db, "corpus", "reorder", "--undo"]) == 0
    assert "2 option(s) back in the file's hemistich order" in capsys.readouterr().out
    assert main(["--db", db, "corpus", "link", "--force"]) == 0
    assert "0 option(s) put in the poet's hemistich order" in capsys.readouterr().out
    with Store(db) as s:
        q = s.questions.questions()[0]
        assert (q.options[0].mesra1, q.options[0].mesra2) == HAFEZ_1[::-1]
        assert s.links.links([q.uid])[q.uid][1].order == "reversed"
    # importing the same file again changes nothing
    assert main(["--db", db, "import", str(book), "--format", "book", "--answers", str(tmp_path / "keys.json")]) == 0
    out = capsys.readouterr().out
    assert "0 new, 0 linked, 1 unchanged" in out and "corpus:" not in out


def test_a_released_question_keeps_its_order(store):
    from persian_tui.models import ReleaseItem

    store.questions.add_questions([make_question("q-r", couplets=[SAADI[::-1], HAFEZ_1, HAFEZ_2, ("بیتی", "که نیست")])])
    store.releases.freeze_release("v1", [ReleaseItem("q-r", "0" * 64, 1, "{}")])
    import_corpus(store, MINI)
    counts = store.links.link_questions()
    assert (counts["reordered"], counts["released"]) == (0, 1)
    assert store.questions.get_question("q-r").options[0].mesra1 == SAADI[1]
    assert store.links.links(["q-r"])["q-r"][1].order == "reversed"


def test_migration_15_reorders_verbatim_reversed_options_except_released(tmp_path):
    from persian_tui.store.db import _connect, migrate

    path = tmp_path / "v13.db"
    conn = _connect(path)
    migrate(conn, 13)
    conn.close()
    conn = _connect(path)
    # a v13 database: two questions, options linked 'swapped'; the second is released
    from persian_tui.text import couplet_key

    for qid, uid in ((1, "q-1"), (2, "q-2")):
        conn.execute("INSERT INTO questions (id, uid, status, created_at, updated_at, fingerprint) "
                     "VALUES (?, ?, 'ready', 't', 't', ?)", (qid, uid, uid))
        conn.execute("INSERT INTO options (question_id, position, mesra1, mesra2, match_key) VALUES (?,1,?,?,?)",
                     (qid, SAADI[1], SAADI[0], couplet_key(*SAADI)))
        conn.execute("INSERT INTO option_links (question_id, position, match_key, status, method, score, "
                     "created_at) VALUES (?, 1, ?, 'linked', 'swapped', 100, 't')", (qid, couplet_key(*SAADI)))
    conn.execute("INSERT INTO option_links (question_id, position, match_key, status, method, created_at) "
                 "VALUES (1, 2, 'x', 'linked', 'hemistich', 't')")
    conn.execute("INSERT INTO releases (name, digest, questions, created_at) VALUES ('v1', 'd', 1, 't')")
    conn.execute("INSERT INTO release_items (release_id, position, uid, sha256, record) "
                 "VALUES (1, 1, 'q-2', 's', '{}')")
    conn.close()
    with Store(path) as s:
        rows = s.conn.execute("SELECT question_id, mesra1 FROM options ORDER BY question_id").fetchall()
        assert [tuple(r) for r in rows] == [(1, SAADI[0]), (2, SAADI[1])]  # q-2 is released: untouched
        assert s.curation.revisions("q-1")[-1].changes == {"hemistich_order": [1]}
        assert s.curation.revisions("q-2") == []
        methods = s.conn.execute("SELECT question_id, position, method, reversed FROM option_links "
                                 "ORDER BY 1, 2").fetchall()
        assert [tuple(r) for r in methods] == [(1, 1, "exact", 0), (1, 2, "one_hemistich", None), (2, 1, "swapped", 1)]
        assert s.links.undo_reorder()["restored"] == 1
        assert s.conn.execute("SELECT mesra1 FROM options WHERE question_id = 1").fetchone()[0] == SAADI[1]


def test_option_clusters_name_poem_and_poet_of_whole_couplets_only(store):
    import_corpus(store, MINI)
    store.questions.add_questions([make_question("q-k", couplets=[
        HAFEZ_1, HAFEZ_2, (HAFEZ_2[0], "مصراعی که در هیچ دیوانی نیست"), ("بیتی", "که نیست")])])
    assert store.links.option_clusters() == {("q-k", 1): ("/hafez/ghazal/sh1", "hafez"),
                                             ("q-k", 2): ("/hafez/ghazal/sh1", "hafez")}
    assert store.links.links(["q-k"])["q-k"][3].method == "one_hemistich"  # linked, but not one couplet of it


# ---------------------------------------------------------------- misnumbered couplets

FIVE = [(f"مصراع نخست بیت {w}", f"مصراع دوم بیت {w}") for w in ("یکم", "دوم", "سوم", "چهارم", "پنجم")]


def _verses(numbers: list[tuple[str, int]]) -> list[dict]:
    """Verses in order: ("R"/"L", CoupletIndex) for the couplets of FIVE in turn."""
    out, k = [], {"R": 0, "L": 0}
    for side, index in numbers:
        text = FIVE[k[side]][0 if side == "R" else 1]
        k[side] += 1
        out.append({"Position": "Right" if side == "R" else "Left", "Text": text, "CoupletIndex": index})
    return out


@pytest.mark.parametrize("numbers", [
    # the second hemistich of couplet 2 carries 3: the verse order says it is couplet 2's
    [("R", 0), ("L", 0), ("R", 1), ("L", 1), ("R", 2), ("L", 3), ("R", 3), ("L", 3), ("R", 4), ("L", 4)],
    # the first hemistich of couplet 3 carries 2
    [("R", 0), ("L", 0), ("R", 1), ("L", 1), ("R", 2), ("L", 2), ("R", 2), ("L", 3), ("R", 4), ("L", 4)],
], ids=["second-misnumbered", "first-misnumbered"])
def test_a_misnumbered_hemistich_is_repaired_by_verse_order(store, tmp_path, numbers, capsys):
    root = copy_mini(tmp_path)
    write_poem(root, "hafez", "ghazal/sh9", None, verses=_verses(numbers))
    p = import_corpus(store, root)
    assert p.skipped == 0 and p.new == 8
    assert [(c.mesra1, c.mesra2) for c in (store.corpus.couplet_at("/hafez/ghazal/sh9", i) for i in range(5))] == FIVE
    assert len(p.notes) == 1 and "sh9.json: couplet" in p.notes[0] and "renumbered" in p.notes[0]
    assert main(["--db", str(tmp_path / "cli.db"), "corpus", "import", str(root)]) == 0
    assert "repaired: " in capsys.readouterr().out


def test_a_misnumbered_couplet_the_order_cannot_place_is_skipped_alone(store, tmp_path):
    root = copy_mini(tmp_path)
    # two first hemistichs in a row: which second hemistich is whose cannot be told
    numbers = [("R", 0), ("L", 0), ("R", 1), ("R", 1), ("L", 1), ("L", 2), ("R", 3), ("L", 3)]
    verses = _verses(numbers)
    write_poem(root, "hafez", "ghazal/sh9", None, verses=verses)
    p = import_corpus(store, root)
    assert p.skipped == 0 and p.new == 8
    kept = [c.couplet for c in store.corpus.search_couplets("مصراع", limit=50) if c.poem == "/hafez/ghazal/sh9"]
    assert sorted(set(kept)) == [0, 2, 3]
    assert p.notes == [f"{root / 'poets/hafez/ghazal/sh9.json'}: couplet 1 skipped: two hemistichs in one "
                       "place and the verse order does not say which couplet each belongs to"]


# ---------------------------------------------------------------- damaged words

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


def test_pdf_repairs():
    from persian_tui.store.corpus_query import pdf_repairs

    assert pdf_repairs(["انقالب", "ساالری", "الله", "دل"]) == {"انقالب": ["انقلاب"], "ساالری": ["سالاری"]}


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


def test_export_tells_linked_ambiguous_unlinked_and_quoted_apart(quoting, tmp_path):
    from persian_tui.releases.export import export_jsonl

    quoting.questions.add_questions([make_question("q-x", couplets=[HAFEZ_2, OWN, SAADI, ("بیتی", "که نیست")])])
    out = tmp_path / "x.jsonl"
    export_jsonl(quoting, out)
    corpus = [o["corpus"] for o in json.loads(out.read_text())["options"]]
    assert corpus[0]["status"] == "linked" and corpus[0]["also_in"] == [{"poem": "/naraghi/meraj/bab1/sh1",
                                                                          "couplet": 0}]
    assert corpus[1] == {"status": "unlinked", "method": "quoted",
                         "candidates": [{"poem": "/naraghi/meraj/bab1/sh1", "couplet": 1}]}
    assert corpus[3] == {"status": "unlinked"}
    # ambiguous: two different couplets by two poets tie
    row = quoting.conn.execute("SELECT id FROM questions WHERE uid = 'q-x'").fetchone()[0]
    quoting.conn.execute("UPDATE option_links SET status = 'ambiguous', method = 'fuzzy', others = ? "
                         "WHERE question_id = ? AND position = 3",
                         (json.dumps([["/khayyam/robaee/sh1", 0, "khayyam"]]), row))
    export_jsonl(quoting, out)
    amb = json.loads(out.read_text())["options"][2]["corpus"]
    assert amb["status"] == "ambiguous" and amb["candidates"] == [
        {"poem": "/saadi/golestan/sh10", "couplet": 1}, {"poem": "/khayyam/robaee/sh1", "couplet": 0}]


def test_similar_couplets_never_return_the_couplet_itself(store):
    from persian_tui.corpus.similar import similar_couplets

    import_corpus(store, MINI)
    # the same couplet with its hemistichs swapped, a ZWNJ typed as a space and doubled spaces
    m1, m2 = HAFEZ_2[1].replace("\u200c", " "), HAFEZ_2[0].replace(" ", "  ")
    found = similar_couplets(store, m1, m2)
    assert found and all((c.poem, c.couplet) != ("/hafez/ghazal/sh1", 1) for _, c in found)
    assert all(score < 0.999 for score, _ in found)


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


# ---------------------------------------------------------------- import cost


def test_a_long_poem_is_written_in_several_short_transactions(store, tmp_path, monkeypatch):
    from persian_tui.corpus import ganjoor

    monkeypatch.setattr(ganjoor, "BATCH_COUPLETS", 3)
    root = copy_mini(tmp_path)
    long = [(f"مصراع نخست بیت {i} از مثنوی", f"مصراع دوم بیت {i} از مثنوی") for i in range(10)]
    write_poem(root, "hafez", "masnavi/sh1", long)
    sizes = []  # couplets written per transaction
    real_tx = store.tx

    @contextmanager
    def counting_tx():
        before = store.conn.execute("SELECT COUNT(*) FROM corpus_couplets").fetchone()[0]
        with real_tx() as conn:
            yield conn
            sizes.append(abs(store.conn.execute("SELECT COUNT(*) FROM corpus_couplets").fetchone()[0] - before))

    monkeypatch.setattr(store, "tx", counting_tx)
    p = import_corpus(store, root)
    monkeypatch.setattr(store, "tx", real_tx)
    assert p.new == 8 and store.corpus.corpus_stats()["couplets"] == 28
    assert max(sizes) <= 3 and sizes.count(3) >= 3  # the masnavi's 10 couplets: parts of <= 3
    assert store.corpus.couplet_at("/hafez/masnavi/sh1", 9).mesra1 == long[9][0]
    # changed: replaced in parts, never a half-old poem left behind; unchanged: nothing written
    long[4] = ("مصراع دیگر", "که جای بیت پنجم آمد")
    write_poem(root, "hafez", "masnavi/sh1", long)
    p = import_corpus(store, root)
    assert (p.updated, p.unchanged) == (1, 7)
    assert store.corpus.couplet_at("/hafez/masnavi/sh1", 4).mesra1 == "مصراع دیگر"
    assert store.corpus.corpus_stats()["couplets"] == 28
    again = import_corpus(store, root)
    assert (again.updated, again.unchanged, again.couplets) == (0, 8, 0)


def test_no_transaction_that_writes_couplets_merges_the_index(store, tmp_path, monkeypatch):
    """FTS5 merged its segments inside the commit of the transaction that wrote couplets (and
    made a segment per INSERT), holding the write lock for seconds. Now each such transaction
    adds one segment per statement and merges none; the import's merge steps, transactions of
    their own, bring the count down, to one segment at the end; every transaction is counted."""
    from persian_tui.corpus import ganjoor
    from persian_tui.store import corpus

    monkeypatch.setattr(ganjoor, "BATCH_COUPLETS", 3)
    monkeypatch.setattr(corpus, "MERGE_AT", 4, raising=False)
    root = copy_mini(tmp_path)
    write_poem(root, "hafez", "masnavi/sh1", [(f"مصراع نخست بیت {i} از مثنوی", f"مصراع دوم بیت {i} از مثنوی")
                                              for i in range(10)])
    for n in range(6):
        write_poem(root, "saadi", f"extra/sh{n}", [(f"بیت {n} {i} نخست", f"بیت {n} {i} دوم") for i in range(2)])

    def state():
        return (tuple(store.conn.execute("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM corpus_couplets").fetchone()),
                store.conn.execute("SELECT COUNT(DISTINCT segid) FROM corpus_fts_idx").fetchone()[0])

    seen = []  # per write transaction: (couplets written?, segments before, segments after)
    real_tx = store.tx

    @contextmanager
    def watched_tx():
        (rows, before) = state()
        with real_tx() as conn:
            yield conn
        (rows_after, after) = state()
        seen.append((rows_after != rows, before, after))

    monkeypatch.setattr(store, "tx", watched_tx)
    p = import_corpus(store, root)
    writes = [(b, a) for couplets, b, a in seen if couplets]
    assert len(writes) >= 10 and all(a - b == 1 for b, a in writes), writes  # one statement, no merge
    assert any(a < b for couplets, b, a in seen if not couplets)  # the import's own merge steps
    assert p.transactions == len(seen) and p.longest_lock > 0
    assert state()[1] == 1  # merged into one segment at the end
    store.conn.execute("INSERT INTO corpus_fts (corpus_fts) VALUES ('integrity-check')")
    assert [c.couplet for c in store.corpus.search_couplets("مثنوی نخست بیت 7")] == [7]
    with store.timing() as held:
        store.corpus.mark_quoting()  # nothing changed: nothing written
    assert held == []
    # unchanged: nothing written, nothing merged; a changed poem: its old couplets deleted and
    # the new ones written in one transaction, one statement each
    seen.clear()
    assert import_corpus(store, root).couplets == 0 and all(s == (False, 1, 1) for s in seen)
    write_poem(root, "saadi", "extra/sh0", [("بیتی دیگر به جای نخست", "و مصراعی تازه")])
    p = import_corpus(store, root)
    assert p.updated == 1 and [a - b for couplets, b, a in seen if couplets] == [2]
    store.conn.execute("INSERT INTO corpus_fts (corpus_fts) VALUES ('integrity-check')")
    assert [c.poem for c in store.corpus.search_couplets("مصراعی تازه")] == ["/saadi/extra/sh0"]
    # the old text is gone
    assert "/saadi/extra/sh0" not in {c.poem for c in store.corpus.search_couplets("بیت 0 نخست")}


def test_a_killed_long_poem_is_replaced_by_the_next_import(store, tmp_path, monkeypatch):
    from persian_tui.corpus import ganjoor

    monkeypatch.setattr(ganjoor, "BATCH_COUPLETS", 3)
    root = copy_mini(tmp_path)
    long = [(f"مصراع نخست بیت {i} از مثنوی", f"مصراع دوم بیت {i} از مثنوی") for i in range(10)]
    write_poem(root, "hafez", "masnavi/sh1", long)
    conn = store.conn

    class Killed(BaseException):
        pass

    def dying(name):  # the import is killed while writing the masnavi's second part
        def call(sql, params=()):
            if sql.startswith("INSERT INTO corpus_couplets") and "بیت 3 از" in str(params):
                raise Killed
            return getattr(conn, name)(sql, params)
        return call

    class Conn:
        def __getattr__(self, name):
            return dying(name) if name in ("execute", "executemany") else getattr(conn, name)

    monkeypatch.setattr(store, "conn", Conn())
    with pytest.raises(Killed):
        import_corpus(store, root)
    monkeypatch.undo()
    assert tuple(store.conn.execute(
        "SELECT sha256 LIKE 'pending %' FROM corpus_poems WHERE path = '/hafez/masnavi/sh1'").fetchone()) == (1,)
    monkeypatch.setattr(ganjoor, "BATCH_COUPLETS", 3)
    p = import_corpus(store, root)
    assert p.updated == 1 and store.corpus.couplet_at("/hafez/masnavi/sh1", 9) is not None
    assert tuple(store.conn.execute("SELECT COUNT(*) FROM corpus_couplets c JOIN corpus_poems p ON p.id = c.poem_id "
                                    "WHERE p.path = '/hafez/masnavi/sh1'").fetchone()) == (10,)


def test_import_progress_shows_an_eta():
    from types import SimpleNamespace

    from persian_tui.cli.corpus import _eta

    assert _eta(SimpleNamespace(done=10, total=70, rate=2.0)) == "0:30"
    assert _eta(SimpleNamespace(done=0, total=70, rate=0.0)) == "…"
