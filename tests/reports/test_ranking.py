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
    """Rank sets from the exact paired tests (Mogstad et al. 2024 with Holm): far-apart runs get
    their own rank, identical runs every rank; recomputed here independently with scipy's
    binomtest and statsmodels' multipletests (Holm) over Tarone's family."""
    import numpy as np
    from factories import synthetic_bank
    from scipy.stats import binomtest
    from statsmodels.stats.multitest import multipletests

    runs = synthetic_bank(store, n_questions=300, abilities=[0.95, 0.9, 0.6, 0.6, 0.3, 0.3, 0.3])
    r = build_report(store, n_boot=100, seed=4)
    by = {x.run_id: x for x in r.leaderboard}
    assert by[runs[0]].rank_low == 1 and by[runs[2]].rank_low == 3 and by[runs[4]].rank_high == 7
    for pos, x in enumerate(r.leaderboard, 1):
        assert x.rank_low_simultaneous <= x.rank_low <= x.rank <= x.rank_high <= x.rank_high_simultaneous
        assert x.rank_low_simultaneous <= pos <= x.rank_high_simultaneous
    R = len(runs)
    keys = {q.uid: q.key for q in store.questions.questions()}
    right = {rid: [p.predicted == keys[p.uid] for p in sorted(
        store.runs.predictions(rid), key=lambda p: int(p.uid[1:]))] for rid in runs}

    def significant(pairs):
        counts = {(a, b): (sum(x and not y for x, y in zip(right[a], right[b])),
                           sum(y and not x for x, y in zip(right[a], right[b]))) for a, b in pairs}
        smallest = {k: min(1.0, 2 * 0.5 ** sum(c)) for k, c in counts.items()}
        size = next(k for k in range(1, len(pairs) + 1) if sum(v <= 0.05 / k for v in smallest.values()) <= k)
        family = [k for k in pairs if smallest[k] <= 0.05 / size]
        if not family:
            return {}
        p = [binomtest(min(counts[k]), sum(counts[k]), 0.5).pvalue for k in family]
        reject = multipletests(p, alpha=0.05, method="holm")[0]
        return {k: counts[k][0] > counts[k][1] for k, rej in zip(family, reject) if rej}  # a beat b?

    everyone = [(a, b) for i, a in enumerate(runs) for b in runs[i + 1:]]
    together = significant(everyone)
    for rid in runs:
        own = significant([k for k in everyone if rid in k])
        for sig, low, high in ((own, by[rid].rank_low, by[rid].rank_high),
                               (together, by[rid].rank_low_simultaneous, by[rid].rank_high_simultaneous)):
            above = sum((a == rid and not won) or (b == rid and won) for (a, b), won in sig.items())
            below = sum((a == rid and won) or (b == rid and not won) for (a, b), won in sig.items())
            assert (low, high) == (1 + above, R - below)
    assert np.all([x.rank_low >= 1 for x in r.leaderboard])


def test_rank_sets_do_not_depend_on_the_seed(store):
    """No resampling: another seed gives the same sets."""
    from factories import synthetic_bank

    synthetic_bank(store, n_questions=200)
    reports = [build_report(store, n_boot=200, seed=s) for s in (0, 1)]
    a, b = ([(x.run_id, x.rank_low, x.rank_high, x.rank_low_simultaneous, x.rank_high_simultaneous)
             for x in r.leaderboard] for r in reports)
    assert a == b
    board = render_text(reports[0]).split("== Paired")[0]
    assert "rank 95 % (all runs)" in board and "~" not in board
