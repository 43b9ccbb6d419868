"""`persian-tui corpus ...` (cli/corpus.py): import, stats, search, link, similar, reorder; its
progress lines and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import BABA, HAFEZ_1, HAFEZ_2, MINI, ROBAEE, SAADI, copy_mini, make_question

from persian_tui.cli import main
from persian_tui.store import Store


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


def test_import_progress_shows_an_eta():
    from types import SimpleNamespace

    from persian_tui.cli.corpus import _eta

    assert _eta(SimpleNamespace(done=10, total=70, rate=2.0)) == "0:30"
    assert _eta(SimpleNamespace(done=0, total=70, rate=0.0)) == "…"


@pytest.mark.parametrize("words, reason", [([], "give words to search for"), (["؟!،"], "nothing to search for")])
def test_an_empty_or_punctuation_search_is_refused(small_db, words, reason, capsys):
    assert main(["--db", str(small_db), "corpus", "search", *words]) == 1
    assert reason in capsys.readouterr().err


def test_progress_is_not_repeated_in_a_log(tmp_path, capsys):

    from persian_tui.cli import main

    assert main(["--db", str(tmp_path / "p.db"), "corpus", "import", str(MINI)]) == 0
    err = capsys.readouterr().err  # not a terminal: one line per update, the last one once
    assert err.count("7/7") == 1
