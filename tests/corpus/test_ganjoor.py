"""Reading the Ganjoor export (corpus/ganjoor.py): counts and exact text, re-import, hostile and
malformed files skipped with one line each, misnumbered couplets, long poems in short transactions."""

from __future__ import annotations

import json
from contextlib import contextmanager

import pytest
from factories import HAFEZ_1, MINI, copy_mini, ganjoor_poem, write_poem

from persian_tui.cli import main
from persian_tui.corpus.ganjoor import import_corpus
from persian_tui.files.inputs import InputError

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


ZWNJ = "\u200c"


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


def test_malformed_poet_file_skips_that_poet_only(store, tmp_path):
    root = copy_mini(tmp_path)
    (root / "poets" / "khayyam" / "poet.json").write_text("[]")
    p = import_corpus(store, root)
    assert (p.new, p.skipped) == (5, 2)
    assert p.errors == [f"{root / 'poets' / 'khayyam' / 'poet.json'}: expected a JSON object, found list"]


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


@pytest.mark.parametrize("id_text, reason", [("1e400", "the number 1e400 is too large"),
                                             ("NaN", "NaN is not a number")])
def test_a_poem_id_that_is_not_a_finite_number_is_refused(store, tmp_path, id_text, reason):
    """It used to be stored as NULL; now the file is skipped with the reason (the others import)."""
    from factories import copy_mini

    from persian_tui.corpus.ganjoor import import_corpus

    root = copy_mini(tmp_path)
    bad = root / "poets" / "hafez" / "ghazal" / "bad.json"
    verses = '[{"VOrder": 1, "Position": "Right", "Text": "a", "CoupletIndex": 0}]'
    bad.write_text(f'{{"Id": {id_text}, "Title": "t", "FullUrl": "/hafez/bad", "Verses": {verses}}}',
                   encoding="utf-8")
    p = import_corpus(store, root)
    assert p.skipped == 1 and str(bad) in p.errors[0] and reason in p.errors[0], p.errors


# ---------------------------------------------------------------- worker processes


def _corpus_rows(store) -> list[tuple]:
    return [tuple(r) for r in store.conn.execute(
        "SELECT pt.slug, pt.name, pt.nickname, pt.death_year, p.path, p.ganjoor_id, p.title, p.form, p.metre, "
        "p.rhyme, p.couplets, p.sha256, p.quoting, c.idx, c.mesra1, c.mesra2, c.norm1, c.norm2 "
        "FROM corpus_couplets c JOIN corpus_poems p ON p.id = c.poem_id JOIN corpus_poets pt ON pt.id = p.poet_id "
        "ORDER BY c.id")]


def _messy_export(tmp_path):
    """The mini export with what an import must report: a malformed file, a poet without a
    readable poet.json, a poem path given twice, a misnumbered couplet, a long poem."""
    root = copy_mini(tmp_path)
    (root / "poets" / "hafez" / "ghazal" / "broken.json").write_text('{"FullUrl": "/hafez/x", "Verses": [', "utf-8")
    write_poem(root, "hafez", "ghazal/sh9", None, verses=_verses(
        [("R", 0), ("L", 0), ("R", 1), ("L", 1), ("R", 2), ("L", 3), ("R", 3), ("L", 3), ("R", 4), ("L", 4)]))
    write_poem(root, "hafez", "masnavi/sh1", [(f"نخست {i} مثنوی", f"دوم {i} مثنوی") for i in range(12)])
    twice = json.loads((root / "poets" / "hafez" / "ghazal" / "sh1.json").read_text("utf-8"))
    (root / "poets" / "hafez" / "ghazal" / "sh1copy.json").write_text(json.dumps(twice, ensure_ascii=False), "utf-8")
    (root / "poets" / "nopoet").mkdir()
    (root / "poets" / "nopoet" / "poet.json").write_text("[1]", "utf-8")
    write_poem(root, "nopoet", "sh1", FIVE)
    return root


def test_reading_in_worker_processes_imports_the_same(tmp_path, monkeypatch):
    from persian_tui.corpus import ganjoor
    from persian_tui.store import Store

    monkeypatch.setattr(ganjoor, "CHUNK", 2)  # several chunks per poet, in two workers
    monkeypatch.setattr(ganjoor, "BATCH_COUPLETS", 5)  # the masnavi in parts
    root = _messy_export(tmp_path)
    seen = {}
    for workers in (0, 2):
        with Store(tmp_path / f"w{workers}.db") as store:
            p = import_corpus(store, root, workers=workers)
            again = import_corpus(store, root, workers=workers)
            seen[workers] = (_corpus_rows(store), p.errors, p.notes, p.summary(), p.quoting, again.summary())
    assert seen[2] == seen[0]
    rows, errors, notes, summary, _, again = seen[0]
    assert len(errors) == 3 and any("broken.json: invalid JSON" in e for e in errors)
    assert any("sh1copy.json: FullUrl /hafez/ghazal/sh1 is also the poem of" in e for e in errors)
    assert any("nopoet" in e and "poet.json" in e for e in errors)
    assert len(notes) == 1 and "renumbered" in notes[0]
    assert "0 new, 0 updated" in again and "0 couplets written" in again


def test_a_large_export_is_read_in_a_worker_process_by_default(tmp_path, monkeypatch, store):
    from persian_tui.corpus import ganjoor

    used = []
    real = ganjoor.ordered_map
    monkeypatch.setattr(ganjoor, "ordered_map", lambda *a: used.append(a[2]) or real(*a))
    import_corpus(store, MINI)  # 7 files: read here
    assert used == []
    monkeypatch.setattr(ganjoor, "WORKERS_FROM", 5)
    monkeypatch.setattr(ganjoor.os, "cpu_count", lambda: 2)
    assert import_corpus(store, MINI).unchanged == 7
    assert used == [1]


def test_cli_workers_option(tmp_path, capsys):
    db = str(tmp_path / "cli.db")
    assert main(["--db", db, "corpus", "import", str(MINI), "--workers", "1"]) == 0
    assert "7 new" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--db", db, "corpus", "import", str(MINI), "--workers", "-1"])
    assert "a number of processes from 0 to" in capsys.readouterr().err
    import os

    with pytest.raises(SystemExit):  # --workers 64 on a small machine: refused, saying the bound
        main(["--db", db, "corpus", "import", str(MINI), "--workers", str(4 * (os.cpu_count() or 1) + 1)])
    assert "4 per core" in capsys.readouterr().err


_KILLED_IMPORT = """
import subprocess, sys, time
from persian_tui.corpus import ganjoor, workers
from persian_tui.store import Store
popen = subprocess.Popen
def recorded(*a, **k):
    proc = popen(*a, **k)
    with open(sys.argv[3], "a") as f:
        f.write(f"{proc.pid}\\n")
    return proc
workers.subprocess.Popen = recorded
ganjoor.BATCH = 20
with Store(sys.argv[1]) as store:
    ganjoor.import_corpus(store, sys.argv[2], workers=1, on_progress=lambda p: time.sleep(0.05))
"""


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="reads /proc")
def test_a_killed_import_stops_its_workers_and_the_next_one_resumes(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    from persian_tui.store import Store

    root = copy_mini(tmp_path)
    for i in range(600):
        write_poem(root, "hafez", f"many/sh{i}", [(f"نخست بیت {i} و {j}", f"دوم بیت {i} و {j}") for j in range(3)])
    db, pids = tmp_path / "k.db", tmp_path / "pids"
    Store(db).close()
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_IMPORT, str(db), str(root), str(pids)])
    try:
        with Store(db) as watch:
            while not watch.conn.execute("SELECT COUNT(*) FROM corpus_poems").fetchone()[0] > 40:
                assert proc.poll() is None, "the import ended before it could be killed"
                time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    workers = [int(x) for x in pids.read_text().split()]
    assert len(workers) == 1
    for _ in range(600):  # the worker sees its pipes close and ends (a hang would fail here)
        if all(map(_gone, workers)):
            break
        time.sleep(0.05)
    assert all(map(_gone, workers))
    with Store(db) as store:
        done = store.conn.execute("SELECT COUNT(*) FROM corpus_poems").fetchone()[0]
        assert 40 < done < 607
        p = import_corpus(store, root, workers=1)
        assert (p.new, p.unchanged, p.skipped) == (607 - done, done, 0)
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        store.conn.execute("INSERT INTO corpus_fts (corpus_fts, rank) VALUES ('integrity-check', 1)")


WRONG_SHAPES = {
    "sections-a-number": {"Sections": 5},
    "sections-of-numbers": {"Sections": [5, None, [1]]},
    "position-a-list": {"Verses": [{"Position": [0], "Text": "x", "CoupletIndex": 0}]},
    "position-an-object": {"Verses": [{"Position": {"a": 1}, "Text": "x", "CoupletIndex": 0}]},
    "title-a-list": {"Title": ["x"]},
    "metre-rhythm-a-list": {"Metre": {"Rhythm": ["x"]}},
    "id-a-list": {"Id": [1]},
}


@pytest.mark.parametrize("workers", [0, 2], ids=["in-process", "in-workers"])
@pytest.mark.parametrize("shape", list(WRONG_SHAPES), ids=list(WRONG_SHAPES))
def test_a_file_of_any_wrong_shape_is_skipped_in_one_line_and_the_import_goes_on(tmp_path, shape, workers):
    from persian_tui.store import Store

    root = copy_mini(tmp_path)
    bad = root / "poets" / "hafez" / "ghazal" / "bad.json"
    poem = ganjoor_poem("/hafez/ghazal/bad", *HAFEZ_1)
    bad.write_text(json.dumps({**poem, **WRONG_SHAPES[shape]}, ensure_ascii=False), "utf-8")
    with Store(tmp_path / "c.db") as store:
        p = import_corpus(store, root, workers=workers)
    assert p.new + p.skipped == 8 and p.new >= 7
    if p.skipped:
        assert len(p.errors) == 1 and str(bad) in p.errors[0] and "\n" not in p.errors[0]


def test_a_poet_file_of_a_wrong_shape_skips_that_poet_in_one_line(store, tmp_path):
    root = copy_mini(tmp_path)
    (root / "poets" / "hafez" / "poet.json").write_text(json.dumps({"Nickname": {"x": 1}, "Name": [1]}))
    p = import_corpus(store, root)
    assert p.errors and all("\n" not in e for e in p.errors)
    assert any("hafez" in e and "poet.json" in e for e in p.errors)


def test_strict_stops_at_a_wrong_shape_in_one_line(tmp_path, capsys):
    root = copy_mini(tmp_path)
    bad = root / "poets" / "hafez" / "ghazal" / "bad.json"
    bad.write_text(json.dumps({**ganjoor_poem("/hafez/ghazal/bad", *HAFEZ_1), "FullUrl": ["/hafez/x"]}))
    assert main(["--db", str(tmp_path / "c.db"), "corpus", "import", str(root), "--strict", "--no-link"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.json" in err[0] and "nothing written" in err[0]
