"""The evaluation report's figures (reports/figures.py) on small hand-made and synthetic
banks: the baseline, accuracy on usable answers, the human baseline, tied majority votes."""

import csv
import json

import numpy as np
import pytest
from factories import add_questions, add_run, run_import

from persian_tui import stats
from persian_tui.reports.figures import build_report
from persian_tui.reports.items import item_analysis
from persian_tui.reports.report_files import render_files, render_text
from persian_tui.runs.prediction_files import import_predictions

# ---------------------------------------------------------------- hand-made databases


def test_two_runs_five_questions_by_hand(two_runs):
    store, a, b = two_runs
    r = build_report(store, seed=0, n_boot=500)
    assert r.run_ids == [a, b] and r.questions == 5 and r.keyed == 5
    la, lb = r.leaderboard
    assert (la.run_id, la.correct, la.total, la.invalid, la.accuracy) == (a, 4, 5, 0, 0.8)
    assert (lb.run_id, lb.correct, lb.invalid, lb.accuracy) == (b, 3, 1, 0.6)
    assert (la.wilson_low, la.wilson_high) == (pytest.approx(0.3755, abs=1e-4), pytest.approx(0.9638, abs=1e-4))
    assert (la.tokens_in, la.tokens_out, la.latency_mean, la.cost) == (50, 10, 0.5, pytest.approx(0.005))
    assert (lb.tokens_in, lb.latency_mean, lb.cost) == (None, None, None)
    # bootstrap: the same resamples of the 5 questions for both runs
    draws = np.random.default_rng(0).integers(0, 5, size=(500, 5))
    right_a = np.array([1, 1, 1, 1, 0])
    ref = np.percentile(right_a[draws].mean(axis=1), [2.5, 97.5])
    assert (la.boot_low, la.boot_high) == (pytest.approx(ref[0]), pytest.approx(ref[1]))
    (pair,) = r.pairs
    # only A right on q2, q3; only B right on q5: exact McNemar 2·P(X <= 1 | 3) = 1
    assert (pair.a, pair.b, pair.n, pair.a_only, pair.b_only) == (a, b, 5, 2, 1)
    # 3 discordant questions can never give p < 0.05 (smallest 2/8): outside the Holm family
    assert (pair.p_exact, pair.p_holm, pair.diff, pair.in_family) == (1.0, None, pytest.approx(0.2), False)
    # Tango's score interval (stats.paired_difference_interval, checked in tests/foundation)
    from persian_tui import stats

    lo, hi = stats.paired_difference_interval(2, 1, 5)
    assert (pair.diff_low, pair.diff_high) == (pytest.approx(float(lo)), pytest.approx(float(hi)))
    assert pair.diff_low < 0 < pair.diff_high
    assert r.groups == [[a, b]] and [x.letters for x in r.leaderboard] == ["a", "a"]
    # position bias: A chose 1 2 3 4 2 against keys 1 2 3 4 1 -> chi2 1.5; B chose position 3
    # where none of its answered questions has its key -> undefined
    pa, pb = r.position
    assert (pa.chosen, pa.keys, pa.chi2) == ([1, 2, 1, 1], [2, 1, 1, 1], pytest.approx(1.5))
    assert (pb.chosen, pb.keys, pb.chi2, pb.p) == ([2, 0, 1, 1], [2, 1, 0, 1], None, None)
    assert r.confusion[a] == [[1, 1, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]]
    assert r.confusion[b] == [[2, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 1, 0]]
    assert r.agreement == ([a, b], [[1.0, 0.4], [0.4, 0.8]])  # same option on q1 and q4
    hard = [(h.uid, h.solved, h.runs, h.common_wrong, h.common_wrong_count) for h in r.hardest]
    assert hard == [("q2", 1, 2, 3, 1), ("q3", 1, 2, None, 0), ("q5", 1, 2, 2, 1),
                    ("q1", 2, 2, None, 0), ("q4", 2, 2, None, 0)]
    rows = {(x.dimension, x.value, x.run_id): (x.correct, x.total) for x in r.breakdowns}
    assert rows[("category", "a", a)] == (3, 3) and rows[("category", "a", b)] == (1, 3)
    assert rows[("category", "(none)", b)] == (1, 1)
    assert rows[("poet", "حافظ", a)] == (1, 1)
    assert rows[("poet", "حافظ + سعدی", b)] == (0, 1)  # q2: its options' poets
    # 2 runs: solved by both = easy (100 %), by one = medium (50 %)
    assert rows[("difficulty", "easy", a)] == (2, 2) and rows[("difficulty", "medium", b)] == (1, 3)
    assert ("difficulty", "hard", a) not in rows
    assert [x.dimension for x in r.breakdowns][0] == "category"


def test_invalid_and_api_errors_count_as_wrong(store):
    add_questions(store, [1, 2, 3, 4])
    rid = add_run(store, "m", [1, "x", None, 4])
    row = build_report(store).leaderboard[0]
    assert (row.correct, row.total, row.invalid) == (2, 4, 2)
    assert build_report(store).confusion[rid][1] == [0, 0, 0, 0, 1]


def test_human_baseline_on_the_same_questions(two_runs):
    store, a, b = two_runs
    add_run(store, "few", [1, 2], uids=["q1", "q2"])
    store.labels.add_label("q1", "mina", 1)
    store.labels.add_label("q2", "mina", 3)
    store.labels.add_label("q3", "mina", 3)  # not shared with run "few": left out
    store.labels.add_label("q1", "ali", 1)
    r = build_report(store)
    assert r.questions == 2
    human = [(h.annotator, h.correct, h.total) for h in r.human]
    assert human == [("ali", 1, 1), ("mina", 1, 2)]
    assert r.human[1].low == pytest.approx(stats.wilson(1, 2)[0])


def test_position_bias_against_uniform_and_keys(store):
    from scipy.stats import chisquare

    add_questions(store, [1, 1, 1, 1, 2, 2, 3, 4])
    add_run(store, "first", [1, 1, 1, 1, 1, 1, 1, 2])
    (pos,) = build_report(store, n_boot=50).position
    assert pos.chosen == [7, 1, 0, 0] and pos.keys == [4, 2, 1, 1]
    ref_u = chisquare([7, 1, 0, 0], [2, 2, 2, 2])
    ref_k = chisquare([7, 1, 0, 0], [4, 2, 1, 1])
    # 8 answers: expected counts under 5, so the p-values are the exact multinomial test's
    from persian_tui import stats

    assert (pos.chi2_uniform, pos.p_uniform) == pytest.approx(
        (ref_u.statistic, stats.multinomial_exact([7, 1, 0, 0], [2, 2, 2, 2])))
    assert (pos.chi2, pos.p) == pytest.approx((ref_k.statistic, stats.multinomial_exact([7, 1, 0, 0], [4, 2, 1, 1])))


# ---------------------------------------------------------------- the seed's published answers


def test_seed_exp6_runs_match_the_csv_is_correct_column(store, seed):
    run_import(store, seed / "gherabat-questions-sample.json", answers=seed / "gherabat-answer-keys.json")
    imported = import_predictions(store, seed / "exp6-llm-answers.csv", source="gherabat-questions-sample")
    # each model answered two different "question 6"s: the importer skips them as ambiguous
    assert set(imported.ambiguous) == {"6"}
    rows = list(csv.DictReader(open(seed / "exp6-llm-answers.csv", encoding="utf-8")))
    keyed = {q.source_id for q in store.questions.questions() if q.key is not None} - set(imported.ambiguous)
    runs = {r.model: r.id for r in store.runs.runs()}
    assert len(runs) == 31
    mine = {m: [row for row in rows if row["model_name"] == m and row["question_id"] in keyed] for m in runs}
    for model, rid in runs.items():  # each run alone: every question it answered
        r = build_report(store, run_ids=[rid], n_boot=50)
        row = r.leaderboard[0]
        assert (row.correct, row.total) == (sum(x["is_correct"] == "True" for x in mine[model]), len(mine[model]))
        assert row.invalid == sum(not x["model_answer"].strip() for x in mine[model])
    full = build_report(store, n_boot=200)
    # one run's answers are almost all unusable: the default leaves it out and says so
    broken = {rid: why for rid, why in full.left_out.items() if why.startswith("broken")}
    assert len(broken) == 1 and len(full.leaderboard) == 30
    full = build_report(store, run_ids=list(runs.values()), n_boot=200)
    shared = set.intersection(*({x["question_id"] for x in m} for m in mine.values()))
    assert full.questions == len(shared) and len(full.leaderboard) == 31
    for row in full.leaderboard:  # accuracy on everything the run answered, from the CSV
        assert (row.answered_correct, row.answered) == (
            sum(x["is_correct"] == "True" for x in mine[row.model]), len(mine[row.model]))
    for row in full.leaderboard:
        csv_rows = [x for x in mine[row.model] if x["question_id"] in shared]
        assert row.correct == sum(x["is_correct"] == "True" for x in csv_rows)
    assert full.leaderboard[0].model == "google/gemini-2.5-pro"
    assert len(full.pairs) == 31 * 30 // 2


def test_the_majority_key_baseline_with_unbalanced_keys(store):
    keys = [1] * 10 + [2] * 13 + [3] * 16 + [4] * 18  # 18 of 57 = 31.6 %
    add_questions(store, keys)
    below = add_run(store, "below", [k if i % 10 < 2 else 1 + k % 4 for i, k in enumerate(keys)])
    add_run(store, "always-4", [4] * len(keys))
    r = build_report(store, n_boot=50)
    assert (r.baseline.keys, r.baseline.correct, r.baseline.total) == ([4], 18, 57)
    assert r.baseline.share == pytest.approx(18 / 57)
    assert (r.baseline.low, r.baseline.high) == pytest.approx(stats.wilson(18, 57))
    text = render_text(r)
    assert "Majority-key baseline: always answering 4 scores 31.6 %" in text
    row = next(x for x in r.leaderboard if x.run_id == below)
    assert row.answered_accuracy < row.key_baseline == pytest.approx(18 / 57)
    data = json.loads(render_files(r, "json")["report.json"])
    assert data["baseline"]["keys"] == [4] and data["baseline"]["share"] == pytest.approx(0.315789)
    assert "Majority-key baseline" in render_files(r, "md")["report.md"].decode()


def test_invalid_and_usable_accuracy_on_the_ranked_questions(store):
    add_questions(store, [1] * 20)
    full = add_run(store, "full", [1, 1] + ["x"] * 5 + [1] * 8 + [2] * 5)  # 10 right, 5 unusable
    add_run(store, "short", [1, 1], uids=["q1", "q2"])  # shares q1, q2: no unusable answer there
    row = next(x for x in build_report(store, n_boot=50).leaderboard if x.run_id == full)
    assert (row.answered, row.invalid, row.shared_invalid) == (20, 5, 0)
    assert row.answered_accuracy == 0.5 and row.usable_accuracy == pytest.approx(10 / 15)
    assert (row.usable_low, row.usable_high) == pytest.approx(stats.wilson(10, 15))


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
