"""Shortcut diagnostics on planted questions over the mini corpus."""

from __future__ import annotations

import json

import pytest
from factories import MINI, make_question
from scipy.stats import binomtest

from persian_tui.access import solo
from persian_tui.cli import main
from persian_tui.corpus.ganjoor import import_corpus
from persian_tui.reports.shortcuts import analyse, length_outlier, odd_one
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
        s.questions.add_questions([
            make_question("q-poet-key", couplets=[H1[0], H1[1], H1[2], KH], key=4),  # every cue finds it
            make_question("q-poet-miss", couplets=[H1[0], H1[1], H1[3], KH], key=1),  # cues point at 4
            make_question("q-two-two", couplets=[H1[0], H1[1], H2[0], H2[1]], key=2),  # no odd one
            make_question("q-unlinked", couplets=[H1[0], H1[1], H1[2], ("بیتی تازه", "که نیست")], key=4),
        ])
    return db


def test_planted_questions(planted):
    with Store(planted) as s:
        qs = s.questions.questions()
        rep = analyse(qs, s.links.links())
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
    assert rows["poet"].p_value == pytest.approx(binomtest(1, 2, 0.25, alternative="two-sided").pvalue)
    assert rows["poet"].low < 0.5 < rows["poet"].high


def test_cli_shortcuts_json_and_baseline_runs(planted, capsys):
    assert main(["--db", str(planted), "shortcuts", "--format", "json", "--store-runs"]) == 0
    out = capsys.readouterr().out
    stored = [line for line in out.splitlines() if line.startswith("stored run")]
    assert len(stored) == 7
    data = json.loads(out[out.index("{"):])
    cues = {c["cue"]: c for c in data["cues"]}
    assert cues["poet"]["hits"] == 1 and cues["lexical"]["eligible"] == 4
    assert sorted(data["flagged"]) == ["q-poet-key", "q-unlinked"]
    with Store(planted) as s:
        runs = [r for r in s.runs.runs() if r.kind == "baseline"]
        assert [r.model for r in runs] == [f"cue:{c}" for c in ("poet", "metre", "rhyme", "form", "length",
                                                                  "position", "lexical")]
        poet = {p.uid: p.predicted for p in s.runs.predictions(runs[0].id)}
        assert poet == {"q-poet-key": 4, "q-poet-miss": 4, "q-two-two": None, "q-unlinked": None}
    assert main(["--db", str(planted), "shortcuts"]) == 0
    table = capsys.readouterr().out
    assert "| poet | 3 | 2 | 1 |" in table and "2 question(s) flagged" in table and "q-poet-key" in table


def test_report_breaks_down_by_provenance(planted, capsys):
    from persian_tui.reports.figures import build_report
    from persian_tui.reports.report_files import render_text

    assert main(["--db", str(planted), "shortcuts", "--store-runs"]) == 0
    capsys.readouterr()
    with Store(planted) as s:
        report = build_report(s, questions="all")
    got = {(b.dimension, b.value, b.run_id): (b.correct, b.total) for b in report.breakdowns}
    poet_run = next(r.run_id for r in report.leaderboard if r.model == "cue:poet")
    # key couplets: خیام (q-poet-key, found by the poet cue), حافظ x2 (missed), unlinked x1
    assert got[("key poet", "خیام", poet_run)] == (1, 1)
    assert got[("key poet", "حافظ", poet_run)] == (0, 2)
    assert got[("key poet", "(unlinked)", poet_run)] == (0, 1)
    assert got[("question poet", "(mixed)", poet_run)] == (1, 2)
    assert got[("question poet", "حافظ", poet_run)] == (0, 1)  # all four agree
    assert got[("key form", "Ghazal", poet_run)] == (0, 2)
    assert ("key metre", "هزج مثمن سالم", poet_run) in got  # the metre's name, not its feet
    text = render_text(report)
    assert "== Accuracy by key poet" in text and "== Accuracy by question metre" in text


def test_report_without_links_has_no_provenance_tables(store):
    from persian_tui.models import Prediction
    from persian_tui.reports.figures import build_report
    from persian_tui.reports.report_files import render_text

    store.questions.add_questions([make_question("q-x")])
    store.runs.create_run("baseline", "cue:x", {}, status="done", total=1, predictions=[Prediction("q-x", 1, "ok")])
    text = render_text(build_report(store))
    assert "== Accuracy by category" in text and "key poet" not in text


def test_bank_filters_by_poet_and_form(planted):
    from persian_tui.bank.search import BankSearch, split_facets

    assert split_facets("poet:حافظ عشق FORM:Robaee") == ("عشق", {"poet": "حافظ", "form": "Robaee"})
    with Store(planted) as s:
        bank = BankSearch(s)
        assert set(bank.uids("poet:خیام", who=solo())) == {"q-poet-key", "q-poet-miss"}
        assert set(bank.uids("poet:khayyam form:robaee", who=solo())) == {"q-poet-key", "q-poet-miss"}
        assert set(bank.uids("form:Ghazal", who=solo())) == {"q-poet-key", "q-poet-miss", "q-two-two", "q-unlinked"}
        assert bank.uids("form:Dobeyti", who=solo()) == []
        assert bank.uids("poet:سعدی", who=solo()) == []


def test_baseline_runs_are_stored_once_and_only_for_cues_that_fired(planted, capsys):
    assert main(["--db", str(planted), "shortcuts", "--store-runs"]) == 0
    first = [line for line in capsys.readouterr().out.splitlines() if line.startswith("stored run")]
    assert main(["--db", str(planted), "shortcuts", "--store-runs"]) == 0
    again = capsys.readouterr().out
    assert "stored run" not in again and again.count("up to date: run") == len(first)
    with Store(planted) as s:
        assert len([r for r in s.runs.runs() if r.kind == "baseline"]) == len(first)
        s.questions.add_questions([make_question("q-more", couplets=[H1[0], H1[1], H1[2], KH], key=2)])
    assert main(["--db", str(planted), "shortcuts", "--store-runs"]) == 0
    assert "stored run" in capsys.readouterr().out  # the bank changed: new answers, new runs


def test_a_cue_that_never_fires_is_not_stored(tmp_path, capsys):
    db = tmp_path / "n.db"
    with Store(db) as s:
        import_corpus(s, MINI)
        s.questions.add_questions([make_question("q-two-two", couplets=[H1[0], H1[1], H2[0], H2[1]], key=2)])
    assert main(["--db", str(db), "shortcuts", "--store-runs"]) == 0
    out = capsys.readouterr().out
    assert "not stored: cue:poet never fired" in out
    with Store(db) as s:
        assert "cue:poet" not in {r.model for r in s.runs.runs()}


def test_a_cue_that_mostly_abstains_stays_on_the_leaderboard(planted, capsys):
    """Abstentions are stored as empty answers; for any other run kind so many would mark the
    run broken and leave it out of the default report."""
    from persian_tui.reports.figures import build_report

    with Store(planted) as s:
        s.questions.add_questions([make_question(f"q-even-{i}", couplets=[H1[0], H1[1], H2[0], H2[1]], key=1)
                                   for i in range(3)])
    assert main(["--db", str(planted), "shortcuts", "--store-runs"]) == 0
    capsys.readouterr()
    with Store(planted) as s:
        poet = next(r for r in s.runs.runs() if r.model == "cue:poet")
        empty = sum(p.parse_status == "empty" for p in s.runs.predictions(poet.id))
        assert empty > len(s.runs.predictions(poet.id)) / 2
        report = build_report(s, questions="all")
    assert "cue:poet" in {r.model for r in report.leaderboard}


def test_json_output_keeps_bidi_controls_as_escapes(tmp_path, capsys):
    db = tmp_path / "j.db"
    with Store(db) as s:
        import_corpus(s, MINI)
        s.questions.add_questions([make_question("q-\u202eevil", couplets=[H1[0], H1[1], H1[2], KH], key=4)])
    assert main(["--db", str(db), "shortcuts", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "\u202e" not in out and "⟨RLO⟩" not in out
    assert "q-\u202eevil" in json.loads(out)["flagged"]


def test_each_question_set_gets_its_own_baseline_runs(planted, capsys):
    """all and ready are the same questions here: the same answers, yet two sets."""
    assert main(["--db", str(planted), "shortcuts", "--store-runs"]) == 0
    assert main(["--db", str(planted), "shortcuts", "--store-runs", "--questions", "ready"]) == 0
    out = capsys.readouterr().out
    assert "up to date" not in out


BABA = ("مرا نه سر نه سامان آفریدند", "پریشانم پریشان آفریدند")  # a poem without a metre


def test_eligible_only_when_all_four_values_are_known(tmp_path):
    with Store(tmp_path / "e.db") as s:
        import_corpus(s, MINI)
        s.questions.add_questions([make_question("q-m", couplets=[H1[0], H1[1], H1[2], BABA], key=4)])
        rows = {r.cue: r for r in analyse(s.questions.questions(), s.links.links()).rows}
    assert rows["poet"].eligible == 1 and rows["poet"].hits == 1
    assert rows["metre"].eligible == 0 and rows["metre"].fired == 0  # Baba Taher's metre is unknown


def test_key_position_is_a_cue_and_tested_against_uniform():
    from scipy.stats import chisquare

    qs = [make_question(f"q-{i}", key=4 if i % 5 else 2) for i in range(40)]  # 32 fours, 8 twos
    rep = analyse(qs, {})
    rows = {r.cue: r for r in rep.rows}
    assert rep.keys == {1: 0, 2: 8, 3: 0, 4: 32}
    assert rep.uniform_p == pytest.approx(chisquare([0, 8, 0, 32]).pvalue) and rep.uniform_p < 1e-6
    # always answering the most common key (among the other questions) finds the 32 fours
    assert (rows["position"].eligible, rows["position"].fired, rows["position"].hits) == (40, 40, 32)
    assert rows["position"].p_value < 1e-6
    assert "position" not in {c for cues in rep.flagged.values() for c in cues}
    # leave-one-out: with two keys 1 and 2, each question's "most common other key" is the other one
    rep = analyse([make_question("a", key=1), make_question("b", key=2)], {})
    assert rep.picks["a"]["position"] == 2 and rep.picks["b"]["position"] == 1


def test_a_cue_far_below_chance_is_reported():
    # the length cue fires on 20 questions and is never right: two-sided, that is significant
    short = [("کوتاه", "بیت")] + [("این مصراعی بلندتر است از آن", "و این هم مصراعی بلند است")] * 3
    qs = [make_question(f"q-{i}", couplets=short, key=2) for i in range(20)]
    row = {r.cue: r for r in analyse(qs, {}).rows}["length"]
    assert (row.fired, row.hits) == (20, 0)
    assert row.p_value == pytest.approx(binomtest(0, 20, 0.25).pvalue) and row.p_value < 0.01
