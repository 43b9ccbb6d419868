"""The report's design choices on synthetic banks (issue 19): pairs on their own overlap, exact
intervals that agree with their tests, one ranking rule, Connor power, the majority-key baseline,
accuracy on usable answers, clustered standard errors."""

import json

import numpy as np
import pytest
from factories import HAFEZ_1, HAFEZ_2, MINI, SAADI, add_questions, add_run, make_question, planted_pair, synthetic_bank

from persian_tui import stats
from persian_tui.reports.figures import build_report
from persian_tui.reports.report_files import render_files, render_text

# 29 runs on 200 questions; the last 14 answered only the first 100 (the 97 shared)
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


def test_clustered_standard_errors_by_poem_poet_and_source(store):
    import statsmodels.api as sm

    from persian_tui.corpus.ganjoor import import_corpus

    import_corpus(store, MINI)
    key_couplets = [HAFEZ_1, HAFEZ_2, HAFEZ_1, HAFEZ_2, SAADI, SAADI, None, None]
    qs = []
    for i, kc in enumerate(key_couplets, 1):
        others = [(f"مصراع ساخته {i} {j}", f"مصراع دیگر {i} {j}") for j in range(3)]
        qs.append(make_question(f"q{i}", couplets=[kc or (f"بیت بی‌نشان {i}", f"مصراع دوم {i}")] + others,
                                key=1, source_name="book", source_id=str(i), source_page=(i + 1) // 2))
    store.questions.add_questions(qs)
    store.links.link_questions()
    rid = add_run(store, "m", [1, 1, 1, 1, 2, 2, 1, 2], uids=[q.uid for q in qs])
    r = build_report(store, n_boot=50)
    rows = {c.unit: c for c in r.clusters if c.run_id == rid}
    assert set(rows) == {"poem", "poet", "source"}
    y = np.array([1, 1, 1, 1, 0, 0, 1, 0], dtype=float)
    poems = ["sh1", "sh1", "sh1", "sh1", "sh10", "sh10", "q7", "q8"]
    fit = sm.OLS(y, np.ones(8)).fit(cov_type="cluster", cov_kwds={"groups": np.unique(poems, return_inverse=True)[1]})
    assert rows["poem"].se == pytest.approx(float(fit.bse[0]), rel=1e-10) and rows["poem"].clusters == 4
    assert rows["poet"].clusters == 4 and rows["source"].clusters == 4  # pages p1..p4
    assert rows["poem"].design_effect == pytest.approx((rows["poem"].se / rows["poem"].se_unclustered) ** 2)
    assert rows["poem"].design_effect > 1
    for fmt, name in (("md", "report.md"), ("json", "report.json"), ("csv", "clusters.csv")):
        assert b"design" in render_files(r, fmt)[name] or fmt != "md"
    assert "clustered by poem, poet, source" in render_text(r)


def test_without_corpus_links_the_clusters_are_by_source_only(two_questions_store):
    r = build_report(two_questions_store, n_boot=50)
    assert {c.unit for c in r.clusters} == {"source"}
    assert "No corpus links" in render_text(r)


@pytest.fixture
def two_questions_store(store):
    add_questions(store, [1, 2, 3, 4])
    add_run(store, "m", [1, 2, 1, 1])
    return store


def test_repeated_samples_chance_agreement():
    from itertools import product

    assert stats.chance_agreement(5) == pytest.approx(0.496, abs=1e-3)
    for k in (1, 2, 3, 4):  # by brute force over every sequence of answers
        seqs = list(product(range(4), repeat=k))
        expected = np.mean([max(s.count(o) for o in range(4)) for s in seqs]) / k
        assert stats.chance_agreement(k) == pytest.approx(expected, rel=1e-12)
