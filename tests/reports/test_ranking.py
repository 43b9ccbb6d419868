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
    # on the same questions: ranked by accuracy (c answered fewer: tests/reports/test_common_scale.py)
    r = build_report(store, run_ids=[a, b, d], n_boot=300, seed=3)
    assert [(x.run_id, x.rank) for x in r.leaderboard] == [(a, 1), (b, 1), (d, 3)]
    for x in r.leaderboard:
        assert x.rank_low <= x.rank <= x.rank_high
    accs = [x.answered_accuracy for x in r.leaderboard]
    assert accs == sorted(accs, reverse=True)  # the order is the ranked figure's
    from persian_tui.reports.ranking import rank_runs

    ranked = rank_runs([a, b, c, d], [6, 6, 3, 2], [10, 10, 5, 10])
    assert [(x.run_id, x.rank) for x in ranked] == [(a, 1), (b, 1), (c, 1), (d, 4)]
    csv_text = render_files(r, "csv")["leaderboard.csv"].decode()
    assert [line.split(",")[0] for line in csv_text.splitlines()[1:]] == ["1", "1", "3"]


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


def test_rank_confidence_sets_marginal_and_simultaneous(store):
    """Issue 32: rank sets from bootstrap simultaneous intervals of the differences (Mogstad et al.
    2024). Far-apart runs get their own rank; identical runs every rank; the all-runs set contains
    each run's own; the sets are recomputed here by a plain loop over the same resamples."""
    import numpy as np
    from factories import synthetic_bank

    from persian_tui import stats
    from persian_tui.reports.ranking import rank_sets

    runs = synthetic_bank(store, n_questions=300, abilities=[0.95, 0.9, 0.6, 0.6, 0.3, 0.3, 0.3])
    r = build_report(store, n_boot=1000, seed=4)
    by = {x.run_id: x for x in r.leaderboard}
    assert (by[runs[0]].rank_low, by[runs[0]].rank_high) == (1, 2)
    assert by[runs[2]].rank_low == 3 and by[runs[4]].rank_high == 7
    for x in r.leaderboard:
        assert x.rank_low_simultaneous <= x.rank_low <= x.rank <= x.rank_high <= x.rank_high_simultaneous
    # a plain loop over the same resamples
    R, Q = 7, 300
    keys = [q.key for q in store.questions.questions()]
    right = np.array([[p.predicted == keys[int(p.uid[1:]) - 1] for p in sorted(
        store.runs.predictions(rid), key=lambda p: int(p.uid[1:]))] for rid in runs], dtype=float)
    asked = np.ones((R, Q), dtype=bool)
    w = stats.bootstrap_weights(Q, 1000, 4)
    acc = right.mean(axis=1)
    boot = np.array([[(wb * right[j]).sum() / wb.sum() for j in range(R)] for wb in w])
    se = {(j, k): np.std(boot[:, j] - boot[:, k], ddof=1) for j in range(R) for k in range(R) if j != k}
    tmax = np.array([max(abs(boot[b, j] - boot[b, k] - acc[j] + acc[k]) / se[j, k]
                         for j in range(R) for k in range(R) if j != k and se[j, k] > 0) for b in range(1000)])
    crit = np.sort(tmax)[int(np.ceil(1000 * 0.95)) - 1]
    low = [1 + sum(acc[k] - acc[j] > crit * se[j, k] for k in range(R) if k != j) for j in range(R)]
    high = [R - sum(acc[j] - acc[k] > crit * se[j, k] for k in range(R) if k != j) for j in range(R)]
    (_, _, s_low, s_high), _ = rank_sets(right, asked, 1000, 4)
    assert (s_low, s_high) == (low, high)


def test_rank_sets_say_when_monte_carlo_error_could_move_them(store):
    """The printed ends either agree between seeds or are marked ~ (Monte Carlo error)."""
    from factories import synthetic_bank

    synthetic_bank(store, n_questions=200)
    reports = [build_report(store, n_boot=2000, seed=s) for s in (0, 1)]
    a, b = ({x.run_id: x for x in r.leaderboard} for r in reports)
    for rid in a:
        if not (a[rid].rank_unstable or b[rid].rank_unstable):
            assert (a[rid].rank_low, a[rid].rank_high) == (b[rid].rank_low, b[rid].rank_high)
            assert (a[rid].rank_low_simultaneous, a[rid].rank_high_simultaneous) == (
                b[rid].rank_low_simultaneous, b[rid].rank_high_simultaneous)
    assert "rank 95 % (all runs)" in render_text(reports[0])
