"""Shortcut diagnostics on planted questions over the mini corpus."""

from __future__ import annotations

import json

import pytest
from conftest import make_question
from scipy.stats import binomtest
from test_corpus import MINI

from persian_tui.cli import main
from persian_tui.eval.shortcuts import analyse, length_outlier, odd_one
from persian_tui.io.ganjoor import import_corpus
from persian_tui.store import Store

H1 = [("اَلا یا اَیُّهَا السّاقی اَدِرْ کَأساً وَ ناوِلْها", "که عشق آسان نمود اول ولی افتاد مشکل‌ها"),
      ("به بوی نافه‌ای کاخر صبا زان طره بگشاید", "ز تاب جعد مشکینش چه خون افتاد در دل‌ها"),
      ("مرا در منزل جانان چه امن عیش چون هر دم", "جرس فریاد می‌دارد که بربندید محمل‌ها"),
      ("شب تاریک و بیم موج و گردابی چنین هایل", "کجا دانند حال ما سبکباران ساحل‌ها")]
H2 = [("صلاح کار کجا و منِ خراب کجا", "ببین تفاوت ره کز کجاست تا به کجا"),
      ("دلم ز صومعه بگرفت و خرقهٔ سالوس", "کجاست دیر مغان و شراب ناب کجا")]
KH = ("این قافلهٔ عمر عجب می‌گذرد", "دریاب دمی که با طرب می‌گذرد")


def test_odd_one():
    assert odd_one(["a", "a", "b", "a"]) == 3
    assert odd_one(["a", "a", "b", "b"]) is None
    assert odd_one(["a", "b", "c", "a"]) is None
    assert odd_one(["a", "a", "a", "a"]) is None
    assert odd_one(["a", None, "b", "a"]) is None  # a missing value never counts


def test_length_outlier():
    assert length_outlier([50, 52, 49, 80]) == 4
    assert length_outlier([50, 52, 49, 55]) is None
    assert length_outlier([50, 70, 49, 20]) is None  # the others disagree too


@pytest.fixture
def planted(tmp_path):
    db = tmp_path / "s.db"
    with Store(db) as s:
        import_corpus(s, MINI)
        s.add_questions([
            make_question("q-poet-key", couplets=[H1[0], H1[1], H1[2], KH], key=4),  # every cue finds it
            make_question("q-poet-miss", couplets=[H1[0], H1[1], H1[3], KH], key=1),  # cues point at 4
            make_question("q-two-two", couplets=[H1[0], H1[1], H2[0], H2[1]], key=2),  # no odd one
            make_question("q-unlinked", couplets=[H1[0], H1[1], H1[2], ("بیتی تازه", "که نیست")], key=4),
        ])
    return db


def test_planted_questions(planted):
    with Store(planted) as s:
        qs = s.questions()
        rep = analyse(qs, s.links())
    rows = {r.cue: r for r in rep.rows}
    assert rep.questions == 4 and rep.linked == 3
    assert (rows["poet"].eligible, rows["poet"].fired, rows["poet"].hits) == (3, 2, 1)
    assert (rows["form"].fired, rows["form"].hits) == (2, 1)
    assert (rows["metre"].fired, rows["metre"].hits) == (2, 1)
    assert "lexical" not in rows  # not asked for
    assert rep.flagged["q-unlinked"] == ["length"]  # a short outlier is a length cue
    assert set(rep.flagged) == {"q-poet-key", "q-unlinked"}
    assert {"poet", "metre", "rhyme", "form"} <= set(rep.flagged["q-poet-key"])
    assert rep.picks["q-two-two"].get("poet") is None
    assert rows["poet"].p_value == pytest.approx(binomtest(1, 2, 0.25, alternative="greater").pvalue)
    assert rows["poet"].low < 0.5 < rows["poet"].high


def test_cli_shortcuts_json_and_baseline_runs(planted, capsys):
    assert main(["--db", str(planted), "shortcuts", "--format", "json", "--store-runs"]) == 0
    out = capsys.readouterr().out
    stored = [line for line in out.splitlines() if line.startswith("stored run")]
    assert len(stored) == 6
    data = json.loads(out[out.index("{"):])
    cues = {c["cue"]: c for c in data["cues"]}
    assert cues["poet"]["hits"] == 1 and cues["lexical"]["eligible"] == 4
    assert sorted(data["flagged"]) == ["q-poet-key", "q-unlinked"]
    with Store(planted) as s:
        runs = [r for r in s.runs() if r.kind == "baseline"]
        assert [r.model for r in runs] == [f"cue:{c}" for c in ("poet", "metre", "rhyme", "form", "length", "lexical")]
        poet = {p.uid: p.predicted for p in s.predictions(runs[0].id)}
        assert poet == {"q-poet-key": 4, "q-poet-miss": 4, "q-two-two": None, "q-unlinked": None}
    assert main(["--db", str(planted), "shortcuts"]) == 0
    table = capsys.readouterr().out
    assert "| poet | 3 | 2 | 1 |" in table and "2 question(s) flagged" in table and "q-poet-key" in table
