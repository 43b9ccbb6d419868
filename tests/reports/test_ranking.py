"""The one ranking rule (reports/ranking.py): all answered, the limit named, ties share a rank."""

import pytest
from factories import add_questions, add_run

from persian_tui.reports.figures import build_report
from persian_tui.reports.report_files import render_files, render_text


def test_ties_share_a_rank_and_the_rank_has_an_interval(store):
    add_questions(store, [1] * 10)
    a = add_run(store, "a", [1] * 6 + [2] * 4)
    b = add_run(store, "b", [2] * 4 + [1] * 6)  # the same accuracy, other questions
    c = add_run(store, "c", [1] * 3 + [2] * 2, uids=[f"q{i}" for i in range(1, 6)])  # 3/5: also 60 %
    d = add_run(store, "d", [1] * 2 + [2] * 8)
    r = build_report(store, n_boot=300, seed=3)
    assert [(x.run_id, x.rank) for x in r.leaderboard] == [(a, 1), (b, 1), (c, 1), (d, 4)]
    for x in r.leaderboard:
        assert x.rank_low <= x.rank <= x.rank_high
    accs = [x.answered_accuracy for x in r.leaderboard]
    assert accs == sorted(accs, reverse=True)  # the order is the ranked figure's
    from persian_tui.reports.ranking import rank_runs

    ranked = rank_runs([a, b, c, d], [6, 6, 3, 2], [10, 10, 5, 10])
    assert [(x.run_id, x.rank) for x in ranked] == [(a, 1), (b, 1), (c, 1), (d, 4)]
    csv_text = render_files(r, "csv")["leaderboard.csv"].decode()
    assert [line.split(",")[0] for line in csv_text.splitlines()[1:]] == ["1", "1", "1", "4"]


def test_leaderboard_ranks_by_all_answered_and_names_the_limit(store):
    add_questions(store, [1] * 10)
    full = add_run(store, "full", [1] * 6 + [2] * 4)  # 6/10 overall, 2/2 on the shared q1, q2
    short = add_run(store, "short", [1, 2], uids=["q1", "q2"])  # 1/2 overall and shared
    r = build_report(store, n_boot=50)
    assert r.questions == 2 and r.limiting == [short]
    top, second = r.leaderboard
    assert (top.run_id, top.answered_correct, top.answered) == (full, 6, 10)
    assert (second.answered_correct, second.answered) == (1, 2)
    from statsmodels.stats.proportion import proportion_confint

    assert (top.answered_low, top.answered_high) == pytest.approx(
        proportion_confint(6, 10, method="wilson"), abs=1e-12)
    assert (top.correct, top.total) == (2, 2)  # the paired figures stay on the shared questions
    text = render_text(r)
    assert "EVERY keyed question" in text and "exact" in text and f"#{short} (2)" in text
