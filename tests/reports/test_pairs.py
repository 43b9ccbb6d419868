"""Paired comparisons (reports/pairs.py): each pair on its own overlap, exact intervals that
agree with their tests, Holm and the groups."""

import json

import pytest
from factories import add_questions, add_run, planted_pair, synthetic_bank

from persian_tui import stats
from persian_tui.reports.figures import build_report
from persian_tui.reports.report_files import render_files, render_text

# 29 runs on 200 questions; the last 14 answered only the first 100 (as the seed's exp-6 runs: 97 shared)
LIMITS = [200] * 15 + [100] * 14


@pytest.fixture
def bank29(store):
    return store, synthetic_bank(store, limits=LIMITS)


def _significant(report, runs) -> set:
    return {(p.a, p.b) for p in report.pairs if p.a in runs and p.b in runs
            and p.p_holm is not None and p.p_holm < 0.05}


def test_pairs_are_tested_on_their_own_overlap(bank29):
    store, runs = bank29
    r = build_report(store, n_boot=50)
    answered = dict(zip(runs, LIMITS))
    for p in r.pairs:  # n, b and c counted on the questions both answered
        assert p.n == min(answered[p.a], answered[p.b])
        assert p.p_exact == pytest.approx(stats.mcnemar_exact(p.a_only, p.b_only), rel=1e-12)
    tested = [p.p_exact for p in r.pairs]
    assert [p.p_holm for p in r.pairs] == pytest.approx(stats.holm(tested).tolist())
    # two full runs: compared on all 200 questions, not on the 100 every run shares
    assert r.questions == 100 and next(p for p in r.pairs if {p.a, p.b} == {runs[0], runs[14]}).n == 200


def test_a_short_run_keeps_the_others_significant_pairs(bank29):
    store, runs = bank29
    before = _significant(build_report(store, n_boot=50), set(runs))
    assert len(before) > 100
    short = add_run(store, "short", [1] * 40, uids=[f"q{i}" for i in range(61, 101)])
    after = build_report(store, n_boot=50)
    assert after.questions == 40 and short in after.run_ids
    kept = _significant(after, set(runs)) & before
    assert len(kept) >= 0.8 * len(before)
    assert next(p for p in after.pairs if short in (p.a, p.b)).n == 40  # the short run: its own 40
    # groups come from these tests: more than one group among 29 runs this far apart
    assert len(after.groups) > 2


def test_the_exact_interval_excludes_0_exactly_when_p_is_below_005(bank29):
    store, runs = bank29
    r = build_report(store, n_boot=200)
    m = len(r.pairs)
    for p in r.pairs:
        excludes = p.diff_low > 0 or p.diff_high < 0
        assert excludes == (p.p_exact < 0.05), (p.a, p.b, p.a_only, p.b_only, p.p_exact)
        assert p.diff_low <= p.diff <= p.diff_high
        # the simultaneous (Bonferroni) interval holds for all pairs at once: wider, and it
        # excludes 0 exactly when the Bonferroni-adjusted p does
        assert p.diff_low_simultaneous <= p.diff_low and p.diff_high <= p.diff_high_simultaneous
        assert (p.diff_low_simultaneous > 0 or p.diff_high_simultaneous < 0) == (p.p_exact * m < 0.05)
    data = json.loads(render_files(r, "json")["report.json"])
    assert {"diff_low_simultaneous", "diff_high_simultaneous", "mde_adjusted"} <= set(data["pairs"][0])
    assert "simultaneous" in render_text(r, intervals="simultaneous")


def test_where_the_bootstrap_and_the_exact_test_disagree(store):
    """19 against 8 discordant of 60: exact p 0.052; the percentile bootstrap excluded 0."""
    a, b = planted_pair(store, n=60, a_only=19, b_only=8, both=20)
    (pair,) = build_report(store, n_boot=2000).pairs
    assert pair.p_exact == pytest.approx(0.0522, abs=1e-4)
    assert pair.diff_low < 0 < pair.diff_high
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(19, 27, alpha=0.05, method="beta")
    assert (pair.diff_low, pair.diff_high) == pytest.approx((27 / 60 * (2 * lo - 1), 27 / 60 * (2 * hi - 1)))
    assert pair.diff_low == pytest.approx(-0.0016, abs=1e-4)


def test_pairs_holm_and_groups(store):
    """Three runs on 40 questions: two close ones, one far below -> two groups."""
    keys = [1 + i % 4 for i in range(40)]
    add_questions(store, keys)
    wrong = [1 + (k % 4) for k in keys]
    good = add_run(store, "good", keys)
    near = add_run(store, "near", keys[:36] + wrong[36:])
    bad = add_run(store, "bad", keys[:6] + wrong[6:])
    r = build_report(store, n_boot=200)
    assert [x.run_id for x in r.leaderboard] == [good, near, bad]
    by = {(p.a, p.b): p for p in r.pairs}
    assert set(by) == {(good, near), (good, bad), (near, bad)}
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.multitest import multipletests

    raw = [mcnemar([[0, by[k].a_only], [by[k].b_only, 0]], exact=True).pvalue for k in by]
    assert [by[k].p_holm for k in by] == pytest.approx(list(multipletests(raw, method="holm")[1]))
    assert (by[(good, near)].a_only, by[(good, near)].b_only) == (4, 0)
    assert by[(good, near)].p_holm >= 0.05 and by[(good, bad)].p_holm < 0.05
    assert r.groups == [[good, near], [bad]]
    assert by[(good, bad)].diff_low > 0  # the interval excludes 0
