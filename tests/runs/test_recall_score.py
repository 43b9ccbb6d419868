"""Recall scoring (models/recall.py) as GhazalBench's calcRecallPersian.py scores it, and the probes'
storage: one row per (run, question, position), a retry replacing its row."""

from __future__ import annotations

import pytest
from factories import keyed_bank

from persian_tui.models.recall import Probe, complete_edits, score_recall
from persian_tui.text import recall_form

GOLD = "که عشق آسان نمود اول ولی افتاد مشکل‌ها"


def test_the_comparison_form_maps_arabic_letters_drops_diacritics_and_reads_zwnj_as_space():
    assert recall_form("يك ة ؤ إ أ ٱ") == "یک ه و ا ا ا"
    assert recall_form("اَلا یا اَیُّهَا السّاقی\u0670") == "الا یا ایها الساقی"
    assert recall_form("مشکل\u200cها  \t و\n  دل") == "مشکل ها و دل"
    assert recall_form("\u0643\u064a") == recall_form("کی")  # NFC and letter forms together


def test_edit_allowance_grows_with_the_gold_length():
    assert [complete_edits(n) for n in (1, 39, 40, 79, 80, 500)] == [1, 1, 2, 2, 3, 3]


@pytest.mark.parametrize("reply, score", [
    (GOLD, "complete"),
    ("كه عشق آسان نمود اوّل ولي افتاد مشكل ها", "complete"),  # Arabic forms, a shadda, a space for ZWNJ
    ("که عشق آسان نمود اول ولی افتاد مشکلها", "complete"),  # one edit (no ZWNJ) under 40 characters
    ("که عشق آسان نمود اول ولی افتاد مشکلات", "partial"),  # three edits: not complete under 40
    ("که عشق آسان نمود ولی افتاد مشکل‌ها", "partial"),
    ("عشق چیز دیگری است که در دل نشست", "none"),
    ("Love seemed easy at first", "none"),  # another script
    ("", "none"),
])
def test_scores_follow_ghazalbench(reply, score):
    got, cer = score_recall(GOLD, reply)
    assert got == score
    assert (cer <= 0.2) == (score != "none")


def test_thresholds_at_their_edges():
    gold = "ا" * 50  # 50 characters: two edits complete, CER 0.2 = 10 edits partial
    assert score_recall(gold, "ا" * 48)[0] == "complete"
    assert score_recall(gold, "ا" * 47)[0] == "partial"
    assert score_recall(gold, "ا" * 40) == ("partial", 0.2)
    assert score_recall(gold, "ا" * 39)[0] == "none"
    assert score_recall("", "anything") == ("none", 1.0)


def test_a_huge_reply_is_scored_none_quickly():
    score, cer = score_recall(GOLD, GOLD + " و" * 500_000)
    assert score == "none" and cer > 1


def test_probes_are_unique_per_run_question_and_position(store):
    keyed_bank(store, 2)
    run = store.runs.create_run("recall", "m", {"cue": "first", "format": "complete"}, total=8)
    p = Probe("q-000", 2, gold="مصراع دوم 0 1", cue="مصراع اول 0 1", status="api_error", error="boom")
    store.probes.save_probes(run.id, [p])
    again = Probe("q-000", 2, gold="مصراع دوم 0 1", cue="مصراع اول 0 1", status="ok", reply="مصراع دوم 0 1",
                  score="complete", cer=0.0, choices=["الف", "ب"], poet="حافظ")
    store.probes.save_probes(run.id, [again])
    rows = store.probes.probes(run.id)
    assert len(rows) == 1 and rows[0].status == "ok" and rows[0].score == "complete"
    assert rows[0].choices == ["الف", "ب"] and rows[0].poet == "حافظ" and rows[0].recalled
    assert store.probes.probed(run.id) == {("q-000", 2)}
    assert store.probes.probed(run.id, statuses=("api_error",)) == set()
    assert store.probes.probe_counts()[run.id]["recalled"] == 1
    store.runs.delete_run(run.id)
    assert store.probes.probes(run.id) == []
