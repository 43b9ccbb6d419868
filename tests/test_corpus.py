"""The Ganjoor corpus: import, re-import, hostile files, FTS search, option links."""

from __future__ import annotations

import json
import sqlite3

import pytest
from factories import BABA, HAFEZ_1, HAFEZ_2, MINI, ROBAEE, SAADI, copy_mini, make_question

from persian_tui.cli import main
from persian_tui.corpus.ganjoor import import_corpus
from persian_tui.files.inputs import InputError
from persian_tui.models import Option, Question
from persian_tui.store import Store

ZWNJ = "\u200c"


def test_fts5_is_available():
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")


def test_import_keeps_text_and_reports_counts(store):
    p = import_corpus(store, MINI)
    assert (p.new, p.updated, p.unchanged, p.skipped) == (7, 0, 0, 0)
    s = store.corpus.corpus_stats()
    assert (s["poets"], s["poems"], s["couplets"]) == (5, 7, 18)
    assert s["with_metre"] == 6 and s["by_form"]["Robaee"] == 3
    c = store.corpus.couplet_at("/hafez/ghazal/sh1", 0)
    assert (c.mesra1, c.mesra2) == HAFEZ_1  # diacritics kept
    assert ZWNJ in store.corpus.couplet_at("/hafez/ghazal/sh1", 1).mesra1  # ZWNJ kept
    assert c.poet == "حافظ" and c.form == "Ghazal" and c.rhyme == "لها" and "هزج" in c.metre
    # the prose paragraph of the Golestan story is not a couplet
    assert store.corpus.corpus_stats()["by_poet"][2]["couplets"] == 3


def test_one_poet_folder_and_poets_folder(store):
    assert import_corpus(store, MINI / "poets" / "khayyam").new == 2
    assert import_corpus(store, MINI / "poets").new == 5


def test_reimport_is_idempotent_and_updates_changed_poems(store, tmp_path):
    root = copy_mini(tmp_path)
    import_corpus(store, root)
    again = import_corpus(store, root)
    assert (again.new, again.updated, again.unchanged, again.couplets) == (0, 0, 7, 0)
    f = root / "poets" / "babataher" / "dobeyti" / "sh1.json"
    d = json.loads(f.read_text())
    d["Verses"][1]["Text"] = "پریشانم پریشان آفریدند دوباره"
    d["Verses"] = d["Verses"][:2]
    f.write_text(json.dumps(d, ensure_ascii=False))
    p = import_corpus(store, root)
    assert (p.new, p.updated, p.unchanged) == (0, 1, 6)
    assert store.corpus.corpus_stats()["couplets"] == 17
    assert [c.mesra2 for c in store.corpus.search_couplets("دوباره")] == ["پریشانم پریشان آفریدند دوباره"]
    assert store.corpus.search_couplets("خاطران") == []  # the dropped couplet left the index


@pytest.mark.parametrize("content, reason", [
    (b"{not json", "invalid JSON at line 1"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b"[1, 2]", "expected a JSON object"),
    (json.dumps({"FullUrl": "/hafez/ghazal/x", "Verses": {}}).encode(), "'Verses' must be a list"),
    (json.dumps({"FullUrl": "/saadi/x", "Verses": []}).encode(), "is not under /hafez"),
    (json.dumps({"FullUrl": "/hafez/x", "Verses": [{"Position": "Right", "Text": 3,
                                                     "CoupletIndex": 0}]}).encode(), "verse 1 needs"),
    (json.dumps({"FullUrl": "/hafez/x", "Metre": "fast", "Verses": []}).encode(), "'Metre' must be"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"Id": ' + b"9" * 5000 + b"}", "a number with 5000 digits (at most 30)"),
])
def test_malformed_files_are_skipped_with_one_line_reason(store, tmp_path, content, reason):
    root = copy_mini(tmp_path)
    bad = root / "poets" / "hafez" / "ghazal" / "bad.json"
    bad.write_bytes(content)
    p = import_corpus(store, root)
    assert p.new == 7 and p.skipped == 1
    assert len(p.errors) == 1 and str(bad) in p.errors[0] and reason in p.errors[0]
    assert "\n" not in p.errors[0]


def test_strict_import_writes_nothing_when_a_file_is_malformed(store, tmp_path):
    root = copy_mini(tmp_path)
    (root / "poets" / "saadi" / "golestan" / "sh11.json").write_text("{")
    with pytest.raises(InputError, match=r"sh11\.json: invalid JSON.*nothing written"):
        import_corpus(store, root, strict=True)
    assert store.corpus.corpus_stats()["poems"] == 0


def test_not_an_export(store, tmp_path):
    with pytest.raises(InputError, match="not a Ganjoor export"):
        import_corpus(store, tmp_path)
    with pytest.raises(InputError, match="not a folder"):
        import_corpus(store, tmp_path / "missing")


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
    """The FTS5 MATCH queries `link()` sends (sqlite3 trace), as SQL text."""
    sent: list[str] = []
    store.conn.set_trace_callback(lambda sql: sent.append(sql) if "MATCH" in sql and sql.startswith("SELECT") else None)
    try:
        link()
    finally:
        store.conn.set_trace_callback(None)
    return sent


def test_a_verbatim_option_is_found_by_its_hemistichs_rarest_words_alone(corpus):
    """Linking cost: a verbatim option (either order) takes one FTS lookup per hemistich, each
    by its rarest HALF_TOKENS words (a common word's doclist is never walked); only an option
    not found verbatim asks the longer ORs. (On the 20,000-poem bench, 290 -> 48 ms per option.)"""
    from persian_tui.store.links import HALF_TOKENS

    sent = _fts_queries(corpus, lambda: _link(corpus, SAADI[1], SAADI[0]))
    assert len(sent) == 2
    for sql in sent:  # each spelling of the hemistich: its HALF_TOKENS rarest words ANDed
        match = sql.split("MATCH '")[1].split("' ORDER BY")[0]
        assert all(branch.count(" AND ") == HALF_TOKENS - 1 for branch in match.split(") OR ("))
    damaged = ("به بوی نافه ای که آخر صبا زان طره بگشاید", "ز تاب جعد مشکینش چه خون افتاده در دلها")
    assert len(_fts_queries(corpus, lambda: _link(corpus, *damaged))) > 2


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


def test_runs_accept_kind_baseline(store):
    run = store.runs.create_run("baseline", "cue:poet", {})
    assert store.runs.get_run(run.id).kind == "baseline"


def test_cli_import_stats_search_link(tmp_path, capsys):
    db = str(tmp_path / "cli.db")
    assert main(["--db", db, "corpus", "import", str(MINI)]) == 0
    out = capsys.readouterr().out
    assert "7 new" in out and "longest write transaction" in out
    assert main(["--db", db, "corpus", "stats"]) == 0
    assert "5 poets, 7 poems, 18 couplets, 36 hemistichs" in capsys.readouterr().out
    assert main(["--db", db, "corpus", "search", "میگذرد"]) == 0
    assert "/khayyam/robaee/sh1#1" in capsys.readouterr().out
    assert main(["--db", db, "corpus", "link"]) == 0  # an empty bank
    assert "linked 0" in capsys.readouterr().out
    with Store(db) as s:
        s.questions.add_questions([make_question("q-c", couplets=[HAFEZ_1, ROBAEE, ("الف", "ب"), BABA])])
    assert main(["--db", db, "corpus", "link", "--force"]) == 0
    out = capsys.readouterr().out
    assert "linked 3, ambiguous 0, unlinked 1" in out
    assert "unlinked: q-c/3" in out


def test_cli_link_without_corpus(tmp_path, capsys):
    assert main(["--db", str(tmp_path / "x.db"), "corpus", "link"]) == 1
    assert "no corpus loaded" in capsys.readouterr().err


def test_cli_errors_never_print_control_characters(tmp_path, capsys):
    root = copy_mini(tmp_path)
    (root / "poets" / "hafez" / "ghazal" / "evil\x1b[31m.json").write_text("{")
    assert main(["--db", str(tmp_path / "e.db"), "corpus", "import", str(root)]) == 0
    out = capsys.readouterr().out
    assert "skipped:" in out and "\x1b" not in out


def test_sample_excerpt_imports_and_links(store, sample):
    p = import_corpus(store, sample)
    assert p.skipped == 0 and p.new > 1700
    assert {x["slug"] for x in store.corpus.corpus_stats()["by_poet"]} == {"hafez", "khayyam", "babataher", "parvin",
                                                                           "naraghi"}
    c = store.corpus.couplet_at("/hafez/ghazal/sh134", 0)
    assert c.mesra1.startswith("بلبلی خونِ دلی") and c.metre.startswith("فعلاتن")
    d = store.links.link_option("آسمان بار امانت نتوانست کشید", "قرعه کار به نام من دیوانه زدند")
    assert d.status == "linked" and d.method == "exact" and d.candidate.poet == "حافظ"
    assert import_corpus(store, sample / "poets" / "khayyam").unchanged > 100


def test_export_carries_provenance_and_reimports(corpus, tmp_path):
    from persian_tui.releases.export import export_jsonl

    corpus.questions.add_questions([make_question("q-e", couplets=[HAFEZ_1, SAADI[::-1], BABA, ("بیتی", "که نیست")])])
    out = tmp_path / "bank.jsonl"
    export_jsonl(corpus, out)
    rec = json.loads(out.read_text())
    from persian_tui.bank.jsonl import SCHEMA_VERSION as JSONL_VERSION

    assert rec["schema_version"] == JSONL_VERSION
    assert rec["options"][0]["corpus"] == {
        "status": "linked", "poem": "/hafez/ghazal/sh1", "couplet": 0, "poet": "حافظ",
        "metre": "مفاعیلن مفاعیلن مفاعیلن مفاعیلن (هزج مثمن سالم)", "method": "exact", "score": 100.0,
        "also_in": []}
    assert rec["options"][1]["corpus"]["method"] == "exact"  # put in the poet's order on import
    assert [o["order"] for o in rec["options"]] == ["poet", "poet", "poet", "unverified"]
    assert rec["options"][3]["corpus"] == {"status": "unlinked"} and rec["options"][0]["poet"] is None
    with Store(tmp_path / "other.db") as other:
        assert main(["--db", str(tmp_path / "other.db"), "import", str(out)]) == 0
        assert other.questions.get_question("q-e").options[1].mesra1 == SAADI[0]
    v1 = tmp_path / "v1.jsonl"
    rec["schema_version"] = 1
    for o in rec["options"]:
        del o["corpus"]
    rec["uid"] = "q-v1"
    v1.write_text(json.dumps(rec, ensure_ascii=False) + "\n")
    assert main(["--db", str(tmp_path / "other.db"), "import", str(v1)]) == 0


def test_cli_similar_tfidf_and_model(tmp_path, capsys, tiny_st, monkeypatch):  # noqa: F811
    db = str(tmp_path / "sim.db")
    assert main(["--db", db, "corpus", "import", str(MINI)]) == 0
    capsys.readouterr()
    couplet = "صلاح کار کجا و من خراب کجا / ببین تفاوت ره"
    assert main(["--db", db, "corpus", "similar", couplet]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "/hafez/ghazal/sh2#1" in out[0]  # the whole couplet of the half typed comes first
    scores = [float(line.split()[0]) for line in out[:-1]]
    assert scores == sorted(scores, reverse=True)
    assert out[-1].endswith("by tfidf cosine")
    monkeypatch.setenv("PERSIAN_TUI_SIMILAR_MODEL", f"st:{tiny_st['plain']}")
    assert main(["--db", db, "corpus", "similar", couplet, "--limit", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[-1].endswith(f"by st:{tiny_st['plain']} cosine")
    assert main(["--db", db, "corpus", "similar", couplet, "--model", f"st:{tmp_path}/missing"]) == 1
    err = capsys.readouterr().err
    assert "cannot load model" in err and err.count("\n") == 1


def test_malformed_poet_file_skips_that_poet_only(store, tmp_path):
    root = copy_mini(tmp_path)
    (root / "poets" / "khayyam" / "poet.json").write_text("[]")
    p = import_corpus(store, root)
    assert (p.new, p.skipped) == (5, 2)
    assert p.errors == [f"{root / 'poets' / 'khayyam' / 'poet.json'}: expected a JSON object, found list"]


def test_a_busy_database_does_not_undo_a_save(corpus, monkeypatch):
    from persian_tui.store import StoreBusy

    def busy(*a, **k):
        raise StoreBusy("busy")

    monkeypatch.setattr(corpus.links, "_save_links", busy)
    corpus.questions.add_questions([make_question("q-busy", couplets=[HAFEZ_1, SAADI, BABA, ROBAEE])])
    assert corpus.questions.get_question("q-busy") is not None and corpus.links.links(["q-busy"]) == {}
    monkeypatch.undo()
    assert corpus.links.link_questions()["linked"] == 4  # linked later
