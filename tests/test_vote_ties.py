"""A tied majority vote (a run asked K times whose most common answers tie) is never decided by
the answer given first (issue 19, item 6): scores give it 1/t when the key is one of the t tied
options; pair tests, position counts, confusion matrices and the item analysis, which need one
answer per question, leave it out. The leaderboard, the release's leaderboard and the samples
section agree."""

import csv
import io
import json
from fractions import Fraction

import pytest
from factories import TIE_KEYS, add_questions, voted_run

from persian_tui.models import SampleVote
from persian_tui.releases.build import build_release
from persian_tui.reports.figures import build_report
from persian_tui.reports.items import item_analysis
from persian_tui.reports.report_files import render_files, render_text

# per question, the samples of the voted run, in the order they were given


def test_vote_credit_is_one_over_the_tied_options():
    def vote(*answers):
        return SampleVote(answers[0], 0, len(answers), None, tuple(answers))

    assert vote(2, 1, 1, 2).tied == (1, 2)
    assert vote(2, 1, 1, 2).credit(1) == vote(2, 1, 1, 2).credit(2) == Fraction(1, 2)
    assert vote(2, 1, 1, 2).credit(3) == 0
    assert vote(1, 2, 3, 0).credit(3) == Fraction(1, 3)
    assert vote(3, 3, 1).credit(3) == 1 and vote(3, 3, 1).tied == (3,)
    assert vote(0, 0).tied == () and vote(0, 0).credit(1) == 0


def test_the_leaderboard_gives_a_tie_fractional_credit_never_the_first_given(tied):
    store, voter, single = tied
    r = build_report(store, n_boot=50)
    row = {b.run_id: b for b in r.leaderboard}
    # first given would score the voter 2 of 4; the expected score of a random tie-break is 3 of 4
    assert row[voter].answered_correct == 3 and row[voter].answered_accuracy == 0.75
    assert row[voter].correct == 3 and row[voter].accuracy == 0.75 and row[voter].ties == 2
    assert row[single].ties == 0
    # equal accuracies share a rank
    assert row[voter].rank == row[single].rank == 1
    sample = next(s for s in r.samples if s.run_id == voter)
    assert sample.majority_correct == row[voter].answered_correct  # one rule in both sections


def test_a_tie_is_left_out_of_what_needs_one_answer(tied):
    store, voter, single = tied
    r = build_report(store, n_boot=50)
    (pair,) = r.pairs
    assert pair.n == 2  # q1 and q4: the voter has no single answer there
    position = {p.run_id: p for p in r.position}
    assert position[voter].chosen == [0, 1, 1, 0]
    assert sum(map(sum, r.confusion[voter])) == 2
    items = {i.uid: i for i in r.items}
    assert items["q1"].runs.n == 1 and items["q2"].runs.n == 2
    # the same from the store, as `persian-tui items` and the release read it
    again = {i.uid: i for i in item_analysis(store, store.questions.questions(), [voter, single])}
    assert again["q1"].runs.n == 1


def test_report_files_say_how_ties_were_scored(tied):
    store, voter, single = tied
    r = build_report(store, n_boot=50)
    text = render_text(r)
    assert f"Tied majority votes (#{voter}: 2)" in text and "never the answer given first" in text
    csvs = render_files(r, "csv")
    board = {row["run_id"]: row for row in csv.DictReader(io.StringIO(csvs["leaderboard.csv"].decode()))}
    assert board[str(voter)]["ties"] == "2" and board[str(voter)]["answered_correct"] == "3"
    data = json.loads(render_files(r, "json")["report.json"])
    from persian_tui.reports.notes import leader_note, pairs_note

    assert "Tied majority votes" in leader_note(r) and "n leaves those questions out" in pairs_note(r, 1, 0)
    assert {b["run_id"]: b["ties"] for b in data["leaderboard"]} == {voter: 2, single: 0}


def test_a_third_of_a_point_is_shown_as_a_fraction(store):
    add_questions(store, TIE_KEYS, status=["curated"] * 4)
    voter = voted_run(store, {"q1": [1, 2, 3], "q2": [2, 2, 2], "q3": [3, 3, 3], "q4": [4, 4, 4]})
    (row,) = build_report(store, n_boot=50).leaderboard
    assert row.answered_correct == pytest.approx(3 + 1 / 3)
    assert "3.33/4" in render_text(build_report(store, n_boot=50))
    assert row.run_id == voter


def test_the_release_leaderboard_scores_ties_the_same_way(tied, tmp_path):
    store, voter, single = tied
    build_release(store, "v1", tmp_path / "v1", run_ids=[voter, single])
    rows = list(csv.reader((tmp_path / "v1" / "leaderboard.csv").read_text(encoding="utf-8").splitlines()))
    header, body = rows[0], rows[1:]
    by_id = {row[header.index("run_id")]: row for row in body}
    assert by_id[str(voter)][header.index("correct")] == "3"
    assert by_id[str(voter)][header.index("rank")] == by_id[str(single)][header.index("rank")] == "1"
